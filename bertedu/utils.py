"""Small helpers shared by several modules: seeding (and a seed from parts), a block on N CPU threads, how often a
progress bar writes, locating the course's files (in a repository checkout, or installed with the package), a
file's SHA-256.

Introduced in notebook 00 (``set_seed`` is the first call of every notebook). Writing files and folders
so that a crash never leaves half of one is :mod:`bertedu.files`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
from pathlib import Path

DEFAULT_SEED = 0
#: The claims sweep's knob (``make bench``, benchmarks/bench_claims.py): every seed the course uses is shifted by it.
SEED_OFFSET_ENV = "BERTEDU_SEED_OFFSET"


def seed_offset() -> int:
    """How far every seed of the course is shifted: ``$BERTEDU_SEED_OFFSET``, 0 when unset.

    The notebooks fix their seeds (0, and 1-3 for comparisons); the claims sweep re-runs them with the offset
    1, 2, ... to see whether what they assert about training holds on other seeds too (another CPU is, in
    effect, another seed). :func:`set_seed` and the course's recipes (:mod:`bertedu.course`) add it.
    """
    raw = os.environ.get(SEED_OFFSET_ENV, "").strip()
    if not raw:
        return 0
    if not raw.isdigit():
        raise ValueError(
            f"{SEED_OFFSET_ENV}={raw!r} is not a non-negative integer; unset it, or set it to 0, 1, 2, ..."
        )
    return int(raw)


def set_seed(seed: int = DEFAULT_SEED, *, deterministic: bool = True) -> int:
    """Seed Python, NumPy and PyTorch, and make CPU runs repeatable.

    Call it at the top of a notebook (and again before any cell whose randomness you want to pin).
    With ``deterministic=True`` PyTorch is asked to use deterministic algorithms only, so the same code
    on the same machine gives the same numbers, run after run.

    Python's own hash seed (``PYTHONHASHSEED``, which orders sets of strings) cannot be changed here: the
    interpreter reads it once, at start-up. ``make`` and ``tools/execute_notebooks.py`` start kernels with
    ``PYTHONHASHSEED=0``, and no result of bertedu depends on the order of a set.

    The seed used is ``seed`` plus :func:`seed_offset` (0 unless the claims sweep sets it). Returns the seed
    used, so a notebook can print it.
    """
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"set_seed expects a non-negative integer seed, got {seed!r}.")
    seed += seed_offset()
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    if deterministic:
        use_deterministic_algorithms()
    return seed


def use_deterministic_algorithms() -> None:
    """``torch.use_deterministic_algorithms(True)``, without loading PyTorch's compiler to do it.

    PyTorch's function sets two flags: the one every operation reads, and ``deterministic`` in the compiler's
    configuration (``torch._inductor.config``, for ``torch.compile``), which it imports for that, with
    ``torch._dynamo`` and sympy: about 1.5 CPU-seconds in every notebook kernel and process that seeds. The
    course never compiles, so the compiler's flag is left for the compiler to read when something loads it:
    it reads ``$TORCHINDUCTOR_DETERMINISTIC``. If it is loaded already, PyTorch's own function sets both."""
    import sys

    import torch

    if "torch._inductor.config" in sys.modules:
        torch.use_deterministic_algorithms(True)
    else:
        os.environ["TORCHINDUCTOR_DETERMINISTIC"] = "1"  # what the compiler's flag starts from when it loads
        torch._C._set_deterministic_algorithms(True, warn_only=False)  # the flag every operation reads


