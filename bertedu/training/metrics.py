"""Scores for fine-tuned models: accuracy and macro-F1, token accuracy, SQuAD exact match and F1.

    accuracy        share of predictions equal to the label
    macro-F1        the F1 of every class, averaged with equal weight (a rare class counts as much as a big one)
    token accuracy  accuracy over the *labelled* tokens only: label -100 marks [CLS], [SEP], padding and the
                    non-first sub-word pieces of a word, so with first-piece labelling it is word accuracy
    exact match     1 if the predicted answer equals a gold answer after SQuAD normalisation, else 0
    span F1         F1 of the bag of normalised answer words (partial credit for overlapping answers)

SQuAD normalisation (Rajpurkar et al., 2016, the official v1.1 script): lower-case, drop punctuation, drop the
articles "a", "an", "the", collapse white space. With several gold answers the best score counts.

Every function takes plain Python sequences or tensors and returns Python floats, so a notebook can print
and assert them. Introduced in notebook 07.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

import torch

from bertedu.core.losses import IGNORE_INDEX  # label of tokens that are not scored


def _as_list(values, name: str) -> list:
    """A 1-D sequence or tensor as a list of Python ints (with a clear error otherwise)."""
    if isinstance(values, torch.Tensor):
        if values.dim() != 1:
            raise ValueError(
                f"{name} must be one-dimensional, got shape {tuple(values.shape)}; flatten it first."
            )
        return values.tolist()
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(
            f"{name} must be a sequence of class ids (list or 1-D tensor), got {type(values).__name__}."
        )
    return list(values)


def _paired(predictions, labels) -> tuple[list, list]:
    preds, golds = _as_list(predictions, "predictions"), _as_list(labels, "labels")
    if len(preds) != len(golds):
        raise ValueError(f"predictions ({len(preds)}) and labels ({len(golds)}) must have the same length.")
    if not golds:
        raise ValueError("No examples to score: predictions and labels are empty.")
    return preds, golds


# ----------------------------------------------------------------------------------------------------------
# Classification


def accuracy(predictions, labels) -> float:
    """Share of ``predictions`` equal to ``labels`` (two sequences of class ids)."""
    preds, golds = _paired(predictions, labels)
    return sum(p == g for p, g in zip(preds, golds)) / len(golds)


def per_class_f1(predictions, labels, classes: Sequence | None = None) -> dict:
    """``{class: F1}`` with F1 = 2·precision·recall / (precision + recall) (0 when both are 0).

    ``classes`` defaults to every class that occurs in ``labels`` or ``predictions``.
    """
    preds, golds = _paired(predictions, labels)
    if classes is None:
        classes = sorted(set(golds) | set(preds))
    scores = {}
    for c in classes:
        tp = sum(p == c and g == c for p, g in zip(preds, golds))
        predicted, actual = sum(p == c for p in preds), sum(g == c for g in golds)
        precision = tp / predicted if predicted else 0.0
        recall = tp / actual if actual else 0.0
        scores[c] = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return scores


def macro_f1(predictions, labels, classes: Sequence | None = None) -> float:
    """Unweighted mean of the per-class F1 scores (:func:`per_class_f1`).

    A model that always predicts the majority class gets a high accuracy on an unbalanced set but a low
    macro-F1, which is why we report both.
    """
    scores = per_class_f1(predictions, labels, classes)
    if not scores:
        raise ValueError("macro_f1 needs at least one class.")
    return sum(scores.values()) / len(scores)


def token_accuracy(predictions, labels, ignore_index: int = IGNORE_INDEX) -> float:
    """Accuracy over the labelled tokens: positions whose label is ``ignore_index`` (-100) do not count.

    ``predictions`` and ``labels``: tensors (or nested lists) of the same shape, e.g. ``(B, T)``. With the
    labels of :class:`bertedu.training.finetune.TokenClassificationDataset` (the first piece of each word labelled,
    everything else -100) this is the share of *words* tagged correctly.
    """
    preds = torch.as_tensor(predictions)
    golds = torch.as_tensor(labels)
    if preds.shape != golds.shape:
        raise ValueError(
            f"predictions {tuple(preds.shape)} and labels {tuple(golds.shape)} must have the same shape."
        )
    scored = golds != ignore_index
    n = int(scored.sum())
    if n == 0:
        raise ValueError(f"No labelled token to score: every label is {ignore_index}.")
    return int((preds[scored] == golds[scored]).sum()) / n


# ----------------------------------------------------------------------------------------------------------
# Spans (SQuAD v1.1)

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = set(string.punctuation)


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lower-case, remove punctuation and the articles a/an/the, collapse spaces.

    ``normalize_answer("The  Garden!")`` -> ``"garden"``.
    """
    if not isinstance(text, str):
        raise ValueError(f"answers must be strings, got {type(text).__name__}.")
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def _golds(ground_truths) -> list[str]:
    golds = [ground_truths] if isinstance(ground_truths, str) else list(ground_truths)
    if not golds:
        raise ValueError("Every example needs at least one gold answer.")
    return golds


def exact_match(prediction: str, ground_truths: str | Sequence[str]) -> float:
    """1.0 if ``prediction`` equals one of the gold answers after :func:`normalize_answer`, else 0.0."""
    pred = normalize_answer(prediction)
    return float(any(pred == normalize_answer(g) for g in _golds(ground_truths)))


def _f1_one(prediction: str, ground_truth: str) -> float:
    pred_words, gold_words = normalize_answer(prediction).split(), normalize_answer(ground_truth).split()
    if not pred_words or not gold_words:  # an empty answer matches only an empty answer
        return float(pred_words == gold_words)
    common = sum((Counter(pred_words) & Counter(gold_words)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred_words), common / len(gold_words)
    return 2 * precision * recall / (precision + recall)


def span_f1(prediction: str, ground_truths: str | Sequence[str]) -> float:
    """Word-overlap F1 between the normalised prediction and the best-matching gold answer.

    ``span_f1("under the old tree", "the tree")`` = 2·(1/3·1)/(1/3 + 1) = 0.5 (articles are dropped, so the
    words are {under, old, tree} vs {tree}).
    """
    return max(_f1_one(prediction, g) for g in _golds(ground_truths))


def squad_scores(predictions: Sequence[str], ground_truths: Sequence) -> dict[str, float]:
    """Mean exact match and F1 over examples: ``{"exact_match": ..., "f1": ...}`` (fractions in [0, 1]).

    ``ground_truths[i]`` is one gold answer or a list of acceptable answers.
    """
    if isinstance(predictions, str) or isinstance(ground_truths, str):
        raise ValueError(
            "squad_scores takes lists: one predicted answer and one (list of) gold answer(s) per example."
        )
    predictions, ground_truths = list(predictions), list(ground_truths)
    if len(predictions) != len(ground_truths):
        raise ValueError(
            f"{len(predictions)} predictions but {len(ground_truths)} gold answers; give one per example."
        )
    if not predictions:
        raise ValueError("No examples to score: predictions are empty.")
    n = len(predictions)
    return {
        "exact_match": sum(exact_match(p, g) for p, g in zip(predictions, ground_truths)) / n,
        "f1": sum(span_f1(p, g) for p, g in zip(predictions, ground_truths)) / n,
    }
