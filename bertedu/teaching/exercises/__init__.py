"""Hands-on exercises with ``check()``, ``hint()`` and ``solution()``, in the style of Kaggle learntools.

Each notebook's exercises live in a module named after its topic (``bertedu.teaching.exercises.attention`` for
notebook 01, ...). An exercise is an :class:`Exercise` wrapping a *plain checker function* that takes the
student's answer and returns ``(passed, message)``; the plain functions are what the unit tests call.

In a notebook::

    from bertedu.teaching.exercises import attention as ex
    ex.scaled_scores.check(my_scores)   # ✓ Correct / ✗ Not yet, with a message that says what to fix
    ex.scaled_scores.hint()             # one hint at a time
    ex.scaled_scores.solution()         # the reference answer, as code

Introduced in notebook 00.
"""

from bertedu.teaching.exercises.core import NOT_ANSWERED, CheckResult, Exercise, as_number

__all__ = ["CheckResult", "Exercise", "NOT_ANSWERED", "as_number"]
