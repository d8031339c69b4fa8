"""Exercises of notebook 05 (bertedu.teaching.exercises.encoder): right answers pass, typical wrong ones fail with a
message that names the mistake."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from bertedu.core.config import BertConfig
from bertedu.core.encoder import BertLayer
from bertedu.core.model import BertModel, count_parameters
from bertedu.teaching.exercises import encoder as ex


def _solution(exercise, name):
    """The function defined by an exercise's reference solution."""
    namespace: dict = {}
    exec(exercise.solution_code, namespace)
    return namespace[name]


# ------------------------------------------------------------------------------------------------------
# layer_parameters
# ------------------------------------------------------------------------------------------------------
def test_layer_parameters_correct_formula_passes():
    passed, message = ex.check_layer_parameters(lambda H, d_ff: 4 * H * H + 2 * H * d_ff + 9 * H + d_ff)
    assert passed, message
    assert "7,087,872" in message  # one BERT-base layer


def test_layer_parameters_matches_a_real_layer():
    """The checker's reference is what a BertLayer really holds."""
    config = BertConfig(hidden_size=24, num_attention_heads=3, intermediate_size=40, num_hidden_layers=1)
    assert ex._reference_layer_parameters(24, 40) == count_parameters(BertLayer(config))


def test_layer_parameters_solution_passes():
    ok, msg = ex.check_layer_parameters(_solution(ex.layer_parameters, "layer_parameters"))
    assert ok, msg
    result = ex.layer_parameters.check(_solution(ex.layer_parameters, "layer_parameters"))
    assert result.passed, result.message


def test_layer_parameters_typical_mistakes_are_named():
    cases = {
        "rough rule": lambda H, d_ff: 12 * H * H,
        "weight matrices only": lambda H, d_ff: 4 * H * H + 2 * H * d_ff,
        "two LayerNorms are missing": lambda H, d_ff: 4 * H * H + 2 * H * d_ff + 5 * H + d_ff,
        "one LayerNorm is missing": lambda H, d_ff: 4 * H * H + 2 * H * d_ff + 7 * H + d_ff,
        "biases are missing": lambda H, d_ff: 4 * H * H + 2 * H * d_ff + 4 * H,
        "output projection": lambda H, d_ff: 3 * H * H + 2 * H * d_ff + 8 * H + d_ff,
        "two dense layers": lambda H, d_ff: 4 * H * H + H * d_ff + 8 * H,
        "use d_ff": lambda H, d_ff: 4 * H * H + 2 * H * d_ff + 13 * H,
    }
    for expected_text, fn in cases.items():
        passed, message = ex.check_layer_parameters(fn)
        assert not passed, expected_text
        assert expected_text in message, (expected_text, message)


def test_layer_parameters_other_wrong_answers():
    passed, message = ex.check_layer_parameters(lambda H, d_ff: 4 * H * H + 2 * H * d_ff + 9 * H + d_ff + 1)
    assert not passed and "1 too many" in message and "List the tensors" in message, message
    passed, message = ex.check_layer_parameters(lambda H, d_ff: ...)
    assert not passed and "still returns `...`" in message, message
    passed, message = ex.check_layer_parameters(lambda H, d_ff: "many")
    assert not passed and "whole number" in message, message
    passed, message = ex.check_layer_parameters(lambda H, d_ff: (4 * H * H + 2 * H * d_ff + 9 * H + d_ff) / 3)
    assert not passed and "not a whole number" in message, message
    passed, message = ex.check_layer_parameters(7087872)
    assert not passed and "pass your function itself" in message, message
    # A float or a 0-d tensor holding the right whole number is accepted.
    ok, msg = ex.check_layer_parameters(lambda H, d_ff: float(4 * H * H + 2 * H * d_ff + 9 * H + d_ff))
    assert ok, msg
    ok, msg = ex.check_layer_parameters(lambda H, d_ff: torch.tensor(4 * H * H + 2 * H * d_ff + 9 * H + d_ff))
    assert ok, msg


