"""Environment check: is everything the course needs installed, at the tested versions?

Run it first, from a terminal in the repository, with the course's Python (the one `make lab` installs)::

    .venv/bin/python -m bertedu.doctor

or from a notebook (``from bertedu.doctor import run_checks; run_checks()``). Each line says OK, WARN or
FAIL, and every FAIL comes with the command that fixes it. The exit code is 0 when nothing failed.

Run with another interpreter (a system ``python``, say), the doctor says so and points to the course's
``.venv`` instead of suggesting installs into that interpreter.

This module imports nothing beyond the standard library at load time, so it still works when PyTorch
itself is what is broken. Introduced in notebook 00.
"""

from __future__ import annotations

import importlib
import importlib.metadata as metadata
import os
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from bertedu.core.minilm import (  # both modules: standard library only
    INSTALL_HINT,
    MINILM_PACKAGE,
    minilm_dir,
)
from bertedu.language import msg, translatable, translate  # standard library only
from bertedu.utils import PACKAGE_DATA, RUNS_ENV, repo_root, runs_dir

#: Runtime requirements (distribution name, import name, tested version). Kept equal to pyproject.toml's
#: dependencies by tests/test_packaging.py.
REQUIRED: tuple[tuple[str, str, str], ...] = (
    ("torch", "torch", "2.13.0"),
    ("numpy", "numpy", "2.4.6"),
    ("matplotlib", "matplotlib", "3.11.2"),
    ("seaborn", "seaborn", "0.13.2"),
    ("pandas", "pandas", "3.1.1"),
    ("ipywidgets", "ipywidgets", "8.1.9"),
    ("anywidget", "anywidget", "0.11.0"),
    ("jupyterlab", "jupyterlab", "4.6.6"),
    ("notebook", "notebook", "7.6.5"),
    ("ipykernel", "ipykernel", "7.4.0"),
    ("tqdm", "tqdm", "4.70.1"),
    ("safetensors", "safetensors", "0.8.0"),
    ("pyyaml", "yaml", "6.0.3"),
    ("filelock", "filelock", "4.2.12"),
)
#: The pinned packages publish no builds for Python 3.10 (ipykernel 7.4 and filelock 4.2 require 3.11).
MIN_PYTHON = (3, 11)
FIX_ALL = translatable("run `make lab` (or `make test`) from the repository root to (re)install the course")
#: PyTorch's own index of CPU-only wheels (the Makefile's TORCH_CPU_INDEX_URL). On Linux, PyPI's torch is the
#: CUDA build, several GB with its nvidia-* requirements, so the doctor never suggests a plain install.
TORCH_CPU_INDEX_URL = "https://download.pytorch.org/whl/cpu"
#: Where `make lab` puts the course's virtual environment, relative to the repository root.
COURSE_VENV = ".venv"
#: The fix of a package check when another Python runs the doctor: installing into it would be wrong.
NOT_FOR_THIS_PYTHON = translatable("not for this Python: see the 'interpreter' line")


@dataclass(frozen=True)
class Interpreter:
    """Which Python runs the doctor, compared with the course's ``.venv`` (when the repository is found).
    ``installed_for_you``: an environment the student cannot change, set up by someone else (a class's
    JupyterHub, hub/jupyterhub_config.py): not compared with a ``.venv``, and its fixes are for the instructor."""

    executable: str
    venv: Path | None  # the repository's .venv folder; None when the repository was not found
    installed_for_you: bool = False

    @property
    def is_course_venv(self) -> bool:
        return self.venv is not None and _same_path(sys.prefix, self.venv)

    @property
    def is_other(self) -> bool:
        """True when the repository is known and this Python is not its .venv's (nor one installed for you)."""
        return self.venv is not None and not self.is_course_venv and not self.installed_for_you

    @property
    def venv_python(self) -> Path | None:
        if self.venv is None:
            return None
        return self.venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")

    def python_command(self) -> str:
        """How to type this interpreter: `.venv/bin/python` in the course's venv, else its full path."""
        if self.is_course_venv and self.venv_python is not None:
            return _display_path(self.venv_python)
        return shlex.quote(self.executable)

    def use_venv_advice(self) -> str:
        """What to run instead, when this is not the course's Python."""
        python = _display_path(self.venv_python) if self.venv_python is not None else ".venv/bin/python"
        command = f"`{python} -m bertedu.doctor`"
        if self.venv_python is not None and self.venv_python.exists():
            return msg("run {command} instead (or `make lab`, which uses that Python)", command=command)
        return msg(
            "create the course's {venv} with `make lab` (from the repository root), then run {command}",
            venv=COURSE_VENV,
            command=command,
        )


