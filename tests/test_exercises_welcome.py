"""Notebook 00's exercise: correct answers pass, typical wrong ones get a targeted message."""

from bertedu.teaching.exercises import welcome as ex
from bertedu.teaching.exercises.welcome import check_expected_masked


def test_correct_answers_pass():
    assert check_expected_masked(30)[0]
    assert check_expected_masked(30.0)[0]
    result = ex.expected_masked.check(0.15 * 200)
    assert result.passed, result.message


def test_typical_mistakes_are_named():
    ok, msg = check_expected_masked(24)
    assert not ok and "[MASK]" in msg and "80 %" in msg, msg
    ok, msg = check_expected_masked(15)
    assert not ok and "rate, not a count" in msg, msg
    ok, msg = check_expected_masked("thirty")
    assert not ok and "give a number" in msg, msg
    ok, msg = check_expected_masked(31)
    assert not ok and "Multiply 200 by 0.15" in msg, msg


def test_unanswered_exercise_asks_for_an_answer():
    assert "no answer yet" in ex.expected_masked.check(...).message