def test_layer_parameters_unanswered_and_exceptions_via_exercise():
    assert "no answer yet" in ex.layer_parameters.check(...).message
    result = ex.layer_parameters.check(lambda H, d_ff: H / 0)
    assert not result.passed and "ZeroDivisionError" in result.message, result.message


# ------------------------------------------------------------------------------------------------------
# merge_heads
# ------------------------------------------------------------------------------------------------------
def _buggy_merge(context):
    B, A, T, d = context.shape
    return context.reshape(B, T, A * d)


def test_merge_heads_correct_versions_pass():
    def with_transpose(context):
        B, A, T, d = context.shape
        return context.transpose(1, 2).reshape(B, T, A * d)

    def with_permute_contiguous_view(context):
        B, A, T, d = context.shape
        return context.permute(0, 2, 1, 3).contiguous().view(B, T, -1)

    def by_concatenation(context):
        return torch.cat(list(context.unbind(dim=1)), dim=-1)  # Concat(head_1, ..., head_A)

    for fn in (
        with_transpose,
        with_permute_contiguous_view,
        by_concatenation,
        _solution(ex.merge_heads, "merge_heads"),
    ):
        passed, message = ex.check_merge_heads(fn)
        assert passed, message
        assert "Concat" in message


def test_merge_heads_undoes_the_package_split():
    x = torch.randn(2, 3, 8)
    context = ex._split_with_package(x, 4)
    assert context.shape == (2, 4, 3, 2)
    assert torch.equal(_solution(ex.merge_heads, "merge_heads")(context), x)


def test_merge_heads_reshape_bug_is_explained():
    passed, message = ex.check_merge_heads(_buggy_merge)
    assert not passed, message
    assert "reshape(B, T, H)" in message and "transpose(1, 2)" in message


def test_merge_heads_other_mistakes():
    def no_reshape(context):
        return context.transpose(1, 2)

    passed, message = ex.check_merge_heads(no_reshape)
    assert not passed and "did not concatenate" in message, message

    def interleaved(context):
        B, A, T, d = context.shape
        return context.permute(0, 2, 3, 1).reshape(B, T, A * d)

    passed, message = ex.check_merge_heads(interleaved)
    assert not passed and "interleaved" in message, message

    def view_after_transpose(context):
        B, A, T, d = context.shape
        return context.transpose(1, 2).view(B, T, A * d)

    passed, message = ex.check_merge_heads(view_after_transpose)
    assert not passed and "contiguous" in message, message

    passed, message = ex.check_merge_heads(lambda context: context)
    assert not passed and "must be (B, T, H)" in message, message

    def reversed_features(context):
        B, A, T, d = context.shape
        return context.transpose(1, 2).reshape(B, T, A * d).flip(-1)

    passed, message = ex.check_merge_heads(reversed_features)
    assert not passed and "values are not" in message, message

    def hard_coded_three_heads(context):  # right for the first case only, then fails loudly
        B, A, T, d = context.shape
        return context.transpose(1, 2).reshape(B, T, 3, -1).reshape(B, T, 3 * d)

    result = ex.merge_heads.check(hard_coded_three_heads)
    assert not result.passed and "RuntimeError" in result.message, result.message
    assert "return a torch.Tensor" in ex.check_merge_heads(lambda c: c.tolist())[1]
    assert "still returns `...`" in ex.check_merge_heads(lambda c: ...)[1]
    assert "pass your function itself" in ex.check_merge_heads(torch.zeros(1))[1]


# ------------------------------------------------------------------------------------------------------
# post_ln_layer
# ------------------------------------------------------------------------------------------------------
def _pre_ln_starter(layer, x):
    attn, out = layer.attention, layer.output
    context, _ = attn.self(attn.output.LayerNorm(x))
    h = x + attn.output.dense(context)
    f = layer.intermediate(out.LayerNorm(h))
    return h + out.dense(f)


def test_post_ln_layer_correct_versions_pass():
    solution = _solution(ex.post_ln_layer, "encoder_layer")
    passed, message = ex.check_post_ln_layer(solution)
    assert passed and "post-LN" in message, message
    # Returning the layer's own (output, weights) tuple is accepted too.
    ok, msg = ex.check_post_ln_layer(lambda layer, x: layer(x))
    assert ok, msg


