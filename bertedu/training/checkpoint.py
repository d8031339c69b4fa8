"""Resumable pretraining checkpoints: the model folder plus everything needed to continue bit for bit.

A checkpoint directory is a Hugging Face model folder (``config.json``, ``model.safetensors``, ``vocab.txt``,
``tokenizer_config.json``: ``transformers.BertForPreTraining`` and ``transformers.BertTokenizer`` load it
directly) plus what resuming needs:

- ``training_state.pt``: optimizer, scheduler, step and random-number-generator states (tensors and plain
  containers only, read with ``torch.load(weights_only=True)``); a run of several processes or on a GPU adds
  ``process_rng``, each process's torch (and CUDA) generator, so that it resumes exactly too;
- ``trainer_state.json``: the run's settings, its history and metrics, the corpus's SHA-256.

Crash safety. The whole folder is written next to the target and swapped into place
(:func:`bertedu.files.write_directory_atomically`, where the design is written down): it is filled as a hidden
``.NAME.tmp-*`` sibling, flushed to disk, renamed ``.NAME.new-*`` (complete), and exchanged with the old
checkpoint in one atomic step (Linux ``renameat2(RENAME_EXCHANGE)``; elsewhere the old one is renamed aside
first). So at every instant the folder, or a sibling that :func:`recover_checkpoint` puts back, holds a
complete checkpoint: a kill at any moment, a refused rename or a full disk never loses the last one. Every
save and every load first recovers (promotes the newest complete sibling if the folder is missing, and
deletes stale siblings, which are as large as a checkpoint). A lock file (``.NAME.lock``) keeps two
processes from writing, or reading while another writes, the same checkpoint.

Several processes (``torchrun``, :mod:`bertedu.scaleout.distributed`). Only process 0 writes; the others wait until
it is done. A checkpoint does not depend on the number of processes (the batch size in its settings is the
global one), so a run saved by 2 processes resumes with 1 or 4.

Before any training, :func:`prepare_output` decides whether a run may start in a folder, continue the one saved
there, or neither. (Stopping a run on a signal, with a checkpoint, is the training loop's job:
:class:`bertedu.training.pretrain.StopOnSignal`.)

Used by :mod:`bertedu.training.pretrain` (notebook 06).
"""

from __future__ import annotations

import json
import os
import random
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from bertedu import __version__
from bertedu.core.model import BertForPreTraining
from bertedu.core.serialization import CONFIG_NAME, WEIGHTS_NAME
from bertedu.core.tokenizer import TOKENIZER_CONFIG_NAME, VOCAB_FILE_NAME, BertTokenizer
from bertedu.files import (
    atomic_write_json,
    directory_lock,
    explain_os_error,
    real_target,
    recover_directory,
    write_directory_atomically,
)

TRAINING_STATE_NAME = "training_state.pt"
TRAINER_STATE_NAME = "trainer_state.json"
#: Every file a checkpoint folder holds (tokenizer_config.json is optional: older checkpoints lack it).
CHECKPOINT_FILES = (
    CONFIG_NAME,
    WEIGHTS_NAME,
    VOCAB_FILE_NAME,
    TOKENIZER_CONFIG_NAME,
    TRAINING_STATE_NAME,
    TRAINER_STATE_NAME,
)
CHECKPOINT_FORMAT = 1


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
# Saving and loading


def is_checkpoint(directory: str | os.PathLike) -> bool:
    """True if ``directory`` holds a complete checkpoint written by :func:`save_checkpoint`."""
    directory = Path(directory)
    names = [name for name in CHECKPOINT_FILES if name != TOKENIZER_CONFIG_NAME]
    return directory.is_dir() and all((directory / n).is_file() for n in names)


def recover_checkpoint(directory: str | os.PathLike) -> bool:
    """Finish an interrupted save of the checkpoint in ``directory``: if the folder is missing or incomplete
    but a complete hidden sibling (``.NAME.new-*``, ``.NAME.old-*``) survived a crash, put it in place; delete
    stale siblings. Returns whether ``directory`` now holds a complete checkpoint.
    """
    return recover_directory(directory, is_checkpoint)


