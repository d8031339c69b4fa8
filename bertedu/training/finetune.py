"""Fine-tuning: one training loop for the three task heads, prediction, span decoding, evaluation.

One pretrained encoder serves many tasks; only a small head changes (Devlin et al. 2019, Section 3.2)::

    task                      model (bertedu.core.model)            head input -> output          loss
    sequence_classification   BertForSequenceClassification    pooled [CLS] C -> K scores    CE(softmax(C·Wᵀ))
    token_classification      BertForTokenClassification       every T_i -> K scores         mean CE over words
    span_extraction           BertForQuestionAnswering         every T_i -> start, end       CE(start) + CE(end)

The pipeline (notebook 07; the data side is :mod:`bertedu.training.finetune_data`)::

    data = load_task_data("sentence_classification")                 # {"train": [...], "dev": [...], "test": [...]}
    train = make_dataset("sentence_classification", data["train"], tokenizer)
    model = build_task_model("sentence_classification", pretrained, num_labels=train.num_labels)
    result = fine_tune(model, train, dev, config=FineTuneConfig())     # AdamW, warm-up, early stopping on dev
    evaluate(result.model, test)                                      # {"loss", "accuracy", "macro_f1"}

Determinism. ``fine_tune`` seeds its own random-number generator (dropout and batch order) from
``config.seed`` inside ``torch.random.fork_rng``, and :func:`build_task_model` seeds the fresh head the
same way, so the same call gives the same weights on the same machine and the notebook's global random
state is left untouched.

Introduced in notebook 07.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from tqdm.auto import tqdm

from bertedu.core import serialization
from bertedu.core.config import BertConfig
from bertedu.core.losses import IGNORE_INDEX
from bertedu.core.model import (
    BertForQuestionAnswering,
    BertForSequenceClassification,
    BertForTokenClassification,
    BertPreTrainedModel,
)
from bertedu.core.tokenizer import BertTokenizer
from bertedu.core.validation import require_int, require_number
from bertedu.files import atomic_write_json, write_directory_atomically
from bertedu.language import msg
from bertedu.training.finetune_data import (
    SEQUENCE_CLASSIFICATION,
    SPAN_EXTRACTION,
    TOKEN_CLASSIFICATION,
    TaskDataset,
    task_shape,
)
from bertedu.training.metrics import accuracy, macro_f1, squad_scores, token_accuracy
from bertedu.training.optim import make_optimizer, optimizer_step, warn_if_fine_tuning_diverged
from bertedu.utils import cpu_threads, progress_interval

logger = logging.getLogger(__name__)

TASK_MODELS: dict[str, type[BertPreTrainedModel]] = {
    SEQUENCE_CLASSIFICATION: BertForSequenceClassification,
    TOKEN_CLASSIFICATION: BertForTokenClassification,
    SPAN_EXTRACTION: BertForQuestionAnswering,
}
#: The dev metric that picks the best epoch (higher is better; ties go to the lower dev loss).
MAIN_METRIC = {
    SEQUENCE_CLASSIFICATION: "accuracy",
    TOKEN_CLASSIFICATION: "token_accuracy",
    SPAN_EXTRACTION: "f1",
}
#: The paper's fine-tuning grid (Appendix A.3): batch 16 or 32, Adam lr 5e-5 / 3e-5 / 2e-5, 2-4 epochs.
PAPER_BATCH_SIZES = (16, 32)
PAPER_LEARNING_RATES = (5e-5, 3e-5, 2e-5)
PAPER_EPOCHS = (2, 3, 4)
STATE_NAME = "finetune_state.json"


# ----------------------------------------------------------------------------------------------------------
# Span decoding


def best_span(
    start_logits: torch.Tensor,
    end_logits: torch.Tensor,
    context_mask: torch.Tensor,
    max_answer_length: int = 30,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The highest-scoring valid answer span of each row: ``argmax over (i, j) of start[i] + end[j]``.

    Valid means ``i <= j``, ``j - i < max_answer_length`` and both ``i`` and ``j`` in the context
    (``context_mask`` 1). Inputs ``(B, T)`` (or ``(T,)``), returns ``(starts, ends)`` of shape ``(B,)``
    (or scalars). Taking the argmax of the start and end scores separately, as a quick demo often does,
    can return an end before the start or a "span" in the question.
    """
    squeeze = start_logits.dim() == 1
    if squeeze:
        start_logits, end_logits, context_mask = start_logits[None], end_logits[None], context_mask[None]
    if (
        start_logits.shape != end_logits.shape
        or start_logits.shape != context_mask.shape
        or start_logits.dim() != 2
    ):
        raise ValueError(
            f"start_logits {tuple(start_logits.shape)}, end_logits {tuple(end_logits.shape)} and context_mask "
            f"{tuple(context_mask.shape)} must all be (B, T)."
        )
    if not isinstance(max_answer_length, int) or max_answer_length < 1:
        raise ValueError(f"max_answer_length must be a positive integer, got {max_answer_length!r}.")
    if not (torch.isfinite(start_logits).all() and torch.isfinite(end_logits).all()):
        raise ValueError("The start/end logits contain NaN or infinite values; the model has diverged.")
    context = context_mask.bool()
    if not context.any(dim=1).all():
        raise ValueError("A row of context_mask has no context token: there is nowhere to put an answer.")
    B, T = start_logits.shape
    scores = start_logits.float()[:, :, None] + end_logits.float()[:, None, :]  # (B, T, T): start i, end j
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    allowed = (j >= i) & (j - i < max_answer_length)  # (T, T)
    allowed = allowed[None] & context[:, :, None] & context[:, None, :]  # (B, T, T)
    best = scores.masked_fill(~allowed, float("-inf")).view(B, -1).argmax(dim=1)  # (B,) flat index i * T + j
    starts, ends = best // T, best % T
    return (starts[0], ends[0]) if squeeze else (starts, ends)