def _same_path(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def _display_path(path: Path) -> str:
    """``path`` as a student types it: relative to the repository root when it lies inside the repository
    (``.venv/bin/python``), else relative to the working directory when it lies below it or one level up,
    else absolute (outputs never show home folders)."""
    try:
        # abspath, not resolve: .venv/bin/python is a symlink to the base interpreter
        return Path(os.path.abspath(path)).relative_to(os.path.abspath(repo_root())).as_posix()
    except (ValueError, FileNotFoundError, OSError):
        pass
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)
    return relative if not relative.startswith(os.pardir + os.sep + os.pardir) else str(path)


def installed_for_you() -> bool:
    """Whether this Python is an environment the student cannot change: a server a JupyterHub started
    (``JUPYTERHUB_USER`` is set in it, its terminals and kernels) or one whose folder they cannot write."""
    return bool(os.environ.get("JUPYTERHUB_USER")) or not os.access(sys.prefix, os.W_OK)


def find_interpreter() -> Interpreter:
    """The running interpreter and the course's ``.venv`` (None if the repository cannot be found)."""
    try:
        venv: Path | None = repo_root() / COURSE_VENV
    except FileNotFoundError:
        venv = None
    return Interpreter(sys.executable, venv, installed_for_you=installed_for_you() and not _has_venv(venv))


def _has_venv(venv: Path | None) -> bool:
    """Whether the course's ``.venv`` exists (``make lab`` made it): then it is the one to compare with."""
    return venv is not None and venv.is_dir()


def _ask_the_instructor(command: str) -> str:
    return msg(
        "ask your instructor to run {command} (this Python was installed for you; you cannot change it)",
        command=command,
    )


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
    #: Said after the count of failures: what to do first (set when the wrong interpreter runs the doctor).
    advice: str = ""

    @property
    def ok(self) -> bool:
        return all(c.status != "FAIL" for c in self.checks)

    def lines(self) -> list[str]:
        width = max((len(c.name) for c in self.checks), default=10)
        out = []
        for c in self.checks:
            out.append(f"[{c.status:>4}] {c.name:<{width}}  {c.detail}")
            if c.fix and c.status != "OK":
                out.append(f"{'':7}{'':<{width}}  {msg('fix: {fix}', fix=c.fix)}")
        failed = sum(c.status == "FAIL" for c in self.checks)
        if not failed:
            out.append(msg("All checks passed: you are ready for the course."))
        elif self.advice:
            out.append(msg("{failed} check(s) failed. {advice}", failed=failed, advice=self.advice))
        else:
            out.append(
                msg(
                    "{failed} check(s) failed: follow the 'fix' lines above, then run the doctor again.",
                    failed=failed,
                )
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
            msg("{version} is too old", version=version),
            msg(
                "install Python {minimum} or newer (3.11 is tested), then `make clean lab PYTHON=python3.11`",
                minimum=f"{MIN_PYTHON[0]}.{MIN_PYTHON[1]}",
            ),
        )
    return Check("python", "OK", version)


def _pip_fix(dist: str, tested: str, interpreter: Interpreter) -> str:
    """The command that installs ``dist==tested`` into this interpreter (never a CUDA torch by surprise)."""
    if interpreter.is_other:
        return translate(NOT_FOR_THIS_PYTHON)
    pip = f"{interpreter.python_command()} -m pip install"
    if interpreter.installed_for_you:
        index = f" --index-url {TORCH_CPU_INDEX_URL}" if dist == "torch" else ""
        return _ask_the_instructor(f"`{pip} '{dist}=={tested}'{index}`")
    if dist == "torch":
        command = f"{pip} 'torch=={tested}' --index-url {TORCH_CPU_INDEX_URL}"
        return msg(
            "{command}  (the CPU build; without --index-url pip takes PyPI's torch, on Linux the CUDA build "
            "of several GB; or `make install TORCH_INDEX=cpu`)",
            command=command,
        )
    return f"{pip} '{dist}=={tested}'"


