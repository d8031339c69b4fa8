"""BERT's input representation: three lookup tables summed, then LayerNorm and dropout.

    h_i⁽⁰⁾ = LayerNorm(W_token[x_i] + W_position[i] + W_segment[s_i])

(Notebook 10's "no positions" variant, with two terms only, is :class:`bertedu.core.variants.NoPositionEmbeddings`.)

Introduced in notebook 02.
"""

from __future__ import annotations

import torch
from torch import nn

from bertedu.core.config import BertConfig


class BertEmbeddings(nn.Module):
    """Word + learned position + token-type (segment) embeddings, summed, LayerNorm (eps 1e-12), dropout.

    ``input_ids`` ``(B, T)`` -> ``(B, T, H)``. Positions count from 0; omitted ``token_type_ids`` mean
    segment 0 everywhere. The row of ``pad_token_id`` in the word table starts at zero.

    Introduced in notebook 02.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        self.word_embeddings = nn.Embedding(
            config.vocab_size, config.hidden_size, padding_idx=config.pad_token_id
        )
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        # 0, 1, ..., P-1. Not persistent: not in the state dict (like transformers 5), so checkpoints
        # match; from_pretrained drops the copy that older checkpoints carry.
        self.register_buffer(
            "position_ids", torch.arange(config.max_position_embeddings).expand(1, -1), persistent=False
        )

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor | None = None) -> torch.Tensor:
        """input_ids, token_type_ids: ``(B, T)`` integer tensors. Returns ``(B, T, H)``."""
        T = input_ids.size(1)
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)  # one segment: all sentence A
        words = self.word_embeddings(input_ids)  # (B, T, H)
        segments = self.token_type_embeddings(token_type_ids)  # (B, T, H)
        position_ids = self.position_ids[:, :T]  # (1, T), broadcast over the batch
        positions = self.position_embeddings(position_ids)  # (1, T, H)
        embeddings = words + segments + positions  # (B, T, H); the order of the sum does not matter
        return self.dropout(self.LayerNorm(embeddings))
