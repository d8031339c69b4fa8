"""Pretraining losses: masked-LM cross-entropy over the masked positions only, NSP cross-entropy, their sum.

    L_MLM = - (1 / |M|) Σ_{i ∈ M} log p(x_i | corrupted input)     M = positions whose label is not -100
    L_NSP = - log p(IsNext or NotNext | [CLS])
    L     = L_MLM + L_NSP

Introduced in notebook 04.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

IGNORE_INDEX = -100  # label of positions that take no part in the loss (PyTorch's and transformers' choice)


def masked_cross_entropy(
    logits: torch.Tensor, labels: torch.Tensor, ignore_index: int = IGNORE_INDEX
) -> torch.Tensor:
    """Cross-entropy averaged over the positions whose label is not ``ignore_index``, across the batch.

    ``logits (..., C)``, ``labels (...)`` with the same leading shape. If no position is labelled the result
    is a zero that is still attached to the graph (``backward()`` works and gives zero gradients) instead
    of the ``nan`` that ``F.cross_entropy(..., ignore_index=-100)`` returns.
    """
    if logits.shape[:-1] != labels.shape:
        raise ValueError(
            f"logits {tuple(logits.shape)} and labels {tuple(labels.shape)} do not match: logits must be "
            "labels.shape + (num_classes,)."
        )
    num_classes = logits.size(-1)
    # summed over labelled positions only
    total = F.cross_entropy(
        logits.reshape(-1, num_classes), labels.reshape(-1), ignore_index=ignore_index, reduction="sum"
    )
    count = (labels != ignore_index).sum()
    return total / count.clamp(min=1)  # the mean over labelled positions; 0 when there are none


def mlm_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Masked-LM loss: mean cross-entropy over the labelled (masked) positions of the whole batch.

    ``logits (B, T, V)`` with ``labels (B, T)``, or the fast path's ``(N, V)`` with ``(N,)``. Labels hold the
    original token id at selected positions and -100 elsewhere. A batch without any labelled position
    gives a loss of exactly 0 that still has a ``grad_fn`` (no NaN).
    """
    if logits.dim() not in (2, 3):
        raise ValueError(f"MLM logits must be (B, T, V) or (N, V), got shape {tuple(logits.shape)}.")
    return masked_cross_entropy(logits, labels)


def nsp_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Next-sentence-prediction loss: cross-entropy of ``logits (B, 2)`` against ``labels (B,)``.

    Labels follow Hugging Face: 0 = IsNext, 1 = NotNext. No label is ignored (an ``ignore_index`` of 0
    would silently drop every IsNext pair).
    """
    if logits.dim() != 2 or logits.size(-1) != 2:
        raise ValueError(f"NSP logits must have shape (B, 2), got {tuple(logits.shape)}.")
    if labels.shape != logits.shape[:1]:
        raise ValueError(f"NSP labels must have shape (B,) = ({logits.size(0)},), got {tuple(labels.shape)}.")
    return F.cross_entropy(logits, labels)


def pretraining_loss(mlm: torch.Tensor | None, nsp: torch.Tensor | None) -> torch.Tensor | None:
    """BERT's total loss ``L = L_MLM + L_NSP`` (either part may be ``None``; ``None`` if both are)."""
    if mlm is None:
        return nsp
    if nsp is None:
        return mlm
    return mlm + nsp
