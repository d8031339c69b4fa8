"""Tests for bertedu.training.data: corpus reader, NSP pairs, PretrainingDataset, collator, reproducible batches."""

from __future__ import annotations

import inspect
import random
import warnings

import pytest
import torch

from bertedu.core.masking import mask_tokens, mask_tokens_with_details
from bertedu.core.tokenizer import BertTokenizer, train_tokenizer, train_wordpiece
from bertedu.training.data import (
    IS_NEXT,
    NOT_NEXT,
    NSPPair,
    PretrainingCollator,
    PretrainingDataset,
    SentenceSpan,
    bucketed_batches,
    build_nsp_example,
    corpus_documents,
    make_nsp_pairs,
    read_corpus,
    truncate_seq_pair,
)
from bertedu.training.pretrain import PretrainingConfig
from bertedu.utils import repo_root

BATCH_KEYS = {"input_ids", "token_type_ids", "attention_mask", "labels", "next_sentence_label"}


def small_world(n_docs: int = 30, seed: int = 0) -> list[list[str]]:
    """Documents of 3-8 simple sentences; sentence s of document d mentions d and s (to trace it back)."""
    rng = random.Random(seed)
    animals, verbs, things = (
        ["cat", "dog", "bird", "fish"],
        ["sees", "eats", "likes"],
        ["milk", "ball", "tree"],
    )
    return [
        [
            f"the {rng.choice(animals)} {rng.choice(verbs)} the {rng.choice(things)} {d} {s}"
            for s in range(rng.randint(3, 8))
        ]
        for d in range(n_docs)
    ]


@pytest.fixture(scope="module")
def documents():
    return small_world()


@pytest.fixture(scope="module")
def tokenizer(documents):
    return BertTokenizer(train_wordpiece(documents, 100))


def write(tmp_path, text: str | bytes, name: str = "corpus.txt"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


# ----------------------------------------------------------------------------------------------------------
# read_corpus


def test_read_corpus_splits_documents_on_blank_lines(tmp_path):
    path = write(
        tmp_path,
        "\ufeff\n\nthe cat sits.\r\n  the cat sleeps.  \n\n\n \t \nthe sun rises.\nthe sun sets.\n\n",
    )
    assert read_corpus(path) == [["the cat sits.", "the cat sleeps."], ["the sun rises.", "the sun sets."]]
    old_mac = write(tmp_path, "the cat sits.\rthe cat sleeps.\r\rthe sun rises.\r", "mac.txt")
    assert read_corpus(old_mac) == [["the cat sits.", "the cat sleeps."], ["the sun rises."]]


def test_read_corpus_warns_about_the_lines_it_skips(tmp_path):
    path = write(tmp_path, "the cat sits.\n-----\nthe cat sleeps.\n\n" + "x" * 1200 + "\nthe sun rises.\n")
    with pytest.warns(
        UserWarning,
        match=r"skipped 2 line\(s\).*line 2 \(no letter or digit: '-----'\).*"
        r"line 5 \(1200 characters > max_line_chars=1000\)",
    ):
        documents = read_corpus(path)
    assert documents == [["the cat sits.", "the cat sleeps."], ["the sun rises."]]
    with pytest.warns(UserWarning, match=r"skipped 1 line\(s\).*line 2 "):
        assert read_corpus(path, max_line_chars=2000)[1] == ["x" * 1200, "the sun rises."]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a clean file: no warning at all
        read_corpus(write(tmp_path, "the cat sits.\n\nthe sun rises.\n", "clean.txt"))


def test_read_corpus_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="Corpus file .*nope.txt does not exist.*Check the path"):
        read_corpus(tmp_path / "nope.txt")
    with pytest.raises(ValueError, match="is a folder"):
        read_corpus(tmp_path)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "is empty"),
        ("\n\n   \n", "is empty"),
        ("----\n****\n", "no usable sentence"),
    ],
)
def test_read_corpus_empty_file(tmp_path, text, message):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=f"{message}.*one sentence per line"):
            read_corpus(write(tmp_path, text))


