"""Checkers of notebook 04's exercises: right answers pass, typical wrong answers fail with a helpful message."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from bertedu.core.losses import mlm_loss
from bertedu.teaching.exercises import losses as ex


# ------------------------------------------------------------------------------------------ MLM by hand
def test_mlm_by_hand_reference_matches_the_package():
    logits, labels = ex.mlm_by_hand_data()
    assert logits.shape == (2, 3, 4) and labels.shape == (2, 3)
    assert int((labels != -100).sum()) == 3
    assert ex.mlm_by_hand_answer() == pytest.approx(float(mlm_loss(logits, labels)), abs=1e-6)
    assert ex.mlm_by_hand_answer() == pytest.approx(
        float(F.cross_entropy(logits.view(-1, 4), labels.view(-1), ignore_index=-100)), abs=1e-6
    )


def test_mlm_by_hand_right_answers_pass():
    right = ex.mlm_by_hand_answer()
    for answer in (right, round(right, 4), torch.tensor(right)):
        ok, msg = ex.check_mlm_by_hand(answer)
        assert ok and "/ 3" in msg, msg
    ns = {"ex": ex}
    exec(ex.mlm_by_hand.solution_code, ns)
    result = ex.mlm_by_hand.check(ns["answer"])
    assert result.passed, result.message


def _wrong_answers():
    logits, labels = ex.mlm_by_hand_data()
    ce = F.cross_entropy(logits.view(-1, 4), labels.view(-1), reduction="none").view(2, 3)  # 0 where ignored
    right = ex.mlm_by_hand_answer()
    masked_logit = logits.gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1)[labels != -100]
    return [
        (float(ce.sum() / 6), "divided by all 6 positions"),
        (float(ce.sum()), "that is the sum"),
        (float((ce[0, 1] + (ce[1, 0] + ce[1, 2]) / 2) / 2), "averaged each sentence first"),
        (float(-masked_logit.mean()), "softmax over the vocabulary"),
        (-right, "sign is wrong"),
        (right / math.log(10), "not log10"),
        (right / math.log(2), "not log2"),
        (1.0, "is not it"),
        (float("nan"), "not a finite number"),
        ("0.95", "one number"),
        (torch.ones(3), "not a tensor of shape (3,)"),
    ]


@pytest.mark.parametrize("answer, phrase", _wrong_answers())
def test_mlm_by_hand_typical_mistakes(answer, phrase):
    ok, msg = ex.check_mlm_by_hand(answer)
    assert not ok and phrase in msg, msg


# ------------------------------------------------------------------------------------------ NSP ignore_index
def test_fix_nsp_loss_solution_passes():
    ns = {"F": F}
    exec(ex.fix_nsp_loss.solution_code, ns)
    ok, msg = ex.check_fix_nsp_loss(ns["my_nsp_loss"])
    assert ok and "IsNext (0)" in msg, msg
    ok, msg = ex.check_fix_nsp_loss(lambda z, y: F.cross_entropy(z, y))
    assert ok, msg


@pytest.mark.parametrize(
    "fn, phrase",
    [
        (lambda z, y: F.cross_entropy(z, y, ignore_index=0), "ignore_index=0 drops the pairs labelled 0"),
        (lambda z, y: F.cross_entropy(z, y, ignore_index=1), "drops every NotNext pair"),
        (lambda z, y: F.cross_entropy(z, 1 - y), "classes are swapped"),
        (lambda z, y: F.cross_entropy(z, y, reduction="sum"), "that is the sum"),
        (lambda z, y: F.cross_entropy(z, y).item(), "no .item()"),
        (lambda z, y: F.cross_entropy(z.detach(), y), "detached"),
        (lambda z, y: F.cross_entropy(z, y) * 2, "Use F.cross_entropy(logits, labels)"),
        (None, "no parentheses"),
    ],
)
def test_fix_nsp_loss_typical_mistakes(fn, phrase):
    ok, msg = ex.check_fix_nsp_loss(fn)
    assert not ok and phrase in msg, msg


def test_fix_nsp_loss_nan_on_all_isnext_batch_is_explained():
    def ignore_zero_only_when_mixed(z, y):  # passes the mixed batch, returns nan when every label is 0
        return F.cross_entropy(z, y) if (y == 1).any() else F.cross_entropy(z, y, ignore_index=0)

    ok, msg = ex.check_fix_nsp_loss(ignore_zero_only_when_mixed)
    assert not ok and "nan" in msg and "all IsNext" in msg, msg


# ------------------------------------------------------------------------------------------ MLM averaging
def _starter(logits, labels):
    V = logits.size(-1)
    per_position = F.cross_entropy(
        logits.reshape(-1, V), labels.reshape(-1), ignore_index=-100, reduction="none"
    )
    return per_position.mean()


def test_fix_mlm_average_solution_and_package_pass():
    ns = {"F": F}
    exec(ex.fix_mlm_average.solution_code, ns)
    ok, msg = ex.check_fix_mlm_average(ns["my_mlm_loss"])
    assert ok and "0 (still attached" in msg, msg
    ok, msg = ex.check_fix_mlm_average(mlm_loss)
    assert ok, msg


def _per_sentence(logits, labels):
    V = logits.size(-1)
    per = F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), reduction="none").view(labels.shape)
    return (per.sum(1) / (labels != -100).sum(1).clamp(min=1)).mean()


@pytest.mark.parametrize(
    "fn, phrase",
    [
        (_starter, "only 7 of the 24 positions are masked"),
        (lambda z, y: F.cross_entropy(z.reshape(-1, z.size(-1)), y.reshape(-1)), "almost"),
        (
            lambda z, y: F.cross_entropy(z.reshape(-1, z.size(-1)), y.reshape(-1), reduction="sum"),
            "that is the sum",
        ),
        (_per_sentence, "averaged per sentence"),
        (lambda z, y: mlm_loss(z, y).item(), "no .item()"),
        (lambda z, y: mlm_loss(z.detach(), y), "detached"),
        (lambda z, y: mlm_loss(z, y) + 1, "expected"),
        (lambda z, y: mlm_loss(z, y) + (y == -100).all().float(), "should give 0"),
        ("not a function", "no parentheses"),
    ],
)
def test_fix_mlm_average_typical_mistakes(fn, phrase):
    ok, msg = ex.check_fix_mlm_average(fn)
    assert not ok and phrase in msg, msg


def test_every_exercise_declares_its_points():
    """nbgrader grades each exercise by ``Exercise.points``: every ``Exercise(...)`` of the module says it."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(ex))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "Exercise"]
    assert calls and all(any(k.arg == "points" for k in call.keywords) for call in calls)
