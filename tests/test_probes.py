"""Held-out evaluation: file loaders, masked-word scoring, NSP accuracy, predict_masked, PCA, clusters."""

import pytest
import torch

from bertedu.core.config import BertConfig
from bertedu.core.model import BertForPreTraining
from bertedu.core.outputs import BertForPreTrainingOutput
from bertedu.core.tokenizer import SPECIAL_TOKENS
from bertedu.training.evalsets import MaskedWordItem, NSPItem, load_masked_word_items, load_nsp_items
from bertedu.training.probes import (
    candidate_mask,
    evaluate_pretraining,
    group_cosine_similarity,
    masked_word_accuracy,
    masked_word_probabilities,
    nsp_accuracy,
    pca_2d,
    predict_masked,
)

WORDS = ["the", "cat", "dog", "drinks", "eats", "milk", "water", "meat", "##s", "sun", "shines"]


@pytest.fixture
def tok(word_tokenizer):
    return word_tokenizer(WORDS)


class Oracle(torch.nn.Module):
    """A fake masked LM: at every position it puts logit `scale` on the token `answer_after[previous token]`
    and 0 elsewhere; NSP logits say IsNext iff A and B share a word other than "the"."""

    def __init__(self, tok, answer_after, scale=5.0):
        super().__init__()
        self.tok, self.answer_after, self.scale = tok, answer_after, scale
        self.seen_training_flags = []

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        self.seen_training_flags.append(self.training)
        B, T = input_ids.shape
        V = self.tok.vocab_size
        logits = torch.zeros(B, T, V)
        for b in range(B):
            for t in range(1, T):
                prev = self.tok.convert_ids_to_tokens(int(input_ids[b, t - 1]))
                if prev in self.answer_after:
                    logits[b, t, self.tok.convert_tokens_to_ids(self.answer_after[prev])] = self.scale
        nsp = torch.zeros(B, 2)
        if token_type_ids is not None:
            for b in range(B):
                real = attention_mask[b].bool()
                words_a = set(input_ids[b][real & (token_type_ids[b] == 0)].tolist())
                words_b = set(input_ids[b][real & (token_type_ids[b] == 1)].tolist())
                shared = (
                    (words_a & words_b)
                    - set(self.tok.all_special_ids)
                    - {self.tok.convert_tokens_to_ids("the")}
                )
                nsp[b, 0 if shared else 1] = 1.0
        return BertForPreTrainingOutput(prediction_logits=logits, seq_relationship_logits=nsp)


# --- loaders ---------------------------------------------------------------------------------------------------
def test_load_masked_word_items(tmp_path):
    path = tmp_path / "mlm.tsv"
    path.write_text(
        "sentence\tanswers\nthe cat drinks [MASK]\tmilk | Water\n\nthe [MASK] shines\tsun\n", encoding="utf-8"
    )
    items = load_masked_word_items(path)
    assert items == [
        MaskedWordItem("the cat drinks [MASK]", ("milk", "water")),
        MaskedWordItem("the [MASK] shines", ("sun",)),
    ]


@pytest.mark.parametrize(
    "body, message",
    [
        ("the cat drinks milk\tmilk\n", "exactly one [MASK]"),
        ("the [MASK] drinks [MASK]\tcat\n", "exactly one [MASK]"),
        ("the cat drinks [MASK]\t | \n", "no answer"),
        ("the cat drinks [MASK]\n", "2 tab-separated fields"),
    ],
)
def test_load_masked_word_items_rejects_bad_lines(tmp_path, body, message):
    path = tmp_path / "mlm.tsv"
    path.write_text("sentence\tanswers\n" + body, encoding="utf-8")
    with pytest.raises(ValueError, match="line 2") as err:
        load_masked_word_items(path)
    assert message in str(err.value)


