"""The learntools-style Exercise wrapper (check / hint / solution) and the helpers every checker shares: numbers
in any valid form, "right but rounded too much", the "not attempted yet" state of a stub, and labels that need
no emoji font."""

from __future__ import annotations

import ast
import fractions
from pathlib import Path

import numpy as np
import pytest
import torch

from bertedu.teaching import exercises
from bertedu.teaching.exercises import Exercise
from bertedu.teaching.exercises.core import (
    LABEL_CORRECT,
    LABEL_NOT_ATTEMPTED,
    LABEL_NOT_YET,
    NOT_ANSWERED,
    as_number,
    decimals_needed,
    number_problem,
    rounded_decimals,
    rounded_message,
)


def _is_four(x):
    if x == 4:
        return True, "2 + 2 is 4."
    return False, f"{x} is not 2 + 2; add the two numbers."


EX = Exercise(
    "sum", "Compute 2 + 2.", _is_four, hints=["Add.", "It is even."], solution_code="answer = 2 + 2"
)


def test_check_passes_and_fails_with_messages():
    ok = EX.check(4)
    assert ok.passed and bool(ok) and str(ok).startswith(LABEL_CORRECT) and ok.attempted, ok.message
    bad = EX.check(5)
    assert not bad.passed and "5 is not 2 + 2" in bad.message and str(bad).startswith(LABEL_NOT_YET), (
        bad.message
    )
    assert "<strong>✗ Not yet</strong>" in bad._repr_html_()


def test_check_without_an_answer_says_not_attempted():
    result = EX.check(...)
    assert not result.passed and not result.attempted and "no answer yet" in result.message, result.message
    assert str(result).startswith(LABEL_NOT_ATTEMPTED)


def test_a_stub_that_raises_not_implemented_is_not_attempted():
    ex = Exercise("call", "Write f.", lambda f: (f(1) == 2, "f(1) should be 2."))

    def stub(x):
        raise NotImplementedError("your code here")

    class Stub:
        def __init__(self, config):
            raise NotImplementedError

    for answer in (stub, Stub):
        result = ex.check(answer)
        assert not result.passed and not result.attempted, answer
    wrapped = Exercise("wrapped", "p", lambda f: f())  # raised inside another error: still a stub
    assert not wrapped.check(lambda: [][0] if False else stub(0)).attempted


def test_check_reports_an_exception_in_student_code():
    ex = Exercise("call", "Write f.", lambda f: (f(1) == 2, "f(1) should be 2."))

    def broken(x):
        return x / 0

    result = ex.check(broken)
    assert not result.passed and result.attempted, result.message
    assert "ZeroDivisionError" in result.message and "broken" in result.message


def test_hints_come_one_at_a_time_and_solution_shows_code():
    ex = Exercise("h", "p", _is_four, hints=["first", "second"], solution_code="answer = 4")
    assert "Hint 1/2" in repr(ex.hint()) and "first" in repr(ex.hint(1))
    assert "second" in repr(ex.hint())
    assert "second" in repr(ex.hint())  # stays on the last hint
    with pytest.raises(ValueError, match="between 1 and 2"):
        ex.hint(3)
    ex.check(3)  # a wrong attempt opens the solution
    assert "answer = 4" in ex.solution()._repr_markdown_()


def test_the_solution_opens_only_after_a_checked_attempt():
    ex = Exercise("h", "p", _is_four, solution_code="answer = 4")
    locked = ex.solution()._repr_markdown_()
    assert "answer = 4" not in locked and "first attempt" in locked and "ex.h.check(" in locked
    ex.check(NOT_ANSWERED)  # the untouched stub is not an attempt
    assert "answer = 4" not in ex.solution()._repr_markdown_()
    ex.check(5)  # a wrong answer is
    assert "answer = 4" in ex.solution()._repr_markdown_()
    broken = Exercise("b", "p", lambda f: (f() == 4, ""), solution_code="answer = 4")
    broken.check(lambda: 1 / 0)  # code that raises is an attempt too
    assert "answer = 4" in broken.solution()._repr_markdown_()


def test_points_and_expected_answer_are_declared_on_the_exercise():
    assert EX.points == 1 and EX.expected is None
    ex = Exercise("n", "p", _is_four, points=3, expected=lambda: 4)
    assert ex.points == 3 and ex.expected() == 4


# ---------------------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    "answer",
    [
        0.5,
        1,
        np.float32(0.5),
        np.float64(0.5),
        np.int64(1),
        np.array(0.5),
        np.array([0.5]),
        torch.tensor(0.5),
        torch.tensor([0.5], dtype=torch.float64),
        torch.tensor(1),
        torch.tensor(0.5, requires_grad=True),
        fractions.Fraction(1, 2),
    ],
    ids=repr,
)
def test_as_number_accepts_every_valid_form(answer):
    value = as_number(answer)
    assert isinstance(value, float) and value in (0.5, 1.0)


@pytest.mark.parametrize(
    "answer",
    [True, "0.5", [0.5], np.array([0.5, 1.0]), torch.tensor([1.0, 2.0]), None, torch.tensor(True)],
    ids=repr,
)
def test_as_number_refuses_what_is_not_one_number(answer):
    assert as_number(answer) is None
    assert "give" in number_problem(answer)


