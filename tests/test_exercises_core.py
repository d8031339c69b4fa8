"""The learntools-style Exercise wrapper: check / hint / solution."""

from __future__ import annotations

import pytest

from bertedu.exercises import Exercise


def _is_four(x):
    if x == 4:
        return True, "2 + 2 is 4."
    return False, f"{x} is not 2 + 2; add the two numbers."


EX = Exercise(
    "sum", "Compute 2 + 2.", _is_four, hints=["Add.", "It is even."], solution_code="answer = 2 + 2"
)


def test_check_passes_and_fails_with_messages():
    ok = EX.check(4)
    assert ok.passed and bool(ok) and "✅ Correct" in str(ok)
    bad = EX.check(5)
    assert not bad.passed and "5 is not 2 + 2" in bad.message and "❌ Not yet" in str(bad)


def test_check_without_an_answer_asks_for_one():
    result = EX.check(...)
    assert not result.passed and "no answer yet" in result.message


def test_check_reports_an_exception_in_student_code():
    ex = Exercise("call", "Write f.", lambda f: (f(1) == 2, "f(1) should be 2."))

    def broken(x):
        return x / 0

    result = ex.check(broken)
    assert not result.passed
    assert "ZeroDivisionError" in result.message and "broken" in result.message


def test_hints_come_one_at_a_time_and_solution_shows_code():
    ex = Exercise("h", "p", _is_four, hints=["first", "second"], solution_code="answer = 4")
    assert "Hint 1/2" in repr(ex.hint()) and "first" in repr(ex.hint(1))
    assert "second" in repr(ex.hint())
    assert "second" in repr(ex.hint())  # stays on the last hint
    with pytest.raises(ValueError, match="between 1 and 2"):
        ex.hint(3)
    assert "answer = 4" in ex.solution()._repr_markdown_()
