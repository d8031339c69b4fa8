"""Exercises for notebook 11 (capstone): a tiny BERT built from your own modules, trained next to bertedu's.

- :data:`embeddings_layer`, :data:`multi_head_attention`, :data:`mlm_head`: the same exercises as notebooks
  02, 05 and 04.
- :data:`encoder_layer` (write the module): a post-LN layer with Hugging Face's names, against ``BertLayer``.
- :data:`tiny_bert` (write the module): the whole pretraining model, against ``BertForPreTraining`` with the
  same weights (copied by name: :func:`load_weights`).
- :data:`same_training`: both models trained on the same batches with the same seed give the same losses,
  step for step (:func:`side_by_side` computes them and draws the two curves).

Re-exported for the notebook's own loop and real weights: notebook 04's :data:`nsp_sampler` and
:data:`collate_batch`, notebook 03's :data:`masking_function`, and the exercises of
:mod:`bertedu.teaching.exercises.capstone_loop` (:data:`schedule`, :data:`loop_step`, :data:`your_loop`,
:func:`train_your_parts`) and :mod:`bertedu.teaching.exercises.capstone_minilm` (:data:`real_weights`,
:func:`your_minilm`).

The data are the course corpus's first :data:`STEPS` pretraining batches (``bertedu.training.data``'s pipeline); both
models take the same training step as ``bertedu.training.pretrain.pretrain`` (forward, zero_grad, backward, clip, AdamW,
schedule). Introduced in notebook 11.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from bertedu.core.attention import build_key_mask
from bertedu.core.config import BertConfig
from bertedu.core.encoder import BertLayer
from bertedu.language import msg, translatable, translate
from bertedu.teaching.exercises.capstone_base import (
    BATCH_SIZE,
    SEED,
    STEPS,
    capstone_setup,
    load_weights,
    pretraining_outputs,
    reference_model,
    reporting_step,
    train_steps,
)
from bertedu.teaching.exercises.capstone_loop import (
    NotDiagnosed,
    YourRun,
    capstone_losses,
    diagnose_your_model,
    loop_step,
    loop_through_your_parts,
    schedule,
    train_your_parts,
    your_loop,
)
from bertedu.teaching.exercises.capstone_minilm import (
    real_weights,
    your_minilm,
)
from bertedu.teaching.exercises.core import Exercise, expects_function
from bertedu.teaching.exercises.encoder import (
    _ffn_reads_input,
    _no_residual,
    _post_ln_eps,
    _pre_ln,
    multi_head_attention,
)
from bertedu.teaching.exercises.masking import masking_function
from bertedu.teaching.exercises.mlm_head import mlm_head
from bertedu.teaching.exercises.nn_checks import (
    build,
    close,
    copy_weights,
    output_tensor,
    random_init,
    run_checks,
    seeded,
)
from bertedu.teaching.exercises.pretraining_inputs import collate_batch, nsp_sampler
from bertedu.teaching.exercises.tokens import embeddings_layer
from bertedu.teaching.viz._core import use_cjk_fallback
from bertedu.utils import cpu_threads

TOLERANCE = 1e-4  #: largest allowed loss difference at any step (float32 sums in another order)
# ex.tiny_bert compares at random weights first (nn_checks.random_init, as notebooks 02-05 do). Their std is 0.1, not
# 0.5: through two layers and both heads, float32 rounding grows with the weights, and at 0.5 a correct model that
# sums in another order (the embeddings, the decoder's matmul) already misses the tolerance.
RANDOM_WEIGHTS_SEED = 51
RANDOM_WEIGHTS_STD = 0.1


# ----------------------------------------------------------------------------------------------------------
# The encoder layer

_LAYER_NAMES = translatable(
    "attention.self (your MultiHeadSelfAttention), attention.output.{dense, LayerNorm, dropout}, "
    "intermediate.dense, output.{dense, LayerNorm, dropout}"
)


def _layer_steps(cls) -> tuple[bool, str]:
    config = BertConfig(
        vocab_size=10, hidden_size=16, num_attention_heads=4, intermediate_size=64, num_hidden_layers=1
    )
    ref = random_init(BertLayer(config), seed=41, std=0.3).eval()
    mine = build(cls, config, example="ex.encoder_layer.check(EncoderLayer)")
    copy_weights(ref, mine, names_hint=translate(_LAYER_NAMES))
    gen = torch.Generator().manual_seed(42)
    x = torch.randn(2, 5, 16, generator=gen) * 0.02  # BERT's initial scale: the LayerNorm eps shows
    attention_mask = torch.tensor([[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]])
    mine.eval()
    with torch.no_grad():
        got = output_tensor(mine(x), msg("the layer's output (B, T, H)"), tuple(x.shape))
        if not close(got, ref(x)[0]):
            for variant, message in (
                (
                    _pre_ln(ref, x, False),
                    msg("this is the pre-LN order, x + f(LN(x)); BERT is post-LN: LN(x + f(x))."),
                ),
                (
                    _pre_ln(ref, x, True),
                    msg("this is the pre-LN order, x + f(LN(x)); BERT is post-LN: LN(x + f(x))."),
                ),
                (
                    _post_ln_eps(ref, x, 1e-5),
                    msg("your LayerNorms use eps = 1e-5; BERT's is config.layer_norm_eps = 1e-12."),
                ),
                (
                    _no_residual(ref, x),
                    msg("the residual connections are missing: LN(x + f(x)), not LN(f(x))."),
                ),
                (
                    _ffn_reads_input(ref, x),
                    msg("the feed-forward block must read h = LN(x + Attn(x)), not the input x."),
                ),
            ):
                if close(got, variant):
                    return False, message
            return False, msg("your layer's output differs from BertLayer's (no mask, eval mode).")
        masked = output_tensor(mine(x, attention_mask), msg("the layer's output (B, T, H)"), tuple(x.shape))
        if not close(masked, ref(x, build_key_mask(attention_mask))[0]):
            return False, msg("with padding your output differs: pass attention_mask on to attention.self.")
    mine.train()
    ref.train()
    with seeded(43):
        trained = mine(x, attention_mask)
    with seeded(43):
        expected = ref(x, build_key_mask(attention_mask))[0]
    if not close(trained, expected):
        return False, msg(
            "in training mode your output differs from BertLayer's with the same seed: apply each block's dropout "
            "to the dense output before the residual, LN(x + dropout(dense(...))), once per block."
        )
    return (
        True,
        msg("post-LN as in BERT, with dropout where BertLayer has it: LN(x + Attn(x)), then LN(h + FFN(h))."),
    )


def check_encoder_layer(cls) -> tuple[bool, str]:
    """``cls(config)``: a post-LN encoder layer with BertLayer's names; ``forward(hidden_states,
    attention_mask=None)`` with a ``(B, T)`` 1/0 mask returns ``(B, T, H)``."""
    return run_checks(lambda: _layer_steps(cls))


encoder_layer = Exercise(
    name="encoder_layer",
    answers=("bertedu.core.encoder.BertLayer",),
    prompt=(
        "Write the forward pass of `EncoderLayer` (its parts and their names are given): post-LN, "
        "h = LN(x + dropout(dense(Attn(x)))), out = LN(h + dropout(dense(GELU(dense(h)))))."
    ),
    checker=check_encoder_layer,
    hints=[
        translatable(
            "context = self.attention['self'](hidden_states, attention_mask); then the attention block's output part: "
            "dense, dropout, add hidden_states, LayerNorm."
        ),
        translatable(
            "The feed-forward block reads h: F.gelu(self.intermediate['dense'](h)), then self.output's dense, dropout, "
            "+ h, LayerNorm."
        ),
    ],
    solution_code="""
    def forward(self, hidden_states, attention_mask=None):
        att, out = self.attention["output"], self.output
        context = self.attention["self"](hidden_states, attention_mask)                  # (B, T, H)
        h = att["LayerNorm"](hidden_states + att["dropout"](att["dense"](context)))      # LN(x + Attn(x))
        f = F.gelu(self.intermediate["dense"](h))                                        # (B, T, 4H)
        return out["LayerNorm"](h + out["dropout"](out["dense"](f)))                     # LN(h + FFN(h))