def span_to_text(feature: dict, context: str, start: int, end: int) -> str:
    """The context's characters covered by tokens ``start..end`` of an encoded span example."""
    offsets = feature["offsets"]
    if not (0 <= start <= end < len(offsets)) or offsets[start] is None or offsets[end] is None:
        raise ValueError(f"Tokens {start}..{end} are not a span of the context.")
    return context[offsets[start][0] : offsets[end][1]]


# ----------------------------------------------------------------------------------------------------------
# Models


def build_task_model(
    task: str, source, *, num_labels: int = 2, seed: int = 0, quiet: bool = True, **config_overrides: Any
) -> BertPreTrainedModel:
    """The task model of ``task`` with a fresh head (seeded) on the encoder given by ``source``:

    - a :class:`BertConfig`: every weight random (the *from-scratch* control);
    - a bertedu model (e.g. notebook 06's ``BertForPreTraining``): its encoder weights are copied;
    - a Hugging Face-format directory (``config.json`` + weights), e.g. ``bertedu.core.minilm.minilm_dir()``.

    With ``quiet=True`` the expected "head starts from random initialisation" warning is not logged, but
    an encoder weight missing from ``source`` is a ``ValueError``. The model is returned in train mode.
    """
    cls = TASK_MODELS[task_shape(task)]
    if task_shape(task) == SPAN_EXTRACTION:
        num_labels = 2
    if not isinstance(num_labels, int) or num_labels < 1:
        raise ValueError(f"num_labels must be a positive integer, got {num_labels!r}.")
    state = None
    if isinstance(source, BertConfig):
        config = source
    elif isinstance(source, BertPreTrainedModel):
        config, state = source.config, source.state_dict()
    elif isinstance(source, (str, os.PathLike)):
        directory = Path(source)
        config = BertConfig.from_json_file(directory)
        state = serialization.load_weights(directory)
    else:
        raise ValueError(
            f"source must be a BertConfig, a bertedu model or a checkpoint folder, got {type(source).__name__}."
        )
    config = config.replace(num_labels=num_labels, architectures=None, **config_overrides)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = cls(config)
    if state is not None:
        model_logger = serialization.logger
        level = model_logger.level
        if quiet:
            model_logger.setLevel(logging.ERROR)
        try:
            info = model.load_hf_state_dict(state, source="the pretrained weights")
        finally:
            model_logger.setLevel(level)
        heads = ("classifier.", "qa_outputs.")
        encoder_missing = [k for k in info.missing_keys if not k.startswith(heads)]
        if encoder_missing:
            raise ValueError(
                f"The pretrained weights lack {len(encoder_missing)} encoder tensors (e.g. {encoder_missing[0]}): "
                "they are not a BERT encoder of this size."
            )
    return model.train()


# ----------------------------------------------------------------------------------------------------------
# Training


