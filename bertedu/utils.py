"""Small helpers shared by several modules: seeding, locating the repository, atomic writes.

Introduced in notebook 00 (``set_seed`` is the first call of every notebook).
"""

from __future__ import annotations

import json
import os
import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

DEFAULT_SEED = 0


def set_seed(seed: int = DEFAULT_SEED, *, deterministic: bool = True) -> int:
    """Seed Python, NumPy and PyTorch, and make CPU runs repeatable.

    Call it at the top of a notebook (and again before any cell whose randomness you want to pin).
    With ``deterministic=True`` PyTorch is asked to use deterministic algorithms only, so the same code
    on the same machine gives the same numbers, run after run.

    Returns the seed, so a notebook can print what it used. Introduced in notebook 00.
    """
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"set_seed expects a non-negative integer seed, got {seed!r}.")
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    os.environ.setdefault("PYTHONHASHSEED", str(seed))
    if deterministic:
        torch.use_deterministic_algorithms(True)
    return seed


def repo_root() -> Path:
    """The root of the bertedu checkout (the folder holding ``data/`` and ``notebooks/``).

    Looks upward from the current directory first (a notebook runs in ``notebooks/``), then from the
    package's own folder (an editable install). Raises ``FileNotFoundError`` with a hint if neither
    finds a ``data/simple_sentences.txt``.
    """
    starts = [Path.cwd(), Path(__file__).resolve().parent]
    for start in starts:
        for folder in [start, *start.parents]:
            if (folder / "data" / "simple_sentences.txt").is_file():
                return folder
    raise FileNotFoundError(
        "Could not find the bertedu repository (a folder with data/simple_sentences.txt) above "
        f"{Path.cwd()}. Run the notebook from the repository's notebooks/ folder, or pass paths explicitly."
    )


def data_path(name: str) -> Path:
    """Path of a file under the repository's ``data/`` folder, with a clear error if it is missing."""
    path = repo_root() / "data" / name
    if not path.exists():
        raise FileNotFoundError(
            f"data/{name} is missing from the repository; restore it with `git checkout data/`."
        )
    return path


def atomic_write(path: str | os.PathLike, write: Callable[[Path], Any]) -> Path:
    """Write a file atomically: ``write(tmp_path)`` fills a temporary file that then replaces ``path``.

    A crash part-way leaves the old file untouched (never a half-written one). The temporary file is
    in the same folder, so the final ``os.replace`` is a rename on one file system.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        write(tmp_path)
        with open(tmp_path, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp_path, path)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()
    return path


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Atomically write ``text`` (UTF-8) to ``path``. See :func:`atomic_write`."""
    return atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))


def atomic_write_json(path: str | os.PathLike, obj: Any) -> Path:
    """Atomically write ``obj`` as pretty-printed UTF-8 JSON to ``path``. See :func:`atomic_write`."""
    return atomic_write_text(path, json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
