"""The capstone's setting, shared by notebook 11's exercises: a 2-layer BERT over the course corpus's vocabulary,
its first pretraining batches, bertedu's initial weights, the copy of weights by name, and the package's
training step and loop over those batches (:func:`train_steps`, :func:`reporting_step`).

:mod:`bertedu.teaching.exercises.capstone` (the modules, the side-by-side run), ``capstone_loop`` (your own loop)
and ``capstone_minilm`` (real weights) build on it. Introduced in notebook 11.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import torch
from torch import nn

from bertedu.core.config import BertConfig
from bertedu.core.model import BertForPreTraining
from bertedu.core.tokenizer import train_tokenizer
from bertedu.language import listing, msg
from bertedu.teaching.exercises.nn_checks import ModuleProblem, seeded
from bertedu.training.data import read_corpus
from bertedu.training.optim import make_optimizer
from bertedu.training.pretrain import PretrainingConfig, pretraining_batches
from bertedu.utils import data_path

SEED = 0  #: initial weights and dropout masks
STEPS = 30  #: optimizer steps of the side-by-side run
BATCH_SIZE = 16
MAX_LENGTH = 64
LEARNING_RATE = 1e-3


@functools.lru_cache(maxsize=1)
def capstone_setup() -> tuple[BertConfig, object, tuple[dict, ...]]:
    """``(config, tokenizer, batches)``: a 2-layer BERT (H = 64, 4 heads, FFN 256, dropout 0.1) over the
    course corpus's WordPiece vocabulary, and the first :data:`STEPS` batches of ``[CLS] A [SEP] B [SEP]``
    pairs (masked 80/10/10, NSP labels), made by the package's data pipeline."""
    documents = read_corpus(data_path("simple_sentences.txt"))
    tokenizer = train_tokenizer(documents, None)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=256,
        max_position_embeddings=MAX_LENGTH,
    )
    recipe = PretrainingConfig(max_length=MAX_LENGTH, batch_size=BATCH_SIZE, seed=SEED)  # masked 80/10/10
    batches = pretraining_batches(recipe, documents, tokenizer)
    return config, tokenizer, tuple(next(batches)[1] for _ in range(STEPS))


def reference_model(config: BertConfig) -> BertForPreTraining:
    """bertedu's ``BertForPreTraining`` with the capstone's initial weights (seed :data:`SEED`)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(SEED)
        return BertForPreTraining(config)


def load_weights(mine: nn.Module, reference: nn.Module) -> None:
    """Copy ``reference``'s parameters into ``mine`` by their Hugging Face names (a state-dict copy).

    The tied names are aliases: ``cls.predictions.decoder.weight`` *is* the word embedding and
    ``cls.predictions.decoder.bias`` *is* ``cls.predictions.bias``, so a model may have either or both.
    Raises :class:`ModuleProblem` naming the parameters that are missing or unexpected.
    """
    aliases = ("cls.predictions.decoder.weight", "cls.predictions.decoder.bias")
    theirs = reference.state_dict()
    ours = mine.state_dict()
    missing = [k for k in theirs if k not in ours and k not in aliases]
    unexpected = [k for k in ours if k not in theirs]
    if missing or unexpected:
        raise ModuleProblem(
            msg(
                "your model's parameter names differ from BertForPreTraining's (missing "
                "{missing}{more_missing}; unexpected {unexpected}"
                "{more_unexpected}). Use Hugging Face's names: bert.embeddings..., "
                "bert.encoder.layer.N.attention.self.query..., bert.pooler.dense, cls.predictions..., cls.seq_relationship.",
                missing=missing[:5],
                more_missing=" ..." if len(missing) > 5 else "",
                unexpected=unexpected[:5],
                more_unexpected=" ..." if len(unexpected) > 5 else "",
            )
        )
    for key, value in theirs.items():
        if key in ours and tuple(ours[key].shape) != tuple(value.shape):
            raise ModuleProblem(
                msg(
                    "`{key}` has shape {shape}, expected {expected}.",
                    key=key,
                    shape=tuple(ours[key].shape),
                    expected=tuple(value.shape),
                )
            )
    mine.load_state_dict({k: v for k, v in theirs.items() if k in ours}, strict=True)


def pretraining_outputs(out) -> tuple[torch.Tensor | None, torch.Tensor, torch.Tensor]:
    """``(loss, prediction_logits, seq_relationship_logits)`` of a model's output, or a ModuleProblem naming what
    is missing."""
    missing = [a for a in ("loss", "prediction_logits", "seq_relationship_logits") if not hasattr(out, a)]
    if missing:
        raise ModuleProblem(
            msg(
                "forward must return an object with .loss, .prediction_logits and .seq_relationship_logits "
                "(e.g. bertedu.core.outputs.BertForPreTrainingOutput); yours has no {missing}.",
                missing=listing(missing),
            )
        )
    return out.loss, out.prediction_logits, out.seq_relationship_logits


def train_steps(model: nn.Module, batches, step_fn: Callable) -> list[float]:
    """The losses of ``step_fn`` on each batch, with the capstone's AdamW, warm-up over a fifth of the steps, and
    dropout seeded (the package's side of every comparison)."""
    optimizer, scheduler = make_optimizer(
        model, lr=LEARNING_RATE, weight_decay=0.01, warmup_steps=len(batches) // 5, total_steps=len(batches)
    )
    with seeded(SEED + 1):  # the same dropout masks for both models
        return [step_fn(model, batch, optimizer, scheduler, 1.0) for batch in batches]


def reporting_step(model, batch, optimizer, scheduler, max_grad_norm) -> float:
    """One step as ``pretrain()`` takes it (forward, zero_grad, backward, clip, AdamW, schedule); returns the loss."""
    model.train()
    loss, _, _ = pretraining_outputs(model(**batch))
    if loss is None:
        raise ModuleProblem(msg("your model returned loss=None although the batch has labels."))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    scheduler.step()
    return float(loss.detach())


__all__ = [
    "BATCH_SIZE",
    "LEARNING_RATE",
    "MAX_LENGTH",
    "SEED",
    "STEPS",
    "capstone_setup",
    "load_weights",
    "pretraining_outputs",
    "reference_model",
    "reporting_step",
    "train_steps",
]