def save_checkpoint(
    directory: str | os.PathLike,
    *,
    model: BertForPreTraining,
    tokenizer: BertTokenizer,
    optimizer: torch.optim.Optimizer,
    scheduler,
    step: int,
    run_config: dict[str, Any],
    history: list[dict],
    metrics: dict | None = None,
    corpus_sha256: str | None = None,
    log_window: dict | None = None,
    process_rng: list[dict] | None = None,
) -> Path:
    """Write a complete checkpoint to ``directory`` atomically. ``run_config`` is the run's settings as a
    dict (``PretrainingConfig.to_dict()``; its ``"steps"`` says when the run is complete). ``process_rng``:
    each process's generator states (:meth:`bertedu.scaleout.distributed.DistributedContext.rng_states`), if any.

    The model part is saved with the teaching (explicit-attention) config, so ``transformers`` and
    :func:`load_checkpoint` both read it. An existing checkpoint there is replaced (see the module docstring
    for why that is crash-safe). Raises :class:`bertedu.files.SaveError` naming the cause (disk full, no
    permission, ...) if it cannot be written; the previous checkpoint then stays. Returns the path.
    """

    def fill(tmp: Path) -> None:
        # The fused attention is a training setting; the saved model is the explicit (teaching) one.
        model.save_pretrained(tmp, tokenizer, config=model.config.replace(attn_implementation="eager"))
        state = {
            "format": CHECKPOINT_FORMAT,
            "step": step,
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
            "rng": get_rng_state(),
        }
        if process_rng is not None:
            state["process_rng"] = process_rng
        torch.save(state, tmp / TRAINING_STATE_NAME)
        trainer_state = {
            "format": CHECKPOINT_FORMAT,
            "step": step,
            "complete": step >= run_config["steps"],
            "config": run_config,
            "corpus_sha256": corpus_sha256,
            "metrics": metrics or {},
            "history": history,
            "log_window": log_window or {},
            "bertedu_version": __version__,
        }
        atomic_write_json(tmp / TRAINER_STATE_NAME, trainer_state)

    return write_directory_atomically(directory, fill, is_complete=is_checkpoint, what="the checkpoint")


_DAMAGED = "is damaged ({}). Delete the folder and train again, or resume from another checkpoint."


def _read_trainer_state(directory: Path) -> dict[str, Any]:
    """``trainer_state.json`` of the checkpoint in ``directory`` (``ValueError`` naming it if it is damaged)."""
    trainer_file = directory / TRAINER_STATE_NAME
    try:
        trainer_state = json.loads(trainer_file.read_text(encoding="utf-8"))
        if not isinstance(trainer_state, dict):
            raise ValueError(f"a JSON object was expected, found {type(trainer_state).__name__}")
        if trainer_state.get("format") != CHECKPOINT_FORMAT:
            raise ValueError(
                f"it was written in checkpoint format {trainer_state.get('format')!r}; this bertedu reads "
                f"format {CHECKPOINT_FORMAT}. Retrain, or use the bertedu that wrote it"
            )
        if "config" not in trainer_state:
            raise KeyError("config")
        trainer_state["step"] = int(trainer_state["step"])
        if "history" not in trainer_state:
            raise KeyError("history")
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as err:
        raise ValueError(f"{trainer_file} " + _DAMAGED.format(err)) from err
    return trainer_state


@dataclass
class Checkpoint:
    """What :func:`load_checkpoint` read: the model (eval mode), tokenizer, run settings (a dict), step,
    history, metrics, and the raw training state (optimizer, scheduler, RNG) for resuming."""

    model: BertForPreTraining
    tokenizer: BertTokenizer
    run_config: dict[str, Any]
    step: int
    history: list[dict]
    metrics: dict
    training_state: dict
    corpus_sha256: str | None = None
    log_window: dict = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return self.step >= self.run_config["steps"]


def load_checkpoint(directory: str | os.PathLike) -> Checkpoint:
    """Read a checkpoint written by :func:`save_checkpoint` (training state with ``weights_only=True``),
    after :func:`recover_checkpoint`, holding the folder's lock (so a save cannot swap it mid-read).

    Raises ``FileNotFoundError`` if ``directory`` holds no complete checkpoint, ``ValueError`` naming the file
    if a file in it is damaged.
    """
    directory = Path(directory)
    recover_checkpoint(directory)
    with directory_lock(directory, required=False):
        if not is_checkpoint(directory):
            raise FileNotFoundError(
                f"No complete checkpoint in {directory} (it needs {CONFIG_NAME}, {WEIGHTS_NAME}, "
                f"{VOCAB_FILE_NAME}, {TRAINING_STATE_NAME} and {TRAINER_STATE_NAME})."
            )
        trainer_state = _read_trainer_state(directory)
        try:
            training_state = torch.load(
                directory / TRAINING_STATE_NAME, map_location="cpu", weights_only=True
            )
        except Exception as err:  # a truncated zip, a pickle that holds more than tensors, ...
            raise ValueError(f"{directory / TRAINING_STATE_NAME} " + _DAMAGED.format(err)) from err
        return Checkpoint(
            model=BertForPreTraining.from_pretrained(directory),  # ValueError naming a damaged file
            tokenizer=BertTokenizer.from_file(directory),
            run_config=trainer_state["config"],
            step=trainer_state["step"],
            history=trainer_state["history"],
            metrics=trainer_state.get("metrics", {}),
            training_state=training_state,
            corpus_sha256=trainer_state.get("corpus_sha256"),
            log_window=trainer_state.get("log_window", {}),
        )


