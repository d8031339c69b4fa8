"""Checkers of notebook 01's exercises: correct answers pass, typical mistakes fail with a helpful message."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from bertedu.core.attention import BertSelfAttention, build_key_mask, scaled_dot_product_attention
from bertedu.core.config import BertConfig
from bertedu.teaching.exercises import attention as ex


def _softmax(x, axis=-1):
    z = np.exp(x - x.max(axis=axis, keepdims=True))
    return z / z.sum(axis=axis, keepdims=True)


# ---------------------------------------------------------------------------------------------- weights

SCORES = ex.Q @ ex.K.T
D_K = ex.Q.shape[-1]


def test_reference_weights_match_the_package():
    _, weights = scaled_dot_product_attention(torch.tensor(ex.Q), torch.tensor(ex.K), torch.tensor(ex.K))
    np.testing.assert_allclose(ex.reference_attention_weights(), weights.numpy(), atol=1e-12)
    assert not np.allclose(SCORES, SCORES.T), "the exercise needs non-symmetric scores"


@pytest.mark.parametrize(
    "as_type", [np.asarray, torch.tensor, lambda a: a.tolist(), lambda a: torch.tensor(a).float()]
)
def test_attention_weights_correct_in_any_container(as_type):
    passed, message = ex.check_attention_weights(as_type(_softmax(SCORES / math.sqrt(D_K))))
    assert passed and "sums to 1" in message, message


@pytest.mark.parametrize(
    "wrong, expected_words",
    [
        (_softmax(SCORES / math.sqrt(D_K), axis=0), ["wrong axis", "axis=-1"]),
        (_softmax(SCORES), ["forgot the scaling", "√d_k"]),
        (_softmax(SCORES / D_K), ["divided by d_k = 4"]),
        (SCORES / math.sqrt(D_K), ["scores, not weights"]),
        (_softmax(SCORES / math.sqrt(D_K)).T, ["transposed"]),
        (_softmax(ex.K @ ex.Q.T / math.sqrt(D_K)), ["K Qᵀ"]),
        (np.full((3, 3), 1 / 3), ["rows sum to 1"]),
        (np.zeros((2, 2)), ["shape (3, 3)"]),
        (np.full((3, 3), np.nan), ["NaN"]),
        ("weights", ["array or tensor"]),
    ],
)
def test_attention_weights_mistakes_are_named(wrong, expected_words):
    passed, message = ex.check_attention_weights(wrong)
    assert not passed, message
    for word in expected_words:
        assert word in message, message


def test_attention_weights_exercise_wrapper():
    assert "no answer yet" in ex.attention_weights.check(...).message
    result = ex.attention_weights.check(ex.reference_attention_weights())
    assert result.passed, result.message
    assert "ex.attention_weights.check" in ex.attention_weights.solution()._repr_markdown_()
    assert "Hint 1/" in repr(ex.attention_weights.hint(1))


# ------------------------------------------------------------------------------------------ split heads


def test_reference_split_matches_bert_self_attention():
    layer = BertSelfAttention(BertConfig(hidden_size=12, num_attention_heads=3, vocab_size=10))
    x = torch.randn(2, 5, 12)
    torch.testing.assert_close(ex.reference_split_heads(x, 3), layer.split_heads(x))


def test_split_heads_correct_passes():
    ok, msg = ex.check_split_heads(ex.reference_split_heads)
    assert ok, msg
    ok, msg = ex.check_split_heads(lambda x, a: x.reshape(x.shape[0], x.shape[1], a, -1).permute(0, 2, 1, 3))
    assert ok, msg


@pytest.mark.parametrize(
    "fn, expected_words",
    [
        (
            lambda x, a: x.reshape(x.shape[0], a, x.shape[1], x.shape[2] // a),
            ["contents are not", "tokens are mixed"],
        ),
        (lambda x, a: x.view(x.shape[0], x.shape[1], a, -1), ["head axis", "transpose(1, 2)"]),
        (lambda x, a: x.view(x.shape[0], x.shape[1], -1, a).transpose(1, 2), ["expected shape"]),
        (lambda x, a: x.view(x.shape[0], x.shape[1], a, -1).transpose(1, 2).flip(-1), ["should be features"]),
        (lambda x, a: None, ["returned None"]),
        (lambda x, a: x.numpy(), ["torch.Tensor"]),
        (lambda x, a: x.mul_(0).view(x.shape[0], x.shape[1], a, -1).transpose(1, 2), ["in place"]),
        ("not a function", ["pass your function"]),
    ],
)
def test_split_heads_bugs_are_named(fn, expected_words):
    passed, message = ex.check_split_heads(fn)
    assert not passed, message
    for word in expected_words:
        assert word in message, message


def test_split_heads_student_exception_is_reported():
    def broken(x, num_heads):
        raise RuntimeError("shape '[1, 2]' is invalid")

    result = ex.split_heads.check(broken)
    assert not result.passed and "RuntimeError" in result.message, result.message


# ---------------------------------------------------------------------------------------------- key mask


def test_key_mask_correct_passes_and_matches_package():
    m = torch.tensor([[1, 1, 0]])
    assert torch.equal(ex.reference_key_mask(m), build_key_mask(m))
    ok, msg = ex.check_key_mask(ex.reference_key_mask)
    assert ok, msg
    ok, msg = ex.check_key_mask(build_key_mask)
    assert ok, msg
    ok, msg = ex.check_key_mask(lambda m: m.bool()[:, None, None, :].expand(-1, 1, m.shape[1], -1))
    assert ok, msg


@pytest.mark.parametrize(
    "fn, expected_words",
    [
        (lambda m: m[:, None, :, None].bool(), ["*rows* (queries)", "(B, 1, 1, T)"]),
        (lambda m: m[:, None, None, :], ["boolean", ".bool()"]),
        (lambda m: m[:, None, None, :] == 0, ["inverted"]),
        (lambda m: (m[:, None, :, None] * m[:, None, None, :]).bool(), ["[PAD] queries", "NaN"]),
        (lambda m: m.bool(), ["does not broadcast"]),
        (lambda m: torch.ones(m.shape[0], 1, 1, m.shape[1], dtype=torch.bool), ["not yet"]),
        (lambda m: None, ["returned None"]),
        (lambda m: [[True]], ["torch.Tensor"]),
        (3, ["pass your function"]),
    ],
)
def test_key_mask_bugs_are_named(fn, expected_words):
    passed, message = ex.check_key_mask(fn)
    assert not passed, message
    for word in expected_words:
        assert word in message, message


def test_every_exercise_has_hints_and_a_solution():
    for exercise in (ex.attention_weights, ex.split_heads, ex.key_mask):
        assert exercise.hints and exercise.solution_code.strip() and exercise.prompt
        assert f"ex.{exercise.name}.check" in exercise.solution_code


def test_solutions_pass_when_run():
    """The solution code shown to students actually passes its own check."""
    for exercise in (ex.attention_weights, ex.split_heads, ex.key_mask):
        namespace = {"ex": ex, "np": np, "torch": torch}
        body = exercise.solution_code.replace(
            f"ex.{exercise.name}.check(", "result = ex." + exercise.name + ".check("
        )
        exec(body, namespace)
        assert namespace["result"].passed, (exercise.name, namespace["result"].message)


# ------------------------------------------------------------------------------------- edition conventions


def test_every_exercise_declares_its_points():
    """nbgrader's points come from ``Exercise.points``: each exercise says what it is worth (CONTRIBUTING.md)."""
    tree = ast.parse(Path(ex.__file__).read_text(encoding="utf-8"))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "Exercise"]
    assert calls
    undeclared = [
        ast.unparse(c.args[0]) if c.args else ast.unparse(c.keywords[0].value)
        for c in calls
        if not any(k.arg == "points" for k in c.keywords)
    ]
    assert not undeclared, f"declare points= on {undeclared}"
    assert (ex.attention_weights.points, ex.split_heads.points, ex.key_mask.points) == (1, 1, 1)


@pytest.mark.parametrize(
    "exercise, call",
    [
        (ex.split_heads, "ex.split_heads.check(split_heads)"),
        (ex.key_mask, "ex.key_mask.check(padding_mask)"),
    ],
)
def test_a_result_instead_of_the_function_gets_the_right_call(exercise, call):
    result = exercise.check(torch.zeros(1, 2, 3, 3))  # the function's result, not the function
    assert not result.passed and result.attempted, result.message
    assert call in result.message and "no parentheses" in result.message
