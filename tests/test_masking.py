"""Tests for bertedu.core.masking: 15 % selection, 80/10/10 split, specials untouched, labels, whole words."""

from __future__ import annotations

import inspect
from dataclasses import fields

import pytest
import torch

from bertedu.core.masking import IGNORE_INDEX, MaskingOptions, mask_tokens, mask_tokens_with_details
from bertedu.core.tokenizer import SPECIAL_TOKENS, BertTokenizer

# A vocabulary laid out like ours: [PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3 [MASK]=4, then 95 ordinary tokens.
PAD, UNK, CLS, SEP, MASK = range(5)
V = 100
SPECIAL = [PAD, UNK, CLS, SEP, MASK]
KW = {"mask_token_id": MASK, "vocab_size": V, "special_token_ids": SPECIAL}


def gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def make_batch(B: int, T: int, seed: int = 0, min_len: int = 3) -> torch.Tensor:
    """(B, T) rows ``[CLS] w ... [SEP] [UNK]? [SEP] [PAD] ...`` of random lengths."""
    g = gen(seed)
    ids = torch.randint(5, V, (B, T), generator=g)
    lengths = torch.randint(min_len, T + 1, (B,), generator=g)
    for b, n in enumerate(lengths.tolist()):
        ids[b, 0], ids[b, n - 1], ids[b, n // 2] = CLS, SEP, UNK if b % 3 else SEP
        ids[b, n:] = PAD
    return ids


@pytest.fixture(scope="module")
def big():
    """~250k maskable tokens and their masking."""
    ids = make_batch(2000, 256, seed=1, min_len=200)
    return ids, mask_tokens_with_details(ids, generator=gen(0), **KW)


@pytest.mark.slow
def test_selected_fraction_and_80_10_10_split(big):
    ids, r = big
    n_maskable = int(r.maskable.sum())
    assert n_maskable > 100_000
    n_selected = int(r.selected.sum())
    assert abs(n_selected / n_maskable - 0.15) < 0.005
    assert abs(int(r.masked.sum()) / n_selected - 0.80) < 0.01
    assert abs(int(r.randomized.sum()) / n_selected - 0.10) < 0.01
    assert abs(int(r.kept.sum()) / n_selected - 0.10) < 0.01
    # The flags agree with the tensors: [MASK] where masked, the original where kept, a token elsewhere.
    assert torch.equal(r.selected, r.masked | r.randomized | r.kept)
    assert (
        not (r.masked & r.randomized).any()
        and not (r.masked & r.kept).any()
        and not (r.randomized & r.kept).any()
    )
    assert (r.input_ids[r.masked] == MASK).all()
    assert torch.equal(r.input_ids[r.kept], ids[r.kept])
    changed = r.input_ids != ids
    assert torch.equal(
        changed & ~r.masked, changed & r.randomized
    )  # only [MASK] and random replacements change
    assert (
        changed & r.randomized
    ).sum() > 0.95 * r.randomized.sum()  # random = original only by chance (1/95)
    fractions = r.fractions()  # overall 12 / 1.5 / 1.5 / 85 %
    for key, expected in {"mask": 0.12, "random": 0.015, "kept": 0.015, "untouched": 0.85}.items():
        assert abs(fractions[key] - expected) < 0.005, key


def test_special_tokens_are_never_selected_or_produced(big):
    ids, r = big
    special = torch.isin(ids, torch.tensor(SPECIAL))
    assert not (r.selected & special).any()
    assert torch.equal(r.input_ids[special], ids[special])  # [CLS] [SEP] [PAD] [UNK] stay where they were
    assert not torch.isin(r.input_ids[r.randomized], torch.tensor(SPECIAL)).any()  # random ids never special
    for token in (PAD, CLS, SEP, UNK):  # no new special token appears anywhere
        assert torch.equal(r.input_ids == token, ids == token)
    assert torch.equal(r.input_ids == MASK, r.masked)


@pytest.mark.slow
def test_labels_are_the_original_ids_exactly_where_selected(big):
    ids, r = big
    assert torch.equal(r.labels != IGNORE_INDEX, r.selected)
    assert torch.equal(r.labels[r.selected], ids[r.selected])
    assert (r.labels[~r.selected] == -100).all()


def test_every_sequence_with_a_maskable_token_gets_one():
    ids = make_batch(3000, 6, seed=2)  # 1 to 3 maskable tokens per row: often none would be selected
    ids[0, 1:] = PAD  # a row with nothing maskable: [CLS] [PAD] ...
    ids[1, :] = torch.tensor([CLS, SEP, UNK, SEP, PAD, PAD])
    r = mask_tokens_with_details(ids, generator=gen(3), **KW)
    has_maskable = r.maskable.any(dim=1)
    assert (r.selected.sum(dim=1)[has_maskable] >= 1).all()
    assert not r.selected[~has_maskable].any() and (~has_maskable).sum() >= 2
    without_rule = mask_tokens_with_details(ids, generator=gen(3), ensure_one_masked=False, **KW)
    assert (without_rule.selected.sum(dim=1)[has_maskable] == 0).any()  # the rule really did something
    one = mask_tokens_with_details(ids, generator=gen(3), mlm_probability=0.0, **KW)
    assert torch.equal(one.selected.sum(dim=1), has_maskable.long())  # p = 0: exactly the one forced token


def test_exact_selection_picks_round_p_n_tokens():
    ids = make_batch(500, 64, seed=4)
    r = mask_tokens_with_details(ids, generator=gen(5), selection="exact", **KW)
    n = r.maskable.sum(dim=1)
    expected = torch.clamp(torch.round(0.15 * n.double()).long(), min=1) * (n > 0)
    assert torch.equal(r.selected.sum(dim=1), expected)


def test_seed_reproducibility_and_input_untouched():
    ids = make_batch(64, 32, seed=6)
    before = ids.clone()
    a_ids, a_labels = mask_tokens(ids, generator=gen(7), **KW)
    b_ids, b_labels = mask_tokens(ids, generator=gen(7), **KW)
    c_ids, _ = mask_tokens(ids, generator=gen(8), **KW)
    assert torch.equal(ids, before)  # the input is not modified
    assert torch.equal(a_ids, b_ids) and torch.equal(a_labels, b_labels)
    assert not torch.equal(a_ids, c_ids)
    torch.manual_seed(0)
    d_ids, _ = mask_tokens(ids, **KW)  # generator=None uses the global RNG
    torch.manual_seed(0)
    assert torch.equal(d_ids, mask_tokens(ids, **KW)[0])


def test_one_dimensional_input_and_tokenizer_shortcut():
    tok = BertTokenizer([*SPECIAL_TOKENS, *"abcdefghij"])
    ids = tok("a b c d e f g h i j", return_tensors="pt")["input_ids"][0]  # (T,)
    masked, labels = mask_tokens(ids, tokenizer=tok, generator=gen(0))
    assert masked.shape == labels.shape == ids.shape
    assert (labels != -100).sum() >= 1
    assert masked[0] == tok.cls_token_id and masked[-1] == tok.sep_token_id


def test_custom_probabilities():
    ids = make_batch(200, 64, seed=9)
    r = mask_tokens_with_details(
        ids, generator=gen(1), mlm_probability=0.5, mask_replace_prob=1.0, random_replace_prob=0.0, **KW
    )
    assert abs(r.selected.sum() / r.maskable.sum() - 0.5) < 0.03
    assert torch.equal(r.masked, r.selected)  # 100 % [MASK]
    r = mask_tokens_with_details(ids, generator=gen(1), mask_replace_prob=0.0, random_replace_prob=0.0, **KW)
    assert torch.equal(r.input_ids, ids) and r.selected.any()  # only labels, no corruption


def test_whole_word_masking_selects_whole_words():
    tok = BertTokenizer(
        [*SPECIAL_TOKENS, "play", "walk", "jump", "##ing", "##ed", "##s", "the", "cat", "dog"]
    )
    texts = ["the cat walking the dog jumped", "playing walks jumps the cat", "the dog plays walking"] * 400
    batch = tok(texts, padding=True, return_tensors="pt")["input_ids"]  # (1200, T)
    word_ids = tok.word_ids(batch)
    for ensure_one in (True, False):
        r = mask_tokens_with_details(
            batch, tokenizer=tok, word_ids=word_ids, generator=gen(2), ensure_one_masked=ensure_one
        )
        n_words = n_selected_words = 0
        for row_selected, row_words in zip(r.selected, word_ids):
            for w in row_words.unique().tolist():
                if w < 0:
                    continue
                in_word = row_selected[row_words == w]
                assert in_word.all() or not in_word.any(), "a word was selected only in part"
                n_words += 1
                n_selected_words += int(in_word.all())
        if not ensure_one:  # (with 5-6 words a row, the at-least-one rule adds ~0.85**5.5 / 5.5 = 8 %)
            assert abs(n_selected_words / n_words - 0.15) < 0.015
    assert r.selected[torch.isin(batch, torch.tensor([tok.vocab["##ing"], tok.vocab["##ed"]]))].any()
    same = mask_tokens_with_details(
        batch, tokenizer=tok, whole_word_mask=True, generator=gen(2), ensure_one_masked=False
    )
    assert torch.equal(same.input_ids, r.input_ids)  # whole_word_mask=True computes the same word_ids
    token_level = mask_tokens_with_details(batch, tokenizer=tok, generator=gen(2))
    partial = any(
        0 < int(token_level.selected[b][word_ids[b] == w].sum()) < int((word_ids[b] == w).sum())
        for b in range(50)
        for w in range(int(word_ids[b].max()) + 1)
    )
    assert partial  # without whole-word masking, words do get split (the test above can fail)


def test_bad_arguments_give_clear_errors():
    ids = make_batch(2, 8)
    with pytest.raises(
        ValueError, match=r"mlm_probability must be a probability in \[0, 1\] \(e.g. 0.15\), got 1.5"
    ):
        mask_tokens(ids, mlm_probability=1.5, **KW)
    with pytest.raises(ValueError, match="mask_replace_prob \\+ random_replace_prob = 1.1 exceeds 1"):
        mask_tokens(ids, mask_replace_prob=0.9, random_replace_prob=0.2, **KW)
    with pytest.raises(ValueError, match="torch.long"):
        mask_tokens(ids.float(), **KW)
    with pytest.raises(ValueError, match="torch.long"):
        mask_tokens(ids.tolist(), **KW)
    with pytest.raises(ValueError, match="outside 0..99.*different tokenizer"):
        mask_tokens(ids + 100, **KW)
    with pytest.raises(ValueError, match="needs mask_token_id="):
        mask_tokens(ids)
    with pytest.raises(ValueError, match='selection must be "bernoulli" or "exact"'):
        mask_tokens(ids, selection="random", **KW)
    with pytest.raises(ValueError, match="word_ids must be an integer tensor shaped like input_ids"):
        mask_tokens(ids, word_ids=torch.zeros(2, 3, dtype=torch.long), **KW)
    with pytest.raises(ValueError, match="whole_word_mask=True needs tokenizer="):
        mask_tokens(ids, whole_word_mask=True, **KW)


@pytest.mark.parametrize("generator", [0, 42, "seed", torch.tensor(0)])
def test_generator_must_be_a_torch_generator(generator):
    ids = torch.tensor([[2, 7, 8, 9, 3]])
    with pytest.raises(ValueError, match="generator must be a torch.Generator.*manual_seed"):
        mask_tokens(
            ids, mask_token_id=4, vocab_size=10, special_token_ids=[0, 1, 2, 3, 4], generator=generator
        )


def test_the_keywords_are_defined_once_and_shown_on_both_functions():
    """MaskingOptions holds the keyword arguments; both functions accept exactly its fields (help() and Jupyter
    show them with their defaults) and refuse any other keyword."""
    names = ["input_ids", *(f.name for f in fields(MaskingOptions))]
    ids = make_batch(2, 8)
    for function in (mask_tokens, mask_tokens_with_details):
        parameters = inspect.signature(function).parameters
        assert list(parameters) == names
        assert (
            parameters["mlm_probability"].default == 0.15 and parameters["selection"].default == "bernoulli"
        )
        assert {p.kind for name, p in parameters.items() if name != "input_ids"} == {
            inspect.Parameter.KEYWORD_ONLY
        }
        with pytest.raises(TypeError, match="mlm_prob"):
            function(ids, mlm_prob=0.2, **KW)
    plain = mask_tokens(ids, generator=gen(3), selection="exact", **KW)
    details = mask_tokens_with_details(ids, generator=gen(3), selection="exact", **KW)
    assert torch.equal(plain[0], details.input_ids) and torch.equal(plain[1], details.labels)