def _check_package(dist: str, module: str, tested: str, interpreter: Interpreter | None = None) -> Check:
    interpreter = interpreter or find_interpreter()
    pin = _pip_fix(dist, tested, interpreter)
    try:
        importlib.import_module(module)
    except Exception as exc:  # ImportError, or a broken install raising something else on import
        alone = interpreter.is_other or interpreter.installed_for_you
        fix = pin if alone else msg("{pin}  (or {fix_all})", pin=pin, fix_all=translate(FIX_ALL))
        return Check(
            dist, "FAIL", msg("cannot be imported ({error}: {exc})", error=type(exc).__name__, exc=exc), fix
        )
    try:
        installed = metadata.version(dist)
    except metadata.PackageNotFoundError:
        return Check(dist, "WARN", msg("imports, but pip does not know its version"), pin)
    if installed.split("+")[0] != tested:
        detail = msg(
            "{installed} installed, the course is tested with {tested}", installed=installed, tested=tested
        )
        return Check(dist, "WARN", detail, pin)
    return Check(dist, "OK", installed)


def _check_interpreter(interpreter: Interpreter, others: list[Check]) -> Check:
    """OK in the course's .venv; in another Python, as bad as the package checks it caused."""
    python = interpreter.executable
    if interpreter.installed_for_you:
        return Check(
            "interpreter", "OK", msg("{python}: installed for you (a class's server)", python=python)
        )
    if interpreter.venv is None:
        return Check("interpreter", "OK", msg("{python} (repository not found: not compared)", python=python))
    if interpreter.is_course_venv:
        where = _display_path(Path(interpreter.executable))
        return Check("interpreter", "OK", msg("the course's {venv} ({where})", venv=COURSE_VENV, where=where))
    statuses = {c.status for c in others}
    status = "FAIL" if "FAIL" in statuses else "WARN" if "WARN" in statuses else "OK"
    if status == "OK":
        return Check("interpreter", "OK", msg("{python}: your own environment, complete", python=python))
    return Check(
        "interpreter",
        status,
        msg(
            "{python} is not the course's Python ({venv})",
            python=python,
            venv=_display_path(interpreter.venv),
        ),
        msg(
            "{advice}. Do not install the course into this Python (unless it is an environment you made for "
            "the course: README, 'Other ways to install')",
            advice=interpreter.use_venv_advice(),
        ),
    )


def _check_torch_build() -> Check | None:
    try:
        import torch
    except Exception:
        return None  # already reported by the package check
    threads = torch.get_num_threads()
    if torch.version.cuda:
        build = msg("CUDA {version} build (works, but large)", version=torch.version.cuda)
    else:
        build = msg("CPU build")
    return Check("torch runtime", "OK", msg("{build}, {threads} thread(s)", build=build, threads=threads))


def _check_minilm(interpreter: Interpreter) -> Check:
    command = f"{interpreter.python_command()} -m {INSTALL_HINT}"
    if interpreter.is_other:
        fix = translate(NOT_FOR_THIS_PYTHON)
    elif interpreter.installed_for_you:
        fix = _ask_the_instructor(f"`{command}`")
    else:
        fix = msg("{command}  (--no-deps: the course needs none of its requirements)", command=command)
    try:
        minilm_dir()
    except FileNotFoundError as err:
        problem = str(err).splitlines()[0]
        if "not installed" in problem:
            problem = msg("the package {package} is not installed", package=MINILM_PACKAGE)
        return Check("pretrained MiniLM", "FAIL", problem, fix)
    return Check(
        "pretrained MiniLM",
        "OK",
        msg("all-MiniLM-L6-v2 files found (config.json, model.safetensors, vocab.txt)"),
    )


