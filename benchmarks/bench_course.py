"""Course run time: every notebook executed headless with nbclient, seconds each and in total."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import nbformat
from common import ROOT, Summary
from nbclient import NotebookClient


def notebooks() -> list[Path]:
    return sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def run_notebook(path: Path) -> float:
    """Execute a copy of the notebook in memory (the file is not modified); return seconds."""
    nb = nbformat.read(path, as_version=4)
    home = tempfile.mkdtemp(prefix="bertedu-bench-")
    env_before = os.environ.get("BERTEDU_HOME")
    os.environ["BERTEDU_HOME"] = home
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
        if env_before is None:
            os.environ.pop("BERTEDU_HOME", None)
        else:
            os.environ["BERTEDU_HOME"] = env_before


def measure(repeats: int) -> dict:
    per_notebook: dict[str, list[float]] = {p.name: [] for p in notebooks()}
    totals: list[float] = []
    for _ in range(repeats):
        total = 0.0
        for path in notebooks():
            seconds = run_notebook(path)
            per_notebook[path.name].append(seconds)
            total += seconds
        totals.append(total)
    return {
        "notebooks": {name: Summary(vals, "s") for name, vals in per_notebook.items()},
        "total": Summary(totals, "s"),
    }
