"""The Transformer encoder as BERT uses it: post-LN layers stacked L times.

    H'    = LayerNorm(H + MultiHeadAttention(H))
    H_out = LayerNorm(H' + FFN(H')),   FFN(x) = W_2 · GELU(W_1 · x + b_1) + b_2   (H -> 4H -> H)

(Notebook 10's pre-LN and left-to-right variants of these layers are in :mod:`bertedu.core.variants`.)

Introduced in notebook 05.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from bertedu.core.attention import BertAttention
from bertedu.core.config import BertConfig


class BertIntermediate(nn.Module):
    """First half of the feed-forward network: ``GELU(W_1 x + b_1)``, ``(B, T, H) -> (B, T, I)``.

    GELU is the exact one, ``x · Φ(x)`` with the Gaussian CDF via erf (not the tanh approximation).
    Introduced in notebook 05.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.intermediate_size)

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.dense(hidden_states))  # (B, T, I)


class BertOutput(nn.Module):
    """Second half of the FFN, dropout, residual and LayerNorm: ``LN(x + W_2 h)``, ``(B, T, I) -> (B, T, H)``.

    Mirrors ``bertedu.core.attention.BertSelfOutput`` on purpose (Hugging Face's names: ``output.dense``).

    Introduced in notebook 05.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        self.dense = nn.Linear(config.intermediate_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states: torch.Tensor, input_tensor: torch.Tensor) -> torch.Tensor:
        hidden_states = self.dropout(self.dense(hidden_states))  # (B, T, H)
        return self.LayerNorm(hidden_states + input_tensor)  # post-LN: add the residual, then normalise


class BertLayer(nn.Module):
    """One encoder layer in post-LN order: attention block, then feed-forward block, each ``LN(x + f(x))``.

    ``(B, T, H) -> (B, T, H)``; also returns the attention weights ``(B, A, T, T)`` (or ``None``).
    Introduced in notebook 05.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        self.attention = BertAttention(config)
        self.intermediate = BertIntermediate(config)
        self.output = BertOutput(config)

    def forward(
        self,
        hidden_states: torch.Tensor,
        key_mask: torch.Tensor | None = None,
        output_attentions: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        attention_output, weights = self.attention(hidden_states, key_mask, output_attentions)  # LN(x + attn)
        layer_output = self.output(self.intermediate(attention_output), attention_output)  # LN(h + FFN(h))
        return layer_output, weights


class BertEncoder(nn.Module):
    """A stack of ``num_hidden_layers`` :class:`BertLayer` (named ``encoder.layer.0``, ``encoder.layer.1``, ...).

    Returns ``(last_hidden_state, all_hidden_states, all_attentions)``: the two tuples are ``None`` unless
    requested. ``all_hidden_states`` has L + 1 entries (the embeddings, then each layer's output).
    Introduced in notebook 05.
    """

    layer_class = BertLayer  # what the stack is made of (notebook 10's pre-LN encoder stacks another class)

    def __init__(self, config: BertConfig):
        super().__init__()
        self.layer = nn.ModuleList([self.layer_class(config) for _ in range(config.num_hidden_layers)])

    def forward(
        self,
        hidden_states: torch.Tensor,
        key_mask: torch.Tensor | None = None,
        output_attentions: bool = False,
        output_hidden_states: bool = False,
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, ...] | None, tuple[torch.Tensor, ...] | None]:
        all_hidden_states = [hidden_states] if output_hidden_states else None
        all_attentions = [] if output_attentions else None
        for layer in self.layer:
            hidden_states, weights = layer(hidden_states, key_mask, output_attentions)  # (B, T, H)
            if output_hidden_states:
                all_hidden_states.append(hidden_states)
            if output_attentions:
                all_attentions.append(weights)  # (B, A, T, T)
        return (
            hidden_states,
            tuple(all_hidden_states) if output_hidden_states else None,
            tuple(all_attentions) if output_attentions else None,
        )
