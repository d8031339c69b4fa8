"""Checkers of notebook 08's exercises: correct answers pass, typical mistakes fail with a helpful message."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

from bertedu.teaching import viz
from bertedu.teaching.exercises import NOT_ANSWERED
from bertedu.teaching.exercises import attention_maps as ex

EXERCISES = (ex.previous_token_share, ex.fix_head_entropy)


def _plogp(a):
    return np.where(a > 0, a * np.log(np.where(a > 0, a, 1.0)), 0.0)


# --------------------------------------------------------------------------------------- the test matrices


def test_test_matrices_are_attention_matrices():
    for _, attn in ex.previous_token_cases():
        assert attn.ndim == 2 and attn.shape[0] == attn.shape[1]
        np.testing.assert_allclose(attn.sum(-1), 1.0)
        assert (attn >= 0).all()
    for _, attn, mask in ex.head_entropy_cases():
        np.testing.assert_allclose(attn.sum(-1), 1.0)
        assert (attn[:, mask == 0] == 0).all(), "[PAD] key columns must be exactly 0, as in a real model"
    # the bugs must matter: not symmetric, and some cases padded
    assert any(not np.allclose(a, a.T) for _, a, _ in ex.head_entropy_cases())
    assert any((m == 0).any() for _, _, m in ex.head_entropy_cases())


def test_references_are_the_package_statistics_and_the_plain_formulas():
    rng = np.random.default_rng(0)
    for T in (2, 5, 11):
        attn = rng.dirichlet(np.ones(T), size=T)  # (T, T)
        stats = viz.head_statistics(attn[None, None], [f"w{i}" for i in range(T)])[0]
        assert ex.reference_previous_token_share(attn) == pytest.approx(stats["previous"])
        assert ex.reference_previous_token_share(attn) == pytest.approx(
            np.mean([attn[i, i - 1] for i in range(1, T)])
        )
        mask = np.array([1] * (T - 1) + [0])
        attn[:, -1] = 0
        attn /= attn.sum(-1, keepdims=True)
        entropy = -_plogp(attn).sum(-1)  # (T,) per query row
        assert ex.reference_head_entropy(attn, mask) == pytest.approx(entropy[:-1].mean())


# --------------------------------------------------------------------------------- previous-token share


@pytest.mark.parametrize(
    "fn",
    [
        lambda a: np.diagonal(a, offset=-1).mean(),
        lambda a: float(np.mean([a[i, i - 1] for i in range(1, len(a))])),
        lambda a: np.trace(a, offset=-1) / (a.shape[0] - 1),
        lambda a: torch.diagonal(torch.tensor(a), offset=-1).mean(),  # a 0-d tensor is fine
        lambda a: torch.diagonal(torch.tensor(a).float(), offset=-1).mean(),  # float32 too
        lambda a: np.array([np.diagonal(a, -1).mean()]),  # a 1-element array
    ],
)
def test_previous_token_share_correct_answers_pass(fn):
    passed, message = ex.check_previous_token_share(fn)
    assert passed, message
    assert "matches viz.head_statistics" in message and "1.00 for a perfect previous-token head" in message


@pytest.mark.parametrize(
    "fn, expected_words",
    [
        (lambda a: np.diagonal(a, offset=1).mean(), ["transposed", "attn[i-1, i]", "*below* the diagonal"]),
        (lambda a: np.mean([a[i, i - 1] for i in range(len(a))]), ["included row 0", "attn[0, -1]"]),
        (lambda a: np.diagonal(a, offset=-1).sum() / a.shape[0], ["included row 0", "divided by T"]),
        (lambda a: np.diagonal(a, offset=-1).sum(), ["summed", "average", "T-1"]),
        (lambda a: np.diagonal(a, offset=1).sum(), ["two mistakes", "summed", "attn[i-1, i]"]),
        (lambda a: np.diagonal(a).mean(), ["main diagonal", "'self'", "attn[i, i-1]"]),
        (lambda a: a.mean(), ["expected", "attn[1, 0]"]),
        (lambda a: np.diagonal(a, offset=-1), ["one per row", ".mean()"]),
        (lambda a: None, ["returned None"]),
        (lambda a: "0.9", ["one number", "str"]),
        (lambda a: a[:2, :2], ["one number", "shape (2, 2)"]),
        (lambda a: float("nan"), ["not a finite number"]),
        (lambda a: np.fill_diagonal(a, 0) or np.diagonal(a, -1).mean(), ["in place"]),
        (lambda a: torch.diagonal(a, -1).mean(), ["raised TypeError", "NumPy array, not a torch tensor"]),
        (0.75, ["pass your function itself", "float"]),
        ("previous_token_share", ["pass your function itself"]),
    ],
)
def test_previous_token_share_mistakes_are_named(fn, expected_words):
    passed, message = ex.check_previous_token_share(fn)
    assert not passed, message
    for word in expected_words:
        assert word in message, message


class _NotANumber:
    def __float__(self):
        raise RuntimeError("no float here")


def test_odd_return_values_are_reported_not_raised():
    for checker, fn in (
        (ex.check_previous_token_share, lambda a: _NotANumber()),
        (ex.check_fix_head_entropy, lambda a, m: _NotANumber()),
        (ex.check_fix_head_entropy, lambda a, m: {"entropy": 1.0}),
    ):
        passed, message = checker(fn)
        assert not passed and "must return one number" in message, message


def test_previous_token_share_student_exception_is_reported_not_raised():
    def broken(attn):
        return 1 / 0

    passed, message = ex.check_previous_token_share(broken)
    assert not passed and "raised ZeroDivisionError" in message and "division by zero" in message, message
    result = ex.previous_token_share.check(broken)
    assert not result.passed and "ZeroDivisionError" in result.message, result.message


# ---------------------------------------------------------------------------------- find the bug: entropy


def buggy_head_entropy(attn, attention_mask):
    """The notebook's starter (keep in sync with notebooks/08_attention_heatmaps.ipynb)."""
    attn = np.asarray(attn, dtype=np.float64)
    real = np.asarray(attention_mask) > 0
    plogp = np.where(attn > 0, attn * np.log(np.where(attn > 0, attn, 1.0)), 0.0)
    entropy = -plogp.sum(axis=0)
    return float(entropy[real].mean())