def test_extra_columns_such_as_a_note_are_allowed(tmp_path):
    path = tmp_path / "probes.tsv"
    path.write_text(
        "sentence\tanswers\tnote\nthe man eats the [MASK]\tmeat\tseed 002: meat 99.5%\n", encoding="utf-8"
    )
    assert load_masked_word_items(path) == [MaskedWordItem("the man eats the [MASK]", ("meat",))]
    path.write_text("sentence\tanswers\tnote\nthe man eats the [MASK]\tmeat\n", encoding="utf-8")
    with pytest.raises(ValueError, match="expected 3 tab-separated fields"):
        load_masked_word_items(path)


def test_the_course_files_load():
    from bertedu.utils import data_path

    mlm = load_masked_word_items(data_path("mlm_eval.tsv"))
    probes = load_masked_word_items(data_path("probes.tsv"))
    nsp = load_nsp_items(data_path("nsp_eval.tsv"))
    assert len(mlm) >= 40 and len(probes) == 3 and len(nsp) >= 40
    assert {it.next_sentence_label for it in nsp} == {0, 1}


def test_loaders_check_header_and_existence(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_masked_word_items(tmp_path / "missing.tsv")
    path = tmp_path / "x.tsv"
    path.write_text("a\tb\nthe [MASK]\tcat\n", encoding="utf-8")
    with pytest.raises(ValueError, match="header"):
        load_masked_word_items(path)
    path.write_text("sentence\tanswers\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no items"):
        load_masked_word_items(path)


def test_load_nsp_items_accepts_names_and_hf_ids(tmp_path):
    path = tmp_path / "nsp.tsv"
    path.write_text(
        "sentence_a\tsentence_b\tlabel\na\tb\tIsNext\nc\td\tNotNext\ne\tf\t0\ng\th\t1\n", encoding="utf-8"
    )
    items = load_nsp_items(path)
    assert [it.next_sentence_label for it in items] == [0, 1, 0, 1]  # Hugging Face: 0 = IsNext
    assert items[0].is_next and not items[1].is_next
    path.write_text("sentence_a\tsentence_b\tlabel\na\tb\tyes\n", encoding="utf-8")
    with pytest.raises(ValueError, match="IsNext or NotNext"):
        load_nsp_items(path)


# --- scoring ---------------------------------------------------------------------------------------------------
def test_candidates_are_whole_words_only(tok):
    cand = candidate_mask(tok)
    tokens = tok.convert_ids_to_tokens(list(range(tok.vocab_size)))
    assert [t for t, c in zip(tokens, cand) if c] == [w for w in WORDS if not w.startswith("##")]


def test_masked_word_accuracy_counts_top1_and_top5(tok):
    model = Oracle(tok, {"drinks": "milk", "eats": "meat"})
    items = [
        MaskedWordItem("the cat drinks [MASK]", ("milk",)),  # top-1 right
        MaskedWordItem("the dog eats [MASK]", ("water", "meat")),  # any acceptable answer counts
        MaskedWordItem("the dog drinks [MASK]", ("water",)),
    ]  # milk first: wrong at 1; water in the top 5? no
    result = masked_word_accuracy(model, tok, items, k=5)
    assert result["correct"] == [True, True, False]
    assert result["top1"] == pytest.approx(2 / 3)
    assert result["predictions"][0][0] == "milk"
    # All other candidates tie at logit 0, so with k = the number of candidates every item is a top-k hit.
    n_candidates = int(candidate_mask(tok).sum())
    assert masked_word_accuracy(model, tok, items, k=n_candidates)[f"top{n_candidates}"] == 1.0
    assert all(
        t not in SPECIAL_TOKENS and not t.startswith("##") for row in result["predictions"] for t in row
    )


def test_masked_word_accuracy_rejects_answers_that_are_not_one_token(tok):
    items = [MaskedWordItem("the cat drinks [MASK]", ("juice",))]  # not in the vocabulary -> [UNK]
    with pytest.raises(ValueError, match="juice"):
        masked_word_accuracy(Oracle(tok, {}), tok, items)


def test_predict_masked_returns_probabilities_from_the_full_softmax(tok):
    model = Oracle(tok, {"drinks": "milk"}, scale=3.0)
    top = predict_masked(model, tok, "the cat drinks [MASK]", k=3)
    assert [w for w, _ in top][0] == "milk" and len(top) == 3
    V = tok.vocab_size
    expected = torch.e**3 / (torch.e**3 + (V - 1))  # one logit 3, the other V-1 logits 0
    assert top[0][1] == pytest.approx(float(expected), rel=1e-5)
    probs = masked_word_probabilities(model, tok, ["the cat drinks [MASK]", "[MASK] cat"])
    assert probs.shape == (2, V) and torch.allclose(probs.sum(-1), torch.ones(2))
    with pytest.raises(ValueError, match="exactly one"):
        predict_masked(model, tok, "the cat drinks milk")
    with pytest.raises(ValueError, match="k must be"):
        predict_masked(model, tok, "the [MASK]", k=0)


def test_evaluation_switches_dropout_off_and_restores_the_mode(tok):
    model = Oracle(tok, {"drinks": "milk"}).train()
    predict_masked(model, tok, "the cat drinks [MASK]")
    assert model.seen_training_flags == [False] and model.training


def test_nsp_accuracy_uses_hf_label_convention(tok):
    model = Oracle(tok, {})
    items = [
        NSPItem("the cat drinks milk", "the cat eats meat", 0),  # shares "cat": IsNext predicted
        NSPItem("the cat drinks milk", "the sun shines", 1),  # nothing shared: NotNext predicted
        NSPItem("the dog eats", "the sun shines", 0),
    ]  # wrong
    result = nsp_accuracy(model, tok, items)
    assert result["predicted"] == [0, 1, 1]
    assert result["accuracy"] == pytest.approx(2 / 3)


def test_evaluate_pretraining_on_a_real_model(tok):
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=tok.vocab_size,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=16,
    )
    model = BertForPreTraining(config).train()
    scores = evaluate_pretraining(
        model,
        tok,
        mlm_items=[MaskedWordItem("the cat drinks [MASK]", ("milk",))],
        nsp_items=[NSPItem("the cat", "the dog", 1)],
    )
    assert set(scores) == {"mlm_top1", "mlm_top5", "nsp_accuracy"}
    assert all(0.0 <= v <= 1.0 for v in scores.values())
    assert model.training  # mode restored


