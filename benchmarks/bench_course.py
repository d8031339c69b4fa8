"""Course run time: every notebook executed headless with nbclient, seconds each and in total.

Three measurements (issues 10, 19 and 20): the English notebooks on the machine as it is (*idle*, repeated);
the Chinese edition (``notebooks/zh/``) once; and the English notebooks once more beside one
``while True: pass`` process (*loaded*), so that each notebook's loaded / idle ratio shows what a busy
machine costs. Target: the whole course beside a busy core takes at most twice its idle time.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat
from common import HOG, ROOT, Summary
from nbclient import NotebookClient


def notebooks(folder: str = "notebooks") -> list[Path]:
    return sorted((ROOT / folder).glob("[0-9][0-9]_*.ipynb"))


def run_notebook(path: Path) -> float:
    """Execute a copy of the notebook in memory (the file is not modified); return seconds. As a first run:
    fresh quiz progress, and an empty cache of side runs (notebooks 06 and 07 train theirs)."""
    nb = nbformat.read(path, as_version=4)
    home = tempfile.mkdtemp(prefix="bertedu-bench-")
    env_before = {name: os.environ.get(name) for name in ("BERTEDU_HOME", "BERTEDU_SIDE_RUNS")}
    os.environ["BERTEDU_HOME"] = home
    os.environ["BERTEDU_SIDE_RUNS"] = os.path.join(home, "side-runs")
    os.environ.pop("MPLBACKEND", None)
    try:
        client = NotebookClient(
            nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
        )
        start = time.perf_counter()
        client.execute()
        return time.perf_counter() - start
    finally:
        shutil.rmtree(home, ignore_errors=True)
        for name, value in env_before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def cpu_hog() -> Iterator[None]:
    """One process keeping one core busy for the duration of the block."""
    hog = subprocess.Popen([sys.executable, "-c", HOG])
    try:
        yield
    finally:
        hog.kill()
        hog.wait()


def _run_all(paths: list[Path], times: dict[str, list[float]]) -> float:
    total = 0.0
    for path in paths:
        seconds = run_notebook(path)
        times.setdefault(path.name, []).append(seconds)
        total += seconds
    return total


def measure(repeats: int, *, chinese: bool = True, loaded: bool = True) -> dict:
    english = notebooks()
    per_notebook: dict[str, list[float]] = {}
    totals = [_run_all(english, per_notebook) for _ in range(repeats)]
    result = {
        "notebooks": {name: Summary(vals, "s") for name, vals in per_notebook.items()},
        "total": Summary(totals, "s"),
    }
    if chinese:
        zh: dict[str, list[float]] = {}
        result["zh_total"] = Summary([_run_all(notebooks("notebooks/zh"), zh)], "s")
        result["zh_notebooks"] = {name: Summary(vals, "s") for name, vals in zh.items()}
    if loaded:
        busy: dict[str, list[float]] = {}
        with cpu_hog():
            result["loaded_total"] = Summary([_run_all(english, busy)], "s")
        result["loaded_notebooks"] = {name: Summary(vals, "s") for name, vals in busy.items()}
    return result


def loaded_ratio(course: dict) -> float | None:
    """Whole course beside a busy core / its idle median (``None`` if not measured)."""
    if "loaded_total" not in course:
        return None
    return course["loaded_total"].median / course["total"].median