def test_read_corpus_non_utf8_bytes(tmp_path):
    path = write(tmp_path, "the cat sits.\nthe café is open.\n".encode("latin-1"))
    with pytest.raises(
        ValueError,
        match=r"not valid UTF-8: line 2, byte 7 of that line \(offset 21 in the file\) "
        r"is b'\\xe9'.*Latin-1.*Re-save it as UTF-8.*iconv",
    ):
        read_corpus(path)


def test_one_corpus_rule_streams_what_read_corpus_reads(tmp_path):
    # corpus_documents (line by line, as the shards writer reads) is read_corpus's rule, not a copy of it
    text = "\ufeffthe cat sits.\r\n\r\n---\n  the café opens.  \rthe sun rises.\r\r\nend of it\n\n\n last one"
    path = write(tmp_path, text)
    with pytest.warns(UserWarning, match=r"write_shards skipped 1 line\(s\).*line 3 \(no letter or digit"):
        streamed = list(corpus_documents(path, reader="write_shards"))
    with pytest.warns(UserWarning, match=r"read_corpus skipped 1 line\(s\).*line 3 "):
        assert read_corpus(path) == streamed
    assert streamed == [["the cat sits."], ["the café opens.", "the sun rises."], ["end of it"], ["last one"]]


# ----------------------------------------------------------------------------------------------------------
# NSP pairs


def test_nsp_labels_are_hugging_faces_0_is_next_1_not_next():
    """The contract that lets a ``transformers`` NSP head be read here: 0 = IsNext, 1 = NotNext."""
    assert (IS_NEXT, NOT_NEXT) == (0, 1)
    a = SentenceSpan(doc=0, start=0, stop=1)
    assert NSPPair(a, SentenceSpan(doc=0, start=1, stop=2), 0).is_next
    assert not NSPPair(a, SentenceSpan(doc=1, start=1, stop=2), 1).is_next
    documents = [["a b", "c d", "e f"], ["g h", "i j", "k l"]]
    assert {p.next_sentence_label for p in make_nsp_pairs(documents, 50, is_next_prob=1.0)} == {0}
    assert {p.next_sentence_label for p in make_nsp_pairs(documents, 50, is_next_prob=0.0)} == {1}


def test_nsp_pairs_are_half_is_next_and_come_from_the_right_place(documents):
    pairs = make_nsp_pairs(documents, 20_000, seed=1)
    is_next = sum(p.next_sentence_label == 0 for p in pairs) / len(pairs)
    assert abs(is_next - 0.5) < 0.02
    for p in pairs:
        a, b = p.a, p.b
        assert 0 <= a.start < a.stop <= len(documents[a.doc]) and a.stop - a.start <= 2
        assert 0 <= b.start < b.stop <= len(documents[b.doc]) and b.stop - b.start <= 2
        if p.next_sentence_label == 0:  # IsNext
            assert p.is_next and b.doc == a.doc and b.start == a.stop  # B is the real continuation of A
        else:
            assert p.next_sentence_label == 1 and b.doc != a.doc  # NotNext: B from another document
        assert a.stop < len(documents[a.doc]) and b.start > 0  # same positions for both labels: no shortcut
    assert len({p.b.doc for p in pairs if not p.is_next}) == len(documents)  # every document serves as B
    assert make_nsp_pairs(documents, 50, seed=1) == pairs[:50]  # seeded
    assert make_nsp_pairs(documents, 50, seed=2) != pairs[:50]


