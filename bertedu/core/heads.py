"""Heads on top of the encoder: the [CLS] pooler, the MLM head (tied decoder) and the NSP head.

    pooled      = tanh(W_p · T_[CLS] + b_p)                      (BertPooler)
    MLM logits  = transform(T_i) · Eᵀ + b,  E = word embeddings    (BertLMPredictionHead)
    NSP logits  = W_nsp · pooled + b_nsp    (0 = IsNext, 1 = NotNext)

The fine-tuning heads are single ``nn.Linear`` layers (``classifier``, ``qa_outputs``) created directly in
the task models of :mod:`bertedu.core.model`, which keeps Hugging Face's parameter names.

Introduced in notebook 04 (the pooler, the MLM and NSP heads); notebook 07 fine-tunes on the pooler.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from bertedu.core.config import BertConfig


class BertPooler(nn.Module):
    """Summarise a sequence by its first token: ``tanh(dense(T_[CLS]))``, ``(B, T, H) -> (B, H)``.

    ``attention_mask`` is not needed ([CLS] is always a real token); it is accepted so that every pooler is
    called alike (notebook 10's left-to-right variant, :class:`bertedu.core.variants.LastTokenPooler`, needs it).
    Introduced in notebook 04.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.activation = nn.Tanh()

    def forward(
        self, hidden_states: torch.Tensor, attention_mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        first_token = hidden_states[:, 0]  # (B, H): the [CLS] position
        return self.activation(self.dense(first_token))  # (B, H)


class BertPredictionHeadTransform(nn.Module):
    """MLM transform before the vocabulary projection: dense -> GELU -> LayerNorm, ``(..., H) -> (..., H)``.

    Introduced in notebook 04.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(F.gelu(self.dense(hidden_states)))


class BertLMPredictionHead(nn.Module):
    """Masked-LM head: transform, then scores over the vocabulary ``h · Eᵀ + b``, ``(..., H) -> (..., V)``.

    ``decoder.weight`` *is* the word-embedding matrix E (the same Parameter, set by the model's
    ``tie_weights``); ``bias`` is the head's own per-token bias. As in ``transformers``, ``decoder.bias`` is
    that same ``bias`` Parameter under a second name, so the state dict has Hugging Face's keys.

    Introduced in notebook 04.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        self.transform = BertPredictionHeadTransform(config)
        # Until the model ties it, decoder.weight is a placeholder of the right shape (V, H).
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size)
        self.bias = nn.Parameter(torch.zeros(config.vocab_size))
        self.decoder.bias = self.bias

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        hidden_states = self.transform(hidden_states)  # (..., H)
        return self.decoder(hidden_states)  # (..., V) = h · Eᵀ + b


class BertPreTrainingHeads(nn.Module):
    """Both pretraining heads (``cls.predictions`` for MLM, ``cls.seq_relationship`` for NSP).

    ``(sequence_output (B, T, H) or (N, H), pooled_output (B, H)) -> (MLM logits (..., V), NSP logits (B, 2))``.
    Introduced in notebook 04.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        self.predictions = BertLMPredictionHead(config)
        self.seq_relationship = nn.Linear(config.hidden_size, 2)

    def forward(
        self, sequence_output: torch.Tensor, pooled_output: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        return self.predictions(sequence_output), self.seq_relationship(pooled_output)