def _check_course_files() -> Check:
    try:
        root = repo_root()
    except FileNotFoundError:
        # an installed course (README: "Install as a package") carries its data in the package
        if (PACKAGE_DATA / "simple_sentences.txt").is_file():
            files = sum(p.is_file() for p in PACKAGE_DATA.rglob("*"))
            return Check("course files", "OK", msg("data/ installed with the package, {n} files", n=files))
        return Check(
            "course files",
            "WARN",
            msg("data/simple_sentences.txt not found from this folder"),
            msg("run the doctor from inside the bertedu repository (or its notebooks/ folder)"),
        )
    if not (root / "notebooks").is_dir():  # the course package alone (a class's server): notebooks come apart
        return Check("course files", "OK", msg("data/ found next to the course package ({root})", root=root))
    notebooks = len(list((root / "notebooks").glob("[0-9][0-9]_*.ipynb")))
    return Check("course files", "OK", msg("data/ found, {n} notebooks", n=notebooks))


def _writable(folder: Path) -> bool:
    """Whether this user can create ``folder`` or write in it (the nearest folder that exists decides)."""
    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    return existing is not None and existing.is_dir() and os.access(existing, os.W_OK | os.X_OK)


def _check_runs() -> list[Check]:
    """Where notebooks 06-10 save runs (``runs_dir()``) and whether they can; where the course model is."""
    try:
        runs = runs_dir()
        pretrained = repo_root() / "runs" / "mini-bert"
    except FileNotFoundError:
        return []  # reported by the course files check
    if not _writable(runs):
        fix = msg(
            "in a notebook, run `import os; os.environ['{env}'] = os.path.expanduser('~/bertedu-runs')` first; "
            "on a class's server, ask your instructor (hub/jupyterhub_config.py gives every student a folder)",
            env=RUNS_ENV,
        )
        detail = msg(
            "you cannot write to {folder}: notebooks 06, 07, 08 and 10 save runs there",
            folder=_display_path(runs),
        )
        return [Check("runs folder", "WARN", detail, fix)]
    shown = _display_path(runs)
    checks = [Check("runs folder", "OK", msg("{folder}/ (notebooks 06-10 save runs there)", folder=shown))]
    if _has_model(runs / "mini-bert"):
        model = msg("trained, in {folder}", folder=_display_path(runs / "mini-bert"))
    elif _has_model(pretrained):
        model = msg("pre-trained for the class, in {folder} (read only)", folder=_display_path(pretrained))
    else:
        model = msg("not trained yet: notebook 06 trains it (about a minute), 07, 08 and 10 load it")
    return [*checks, Check("course model", "OK", model)]


def _has_model(folder: Path) -> bool:
    return all((folder / name).is_file() for name in ("model.safetensors", "trainer_state.json"))


def _check_widgets_frontend(interpreter: Interpreter) -> Check:
    try:
        version = metadata.version("jupyterlab_widgets")
    except metadata.PackageNotFoundError:
        return Check(
            "widgets front end",
            "FAIL",
            msg("jupyterlab_widgets is missing: quizzes would not render"),
            _pip_fix("ipywidgets", "8.1.9", interpreter),
        )
    return Check("widgets front end", "OK", f"jupyterlab_widgets {version}")


def run_checks() -> Report:
    """Run every check and return a :class:`Report` (printable, truthy attribute ``ok``)."""
    interpreter = find_interpreter()
    checks = [_check_package(*req, interpreter=interpreter) for req in REQUIRED]
    torch_check = _check_torch_build()
    if torch_check is not None:
        checks.append(torch_check)
    checks += [_check_widgets_frontend(interpreter), _check_minilm(interpreter), _check_course_files()]
    checks += _check_runs()
    interpreter_check = _check_interpreter(interpreter, checks)
    report = Report([_check_python(), interpreter_check, *checks])
    if interpreter_check.status == "FAIL":
        report.advice = msg(
            "This is not the course's Python: {advice}.", advice=interpreter.use_venv_advice()
        )
    elif interpreter.installed_for_you:
        report.advice = msg("This Python was installed for you: show these lines to your instructor.")
    return report


def main(argv: list[str] | None = None) -> int:
    """Print the report; exit code 0 when every check passed (WARN is not a failure), 1 otherwise."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if argv:
        print(
            msg("bertedu.doctor takes no arguments (got {args!r}); try --help.", args=" ".join(argv)),
            file=sys.stderr,
        )
        return 2
    report = run_checks()
    print(msg("bertedu doctor: checking your environment") + "\n")
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
