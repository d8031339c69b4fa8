"""Grading, without any widget: ``grade(question, answer) -> Result``.

Answers by question type:
- ``single``: the chosen option, as its index in the bank's order or as its ``id`` (``None`` = nothing chosen);
- ``multiple``: an iterable of chosen options, indices or ids (empty = nothing chosen);
- ``fill``: a list of strings, one per blank (a plain string is accepted for a one-blank question).

Scores are between 0 and 1. A single-choice answer scores 1 or 0. A multiple-choice answer scores
``(right picks - wrong picks) / number of correct options``, never below 0, and is correct only when it
picks exactly the correct options (:func:`partial_credit_text` says so to the student). Options are
graded by identity: an index means the option at that place in ``question.options``, whatever order a
student saw them in (:mod:`bertedu.teaching.quiz.shuffle`). A fill-in answer scores the fraction of blanks that are right.
An empty answer is *not* graded: the result has ``answered=False`` and asks for an answer.

Text blanks compare after :func:`normalize_text` (full-width → half-width, case folded, spaces dropped,
surrounding punctuation stripped, ``pre-training`` = ``pretraining``). Numeric blanks read the answer
with :func:`parse_number` and accept it within the blank's tolerance.

Introduced in notebook 00.
"""

from __future__ import annotations

import math
import operator
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bertedu.language import pick, resolve, t
from bertedu.language.script import DASHES, IME_DECIMAL_POINT, SENTENCE_PUNCTUATION
from bertedu.language.words import APPROXIMATELY, MEASURE_WORDS, NUMBER_SUFFIXES, NUMBER_WORDS
from bertedu.teaching.quiz.banks import Blank, Question

# Sentence punctuation stripped from both ends of a typed answer (after NFKC, so ，→, and ：→:), the language
# room's (bertedu/language/script.py) included.
_EDGE_PUNCT = " \t\r\n.,;:!?\"'“”‘’" + SENTENCE_PUNCTUATION
_WORD_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")

# Suffix multipliers for numbers: 24% = 0.24, 110M = 110e6, 30k = 30e3, and those of the course's other languages
# (bertedu/language/words.py: 1.1亿 = 1.1e8).
_MULTIPLIERS = {"%": 0.01, "k": 1e3, "m": 1e6, "b": 1e9, **NUMBER_SUFFIXES}
# ... and as words: 800 million, 2.5 billion (and NUMBER_WORDS).
_WORD_MULTIPLIERS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, **NUMBER_WORDS}
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$", re.I)
# What an IME adds around a number: a word for "about" before it (like ≈), "0。67" (the IME's full stop as the
# decimal point), and a measure word after it (APPROXIMATELY, MEASURE_WORDS).
_APPROX_PREFIX = re.compile(rf"^(?:≈|~|{'|'.join(APPROXIMATELY)})\s*")
_MEASURE_WORD = re.compile(rf"(?<=[\d%{''.join(NUMBER_SUFFIXES)}kKmMbB])\s*(?:{'|'.join(MEASURE_WORDS)})$")


def normalize_text(answer: str, *, case_sensitive: bool = False) -> str:
    """Canonical form of a typed text answer, used on both the answer and every accepted alternative.

    NFKC folds full-width letters, digits and punctuation to half-width; case is folded (unless
    ``case_sensitive``); every dash becomes ``-`` and a hyphen between two letters is dropped
    (``left-to-right`` = ``left to right``); all whitespace is removed; sentence punctuation and quotes
    are stripped from both ends. Brackets and ``#`` are kept: ``[CLS]`` and ``##ing`` mean something.
    """
    s = unicodedata.normalize("NFKC", str(answer))
    if not case_sensitive:
        s = s.casefold()
    s = DASHES.sub("-", s)
    s = s.strip(_EDGE_PUNCT)
    s = re.sub(r"\s*-\s*", "-", s)  # "left - to - right" → "left-to-right"
    s = _WORD_HYPHEN.sub("", s)
    s = re.sub(r"\s+", "", s)
    return s.strip(_EDGE_PUNCT)


