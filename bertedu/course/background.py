"""Background runs: functions that train in a second process while a notebook goes on, and a cache of their
finished results.

Generic: a :class:`RunRegistry` names the functions (name -> function called with keyword arguments) and how
a result becomes plain data (tensors, numbers, strings, lists and dicts of them) and back; a subclass of
:class:`BackgroundRuns` binds a registry and starts its runs (:meth:`BackgroundRuns.start`). The course's side
runs (:mod:`bertedu.course.side_runs`) are the one user.

Part of :mod:`bertedu.course` (the course's recipes); introduced in notebook 06.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import importlib.metadata
import inspect
import io
import logging
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from tqdm.auto import tqdm

from bertedu.files import atomic_write
from bertedu.language import msg, translatable, translate
from bertedu.utils import data_dir, runs_dir, seed_offset

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunRegistry:
    """What a set of background runs is. ``functions``: name -> function (keyword arguments only; it must be
    deterministic, so a run gives the same result in either process). ``to_payload(name, result)``: the result
    as plain data that ``torch.load(..., weights_only=True)`` reads back; ``from_payload(name, payload)``: the
    result rebuilt from it. ``packages``: distributions whose versions the cache key includes (besides
    torch's). ``what``: what a run is called in messages. Introduced in notebook 06."""

    functions: Mapping[str, Callable[..., Any]]
    to_payload: Callable[[str, Any], dict]
    from_payload: Callable[[str, dict], Any]
    packages: tuple[str, ...] = ()
    what: str = translatable("background run")  # shown through translate() in the progress bar


class BackgroundRuns:
    """Runs of :attr:`registry` (set by a subclass), started by :meth:`start` in a second process.

    ``result(name)`` waits for run ``name`` and returns what its function returns. If the second process could
    not start, was interrupted or failed, the run is trained here instead, with the same result (the registry's
    functions are deterministic). Introduced in notebook 06.
    """

    registry: RunRegistry

    def __init__(self, runs: dict[str, dict], executor=None, futures: dict | None = None, problem: str = ""):
        self.runs = runs  # name -> keyword arguments of its function
        self._executor, self._futures, self._problem = executor, dict(futures or {}), problem
        self._results: dict[str, Any] = {}

    @classmethod
    def start(cls, runs: dict[str, dict]):
        """Start ``runs`` (name -> keyword arguments, in the order they are needed) in a second process and
        return at once. Runs found in the cache (:func:`cache_dir`) are not trained again; on a one-core
        computer, or if no process can start, nothing is started and each run trains when ``result`` asks."""
        what, functions = cls.registry.what, cls.registry.functions
        unknown = [name for name in runs if name not in functions]
        if unknown:
            raise ValueError(f"No {what}(s) {unknown}; the {what}s are {list(functions)}.")
        to_train = {name: kw for name, kw in runs.items() if cached_bytes(cls.registry, name, kw) is None}
        if not to_train:  # all of them trained before: collected from the cache when asked for
            return cls(runs)
        if (os.cpu_count() or 1) < 2:
            return cls(runs, problem="this computer has one CPU core")
        try:
            executor = concurrent.futures.ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=_quiet_worker
            )
            futures = {
                name: executor.submit(run_bytes, cls.registry, name, kwargs)
                for name, kwargs in to_train.items()
            }
        except Exception as err:  # no process can start here (a restricted platform): train them when asked
            return cls(runs, problem=f"no second process ({type(err).__name__}: {err})")
        return cls(runs, executor, futures)

    @property
    def in_background(self) -> bool:
        """True if the runs were started in a second process."""
        return bool(self._futures)

    def result(self, name: str):
        """Run ``name``'s result: from the second process (waiting for it if needed), or trained here."""
        what = self.registry.what
        if name not in self.runs:
            raise ValueError(f"No {what} {name!r} was started; the {what}s are {list(self.runs)}.")
        if name not in self._results:
            self._results[name] = self._fetch(name)
            if self._executor is not None and len(self._results) == len(self.runs):
                self._executor.shutdown(wait=False)  # every run fetched: the second process can end
                self._executor = None
        return self._results[name]

    def _fetch(self, name: str):
        registry = self.registry
        future = self._futures.get(name)
        if future is not None:
            if not future.done():  # with a free core, the runs are done before they are needed
                with tqdm(
                    desc=msg("waiting for the {what} {name!r}", what=translate(registry.what), name=name),
                    bar_format="{desc}: {elapsed}",
                ) as bar:
                    while not concurrent.futures.wait([future], timeout=0.5).done:
                        bar.refresh()
            try:
                return result_from_bytes(registry, name, future.result())
            except BaseException as err:
                if not future.done():  # Ctrl-C while waiting here: stop
                    raise
                self._problem = f"the second process stopped ({type(err).__name__}: {err})"
        cached = cached_bytes(registry, name, self.runs[name])
        if cached is not None:  # trained before, with the same settings and code: no need to train again
            return result_from_bytes(registry, name, cached)
        logger.warning(
            "Training the %s %r here: %s.", registry.what, name, self._problem or "no second process"
        )
        kwargs = dict(self.runs[name])
        if "progress" in inspect.signature(registry.functions[name]).parameters:
            kwargs.setdefault("progress", True)  # trained in the notebook's own process: show its progress
        return result_from_bytes(registry, name, run_bytes(registry, name, kwargs))


