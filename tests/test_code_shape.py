"""Code shape: no function in bertedu/, tools/, benchmarks/, data/ or hub/ is longer than MAX_FUNCTION_LINES lines
(issue 26; the tools, benchmarks and scripts since issue 41), with one temporary allow-list (:data:`TEMPORARY`).

A function that long does several jobs (``_pretrain`` had grown to 174 lines of setup around a 40-line
loop); a limit on functions measures design where a limit on files only decided where code lives. A
function's length is counted from its ``def`` line to its last line, docstring and comments included.
Split a function that outgrows the limit by job (CONTRIBUTING.md, "Package map").
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bertedu"
#: Every folder of Python source the rule covers (CONTRIBUTING: "No function is longer than 80 lines").
SOURCE_FOLDERS = ("bertedu", "tools", "benchmarks", "data", "hub")
MAX_FUNCTION_LINES = 80
#: TEMPORARY: over-long functions allowed for a while, {"path:function": its length when listed}. Empty since issue 39
#: split benchmarks/run_all.py:main (166 lines); a new entry needs a reason here.
TEMPORARY: dict[str, int] = {}


def function_lengths(path: Path, root: Path = ROOT) -> dict[str, tuple[int, int]]:
    """``{"path:Class.function": (first line, length in lines)}`` for every function and method in ``path``
    (``path`` relative to ``root``; a nested function counts inside its parent, and on its own)."""
    rel = path.relative_to(root).as_posix()
    found = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    found[f"{rel}:{name}"] = (child.lineno, child.end_lineno - child.lineno + 1)
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(path.read_text(encoding="utf-8")), "")
    return found


def all_function_lengths(package: Path = PACKAGE, root: Path = ROOT) -> dict[str, tuple[int, int]]:
    lengths = {}
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" not in path.parts:
            lengths.update(function_lengths(path, root))
    return lengths


def too_long(lengths: dict[str, tuple[int, int]]) -> list[str]:
    """``"path:line name() has N lines"`` for every function of ``lengths`` longer than the limit."""
    return [
        f"{name.split(':')[0]}:{line} {name.split(':')[1]}() has {length} lines"
        for name, (line, length) in lengths.items()
        if length > MAX_FUNCTION_LINES
    ]


def source_function_lengths(root: Path = ROOT) -> dict[str, tuple[int, int]]:
    """:func:`function_lengths` of every Python file in :data:`SOURCE_FOLDERS`."""
    lengths = {}
    for folder in SOURCE_FOLDERS:
        if (root / folder).is_dir():
            lengths.update(all_function_lengths(root / folder, root))
    return lengths


def test_no_function_is_longer_than_the_limit():
    lengths = source_function_lengths()
    assert any(name.startswith("tools/") for name in lengths) and any(
        n.startswith("benchmarks/") for n in lengths
    )
    offenders = too_long({name: v for name, v in lengths.items() if name not in TEMPORARY})
    assert not offenders, (
        f"functions longer than {MAX_FUNCTION_LINES} lines; split them by job:\n" + "\n".join(offenders)
    )


def test_the_temporary_allow_list_holds_only_what_is_still_too_long():
    """An entry of :data:`TEMPORARY` goes when its function is split (or shorter than when it was listed)."""
    lengths = source_function_lengths()
    stale = {
        name: lengths.get(name)
        for name, listed in TEMPORARY.items()
        if lengths.get(name, (0, 0))[1] <= MAX_FUNCTION_LINES
    }
    assert not stale, f"no longer over the limit (remove from TEMPORARY): {stale}"
    grown = {
        name: lengths[name][1]
        for name, listed in TEMPORARY.items()
        if name in lengths and lengths[name][1] > listed
    }
    assert not grown, f"grown since it was listed (split it instead): {grown}"
    assert all(name.startswith("benchmarks/") for name in TEMPORARY), "the allow-list is for benchmarks/ only"


def test_a_length_counts_from_def_to_the_last_line(tmp_path):
    """The measure itself: a method from its ``def`` to its last line, a nested function also on its own."""
    source = "class A:\n    def f(self):\n        def g():\n            return 1\n\n        return g\n"
    (tmp_path / "probe.py").write_text(source, encoding="utf-8")
    assert function_lengths(tmp_path / "probe.py", tmp_path) == {
        "probe.py:A.f": (2, 5),
        "probe.py:A.f.g": (3, 2),
    }


def test_one_line_over_the_limit_is_reported(tmp_path):
    """The rule can fail: in a package of two functions, the one a line too long is named with its place."""
    package = tmp_path / "pkg"
    package.mkdir()
    body = "    x = 0\n" * (MAX_FUNCTION_LINES - 2)
    fits = f"def fits():\n{body}    return x\n"  # exactly MAX_FUNCTION_LINES lines
    over = f"\n\ndef over():\n{body}    x += 1\n    return x\n"  # one more
    (package / "mod.py").write_text(fits + over, encoding="utf-8")
    lengths = all_function_lengths(package, tmp_path)
    assert lengths["pkg/mod.py:fits"][1] == MAX_FUNCTION_LINES
    assert too_long(lengths) == [
        f"pkg/mod.py:{MAX_FUNCTION_LINES + 3} over() has {MAX_FUNCTION_LINES + 1} lines"
    ]


def test_functions_do_not_repeat_the_notebook_their_module_names():
    """ "Introduced in notebook NN" belongs to the module docstring (and a class's), said once, not to every
    function: 235 copies had drifted apart (architecture review 2026-11-27, §2 item 16)."""
    repeated = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node) or ""
                if "Introduced in notebook" in doc:
                    repeated.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}()")
    assert not repeated, "say the notebook in the module docstring instead:\n" + "\n".join(repeated)


@pytest.mark.slow  # imports every exercise module (about 4 s)
def test_every_exercise_modules_all_names_its_exercises_and_checkers():
    """``__all__`` of an exercise module is one list that names every exercise and checker the module defines
    (the review of 2026-12-06 found four that left out their latest exercise)."""
    import importlib

    from bertedu.teaching.exercises.core import Exercise

    problems = []
    for path in sorted((PACKAGE / "teaching" / "exercises").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        if "__all__" not in source:
            continue
        if source.count("__all__") != 1:
            problems.append(f"{path.name}: one __all__ list, not additions to it")
        module = importlib.import_module(f"bertedu.teaching.exercises.{path.stem}")
        own = [
            name
            for name, value in vars(module).items()
            if (isinstance(value, Exercise) and name == value.name)
            or (name.startswith("check_") and getattr(value, "__module__", None) == module.__name__)
        ]
        problems += [f"{path.name}: {name} is not in __all__" for name in own if name not in module.__all__]
        problems += [
            f"{path.name}: __all__ names {n}, which it lacks"
            for n in module.__all__
            if not hasattr(module, n)
        ]
    assert not problems, "\n".join(problems)
