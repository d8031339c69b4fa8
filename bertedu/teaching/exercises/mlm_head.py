"""Notebook 04's "write the module" exercise on the MLM head: ``MLMHead(config, word_embeddings)``, BERT's
transform (dense, GELU, LayerNorm) and the vocabulary projection tied to the word embeddings, plus its bias.

In the notebook (``ex`` is :mod:`bertedu.teaching.exercises.losses`, notebook 04's exercises)::

    ex.mlm_head.check(MLMHead)                 # write the module: MLMHead(config, word_embeddings), tied

:func:`check_mlm_head` builds the student's class, copies ``BertLMPredictionHead``'s weights in by Hugging
Face's names and compares (``bertedu/teaching/exercises/nn_checks.py``). Introduced in notebook 04.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from bertedu.core.config import BertConfig
from bertedu.core.heads import BertLMPredictionHead
from bertedu.language import msg, translatable, translate
from bertedu.teaching.exercises.core import (
    Exercise,
)
from bertedu.teaching.exercises.nn_checks import (
    build,
    close,
    output_tensor,
    random_init,
    run_checks,
)

# ----------------------------------------------------------------------------------------------------------
# Write the module: the MLM head with tied weights

#: The checker's configuration.
HEAD_CONFIG = BertConfig(
    vocab_size=23, hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16
)


def _mlm_head_steps(cls) -> tuple[bool, str]:
    config = HEAD_CONFIG
    word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
    ref = BertLMPredictionHead(config)
    ref.decoder.weight = word_embeddings.weight  # tied, as BertForPreTraining.tie_weights does
    random_init(ref, seed=31)  # the embedding matrix too (it is decoder.weight now)
    example = "ex.mlm_head.check(MLMHead)"
    mine = build(cls, config, word_embeddings, example=example)
    decoder = getattr(mine, "decoder", None)
    if not isinstance(getattr(decoder, "weight", None), torch.Tensor):
        return False, msg("name the vocabulary projection `decoder` (an nn.Linear(H, V) whose weight is E).")
    if decoder.weight is not word_embeddings.weight:
        if decoder.weight.shape == word_embeddings.weight.shape and torch.equal(
            decoder.weight.detach(), word_embeddings.weight.detach()
        ):
            return False, msg(
                "the decoder is tied by copy: its weight equals the word embeddings today but is a separate "
                "tensor, so the first optimizer step pulls them apart (and doubles the parameters). Share the "
                "Parameter itself: `self.decoder.weight = word_embeddings.weight`."
            )
        return False, msg(
            "the decoder is not tied to the word embeddings: BERT scores the vocabulary with E itself, "
            "logits = transform(h) · Eᵀ + b. Set `self.decoder.weight = word_embeddings.weight`."
        )
    bias = dict(mine.named_parameters()).get("bias")
    if bias is None or tuple(bias.shape) != (config.vocab_size,):
        return False, msg(
            "the output bias is missing: the head has its own per-token bias of shape (V,), named `bias` "
            "(`self.bias = nn.Parameter(torch.zeros(config.vocab_size))`), used as the decoder's bias."
        )
    if decoder.bias is not None and decoder.bias is not bias:
        return False, msg(
            "the decoder has a second bias of its own next to `bias`: create it with nn.Linear(H, V, bias=False) "
            "or share the Parameter (`self.decoder.bias = self.bias`), as Hugging Face does."
        )
    state = {k: v for k, v in ref.state_dict().items() if not k.startswith("decoder.")}  # decoder = E
    names = {k for k in mine.state_dict() if not k.startswith("decoder.")}
    if names != set(state):
        return False, msg(
            "your head's parameters do not have Hugging Face's names (missing {missing}, "
            "unexpected {unexpected}). Expected: {expected}.",
            missing=sorted(set(state) - names),
            unexpected=sorted(names - set(state)),
            expected=translate(_HEAD_NAMES),
        )
    mine.load_state_dict(state, strict=False)
    hidden = torch.randn(2, 3, config.hidden_size, generator=torch.Generator().manual_seed(32))  # (B, T, H)
    with torch.no_grad():
        got = output_tensor(mine(hidden), msg("the logits (B, T, V)"), (2, 3, config.vocab_size))
        if not close(got, ref(hidden)):
            E, b = word_embeddings.weight, ref.bias
            for variant, message in (
                (
                    hidden @ E.T + b,
                    msg("the transform is missing: apply dense → GELU → LayerNorm before the decoder."),
                ),
                (ref.transform(hidden) @ E.T, msg("the bias is not added: logits = transform(h) · Eᵀ + b.")),
                (
                    F.gelu(ref.transform.dense(hidden)) @ E.T + b,
                    msg("the transform's LayerNorm is missing: dense → GELU → LayerNorm."),
                ),
            ):
                if close(got, variant):
                    return False, message
            return (
                False,
                msg(
                    "your logits differ from BertLMPredictionHead's: transform (dense → GELU → LayerNorm), then h · Eᵀ + b."
                ),
            )
    return True, msg(
        "logits = LayerNorm(GELU(dense(h))) · Eᵀ + b with decoder.weight *being* the word-embedding Parameter: "
        "the same as bertedu's BertLMPredictionHead, and V·H parameters saved."
    )


_HEAD_NAMES = translatable("transform.dense, transform.LayerNorm, decoder (weight = E), bias (V,)")


def check_mlm_head(cls) -> tuple[bool, str]:
    """``cls(config, word_embeddings)`` must be BERT's MLM head with its decoder tied to ``word_embeddings``."""
    return run_checks(lambda: _mlm_head_steps(cls))


mlm_head = Exercise(
    "mlm_head",
    "Write `MLMHead(config, word_embeddings)`: transform (dense → GELU → LayerNorm, named transform.dense and "
    "transform.LayerNorm), then logits = h · Eᵀ + b with a `decoder` whose weight *is* the word-embedding "
    "matrix E (tied) and a per-token `bias` of shape (V,).",
    check_mlm_head,
    hints=[
        translatable(
            "A small `transform` module (nn.Module with .dense and .LayerNorm, eps=config.layer_norm_eps) keeps "
            "Hugging Face's names: transform.dense, transform.LayerNorm."
        ),
        translatable(
            "Tie by assignment, not by copy: `self.decoder = nn.Linear(H, V, bias=False)` then "
            "`self.decoder.weight = word_embeddings.weight`. The bias: `self.bias = nn.Parameter(torch.zeros(V))`."
        ),
    ],
    solution_code="""
class Transform(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, h):
        return self.LayerNorm(F.gelu(self.dense(h)))                  # (..., H)


class MLMHead(nn.Module):
    def __init__(self, config, word_embeddings):
        super().__init__()
        self.transform = Transform(config)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.decoder.weight = word_embeddings.weight                  # tied: the same Parameter (V, H)
        self.bias = nn.Parameter(torch.zeros(config.vocab_size))      # (V,)

    def forward(self, h):
        return self.decoder(self.transform(h)) + self.bias            # (..., V) = transform(h) · Eᵀ + b

ex.mlm_head.check(MLMHead)
""",
    points=2,
    answers=(
        "bertedu.core.heads.BertLMPredictionHead",
        "bertedu.core.heads.BertPredictionHeadTransform",
    ),
)

__all__ = ["mlm_head", "check_mlm_head", "HEAD_CONFIG"]