def test_the_starter_bug_is_the_wrong_axis():
    passed, message = ex.check_fix_head_entropy(buggy_head_entropy)
    assert not passed, message
    assert "Wrong axis" in message and "*column*" in message and "axis=-1" in message
    assert "hides on a sentence without padding" in message


def test_the_wrong_axis_hides_without_padding_and_shows_with_it():
    """What the starter's message claims: without padding the column mean equals the row mean."""
    for _, attn, mask in ex.head_entropy_cases():
        right = ex.reference_head_entropy(attn, mask)
        if mask.all():
            assert buggy_head_entropy(attn, mask) == pytest.approx(right)
        else:
            assert buggy_head_entropy(attn, mask) != pytest.approx(right, rel=1e-3)
            assert (-_plogp(attn).sum(0)).mean() == pytest.approx((-_plogp(attn).sum(-1)).mean())


def torch_entropy(attn, attention_mask):
    a = torch.as_tensor(attn)
    plogp = torch.special.xlogy(a, a)  # 0 ln 0 = 0
    return -plogp.sum(-1)[torch.as_tensor(attention_mask).bool()].mean()


@pytest.mark.parametrize(
    "fn",
    [
        lambda a, m: (-_plogp(a).sum(axis=-1))[m > 0].mean(),
        lambda a, m: (-_plogp(a).sum(axis=1))[m.astype(bool)].mean(),
        lambda a, m: -(a * np.log(a + 1e-12)).sum(-1)[m == 1].mean(),  # an epsilon is fine
        lambda a, m: (-_plogp(a[m > 0][:, m > 0]).sum(-1)).mean(),  # dropping [PAD] columns too
        torch_entropy,
    ],
)
def test_fix_head_entropy_correct_answers_pass(fn):
    passed, message = ex.check_fix_head_entropy(fn)
    assert passed, message
    assert "real query rows" in message and "matches viz.head_statistics' 'entropy'" in message