def test_number_problem_names_the_shape():
    assert "shape (2,)" in number_problem(np.array([1.0, 2.0]))


def test_rounded_answers_are_recognised():
    expected = 0.946995
    assert rounded_decimals(0.95, expected, atol=1e-3) == 2
    assert rounded_decimals(0.9, expected, atol=1e-3) == 1
    assert rounded_decimals(0.947, expected, atol=1e-3) is None  # close enough: right
    assert rounded_decimals(0.96, expected, atol=1e-3) is None  # not a rounding of it: wrong
    assert rounded_decimals(np.round([[0.1220, 0.5465]], 2), [[0.1220, 0.5465]], atol=1e-3) == 2
    assert decimals_needed(1e-3) == 3 and decimals_needed(1e-2) == 2
    assert "give at least 3 decimals" in rounded_message(2, atol=1e-3)


# ---------------------------------------------------------------------------------------- glyphs

# Emoji and pictographs need an emoji font (Chromium without one draws empty boxes). Kept: ✓ ✗ ○ (DejaVu Sans).
FORBIDDEN = [(0x1F000, 0x1FAFF), (0x2600, 0x27BF), (0xFE0F, 0xFE0F)]
KEPT = {"\u2713", "\u2717", "\u25cb"}
DEJAVU = Path(__import__("matplotlib").get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"


def pictographs(text: str) -> list[str]:
    return [
        f"U+{ord(c):04X}" for c in text if c not in KEPT and any(lo <= ord(c) <= hi for lo, hi in FORBIDDEN)
    ]


def test_no_exercise_string_needs_an_emoji_font():
    """Every string literal of bertedu/teaching/exercises (labels, messages, hints, solutions, docstrings)."""
    found = {}
    for path in sorted(Path(exercises.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and pictographs(node.value):
                found[f"{path.name}:{node.lineno}"] = pictographs(node.value)
    assert not found, found
    for text in (
        str(EX.check(4)),
        str(EX.check(5)),
        str(EX.check(...)),
        repr(EX.hint()),
        repr(EX.solution()),
    ):
        assert not pictographs(text), text


def test_the_kept_symbols_are_in_dejavu_sans():
    from matplotlib.ft2font import FT2Font

    font = FT2Font(str(DEJAVU))
    charmap = font.get_charmap()
    for symbol in KEPT:
        assert ord(symbol) in charmap, f"U+{ord(symbol):04X} has no glyph in DejaVu Sans"
    assert all(label[0] in KEPT for label in (LABEL_CORRECT, LABEL_NOT_YET, LABEL_NOT_ATTEMPTED))


def test_checking_the_code_a_notebook_hands_out_does_not_open_the_solution():
    ex = Exercise("fix", "p", _is_four, solution_code="answer = 4")
    result = ex.check(3, given=True)  # a find-the-bug exercise's buggy code: the check shows the symptom ...
    assert not result.passed and result.attempted
    assert "answer = 4" not in ex.solution()._repr_markdown_()  # ... but the student has not tried yet
    ex.check(3)
    assert "answer = 4" in ex.solution()._repr_markdown_()


def test_a_notebooks_own_example_of_a_mistake_does_not_open_the_solution():
    ex = Exercise("fix", "p", _is_four, solution_code="answer = 4")
    result = ex.check(3, example=True)  # the notebook shows how the checker reacts to a mistake ...
    assert not result.passed and result.attempted
    assert result.message == ex.check(3).message  # ... with the whole message, not only the symptom
    ex2 = Exercise("fix2", "p", _is_four, solution_code="answer = 4")
    ex2.check(3, example=True)
    assert "answer = 4" not in ex2.solution()._repr_markdown_()  # ... and the student has not tried yet
    ex2.check(3)
    assert "answer = 4" in ex2.solution()._repr_markdown_()


def test_every_find_the_bug_check_of_the_handed_out_code_is_marked_given():
    """In each notebook, a check that follows the handed-out buggy code (a code cell without a solution region,
    directly or after one cell that runs it, before the student's own version, reference-only cells aside) says
    ``given=True``; the student's own check does not."""
    import re

    import nbformat

    root = Path(__file__).resolve().parents[1] / "notebooks"
    found = 0
    for path in sorted(root.glob("[0-9][0-9]_*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        for i, cell in enumerate(cells[1:-1], start=1):
            if cell.cell_type != "code" or not re.match(r"ex\.\w+\.check\(", cell.source.strip()):
                continue
            # the next cell a student sees (a reference-only cell, tagged "solution", is not in the student edition)
            later = [c for c in cells[i + 1 :] if "solution" not in c.metadata.get("tags", [])]
            before, after = cells[i - 1].source, later[0].source if later else ""
            handed_out = "BEGIN SOLUTION" not in before and any(
                re.search(r"^(def|class) ", cell.source, re.M) and "BEGIN SOLUTION" not in cell.source
                for cell in cells[max(0, i - 2) : i]
            )
            if handed_out and "BEGIN SOLUTION" in after:
                found += 1
                assert "given=True" in cell.source, f"{path.name} cell {i}: the handed-out code's check"
            else:
                assert "given=True" not in cell.source, (
                    f"{path.name} cell {i}: a student's check marked given"
                )
    assert found >= 11
