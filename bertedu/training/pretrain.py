"""Pretraining BERT with MLM + NSP: the run's settings and the training loop.

The loop (notebook 06 writes it out by hand first) is the paper's recipe in miniature::

    for step, batch in bucketed_batches(...):        # [CLS] A [SEP] B [SEP], masked, NSP label
        loss = model(**batch).loss                    # L = L_MLM + L_NSP
        loss.backward()
        clip_grad_norm_(params, 1.0)                  # gradient clipping
        optimizer.step(); scheduler.step()            # AdamW; lr: linear warm-up, then linear decay to 0

Everything a run needs is in a :class:`PretrainingConfig`; :func:`pretrain` runs it and returns a
:class:`PretrainingRun` (model, tokenizer, history, held-out metrics). The history is a list of records
``{"step": 100, "split": "train", "loss": ..., "mlm_loss": ..., "nsp_loss": ..., "mlm_accuracy": ...,
"nsp_accuracy": ..., "lr": ...}`` plus ``"split": "eval"`` records with the held-out accuracies: the
format ``bertedu.teaching.viz.plot_loss_curves`` draws.

Checkpoints (:mod:`bertedu.training.checkpoint`) are written at the end, every ``checkpoint_every`` steps and when
the run is stopped; resuming restores the optimizer, the schedule and every random-number generator, and
because every batch is a pure function of ``(seed, step)`` (:mod:`bertedu.training.data`), an interrupted and
resumed run ends with bit-for-bit the same weights as an uninterrupted one (on the same machine). Saving is
crash-safe: a kill at any moment leaves the last complete checkpoint (see :mod:`bertedu.training.checkpoint`).

Ctrl-C (SIGINT; also a kernel interrupt) and SIGTERM (``kill``, a kernel restart) finish the step, save a
checkpoint and raise :class:`TrainingInterrupted`, so an interrupted cell never looks
finished. A loss that ends far above its start warns (:class:`TrainingDivergenceWarning`).

Fast paths (grep ``# fast path:``; a student can skip them, the maths is the same): MLM logits only at the
masked positions (``BertForPreTraining``'s ``mlm_logits_at_labels_only``), the fused attention kernel with
``attn_implementation="sdpa"``, and batches of similar lengths (:func:`bertedu.training.data.bucketed_batches`). The
model returned and saved always uses the explicit attention of notebook 01.

Beyond notebook 06 (docs/scaling.md): several processes under ``torchrun``, gradient accumulation and GPUs
(:mod:`bertedu.scaleout.distributed`), and corpora larger than memory (:mod:`bertedu.training.shards`, a folder as ``corpus``).
The command line ``python -m bertedu.cli`` is in :mod:`bertedu.cli`; notebook 06's recipe is
:func:`bertedu.course.course_config`. Introduced in notebook 06.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from tqdm.auto import tqdm

from bertedu.core.config import (
    ATTN_IMPLEMENTATIONS,
    LAYER_NORM_POSITIONS,
    POSITION_EMBEDDING_TYPES,
    PRESETS,
    BertConfig,
)
from bertedu.core.losses import IGNORE_INDEX, pretraining_loss
from bertedu.core.masking import MASKING_RANGES, check_replacement_shares
from bertedu.core.model import BertForPreTraining
from bertedu.core.tokenizer import BertTokenizer, train_tokenizer
from bertedu.core.validation import DROPOUT, Interval, require_int
from bertedu.language import msg
from bertedu.scaleout.distributed import DistributedContext, autocast, processes
from bertedu.training.checkpoint import load_checkpoint, prepare_output, save_checkpoint, set_rng_state
from bertedu.training.data import PretrainingCollator, PretrainingDataset, bucketed_batches, read_corpus
from bertedu.training.evalsets import load_masked_word_items, load_nsp_items
from bertedu.training.optim import divergence_message, make_optimizer, optimizer_step, warn_if_diverged
from bertedu.training.probes import evaluate_pretraining
from bertedu.training.shards import ShardedCorpus, is_shard_folder
from bertedu.utils import cpu_threads, file_sha256, progress_interval, resolve_path

logger = logging.getLogger(__name__)

#: Pretraining objectives: BERT's masked LM, a left-to-right LM (the "LTR" ablation of notebook 10), or no language
#: model at all, next-sentence prediction alone (notebook 06's NSP-only run). :func:`objective_batch` applies them.
OBJECTIVES = ("mlm", "ltr", "nsp")
#: The ranges of the float settings (the masking shares' are bertedu.core.masking's, dropout's the core's).
LEARNING_RATE = Interval(0, 1, low_inclusive=False, high_inclusive=False, example="1e-3")
NON_NEGATIVE = Interval(0)


# ----------------------------------------------------------------------------------------------------------
# The run's settings


def _setting(
    default: Any,
    help: str,
    *,
    flag: str | None = None,
    low: int | None = None,
    bounds: Interval | None = None,
):
    """A :class:`PretrainingConfig` field: its ``default``, its ``help`` text, its command-line ``flag`` of
    ``python -m bertedu.cli`` (:mod:`bertedu.cli` builds its options from these; ``None``: not one) and its range:
    for a whole number its lowest value ``low``, for a float its :class:`~bertedu.core.validation.Interval`
    ``bounds``. ``validate`` and the command line check these same definitions."""
    metadata = {"help": help, "flag": flag}
    metadata |= {} if low is None else {"low": low}
    metadata |= {} if bounds is None else {"bounds": bounds}
    return field(default=default, metadata=metadata)


@dataclass(frozen=True)
class PretrainingConfig:
    """Every setting of a pretraining run (the model's size, the data, the optimizer, evaluation).

    Paths (``corpus``, ``mlm_eval_file``, ``nsp_eval_file``) may be relative: they are looked up from the
    working directory first, then from the repository root (so ``"data/simple_sentences.txt"`` works from
    ``notebooks/`` too). Introduced in notebook 06.
    """

    corpus: str = _setting(
        "data/simple_sentences.txt",
        "text file: one sentence per line, a blank line between documents, or a folder of tokenized shards "
        "(python -m bertedu.training.shards) for a corpus larger than memory",
        flag="--corpus",
    )
    model_size: str = _setting(
        "tiny", "model size L/H/A, one of bertedu.core.config.PRESETS", flag="--preset"
    )
    vocab_size: int | None = _setting(
        None,
        "WordPiece vocabulary size (left out, None: one that keeps every corpus word whole)",
        flag="--vocab-size",
        low=1,
    )
    max_length: int = _setting(
        64, "tokens per [CLS] A [SEP] B [SEP] example (and position embeddings)", flag="--max-length", low=5
    )
    max_sentences: int = _setting(2, "sentences per segment A / B (at most; without packing)", low=1)
    packing: bool = _setting(
        False,
        "fill every example with consecutive sentences up to max_length (the paper's pretraining data); "
        "False: 1..max_sentences sentences per segment",
    )
    mlm_probability: float = _setting(
        0.15,
        "share of tokens selected for masked-LM (then 80 % [MASK] / 10 % random / 10 % kept; the paper: 0.15)",
        flag="--mlm-probability",
        bounds=MASKING_RANGES["mlm_probability"],
    )
    dropout: float = _setting(
        0.1, "hidden and attention dropout (the paper: 0.1)", flag="--dropout", bounds=DROPOUT
    )
    steps: int = _setting(1000, "optimizer steps (batches)", flag="--steps", low=1)
    batch_size: int = _setting(32, "examples per step", flag="--batch-size", low=1)
    learning_rate: float = _setting(
        1e-3, "peak learning rate of AdamW, reached after the warm-up", flag="--lr", bounds=LEARNING_RATE
    )
    warmup_steps: int = _setting(
        100, "linear warm-up steps from 0, then linear decay to 0 at `steps`", flag="--warmup", low=0
    )
    weight_decay: float = _setting(
        0.01, "AdamW's decoupled decay (not on biases and LayerNorm weights)", bounds=NON_NEGATIVE
    )
    max_grad_norm: float = _setting(
        1.0, "gradient clipping (global L2 norm); 0 turns clipping off", bounds=NON_NEGATIVE
    )
    seed: int = _setting(
        0, "random seed: initialisation, dropout, NSP pairs, masks and batch order", flag="--seed", low=0
    )
    attn_implementation: str = _setting(
        "eager",
        "attention used while training: explicit 'eager' or fused 'sdpa' (fast path); the saved model is "
        "the same either way",
        flag="--attn",
    )
    num_threads: int | None = _setting(
        None,
        "CPU threads while training (left out, None: PyTorch's setting); the exact weights depend on it, "
        "so keep it fixed to reproduce a run",
        flag="--threads",
        low=1,
    )
    bucket_batches: int = _setting(
        8, "sort each run of this many batches by length (less padding); 1 = off", low=1
    )
    log_every: int = _setting(10, "one history record per this many steps (means over them)", low=1)
    eval_every: int = _setting(
        100, "evaluate on the held-out files every N steps, 0 = only at the end", flag="--eval-every", low=0
    )
    checkpoint_every: int = _setting(
        0, "also save a checkpoint every N steps, 0 = only at the end", flag="--checkpoint-every", low=0
    )
    mlm_eval_file: str | None = _setting(
        None,
        "held-out masked words, TSV 'sentence<TAB>answers' (e.g. data/mlm_eval.tsv); left out (None): "
        "no MLM evaluation",
        flag="--mlm-eval",
    )
    nsp_eval_file: str | None = _setting(
        None,
        "held-out NSP pairs, TSV 'sentence_a<TAB>sentence_b<TAB>label' (e.g. data/nsp_eval.tsv); "
        "left out (None): no NSP evaluation",
        flag="--nsp-eval",
    )
    # The ablations of notebook 10 (bertedu.course.ablations): each changes one thing; the defaults are BERT's.
    # "mlm" (masked LM), "ltr" (left-to-right LM: causal attention, next token) or "nsp" (NSP alone: notebook 06)
    objective: str = "mlm"
    next_sentence_prediction: bool = True  # False: the paper's "No NSP" (the same pairs, no NSP loss)
    mask_replace_prob: float = _setting(  # of the selected tokens, the share replaced by [MASK] ...
        0.8, "share of the selected tokens replaced by [MASK]", bounds=MASKING_RANGES["mask_replace_prob"]
    )
    random_replace_prob: float = _setting(  # ... and by a random token; the rest stay unchanged (80/10/10)
        0.1,
        "share of the selected tokens replaced by a random token",
        bounds=MASKING_RANGES["random_replace_prob"],
    )
    position_embedding_type: str = "absolute"  # BertConfig's switch: "none" removes position embeddings
    layer_norm_position: str = "post"  # BertConfig's switch: "pre" for pre-LN layers

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first setting that cannot work: each number against its field's
        range (``low``, ``bounds``: the definitions the command line and the collator use too)."""
        for f in dataclasses.fields(self):
            if "low" in f.metadata:  # a whole number (max_length: [CLS] A [SEP] B [SEP] needs 5)
                require_int(f.name, getattr(self, f.name), f.metadata["low"], none_ok=f.default is None)
            elif "bounds" in f.metadata:  # a float in its interval
                f.metadata["bounds"].check(f.name, getattr(self, f.name))
        if self.model_size not in PRESETS:
            raise ValueError(f"model_size must be one of {list(PRESETS)}, got {self.model_size!r}.")
        if self.attn_implementation not in ATTN_IMPLEMENTATIONS:
            raise ValueError(
                f"attn_implementation must be one of {ATTN_IMPLEMENTATIONS}, got {self.attn_implementation!r}."
            )
        self._validate_ablation_switches()

    def _validate_ablation_switches(self) -> None:
        """The settings of notebook 10's ablations (``ValueError`` with what to change)."""
        check_replacement_shares(self.mask_replace_prob, self.random_replace_prob)
        for name, allowed in (
            ("packing", (True, False)),
            ("objective", OBJECTIVES),
            ("position_embedding_type", POSITION_EMBEDDING_TYPES),
            ("layer_norm_position", LAYER_NORM_POSITIONS),
            ("next_sentence_prediction", (True, False)),
        ):
            if getattr(self, name) not in allowed or type(getattr(self, name)) is int:
                raise ValueError(f"{name} must be one of {allowed}, got {getattr(self, name)!r}.")
        if self.objective == "nsp" and not self.next_sentence_prediction:
            raise ValueError(
                "objective='nsp' trains next-sentence prediction alone: keep next_sentence_prediction."
            )
        no_nsp_head = not self.next_sentence_prediction and self.nsp_eval_file
        if (self.objective != "mlm" and self.mlm_eval_file) or no_nsp_head:
            raise ValueError(
                "A left-to-right or NSP-only model does not predict [MASK] (set mlm_eval_file=None), and a run "
                "without NSP has no trained NSP head (set nsp_eval_file=None)."
            )

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PretrainingConfig:
        """Build a config from :meth:`to_dict`'s output; unknown keys raise ``ValueError``."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"Unknown pretraining settings {unknown}; known: {sorted(names)}.")
        return cls(**data)

    def replace(self, **changes: Any) -> PretrainingConfig:
        return dataclasses.replace(self, **changes)


def model_config(config: PretrainingConfig, vocab_size: int) -> BertConfig:
    """The ``BertConfig`` a run trains (explicit attention, the teaching default)."""
    return BertConfig(
        vocab_size=vocab_size,
        max_position_embeddings=config.max_length,
        hidden_dropout_prob=config.dropout,
        attention_probs_dropout_prob=config.dropout,
        is_decoder=config.objective == "ltr",  # the ablation switches of notebook 10 (defaults: BERT)
        position_embedding_type=config.position_embedding_type,
        layer_norm_position=config.layer_norm_position,
        **PRESETS[config.model_size],
    )


def objective_batch(batch: dict[str, torch.Tensor], config: PretrainingConfig) -> dict[str, torch.Tensor]:
    """The batch the run's objective trains on; BERT's (MLM + NSP) is returned as it is. The one place where the
    objective changes what a step sees (as :func:`bertedu.core.variants.model_parts` is for the model). Notebook
    10's ablations: ``objective="ltr"``: the unmasked tokens as input and, as label at position i, the token at
    i + 1 (-100 after the last real token); ``next_sentence_prediction=False``: no NSP label, so no NSP loss.
    Notebook 06's ``objective="nsp"``: every MLM label -100 (the same masked inputs), so ``L = L_NSP``."""
    if config.objective == "nsp":
        batch = {**batch, "labels": torch.full_like(batch["labels"], IGNORE_INDEX)}  # no MLM targets
    if config.objective == "ltr":
        labels, mask = batch["labels"], batch["attention_mask"]
        input_ids = torch.where(labels != IGNORE_INDEX, labels, batch["input_ids"])  # undo the masking
        targets = torch.full_like(input_ids, IGNORE_INDEX)  # (B, T)
        targets[:, :-1] = input_ids[:, 1:].masked_fill(mask[:, 1:] == 0, IGNORE_INDEX)  # the next token
        batch = {**batch, "input_ids": input_ids, "labels": targets}
    if not config.next_sentence_prediction:
        batch = {k: v for k, v in batch.items() if k != "next_sentence_label"}
    return batch


def untrained_parts(model: BertForPreTraining, config: PretrainingConfig) -> list[torch.nn.Module]:
    """The parts of ``model`` that ``config``'s objective never trains: without NSP, the pooler and the NSP head
    (no loss reaches them). A run freezes them, so that no step, process or optimizer waits for their gradients."""
    return [] if config.next_sentence_prediction else [model.bert.pooler, model.cls.seq_relationship]


# ----------------------------------------------------------------------------------------------------------
# The batches


def pretraining_batches(
    config: PretrainingConfig,
    corpus: list | ShardedCorpus,
    tokenizer: BertTokenizer,
    *,
    start_step: int = 0,
) -> Iterator[tuple[int, dict[str, torch.Tensor]]]:
    """The endless ``(step, batch)`` stream a run of ``config`` trains on, from batch ``start_step`` on: NSP pairs
    of ``corpus`` (the documents of :func:`bertedu.training.data.read_corpus`, or a :class:`bertedu.training.shards.ShardedCorpus`
    streamed from disk), ``config.max_length`` tokens at most, masked with the config's shares (``mlm_probability``,
    then ``mask_replace_prob`` / ``random_replace_prob``: 80/10/10), in batches of ``config.batch_size`` grouped by
    length (``bucket_batches``). Batch ``step`` is a pure function of ``(config.seed, step)``. Introduced in
    notebook 06."""
    collator = PretrainingCollator(
        tokenizer,
        mlm_probability=config.mlm_probability,
        mask_replace_prob=config.mask_replace_prob,
        random_replace_prob=config.random_replace_prob,
    )
    size = dict(max_length=config.max_length, max_sentences=config.max_sentences, packing=config.packing)
    buckets = dict(start_step=start_step, bucket_batches=config.bucket_batches)
    if isinstance(corpus, ShardedCorpus):  # tokenized shards on disk (bertedu.training.shards), streamed
        return corpus.batches(collator, config.batch_size, seed=config.seed, **size, **buckets)
    dataset = PretrainingDataset(corpus, tokenizer, seed=config.seed, **size)
    return bucketed_batches(dataset, collator, config.batch_size, **buckets)


def _open_corpus(config: PretrainingConfig) -> tuple[list | ShardedCorpus, str]:
    """The run's corpus: its documents in memory, or a folder of tokenized shards (larger than memory), and
    its SHA-256 (a resumed run checks that the corpus did not change)."""
    path = resolve_path(config.corpus)
    if not is_shard_folder(path):
        return read_corpus(path), file_sha256(path)
    shards = ShardedCorpus(path)
    if config.vocab_size not in (None, shards.tokenizer.vocab_size):
        raise ValueError(
            f"vocab_size={config.vocab_size}, but the shards in {config.corpus} hold ids of a vocabulary of "
            f"{shards.tokenizer.vocab_size}: leave vocab_size out, or write the shards with another vocabulary."
        )
    return shards, shards.corpus_sha256


# ----------------------------------------------------------------------------------------------------------
# The step


@dataclass
class StepStats:
    """What one optimizer step measured on its whole batch (all processes, all micro-batches): the losses as
    the batch's means, and the right/total counts of the MLM and NSP predictions. A step without NSP labels has
    ``nsp_total == 0`` (and an NSP loss of 0); one without MLM labels ``mlm_total == 0``. Introduced in notebook 06."""

    loss: float = 0.0
    mlm_loss: float = 0.0
    nsp_loss: float = 0.0
    mlm_correct: int = 0
    mlm_total: int = 0
    nsp_correct: int = 0
    nsp_total: int = 0

    def add(self, out, part: dict[str, torch.Tensor], masked: int, rows: int) -> torch.Tensor:
        """Add one part of the batch (``out``: the model's output on ``part``); returns the part's loss weighted
        by its share of the batch (its labelled tokens of ``masked`` for MLM, its rows of ``rows`` for NSP), so that the parts'
        losses add up to the loss of the whole batch. The whole batch as its only part: weights 1."""
        selected = part["labels"] != IGNORE_INDEX  # (b, T)
        n = int(selected.sum())
        loss = mlm = out.mlm_loss * (n / max(masked, 1))  # L = L_MLM (+ L_NSP if the part has NSP labels)
        self.mlm_loss += mlm.item()
        self.mlm_correct += int((out.prediction_logits.argmax(-1) == part["labels"][selected]).sum())
        self.mlm_total += n
        if "next_sentence_label" in part:  # absent: an objective without NSP, which adds nothing here
            nsp_labels = part["next_sentence_label"]
            nsp = out.nsp_loss * (len(nsp_labels) / rows)
            if not len(nsp_labels):  # a part without rows: a zero, not the mean's NaN
                nsp = out.seq_relationship_logits.sum() * 0.0
            loss = pretraining_loss(mlm, nsp)  # L = L_MLM + L_NSP
            self.nsp_loss += nsp.item()
            self.nsp_correct += int((out.seq_relationship_logits.argmax(-1) == nsp_labels).sum())
            self.nsp_total += len(nsp_labels)
        self.loss += loss.item()
        return loss

    def summed(self, ctx: DistributedContext) -> StepStats:
        """These figures added up over the processes (a collective call; one process: unchanged)."""
        total = ctx.sum_over_processes(list(dataclasses.astuple(self)))
        return StepStats(*total[:3], *(int(x) for x in total[3:]))

    def __add__(self, other: StepStats) -> StepStats:
        """Two steps' figures added up (a history record sums the steps since the last one)."""
        return StepStats(*(a + b for a, b in zip(dataclasses.astuple(self), dataclasses.astuple(other))))


def recipe_optimizer(model: torch.nn.Module, config: PretrainingConfig):
    """``(optimizer, scheduler)`` for ``model`` as ``config`` says: AdamW with BERT's settings and the linear
    warm-up/decay schedule (:func:`bertedu.training.optim.make_optimizer`) at ``config``'s learning rate, weight
    decay, warm-up and number of steps. Every loop that trains the recipe sets it up here."""
    return make_optimizer(
        model,
        lr=config.learning_rate,
        weight_decay=config.weight_decay,
        warmup_steps=config.warmup_steps,
        total_steps=config.steps,
    )


def train_step(
    model,
    batch: dict[str, torch.Tensor],
    optimizer,
    scheduler,
    params,
    max_grad_norm: float,
    step: int,
    ctx: DistributedContext | None = None,
    grad_accum: int = 1,
) -> StepStats:
    """One optimizer step on ``batch``: forward (``L = L_MLM + L_NSP``), backward, gradient clipping, AdamW and
    the learning-rate schedule. Returns what it measured (:class:`StepStats`). ``step`` is the number of steps
    done before this one (for the error message). Raises ``TrainingDivergedError`` (before the weights change)
    if the loss or the gradient norm is not finite.

    Beyond notebook 06 (:mod:`bertedu.scaleout.distributed`): with ``ctx``, several processes share the batch (``model``
    wrapped in DDP), and ``grad_accum`` cuts each one's rows into micro-batches, one forward and backward each;
    every part's loss is weighted by its share of the batch. One process, ``grad_accum=1``: one part, the batch.
    """
    ctx = ctx or DistributedContext()  # one process on the CPU
    model.train()
    parts = ctx.parts(batch, grad_accum)  # this process's rows, in grad_accum micro-batches
    masked, rows = int((batch["labels"] != IGNORE_INDEX).sum()), batch["input_ids"].size(0)
    stats = StepStats()
    optimizer.zero_grad(set_to_none=True)
    for i, part in enumerate(parts):
        if ctx.parallel:  # DDP all-reduces the gradients in the last part's backward only
            model.require_backward_grad_sync = i == len(parts) - 1
        # fast path: MLM logits at the masked positions only; autocast: bf16 on a GPU, nothing on a CPU
        with autocast(ctx.device):
            out = model(**part, mlm_logits_at_labels_only=True)
        loss = stats.add(out, part, masked, rows)  # this part's share of the batch's loss
        (loss * ctx.world_size).backward()  # DDP averages the processes' gradients; we want their sum
    stats = stats.summed(ctx)  # the whole batch's figures, the same in every process
    # the step both loops end with: stop if the loss or the gradient norm is not finite, clip, AdamW, schedule
    optimizer_step(
        optimizer,
        scheduler,
        params,
        max_grad_norm,
        stats.loss,
        lambda what, _: divergence_message(step, what, stats),
    )
    return stats


# ----------------------------------------------------------------------------------------------------------
# Stopping a run on a signal, with a checkpoint


class TrainingInterrupted(KeyboardInterrupt):
    """Pretraining was stopped by a signal (Ctrl-C, a kernel interrupt or a cell timeout: SIGINT; ``kill``, a
    container stop or a kernel shutdown: SIGTERM) after saving a checkpoint. Its message says where it
    stopped and how to resume. Attributes: ``step``, ``total_steps``, ``output_dir`` (``None``: nothing was
    saved), ``signal`` (``"SIGINT"`` or ``"SIGTERM"``) and ``run``, the :class:`PretrainingRun` so far.

    A ``KeyboardInterrupt``, so code that stops on Ctrl-C stops here too, and a notebook cell shows it as an
    error instead of a finished run. Introduced in notebook 06.
    """

    def __init__(
        self, run: PretrainingRun, total_steps: int, signal_name: str, resume_hint: str | None = None
    ) -> None:
        self.run, self.step, self.total_steps = run, run.step, total_steps
        self.output_dir, self.signal = run.output_dir, signal_name
        cause = {
            "SIGINT": "interrupted (Ctrl-C, a kernel interrupt or a cell time-out)",
            "SIGTERM": "stopped by SIGTERM (kill, a container stop or a kernel restart)",
        }[signal_name]
        if run.output_dir is None:
            saved = "Nothing was saved (no output_dir was given); start it again to train it."
        else:
            saved = f"A checkpoint is saved in {run.output_dir}. " + (
                resume_hint
                or f"Resume it with pretrain(config, {str(run.output_dir)!r}, resume=True), or from a terminal "
                f"with the course's Python: .venv/bin/python -m bertedu.cli --output {run.output_dir} --resume."
            )
        super().__init__(f"Pretraining was {cause} at step {run.step}/{total_steps}. {saved}")


class StopOnSignal:
    """``with StopOnSignal() as flag:`` Ctrl-C (SIGINT) or SIGTERM sets ``flag.stop`` (and ``flag.signal``)
    instead of ending the program, so a training loop can finish its step, save a checkpoint and stop. A second
    signal raises ``KeyboardInterrupt`` at once, except once the loop has set ``flag.saving``: a kernel shutdown
    sends SIGINT, then SIGTERM 2.5 s later, and that must not cut the final save short. Handlers can only be set
    from the main thread; elsewhere signals keep their usual effect. Introduced in notebook 06."""

    SIGNALS = ("SIGINT", "SIGTERM")

    def __init__(self) -> None:
        self.stop = False
        self.signal: str | None = None  # the name of the signal that set the flag
        self.saving = False  # True: the final save runs, and no signal may interrupt it
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> StopOnSignal:
        if threading.current_thread() is threading.main_thread():

            def handler(signum, frame):
                if self.stop and not self.saving:  # a second signal: stop now
                    raise KeyboardInterrupt
                if not self.stop:
                    self.stop, self.signal = True, signal.Signals(signum).name

            for name in self.SIGNALS:
                number = getattr(signal, name, None)
                if number is not None:
                    self._previous[number] = signal.signal(number, handler)
        return self

    def __exit__(self, *exc) -> None:
        for number, previous in self._previous.items():
            signal.signal(number, signal.SIG_DFL if previous is None else previous)
        self._previous.clear()


# ----------------------------------------------------------------------------------------------------------
# The training loop


@dataclass
class PretrainingRun:
    """The result of :func:`pretrain`: the trained model (eval mode, explicit attention), its tokenizer,
    the history records, the final held-out ``metrics``, the step reached and where the checkpoint is."""

    model: BertForPreTraining
    tokenizer: BertTokenizer
    config: PretrainingConfig
    history: list[dict]
    metrics: dict[str, float]
    step: int
    output_dir: Path | None = None
    interrupted: bool = False
    train_seconds: float = field(default=0.0, compare=False)

    @property
    def final_train_record(self) -> dict:
        """The last training record of the history (losses and accuracies over the last ``log_every`` steps)."""
        return next((r for r in reversed(self.history) if r.get("split", "train") == "train"), {})


class _Window:
    """The steps since the last history record: how many, and their :class:`StepStats` added up."""

    def __init__(self, steps: int = 0, sums: StepStats | None = None) -> None:
        self.steps, self.sums = steps, sums or StepStats()

    def add(self, stats: StepStats) -> None:
        self.steps, self.sums = self.steps + 1, self.sums + stats

    def state(self) -> dict:
        """The running sums (saved in a checkpoint, so a resumed run logs exactly what the full run logs)."""
        return {"steps": self.steps, **dataclasses.asdict(self.sums)}

    @classmethod
    def from_state(cls, state: dict | None) -> _Window:
        state = dict(state or {})
        known = {f.name for f in dataclasses.fields(StepStats)}
        sums = StepStats(**{k: v for k, v in state.items() if k in known and v is not None})
        return cls(state.get("steps", 0), sums)

    def record(self, step: int, lr: float) -> dict:
        """The history record of these steps: their mean losses and accuracies (only the objectives trained:
        a run without NSP has no NSP figures, one without MLM no MLM figures)."""
        n, s = max(self.steps, 1), self.sums
        mlm, nsp = s.mlm_total or not self.steps, s.nsp_total or not self.steps  # which objectives trained
        record = {"step": step, "split": "train", "loss": s.loss / n}
        record |= {"mlm_loss": s.mlm_loss / n} if mlm else {}
        record |= {"nsp_loss": s.nsp_loss / n} if nsp else {}
        record |= {"mlm_accuracy": s.mlm_correct / max(s.mlm_total, 1)} if mlm else {}
        record |= {"nsp_accuracy": s.nsp_correct / max(s.nsp_total, 1)} if nsp else {}
        return record | {"lr": lr}


def load_eval_items(config: PretrainingConfig) -> tuple[list, list]:
    """The held-out ``(masked-word items, NSP items)`` the config names (empty lists for files not given)."""
    mlm = load_masked_word_items(resolve_path(config.mlm_eval_file)) if config.mlm_eval_file else []
    nsp = load_nsp_items(resolve_path(config.nsp_eval_file)) if config.nsp_eval_file else []
    return mlm, nsp


def _eval_record(model, tokenizer, config, mlm_items, nsp_items, step: int) -> dict:
    if next(model.parameters()).device.type != "cpu":  # a GPU run: the probes work on the CPU
        model = copy.deepcopy(model).cpu()
    with torch.random.fork_rng(devices=[]):  # evaluation must not move the training's random state
        scores = evaluate_pretraining(
            model, tokenizer, mlm_items=mlm_items, nsp_items=nsp_items, max_length=config.max_length
        )
    record = {"step": step, "split": "eval"}
    if "mlm_top1" in scores:
        record["mlm_accuracy"], record["mlm_top5_accuracy"] = scores["mlm_top1"], scores["mlm_top5"]
    if "nsp_accuracy" in scores:
        record["nsp_accuracy"] = scores["nsp_accuracy"]
    return record


def _teaching_model(model: BertForPreTraining) -> BertForPreTraining:
    """The same weights in a model with the explicit attention of notebook 01 (eval mode)."""
    if model.config.attn_implementation == "eager":
        return model.eval()
    eager = BertForPreTraining(model.config.replace(attn_implementation="eager"))
    eager.load_state_dict(model.state_dict())
    return eager.eval()


@dataclass
class _Training:
    """A run in progress, as its checkpoint saves it: the model (``trainer``: the same, DDP-wrapped with
    several processes), optimizer and schedule, the history, the steps done and the open log window."""

    ctx: DistributedContext
    config: PretrainingConfig
    output_dir: Path | None
    model: BertForPreTraining
    trainer: torch.nn.Module
    tokenizer: BertTokenizer
    optimizer: torch.optim.Optimizer
    scheduler: Any
    corpus_sha256: str
    history: list[dict] = field(default_factory=list)
    step: int = 0
    window: _Window = field(default_factory=_Window)

    def log(self, stats: StepStats, eval_items: tuple[list, list], bar) -> None:
        """Count a finished step: a history record every ``log_every`` steps, an evaluation every ``eval_every``."""
        config, step = self.config, self.step
        self.window.add(stats)
        if step % config.log_every == 0 or step == config.steps:
            self.history.append(self.window.record(step, self.optimizer.param_groups[0]["lr"]))
            self.window = _Window()
            bar.set_postfix(loss=f"{self.history[-1]['loss']:.3f}", refresh=False)
        if config.eval_every and step % config.eval_every == 0 and step < config.steps and any(eval_items):
            self.history.append(_eval_record(self.model, self.tokenizer, config, *eval_items, step))

    def save(self, metrics: dict | None = None) -> None:
        """Write the checkpoint (process 0 writes, the others wait); nothing without an ``output_dir``."""
        if self.output_dir is None:
            return
        process_rng = self.ctx.rng_states()  # every process's generators (None: one process on the CPU)
        self.ctx.on_main(
            lambda: save_checkpoint(
                self.output_dir,
                model=self.model,
                tokenizer=self.tokenizer,
                optimizer=self.optimizer,
                scheduler=self.scheduler,
                step=self.step,
                run_config=self.config.to_dict(),
                history=self.history,
                metrics=metrics,
                corpus_sha256=self.corpus_sha256,
                log_window=self.window.state(),
                process_rng=process_rng,
            ),
            "saving a checkpoint",
        )

    def result(self, metrics: dict, seconds: float = 0.0) -> PretrainingRun:
        for part in untrained_parts(self.model, self.config):  # the model handed over trains like any other
            part.requires_grad_(True)
        return PretrainingRun(
            model=_teaching_model(self.model),
            tokenizer=self.tokenizer,
            config=self.config,
            history=self.history,
            metrics=metrics,
            step=self.step,
            output_dir=self.output_dir,
            interrupted=self.step < self.config.steps,
            train_seconds=seconds,
        )


def pretrain(
    config: PretrainingConfig,
    output_dir: str | os.PathLike | None = None,
    *,
    resume: bool = False,
    progress: bool = True,
    stop_after: int | None = None,
    grad_accum: int = 1,
    device: str | None = "cpu",
    overwrite: bool = True,
) -> PretrainingRun:
    """Pretrain a ``BertForPreTraining`` with MLM + NSP as ``config`` says; returns a :class:`PretrainingRun`.

    ``output_dir``: where the checkpoint goes (at the end, every ``checkpoint_every`` steps, and when the run
    is stopped); ``None`` saves nothing. ``resume=True`` continues the checkpoint in ``output_dir`` (its own
    saved config must equal ``config``) and ends with the weights an uninterrupted run would have.
    ``progress``: show a tqdm progress bar (``tqdm.auto``: a widget in Jupyter). ``stop_after``: stop after
    this many steps in total as if interrupted (the schedule still plans for ``config.steps``); used to
    demonstrate and test resuming. ``grad_accum``: run each batch as this many micro-batches, adding up their
    gradients (less memory, the same step). ``device``: ``"cpu"`` (notebook 06), ``"cuda"``, or ``"auto"`` (a
    GPU if there is one). Under ``torchrun`` the processes share each batch (:mod:`bertedu.scaleout.distributed`,
    beyond notebook 06); the result equals one process's to float rounding, whatever the number of processes
    and ``grad_accum`` (``config.batch_size`` is the global batch), so a run may resume with other ones.

    ``output_dir`` is checked before training (:func:`~bertedu.training.checkpoint.prepare_output`; a checkpoint
    already there is replaced by a new run unless ``overwrite=False``). Raises
    ``TrainingInterrupted`` after saving if a signal stops the run, ``TrainingDivergedError`` if the loss or
    the gradient norm stops being finite, ``bertedu.files.SaveError`` naming the cause (disk full, ...) if a
    checkpoint cannot be written.
    """
    if not isinstance(config, PretrainingConfig):  # a PretrainingConfig is checked when it is made (frozen)
        raise ValueError(f"config must be a PretrainingConfig, got {type(config).__name__}.")
    require_int("stop_after", stop_after, none_ok=True)
    output_dir = Path(output_dir) if output_dir is not None else None
    if resume and output_dir is None:
        raise ValueError("resume=True needs the output_dir that holds the checkpoint to continue.")
    require_int("grad_accum", grad_accum, 1)
    with processes(device, output_dir) as ctx:  # one process here; several under torchrun
        ctx.check_batch(config.batch_size, grad_accum)
        if output_dir is not None:  # may the run start (or continue) there?
            prepare_output(output_dir, config.to_dict(), resume=resume, overwrite=overwrite)
        return _pretrain(ctx, config, output_dir, resume, progress, stop_after, grad_accum)


def _pretrain(ctx: DistributedContext, config, output_dir, resume, progress, stop_after, grad_accum):
    """:func:`pretrain`'s body, in process ``ctx.rank`` of ``ctx.world_size``."""
    corpus, corpus_sha256 = _open_corpus(config)
    eval_items = load_eval_items(config)  # held-out (masked-word items, NSP items)
    checkpoint = _checkpoint_to_resume(output_dir, config.corpus, corpus_sha256) if resume else None
    run = _start(ctx, config, output_dir, corpus, corpus_sha256, checkpoint)
    if run.step >= config.steps:  # the saved run is already finished: nothing to train
        return PretrainingRun(
            checkpoint.model, run.tokenizer, config, run.history, checkpoint.metrics, run.step, output_dir
        )
    batches = pretraining_batches(config, corpus, run.tokenizer, start_step=run.step)  # batch `step` next
    params = [p for p in run.model.parameters() if p.requires_grad]

    def step(batch: dict[str, torch.Tensor]) -> StepStats:  # one step: any processes, any micro-batches
        args = (run.optimizer, run.scheduler, params, config.max_grad_norm, run.step)
        return train_step(run.trainer, batch, *args, ctx=ctx, grad_accum=grad_accum)

    end = config.steps if stop_after is None else min(config.steps, stop_after)
    began = time.perf_counter()
    with StopOnSignal() as flag, cpu_threads(config.num_threads):
        stopped = _train(run, batches, step, end, eval_items, flag, progress)
        seconds = time.perf_counter() - began
        flag.saving = True  # from here on a signal is noted, but cannot cut the final save short
        metrics: dict[str, float] = {}
        if run.step >= config.steps and any(eval_items):
            record = _eval_record(run.model, run.tokenizer, config, *eval_items, run.step)
            run.history.append(record)
            metrics = {k: v for k, v in record.items() if k not in ("step", "split")}
        run.save(metrics)
    result = run.result(metrics, seconds)
    if stopped and run.step < config.steps:  # stopped by a signal: never look like a finished run
        raise TrainingInterrupted(result, config.steps, flag.signal or "SIGINT")
    if run.step >= config.steps and ctx.is_main:
        warn_if_diverged(
            run.history,
            run.tokenizer.vocab_size,
            learning_rate=config.learning_rate,
            warmup_steps=config.warmup_steps,
            max_grad_norm=config.max_grad_norm,
        )
    return result


def _train(run: _Training, batches, step, end: int, eval_items, flag: StopOnSignal, progress: bool) -> bool:
    """The loop: ``step(batch)`` until step ``end``, or until a signal stops it (the processes agree on that
    after every step); returns whether a signal stopped it. Checkpoints every ``checkpoint_every`` steps."""
    config, stopped = run.config, False
    bar = tqdm(
        total=config.steps,
        initial=run.step,
        disable=not progress or not run.ctx.is_main,
        desc=msg("pretraining"),  # the progress bar speaks the course's language
        unit="step",
        dynamic_ncols=True,
        mininterval=progress_interval(),  # in a log, every 30 s rather than ten times a second
    )
    try:
        while run.step < end and not stopped:
            _, batch = next(batches)
            stats = step(objective_batch(batch, config))  # BERT's batch unless an ablation says otherwise
            stopped = run.ctx.any_process(flag.stop)  # a signal reaches the processes at different moments
            run.step += 1
            bar.update(1)
            run.log(stats, eval_items, bar)
            if config.checkpoint_every and run.step % config.checkpoint_every == 0 and run.step < end:
                if not stopped:  # a stop saves after the loop
                    run.save()
    finally:
        bar.close()
    return stopped


def _checkpoint_to_resume(output_dir: Path, corpus: str, corpus_sha256: str):
    """The checkpoint in ``output_dir`` (whose settings :func:`~bertedu.training.checkpoint.prepare_output` checked),
    if the corpus is the one it was trained on (else ``ValueError``)."""
    checkpoint = load_checkpoint(output_dir)
    if checkpoint.corpus_sha256 not in (None, corpus_sha256):
        raise ValueError(
            f"The corpus {corpus} changed since {output_dir} was saved; resuming would "
            "not reproduce the run. Start a new run."
        )
    return checkpoint


def _start(ctx, config, output_dir, corpus, corpus_sha256, checkpoint) -> _Training:
    """A new run (initial weights from ``config.seed``), or the one ``checkpoint`` saved, restored exactly
    (weights, optimizer, schedule, every random generator, history, log window)."""
    if checkpoint is not None:
        tokenizer = checkpoint.tokenizer
    elif isinstance(corpus, ShardedCorpus):
        tokenizer = corpus.tokenizer  # the shards hold token ids of their vocabulary
    else:
        tokenizer = train_tokenizer(corpus, config.vocab_size)
    torch.manual_seed(config.seed)  # the initial weights depend on the seed only
    bert_config = model_config(config, tokenizer.vocab_size)
    model = BertForPreTraining(bert_config.replace(attn_implementation=config.attn_implementation))
    optimizer, scheduler = recipe_optimizer(
        model, config
    )  # every parameter: the same layout in each checkpoint
    for part in untrained_parts(
        model, config
    ):  # a frozen part gets no gradient: AdamW and DDP leave it alone
        part.requires_grad_(False)
    trainer = ctx.wrap(model)  # DDP if several processes
    run = _Training(ctx, config, output_dir, model, trainer, tokenizer, optimizer, scheduler, corpus_sha256)
    if checkpoint is not None:
        model.load_state_dict(checkpoint.model.state_dict())
        optimizer.load_state_dict(checkpoint.training_state["optimizer"])
        scheduler.load_state_dict(checkpoint.training_state["scheduler"])
        set_rng_state(checkpoint.training_state["rng"])
        run.history, run.step = list(checkpoint.history), checkpoint.step
        run.window = _Window.from_state(checkpoint.log_window)
    ctx.seed_process_rng(config.seed, run.step, checkpoint and checkpoint.training_state.get("process_rng"))
    return run