@pytest.mark.parametrize(
    "fn, expected_words",
    [
        (buggy_head_entropy, ["Wrong axis"]),
        (lambda a, m: (-_plogp(a).sum(axis=-1)).mean(), ["[PAD] query rows", "attention_mask is 1"]),
        (
            lambda a, m: (-_plogp(a).sum(axis=0)).mean(),
            ["[PAD] query rows", "axis=0", "exactly this wrong number"],
        ),  # = the line above
        (lambda a, m: (-_plogp(a).sum(axis=-1))[m > 0].mean() / math.log(2), ["bits", "nats", "ln n"]),
        (lambda a, m: (-_plogp(a).sum(axis=-1))[m > 0].sum(), ["summed", ".mean()"]),
        (lambda a, m: _plogp(a).sum(axis=-1)[m > 0].mean(), ["sign", "never negative"]),
        (lambda a, m: (-_plogp(a).mean(axis=-1))[m > 0].mean(), ["averaged a ln a over the keys", "*sum*"]),
        (lambda a, m: -(a * np.log(a)).sum(-1)[m > 0].mean(), ["nan", "0 ln 0 = 0"]),
        (lambda a, m: np.float64(-(a * np.log(a)).sum()), ["nan"]),
        (lambda a, m: (-_plogp(a).sum(axis=-1))[m > 0], ["one per row", ".mean()"]),
        (lambda a, m: -_plogp(a).sum(axis=-1), ["one per row"]),
        (lambda a, m: -(_plogp(a).sum(axis=-1))[m].mean(), ["expected", "nats"]),  # int mask used as indices
        (lambda a, m: None, ["returned None"]),
        (lambda a, m: [1.0, 2.0], ["shape (2,)"]),
        (lambda a: 1.0, ["raised TypeError"]),  # forgot the mask argument
        (lambda a, m: np.log(a, out=a).sum(), ["in place"]),
        (3.14, ["pass your function itself"]),
    ],
)
def test_fix_head_entropy_mistakes_are_named(fn, expected_words):
    passed, message = ex.check_fix_head_entropy(fn)
    assert not passed, message
    for word in expected_words:
        assert word in message, message


def test_fix_head_entropy_student_exception_is_reported_not_raised():
    def broken(attn, attention_mask):
        raise RuntimeError("shape mismatch")

    passed, message = ex.check_fix_head_entropy(broken)
    assert not passed and "raised RuntimeError: shape mismatch" in message, message
    result = ex.fix_head_entropy.check(broken)
    assert not result.passed and "RuntimeError" in result.message, result.message


def test_checkers_do_not_leak_numpy_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok, msg = ex.check_fix_head_entropy(lambda a, m: -(a * np.log(a)).sum(-1)[m > 0].mean())
        assert not ok, msg
        ok, msg = ex.check_previous_token_share(lambda a: np.log(a).mean())
        assert not ok, msg


# ------------------------------------------------------------------------------------------ the wrappers


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_not_answered_gives_the_no_answer_yet_message(exercise):
    for answer in (NOT_ANSWERED, ...):
        result = exercise.check(answer)
        assert not result.passed and "no answer yet" in result.message, result.message
    assert "no answer yet" in exercise.check().message


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_every_exercise_has_a_prompt_hints_and_a_solution(exercise):
    assert exercise.prompt and len(exercise.hints) >= 2 and exercise.solution_code.strip()
    assert f"ex.{exercise.name}.check" in exercise.solution_code
    exercise.check(None)  # a (wrong) attempt opens the solution
    assert "Hint 1/" in repr(exercise.hint(1)) and "Solution" in repr(exercise.solution())


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_solutions_pass_when_run(exercise):
    """The solution code shown to students actually passes its own check."""
    namespace = {"ex": ex, "np": np}
    body = exercise.solution_code.replace(f"ex.{exercise.name}.check(", f"result = ex.{exercise.name}.check(")
    exec(body, namespace)
    assert namespace["result"].passed, namespace["result"].message


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_the_student_edition_stub_is_not_attempted(exercise):
    """The student edition turns the answer cell into a function that raises NotImplementedError: the check
    says "not attempted yet" (it would otherwise report the stub's exception as the student's error)."""

    def stub(*args):
        raise NotImplementedError("your code here: replace this line, then run the check below")

    result = exercise.check(stub)
    assert not result.passed and not result.attempted and "no answer yet" in result.message, result.message


def test_every_exercise_declares_its_points():
    """nbgrader grades each exercise by ``Exercise.points``: every ``Exercise(...)`` of the module says it."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(ex))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "Exercise"]
    assert calls and all(any(k.arg == "points" for k in call.keywords) for call in calls)