@dataclass
class FineTuneConfig:
    """The settings of a fine-tuning run; defaults are the paper's recipe (Appendix A.3).

    The learning rate used is ``learning_rate * lr_scale``: ``learning_rate`` is one of the paper's values
    (5e-5, 3e-5, 2e-5) and ``lr_scale`` the factor a small model needs (see :func:`course_recipe`).
    ``warmup_ratio`` of the planned steps warm the learning rate up linearly, then it decays linearly to 0.
    With a dev set, the model is evaluated after every epoch; the epoch with the best ``metric`` (ties: lower
    dev loss) is kept, and training stops after ``patience`` epochs without improvement (``None``: never).
    ``min_steps`` adds epochs until at least that many optimizer steps are planned (a training set of 8
    examples is one step per epoch), and early stopping never stops before them.
    Introduced in notebook 07.
    """

    learning_rate: float = 5e-5
    lr_scale: float = 1.0
    batch_size: int = 32
    epochs: int = 3
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    max_grad_norm: float = 1.0
    patience: int | None = None
    metric: str | None = None  # default: MAIN_METRIC of the task
    seed: int = 0
    max_answer_length: int = 30  # span extraction: longest answer (in tokens) decoding may return
    min_steps: int = 0  # train for at least this many optimizer steps (more epochs on a tiny training set)
    num_threads: int | None = None  # CPU threads while training (None: PyTorch's); the weights depend on it
    progress: bool = True

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first setting that cannot work."""
        require_int("min_steps", self.min_steps, 0)
        for name in ("batch_size", "epochs", "max_answer_length"):
            require_int(name, getattr(self, name), 1)
        for name in ("learning_rate", "lr_scale"):
            require_number(name, getattr(self, name), 0, low_inclusive=False)
        if not 0 < self.lr < 1:
            raise ValueError(f"learning_rate * lr_scale = {self.lr!r} must be between 0 and 1.")
        require_number("warmup_ratio", self.warmup_ratio, 0, 1, high_inclusive=False)
        require_number("weight_decay", self.weight_decay)
        require_number("max_grad_norm (0 turns clipping off)", self.max_grad_norm)
        require_int("patience (None: no early stopping)", self.patience, 1, none_ok=True)
        require_int("seed", self.seed, 0)
        require_int("num_threads (None: PyTorch's setting)", self.num_threads, 1, none_ok=True)

    @property
    def lr(self) -> float:
        """The peak learning rate actually used: ``learning_rate * lr_scale``."""
        return self.learning_rate * self.lr_scale

    def replace(self, **changes: Any) -> FineTuneConfig:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class FineTuneResult:
    """What :func:`fine_tune` returns: the model (best dev epoch restored, eval mode), the history records
    (``{"step", "epoch", "split": "train"|"eval", "loss", metrics..., "lr"}``), the best epoch and its dev
    metrics, whether training stopped early, and the wall-clock seconds. Introduced in notebook 07."""

    model: BertPreTrainedModel
    history: list[dict]
    best_epoch: int | None
    best_metrics: dict[str, float]
    epochs_run: int
    stopped_early: bool
    steps: int
    train_seconds: float = field(default=0.0, compare=False)


def _check_model_fits(model: BertPreTrainedModel, dataset: TaskDataset) -> None:
    expected = TASK_MODELS[task_shape(dataset.task)]
    if not isinstance(model, expected):
        raise ValueError(f"A {dataset.task} dataset needs a {expected.__name__}, got {type(model).__name__}.")
    if task_shape(dataset.task) != SPAN_EXTRACTION and model.config.num_labels != dataset.num_labels:
        raise ValueError(
            f"The model has {model.config.num_labels} output classes but the dataset {dataset.num_labels} labels "
            f"{list(dataset.labels.names)}; build the model with num_labels={dataset.num_labels}."
        )
    vocab = model.config.vocab_size
    if dataset.tokenizer.vocab_size > vocab:
        raise ValueError(
            f"The tokenizer has {dataset.tokenizer.vocab_size} tokens but the model only {vocab} embeddings: use the "
            "tokenizer the encoder was pretrained with."
        )
    longest = max(len(f["input_ids"]) for f in dataset.features)
    if longest > model.config.max_position_embeddings:
        raise ValueError(
            f"Sequences of {longest} tokens exceed the model's max_position_embeddings="
            f"{model.config.max_position_embeddings}; lower max_length."
        )


@torch.no_grad()
def predict(
    model: BertPreTrainedModel, dataset: TaskDataset, *, batch_size: int = 64, max_answer_length: int = 30
) -> list:
    """The model's predictions for every item of ``dataset`` (eval mode, no dropout):

    - sequence classification: label ids;
    - token classification: a list of tag ids per sentence, one per word;
    - span extraction: ``(start, end, answer_text)`` per example, from :func:`best_span`.
    """
    _check_model_fits(model, dataset)
    was_training = model.training
    model.eval()
    out: list = []
    try:
        for idx, batch in dataset.batches(batch_size):
            inputs = {k: batch[k] for k in ("input_ids", "attention_mask", "token_type_ids")}
            out.extend(_decode_batch(model(**inputs), dataset, idx, batch, max_answer_length))
    finally:
        model.train(was_training)
    return out


def _decode_batch(result, dataset: TaskDataset, idx, batch: dict, max_answer_length: int) -> list:
    """The predictions of :func:`predict` for one batch, from the model's output on it."""
    out: list = []
    if task_shape(dataset.task) == SEQUENCE_CLASSIFICATION:
        out.extend(result.logits.argmax(-1).tolist())
    elif task_shape(dataset.task) == TOKEN_CLASSIFICATION:
        preds = result.logits.argmax(-1)  # (B, T)
        for row, i in enumerate(idx):
            first = [t for t, w in enumerate(dataset.features[i]["word_index"]) if w >= 0]
            out.append(preds[row, first].tolist())
    else:
        T = batch["input_ids"].shape[1]
        mask = torch.tensor(
            [
                dataset.features[i]["context_mask"] + [0] * (T - len(dataset.features[i]["context_mask"]))
                for i in idx
            ],
            dtype=torch.bool,
        )
        starts, ends = best_span(result.start_logits, result.end_logits, mask, max_answer_length)
        for row, i in enumerate(idx):
            s, e = int(starts[row]), int(ends[row])
            out.append((s, e, span_to_text(dataset.features[i], dataset.examples[i].context, s, e)))
    return out