def parse_number(answer: str, unit: str | None = None) -> float | None:
    """Read a typed number; ``None`` when it is not one.

    Accepted: ``0.24``, `` .24 ``, ``+0.24``, ``2.4e-1``, ``１２``, ``30,000``, ``30 000``, ``0,24``
    (decimal comma), ``3/4``, ``≈0.24``, and what a Chinese IME types: ``0。24`` (its full stop for the point),
    ``约 0.24`` / ``大约0.24`` / ``近似 0.24``, a measure word after the number (``30 个``, ``30个词元``, ``4 层``,
    ``768 维``; also 步, 轮, 次). A suffix: ``24%`` = 0.24, ``30k`` = 30,000,
    ``110M`` = 110,000,000, ``1B`` = 10⁹, ``3万`` = 30,000, ``1.1亿`` = 110,000,000, ``800 million``. When the blank
    declares ``unit`` (e.g. ``"%"`` or ``"M"``), the value is expressed in that unit and a suffix equal to
    it is just the unit: with ``unit="%"``, ``15`` and ``15%`` both read 15.
    """
    s = IME_DECIMAL_POINT.sub(".", unicodedata.normalize("NFKC", str(answer)))
    s = s.strip().strip(_EDGE_PUNCT.replace(".", ""))
    s = _APPROX_PREFIX.sub("", s)
    s = _MEASURE_WORD.sub("", s).strip()
    if re.fullmatch(r".*\d\.\d+\.", s):  # "0.24." at the end of a sentence
        s = s[:-1]
    s = DASHES.sub("-", s)
    if unit:
        u = unicodedata.normalize("NFKC", unit).strip()
        if u and s.lower().endswith(u.lower()):
            s = s[: -len(u)].strip()
    multiplier = 1.0
    word = next((w for w in _WORD_MULTIPLIERS if s.lower().endswith(w) and s[: -len(w)].strip()), None)
    if word:
        multiplier = _WORD_MULTIPLIERS[word]
        s = s[: -len(word)].strip()
    elif s and s[-1].lower() in _MULTIPLIERS:
        multiplier = _MULTIPLIERS[s[-1].lower()]
        s = s[:-1].strip()
    s = re.sub(r"(?<=\d)[ \u00a0_'](?=\d{3}\b)", "", s)  # 30 000, 30_000, 30'000
    if re.fullmatch(r"[+-]?\d{1,3}(,\d{3})+(\.\d+)?", s):
        s = s.replace(",", "")
    elif re.fullmatch(r"[+-]?\d+,\d+", s):
        s = s.replace(",", ".")
    value: float | None
    if "/" in s:
        num, _, den = s.partition("/")
        a, b = parse_number(num), parse_number(den)
        value = None if a is None or not b else a / b
    elif _NUMBER.match(s):
        value = float(s)
    else:
        return None
    if value is None or not math.isfinite(value):
        return None
    return value * multiplier


def format_number(x: float) -> str:
    """A short, exact-looking form of a bank number: 0.24, 30000, 1e-04 → 0.0001."""
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.10g}" if abs(x) >= 1e-4 else f"{x:g}"


def number_matches(x: float, value: float, tolerance: float) -> bool:
    """``|x - value| <= tolerance``, with a hair of slack for binary floating point."""
    return abs(x - value) <= tolerance + 1e-9 * max(1.0, abs(value))


@dataclass(frozen=True)
class OptionFeedback:
    """How one option of a choice question came out.

    ``verdict`` is ``"right"`` (picked and correct), ``"wrong"`` (picked, not correct), ``"missed"``
    (correct, not picked) or ``"unpicked"`` (neither).
    """

    index: int
    text: str
    selected: bool
    correct: bool
    explanation: str
    id: str = ""

    @property
    def verdict(self) -> str:
        if self.selected:
            return "right" if self.correct else "wrong"
        return "missed" if self.correct else "unpicked"


@dataclass(frozen=True)
class BlankFeedback:
    """How one blank of a fill-in question came out; ``expected`` is the accepted answer, for the solution.

    ``label`` is the bank's label of the blank (or "Blank 2"); ``title`` names it in feedback with its number,
    "Blank 2 (weight)", so the student knows which box is meant.
    """

    index: int
    label: str
    given: str
    correct: bool
    expected: str
    readable: bool = True  # False when a numeric blank could not be read as a number
    title: str = ""


@dataclass(frozen=True)
class Result:
    """The outcome of :func:`grade`. All texts are in ``language``.

    ``message`` is the one-line verdict (``"✓ Correct"``, ``"✗ Not quite · score 50%"`` or a request
    for an answer). ``options`` / ``blanks`` hold per-part feedback; ``explanation`` is the question's
    general explanation ("" if it has none).
    """

    question_id: str
    notebook: str
    kind: str
    language: str
    answered: bool
    score: float
    is_correct: bool
    message: str
    options: tuple[OptionFeedback, ...] = ()
    blanks: tuple[BlankFeedback, ...] = ()
    explanation: str = ""

    @property
    def right(self) -> tuple[int, ...]:
        """Indices picked and correct."""
        return tuple(o.index for o in self.options if o.verdict == "right")

    @property
    def wrong(self) -> tuple[int, ...]:
        """Indices picked but not correct."""
        return tuple(o.index for o in self.options if o.verdict == "wrong")

    @property
    def missed(self) -> tuple[int, ...]:
        """Indices of correct options that were not picked."""
        return tuple(o.index for o in self.options if o.verdict == "missed")

    def __str__(self) -> str:
        lines = [self.message]
        for o in self.options:
            if o.selected:
                key = "chose_right" if o.correct else "chose_wrong"
                lines.append(t(key, self.language, option=o.text) + " " + o.explanation)
        if self.kind == "multiple" and self.missed:
            lines.append(missed_text(len(self.missed), self.language))
        if self.kind == "multiple" and not self.is_correct:
            lines.append(partial_credit_text(sum(o.correct for o in self.options), self.language))
        for b in self.blanks:
            lines.append(blank_line(b, self.language))
        return "\n".join(lines)