# ----------------------------------------------------------------------------------------------------------
# Where checkpoints go, and whether a run can be resumed


class NotWritableError(ValueError):
    """A run cannot be saved where it was asked to: ``folder`` cannot be written (``why``, in words)."""

    def __init__(self, folder: Path, why: str):
        self.folder, self.why = folder, why
        super().__init__(
            f"Cannot write to {folder} ({why}). Save the run in a folder you can write to: the output folder "
            "given to pretrain() in a notebook, --output on the command line."
        )


def prepare_output(
    output_dir: str | os.PathLike,
    settings: dict[str, Any] | None = None,
    *,
    resume: bool = False,
    overwrite: bool = True,
) -> dict[str, Any] | None:
    """The one gate before a run writes to ``output_dir`` (:func:`bertedu.training.pretrain.pretrain`, the command line
    and :func:`bertedu.course.load_course_model` all pass it): start a new run there, continue the one saved
    there, or refuse, before any training. First it finishes a save a crash interrupted
    (:func:`recover_checkpoint`).

    Always refused (``ValueError``): ``""``, ``"."`` or a parent of the working folder (saving replaces the
    whole folder), a file, an unwritable place (:class:`NotWritableError`), a folder holding files that are not a bertedu checkpoint.
    ``resume=True``: ``output_dir`` must hold a checkpoint (``FileNotFoundError``) whose saved settings equal
    ``settings`` (``PretrainingConfig`` fields, all or some; ``grad_accum`` and the number of processes are
    not settings and may change); returns the saved settings. ``resume=False``: a new run; a checkpoint
    already there is replaced only if ``overwrite``; returns ``None``.
    """
    output_dir = Path(output_dir)
    real = real_target(output_dir)  # ValueError for "", "." and the like; symlinks are followed
    if real.exists() and not real.is_dir():
        raise ValueError(
            f"Output {output_dir} exists and is a file, not a folder; choose another folder (the output folder "
            "given to pretrain() in a notebook, --output on the command line)."
        )
    parent = real.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=f".{real.name}.probe-", dir=parent):
            pass
    except OSError as err:
        raise NotWritableError(parent, explain_os_error(err, real)) from err
    has_checkpoint = recover_checkpoint(output_dir)
    if resume:
        if not has_checkpoint:
            raise FileNotFoundError(
                f"Cannot resume: {output_dir} holds no checkpoint. Start a new run without "
                "resume (or --resume), or point to the folder of the run to continue."
            )
        with directory_lock(output_dir, required=False):  # a save cannot swap the folder mid-read
            saved = _read_trainer_state(output_dir)["config"]
        # A setting newer than the checkpoint is not in ``saved``: that run used its default, which the loader fills in.
        diffs = ", ".join(
            f"{k}: {saved[k]!r} saved vs {v!r} given"
            for k, v in (settings or {}).items()
            if k in saved and saved[k] != v
        )
        if diffs:
            raise ValueError(
                f"Cannot resume {output_dir} with different settings ({diffs}). A resumed run "
                "continues with its own settings; start a new output folder to change them."
            )
        return saved
    if has_checkpoint and not overwrite:
        raise ValueError(
            f"{output_dir} already holds a checkpoint; use --resume to continue it or --overwrite to replace it."
        )
    other = sorted(p.name for p in real.iterdir()) if real.is_dir() and not has_checkpoint else []
    if other:
        raise ValueError(
            f"{output_dir} already holds files that are not a bertedu checkpoint ({', '.join(other[:5])}); "
            "saving would replace the folder. Choose a new or empty output folder."
        )
    return None