""",
    points=2,
)


# ----------------------------------------------------------------------------------------------------------
# The whole model


def _first_difference(mine, reference, batch) -> str | None:
    """What differs between ``mine`` and ``reference`` (the same weights) on ``batch``, in eval mode: the NSP
    logits, the MLM logits or the loss, in that order; ``None`` if nothing does."""
    with torch.no_grad():
        expected = reference(**batch)
        loss, mlm_logits, nsp_logits = pretraining_outputs(mine.eval()(**batch))
    if not close(nsp_logits, expected.seq_relationship_logits):
        return msg(
            "the NSP logits differ: pooled = tanh(bert.pooler.dense(h[:, 0])) (the [CLS] position), then "
            "cls.seq_relationship(pooled)."
        )
    if not close(mlm_logits, expected.prediction_logits):
        return msg("the MLM logits differ: cls.predictions(h) for every position, (B, T, V).")
    if loss is None or not close(torch.as_tensor(loss), expected.loss):
        return msg(
            "the loss differs: cross-entropy of the MLM logits over the labelled positions (ignore_index=-100) "
            "plus the NSP cross-entropy."
        )
    return None


def _tiny_bert_steps(cls) -> tuple[bool, str]:
    config, _, batches = capstone_setup()
    mine = build(cls, config, example="ex.tiny_bert.check(MyBertForPreTraining)")
    # Two sets of weights, each copied into yours by name. Random ones first: at bertedu's initial scale (0.02) the
    # logits are nearly uniform (the NSP ones below 0.03) and every bias is 0, so a forgotten bias or a small slip
    # changes them by less than the tolerance. Then bertedu's initial weights, whose first loss the message reports.
    randomised = random_init(reference_model(config), seed=RANDOM_WEIGHTS_SEED, std=RANDOM_WEIGHTS_STD).eval()
    initial = reference_model(config).eval()
    for reference in (randomised, initial):
        load_weights(mine, reference)
        weights = dict(mine.named_parameters(remove_duplicate=False))
        if "cls.predictions.decoder.weight" in weights and (
            weights["cls.predictions.decoder.weight"] is not weights["bert.embeddings.word_embeddings.weight"]
        ):
            return (
                False,
                msg(
                    "the MLM decoder is not tied to bert.embeddings.word_embeddings (see notebook 04's MLM head)."
                ),
            )
        problem = _first_difference(mine, reference, batches[0])
        if problem is not None:
            return False, problem
    with torch.no_grad():
        first_loss = float(initial(**batches[0]).loss)
    return True, msg(
        "with the weights copied by name, your model gives bertedu's logits and loss ({loss:.2f}) "
        "on the first batch.",
        loss=first_loss,
    )


def check_tiny_bert(cls) -> tuple[bool, str]:
    """``cls(config)``: a BertForPreTraining with Hugging Face's names whose ``forward(**batch)`` returns
    ``.loss``, ``.prediction_logits``, ``.seq_relationship_logits`` equal to bertedu's (same weights)."""
    return run_checks(lambda: _tiny_bert_steps(cls))


