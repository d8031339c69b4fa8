"""Attention: the scaled dot-product formula, then BERT's multi-head self-attention block.

    Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V

Shapes: B batch, T tokens, H hidden size, A heads, d = H / A dimensions per head.

:func:`build_causal_mask` is the mask of notebook 10's left-to-right variant (used by
:mod:`bertedu.core.variants`); the classes here are BERT's.

Introduced in notebook 01 (the formula) and notebook 05 (the multi-head block).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from bertedu.core.config import BertConfig


def scaled_dot_product_attention(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None = None,
    dropout: nn.Module | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Explicit attention ``softmax(Q Kᵀ / √d_k) V``; returns ``(context, weights)``.

    query ``(..., T_q, d)``, key ``(..., T_k, d)``, value ``(..., T_k, d_v)``; usually ``(B, A, T, d)``.
    ``attention_mask``: boolean, broadcastable to ``(..., T_q, T_k)``, ``True`` = this query may attend to
    this key (the same convention as ``F.scaled_dot_product_attention``). Masked weights are exactly 0 and
    every row of weights sums to 1. ``dropout`` (e.g. an ``nn.Dropout``) is applied to the weights.
    Returns context ``(..., T_q, d_v)`` and weights ``(..., T_q, T_k)``.
    """
    if attention_mask is not None and attention_mask.dtype != torch.bool:
        raise ValueError(
            f"attention_mask must be a boolean tensor (True = attend), got dtype {attention_mask.dtype}. "
            "Turn a (B, T) 0/1 padding mask into one with bertedu.core.attention.build_key_mask(mask)."
        )
    d_k = query.size(-1)
    # Dividing by √d_k, written as a product with 1/√d_k: the same number, and the same floating-point
    # steps as transformers' eager attention (tests/test_hf_parity.py: equal up to float rounding).
    scores = query @ key.transpose(-2, -1) * (1.0 / math.sqrt(d_k))  # (..., T_q, T_k)
    if attention_mask is not None:
        # The most negative float (not -inf): exp() of it is exactly 0, and a row with no allowed key
        # becomes uniform instead of NaN. Only the key axis is masked (see build_key_mask).
        scores = scores.masked_fill(~attention_mask, torch.finfo(scores.dtype).min)
    weights = torch.softmax(scores, dim=-1)  # (..., T_q, T_k), normalised over the keys
    if dropout is not None:
        weights = dropout(weights)
    context = weights @ value  # (..., T_q, d_v)
    return context, weights


def build_key_mask(attention_mask: torch.Tensor) -> torch.Tensor:
    """Turn a ``(B, T)`` padding mask (1 = real token, 0 = [PAD]) into a ``(B, 1, 1, T)`` boolean key mask.

    The two singleton axes broadcast over heads and *queries*: every query may attend to every real
    key and to no padded key. Padded queries still get an output (ignored later), which is why the mask
    goes on keys, not on queries.
    """
    if attention_mask.dim() != 2:
        raise ValueError(f"attention_mask must have shape (B, T), got {tuple(attention_mask.shape)}.")
    return attention_mask[:, None, None, :].bool()  # (B, 1, 1, T)


def build_causal_mask(T: int, device: torch.device | str | None = None) -> torch.Tensor:
    """The ``(1, 1, T, T)`` boolean mask of a left-to-right model: query i may attend to keys j <= i only.

    Lower-triangular (the diagonal included): no token sees a later one, so changing a token never changes
    the outputs before it. Combine it with a padding mask by ``&``: ``build_key_mask(m) & build_causal_mask(T)``
    is ``(B, 1, T, T)``.
    """
    if not isinstance(T, int) or T < 1:
        raise ValueError(f"T (the number of tokens) must be a positive int, got {T!r}.")
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()[None, None]  # (1, 1, T, T)


class BertSelfAttention(nn.Module):
    """Multi-head self-attention: project to Q, K, V, split into A heads, attend, merge the heads.

    Input ``(B, T, H)``, output ``(B, T, H)`` and the weights ``(B, A, T, T)`` (``None`` on the fused path).
    Introduced in notebook 05.
    """

    def __init__(self, config: BertConfig):
        super().__init__()  # BertConfig.validate has checked that the heads divide hidden_size
        self.num_attention_heads = config.num_attention_heads
        self.attention_head_size = config.hidden_size // config.num_attention_heads
        self.attn_implementation = config.attn_implementation
        self.query = nn.Linear(config.hidden_size, config.hidden_size)
        self.key = nn.Linear(config.hidden_size, config.hidden_size)
        self.value = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        """(B, T, H) -> (B, A, T, d): view the last axis as A heads of d dims, then move heads forward."""
        B, T, _ = x.shape
        return x.view(B, T, self.num_attention_heads, self.attention_head_size).transpose(1, 2)

    def forward(
        self,
        hidden_states: torch.Tensor,
        key_mask: torch.Tensor | None = None,
        output_attentions: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """hidden_states ``(B, T, H)``; key_mask: boolean, ``(B, 1, 1, T)`` from :func:`build_key_mask`, or
        any mask that broadcasts to ``(B, A, T, T)``."""
        B, T, H = hidden_states.shape
        q = self.split_heads(self.query(hidden_states))  # (B, A, T, d)
        k = self.split_heads(self.key(hidden_states))  # (B, A, T, d)
        v = self.split_heads(self.value(hidden_states))  # (B, A, T, d)

        if self.attn_implementation == "sdpa" and not output_attentions:
            # fast path: PyTorch's fused kernel, the same maths without keeping the (B, A, T, T) weights.
            p = self.dropout.p if self.training else 0.0
            context = F.scaled_dot_product_attention(q, k, v, attn_mask=key_mask, dropout_p=p)
            weights = None
        else:
            context, weights = scaled_dot_product_attention(q, k, v, key_mask, self.dropout)

        # (B, A, T, d) -> (B, T, A, d) -> (B, T, H): move the head axis back before merging.
        context = context.transpose(1, 2).reshape(B, T, H)
        return context, weights


class BertSelfOutput(nn.Module):
    """Output projection of attention, dropout, then the residual and LayerNorm: ``LN(x + W_O·attn)``.

    The same computation as ``bertedu.core.encoder.BertOutput`` (dense -> dropout -> LN(x + residual)), kept as
    a separate class on purpose: Hugging Face does, so the parameter names match (``attention.output.dense``
    here, ``output.dense`` there).

    Introduced in notebook 05.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states: torch.Tensor, input_tensor: torch.Tensor) -> torch.Tensor:
        """hidden_states: attention context ``(B, T, H)``; input_tensor: the block's input ``(B, T, H)``."""
        hidden_states = self.dropout(self.dense(hidden_states))
        return self.LayerNorm(hidden_states + input_tensor)  # post-LN: residual first, then normalise


class BertAttention(nn.Module):
    """The attention half of a BERT layer: ``LN(x + MultiHead(x))``; returns ``(output, weights)``.

    Introduced in notebook 05.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        self.self = BertSelfAttention(config)
        self.output = BertSelfOutput(config)

    def forward(
        self,
        hidden_states: torch.Tensor,
        key_mask: torch.Tensor | None = None,
        output_attentions: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        context, weights = self.self(hidden_states, key_mask, output_attentions)
        return self.output(context, hidden_states), weights  # (B, T, H), (B, A, T, T) or None
