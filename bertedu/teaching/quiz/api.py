"""The functions notebooks call: ``ask``, ``section``, ``flashcards``, ``review``, ``progress`` and friends.

Introduced in notebook 00.
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Iterable, Sequence
from pathlib import Path

from bertedu.language import LANGUAGES, get_language
from bertedu.language import set_language as _set_course_language
from bertedu.language.words import DECK_TITLES
from bertedu.teaching.quiz.banks import PAPER_PARTS, Bank, Question, bank_names, load_all, load_bank
from bertedu.teaching.quiz.flashcards import FlashcardDeck
from bertedu.teaching.quiz.progress_view import ProgressSummary, ResetConfirmation
from bertedu.teaching.quiz.shuffle import student_id
from bertedu.teaching.quiz.store import get_store
from bertedu.teaching.quiz.widgets import QuestionWidget, QuizSection, question_widget


def set_language(lang: str | None) -> str:
    """Switch the course, every quiz widget included (live ones too), to ``lang`` (``"en"`` or ``"zh"``).

    :func:`bertedu.language.set_language`, returning the language now in use. ``None`` forgets the choice and
    falls back to ``$BERTEDU_LANG`` / English.
    """
    _set_course_language(lang)
    return get_language()


def _find(notebook: str, ids: Sequence[str]) -> list[Question]:
    bank = load_bank(notebook)
    known = [q.id for q in bank.questions]
    out = []
    for qid in ids:
        if not isinstance(qid, str):
            raise ValueError(f"Question ids are strings, got {qid!r}.")
        if qid not in known:
            close = difflib.get_close_matches(qid, known, n=3)
            hint = (
                f" Did you mean {', '.join(map(repr, close))}?"
                if close
                else f" Its questions: {', '.join(known)}."
            )
            raise ValueError(f"Bank {notebook!r} has no question {qid!r}.{hint}")
        out.append(bank.question(qid))
    return out


def _fresh_store() -> None:
    """Re-read the progress file before building widgets, so they show what other notebooks saved."""
    get_store().reload()


def deck_title(deck: str, banks: Iterable[Bank] | None = None) -> dict[str, str]:
    """A readable ``{en, zh}`` name for a flashcard deck, never its id.

    The paper's decks have names in :data:`bertedu.language.words.DECK_TITLES` ("Paper part A · Motivation");
    a deck that belongs to one bank takes that bank's title ("Masking strategy").
    """
    if deck in DECK_TITLES:
        return dict(DECK_TITLES[deck])
    owners = [
        b for b in (load_all() if banks is None else banks) if any(c.deck == deck for c in b.flashcards)
    ]
    if len(owners) == 1:
        return dict(owners[0].title)
    words = deck.replace("-", " ").replace("_", " ").strip().capitalize()
    return {lang: words for lang in LANGUAGES}


def ask(
    notebook: str, ids: str | Sequence[str] | None = None, *, language: str | None = None
) -> QuestionWidget | QuizSection:
    """Show one question (``ids`` a string) or several (a list; ``None`` = the whole bank).

    ``quiz.ask("03_masking_strategy", "select-fraction")`` → a question widget;
    ``quiz.ask("03_masking_strategy", ["a", "b"])`` → a :class:`QuizSection`.
    """
    if isinstance(ids, str):
        question = _find(notebook, [ids])[0]
        _fresh_store()
        return question_widget(question, language=language)
    return section(notebook, ids, language=language)


def section(
    notebook: str, ids: Sequence[str] | None = None, *, title: dict | None = None, language: str | None = None
) -> QuizSection:
    """Several questions of one bank under one title (default: the bank's title), in bank order
    unless ``ids`` gives an order."""
    bank = load_bank(notebook)
    if isinstance(ids, str):
        ids = [ids]
    elif ids is not None and not isinstance(ids, Iterable):
        raise ValueError(f"Give question ids as a string or a list of strings, got {ids!r}.")
    questions = list(bank.questions) if ids is None else _find(notebook, list(ids))
    if not questions:
        raise ValueError(f"Bank {notebook!r} has no questions to show.")
    _fresh_store()
    return QuizSection(questions, title=title or bank.title, language=language)


def flashcards(
    notebook: str | None = None,
    deck: str | None = None,
    *,
    shuffle: bool = False,
    seed: int = 0,
    language: str | None = None,
) -> FlashcardDeck:
    """A flashcard deck: the cards of ``notebook`` (all its decks, or one ``deck``), or with
    ``notebook=None`` every card of ``deck`` across all banks (e.g. ``deck="part-c"``).

    ``shuffle=True`` shuffles with ``seed`` (same order every run).
    """
    if notebook is None and deck is None:
        raise ValueError("Give a notebook (e.g. '00_welcome'), a deck (e.g. 'part-a'), or both.")
    banks = [load_bank(notebook)] if notebook is not None else load_all()
    cards = [c for b in banks for c in b.flashcards if deck is None or c.deck == deck]
    if not cards:
        decks = sorted({c.deck for b in banks for c in b.flashcards})
        where = f"bank {notebook!r}" if notebook else "any bank"
        raise ValueError(f"No flashcards in deck {deck!r} of {where}. Decks: {', '.join(decks) or '(none)'}.")
    if shuffle:
        random.Random(seed).shuffle(cards)
    title = load_bank(notebook).title if deck is None else deck_title(deck, banks)
    _fresh_store()
    return FlashcardDeck(cards, title=title, language=language)


def review(
    n: int = 12,
    seed: int = 0,
    *,
    notebooks: Iterable[str] | None = None,
    paper_parts: Iterable[str] | None = None,
    language: str | None = None,
) -> QuizSection:
    """A mixed quiz of ``n`` questions drawn from every bank (or the given ``notebooks`` / ``paper_parts``).

    Banks take turns, so every bank contributes before any bank gives a second question; ``seed`` fixes
    the draw. Progress is recorded under each question's own notebook.
    """
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n is the number of questions (a positive integer), got {n!r}.")
    names = bank_names() if notebooks is None else [load_bank(nb).notebook for nb in notebooks]
    parts = None if paper_parts is None else {p.upper() for p in paper_parts}
    if parts is not None and not parts <= set(PAPER_PARTS):
        raise ValueError(f"paper_parts are letters among {', '.join(PAPER_PARTS)}, got {sorted(parts)}.")
    rng = random.Random(seed)
    pools = []
    for name in names:
        qs = [q for q in load_bank(name).questions if parts is None or q.paper_part in parts]
        rng.shuffle(qs)
        if qs:
            pools.append(qs)
    rng.shuffle(pools)
    chosen: list[Question] = []
    while len(chosen) < n and any(pools):
        for pool in pools:
            if pool and len(chosen) < n:
                chosen.append(pool.pop())
    if not chosen:
        raise ValueError("No questions match this review (check notebooks / paper_parts).")
    _fresh_store()
    return QuizSection(chosen, title=("review_title", {"n": len(chosen)}), language=language)


def progress(*, language: str | None = None) -> ProgressSummary:
    """A table of your progress per notebook: questions answered / total, score, cards known."""
    return ProgressSummary(load_all(), language=language)


def export_progress(path: str | Path) -> Path:
    """Copy your progress to ``path`` (JSON, the progress file's layout, with your student id); returns the path
    written.

    Hand this file to your instructor for the class report (``python -m bertedu.teaching.quiz.report``), which
    counts you once by the id inside, however many exports you hand in. Raises a
    :class:`~bertedu.teaching.quiz.store.ProgressError` with a clear message when it cannot be written.
    """
    return get_store().export(path, student=student_id())


def reset_progress(notebook: str | None = None, *, confirm: bool = False):
    """Erase progress of one notebook (or all). Without ``confirm=True`` it only returns a widget that
    asks first; with ``confirm=True`` it erases at once and returns how many notebooks were erased
    (a :class:`~bertedu.teaching.quiz.store.ProgressError` says why when the file cannot be written)."""
    if (
        notebook is not None
        and notebook not in bank_names()
        and notebook not in get_store().data["notebooks"]
    ):
        load_bank(notebook)  # a typo fails loudly (naming the banks), rather than "erasing" nothing
    if not confirm:
        return ResetConfirmation(notebook)
    return get_store().reset(notebook)


__all__ = [
    "ask",
    "section",
    "flashcards",
    "review",
    "progress",
    "export_progress",
    "reset_progress",
    "deck_title",
]
