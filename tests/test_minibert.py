"""The one-layer MiniBert baseline (the blog post of notebook 06): order-blindness, padding, one mask per sentence, deterministic training."""

import pytest
import torch

from bertedu.course.minibert import MiniBert, mask_one_word, train_minibert
from bertedu.training.probes import masked_word_probabilities, predict_masked

WORDS = ["the", "man", "woman", "reads", "eats", "book", "meat", "paper", "bread"]
SENTENCES = [
    "the man reads the book",
    "the woman eats the bread",
    "the man eats the meat",
    "the woman reads the paper",
    "the man reads the paper",
    "the woman eats the meat",
]


@pytest.fixture
def tok(word_tokenizer):
    return word_tokenizer(WORDS)


def test_without_positions_the_prediction_ignores_word_order(tok):
    torch.manual_seed(0)
    model = MiniBert(tok.vocab_size, d_model=16, init_scale=0.5).eval()
    probs = masked_word_probabilities(
        model, tok, ["the man [MASK] the book", "the book [MASK] the man", "book the the man [MASK]"]
    )
    assert torch.allclose(probs[0], probs[1], atol=1e-6) and torch.allclose(probs[0], probs[2], atol=1e-6)
    other = masked_word_probabilities(model, tok, ["the woman [MASK] the book"])
    assert not torch.allclose(probs[0], other[0], atol=1e-4)  # a different bag of words does change it


def test_padding_does_not_change_a_sentence(tok):
    torch.manual_seed(0)
    model = MiniBert(tok.vocab_size, d_model=16, init_scale=0.5).eval()
    alone = masked_word_probabilities(model, tok, ["the man [MASK]"])
    batched = masked_word_probabilities(model, tok, ["the man [MASK]", "the woman eats the [MASK] book the"])
    assert torch.allclose(alone[0], batched[0], atol=1e-6)


def test_labels_fast_path_gives_the_full_paths_loss(tok):
    torch.manual_seed(0)
    model = MiniBert(tok.vocab_size, d_model=16, init_scale=0.5).eval()
    ids = torch.tensor([[5, 6, 7, 8], [9, 10, 11, 0]])
    mask = (ids != 0).long()
    labels = torch.full_like(ids, -100)
    labels[0, 2], labels[1, 0] = 7, 9
    fast = model(ids, mask, labels=labels)
    full = model(ids, mask).prediction_logits  # (B, T, V)
    assert fast.prediction_logits.shape == (2, tok.vocab_size)
    torch.testing.assert_close(fast.prediction_logits, full[labels != -100])
    torch.testing.assert_close(
        fast.loss, torch.nn.functional.cross_entropy(full.reshape(-1, tok.vocab_size), labels.reshape(-1))
    )


def test_mask_one_word_masks_exactly_one_real_token():
    ids = torch.tensor([[5, 6, 7, 0, 0], [8, 9, 10, 11, 12], [13, 0, 0, 0, 0]])
    attention = (ids != 0).long()
    g = torch.Generator().manual_seed(0)
    for _ in range(20):
        masked, labels = mask_one_word(ids, attention, mask_token_id=4, generator=g)
        assert ((masked == 4).sum(dim=1) == 1).all()
        assert ((labels != -100).sum(dim=1) == 1).all()
        position = (masked == 4).long().argmax(dim=1)
        assert (position < attention.sum(dim=1)).all()  # never a padding position
        assert torch.equal(labels[torch.arange(3), position], ids[torch.arange(3), position])


@pytest.mark.slow
def test_train_baseline_learns_and_is_deterministic(tok):
    model_a, history = train_minibert(SENTENCES, tok, steps=60, batch_size=3, d_model=16, learning_rate=1e-2)
    model_b, _ = train_minibert(SENTENCES, tok, steps=60, batch_size=3, d_model=16, learning_rate=1e-2)
    for pa, pb in zip(model_a.parameters(), model_b.parameters()):
        assert torch.equal(pa, pb)
    assert history[-1]["mlm_loss"] < history[0]["mlm_loss"]
    assert {"step", "split", "mlm_loss", "mlm_accuracy"} <= set(history[0])
    assert not model_a.training
    top = predict_masked(model_a, tok, "the woman eats the [MASK]", k=3)
    assert len(top) == 3 and all(0 <= p <= 1 for _, p in top)


def test_baseline_inputs_are_checked(tok):
    with pytest.raises(ValueError, match="steps"):
        train_minibert(SENTENCES, tok, steps=0)
    with pytest.raises(ValueError, match="non-empty"):
        train_minibert([], tok, steps=1)
    with pytest.raises(ValueError, match=r"\(B, T\)"):
        MiniBert(tok.vocab_size, 8)(torch.tensor([5, 6]))


def test_course_minibert_trains_on_the_course_vocabulary():
    from bertedu.course import course_tokenizer, train_course_minibert

    model, tokenizer = train_course_minibert(steps=3)
    assert tokenizer.get_vocab() == course_tokenizer().get_vocab()
    assert model.E.shape[0] == tokenizer.vocab_size and not model.training


def test_sizes_are_checked_and_a_bool_is_not_one():
    with pytest.raises(ValueError, match="d_model must be a positive integer, got True"):
        MiniBert(30, True)
    with pytest.raises(ValueError, match=r"vocab_size must be an integer >= 2, got 1\."):
        MiniBert(1, 8)