def test_nsp_examples_layout_and_truncation(documents, tokenizer):
    token_documents = [
        [tokenizer.convert_tokens_to_ids(tokenizer.tokenize(s)) for s in doc] for doc in documents
    ]
    cls, sep = tokenizer.cls_token_id, tokenizer.sep_token_id
    for pair in make_nsp_pairs(documents, 500, seed=3):
        for max_length in (64, 12):
            ex = build_nsp_example(
                token_documents, pair, cls_token_id=cls, sep_token_id=sep, max_length=max_length
            )
            ids, segments = ex["input_ids"], ex["token_type_ids"]
            assert ex["next_sentence_label"] == pair.next_sentence_label
            assert len(ids) == len(segments) <= max_length
            first_sep = ids.index(sep)
            assert ids[0] == cls and ids[-1] == sep and ids.count(sep) == 2
            assert segments == [0] * (first_sep + 1) + [1] * (len(ids) - first_sep - 1)
            full_a = [t for s in token_documents[pair.a.doc][pair.a.start : pair.a.stop] for t in s]
            full_b = [t for s in token_documents[pair.b.doc][pair.b.start : pair.b.stop] for t in s]
            a, b = ids[1:first_sep], ids[first_sep + 1 : -1]
            assert a and b
            assert a == full_a[len(full_a) - len(a) :]  # A keeps its end ...
            assert b == full_b[: len(b)]  # ... and B its start: the seam A|B is intact
            if len(full_a) + len(full_b) > max_length - 3:
                assert len(ids) == max_length


def test_truncate_seq_pair_takes_from_the_longer_side():
    a, b = truncate_seq_pair(list(range(10)), list(range(100, 104)), 8)
    assert a == [6, 7, 8, 9] and b == [100, 101, 102, 103]
    a, b = truncate_seq_pair(list(range(3)), list(range(100, 110)), 8)
    assert a == [0, 1, 2] and b == [100, 101, 102, 103, 104]
    assert truncate_seq_pair([1, 2], [3], 10) == ([1, 2], [3])


def test_nsp_bad_corpora_give_clear_errors(tmp_path, tokenizer):
    one_document = read_corpus(write(tmp_path, "the cat sits.\nthe cat sleeps.\nthe cat eats.\n"))
    with pytest.raises(
        ValueError,
        match="NSP needs at least two documents: a NotNext B must come from a "
        "different document.*blank lines",
    ):
        PretrainingDataset(one_document, tokenizer)
    with pytest.raises(ValueError, match="at least two documents with two or more sentences"):
        make_nsp_pairs([["the cat sits."], ["the dog runs."], ["a b", "c d"]], 10)
    with pytest.raises(ValueError, match=r"Document 1, sentence 1 is empty \(''\)"):
        PretrainingDataset([["the cat", "the dog"], ["the sun", "", "the moon"]], tokenizer)
    with pytest.raises(ValueError, match=r"Document 0, sentence 1 .* has no tokens after tokenization"):
        PretrainingDataset([["the cat", "\u200b\x07"], ["the sun", "the moon"]], tokenizer)
    with pytest.raises(ValueError, match="non-empty list of lists of sentences"):
        PretrainingDataset([], tokenizer)
    with pytest.raises(ValueError, match="Document 0 must be a non-empty list of sentences"):
        PretrainingDataset(["the cat sits", "the dog runs"], tokenizer)
    with pytest.raises(
        ValueError, match=r"max_length must be an integer >= 5 \(\[CLS\] A \[SEP\] B \[SEP\]\)"
    ):
        PretrainingDataset(small_world(3), tokenizer, max_length=4)


def test_single_sentence_documents_are_left_out_with_a_warning(tokenizer):
    documents = [["the cat sees the milk 1 1"], *small_world(4)]
    with pytest.warns(UserWarning, match="1 document\\(s\\) have a single sentence"):
        pairs = make_nsp_pairs(documents, 2000)
    assert all(p.a.doc != 0 and p.b.doc != 0 for p in pairs)


# ----------------------------------------------------------------------------------------------------------
# Dataset, collator, batches