@pytest.mark.slow
def test_post_ln_layer_pre_ln_is_named():
    passed, message = ex.check_post_ln_layer(_pre_ln_starter)
    assert not passed and "pre-LN" in message and "BERT is post-LN" in message, message

    def pre_ln_with_final_norm(layer, x):
        y = _pre_ln_starter(layer, x)
        return F.layer_norm(y, y.shape[-1:])

    passed, message = ex.check_post_ln_layer(pre_ln_with_final_norm)
    assert not passed and "pre-LN" in message, message


@pytest.mark.slow
def test_post_ln_layer_eps_residual_and_wiring_mistakes():
    def eps_default(layer, x):
        attn, out = layer.attention, layer.output
        ln1, ln2 = attn.output.LayerNorm, out.LayerNorm
        context, _ = attn.self(x)
        h = F.layer_norm(x + attn.output.dense(context), (x.size(-1),), ln1.weight, ln1.bias)  # eps 1e-5
        return F.layer_norm(h + out.dense(layer.intermediate(h)), (x.size(-1),), ln2.weight, ln2.bias)

    passed, message = ex.check_post_ln_layer(eps_default)
    assert not passed and "1e-12" in message and "1e-5" in message, message

    def no_residual(layer, x):
        attn, out = layer.attention, layer.output
        context, _ = attn.self(x)
        h = attn.output.LayerNorm(attn.output.dense(context))
        return out.LayerNorm(out.dense(layer.intermediate(h)))

    passed, message = ex.check_post_ln_layer(no_residual)
    assert not passed and "residual connections are missing" in message, message

    def ffn_on_input(layer, x):
        attn, out = layer.attention, layer.output
        context, _ = attn.self(x)
        h = attn.output.LayerNorm(x + attn.output.dense(context))
        return out.LayerNorm(h + out.dense(layer.intermediate(x)))

    passed, message = ex.check_post_ln_layer(ffn_on_input)
    assert not passed and "must read H'" in message, message

    passed, message = ex.check_post_ln_layer(lambda layer, x: x * 2)
    assert not passed and "differs from BertLayer" in message, message
    passed, message = ex.check_post_ln_layer(lambda layer, x: x[:, 0])
    assert not passed and "input's shape" in message, message
    passed, message = ex.check_post_ln_layer(lambda layer, x: ...)
    assert not passed and "still returns `...`" in message, message


def test_post_ln_layer_checker_layer_is_a_real_bert_layer():
    """The test layer is a BertLayer in eval mode, and the check does not change it between calls."""
    layer = ex._test_layer()
    assert isinstance(layer, BertLayer) and not layer.training
    assert layer.attention.output.LayerNorm.eps == 1e-12
    a = ex.check_post_ln_layer(lambda layer, x: layer(x)[0])
    b = ex.check_post_ln_layer(lambda layer, x: layer(x)[0])
    assert a == b and a[0]


def test_exercises_have_hints_and_solutions():
    for exercise in (ex.layer_parameters, ex.merge_heads, ex.post_ln_layer):
        assert len(exercise.hints) >= 2
        exercise.check(None)  # an attempt (wrong) opens the solution
        assert "def " in exercise.solution()._repr_markdown_()
        assert "Hint 1/" in repr(exercise.hint(1))


def test_bert_base_layer_count_matches_model_encoder():
    """The per-layer formula, times L, is the encoder of a real (small) BertModel."""
    config = BertConfig(
        vocab_size=50,
        hidden_size=32,
        num_attention_heads=4,
        intermediate_size=48,
        num_hidden_layers=3,
        max_position_embeddings=16,
    )
    model = BertModel(config)
    fn = _solution(ex.layer_parameters, "layer_parameters")
    assert count_parameters(model.encoder) == 3 * fn(32, 48)


def test_every_exercise_declares_its_points():
    """nbgrader grades each exercise by ``Exercise.points``: every ``Exercise(...)`` of the module says it."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(ex))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "Exercise"]
    assert calls and all(any(k.arg == "points" for k in call.keywords) for call in calls)
