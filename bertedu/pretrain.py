"""Pretraining BERT with MLM + NSP: the training loop, checkpoints, resuming, the course model, the CLI.

The loop (notebook 06) is the paper's recipe in miniature::

    for step, batch in bucketed_batches(...):        # [CLS] A [SEP] B [SEP], masked, NSP label
        loss = model(**batch).loss                    # L = L_MLM + L_NSP
        loss.backward()
        clip_grad_norm_(params, 1.0)                  # gradient clipping
        optimizer.step(); scheduler.step()            # AdamW; lr: linear warm-up, then linear decay to 0

Everything a run needs is in a :class:`PretrainingConfig`; :func:`pretrain` runs it and returns a
:class:`PretrainingRun` (model, tokenizer, history, held-out metrics). The history is a list of records
``{"step": 100, "split": "train", "loss": ..., "mlm_loss": ..., "nsp_loss": ..., "mlm_accuracy": ...,
"nsp_accuracy": ..., "lr": ...}`` plus ``"split": "eval"`` records with the held-out accuracies: the
format ``bertedu.viz.plot_loss_curves`` draws.

Checkpoints. A checkpoint directory is a Hugging Face model folder (``config.json``,
``model.safetensors``, ``vocab.txt``, ``tokenizer_config.json``: ``transformers.BertForPreTraining`` and
``transformers.BertTokenizer`` load it directly) plus what resuming needs: ``training_state.pt``
(optimizer, scheduler, step, random-number-generator states; tensors and plain containers only, read with
``torch.load(weights_only=True)``) and ``trainer_state.json`` (run config, history, metrics). It is
written into a temporary folder next to the target and renamed into place, so a crash never leaves a half
checkpoint. Resuming restores all of it, and because every batch is a pure function of ``(seed, step)``
(as in ``bertedu.data``), an interrupted and resumed run ends with bit-for-bit the same weights as an
uninterrupted one (on the same machine). Ctrl-C during training finishes the current step, saves a
checkpoint and stops.

Speed. Training uses the model's fast paths (MLM logits only at the masked positions, and the fused
attention kernel when ``attn_implementation="sdpa"``) and batches of similar lengths (less padding,
:func:`bucketed_batches`); the model returned and saved uses the explicit attention of notebook 01 (the
teaching default). Both compute the same function.

The course model. :func:`course_config` is notebook 06's recipe; :func:`load_course_model` gives notebooks
07 and 08 that model, from ``runs/mini-bert/`` if it is there, else by retraining it with the same recipe
(deterministic, so the result is the same); :func:`evaluate_course_model` returns its held-out scores.

Command line::

    python -m bertedu.pretrain --corpus data/simple_sentences.txt --output runs/mini
    python -m bertedu.pretrain --output runs/mini --resume       # continue an interrupted run
    python -m bertedu.pretrain --help                            # every option

Introduced in notebook 06.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import json
import logging
import math
import os
import random
import shutil
import signal
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from bertedu.config import PRESETS, BertConfig
from bertedu.data import PretrainingCollator, PretrainingDataset, read_corpus, stable_seed
from bertedu.evaluation import evaluate_pretraining, load_masked_word_items, load_nsp_items
from bertedu.losses import IGNORE_INDEX
from bertedu.model import CONFIG_NAME, WEIGHTS_NAME, BertForPreTraining
from bertedu.tokenizer import VOCAB_FILE_NAME, BertTokenizer, train_wordpiece
from bertedu.utils import atomic_write_json, repo_root

logger = logging.getLogger(__name__)

#: Model sizes by name (L layers / H hidden / A heads, feed-forward 4H): the paper's and Turc et al.'s
#: (``bertedu.config.PRESETS``). The course model is "tiny" (2/128/2): small enough to learn the course
#: corpus in well under a minute on a laptop CPU.
MODEL_SIZES: dict[str, dict[str, int]] = dict(PRESETS)

TRAINING_STATE_NAME = "training_state.pt"
TRAINER_STATE_NAME = "trainer_state.json"
CHECKPOINT_FORMAT = 1
#: Where notebook 06 saves the course model and notebooks 07 and 08 look for it (relative to the repo root).
COURSE_CHECKPOINT = Path("runs") / "mini-bert"


class TrainingDivergedError(FloatingPointError):
    """The loss or the gradients became NaN or infinite; training stopped. Introduced in notebook 06."""


# ----------------------------------------------------------------------------------------------------------
# The run's settings


@dataclass
class PretrainingConfig:
    """Every setting of a pretraining run (the model's size, the data, the optimizer, evaluation).

    Paths (``corpus``, ``mlm_eval_file``, ``nsp_eval_file``) may be relative: they are looked up from the
    working directory first, then from the repository root (so ``"data/simple_sentences.txt"`` works from
    ``notebooks/`` too). Introduced in notebook 06.
    """

    corpus: str = "data/simple_sentences.txt"  # one sentence per line, blank line between documents
    model_size: str = "tiny"  # a size of MODEL_SIZES: tiny (2/128/2) mini small medium base large
    vocab_size: int | None = None  # None: a WordPiece vocabulary that keeps every corpus word whole
    max_length: int = 64  # tokens per [CLS] A [SEP] B [SEP] example (and position embeddings)
    max_sentences: int = 2  # sentences per segment A / B (at most)
    mlm_probability: float = (
        0.15  # share of tokens selected for MLM (then 80 % [MASK] / 10 % random / 10 % kept)
    )
    dropout: float = 0.1  # hidden and attention dropout
    steps: int = 1000  # optimizer steps (batches)
    batch_size: int = 32
    learning_rate: float = 1e-3  # peak learning rate, reached after the warm-up
    warmup_steps: int = 100  # linear warm-up from 0, then linear decay to 0 at `steps`
    weight_decay: float = 0.01  # AdamW's decoupled decay (not on biases and LayerNorm weights)
    max_grad_norm: float = 1.0  # gradient clipping (global L2 norm); 0 turns clipping off
    seed: int = 0  # initialisation, dropout, NSP pairs, masks and batch order
    attn_implementation: str = "sdpa"  # attention used while training: "sdpa" (fused) or "eager" (explicit)
    num_threads: int | None = (
        None  # CPU threads while training (None: PyTorch's setting); results depend on it
    )
    bucket_batches: int = 8  # sort each run of this many batches by length (less padding); 1 = off
    log_every: int = 10  # one history record per this many steps (means over them)
    eval_every: int = 100  # held-out evaluation every this many steps (0: only at the end)
    checkpoint_every: int = 0  # also save a checkpoint every this many steps (0: only at the end)
    mlm_eval_file: str | None = None  # held-out masked words (data/mlm_eval.tsv); None: no MLM evaluation
    nsp_eval_file: str | None = None  # held-out NSP pairs (data/nsp_eval.tsv); None: no NSP evaluation

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first setting that cannot work."""
        positive = ("steps", "batch_size", "max_sentences", "log_every", "bucket_batches")
        non_negative = ("warmup_steps", "seed", "eval_every", "checkpoint_every")
        for name in positive + non_negative:
            value = getattr(self, name)
            low = 1 if name in positive else 0
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}.")
        if self.model_size not in MODEL_SIZES:
            raise ValueError(f"model_size must be one of {list(MODEL_SIZES)}, got {self.model_size!r}.")
        if self.vocab_size is not None and (not isinstance(self.vocab_size, int) or self.vocab_size < 1):
            raise ValueError(
                f"vocab_size must be None (keep every word whole) or a positive int, got {self.vocab_size!r}."
            )
        if not isinstance(self.max_length, int) or self.max_length < 5:
            raise ValueError(
                f"max_length must be an int >= 5 ([CLS] A [SEP] B [SEP]), got {self.max_length!r}."
            )
        if not isinstance(self.learning_rate, (int, float)) or not 0 < self.learning_rate < 1:
            raise ValueError(
                f"learning_rate must be a number between 0 and 1 (e.g. 1e-3), got {self.learning_rate!r}."
            )
        for name in ("weight_decay", "max_grad_norm"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a non-negative number, got {value!r}.")
        for name in ("mlm_probability", "dropout"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0 <= value < 1:
                raise ValueError(f"{name} must be in [0, 1), got {value!r}.")
        if self.mlm_probability == 0:
            raise ValueError("mlm_probability must be > 0: with nothing masked there is no MLM task.")
        if self.num_threads is not None and (not isinstance(self.num_threads, int) or self.num_threads < 1):
            raise ValueError(f"num_threads must be None or a positive int, got {self.num_threads!r}.")
        if self.attn_implementation not in ("eager", "sdpa"):
            raise ValueError(
                f'attn_implementation must be "eager" or "sdpa", got {self.attn_implementation!r}.'
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


def course_config(**overrides: Any) -> PretrainingConfig:
    """Notebook 06's recipe for the course mini-BERT (BERT-Tiny's shape: 2 layers, H = 128, 2 heads) on
    ``data/simple_sentences.txt``,
    evaluated on ``data/mlm_eval.tsv`` and ``data/nsp_eval.tsv``. ``overrides`` change single settings.

    Where it departs from the paper's settings (``PretrainingConfig``'s defaults), a 40-second budget is the
    reason: 30 % of the tokens are selected for MLM instead of 15 % (twice the prediction targets per
    batch), dropout is off (the risk in 1,000 steps is learning too little, not overfitting), and the
    learning rate is 3e-3 instead of 1e-4 (a tiny model tolerates, and needs, bigger steps). Two CPU threads
    are fixed because floating-point sums depend on how work is split between threads: the same recipe
    then gives the same weights on a given machine whatever thread setting the caller has. (The threads
    wait for each other hundreds of times per step: on a two-core machine that is busy with other work,
    training becomes many times slower.)
    Introduced in notebook 06.
    """
    recipe = PretrainingConfig(
        corpus="data/simple_sentences.txt",
        model_size="tiny",
        max_length=64,
        max_sentences=2,
        mlm_probability=0.3,
        dropout=0.0,
        steps=1000,
        batch_size=64,
        learning_rate=3e-3,
        warmup_steps=100,
        eval_every=100,
        num_threads=2,
        mlm_eval_file="data/mlm_eval.tsv",
        nsp_eval_file="data/nsp_eval.tsv",
    )
    return recipe.replace(**overrides)


def resolve_path(path: str | os.PathLike) -> Path:
    """``path`` if it exists as given (absolute, or relative to the working directory); else the same
    relative path under the repository root if it exists there; else ``path`` unchanged."""
    path = Path(path)
    if path.exists() or path.is_absolute():
        return path
    with contextlib.suppress(FileNotFoundError):
        candidate = repo_root() / path
        if candidate.exists():
            return candidate
    return path


def file_sha256(path: str | os.PathLike) -> str:
    """Hex SHA-256 of a file's bytes (to tell whether a checkpoint was trained on today's corpus)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# ----------------------------------------------------------------------------------------------------------
# Vocabulary and model


def course_tokenizer(documents: list[list[str]], vocab_size: int | None = None) -> BertTokenizer:
    """A WordPiece tokenizer trained on ``documents`` (``read_corpus``'s result).

    ``vocab_size=None`` keeps merging until every word of the corpus is one token (``score="frequency"``,
    so frequent words become whole first), which makes "predict the masked word" a single-token choice.
    Introduced in notebook 06.
    """
    with warnings.catch_warnings():
        # With vocab_size=None we ask for more tokens than the corpus supports on purpose.
        warnings.filterwarnings("ignore", message="train_wordpiece: the corpus supports only")
        tokens = train_wordpiece(documents, vocab_size or 10**6, score="frequency")
    return BertTokenizer(tokens)


def model_config(config: PretrainingConfig, vocab_size: int) -> BertConfig:
    """The ``BertConfig`` a run trains (explicit attention, the teaching default). Introduced in notebook 06."""
    return BertConfig(
        vocab_size=vocab_size,
        max_position_embeddings=config.max_length,
        hidden_dropout_prob=config.dropout,
        attention_probs_dropout_prob=config.dropout,
        **MODEL_SIZES[config.model_size],
    )


def linear_schedule(warmup_steps: int, total_steps: int):
    """The learning-rate factor of step ``s``: ``(s + 1) / warmup`` while warming up, then a straight line
    down to 0 at ``total_steps``. For ``torch.optim.lr_scheduler.LambdaLR``. Introduced in notebook 06.

    (The ``+ 1`` makes the very first step use a small non-zero learning rate instead of wasting a batch.)
    """
    warmup_steps = min(warmup_steps, total_steps)

    def factor(step: int) -> float:
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        return max(0.0, (total_steps - step) / max(1, total_steps - warmup_steps))

    return factor


def make_optimizer(model: torch.nn.Module, config: PretrainingConfig):
    """AdamW (β = 0.9, 0.999; ε = 1e-6 as BERT) with weight decay on weight matrices only, and the linear
    warm-up/decay schedule. Returns ``(optimizer, scheduler)``. Introduced in notebook 06."""
    decay, no_decay = [], []
    for name, param in model.named_parameters():  # a tied Parameter appears once
        if not param.requires_grad:
            continue
        (no_decay if param.dim() < 2 or "LayerNorm" in name else decay).append(param)
    groups = [
        {"params": decay, "weight_decay": config.weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=config.learning_rate, betas=(0.9, 0.999), eps=1e-6)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, linear_schedule(config.warmup_steps, config.steps)
    )
    return optimizer, scheduler


# ----------------------------------------------------------------------------------------------------------
# Batches of similar length


def bucketed_batches(
    dataset: PretrainingDataset,
    collator: PretrainingCollator,
    batch_size: int,
    *,
    start_step: int = 0,
    bucket_batches: int = 8,
) -> Iterator[tuple[int, dict]]:
    """Endless ``(step, batch)`` stream like :func:`bertedu.data.pretraining_batches`, with less padding.

    Each epoch's examples are shuffled; every run of ``bucket_batches`` batches' worth of examples is then
    sorted by length and cut into batches, whose order inside the run is shuffled again. A batch is padded
    to its longest example, so grouping similar lengths saves most of the padding (about a third of the
    compute on the course corpus). Batch ``step`` is still a pure function of ``(dataset.seed, step)``, so
    ``start_step`` resumes exactly. ``bucket_batches=1`` gives plain shuffled batches. Introduced in notebook 06.
    """
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}.")
    if not isinstance(bucket_batches, int) or bucket_batches < 1:
        raise ValueError(f"bucket_batches must be a positive int, got {bucket_batches!r}.")
    n = len(dataset)
    per_epoch = -(-n // batch_size)
    group = bucket_batches * batch_size  # examples per bucket
    step = start_step
    while True:
        epoch, first = divmod(step, per_epoch)
        dataset.set_epoch(epoch)
        order = torch.randperm(
            n, generator=torch.Generator().manual_seed(stable_seed(dataset.seed, epoch, "bucket"))
        )
        for start in range(first // bucket_batches * group, n, group):
            g = start // group  # the bucket's number inside the epoch
            members = order[start : start + group].tolist()
            examples = {i: dataset[i] for i in members}
            members.sort(key=lambda i: len(examples[i]["input_ids"]))  # stable: ties keep the shuffled order
            batches = [members[k : k + batch_size] for k in range(0, len(members), batch_size)]
            shuffle = torch.Generator().manual_seed(stable_seed(dataset.seed, epoch, g, "bucket-order"))
            batches = [batches[k] for k in torch.randperm(len(batches), generator=shuffle).tolist()]
            offset = start // batch_size  # index (within the epoch) of this bucket's first batch
            for k, indices in enumerate(batches):
                if offset + k < first:
                    continue  # before start_step (resuming)
                yield step, collator([examples[i] for i in indices])
                step += 1


# ----------------------------------------------------------------------------------------------------------
# Random-number-generator state (for bit-exact resuming)


def get_rng_state() -> dict[str, Any]:
    """The global torch, Python and NumPy RNG states, as tensors and plain containers (weights_only-safe)."""
    kind, keys, pos, has_gauss, cached = np.random.get_state(legacy=True)
    return {
        "torch": torch.get_rng_state(),
        "python": random.getstate(),
        "numpy": {
            "kind": kind,
            "keys": torch.from_numpy(keys.astype(np.int64)),
            "pos": int(pos),
            "has_gauss": int(has_gauss),
            "cached_gaussian": float(cached),
        },
    }


def set_rng_state(state: dict[str, Any]) -> None:
    """Restore what :func:`get_rng_state` returned."""
    torch.set_rng_state(state["torch"])
    python = state["python"]
    random.setstate((python[0], tuple(python[1]), python[2]))
    n = state["numpy"]
    np.random.set_state(
        (n["kind"], n["keys"].numpy().astype(np.uint32), n["pos"], n["has_gauss"], n["cached_gaussian"])
    )


# ----------------------------------------------------------------------------------------------------------
# Checkpoints


def is_checkpoint(directory: str | os.PathLike) -> bool:
    """True if ``directory`` holds a complete checkpoint written by :func:`save_checkpoint`."""
    directory = Path(directory)
    names = (CONFIG_NAME, WEIGHTS_NAME, VOCAB_FILE_NAME, TRAINING_STATE_NAME, TRAINER_STATE_NAME)
    return directory.is_dir() and all((directory / n).is_file() for n in names)


def save_checkpoint(
    directory: str | os.PathLike,
    *,
    model: BertForPreTraining,
    tokenizer: BertTokenizer,
    optimizer: torch.optim.Optimizer,
    scheduler,
    step: int,
    config: PretrainingConfig,
    history: list[dict],
    metrics: dict | None = None,
    corpus_sha256: str | None = None,
    log_window: dict | None = None,
) -> Path:
    """Write a complete checkpoint to ``directory`` atomically (temporary folder, then rename).

    The model part is saved with the teaching (explicit-attention) config, so ``transformers`` and
    :func:`load_checkpoint` both read it. An existing checkpoint there is replaced. Returns the path.
    Introduced in notebook 06.
    """
    directory = Path(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}.tmp-", dir=directory.parent))
    try:
        model.save_pretrained(tmp, tokenizer)
        # The fast attention is a training setting; the saved model is the explicit (teaching) one.
        model.config.replace(
            attn_implementation="eager", mlm_logits_at_labels_only=False, architectures=[type(model).__name__]
        ).to_json_file(tmp / CONFIG_NAME)
        state = {
            "format": CHECKPOINT_FORMAT,
            "step": step,
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
            "rng": get_rng_state(),
        }
        torch.save(state, tmp / TRAINING_STATE_NAME)
        import bertedu

        atomic_write_json(
            tmp / TRAINER_STATE_NAME,
            {
                "format": CHECKPOINT_FORMAT,
                "step": step,
                "complete": step >= config.steps,
                "config": config.to_dict(),
                "corpus_sha256": corpus_sha256,
                "metrics": metrics or {},
                "history": history,
                "log_window": log_window or {},
                "bertedu_version": bertedu.__version__,
            },
        )
        _replace_directory(tmp, directory)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return directory


def _replace_directory(new: Path, target: Path, attempts: int = 5) -> None:
    """Move the finished folder ``new`` to ``target``. An old ``target`` is renamed aside first and deleted
    after, so a reader finds the old or the new complete checkpoint (or, for an instant, none), never a
    mixture. If another process puts a folder at ``target`` in between, try again."""
    for attempt in range(attempts):
        old = None
        if target.exists():
            old = target.parent / f".{target.name}.old-{os.getpid()}-{time.monotonic_ns()}"
            with contextlib.suppress(FileNotFoundError):  # another process may have moved it already
                os.replace(target, old)
        try:
            os.replace(new, target)
        except OSError:
            if attempt == attempts - 1:
                raise
            continue
        finally:
            if old is not None and old.exists():
                shutil.rmtree(old, ignore_errors=True)
        return


@dataclass
class Checkpoint:
    """What :func:`load_checkpoint` read: the model (eval mode), tokenizer, run config, step, history,
    metrics, and the raw training state (optimizer, scheduler, RNG) for resuming."""

    model: BertForPreTraining
    tokenizer: BertTokenizer
    config: PretrainingConfig
    step: int
    history: list[dict]
    metrics: dict
    training_state: dict
    corpus_sha256: str | None = None
    log_window: dict = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return self.step >= self.config.steps


def load_checkpoint(directory: str | os.PathLike) -> Checkpoint:
    """Read a checkpoint written by :func:`save_checkpoint` (training state with ``weights_only=True``).

    Raises ``FileNotFoundError`` if ``directory`` holds no complete checkpoint. Introduced in notebook 06.
    """
    directory = Path(directory)
    if not is_checkpoint(directory):
        raise FileNotFoundError(
            f"No complete checkpoint in {directory} (it needs {CONFIG_NAME}, {WEIGHTS_NAME}, "
            f"{VOCAB_FILE_NAME}, {TRAINING_STATE_NAME} and {TRAINER_STATE_NAME})."
        )
    trainer_state = json.loads((directory / TRAINER_STATE_NAME).read_text(encoding="utf-8"))
    if trainer_state.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(
            f"{directory} was written in checkpoint format {trainer_state.get('format')!r}; this "
            f"bertedu reads format {CHECKPOINT_FORMAT}. Retrain, or use the bertedu that wrote it."
        )
    training_state = torch.load(directory / TRAINING_STATE_NAME, map_location="cpu", weights_only=True)
    return Checkpoint(
        model=BertForPreTraining.from_pretrained(directory),
        tokenizer=BertTokenizer.from_file(directory),
        config=PretrainingConfig.from_dict(trainer_state["config"]),
        step=int(trainer_state["step"]),
        history=trainer_state["history"],
        metrics=trainer_state.get("metrics", {}),
        training_state=training_state,
        corpus_sha256=trainer_state.get("corpus_sha256"),
        log_window=trainer_state.get("log_window", {}),
    )


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


class _StopFlag:
    """Ctrl-C (SIGINT) during training sets a flag instead of raising: the loop finishes its step, saves a
    checkpoint and stops cleanly. A second Ctrl-C interrupts at once."""

    def __init__(self) -> None:
        self.stop = False
        self._previous = None

    def __enter__(self) -> _StopFlag:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.getsignal(signal.SIGINT)

            def handler(signum, frame):
                if self.stop:  # second Ctrl-C
                    raise KeyboardInterrupt
                self.stop = True

            signal.signal(signal.SIGINT, handler)
        return self

    def __exit__(self, *exc) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


class _Window:
    """Running sums over the steps since the last history record."""

    def __init__(self) -> None:
        self.steps = 0
        self.loss = self.mlm_loss = self.nsp_loss = 0.0
        self.mlm_correct = self.mlm_total = self.nsp_correct = self.nsp_total = 0

    def add(self, out, labels: torch.Tensor, nsp_labels: torch.Tensor) -> None:
        self.steps += 1
        self.loss += out.loss.item()
        self.mlm_loss += out.mlm_loss.item()
        self.nsp_loss += out.nsp_loss.item()
        targets = labels[labels != IGNORE_INDEX]  # (N,) in the order of the fast path's logits rows
        logits = out.prediction_logits
        predicted = logits.argmax(-1) if logits.dim() == 2 else logits.argmax(-1)[labels != IGNORE_INDEX]
        self.mlm_correct += int((predicted == targets).sum())
        self.mlm_total += targets.numel()
        self.nsp_correct += int((out.seq_relationship_logits.argmax(-1) == nsp_labels).sum())
        self.nsp_total += nsp_labels.numel()

    def state(self) -> dict:
        """The running sums (saved in a checkpoint, so a resumed run logs exactly what the full run logs)."""
        return dict(vars(self))

    @classmethod
    def from_state(cls, state: dict | None) -> _Window:
        window = cls()
        for key, value in (state or {}).items():
            if hasattr(window, key):
                setattr(window, key, value)
        return window

    def record(self, step: int, lr: float) -> dict:
        n = max(self.steps, 1)
        return {
            "step": step,
            "split": "train",
            "loss": self.loss / n,
            "mlm_loss": self.mlm_loss / n,
            "nsp_loss": self.nsp_loss / n,
            "mlm_accuracy": self.mlm_correct / max(self.mlm_total, 1),
            "nsp_accuracy": self.nsp_correct / max(self.nsp_total, 1),
            "lr": lr,
        }


def _load_eval_items(config: PretrainingConfig) -> tuple[list, list]:
    mlm = load_masked_word_items(resolve_path(config.mlm_eval_file)) if config.mlm_eval_file else []
    nsp = load_nsp_items(resolve_path(config.nsp_eval_file)) if config.nsp_eval_file else []
    return mlm, nsp


def _eval_record(model, tokenizer, config, mlm_items, nsp_items, step: int) -> dict:
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


@contextlib.contextmanager
def _threads(n: int | None):
    """Run the block with ``n`` CPU threads (``None``: unchanged), then restore the previous setting."""
    before = torch.get_num_threads()
    if n is not None:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _teaching_model(model: BertForPreTraining) -> BertForPreTraining:
    """The same weights in a model with the explicit attention of notebook 01 (eval mode)."""
    if model.config.attn_implementation == "eager":
        return model.eval()
    eager = BertForPreTraining(model.config.replace(attn_implementation="eager"))
    eager.load_state_dict(model.state_dict())
    return eager.eval()


def _check_output_dir(output_dir: Path) -> None:
    """Fail early (before training) if checkpoints cannot be written to ``output_dir``, or if it is a folder
    with other files in it (saving replaces the whole folder)."""
    if output_dir.exists() and not output_dir.is_dir():
        raise ValueError(f"Output {output_dir} exists and is a file, not a folder; choose another --output.")
    if output_dir.is_dir() and any(output_dir.iterdir()) and not is_checkpoint(output_dir):
        raise ValueError(
            f"{output_dir} already holds files that are not a bertedu checkpoint; saving would replace "
            "the folder. Choose a new or empty output folder."
        )
    parent = output_dir.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=f".{output_dir.name}.probe-", dir=parent):
            pass
    except OSError as err:
        raise ValueError(
            f"Cannot write to {parent} ({err.strerror or err}); choose a writable --output."
        ) from err


def pretrain(
    config: PretrainingConfig,
    output_dir: str | os.PathLike | None = None,
    *,
    resume: bool = False,
    progress: bool = True,
    stop_after: int | None = None,
) -> PretrainingRun:
    """Pretrain a ``BertForPreTraining`` with MLM + NSP as ``config`` says; returns a :class:`PretrainingRun`.

    ``output_dir``: where the checkpoint goes (at the end, every ``checkpoint_every`` steps, and when the run
    is stopped); ``None`` saves nothing. ``resume=True`` continues the checkpoint in ``output_dir`` (its own
    saved config must equal ``config``) and ends with the weights an uninterrupted run would have.
    ``progress``: show a tqdm progress bar (``tqdm.auto``: a widget in Jupyter). ``stop_after``: stop after
    this many steps in total as if interrupted (the schedule still plans for ``config.steps``); used to
    demonstrate and test resuming.

    Raises ``TrainingDivergedError`` if the loss or the gradient norm stops being finite, with advice.
    Introduced in notebook 06.
    """
    from tqdm.auto import tqdm

    if not isinstance(config, PretrainingConfig):
        raise ValueError(f"config must be a PretrainingConfig, got {type(config).__name__}.")
    config.validate()
    if stop_after is not None and (not isinstance(stop_after, int) or stop_after < 0):
        raise ValueError(f"stop_after must be None or a non-negative int, got {stop_after!r}.")
    output_dir = Path(output_dir) if output_dir is not None else None
    if resume and output_dir is None:
        raise ValueError("resume=True needs the output_dir that holds the checkpoint to continue.")
    if output_dir is not None:
        _check_output_dir(output_dir)

    corpus_path = resolve_path(config.corpus)
    documents = read_corpus(corpus_path)
    corpus_sha = file_sha256(corpus_path)
    mlm_items, nsp_items = _load_eval_items(config)

    checkpoint = None
    if resume:
        if not is_checkpoint(output_dir):
            raise FileNotFoundError(
                f"Cannot resume: {output_dir} holds no checkpoint. Start a new run without "
                "resume (or --resume), or point to the folder of the run to continue."
            )
        checkpoint = load_checkpoint(output_dir)
        if checkpoint.config != config:
            saved, given = checkpoint.config.to_dict(), config.to_dict()
            diffs = ", ".join(
                f"{k}: {saved[k]!r} saved vs {given[k]!r} given" for k in saved if saved[k] != given[k]
            )
            raise ValueError(
                f"Cannot resume {output_dir} with different settings ({diffs}). A resumed run "
                "continues with its own settings; start a new output folder to change them."
            )
        if checkpoint.corpus_sha256 not in (None, corpus_sha):
            raise ValueError(
                f"The corpus {config.corpus} changed since {output_dir} was saved; resuming would "
                "not reproduce the run. Start a new run."
            )
        tokenizer = checkpoint.tokenizer
    else:
        tokenizer = course_tokenizer(documents, config.vocab_size)

    bert_config = model_config(config, tokenizer.vocab_size)
    torch.manual_seed(config.seed)  # the initial weights depend on the seed only
    model = BertForPreTraining(bert_config.replace(attn_implementation=config.attn_implementation))
    optimizer, scheduler = make_optimizer(model, config)
    history: list[dict] = []
    start, window = 0, _Window()
    if checkpoint is not None:
        model.load_state_dict(checkpoint.model.state_dict())
        optimizer.load_state_dict(checkpoint.training_state["optimizer"])
        scheduler.load_state_dict(checkpoint.training_state["scheduler"])
        set_rng_state(checkpoint.training_state["rng"])
        history, start = list(checkpoint.history), checkpoint.step
        window = _Window.from_state(checkpoint.log_window)

    if start >= config.steps:  # the saved run is already finished: nothing to train
        return PretrainingRun(
            model=checkpoint.model,
            tokenizer=tokenizer,
            config=config,
            history=history,
            metrics=checkpoint.metrics,
            step=start,
            output_dir=output_dir,
        )

    dataset = PretrainingDataset(
        documents,
        tokenizer,
        max_length=config.max_length,
        max_sentences=config.max_sentences,
        seed=config.seed,
    )
    collator = PretrainingCollator(tokenizer, mlm_probability=config.mlm_probability)
    end = config.steps if stop_after is None else min(config.steps, stop_after)
    params = [p for p in model.parameters() if p.requires_grad]

    def save(step: int, metrics: dict | None = None) -> None:
        if output_dir is not None:
            save_checkpoint(
                output_dir,
                model=model,
                tokenizer=tokenizer,
                optimizer=optimizer,
                scheduler=scheduler,
                step=step,
                config=config,
                history=history,
                metrics=metrics,
                corpus_sha256=corpus_sha,
                log_window=window.state(),
            )

    step, interrupted = start, False
    began = time.perf_counter()
    bar = tqdm(
        total=config.steps,
        initial=start,
        disable=not progress,
        desc="pretraining",
        unit="step",
        dynamic_ncols=True,
    )
    try:
        with _StopFlag() as flag, _threads(config.num_threads):
            batches = bucketed_batches(
                dataset, collator, config.batch_size, start_step=start, bucket_batches=config.bucket_batches
            )
            while step < end:
                _, batch = next(batches)
                model.train()
                out = model(**batch, mlm_logits_at_labels_only=True)
                if not torch.isfinite(out.loss):
                    raise TrainingDivergedError(_divergence_message(step, "loss", out))
                optimizer.zero_grad(set_to_none=True)
                out.loss.backward()
                if config.max_grad_norm > 0:
                    norm = torch.nn.utils.clip_grad_norm_(params, config.max_grad_norm)
                    if not torch.isfinite(norm):
                        raise TrainingDivergedError(_divergence_message(step, "gradient norm", out))
                optimizer.step()
                scheduler.step()
                window.add(out, batch["labels"], batch["next_sentence_label"])
                step += 1
                bar.update(1)
                if step % config.log_every == 0 or step == config.steps:
                    history.append(window.record(step, optimizer.param_groups[0]["lr"]))
                    window = _Window()
                    bar.set_postfix(loss=f"{history[-1]['loss']:.3f}", refresh=False)
                if (
                    config.eval_every
                    and step % config.eval_every == 0
                    and step < config.steps
                    and (mlm_items or nsp_items)
                ):
                    history.append(_eval_record(model, tokenizer, config, mlm_items, nsp_items, step))
                if flag.stop:
                    interrupted = True
                    break
                if config.checkpoint_every and step % config.checkpoint_every == 0 and step < end:
                    save(step)
    finally:
        bar.close()
    seconds = time.perf_counter() - began

    metrics: dict[str, float] = {}
    if step >= config.steps and (mlm_items or nsp_items):
        with _threads(config.num_threads):
            record = _eval_record(model, tokenizer, config, mlm_items, nsp_items, step)
        history.append(record)
        metrics = {k: v for k, v in record.items() if k not in ("step", "split")}
    save(step, metrics)
    if interrupted:
        logger.warning(
            "Training stopped by Ctrl-C after step %d; checkpoint saved%s.",
            step,
            f" in {output_dir} (resume it with resume=True / --resume)" if output_dir else "",
        )
    return PretrainingRun(
        model=_teaching_model(model),
        tokenizer=tokenizer,
        config=config,
        history=history,
        metrics=metrics,
        step=step,
        output_dir=output_dir,
        interrupted=interrupted or step < config.steps,
        train_seconds=seconds,
    )


def _divergence_message(step: int, what: str, out) -> str:
    parts = ", ".join(
        f"{name}={getattr(out, name).item():.4g}"
        for name in ("mlm_loss", "nsp_loss")
        if getattr(out, name) is not None
    )
    return (
        f"Training diverged at step {step + 1}: the {what} is not finite ({parts}). Stopped before updating "
        "the weights. Try a lower learning rate (e.g. half of it), a longer warm-up, gradient clipping "
        "(max_grad_norm=1.0), and check the data (empty or very long lines, a tokenizer that turns "
        "everything into [UNK])."
    )


# ----------------------------------------------------------------------------------------------------------
# The course model (notebooks 06, 07, 08, benchmarks)


def course_checkpoint_dir() -> Path:
    """``runs/mini-bert/`` under the repository root (where notebook 06 saves the course model)."""
    return repo_root() / COURSE_CHECKPOINT


def train_course_model(
    output_dir: str | os.PathLike | None = None, *, progress: bool = True
) -> PretrainingRun:
    """Train the course mini-BERT with notebook 06's recipe (:func:`course_config`) and save it to
    ``output_dir`` (default ``runs/mini-bert/``). Introduced in notebook 06."""
    output_dir = course_checkpoint_dir() if output_dir is None else Path(output_dir)
    return pretrain(course_config(), output_dir, progress=progress)


def load_course_model(
    path: str | os.PathLike | None = None, *, progress: bool = False
) -> tuple[BertForPreTraining, BertTokenizer]:
    """The course mini-BERT and its tokenizer, as notebook 06 trained them: ``(model, tokenizer)``.

    Loads the checkpoint at ``path`` (default ``runs/mini-bert/`` under the repository root) if it is a
    complete run of :func:`course_config` on today's corpus; otherwise retrains it with exactly that recipe
    (deterministic: the same weights on the same machine) and saves it there. Prints nothing either way
    (which one happened is logged at INFO level), so a notebook cell that calls it always shows the same
    output. The model is in eval mode. Introduced in notebook 06; used by notebooks 07 and 08.
    """
    directory = course_checkpoint_dir() if path is None else Path(path)
    expected = course_config()
    if is_checkpoint(directory):
        try:
            checkpoint = load_checkpoint(directory)
        except (ValueError, OSError, RuntimeError, KeyError) as err:
            logger.info("Checkpoint in %s is unreadable (%s); retraining the course model.", directory, err)
        else:
            corpus_sha = file_sha256(resolve_path(expected.corpus))
            if (
                checkpoint.complete
                and checkpoint.config == expected
                and checkpoint.corpus_sha256 == corpus_sha
            ):
                logger.info("Loaded the course model from %s.", directory)
                return checkpoint.model, checkpoint.tokenizer
            logger.info(
                "The checkpoint in %s is not a finished run of the course recipe; retraining.", directory
            )
    run = pretrain(expected, directory, progress=progress)
    logger.info("Trained the course model and saved it to %s.", directory)
    return run.model, run.tokenizer


def evaluate_course_model(path: str | os.PathLike | None = None) -> dict[str, float]:
    """Held-out scores of the course model (loaded or retrained by :func:`load_course_model`):
    ``{"mlm_top1", "mlm_top5", "nsp_accuracy", "mlm_items", "nsp_items"}``. For the benchmarks.

    Introduced in notebook 06.
    """
    model, tokenizer = load_course_model(path)
    config = course_config()
    mlm_items, nsp_items = _load_eval_items(config)
    scores = evaluate_pretraining(
        model, tokenizer, mlm_items=mlm_items, nsp_items=nsp_items, max_length=config.max_length
    )
    return {**scores, "mlm_items": len(mlm_items), "nsp_items": len(nsp_items)}


# ----------------------------------------------------------------------------------------------------------
# Command line


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage block): ``pretrain: error: ... (see --help)``."""

    def error(self, message: str):  # noqa: D401 - argparse's signature
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _whole_number(minimum: int):
    """An argparse ``type`` accepting whole numbers >= ``minimum``, with a message that says what is wrong."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


_positive_int = _whole_number(1)
_non_negative_int = _whole_number(0)


def _learning_rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number such as 1e-3, got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (e.g. 1e-3), got {text}")
    return value


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1), got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m bertedu.pretrain``."""
    d = course_config()
    sizes = ", ".join(
        f"{name} ({s['num_hidden_layers']}/{s['hidden_size']}/{s['num_attention_heads']})"
        for name, s in MODEL_SIZES.items()
    )
    parser = _Parser(
        prog="python -m bertedu.pretrain",
        description="Pretrain a BERT with masked-LM + next-sentence prediction on a text corpus and save an "
        "HF-format checkpoint (config.json, model.safetensors, vocab.txt) plus the state needed to "
        "resume. Ctrl-C stops after the current step and saves a checkpoint.",
        epilog="Example: python -m bertedu.pretrain --corpus data/simple_sentences.txt --output runs/mini "
        "--mlm-eval data/mlm_eval.tsv --nsp-eval data/nsp_eval.tsv. Defaults are notebook 06's course "
        "recipe (bertedu.pretrain.course_config), except the held-out files, which are only used when "
        "given.",
    )
    parser.add_argument(
        "--corpus",
        help="text file: one sentence per line, a blank line between documents (required unless --resume)",
    )
    parser.add_argument(
        "--output", required=True, help="checkpoint folder to create (or to continue with --resume)"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the interrupted run saved in --output "
        "with its own saved settings (other training options must be left out or equal)",
    )
    parser.add_argument("--overwrite", action="store_true", help="replace a checkpoint already in --output")
    parser.add_argument(
        "--preset",
        choices=list(MODEL_SIZES),
        default=None,
        help=f"model size L/H/A: {sizes} (default: {d.model_size})",
    )
    parser.add_argument("--steps", type=_positive_int, help=f"optimizer steps (default: {d.steps})")
    parser.add_argument(
        "--batch-size", type=_positive_int, help=f"examples per step (default: {d.batch_size})"
    )
    parser.add_argument(
        "--lr", type=_learning_rate, help=f"peak learning rate of AdamW (default: {d.learning_rate})"
    )
    parser.add_argument(
        "--warmup",
        type=_non_negative_int,
        help=f"linear warm-up steps before the linear decay (default: {d.warmup_steps})",
    )
    parser.add_argument(
        "--mlm-probability",
        type=_probability,
        help="share of tokens selected for masked-LM "
        f"(then 80 %% [MASK] / 10 %% random / 10 %% kept; the paper: 0.15; default: {d.mlm_probability})",
    )
    parser.add_argument(
        "--dropout",
        type=_probability,
        help=f"hidden and attention dropout (the paper: 0.1; default: {d.dropout})",
    )
    parser.add_argument(
        "--max-length", type=_positive_int, help=f"tokens per example (default: {d.max_length})"
    )
    parser.add_argument(
        "--vocab-size",
        type=_positive_int,
        help="WordPiece vocabulary size (default: keep every corpus word whole)",
    )
    parser.add_argument("--seed", type=_non_negative_int, help=f"random seed (default: {d.seed})")
    parser.add_argument(
        "--eval-every",
        type=_non_negative_int,
        help=f"evaluate on the held-out files every N steps, 0 = only at the end (default: {d.eval_every})",
    )
    parser.add_argument(
        "--checkpoint-every",
        type=_non_negative_int,
        help="also save a checkpoint every N steps, 0 = only at the end (default: 0)",
    )
    parser.add_argument(
        "--mlm-eval", help="held-out masked words, TSV 'sentence<TAB>answers' (e.g. data/mlm_eval.tsv)"
    )
    parser.add_argument(
        "--nsp-eval",
        help="held-out NSP pairs, TSV 'sentence_a<TAB>sentence_b<TAB>label' (e.g. data/nsp_eval.tsv)",
    )
    parser.add_argument(
        "--attn",
        choices=["sdpa", "eager"],
        help="attention used while training: fused 'sdpa' "
        f"(fast) or explicit 'eager'; the saved model is the same either way (default: {d.attn_implementation})",
    )
    parser.add_argument(
        "--threads",
        type=_positive_int,
        help="CPU threads while training; the exact weights "
        f"depend on it, so keep it fixed to reproduce a run (default: {d.num_threads})",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


_CLI_FIELDS = {
    "corpus": "corpus",
    "preset": "model_size",
    "steps": "steps",
    "batch_size": "batch_size",
    "lr": "learning_rate",
    "warmup": "warmup_steps",
    "max_length": "max_length",
    "mlm_probability": "mlm_probability",
    "dropout": "dropout",
    "vocab_size": "vocab_size",
    "seed": "seed",
    "eval_every": "eval_every",
    "checkpoint_every": "checkpoint_every",
    "mlm_eval": "mlm_eval_file",
    "nsp_eval": "nsp_eval_file",
    "attn": "attn_implementation",
    "threads": "num_threads",
}


def _config_from_args(args: argparse.Namespace, output: Path) -> PretrainingConfig:
    given = {
        field_: getattr(args, opt) for opt, field_ in _CLI_FIELDS.items() if getattr(args, opt) is not None
    }
    if args.resume:
        if not is_checkpoint(output):
            raise ValueError(
                f"--resume: {output} holds no checkpoint to continue (start a run without --resume)."
            )
        saved = PretrainingConfig.from_dict(
            json.loads((output / TRAINER_STATE_NAME).read_text(encoding="utf-8"))["config"]
        )
        different = [
            f"{k} ({v!r} given, {getattr(saved, k)!r} saved)"
            for k, v in given.items()
            if getattr(saved, k) != v
        ]
        if different:
            raise ValueError(
                f"--resume continues the saved run with its own settings; these differ: "
                f"{', '.join(different)}. Leave them out, or start a new --output."
            )
        return saved
    if "corpus" not in given:
        raise ValueError("--corpus is required (e.g. --corpus data/simple_sentences.txt).")
    if not resolve_path(given["corpus"]).is_file():
        raise ValueError(f"corpus file {given['corpus']} does not exist.")
    for key in ("mlm_eval_file", "nsp_eval_file"):
        if key in given and not resolve_path(given[key]).is_file():
            raise ValueError(f"evaluation file {given[key]} does not exist.")
    if is_checkpoint(output) and not args.overwrite:
        raise ValueError(
            f"{output} already holds a checkpoint; use --resume to continue it or --overwrite to replace it."
        )
    if (
        output.exists()
        and output.is_dir()
        and any(output.iterdir())
        and not is_checkpoint(output)
        and not args.overwrite
    ):
        raise ValueError(f"{output} exists and is not empty; choose a new --output (or --overwrite).")
    recipe = course_config(mlm_eval_file=None, nsp_eval_file=None)
    try:
        return recipe.replace(**given)
    except ValueError as err:
        raise ValueError(str(err)) from None


def _format_metrics(metrics: dict[str, float], held_out: bool) -> str:
    names = (
        {"mlm_accuracy": "masked-word top-1", "mlm_top5_accuracy": "top-5", "nsp_accuracy": "NSP accuracy"}
        if held_out
        else {
            "loss": "loss",
            "mlm_loss": "MLM loss",
            "nsp_loss": "NSP loss",
            "mlm_accuracy": "MLM accuracy",
            "nsp_accuracy": "NSP accuracy",
        }
    )
    return ", ".join(f"{names[k]} {metrics[k]:.3f}" for k in names if k in metrics)


def _display_path(path: Path) -> str:
    """``path`` relative to the working directory when it is inside it (outputs never show home folders)."""
    with contextlib.suppress(ValueError):
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    return str(path)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m bertedu.pretrain``; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    output = Path(args.output)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    try:
        config = _config_from_args(args, output)
        run = pretrain(config, output, resume=args.resume, progress=not args.no_progress)
    except (ValueError, FileNotFoundError, TrainingDivergedError) as err:
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{parser.prog}: interrupted", file=sys.stderr)
        return 130
    state = "stopped early" if run.interrupted else "finished"
    print(f"Training {state} at step {run.step}/{config.steps}. Checkpoint: {_display_path(output)}")
    if run.final_train_record:
        print(f"Last training steps: {_format_metrics(run.final_train_record, held_out=False)}")
    if run.metrics:
        print(f"Held-out: {_format_metrics(run.metrics, held_out=True)}")
    if run.interrupted:
        print(f"Resume with: python -m bertedu.pretrain --output {_display_path(output)} --resume")
    return 130 if run.interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
