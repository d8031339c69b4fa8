"""Execute course notebooks in place, top to bottom, and clean them for committing.

Usage: python tools/execute_notebooks.py notebooks/03_masking_strategy.ipynb [...]
(`make notebooks NB=...` calls this). Each notebook runs in a fresh kernel with notebooks/ as the working
directory, a throw-away BERTEDU_HOME (so saved quiz progress never leaks into outputs) and
PYTHONHASHSEED=0. Afterwards widget state and per-cell timing metadata are stripped, so the committed
file holds only what nbval compares. Prints the wall-clock time of each notebook (for the README's map).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

CELL_METADATA_TO_DROP = ("execution", "ExecuteTime", "collapsed", "scrolled")


def clean(nb: nbformat.NotebookNode) -> None:
    """Remove widget state and timing metadata (they change every run and nbval does not need them)."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        for key in CELL_METADATA_TO_DROP:
            cell.metadata.pop(key, None)


def execute(path: Path, timeout: int = 600) -> float:
    nb = nbformat.read(path, as_version=4)
    home = tempfile.mkdtemp(prefix="bertedu-home-")
    os.environ["BERTEDU_HOME"] = home
    os.environ["PYTHONHASHSEED"] = "0"
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.pop("MPLBACKEND", None)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        store_widget_state=True,  # needed by Output widgets; the state is stripped by clean()
    )
    start = time.perf_counter()
    try:
        client.execute()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    seconds = time.perf_counter() - start
    clean(nb)
    nbformat.validate(nb)
    tmp = path.with_suffix(".ipynb.tmp")
    nbformat.write(nb, tmp)
    os.replace(tmp, path)
    return seconds


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    total = 0.0
    for name in argv:
        path = Path(name)
        if not path.is_file():
            print(f"error: {name} is not a notebook file", file=sys.stderr)
            return 2
        seconds = execute(path)
        total += seconds
        print(f"{path.name}: {seconds:.1f} s")
    print(f"total: {total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
