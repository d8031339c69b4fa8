"""Notebook 10's exercises: the causal mask (checked by future-token invariance) and an ablation of your own (one
setting changed). A correct answer passes; each typical mistake is named."""

from __future__ import annotations

import pytest
import torch

from bertedu.course.ablations import ablation_config
from bertedu.teaching.exercises import ablations as ex


def lower(T):
    return torch.ones(T, T, dtype=torch.bool).tril()[None, None]


MISTAKES = {
    "upper triangle": (lambda T: torch.ones(T, T, dtype=torch.bool).triu()[None, None], "upper-triangular"),
    "no diagonal": (
        lambda T: torch.ones(T, T, dtype=torch.bool).tril(-1)[None, None],
        "cannot attend to itself",
    ),
    "numbers": (lambda T: torch.ones(T, T).tril()[None, None], "make it boolean"),
    "no leading axes": (lambda T: torch.ones(T, T, dtype=torch.bool).tril(), "must be (1, 1,"),
    "sees everything": (lambda T: torch.ones(1, 1, T, T, dtype=torch.bool), "can see later tokens"),
    "only itself": (lambda T: torch.eye(T, dtype=torch.bool)[None, None], "cannot see an earlier one"),
    "a list": (lambda T: [[1]], "return a torch tensor"),
}


def test_the_lower_triangle_passes_and_equals_the_package():
    from bertedu.core.attention import build_causal_mask

    ok, message = ex.check_causal_mask(lower)
    assert ok and "lower triangle" in message and not message.startswith("Correct")
    assert all(torch.equal(lower(T), build_causal_mask(T)) for T in (1, 4))
    assert ex.causal_mask.check(lower).passed


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_each_causal_mask_mistake_is_named(name):
    answer, words = MISTAKES[name]
    ok, message = ex.check_causal_mask(answer)
    assert not ok and words in message, message


def test_future_token_invariance_is_what_catches_a_leak():
    """The check does not compare with the reference first: a mask that lets one token see one later token is
    caught by the outputs changing, with the position named."""

    def one_leak(T):
        mask = lower(T).clone()
        if T > 2:
            mask[0, 0, 0, T - 1] = True  # the first token may see the last one
        return mask

    ok, message = ex.check_causal_mask(one_leak)
    assert not ok and "output at position 0" in message and "upper-triangular" not in message


def test_the_result_instead_of_the_function_is_refused():
    ok, message = ex.check_causal_mask(lower(3))
    assert not ok and "ex.causal_mask.check(causal_mask)" in message


REFERENCE = ablation_config("bert")


@pytest.mark.parametrize(
    "config, passed, words",
    [
        (REFERENCE.replace(mlm_probability=0.2), True, "`mlm_probability` = 0.2"),
        (REFERENCE.replace(position_embedding_type="none"), True, "position_embedding_type"),
        (REFERENCE, False, "equals the reference"),
        (REFERENCE.replace(dropout=0.1, mlm_probability=0.2), False, "changes 2 settings"),
        (REFERENCE.replace(seed=1), False, "second run"),
        (REFERENCE.replace(steps=500), False, "budget"),
        ("dropout=0.1", False, "give a PretrainingConfig"),
    ],
)
def test_an_ablation_of_your_own_changes_exactly_one_design_setting(config, passed, words):
    ok, message = ex.check_own_ablation(config, REFERENCE)
    assert ok is passed and words in message, message


def test_the_own_ablation_check_needs_the_reference():
    ok, message = ex.check_own_ablation(REFERENCE.replace(dropout=0.1), None)
    assert not ok and 'ablation_config("bert")' in message


def test_the_solutions_pass_their_own_checks():
    for exercise, namespace in (
        (ex.causal_mask, {"torch": torch}),
        (ex.own_ablation, {"ablation_config": ablation_config}),
    ):
        code = exercise.solution_code.replace(
            f"ex.{exercise.name}.check(", f"result = ex.{exercise.name}.check("
        )
        namespace["ex"] = ex
        exec(code, namespace)
        assert namespace["result"].passed, namespace["result"].message