def stable_seed(*parts: int | str) -> int:
    """A 63-bit seed from ints/strings, the same in every process and on every machine (unlike ``hash``)."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


@contextlib.contextmanager
def cpu_threads(n: int | None):
    """Run the block with ``n`` CPU threads (``None``: unchanged), then restore the previous setting."""
    import torch

    before = torch.get_num_threads()
    if n is not None:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


#: Seconds between two writes of a training loop's progress bar when it goes to a log file (tqdm's own default,
#: 0.1 s, is for a terminal, where each write replaces the last; in a log each one is kept).
LOG_PROGRESS_INTERVAL = 30.0


def progress_interval(file=None) -> float:
    """tqdm's ``mininterval`` for a training loop's bar: tqdm's default (0.1 s) in a terminal and in Jupyter (a
    widget there), :data:`LOG_PROGRESS_INTERVAL` where it writes to a log (``make site > site.log``, CI), which
    would otherwise get ten updates a second (newcomer review, 2026-12-06). ``file``: where the bar writes
    (standard error by default, as tqdm)."""
    import sys

    from tqdm.auto import tqdm as auto
    from tqdm.notebook import tqdm as notebook

    stream = sys.stderr if file is None else file
    if issubclass(auto, notebook):  # tqdm.auto chose the notebook widget: this runs in a Jupyter kernel
        return 0.1
    isatty = getattr(stream, "isatty", None)
    return 0.1 if callable(isatty) and isatty() else LOG_PROGRESS_INTERVAL


#: Where an installed course keeps its data: the wheel carries the repository's data/ as bertedu/data/ (setup.py).
PACKAGE_DATA = Path(__file__).resolve().parent / "data"


def _checkout_root() -> Path | None:
    """The repository checkout that holds the course, or None (an installed course, run from any folder).

    Looks upward from the current directory first (a notebook runs in ``notebooks/``), then from the folder
    above the package (an editable install), never from the package's own folder: in an installed wheel that
    holds ``data/`` too.
    """
    for start in (Path.cwd(), Path(__file__).resolve().parent.parent):
        for folder in [start, *start.parents]:
            if (folder / "data" / "simple_sentences.txt").is_file():
                return folder
    return None


def repo_root() -> Path:
    """The root of the bertedu checkout (the folder holding ``data/`` and ``notebooks/``).

    Looks upward from the current directory first (a notebook runs in ``notebooks/``), then from the
    folder above the package (an editable install). Raises ``FileNotFoundError`` with a hint if neither
    finds a ``data/simple_sentences.txt``. An installed course has no repository: its data is
    :func:`data_dir`, its runs go under :func:`output_root`.
    """
    root = _checkout_root()
    if root is None:
        raise FileNotFoundError(
            "Could not find the bertedu repository (a folder with data/simple_sentences.txt) above "
            f"{Path.cwd()}. Run the notebook from the repository's notebooks/ folder, or pass paths explicitly."
        )
    return root


def data_dir() -> Path:
    """The course's ``data/`` folder: the repository's in a checkout, else the one installed with the package."""
    root = _checkout_root()
    if root is not None:
        return root / "data"
    if PACKAGE_DATA.is_dir():
        return PACKAGE_DATA
    raise FileNotFoundError(
        f"The course's data/ folder is neither in a bertedu repository above {Path.cwd()} nor installed with "
        f"the package ({PACKAGE_DATA}). Run the notebook from the repository's notebooks/ folder, or install "
        "the course from its wheel (README: Install as a package)."
    )


#: The environment variable naming where the course saves its runs instead of ``runs/`` in the repository: a
#: class's hub sets it to a folder of each student's own (hub/jupyterhub_config.py), since the course package
#: there is shared and read-only.
RUNS_ENV = "BERTEDU_RUNS"


def runs_dir() -> Path:
    """Where the course saves its runs (notebook 06's model, cached side runs): ``$BERTEDU_RUNS`` if set (``~``
    expanded), else ``runs/`` under :func:`output_root` (the repository root in a checkout; for an installed
    course, the current directory)."""
    override = os.environ.get(RUNS_ENV)
    return Path(override).expanduser() if override else output_root() / "runs"


def data_path(name: str) -> Path:
    """Path of a file under the course's ``data/`` folder (:func:`data_dir`), with a clear error if it is missing."""
    folder = data_dir()
    path = folder / name
    if not path.exists():
        fix = (
            "restore it with `git checkout data/`"
            if folder != PACKAGE_DATA
            else "reinstall the course (pip install --force-reinstall of its wheel)"
        )
        raise FileNotFoundError(f"data/{name} is missing from {folder}; {fix}.")
    return path


def output_root() -> Path:
    """The folder under which the course writes its runs (``runs/``): the repository root in a checkout, else
    the current directory (an installed course: ``runs/`` next to the notebooks)."""
    root = _checkout_root()
    return Path.cwd() if root is None else root


def resolve_path(path: str | os.PathLike) -> Path:
    """``path`` if it exists as given (absolute, or relative to the working directory); else the same
    relative path under the repository root if it exists there; else, for ``data/...``, the same file in the
    data installed with the package if it exists there; else ``path`` unchanged.

    So ``"data/simple_sentences.txt"`` works from the repository root, from ``notebooks/`` and from any folder
    with an installed course alike.
    """
    path = Path(path)
    if path.exists() or path.is_absolute():
        return path
    root = _checkout_root()
    candidates = [root / path] if root is not None else []
    if path.parts[:1] == ("data",):
        candidates.append(PACKAGE_DATA.joinpath(*path.parts[1:]))
    return next((candidate for candidate in candidates if candidate.exists()), path)


def file_sha256(path: str | os.PathLike) -> str:
    """Hex SHA-256 of a file's bytes (to tell whether a checkpoint was trained on today's corpus), read in
    blocks of 1 MB so that a corpus larger than memory can be hashed too."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