def test_batches_have_the_model_keys_and_consistent_padding(documents, tokenizer):
    dataset = PretrainingDataset(documents, tokenizer, max_length=24, seed=0)
    assert len(dataset) == sum(map(len, documents))
    batch = PretrainingCollator(tokenizer)([dataset[i] for i in range(16)])
    assert set(batch) == BATCH_KEYS
    B, T = batch["input_ids"].shape
    assert B == 16 and T <= 24
    for key in BATCH_KEYS - {"next_sentence_label"}:
        assert batch[key].shape == (B, T) and batch[key].dtype == torch.long
    assert batch["next_sentence_label"].shape == (B,) and set(batch["next_sentence_label"].tolist()) <= {0, 1}
    pad = batch["attention_mask"] == 0
    assert pad.any()  # rows have different lengths
    assert (batch["input_ids"][pad] == tokenizer.pad_token_id).all()
    assert (batch["token_type_ids"][pad] == 0).all() and (batch["labels"][pad] == -100).all()
    for row in range(B):  # every row: [CLS] first, labels somewhere, and the unmasked ids are the example's
        example = dataset[row]
        n = len(example["input_ids"])
        assert batch["attention_mask"][row].sum() == n
        labels = batch["labels"][row, :n]
        original = torch.where(labels != -100, labels, batch["input_ids"][row, :n])
        assert original.tolist() == example["input_ids"]
        assert (labels != -100).any()
        assert batch["token_type_ids"][row, :n].tolist() == example["token_type_ids"]
        assert batch["next_sentence_label"][row] == example["next_sentence_label"]
        pair = dataset.pairs()[row]
        continuation = pair.b.doc == pair.a.doc and pair.b.start == pair.a.stop
        assert batch["next_sentence_label"][row] == (0 if continuation else 1)  # 0 = IsNext, 1 = NotNext


def test_every_public_entry_point_defaults_to_berts_15_and_80_10_10():
    """BERT's recipe (section 3.1 / appendix A.1): 15 % of the tokens selected; of those 80 % [MASK], 10 %
    random, 10 % unchanged. Whoever leaves the masking arguments out gets exactly that."""
    config = PretrainingConfig()
    assert (config.mlm_probability, config.mask_replace_prob, config.random_replace_prob) == (0.15, 0.8, 0.1)
    for function in (mask_tokens, mask_tokens_with_details, PretrainingCollator.__init__):
        p = inspect.signature(function).parameters
        defaults = (
            p["mlm_probability"].default,
            p["mask_replace_prob"].default,
            p["random_replace_prob"].default,
        )
        assert defaults == (0.15, 0.8, 0.1), function.__qualname__


def masking_shares(
    input_ids: torch.Tensor, labels: torch.Tensor, maskable: torch.Tensor, mask_id: int
) -> dict:
    """Share of the maskable tokens that got a label, and the [MASK] / other token / same token shares of
    those, read off the batch alone."""
    selected = labels != -100
    n = int(selected.sum())
    return {
        "selected": n / int(maskable.sum()),
        "mask": int((selected & (input_ids == mask_id)).sum()) / n,
        "random": int((selected & (input_ids != mask_id) & (input_ids != labels)).sum()) / n,
        "kept": int((selected & (input_ids == labels)).sum()) / n,
    }


@pytest.mark.slow
def test_the_collator_and_mask_tokens_mask_15_percent_80_10_10_by_default(documents, tokenizer):
    """Behaviour, not only the signature: a default collator's batch of 3000 examples (~60k maskable
    tokens) labels 15 +- 1 % of them, and replaces ~80 % of those by [MASK], ~10 % by another token."""
    dataset = PretrainingDataset(documents, tokenizer, max_length=24, num_pairs=3000, seed=0)
    examples = [dataset[i] for i in range(len(dataset))]
    batch = PretrainingCollator(tokenizer)(examples)
    original = torch.where(batch["labels"] != -100, batch["labels"], batch["input_ids"])
    maskable = ~torch.isin(original, torch.tensor(tokenizer.all_special_ids))
    assert int(maskable.sum()) > 50_000
    shares = masking_shares(batch["input_ids"], batch["labels"], maskable, tokenizer.mask_token_id)
    assert abs(shares["selected"] - 0.15) < 0.01, shares
    assert abs(shares["mask"] - 0.8) < 0.02 and abs(shares["random"] - 0.1) < 0.02, shares
    assert abs(shares["kept"] - 0.1) < 0.02, shares

    g = torch.Generator().manual_seed(0)  # mask_tokens, the other public entry point, on the same tokens
    masked, labels = mask_tokens(original, tokenizer=tokenizer, generator=g)
    shares = masking_shares(masked, labels, maskable, tokenizer.mask_token_id)
    assert abs(shares["selected"] - 0.15) < 0.01, shares
    assert abs(shares["mask"] - 0.8) < 0.02 and abs(shares["random"] - 0.1) < 0.02, shares