def _quiet_worker() -> None:
    """Set up the second process: its output goes nowhere (a notebook would show it in whatever cell runs),
    and on Linux it ends with the notebook's kernel instead of finishing runs nobody will read."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG: SIGTERM when the parent ends
        except (OSError, AttributeError):
            pass


# ----------------------------------------------------------------------------------------------------------
# The cache of finished runs


def cache_dir() -> Path:
    """Where finished runs are kept: ``$BERTEDU_SIDE_RUNS`` if set, else ``side-runs/`` in the course's runs
    folder (:func:`bertedu.utils.runs_dir`: ``runs/`` under the repository root, which git ignores and ``make
    clean`` deletes; on a class's hub, each student's own; for an installed course, under the current folder)."""
    override = os.environ.get("BERTEDU_SIDE_RUNS")
    return Path(override) if override else runs_dir() / "side-runs"


def _code_and_data_digest() -> str:
    """SHA-256 over every source file of the bertedu package and every file in ``data/``."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parents[1]
    files = [(p, p.relative_to(package)) for p in sorted(package.rglob("*.py"))]
    data = data_dir()
    files += [(p, Path("data") / p.relative_to(data)) for p in sorted(data.rglob("*")) if p.is_file()]
    for path, shown in files:
        digest.update(str(shown).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def cpu_kernels() -> tuple[str, ...]:
    """The CPU kernels torch uses here (its vector instruction set, and what the environment variables
    ``ATEN_CPU_CAPABILITY``, ``DNNL_MAX_CPU_ISA`` and ``MKL_ENABLE_INSTRUCTIONS`` choose): floating-point sums
    differ in their last digits from one kernel set to another, so a result trained with one is not reused
    with another.

    ``$BERTEDU_SIDE_RUN_KERNELS`` (the names this function returns, joined by ``|``) names other kernels instead:
    a test run under another kernel set then reuses the runs trained under those (``make nbval``'s Chinese edition
    checks the notebooks' own cells under another CPU's kernels, with the English run's side runs)."""
    named = os.environ.get("BERTEDU_SIDE_RUN_KERNELS")
    if named:
        return tuple(named.split("|"))
    chosen = [f"{v}={os.environ.get(v, '')}" for v in ("DNNL_MAX_CPU_ISA", "MKL_ENABLE_INSTRUCTIONS")]
    return (torch.backends.cpu.get_cpu_capability(), *chosen)


def run_key(registry: RunRegistry, name: str, kwargs: dict) -> str:
    """16 hex digits naming run ``name`` with ``kwargs``: a hash of the name, the keyword arguments (but
    ``progress``), bertedu's source code, the files in ``data/``, the versions of torch and of the registry's
    ``packages``, the seed offset (:func:`bertedu.utils.seed_offset`) and the CPU kernels (:func:`cpu_kernels`)."""
    settings = {k: v for k, v in sorted(kwargs.items()) if k != "progress"}
    versions = []
    for package in registry.packages:
        try:
            versions.append(importlib.metadata.version(package))
        except importlib.metadata.PackageNotFoundError:
            versions.append("none")
    offset = f"seed offset {seed_offset()}"  # the claims sweep re-runs the notebooks on other seeds
    parts = [
        name,
        repr(settings),
        offset,
        torch.__version__,
        *versions,
        _code_and_data_digest(),
        *cpu_kernels(),
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _cache_path(registry: RunRegistry, name: str, kwargs: dict) -> Path:
    return cache_dir() / f"{name}-{run_key(registry, name, kwargs)}.pt"


def cached_bytes(registry: RunRegistry, name: str, kwargs: dict) -> bytes | None:
    """The cached bytes of run ``name``, or None (not trained yet, or a damaged file, which is deleted)."""
    path = _cache_path(registry, name, kwargs)
    try:
        data = path.read_bytes()
        if torch.load(io.BytesIO(data), weights_only=True)["name"] != name:
            raise ValueError("another run's file")
        return data
    except FileNotFoundError:
        return None
    except Exception:  # truncated, foreign or unreadable: train it again
        with contextlib.suppress(OSError):
            path.unlink()
        return None


def run_bytes(registry: RunRegistry, name: str, kwargs: dict) -> bytes:
    """Run ``name``'s result as bytes (``torch.save`` of ``{"name", "result": to_payload(...)}``, read back with
    ``weights_only=True``): from the cache, or trained here (in the second process) and then cached."""
    cached = cached_bytes(registry, name, kwargs)
    if cached is not None:
        return cached
    result = registry.functions[name](**kwargs)
    buffer = io.BytesIO()
    torch.save({"name": name, "result": registry.to_payload(name, result)}, buffer)
    data = buffer.getvalue()
    with contextlib.suppress(
        OSError
    ):  # a read-only checkout or a full disk: no cache, the result still counts
        path = _cache_path(registry, name, kwargs)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, lambda tmp: tmp.write_bytes(data))
    return data


def result_from_bytes(registry: RunRegistry, name: str, data: bytes):
    """Run ``name``'s result rebuilt from :func:`run_bytes` (``from_payload``: for a model, the same weights)."""
    payload = torch.load(io.BytesIO(data), weights_only=True)
    return registry.from_payload(name, payload["result"])
