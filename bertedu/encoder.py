"""The Transformer encoder as BERT uses it: post-LN layers stacked L times.

    H'    = LayerNorm(H + MultiHeadAttention(H))
    H_out = LayerNorm(H' + FFN(H')),   FFN(x) = W_2 · GELU(W_1 · x + b_1) + b_2   (H -> 4H -> H)

The pre-LN ablation of notebook 10 (``config.layer_norm_position == "pre"``, as in GPT-2 and most later
Transformers; not BERT) normalises the input of each sub-layer instead, and once more after the last layer:

    H' = H + MultiHeadAttention(LayerNorm(H));   H_out = H' + FFN(LayerNorm(H'));   output = LayerNorm(H_L)

Introduced in notebook 05.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from bertedu.attention import BertAttention
from bertedu.config import BertConfig


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

    Mirrors ``bertedu.attention.BertSelfOutput`` on purpose (Hugging Face's names: ``output.dense``).

    Introduced in notebook 05.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        self.dense = nn.Linear(config.intermediate_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.pre_layer_norm = config.layer_norm_position == "pre"

    def forward(self, hidden_states: torch.Tensor, input_tensor: torch.Tensor) -> torch.Tensor:
        hidden_states = self.dropout(self.dense(hidden_states))  # (B, T, H)
        if self.pre_layer_norm:  # pre-LN (notebook 10): BertLayer normalised the FFN's input instead
            return hidden_states + input_tensor
        return self.LayerNorm(hidden_states + input_tensor)  # post-LN: add the residual, then normalise


class BertLayer(nn.Module):
    """One encoder layer in post-LN order: attention block, then feed-forward block, each ``LN(x + f(x))``.

    ``(B, T, H) -> (B, T, H)``; also returns the attention weights ``(B, A, T, T)`` (or ``None``). With
    ``config.layer_norm_position == "pre"`` each block is ``x + f(LN(x))`` (notebook 10).
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
        ffn_input = (
            self.output.LayerNorm(attention_output) if self.output.pre_layer_norm else attention_output
        )
        layer_output = self.output(self.intermediate(ffn_input), attention_output)  # LN(h + FFN(h))
        return layer_output, weights


class BertEncoder(nn.Module):
    """A stack of ``num_hidden_layers`` :class:`BertLayer` (named ``encoder.layer.0``, ``encoder.layer.1``, ...).

    Returns ``(last_hidden_state, all_hidden_states, all_attentions)``: the two tuples are ``None`` unless
    requested. ``all_hidden_states`` has L + 1 entries (the embeddings, then each layer's output). A pre-LN
    encoder (notebook 10) ends with one more LayerNorm (``encoder.LayerNorm``, ``None`` in BERT's post-LN);
    its output is the last entry. Introduced in notebook 05.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        self.layer = nn.ModuleList([BertLayer(config) for _ in range(config.num_hidden_layers)])
        self.LayerNorm = (
            nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
            if config.layer_norm_position == "pre"
            else None  # post-LN: every layer already ends with a LayerNorm
        )

    def forward(
        self,
        hidden_states: torch.Tensor,
        key_mask: torch.Tensor | None = None,
        output_attentions: bool = False,
        output_hidden_states: bool = False,
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, ...] | None, tuple[torch.Tensor, ...] | None]:
        all_hidden_states = [hidden_states] if output_hidden_states else None
        all_attentions = [] if output_attentions else None
        for i, layer in enumerate(self.layer):
            hidden_states, weights = layer(hidden_states, key_mask, output_attentions)  # (B, T, H)
            if self.LayerNorm is not None and i == len(self.layer) - 1:
                hidden_states = self.LayerNorm(
                    hidden_states
                )  # pre-LN: the residual stream is normalised once
            if output_hidden_states:
                all_hidden_states.append(hidden_states)
            if output_attentions:
                all_attentions.append(weights)  # (B, A, T, T)
        return (
            hidden_states,
            tuple(all_hidden_states) if output_hidden_states else None,
            tuple(all_attentions) if output_attentions else None,
        )
