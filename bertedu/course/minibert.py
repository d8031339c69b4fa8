"""A one-layer "MiniBert": the model of the blog post the course grew from, as a baseline to beat.

The post (Guo Hongtao, 2026, "从零开始训练简易版 BERT", *Training a simple BERT from scratch*; one of the
course's source documents) computes self-attention by hand and then trains this model on the
sentences that ``data/simple_sentences.txt`` extends.

What it has: a token-embedding table E (d = 128), *one* self-attention (W_Q, W_K, W_V; a single head),
dropout, a residual connection and LayerNorm, then an output head like BERT's MLM head but without its
LayerNorm (dense + GELU, logits ``h · Eᵀ + b`` with E tied). What it lacks, compared to BERT: position and segment embeddings, the
feed-forward block, more layers, several heads, the NSP task and the 80/10/10 corruption. Each training
sentence has exactly one word replaced by [MASK]; Adam with a constant learning rate of 1e-3.

Without position embeddings the model sees a sentence as a *bag* of words: permuting the words permutes
its outputs and nothing else, so "the man [MASK] the book" and "the book [MASK] the man" get exactly the
same prediction for the [MASK]. Notebook 06 shows this.

Two changes from the post, neither of which changes what the model can compute: it reads padded batches
of sentences (padding keys are masked out of the attention, so each sentence is computed as if alone) and
it uses the course's tokenizer (every corpus word is one token there, like the post's word list), so both
models are scored on exactly the same vocabulary.

Introduced in notebook 06.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from bertedu.core.attention import build_key_mask, scaled_dot_product_attention
from bertedu.core.losses import IGNORE_INDEX
from bertedu.core.validation import require_int
from bertedu.training.optim import AdamW


@dataclass
class MiniBertOutput:
    """``loss`` (when labels are given), ``prediction_logits`` ``(B, T, V)`` (or ``(N, V)`` at the N labelled
    positions when labels are given: the fast path), ``attentions (B, T, T)``."""

    loss: torch.Tensor | None
    prediction_logits: torch.Tensor
    attentions: torch.Tensor


class MiniBert(nn.Module):
    """The post's model: embeddings -> one attention -> dropout -> LN(x + attention) -> GELU(dense) -> h·Eᵀ + b.

    ``forward(input_ids (B, T), attention_mask (B, T) = None, token_type_ids = None (ignored), labels = None)``.
    With ``labels`` the vocabulary scores are computed only at the labelled positions (``(N, V)``, the order
    of ``labels[labels != -100]``), as ``BertForPreTraining``'s fast path: the same loss, less work.
    Sentences go in without [CLS]/[SEP] (``uses_special_tokens = False`` tells ``bertedu.training.probes``).
    Parameters are initialised as in the post: N(0, 1) · 0.01. Introduced in notebook 06.
    """

    uses_special_tokens = False

    def __init__(self, vocab_size: int, d_model: int = 128, dropout: float = 0.1, init_scale: float = 0.01):
        super().__init__()
        require_int("vocab_size", vocab_size, 2)
        require_int("d_model", d_model, 1)
        self.vocab_size, self.d_model = vocab_size, d_model
        self.E = nn.Parameter(torch.randn(vocab_size, d_model) * init_scale)  # (V, d) token embeddings
        self.W_Q = nn.Parameter(torch.randn(d_model, d_model) * init_scale)  # (d, d)
        self.W_K = nn.Parameter(torch.randn(d_model, d_model) * init_scale)
        self.W_V = nn.Parameter(torch.randn(d_model, d_model) * init_scale)
        self.W_dense = nn.Parameter(torch.randn(d_model, d_model) * init_scale)  # MLM "refinement" layer
        self.b_dense = nn.Parameter(torch.zeros(d_model))
        self.b_vocab = nn.Parameter(torch.zeros(vocab_size))  # (V,) output bias
        self.dropout = nn.Dropout(dropout)
        self.layer_norm = nn.LayerNorm(d_model)  # the post's default eps (1e-5); BERT uses 1e-12

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        *,
        labels: torch.Tensor | None = None,
    ) -> MiniBertOutput:
        if input_ids.dim() != 2:
            raise ValueError(f"input_ids must be (B, T), got shape {tuple(input_ids.shape)}.")
        X = self.E[input_ids]  # (B, T, d): no position embedding is added
        Q, K, V = X @ self.W_Q, X @ self.W_K, X @ self.W_V  # (B, T, d) each
        key_mask = None if attention_mask is None else build_key_mask(attention_mask)[:, 0]  # (B, 1, T)
        Z, A = scaled_dot_product_attention(Q, K, V, key_mask)  # (B, T, d), (B, T, T)
        Z = self.layer_norm(self.dropout(Z) + X)  # residual + LayerNorm
        loss = None
        if labels is not None:  # fast path: only the labelled positions need vocabulary scores
            selected = labels != IGNORE_INDEX  # (B, T)
            Z, labels = Z[selected], labels[selected]  # (N, d), (N,)
        Z_refined = F.gelu(Z @ self.W_dense + self.b_dense)  # (B, T, d) or (N, d)
        logits = Z_refined @ self.E.T + self.b_vocab  # (B, T, V) or (N, V), weight tying with E
        if labels is not None:
            loss = F.cross_entropy(logits, labels)
        return MiniBertOutput(loss, logits, A)


def mask_one_word(
    input_ids: torch.Tensor, attention_mask: torch.Tensor, mask_token_id: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """The post's masking: exactly one real token per sentence, chosen uniformly, becomes [MASK].

    ``input_ids``, ``attention_mask``: ``(B, T)``. Returns ``(masked_ids, labels)``, labels -100 except at
    the masked position.
    """
    lengths = attention_mask.sum(dim=1)  # (B,)
    position = (torch.rand(len(lengths), generator=generator) * lengths).long()  # (B,) in [0, length)
    rows = torch.arange(len(lengths))
    labels = torch.full_like(input_ids, IGNORE_INDEX)
    labels[rows, position] = input_ids[rows, position]
    masked = input_ids.clone()
    masked[rows, position] = mask_token_id
    return masked, labels


def train_minibert(
    sentences: list[str],
    tokenizer,
    *,
    steps: int,
    batch_size: int = 32,
    learning_rate: float = 1e-3,
    d_model: int = 128,
    seed: int = 0,
    log_every: int = 10,
) -> tuple[MiniBert, list[dict]]:
    """Train a :class:`MiniBert` on ``sentences`` with the post's recipe (one [MASK] per sentence, Adam at
    a constant ``learning_rate``), in shuffled batches of ``batch_size`` sentences for ``steps`` steps.

    Deterministic for a given ``seed`` (initialisation, order, masks and dropout). Returns the model (eval
    mode) and a history of ``{"step", "split": "train", "mlm_loss", "mlm_accuracy"}`` records (means over
    ``log_every`` steps).
    """
    if not sentences:
        raise ValueError("train_baseline needs a non-empty list of sentences.")
    require_int("steps", steps, 1)
    torch.manual_seed(seed)
    model = MiniBert(tokenizer.vocab_size, d_model)
    optimizer = AdamW(model.parameters(), lr=learning_rate, weight_decay=0.0)  # Adam, as the post
    encoded = tokenizer(list(sentences), padding=True, return_tensors="pt", add_special_tokens=False)
    ids, mask = encoded["input_ids"], encoded["attention_mask"]  # (N, T_max)
    generator = torch.Generator().manual_seed(seed)
    order = torch.randperm(len(ids), generator=generator)
    per_epoch = math.ceil(len(ids) / batch_size)
    history, losses, correct, total = [], 0.0, 0, 0
    model.train()
    for step in range(steps):
        b = step % per_epoch
        if b == 0 and step:
            order = torch.randperm(len(ids), generator=generator)
        rows = order[b * batch_size : (b + 1) * batch_size]
        batch_mask = mask[rows]
        width = int(batch_mask.sum(dim=1).max())  # trim the padding this batch does not need
        batch_ids, batch_mask = ids[rows, :width], batch_mask[:, :width]
        masked, labels = mask_one_word(batch_ids, batch_mask, tokenizer.mask_token_id, generator)
        out = model(masked, batch_mask, labels=labels)
        optimizer.zero_grad(set_to_none=True)
        out.loss.backward()
        optimizer.step()
        losses += out.loss.item()
        targets = labels[labels != IGNORE_INDEX]  # (N,) in the order of the fast path's logits
        correct += int((out.prediction_logits.argmax(-1) == targets).sum())
        total += targets.numel()
        if (step + 1) % log_every == 0 or step + 1 == steps:
            n = (step % log_every) + 1
            history.append(
                {"step": step + 1, "split": "train", "mlm_loss": losses / n, "mlm_accuracy": correct / total}
            )
            losses, correct, total = 0.0, 0, 0
    return model.eval(), history
