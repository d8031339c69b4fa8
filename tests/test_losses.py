"""Losses: MLM over labelled positions only, NSP without ignored labels, the sum, the no-mask case."""

import math

import pytest
import torch
import torch.nn.functional as F

from bertedu.core.losses import masked_cross_entropy, mlm_loss, nsp_loss, pretraining_loss


def test_mlm_loss_by_hand():
    # Two sequences of 3 tokens, V = 2; only two positions are labelled.
    logits = torch.tensor([[[2.0, 0.0], [0.0, 0.0], [1.0, 3.0]], [[0.0, 1.0], [5.0, 5.0], [0.0, 0.0]]])
    labels = torch.tensor([[0, -100, -100], [-100, -100, 1]])
    expected = (-math.log(math.exp(2) / (math.exp(2) + 1)) + math.log(2)) / 2
    assert mlm_loss(logits, labels).item() == pytest.approx(expected, rel=1e-6)


def test_mlm_loss_averages_over_labelled_positions_of_the_whole_batch():
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(4, 9, 30, generator=g)
    labels = torch.full((4, 9), -100)
    labels[0, 1], labels[0, 5], labels[2, 3] = 7, 2, 29  # 3 labelled positions, unevenly spread
    selected = labels != -100
    expected = F.cross_entropy(logits[selected], labels[selected])  # mean over the 3 positions
    assert torch.allclose(mlm_loss(logits, labels), expected, atol=1e-6)
    assert torch.allclose(mlm_loss(logits, labels), F.cross_entropy(logits.view(-1, 30), labels.view(-1)))
    # and it is not the mean over all 36 positions
    assert not torch.allclose(mlm_loss(logits, labels), expected * 3 / 36)
    # the fast path's (N, V) / (N,) form gives the same
    assert torch.allclose(mlm_loss(logits[selected], labels[selected]), expected, atol=1e-6)


def test_no_labelled_position_gives_zero_with_grad():
    logits = torch.randn(2, 5, 11, requires_grad=True)
    loss = mlm_loss(logits, torch.full((2, 5), -100))
    assert loss.item() == 0.0 and not torch.isnan(loss)
    assert loss.grad_fn is not None
    loss.backward()
    assert torch.equal(logits.grad, torch.zeros_like(logits))
    empty = torch.zeros(0, 11, requires_grad=True)  # fast path with no labelled position
    assert mlm_loss(empty, torch.zeros(0, dtype=torch.long)).item() == 0.0


def test_mlm_loss_shape_errors():
    with pytest.raises(ValueError, match="do not match"):
        mlm_loss(torch.randn(2, 5, 11), torch.zeros(2, 4, dtype=torch.long))
    with pytest.raises(ValueError, match=r"\(B, T, V\)"):
        mlm_loss(torch.randn(11), torch.zeros((), dtype=torch.long))


def test_nsp_loss_counts_label_zero():
    logits = torch.tensor([[3.0, 0.0], [0.0, 1.0]])
    labels = torch.tensor([0, 0])  # both IsNext: an ignore_index=0 bug would give NaN / drop them
    expected = F.cross_entropy(logits, labels)
    assert torch.allclose(nsp_loss(logits, labels), expected)
    assert nsp_loss(logits, labels).item() == pytest.approx(
        (-math.log(math.exp(3) / (math.exp(3) + 1)) - math.log(1 / (1 + math.e))) / 2, rel=1e-6
    )


def test_nsp_loss_shape_errors():
    with pytest.raises(ValueError, match=r"\(B, 2\)"):
        nsp_loss(torch.randn(3, 3), torch.zeros(3, dtype=torch.long))
    with pytest.raises(ValueError, match=r"\(B,\)"):
        nsp_loss(torch.randn(3, 2), torch.zeros(3, 1, dtype=torch.long))


def test_total_is_the_sum():
    a, b = torch.tensor(1.5), torch.tensor(0.25)
    assert pretraining_loss(a, b).item() == 1.75
    assert pretraining_loss(a, None) is a and pretraining_loss(None, b) is b
    assert pretraining_loss(None, None) is None


def test_masked_cross_entropy_custom_ignore_index():
    logits = torch.randn(3, 4)
    labels = torch.tensor([1, -1, 2])
    expected = F.cross_entropy(logits[[0, 2]], labels[[0, 2]])
    assert torch.allclose(masked_cross_entropy(logits, labels, ignore_index=-1), expected)