# --- embeddings: PCA and clusters ---------------------------------------------------------------------------------
def test_pca_2d_matches_the_top_singular_directions():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(30, 8, generator=g) @ torch.diag(torch.tensor([5.0, 3.0, 1, 1, 1, 1, 1, 1]))
    coords = pca_2d(x)
    centred = (x - x.mean(0)).double()
    _, s, v = torch.pca_lowrank(centred, q=2, center=False, niter=10)
    reference = (centred @ v[:, :2]).float()
    # Same up to the sign of each axis; our signs make the largest coordinate of each axis positive.
    for axis in range(2):
        assert torch.allclose(coords[:, axis].abs(), reference[:, axis].abs(), atol=1e-4)
        assert coords[coords[:, axis].abs().argmax(), axis] > 0
    with pytest.raises(ValueError):
        pca_2d(torch.randn(1, 4))


def test_group_cosine_similarity_detects_clusters():
    centres = torch.eye(3) * 10
    g = torch.Generator().manual_seed(1)
    vectors = torch.cat([centres[i] + torch.randn(4, 3, generator=g) for i in range(3)])
    groups = ["a"] * 4 + ["b"] * 4 + ["c"] * 4
    sims = group_cosine_similarity(vectors, groups)
    assert sims["within"] > 0.9 and sims["between"] < 0.3
    with pytest.raises(ValueError, match="group labels"):
        group_cosine_similarity(vectors, groups[:-1])
