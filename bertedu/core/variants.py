"""Notebook 10's architecture variants: BERT's parts with one design choice changed, and where they are chosen.

The switches stay in :class:`~bertedu.core.config.BertConfig` (so a variant's ``config.json`` says what it is);
:func:`model_parts` turns them into classes, once, when :class:`~bertedu.core.model.BertModel` builds its
children. Each variant is a small class that reuses BERT's submodules and Hugging Face parameter names, so
BERT's own classes (notebooks 02-09) stay free of variant branches:

    config switch                    BertModel builds
    (defaults)                       BertEmbeddings, BertEncoder of BertLayer, BertPooler: BERT
    position_embedding_type="none"   NoPositionEmbeddings: word + segment only, no position table
    layer_norm_position="pre"        PreLNBertEncoder of PreLNBertLayer: x + f(LN(x)), then a final LayerNorm
    is_decoder=True                  CausalBertEncoder (query i sees keys j <= i), LastTokenPooler

The switches combine (``CausalPreLNBertEncoder`` is both encoder changes). A variant builds its parameters
in the same order as BERT, so a seeded model gets the same weights as before the variants were split out.

Introduced in notebook 10.
"""

from __future__ import annotations

import torch
from torch import nn

from bertedu.core.attention import build_causal_mask
from bertedu.core.config import BertConfig
from bertedu.core.embeddings import BertEmbeddings
from bertedu.core.encoder import BertEncoder, BertLayer
from bertedu.core.heads import BertPooler


class NoPositionEmbeddings(nn.Module):
    """BERT's input layer without positions: ``LayerNorm(W_token[x_i] + W_segment[s_i])``, then dropout.

    The same names as :class:`~bertedu.core.embeddings.BertEmbeddings`; ``position_embeddings`` is ``None``: no
    position table, so nothing tells the model where a token stands (the model is permutation-equivariant).
    Not a subclass: building BERT's position table first would draw random numbers and change every later
    weight of a seeded model. Introduced in notebook 10.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        self.word_embeddings = nn.Embedding(
            config.vocab_size, config.hidden_size, padding_idx=config.pad_token_id
        )
        self.position_embeddings = None  # the part this variant removes
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor | None = None) -> torch.Tensor:
        """input_ids, token_type_ids: ``(B, T)`` integer tensors. Returns ``(B, T, H)``."""
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)  # one segment: all sentence A
        words = self.word_embeddings(input_ids)  # (B, T, H)
        segments = self.token_type_embeddings(token_type_ids)  # (B, T, H)
        return self.dropout(self.LayerNorm(words + segments))  # a token's vector ignores where it stands


class PreLNBertLayer(BertLayer):
    """A pre-LN layer (GPT-2 and most later Transformers; not BERT): each block is ``x + f(LN(x))``.

    The submodules and parameters of :class:`~bertedu.core.encoder.BertLayer`; each block's LayerNorm moves from
    after the residual sum to the block's input: ``attention.output.LayerNorm`` normalises the attention's
    input, ``output.LayerNorm`` the feed-forward network's. Introduced in notebook 10.
    """

    def forward(
        self,
        hidden_states: torch.Tensor,
        key_mask: torch.Tensor | None = None,
        output_attentions: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        attn_out, ffn_out = self.attention.output, self.output  # each block's dense, dropout and LayerNorm
        context, weights = self.attention.self(attn_out.LayerNorm(hidden_states), key_mask, output_attentions)
        hidden_states = attn_out.dropout(attn_out.dense(context)) + hidden_states  # h = x + attn(LN(x))
        intermediate = self.intermediate(ffn_out.LayerNorm(hidden_states))  # (B, T, I)
        layer_output = ffn_out.dropout(ffn_out.dense(intermediate)) + hidden_states  # h + FFN(LN(h))
        return layer_output, weights


class PreLNBertEncoder(BertEncoder):
    """A stack of :class:`PreLNBertLayer`, then one LayerNorm (``encoder.LayerNorm``) on the last output.

    A pre-LN layer adds to the residual stream without normalising it, so the stream is normalised once, at
    the end. ``all_hidden_states``' last entry is that normalised output. Introduced in notebook 10.
    """

    layer_class = PreLNBertLayer

    def __init__(self, config: BertConfig):
        super().__init__(config)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(
        self,
        hidden_states: torch.Tensor,
        key_mask: torch.Tensor | None = None,
        output_attentions: bool = False,
        output_hidden_states: bool = False,
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, ...] | None, tuple[torch.Tensor, ...] | None]:
        last, all_hidden_states, all_attentions = super().forward(
            hidden_states, key_mask, output_attentions, output_hidden_states
        )
        last = self.LayerNorm(last)  # (B, T, H)
        if all_hidden_states is not None:
            all_hidden_states = (*all_hidden_states[:-1], last)
        return last, all_hidden_states, all_attentions


class CausalBertEncoder(BertEncoder):
    """A left-to-right encoder: the padding mask combined with :func:`~bertedu.core.attention.build_causal_mask`,
    so query i attends to keys j <= i only (``is_decoder``, as in Hugging Face). Introduced in notebook 10.
    """

    def forward(
        self,
        hidden_states: torch.Tensor,
        key_mask: torch.Tensor | None = None,
        output_attentions: bool = False,
        output_hidden_states: bool = False,
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, ...] | None, tuple[torch.Tensor, ...] | None]:
        causal = build_causal_mask(hidden_states.size(1), hidden_states.device)  # (1, 1, T, T)
        key_mask = causal if key_mask is None else key_mask & causal  # (B, 1, T, T)
        return super().forward(hidden_states, key_mask, output_attentions, output_hidden_states)


class CausalPreLNBertEncoder(CausalBertEncoder, PreLNBertEncoder):
    """Both encoder variants: causal attention in pre-LN layers, then the final LayerNorm.

    Introduced in notebook 10.
    """


class LastTokenPooler(BertPooler):
    """The pooler of a left-to-right model: ``tanh(dense(T_last))``, the last real token's output.

    Under a causal mask [CLS] has seen only itself; the last real token is the only one that has seen the
    whole sequence (GPT classifies from its last token too). ``attention_mask`` ``(B, T)`` (1 = real, right
    padding) says where it is; without one it is position T - 1. Introduced in notebook 10.
    """

    def forward(
        self, hidden_states: torch.Tensor, attention_mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        B, T, _ = hidden_states.shape
        if attention_mask is None:
            last = torch.full((B,), T - 1, dtype=torch.long, device=hidden_states.device)  # (B,)
        else:
            last = attention_mask.long().sum(dim=1).clamp(min=1) - 1  # (B,): index of the last real token
        last_token = hidden_states[torch.arange(B, device=hidden_states.device), last]  # (B, H)
        return self.activation(self.dense(last_token))  # (B, H)


def model_parts(config: BertConfig) -> tuple[type[nn.Module], type[nn.Module], type[nn.Module]]:
    """The classes :class:`~bertedu.core.model.BertModel` builds for ``config``: ``(embeddings, encoder, pooler)``.

    BERT's (``BertEmbeddings``, ``BertEncoder``, ``BertPooler``) unless a switch of notebook 10 is set. The
    only place where the switches choose code.
    """
    embeddings = NoPositionEmbeddings if config.position_embedding_type == "none" else BertEmbeddings
    pre_ln = config.layer_norm_position == "pre"
    if config.is_decoder:
        return embeddings, CausalPreLNBertEncoder if pre_ln else CausalBertEncoder, LastTokenPooler
    return embeddings, PreLNBertEncoder if pre_ln else BertEncoder, BertPooler