@torch.no_grad()
def evaluate(
    model: BertPreTrainedModel, dataset: TaskDataset, *, batch_size: int = 64, max_answer_length: int = 30
) -> dict[str, float]:
    """Loss and metrics of ``model`` on ``dataset`` (eval mode). Returns a dict of floats:

    - sequence classification: ``loss``, ``accuracy``, ``macro_f1``;
    - token classification: ``loss``, ``token_accuracy`` (one vote per word), ``macro_f1`` (over words);
    - span extraction: ``loss``, ``exact_match``, ``f1`` (SQuAD-style, :mod:`bertedu.training.metrics`).
    """
    _check_model_fits(model, dataset)
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    preds: list = []
    try:
        for idx, batch in dataset.batches(batch_size):  # one pass: the loss and the predictions
            result = model(**batch)
            total += result.loss.item() * len(idx)
            count += len(idx)
            preds.extend(_decode_batch(result, dataset, idx, batch, max_answer_length))
    finally:
        model.train(was_training)
    metrics = {"loss": total / count}
    if task_shape(dataset.task) == SEQUENCE_CLASSIFICATION:
        golds = [f["labels"] for f in dataset.features]
        metrics.update(accuracy=accuracy(preds, golds), macro_f1=macro_f1(preds, golds))
    elif task_shape(dataset.task) == TOKEN_CLASSIFICATION:
        flat_pred = [p for row in preds for p in row]
        flat_gold = [lab for f in dataset.features for lab in f["labels"] if lab != IGNORE_INDEX]
        metrics.update(
            token_accuracy=token_accuracy(flat_pred, flat_gold), macro_f1=macro_f1(flat_pred, flat_gold)
        )
    else:
        metrics.update(squad_scores([p[2] for p in preds], [ex.gold_answers for ex in dataset.examples]))
    return metrics


def save_finetuned(
    directory: str | os.PathLike, model: BertPreTrainedModel, tokenizer=None, state: dict | None = None
) -> Path:
    """Write an HF-format model folder (``config.json``, ``model.safetensors``, ``vocab.txt``) plus
    ``finetune_state.json`` atomically: into a temporary folder next to ``directory``, then swapped into
    place, so a crash at any moment leaves the previous or the new complete folder
    (:func:`bertedu.files.write_directory_atomically`). Raises :class:`bertedu.files.SaveError` naming the
    cause (disk full, no permission, ...) if it cannot be written."""

    def fill(tmp: Path) -> None:
        model.save_pretrained(tmp, tokenizer)
        if state is not None:
            atomic_write_json(tmp / STATE_NAME, state)

    return write_directory_atomically(directory, fill, is_complete=_is_finetuned, what="the fine-tuned model")


def _is_finetuned(directory: Path) -> bool:
    """True if ``directory`` holds a complete folder written by :func:`save_finetuned`."""
    names = (serialization.CONFIG_NAME, serialization.WEIGHTS_NAME)
    return directory.is_dir() and all((directory / name).is_file() for name in names)