def test_dynamic_masking_changes_each_epoch_and_is_reproducible(documents, tokenizer):
    dataset = PretrainingDataset(documents, tokenizer, seed=5, resample_pairs=False)
    collate = PretrainingCollator(tokenizer)
    indices = list(range(32))
    epoch0 = collate([dataset[i] for i in indices])
    again = collate([dataset[i] for i in indices])
    dataset.set_epoch(1)
    epoch1 = collate([dataset[i] for i in indices])
    assert torch.equal(epoch0["labels"], again["labels"]) and torch.equal(
        epoch0["input_ids"], again["input_ids"]
    )
    assert not torch.equal(epoch0["labels"], epoch1["labels"])  # new masks ...
    unmasked = [torch.where(b["labels"] != -100, b["labels"], b["input_ids"]) for b in (epoch0, epoch1)]
    assert torch.equal(*unmasked)  # ... over the same pairs (resample_pairs=False)
    resampled = PretrainingDataset(documents, tokenizer, seed=5)
    first = [resampled.pairs()[i] for i in indices]
    resampled.set_epoch(1)
    assert first != [resampled.pairs()[i] for i in indices]  # resample_pairs=True: new pairs too


def test_resuming_from_a_step_gives_the_same_batches(documents, tokenizer):
    def run(start_step, n, seed=11):
        dataset = PretrainingDataset(documents, tokenizer, seed=seed, num_pairs=40)
        stream = bucketed_batches(
            dataset, PretrainingCollator(tokenizer), 16, start_step=start_step, bucket_batches=1
        )
        return [next(stream) for _ in range(n)]

    full = run(0, 9)  # 3 batches per epoch (16 + 16 + 8): crosses two epoch boundaries
    assert [step for step, _ in full] == list(range(9))
    resumed = run(4, 5)
    for (step_a, a), (step_b, b) in zip(full[4:], resumed):
        assert step_a == step_b and all(torch.equal(a[k], b[k]) for k in BATCH_KEYS)
    other = run(0, 1, seed=12)
    assert not torch.equal(other[0][1]["input_ids"], full[0][1]["input_ids"])
    assert full[0][1]["input_ids"].shape[0] == 16 and full[2][1]["input_ids"].shape[0] == 8


def test_each_epoch_is_covered_once_in_batches(documents, tokenizer):
    dataset = PretrainingDataset(documents, tokenizer, num_pairs=50)
    stream = bucketed_batches(dataset, PretrainingCollator(tokenizer), 16)
    first_epoch = [next(stream) for _ in range(4)]
    assert sorted(b["input_ids"].shape[0] for _, b in first_epoch) == [2, 16, 16, 16] and dataset.epoch == 0
    step, _ = next(stream)
    assert step == 4 and dataset.epoch == 1
    with pytest.raises(ValueError, match="batch_size"):
        next(bucketed_batches(dataset, PretrainingCollator(tokenizer), 0))