tiny_bert = Exercise(
    name="tiny_bert",
    answers=(
        "bertedu.core.model.BertForPreTraining.forward",
        "bertedu.core.model.BertModel.forward",
    ),
    prompt=(
        "Write the forward pass of `MyBertForPreTraining` (its parts are given): embeddings, the layers, the "
        "tanh pooler on [CLS], the MLM and NSP heads, and loss = MLM loss + NSP loss when labels are given."
    ),
    checker=check_tiny_bert,
    hints=[
        translatable(
            "h = embeddings(input_ids, token_type_ids); for each layer h = layer(h, attention_mask); "
            "pooled = torch.tanh(pooler.dense(h[:, 0]))."
        ),
        translatable(
            "MLM loss: F.cross_entropy(mlm_logits.flatten(0, 1), labels.flatten(), ignore_index=-100); NSP loss: "
            "F.cross_entropy(nsp_logits, next_sentence_label)."
        ),
    ],
    solution_code="""
    def forward(self, input_ids, attention_mask=None, token_type_ids=None, labels=None, next_sentence_label=None):
        h = self.bert["embeddings"](input_ids, token_type_ids)                          # (B, T, H)
        for layer in self.bert["encoder"]["layer"]:
            h = layer(h, attention_mask)
        pooled = torch.tanh(self.bert["pooler"]["dense"](h[:, 0]))                      # [CLS], (B, H)
        mlm_logits = self.cls["predictions"](h)                                          # (B, T, V)
        nsp_logits = self.cls["seq_relationship"](pooled)                                # (B, 2)
        loss = None
        if labels is not None and next_sentence_label is not None:
            loss = (F.cross_entropy(mlm_logits.flatten(0, 1), labels.flatten(), ignore_index=-100)
                    + F.cross_entropy(nsp_logits, next_sentence_label))
        return BertForPreTrainingOutput(loss=loss, prediction_logits=mlm_logits, seq_relationship_logits=nsp_logits)
""",
    points=3,
)


# ----------------------------------------------------------------------------------------------------------
# Training both, side by side


@dataclass
class SideBySide:
    """Losses of bertedu's model and of yours, step by step (``yours`` is empty if not attempted yet)."""

    bertedu: list[float]
    yours: list[float]
    note: str = ""

    @property
    def max_difference(self) -> float:
        if len(self.yours) != len(self.bertedu):
            return math.inf
        return max(abs(a - b) for a, b in zip(self.bertedu, self.yours))

    def table(self):
        """A pandas DataFrame: step, bertedu, yours, difference."""
        import pandas as pd

        yours = self.yours if self.yours else [math.nan] * len(self.bertedu)
        return pd.DataFrame(
            {
                "step": range(1, len(self.bertedu) + 1),
                "bertedu": self.bertedu,
                "yours": yours,
                "difference": [abs(a - b) for a, b in zip(self.bertedu, yours)],
            }
        ).set_index("step")

    def plot(self, ax=None):
        """Both loss curves on one axis (yours dashed, on top). Returns the Axes."""
        import matplotlib.pyplot as plt

        use_cjk_fallback()  # the labels follow the course's language: Chinese needs a CJK font
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.2), layout="constrained")
            plt.close(ax.figure)
        steps = range(1, len(self.bertedu) + 1)
        ax.plot(steps, self.bertedu, lw=3, alpha=0.5, label=msg("bertedu's BertForPreTraining"))
        if self.yours:
            ax.plot(steps, self.yours, "k--", lw=1.2, label=msg("your model"))
        ax.set(
            xlabel=msg("step"),
            ylabel=msg("loss (MLM + NSP)"),
            title=self.note or msg("the same seed, the same batches"),
        )
        ax.legend()
        return ax


