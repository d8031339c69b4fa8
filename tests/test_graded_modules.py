"""The graded package's modules, in memory and in the fast lane (mutation review 2026-12-06, N6: a graded build
that kept solutions was caught only by the slow round trips of tests/test_nbgrader.py and the instructor guide).
:func:`build_assignments.graded_module` is what ``write_graded_package`` does to each module of the package."""

from __future__ import annotations

from pathlib import Path

import build_assignments  # noqa: E402  (pyproject.toml's pythonpath puts tools/ on sys.path)
import pytest
from build_assignments import MARKER, MARKER_MODULE, graded_module, strip_solutions

from bertedu import language

ROOT = Path(__file__).resolve().parents[1]

# Each way a module can hold a solution, alone in its module (a skipped module would keep it whole).
POSITIONAL = """\
from bertedu.teaching.exercises.core import Exercise

first = Exercise("first", "Write x.", check, ["a hint"], "x = torch.ones(3)  # the whole answer\\n")
"""
KEYWORD = """\
from bertedu.teaching.exercises.core import make_exercise

second = make_exercise(name="second", solution_code="y = x.sum()\\n")
given = make_exercise(name="given", solution_code="")
"""
MARKED = f"{MARKER} = False\n"


@pytest.mark.parametrize(
    "source, answer, removed, marked",
    [(POSITIONAL, "torch.ones(3)", 1, False), (KEYWORD, "x.sum()", 1, False), (MARKED, "", 0, True)],
    ids=["Exercise's fifth argument", "solution_code=", "the marker"],
)
def test_a_module_loses_every_solution_and_the_marker_module_is_marked(source, answer, removed, marked):
    graded, n, is_marked = graded_module(source, "bertedu/teaching/exercises/probe.py")
    assert (n, is_marked) == (removed, marked)
    assert answer not in graded or not answer
    assert (f"{MARKER} = True" in graded) == marked and ("a hint" in graded) == ("a hint" in source)
    compile(graded, "probe.py", "exec")


@pytest.mark.parametrize(
    "source",
    [
        'TEXT = "no exercise here"\n',
        "def solution_code_of(x):\n    return x\n",  # a name that contains the word: parsed, nothing removed
    ],
)
def test_a_module_without_solutions_is_kept_as_it_is(source):
    assert graded_module(source, "probe.py") == (source, 0, False)


def _package_modules() -> dict[str, str]:
    return {
        path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted((ROOT / "bertedu").rglob("*.py"))
        if "__pycache__" not in path.parts
    }


def test_no_module_of_the_package_keeps_a_solution_in_the_graded_build():
    """Every module, parsed whatever its text says: the graded build removes every solution that a full parse
    finds (no module is skipped that holds one), none is left after it, and only the marker module is marked.
    The Chinese catalogs hold no solution code: the Chinese solutions are generated from the English ones."""
    removed, marked = 0, []
    for name, source in _package_modules().items():
        graded, n, is_marked = graded_module(source, name)
        assert n == strip_solutions(source, name)[1], f"{name}: the graded build skips solutions"
        assert strip_solutions(graded, name)[1] == 0, f"{name}: a solution is left"
        removed += n
        marked += [name] if is_marked else []
    assert removed >= 30 and marked == [MARKER_MODULE]
    for module in language.CATALOG_MODULES["zh"]:
        source = (ROOT / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8")
        assert "SOLUTIONS" not in source and "solution_code" not in source, module
    assert build_assignments.write_graded_package  # the function that writes these modules (slow test: N6)