def _is_better(metrics: dict, best: dict | None, key: str) -> bool:
    if best is None:
        return True
    return (metrics[key], -metrics["loss"]) > (best[key], -best["loss"])


def fine_tune(
    model: BertPreTrainedModel,
    train: TaskDataset,
    dev: TaskDataset | None = None,
    *,
    config: FineTuneConfig | None = None,
    output_dir: str | os.PathLike | None = None,
    callback: Callable[[dict], None] | None = None,
) -> FineTuneResult:
    """Fine-tune every parameter of ``model`` on ``train``; keep the best epoch on ``dev``.

    Each step: a shuffled batch, ``loss = model(**batch).loss``, backward, gradient clipping to
    ``max_grad_norm``, AdamW step, learning-rate schedule step. After every epoch (with ``dev``): evaluate,
    keep a copy of the weights if the main metric improved, save them to ``output_dir`` (HF format, atomic)
    if given, and stop after ``patience`` epochs without improvement. At the end the best weights are put
    back. Without ``dev`` the last epoch's weights are kept (and saved). ``callback(record)`` sees every
    history record. Deterministic for a given ``config.seed``. Raises ``TrainingDivergedError`` (before the
    weights change) if the loss or the gradient norm stops being finite.
    """
    config = FineTuneConfig() if config is None else config
    _check_fine_tune_arguments(model, train, dev, config)
    steps_per_epoch = math.ceil(len(train) / config.batch_size)
    epochs = max(config.epochs, math.ceil(config.min_steps / steps_per_epoch))  # tiny sets: more epochs
    total_steps = steps_per_epoch * epochs
    run = _FineTuning(model, train, dev, config, output_dir, callback)
    began = time.perf_counter()
    with torch.random.fork_rng(devices=[]), cpu_threads(config.num_threads):
        torch.manual_seed(config.seed)
        generator = torch.Generator().manual_seed(config.seed)
        optimizer, scheduler = make_optimizer(
            model,
            lr=config.lr,
            weight_decay=config.weight_decay,
            warmup_steps=round(config.warmup_ratio * total_steps),
            total_steps=total_steps,
        )
        bar = tqdm(
            total=total_steps,
            desc=msg("fine-tuning ({task})", task=train.task),
            disable=not config.progress,
            leave=False,
            unit="step",
            mininterval=progress_interval(),  # in a log, every 30 s rather than ten times a second
        )
        try:
            for epoch in range(1, epochs + 1):
                run.epoch = epoch
                run.train_epoch(optimizer, scheduler, generator, bar)
                if dev is not None and run.evaluate_epoch():  # no improvement for `patience` epochs
                    run.stopped_early = epoch < epochs
                    break
        finally:
            bar.close()
    warn_if_fine_tuning_diverged(
        run.history,
        run.first_loss,
        learning_rate=config.lr,
        warmup_ratio=config.warmup_ratio,
        max_grad_norm=config.max_grad_norm,
        best_epoch=run.best_epoch,
    )
    return run.result(time.perf_counter() - began)


def _check_fine_tune_arguments(
    model: BertPreTrainedModel, train: TaskDataset, dev: TaskDataset | None, config: FineTuneConfig
) -> None:
    """Raise ``ValueError`` if :func:`fine_tune` cannot train ``model`` on ``train`` and ``dev`` as ``config`` says."""
    if not isinstance(config, FineTuneConfig):
        raise ValueError(f"config must be a FineTuneConfig, got {type(config).__name__}.")
    if not isinstance(train, TaskDataset):
        raise ValueError(f"train must be a TaskDataset (see make_dataset), got {type(train).__name__}.")
    _check_model_fits(model, train)
    if dev is not None:
        if not isinstance(dev, TaskDataset) or dev.task != train.task:
            raise ValueError("dev must be a TaskDataset of the same task as train.")
        if dev.labels != train.labels:
            raise ValueError("dev uses other label ids than train; build it with labels=train.labels.")