def side_by_side(cls, steps: int = STEPS) -> SideBySide:
    """Train bertedu's model and ``cls(config)`` from the same weights on the same ``steps`` batches with the
    same seed and the package's training step. If ``cls`` is still a stub, only bertedu's losses are filled."""
    config, _, batches = capstone_setup()
    batches = batches[:steps]
    with cpu_threads(1):
        theirs = reference_model(config)
        initial = {k: v.clone() for k, v in theirs.state_dict().items()}
        bertedu_losses = train_steps(theirs, batches, reporting_step)
        try:
            mine = build(cls, config, example="ex.side_by_side(MyBertForPreTraining)")
        except NotImplementedError:
            return SideBySide(bertedu_losses, [], msg("your model: not attempted yet"))
        start = reference_model(config)
        start.load_state_dict(initial)
        load_weights(mine, start)
        try:
            yours = train_steps(mine, batches, reporting_step)
        except NotImplementedError:
            return SideBySide(bertedu_losses, [], msg("your model: not attempted yet"))
    return SideBySide(bertedu_losses, yours)


@expects_function("ex.same_training.check(MyBertForPreTraining)")
def check_same_training(cls) -> tuple[bool, str]:
    """Trained side by side with bertedu's model, ``cls`` gives the same loss at every step (within
    :data:`TOLERANCE`)."""

    def steps() -> tuple[bool, str]:
        result = side_by_side(cls)
        if not result.yours:
            raise NotImplementedError
        worst = result.max_difference
        if worst <= TOLERANCE:
            return True, msg(
                "over {n_steps} steps the losses never differ by more than {TOLERANCE:g}: your BERT and "
                "bertedu's learn the same (loss {first_loss:.2f} → {last_loss:.2f}).",
                n_steps=len(result.yours),
                TOLERANCE=TOLERANCE,
                first_loss=result.bertedu[0],
                last_loss=result.bertedu[-1],
            )
        first = next(
            i for i, (a, b) in enumerate(zip(result.bertedu, result.yours)) if abs(a - b) > TOLERANCE
        )
        return False, (
            msg(
                "the losses part at step {step} ({theirs:.4f} vs yours {yours:.4f}). ",
                step=first + 1,
                theirs=result.bertedu[first],
                yours=result.yours[first],
            )
            + (
                msg(
                    "Step 1 is a forward pass with dropout on: if ex.tiny_bert passes (dropout off), your modules apply "
                    "dropout in other places, or another number of times, than bertedu's, so the random masks differ."
                )
                if first == 0
                else msg(
                    "The first steps agree, so the updates differ: parameters that are not tied, not trained, or "
                    "trained twice (a decoder with its own bias next to cls.predictions.bias?)."
                )
            )
        )

    return run_checks(steps)


same_training = Exercise(
    name="same_training",
    answers=("bertedu.core.model.BertForPreTraining.forward",),
    prompt="Train your model next to bertedu's: same weights, batches and seed must give the same loss at every step.",
    checker=check_same_training,
    hints=[
        translatable(
            "If step 1 differs, ex.tiny_bert.check names the problem. If a later step differs, compare where your "
            "modules apply dropout with bertedu's (show(BertLayer.forward), show(BertEmbeddings.forward))."
        ),
    ],
    solution_code="ex.same_training.check(MyBertForPreTraining)   # passes once the four parts above pass",
)

__all__ = [
    "NotDiagnosed",
    "capstone_losses",
    "diagnose_your_model",
    "BATCH_SIZE",
    "YourRun",
    "collate_batch",
    "loop_step",
    "loop_through_your_parts",
    "masking_function",
    "nsp_sampler",
    "real_weights",
    "schedule",
    "train_your_parts",
    "your_loop",
    "your_minilm",
    "SEED",
    "STEPS",
    "SideBySide",
    "capstone_setup",
    "check_encoder_layer",
    "check_same_training",
    "check_tiny_bert",
    "embeddings_layer",
    "encoder_layer",
    "load_weights",
    "mlm_head",
    "multi_head_attention",
    "reference_model",
    "same_training",
    "side_by_side",
    "tiny_bert",
]