def missed_text(n: int, lang: str | None = None) -> str:
    """ "You missed 1 correct option ..." / "... 2 correct options ..." (multiple-choice feedback only)."""
    return t("missed_one", lang) if n == 1 else t("missed_many", lang, n=n)


def partial_credit_text(n_correct: int, lang: str | None = None) -> str:
    """How a multiple-choice answer is scored, in words (shown with its score)."""
    return t("partial_credit", lang, n=n_correct)


def blank_line(b: BlankFeedback, lang: str | None = None) -> str:
    """One feedback line for a blank: "✗ Blank 2 (weight): “0.3” is not right."."""
    label = b.title or b.label
    if not b.readable:
        return t("blank_not_number", lang, label=label, given=b.given)
    return t("blank_right" if b.correct else "blank_wrong", lang, label=label, given=b.given)


def blank_label(blank: Blank, index: int, lang: str | None = None) -> str:
    """The label of blank ``index`` (0-based): the bank's label, else "Blank 1" / "空 1"."""
    return pick(blank.label, lang) if blank.label else t("blank_label", lang, n=index + 1)


def blank_title(blank: Blank, index: int, lang: str | None = None) -> str:
    """How feedback names blank ``index`` (0-based): "Blank 1 (two right)", or "Blank 1" without a label."""
    if blank.label:
        return t("blank_named", lang, n=index + 1, label=pick(blank.label, lang))
    return t("blank_label", lang, n=index + 1)


def expected_text(blank: Blank, lang: str | None = None) -> str:
    """The accepted answer(s) of a blank as shown in a solution: ``W or E`` / ``0.24 (± 0.005)``."""
    lang = resolve(lang)
    if blank.kind == "numeric":
        unit = f" {blank.unit}" if blank.unit else ""
        tol = f" (± {format_number(blank.tolerance)})" if blank.tolerance else ""
        return f"{format_number(blank.value)}{unit}{tol}"
    answers = list(blank.answers_by_language.get(lang, ())) or list(blank.answers)
    answers += [a for a in blank.answers if a not in answers]
    return t("or", lang).join(answers[:3])


def grade_blank(blank: Blank, given: str) -> tuple[bool, bool]:
    """``(correct, readable)`` for one blank; ``readable`` is False for a numeric blank given a non-number."""
    if blank.kind == "numeric":
        x = parse_number(given, blank.unit)
        if x is None:
            return False, False
        ok = number_matches(x, blank.value, blank.tolerance)
        if not ok and blank.unit == "%" and "%" not in given and abs(x) <= 1:
            ok = number_matches(x * 100, blank.value, blank.tolerance)  # 0.15 for "15 %"
        scale = _MULTIPLIERS.get((blank.unit or "").strip().lower(), 0)
        if not ok and scale > 1 and abs(x) >= scale:  # unit "M": 800,000,000 or 0.8B or 8亿 for 800
            ok = number_matches(x / scale, blank.value, blank.tolerance)
        return ok, True
    got = normalize_text(given, case_sensitive=blank.case_sensitive)
    accepted = {normalize_text(a, case_sensitive=blank.case_sensitive) for a in blank.answers}
    return got in accepted, True


def choice_indices(question: Question, answer: object) -> tuple[int, ...]:
    """The bank positions an answer to a choice question picks, sorted, each once.

    ``answer`` names options by index in ``question.options`` or by option id (the two may be mixed).
    Raises ``ValueError`` for an answer of the wrong shape or an option the question does not have.
    """
    n = len(question.options)
    if answer is None:
        return ()
    if question.type == "single":
        if isinstance(answer, (list, tuple, set, frozenset)):
            raise ValueError(
                f"Question {question.id!r} is single-choice: give one option index or id, got {answer!r}."
            )
        picks = (answer,)
    else:
        if isinstance(answer, (str, bytes)) or not isinstance(answer, Iterable):
            raise ValueError(
                f"Question {question.id!r} is multiple-choice: give a list of option indices or ids, "
                f"got {answer!r}."
            )
        picks = tuple(answer)
    out = []
    for i in picks:
        if isinstance(i, str):
            out.append(question.option_index(i))
            continue
        try:
            k = operator.index(i)  # ints, including NumPy integers; not floats or strings
        except TypeError:
            k = None
        if k is None or isinstance(i, bool) or not 0 <= k < n:
            raise ValueError(f"Question {question.id!r} has options 0..{n - 1}; {i!r} is not one of them.")
        out.append(k)
    return tuple(sorted(set(out)))


