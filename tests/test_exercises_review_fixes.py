"""Regression tests for the content review's checker findings (content-2026-11-23.md): W6 (NumPy and torch
scalar types rejected), M14 (a right answer rounded too much sent back to the start), M15 (a wrong reason given
for an additive attention mask)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bertedu.teaching.exercises import attention, losses, masking


def mlm_answer_numpy():
    z, y = (t.numpy() for t in losses.mlm_by_hand_data())  # float32, as the review's natural numpy path
    keep = y != -100
    z, y = z[keep], y[keep]
    log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    return -log_p[np.arange(len(y)), y].mean()


def test_w6_mlm_by_hand_accepts_a_float32_numpy_scalar():
    answer = mlm_answer_numpy()
    assert isinstance(answer, np.float32)
    result = losses.mlm_by_hand.check(answer)
    assert result.passed, result.message
    result = losses.mlm_by_hand.check(torch.tensor(float(answer)))
    assert result.passed, result.message


@pytest.mark.parametrize(
    "answer", [15, 15.0, np.int64(15), np.float32(15), torch.tensor(15), np.ceil(14.2)], ids=repr
)
def test_w6_coverage_epochs_accepts_every_numeric_form(answer):
    result = masking.coverage_epochs.check(answer)
    assert result.passed, result.message


def test_w6_wrong_numbers_still_fail_with_their_own_message():
    assert "not a whole number" in masking.coverage_epochs.check(np.float64(14.17)).message
    assert "0.85^14" in masking.coverage_epochs.check(torch.tensor(14)).message


def test_m14_rounded_answers_are_right_but_need_three_decimals():
    mlm = losses.mlm_by_hand.check(0.95)
    assert (
        not mlm.passed and "right, but rounded to 2 decimals" in mlm.message and "3 decimals" in mlm.message
    ), mlm.message
    weights = attention.reference_attention_weights()
    two = attention.attention_weights.check(np.round(weights, 2))
    assert not two.passed and "give at least 3 decimals" in two.message, two.message
    result = attention.attention_weights.check(np.round(weights, 3))
    assert result.passed, result.message
    assert "3 decimals" in attention.attention_weights.prompt and "3 decimals" in losses.mlm_by_hand.prompt


def test_m14_a_wrong_answer_is_not_called_rounded():
    assert "rounded" not in losses.mlm_by_hand.check(0.91).message
    assert "rounded" not in attention.attention_weights.check(np.full((3, 3), 1 / 3)).message


def test_m15_an_additive_mask_is_called_the_other_valid_convention():
    additive = lambda m: (1.0 - m[:, None, None, :].float()) * -10000.0  # Google's BERT
    result = attention.key_mask.check(additive)
    assert not result.passed, result.message
    assert "additive mask" in result.message and "other valid convention" in result.message
    assert "hides exactly the [PAD] keys" in result.message
    assert "would *add* 0/1" not in result.message
    wrong_axis = lambda m: (1.0 - m[:, None, :, None].float()) * torch.finfo(torch.float32).min
    assert "check its axes" in attention.key_mask.check(wrong_axis).message
    zero_one = lambda m: m[:, None, None, :].float()
    assert "masking nothing" in attention.key_mask.check(zero_one).message
