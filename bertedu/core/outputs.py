"""What the models return: dataclasses with Hugging Face's field names (``out.loss``, ``out.logits``, ...).

Like ``transformers``' ``ModelOutput``: ``out.loss``, ``out["loss"]`` and ``out[0]`` (the first field that
is not ``None``) all work. Introduced in notebook 04 (pretraining) and notebook 05 (the encoder).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import torch


@dataclass
class ModelOutput:
    """Base of the output dataclasses: ``out.loss``, ``out["loss"]`` and ``out[0]`` (first non-None field).

    Introduced in notebook 04.
    """

    def to_tuple(self) -> tuple[Any, ...]:
        return tuple(v for v in (getattr(self, f.name) for f in dataclasses.fields(self)) if v is not None)

    def __getitem__(self, key: str | int) -> Any:
        return getattr(self, key) if isinstance(key, str) else self.to_tuple()[key]


@dataclass
class BaseModelOutputWithPooling(ModelOutput):
    """``BertModel`` output: last_hidden_state ``(B, T, H)``, pooler_output ``(B, H)``, and on request
    hidden_states (L + 1 tensors ``(B, T, H)``) and attentions (L tensors ``(B, A, T, T)``).
    Introduced in notebook 05."""

    last_hidden_state: torch.Tensor
    pooler_output: torch.Tensor | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None


@dataclass
class BertForPreTrainingOutput(ModelOutput):
    """``BertForPreTraining`` output. ``loss = mlm_loss + nsp_loss`` (each part present when its labels are).

    prediction_logits is ``(B, T, V)``, or ``(N, V)`` on the MLM fast path (one row per labelled position,
    in the order of ``labels[labels != -100]``); seq_relationship_logits ``(B, 2)``. Introduced in notebook 04.
    """

    loss: torch.Tensor | None = None
    mlm_loss: torch.Tensor | None = None
    nsp_loss: torch.Tensor | None = None
    prediction_logits: torch.Tensor | None = None
    seq_relationship_logits: torch.Tensor | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None


@dataclass
class SequenceClassifierOutput(ModelOutput):
    """Sequence classification output: logits ``(B, num_labels)``. Introduced in notebook 07."""

    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None


@dataclass
class TokenClassifierOutput(ModelOutput):
    """Token classification output: logits ``(B, T, num_labels)``. Introduced in notebook 07."""

    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None


@dataclass
class QuestionAnsweringModelOutput(ModelOutput):
    """Span extraction output: start_logits and end_logits ``(B, T)``. Introduced in notebook 07."""

    loss: torch.Tensor | None = None
    start_logits: torch.Tensor | None = None
    end_logits: torch.Tensor | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None


@dataclass
class LoadingInfo:
    """What ``from_pretrained`` did: weights that started fresh, checkpoint weights that were not used.

    Introduced in notebook 07.
    """

    missing_keys: list[str]
    unexpected_keys: list[str]
