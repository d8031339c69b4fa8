"""bertedu.training.metrics: accuracy, macro-F1, token accuracy, SQuAD normalisation, exact match and F1."""

import pytest
import torch

from bertedu.training.metrics import (
    accuracy,
    exact_match,
    macro_f1,
    normalize_answer,
    per_class_f1,
    span_f1,
    squad_scores,
    token_accuracy,
)


def test_accuracy_counts_equal_pairs():
    assert accuracy([0, 1, 1, 2], [0, 1, 2, 2]) == 0.75
    assert accuracy(torch.tensor([1, 1]), torch.tensor([0, 0])) == 0.0


def test_macro_f1_by_hand():
    preds = [0, 0, 0, 1]
    golds = [0, 0, 1, 1]
    # class 0: precision 2/3, recall 1 -> F1 0.8; class 1: precision 1, recall 1/2 -> F1 2/3
    scores = per_class_f1(preds, golds)
    assert scores[0] == pytest.approx(0.8)
    assert scores[1] == pytest.approx(2 / 3)
    assert macro_f1(preds, golds) == pytest.approx((0.8 + 2 / 3) / 2)


def test_macro_f1_punishes_the_majority_class_guess():
    golds = [0] * 9 + [1]
    preds = [0] * 10
    assert accuracy(preds, golds) == 0.9
    assert macro_f1(preds, golds) == pytest.approx((2 * 0.9 / 1.9 + 0.0) / 2)  # class 1 gets F1 = 0
    assert macro_f1(preds, golds, classes=[0, 1, 2]) < macro_f1(preds, golds)  # an absent class counts as 0


def test_token_accuracy_ignores_minus_100():
    labels = torch.tensor([[-100, 1, 2, -100], [-100, 0, -100, -100]])
    preds = torch.tensor([[5, 1, 0, 5], [5, 0, 7, 7]])  # padding / [CLS] predictions are irrelevant
    assert token_accuracy(preds, labels) == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("The  Garden!", "garden"),
        ("an apple", "apple"),
        ("under the old tree.", "under old tree"),
        ("Theatre", "theatre"),  # "the" only as a whole word
    ],
)
def test_squad_normalisation(text, expected):
    assert normalize_answer(text) == expected


def test_exact_match_and_f1_by_hand():
    assert exact_match("The mat.", "mat") == 1.0
    assert exact_match("the red mat", "mat") == 0.0
    assert span_f1("under the old tree", "the tree") == pytest.approx(0.5)  # P = 1/3, R = 1
    assert span_f1("milk", ["water", "the milk"]) == 1.0  # best gold answer counts
    assert span_f1("cat", "dog") == 0.0
    scores = squad_scores(["the mat", "a big dog"], ["mat", ["dog", "big dog"]])
    assert scores == {"exact_match": 1.0, "f1": 1.0}
    scores = squad_scores(["on the mat", "dog"], ["the mat", "the red dog"])
    assert scores["exact_match"] == 0.0
    assert scores["f1"] == pytest.approx((2 * 0.5 / 1.5 + 2 * 0.5 / 1.5) / 2)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: accuracy([0, 1], [0]), "same length"),
        (lambda: accuracy([], []), "empty"),
        (lambda: accuracy(torch.zeros(2, 2), torch.zeros(2, 2)), "one-dimensional"),
        (lambda: token_accuracy(torch.zeros(2, 3), torch.zeros(2, 4)), "same shape"),
        (lambda: token_accuracy(torch.zeros(1, 2), torch.full((1, 2), -100)), "No labelled token"),
        (lambda: squad_scores(["a"], ["a", "b"]), "1 predictions but 2 gold"),
        (lambda: squad_scores([], []), "empty"),
        (lambda: exact_match("a", []), "at least one gold answer"),
        (lambda: normalize_answer(3), "strings"),
    ],
)
def test_bad_inputs_raise_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()
