"""Every question of every bank is asked in some notebook (the content review found the whole paper bank
and 04's init-loss never asked, so a student's progress table could never reach 100 %).

A question counts as asked when a notebook's code calls ``quiz.ask(bank, "id")`` or ``quiz.ask(bank, [...])``
with it, or ``quiz.ask(bank)`` / ``quiz.section(bank)`` with no ids (the whole bank). ``quiz.review`` draws
at random, so it does not count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest

from bertedu.teaching.quiz.banks import load_all

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def asked_in(source: str) -> set[tuple[str, str | None]]:
    """``{(bank, question id)}`` asked by ``quiz.ask`` / ``quiz.section`` calls in ``source``
    (``(bank, None)`` for a whole bank). Calls whose arguments are not literals are ignored."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython magics
        tree = ast.parse(
            "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
        )
    out = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in ("ask", "section") or getattr(node.func.value, "id", "") != "quiz":
            continue
        args = [ast.literal_eval(a) for a in node.args if isinstance(a, (ast.Constant, ast.List, ast.Tuple))]
        if not args or not isinstance(args[0], str):
            continue
        bank, ids = args[0], args[1] if len(args) > 1 else None
        if ids is None:
            out.add((bank, None))
        else:
            out |= {(bank, i) for i in ([ids] if isinstance(ids, str) else ids)}
    return out


def asked_everywhere() -> set[tuple[str, str | None]]:
    asked = set()
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                asked |= asked_in(cell.source)
    return asked


@pytest.mark.parametrize("bank", load_all(), ids=lambda b: b.notebook)
def test_every_question_is_asked_in_some_notebook(bank):
    asked = asked_everywhere()
    if (bank.notebook, None) in asked:
        return
    missing = [q.id for q in bank.questions if (bank.notebook, q.id) not in asked]
    assert not missing, f"{bank.notebook}: never asked in a notebook: {missing}"


def test_the_parser_finds_literal_calls_only():
    source = 'quiz.ask("b", "x")\nquiz.ask("b", ["y", "z"])\nquiz.section("c")\nquiz.ask(name, ids)\nquiz.review(n=3)'
    assert asked_in(source) == {("b", "x"), ("b", "y"), ("b", "z"), ("c", None)}
