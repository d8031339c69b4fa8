"""Quizzes and flashcards for every notebook: bilingual (English / 简体中文), graded, with saved progress.

In a notebook::

    from bertedu.teaching import quiz
    quiz.ask("00_welcome", "show-solution")            # one question
    quiz.ask("00_welcome", ["set-seed", "make-test"])  # several, under one title
    quiz.flashcards("00_welcome")                      # a deck of cards
    quiz.review(n=12, seed=0)                          # a mixed quiz over every bank
    quiz.set_language("zh")                            # every quiz widget switches to Chinese
    quiz.progress()                                    # what you have answered so far
    quiz.export_progress("me.json")                    # a copy for your instructor

Questions live in ``bertedu/teaching/quiz/banks/NN_topic.yaml`` (schema in CONTRIBUTING.md and
:mod:`bertedu.teaching.quiz.banks`); grading is plain Python (:func:`grade`), separate from the widgets
(:mod:`bertedu.teaching.quiz.widgets`); progress is one JSON file under ``$BERTEDU_HOME``
(:mod:`bertedu.teaching.quiz.store`), safe under concurrent notebooks and against damage. The language comes from
:func:`set_language`, else ``$BERTEDU_LANG``, else English. Instructors turn a folder of exports into a
class report with ``python -m bertedu.teaching.quiz.report EXPORTS --out REPORT`` (:mod:`bertedu.teaching.quiz.report`).

Introduced in notebook 00.
"""

from bertedu.language import get_language
from bertedu.teaching.quiz.api import (
    ask,
    export_progress,
    flashcards,
    progress,
    reset_progress,
    review,
    section,
    set_language,
)
from bertedu.teaching.quiz.banks import (
    Bank,
    BankError,
    Flashcard,
    Question,
    bank_names,
    load_bank,
    validate_bank_file,
)
from bertedu.teaching.quiz.core import Result, grade
from bertedu.teaching.quiz.store import ProgressError

__all__ = [
    "ask",
    "section",
    "flashcards",
    "review",
    "progress",
    "export_progress",
    "reset_progress",
    "set_language",
    "get_language",
    "grade",
    "Result",
    "load_bank",
    "bank_names",
    "validate_bank_file",
    "Bank",
    "BankError",
    "Question",
    "Flashcard",
    "ProgressError",
]
