"""Helpers for tests/test_fault_tolerance.py: tiny checkpoints of known content, and crash points.

Run as a script (``python tests/fault_helpers.py OUT MODE``) it kills a save of a checkpoint between every
two steps in turn and prints, as JSON, what a reader found after each kill. It runs in its own process with
one torch thread, so that ``os.fork`` is safe (no thread pool exists yet).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import torch

from bertedu import files
from bertedu.core.config import BertConfig
from bertedu.core.model import BertForPreTraining
from bertedu.core.tokenizer import SPECIAL_TOKENS, BertTokenizer
from bertedu.training.checkpoint import load_checkpoint, save_checkpoint
from bertedu.training.optim import make_optimizer

#: The operations a save is made of; a crash or a failure is injected before the k-th call of any of them.
STEPS = [
    (os, "mkdir"),
    (os, "rename"),
    (os, "replace"),
    (os, "unlink"),
    (shutil, "rmtree"),
    (torch, "save"),
]


def version(step: int):
    """A tiny model, optimizer and scheduler whose weights depend on ``step`` only (seeded)."""
    torch.manual_seed(step)
    config = BertConfig(
        vocab_size=8,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=16,
    )
    model = BertForPreTraining(config)
    optimizer, scheduler = make_optimizer(model, lr=1e-3, weight_decay=0.0, warmup_steps=0, total_steps=10)
    return model, optimizer, scheduler


def save_version(out: Path, step: int) -> None:
    """Save the checkpoint of :func:`version` ``(step)`` to ``out``."""
    model, optimizer, scheduler = version(step)
    tokenizer = BertTokenizer([*SPECIAL_TOKENS, "a", "b", "c"])
    save_checkpoint(
        out,
        model=model,
        tokenizer=tokenizer,
        optimizer=optimizer,
        scheduler=scheduler,
        step=step,
        run_config={"steps": 10},
        history=[{"step": step}],
    )


def read_version(out: Path) -> dict:
    """What a reader finds in ``out``: ``{"step", "same", "history"}`` (``same``: the weights equal that
    version's), or ``{"error"}``."""
    try:
        checkpoint = load_checkpoint(out)
    except Exception as err:  # reported, and the test fails on it
        return {"error": f"{type(err).__name__}: {err}"}
    expected = version(checkpoint.step)[0].state_dict()
    loaded = checkpoint.model.state_dict()
    same = expected.keys() == loaded.keys() and all(torch.equal(expected[k], loaded[k]) for k in expected)
    return {"step": checkpoint.step, "same": same, "history": checkpoint.history}


def inject(at: int, action) -> tuple[list[int], callable]:
    """Make the ``at``-th call (1-based) of any operation in :data:`STEPS` (and of the atomic exchange, where
    bertedu has one) run ``action()`` first. Returns ``(calls, undo)``: ``calls[0]`` counts the calls, and
    ``undo()`` puts the real operations back."""
    calls = [0]
    targets = list(STEPS)
    if hasattr(files, "_exchange"):
        targets.append((files, "_exchange"))
    originals = [(module, name, getattr(module, name)) for module, name in targets]
    for module, name, real in originals:

        def wrapped(*args, _real=real, **kwargs):
            calls[0] += 1
            if calls[0] == at:
                action()
            return _real(*args, **kwargs)

        setattr(module, name, wrapped)

    def undo() -> None:
        for module, name, real in originals:
            setattr(module, name, real)

    return calls, undo


def cli(args: list[str]) -> None:
    """``python -m bertedu.cli ARGS`` in this process: exits with the command line's status."""
    from bertedu.cli import main

    sys.exit(main(args))


def siblings(out: Path) -> list[str]:
    """The names next to ``out`` other than ``out`` itself (hidden temporary folders, lock files)."""
    return sorted(p.name for p in out.parent.iterdir() if p.name != out.name)


def kill_at_every_step(out: Path, mode: str) -> list[dict]:
    """Save version 2 over version 1, killed (``os._exit``) before the k-th step, for k = 1, 2, ... until a
    save completes; after each kill, read ``out`` as the next program would."""
    if mode == "fallback":  # systems without renameat2: the rename-aside path
        files._exchange = lambda a, b: False
    results = []
    at = 1
    while True:
        shutil.rmtree(out.parent, ignore_errors=True)
        out.parent.mkdir(parents=True)
        save_version(out, 1)
        pid = os.fork()
        if pid == 0:  # the child: dies at step `at`, or finishes the save and exits 0
            try:
                inject(at, lambda: os._exit(17))
                save_version(out, 2)
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        killed = os.waitstatus_to_exitcode(status) == 17
        left = siblings(out)
        found = read_version(out)
        results.append({"at": at, "killed": killed, "left": left, **found, "after": siblings(out)})
        if not killed:
            return results
        at += 1


if __name__ == "__main__":  # python tests/fault_helpers.py FOLDER MODE [MODE ...]
    torch.set_num_threads(1)
    folder = Path(sys.argv[1])
    results = {}
    for mode in sys.argv[2:]:
        real_exchange = getattr(files, "_exchange", None)
        results[mode] = kill_at_every_step(folder / mode / "run", mode)
        if real_exchange is not None:
            files._exchange = real_exchange
    print(json.dumps(results))


def tiny_course_recipe(corpus_dir: Path, **changes):
    """A course recipe of the conftest's "test" size on its corpus (for load_course_model tests)."""
    from support import TEST_PRESET

    from bertedu.core.config import PRESETS
    from bertedu.training.pretrain import PretrainingConfig

    PRESETS["test"] = TEST_PRESET
    base = dict(
        corpus=str(corpus_dir / "corpus.txt"),
        model_size="test",
        max_length=32,
        steps=40,
        batch_size=4,
        learning_rate=5e-3,
        warmup_steps=2,
        eval_every=0,
        seed=3,
        num_threads=1,
    )
    return PretrainingConfig(**{**base, **changes})


def course_worker(barrier, corpus_dir: Path, path: Path, log: Path, result: Path) -> None:
    """One of two processes calling load_course_model(path) at the same moment; appends to ``log`` when it
    trains, and writes a digest of the weights it got to ``result``."""
    import hashlib

    from bertedu import course

    torch.set_num_threads(1)
    course.pretraining.course_config = lambda **kw: tiny_course_recipe(corpus_dir, **kw)
    real_pretrain = course.pretraining.pretrain

    def pretrain(*args, **kwargs):
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(f"trained in {os.getpid()}\n")
        return real_pretrain(*args, **kwargs)

    course.pretraining.pretrain = pretrain
    barrier.wait()
    model, _ = course.load_course_model(path, progress=False)
    digest = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        digest.update(name.encode() + tensor.numpy().tobytes())
    result.write_text(digest.hexdigest(), encoding="utf-8")