def test_a_dataset_of_tokenized_documents_gives_the_same_items(documents, tokenizer):
    """The shards' constructor (documents tokenized already) and the text one agree item for item, epoch after epoch."""
    text = PretrainingDataset(documents, tokenizer, num_pairs=30, seed=3, max_length=24)
    ids = [[tokenizer.convert_tokens_to_ids(tokenizer.tokenize(s)) for s in doc] for doc in documents]
    tokens = PretrainingDataset.from_token_documents(ids, tokenizer, num_pairs=30, seed=3, max_length=24)
    for epoch in (0, 1):
        text.set_epoch(epoch)
        tokens.set_epoch(epoch)
        assert len(tokens) == len(text) == 30
        assert [tokens[i] for i in range(30)] == [text[i] for i in range(30)]
    with pytest.raises(ValueError, match="num_pairs"):
        PretrainingDataset.from_token_documents(ids, tokenizer, num_pairs=0)


def test_works_with_a_torch_dataloader(documents, tokenizer):
    dataset = PretrainingDataset(documents, tokenizer)
    loader = torch.utils.data.DataLoader(
        dataset,
        batch_size=8,
        shuffle=True,
        collate_fn=PretrainingCollator(tokenizer),
        generator=torch.Generator().manual_seed(0),
    )
    batch = next(iter(loader))
    assert set(batch) == BATCH_KEYS and batch["input_ids"].shape[0] == 8


def test_whole_word_masking_in_the_collator(documents):
    tokenizer = BertTokenizer(train_wordpiece(documents, 60))  # small vocab: words split into pieces
    dataset = PretrainingDataset(documents, tokenizer)
    examples = [dataset[i] for i in range(len(dataset))]
    batch = PretrainingCollator(tokenizer, whole_word_mask=True)(examples)
    labels = batch["labels"]
    word_ids = tokenizer.word_ids(torch.where(labels != -100, labels, batch["input_ids"]))
    for row in range(len(examples)):
        for w in word_ids[row].unique().tolist():
            if w >= 0:
                in_word = labels[row][word_ids[row] == w] != -100
                assert in_word.all() or not in_word.any()


def test_collator_and_dataset_argument_errors(documents, tokenizer):
    with pytest.raises(ValueError, match="mlm_probability must be a probability"):
        PretrainingCollator(tokenizer, mlm_probability=15)
    with pytest.raises(ValueError, match="empty list"):
        PretrainingCollator(tokenizer)([])
    dataset = PretrainingDataset(documents, tokenizer, num_pairs=5)
    with pytest.raises(IndexError):
        dataset[5]
    with pytest.raises(ValueError, match="epoch must be a non-negative int"):
        dataset.set_epoch(-1)
    # a bool is not a count (True == 1 in Python): every count is checked by core.validation.require_int
    for call, name in [
        (lambda: dataset.set_epoch(True), "epoch"),
        (
            lambda: next(bucketed_batches(dataset, PretrainingCollator(tokenizer), batch_size=True)),
            "batch_size",
        ),
        (lambda: PretrainingDataset(documents, tokenizer, num_pairs=True), "num_pairs"),
        (lambda: PretrainingDataset(documents, tokenizer, max_sentences=True), "max_sentences"),
        (lambda: PretrainingDataset(documents, tokenizer, is_next_prob=1.5), "is_next_prob"),
    ]:
        with pytest.raises(ValueError, match=f"{name} must be .*, got (True|1.5)"):
            call()


def test_batches_feed_the_model(documents, tokenizer):
    model_module = pytest.importorskip("bertedu.core.model", reason="bertedu.core.model is not written yet")
    config_module = pytest.importorskip(
        "bertedu.core.config", reason="bertedu.core.config is not written yet"
    )
    config = config_module.BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        pad_token_id=tokenizer.pad_token_id,
    )
    model = model_module.BertForPreTraining(config)
    dataset = PretrainingDataset(documents, tokenizer, max_length=64)
    batch = PretrainingCollator(tokenizer)([dataset[i] for i in range(8)])
    out = model(**batch)
    assert torch.isfinite(out.loss) and out.prediction_logits.shape[:2] == batch["input_ids"].shape