@dataclass
class _FineTuning:
    """A fine-tuning run in progress: the history, the steps and epochs done, and the best dev epoch so far
    (its metrics and a copy of its weights)."""

    model: BertPreTrainedModel
    train: TaskDataset
    dev: TaskDataset | None
    config: FineTuneConfig
    output_dir: str | os.PathLike | None
    callback: Callable[[dict], None] | None
    history: list[dict] = field(default_factory=list)
    step: int = 0
    epoch: int = 0
    first_loss: float | None = None  # the loss before any update
    best_metrics: dict | None = None
    best_state: dict | None = None
    best_epoch: int | None = None
    stale: int = 0  # epochs since the dev metric last improved
    stopped_early: bool = False

    def log(self, record: dict) -> None:
        self.history.append(record)
        if self.callback is not None:
            self.callback(record)

    def train_epoch(self, optimizer, scheduler, generator: torch.Generator, bar) -> None:
        """One pass over the shuffled training set, one optimizer step per batch; logs the mean loss."""
        model, config = self.model, self.config
        params = [p for p in model.parameters() if p.requires_grad]
        model.train()
        loss_sum, seen = 0.0, 0
        for idx, batch in self.train.batches(config.batch_size, shuffle=True, generator=generator):
            loss = model(**batch).loss
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            # the step both loops end with: stop if the loss or the gradient norm is not finite, clip, AdamW, schedule
            optimizer_step(optimizer, scheduler, params, config.max_grad_norm, loss.item(), self._diverged)
            self.step += 1
            if self.step == 1:
                self.first_loss = loss.item()  # the loss before any update
            loss_sum += loss.item() * len(idx)
            seen += len(idx)
            bar.update(1)
            bar.set_postfix(loss=f"{loss.item():.3f}", refresh=False)
        lr = optimizer.param_groups[0]["lr"]
        self.log(
            {"step": self.step, "epoch": self.epoch, "split": "train", "loss": loss_sum / seen, "lr": lr}
        )

    def _diverged(self, what: str, value: float) -> str:
        return f"The {what} became {value} at step {self.step + 1}; lower the learning rate (now {self.config.lr:g})."

    def evaluate_epoch(self) -> bool:
        """Evaluate on dev; keep (and save) the weights if the main metric improved. Returns whether training
        should stop: ``patience`` epochs without improvement, and at least ``min_steps`` steps done."""
        config, metric = self.config, self.config.metric or MAIN_METRIC[task_shape(self.train.task)]
        scores = evaluate(self.model, self.dev, max_answer_length=config.max_answer_length)
        if metric not in scores:
            raise ValueError(
                f"metric {metric!r} is not computed for {self.train.task}; choose one of {sorted(scores)}."
            )
        self.log({"step": self.step, "epoch": self.epoch, "split": "eval", **scores})
        if _is_better(scores, self.best_metrics, metric):
            self.best_metrics, self.best_epoch, self.stale = scores, self.epoch, 0
            self.best_state = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
            if self.output_dir is not None:
                save_finetuned(self.output_dir, self.model, self.train.tokenizer, self._state(scores))
            return False
        self.stale += 1
        return config.patience is not None and self.stale >= config.patience and self.step >= config.min_steps

    def _state(self, dev_metrics: dict) -> dict:
        return _state(self.train, self.config, self.epoch, dev_metrics)

    def result(self, seconds: float) -> FineTuneResult:
        """Put the best dev epoch's weights back (without dev: save the last epoch's), in eval mode."""
        if self.best_state is not None:
            self.model.load_state_dict(self.best_state)
        elif self.output_dir is not None:
            save_finetuned(self.output_dir, self.model, self.train.tokenizer, self._state({}))
        self.model.eval()
        return FineTuneResult(
            model=self.model,
            history=self.history,
            best_epoch=self.best_epoch,
            best_metrics=self.best_metrics or {},
            epochs_run=self.epoch,
            stopped_early=self.stopped_early,
            steps=self.step,
            train_seconds=seconds,
        )


def _state(train: TaskDataset, config: FineTuneConfig, epoch: int, dev_metrics: dict) -> dict:
    return {
        "task": train.task,
        "labels": list(train.labels.names) if train.labels is not None else None,
        "epoch": epoch,
        "dev_metrics": dev_metrics,
        "config": config.to_dict(),
        "max_length": train.max_length,
    }


def load_finetuned(directory: str | os.PathLike):
    """Load a folder written by :func:`fine_tune`: ``(model, tokenizer, state)``."""

    directory = Path(directory)
    state_file = directory / STATE_NAME
    if not state_file.is_file():
        raise FileNotFoundError(
            f"{directory} holds no {STATE_NAME}: it was not written by bertedu.training.finetune.fine_tune."
        )
    state = json.loads(state_file.read_text(encoding="utf-8"))
    model = TASK_MODELS[task_shape(state["task"])].from_pretrained(directory)
    return model, BertTokenizer.from_file(directory), state