def _option_feedback(question: Question, picks: tuple[int, ...], lang: str) -> tuple[OptionFeedback, ...]:
    """How each option of a choice question came out, in bank order, texts in ``lang``."""
    return tuple(
        OptionFeedback(
            index=i,
            text=pick(o.text, lang),
            selected=i in picks,
            correct=o.correct,
            explanation=pick(o.explanation, lang),
            id=o.id,
        )
        for i, o in enumerate(question.options)
    )


def grade(question: Question, answer: object, language: str | None = None) -> Result:
    """Grade ``answer`` to ``question``; texts in ``language`` (default: the current language).

    Raises ``ValueError`` for an answer of the wrong shape (an option index out of range or an unknown
    option id, a list for a single-choice question, the wrong number of blanks).
    """
    lang = resolve(language)
    explanation = pick(question.explanation, lang)
    base = dict(
        question_id=question.id,
        notebook=question.notebook,
        kind=question.type,
        language=lang,
        explanation=explanation,
    )

    if question.type in ("single", "multiple"):
        picks = choice_indices(question, answer)
        if not picks:
            need = "need_single" if question.type == "single" else "need_multiple"
            return Result(answered=False, score=0.0, is_correct=False, message=t(need, lang), **base)
        options = _option_feedback(question, picks, lang)
        n_correct = len(question.correct_indices)
        right = sum(o.verdict == "right" for o in options)
        wrong = sum(o.verdict == "wrong" for o in options)
        is_correct = right == n_correct and wrong == 0
        score = 1.0 if is_correct else max(0.0, (right - wrong) / n_correct)
        if question.type == "single":
            score = 1.0 if is_correct else 0.0
        return Result(
            answered=True,
            score=score,
            is_correct=is_correct,
            message=_message(is_correct, score, lang),
            options=options,
            **base,
        )

    # fill-in
    givens = [answer] if isinstance(answer, str) else list(answer or [])
    if len(givens) != len(question.blanks):
        raise ValueError(
            f"Question {question.id!r} has {len(question.blanks)} blank(s); got {len(givens)} answer(s)."
        )
    givens = ["" if g is None else str(g) for g in givens]
    if any(not g.strip() for g in givens):
        return Result(answered=False, score=0.0, is_correct=False, message=t("need_fill", lang), **base)
    blanks = []
    for i, (blank, given) in enumerate(zip(question.blanks, givens)):
        ok, readable = grade_blank(blank, given)
        blanks.append(
            BlankFeedback(
                index=i,
                label=blank_label(blank, i, lang),
                given=given.strip(),
                correct=ok,
                expected=expected_text(blank, lang),
                readable=readable,
                title=blank_title(blank, i, lang),
            )
        )
    score = sum(b.correct for b in blanks) / len(blanks)
    is_correct = all(b.correct for b in blanks)
    return Result(
        answered=True,
        score=score,
        is_correct=is_correct,
        message=_message(is_correct, score, lang),
        blanks=tuple(blanks),
        **base,
    )


def _message(is_correct: bool, score: float, lang: str) -> str:
    if is_correct:
        return t("correct", lang)
    return f"{t('not_quite', lang)} · {t('score', lang, percent=round(score * 100))}"


def correct_answer(question: Question) -> object:
    """The answer that scores 1: an index, a tuple of indices, or one accepted string/number per blank."""
    if question.type == "single":
        return question.correct_indices[0]
    if question.type == "multiple":
        return question.correct_indices
    return [format_number(b.value) if b.kind == "numeric" else b.answers[0] for b in question.blanks]


def solution_lines(question: Question, language: str | None = None) -> Sequence[tuple[str, str, str]]:
    """The full solution as ``(mark, text, explanation)`` rows: every option, or every blank's answer."""
    lang = resolve(language)
    if question.type in ("single", "multiple"):
        return [
            (
                t("is_correct_option" if o.correct else "is_wrong_option", lang),
                pick(o.text, lang),
                pick(o.explanation, lang),
            )
            for o in question.options
        ]
    return [
        ("✓", t("accepted", lang, label=blank_title(b, i, lang), answers=expected_text(b, lang)), "")
        for i, b in enumerate(question.blanks)
    ]