def test_real_corpus_pipeline():
    try:
        path = repo_root() / "data" / "simple_sentences.txt"
    except FileNotFoundError:
        pytest.skip("data/simple_sentences.txt is not written yet (issue 4, data part)")
    documents = read_corpus(path)
    assert len(documents) >= 2 and sum(map(len, documents)) >= 150
    tokenizer = BertTokenizer(train_wordpiece(documents, 300))
    dataset = PretrainingDataset(documents, tokenizer, max_length=64)
    pairs = dataset.pairs()
    assert abs(sum(p.is_next for p in pairs) / len(pairs) - 0.5) < 0.1
    batch = PretrainingCollator(tokenizer)([dataset[i] for i in range(32)])
    assert set(batch) == BATCH_KEYS and batch["input_ids"].shape[1] <= 64


def test_bucketed_batches_cover_each_epoch_pad_less_and_resume_exactly(corpus_files):
    docs = read_corpus(corpus_files / "corpus.txt")
    tok = train_tokenizer(docs)
    ds = PretrainingDataset(docs, tok, max_length=32, seed=1, num_pairs=40)
    collate = PretrainingCollator(tok)
    stream = bucketed_batches(ds, collate, 4, bucket_batches=5)
    batches = [next(stream) for _ in range(25)]  # 10 batches per epoch: 2.5 epochs
    assert [s for s, _ in batches] == list(range(25))
    assert sum(len(b["next_sentence_label"]) for _, b in batches[:10]) == 40  # every pair once per epoch

    def padding(bucket):
        stream = bucketed_batches(
            PretrainingDataset(docs, tok, max_length=32, seed=1, num_pairs=40),
            collate,
            4,
            bucket_batches=bucket,
        )
        bs = [next(stream)[1] for _ in range(20)]
        return sum(int((b["attention_mask"] == 0).sum()) for b in bs)

    assert padding(5) < padding(1)
    for start in (0, 3, 5, 9, 10, 17):
        fresh = PretrainingDataset(docs, tok, max_length=32, seed=1, num_pairs=40)
        resumed = bucketed_batches(fresh, collate, 4, start_step=start, bucket_batches=5)
        for step, batch in batches[start : start + 6]:
            s, b = next(resumed)
            assert s == step and all(torch.equal(batch[k], b[k]) for k in batch)


@pytest.mark.parametrize("bad", [0, -8, 2.5])
def test_collator_rejects_a_bad_pad_multiple(tokenizer, bad):
    with pytest.raises(ValueError, match="pad_to_multiple_of"):
        PretrainingCollator(tokenizer, pad_to_multiple_of=bad)


@pytest.mark.parametrize("whole_word_mask", [False, True])
def test_the_collator_masks_as_mask_tokens_does(documents, tokenizer, whole_word_mask):
    """The collator passes its masking settings on to mask_tokens by name: its batches are mask_tokens's
    with the same generator (the same masks, so the same training numbers)."""
    dataset = PretrainingDataset(documents, tokenizer)
    examples = [{k: v for k, v in dataset[i].items() if k != "mask_seed"} for i in range(8)]
    T = max(len(ex["input_ids"]) for ex in examples)
    input_ids = torch.tensor(
        [ex["input_ids"] + [tokenizer.pad_token_id] * (T - len(ex["input_ids"])) for ex in examples]
    )
    word_ids = tokenizer.word_ids(input_ids) if whole_word_mask else None
    shares = dict(mlm_probability=0.3, mask_replace_prob=0.5, random_replace_prob=0.2, selection="exact")
    want_ids, want_labels = mask_tokens(
        input_ids,
        tokenizer=tokenizer,
        word_ids=word_ids,
        generator=torch.Generator().manual_seed(3),
        **shares,
    )
    collate = PretrainingCollator(
        tokenizer, whole_word_mask=whole_word_mask, generator=torch.Generator().manual_seed(3), **shares
    )
    batch = collate(examples)
    assert torch.equal(batch["input_ids"], want_ids) and torch.equal(batch["labels"], want_labels)
