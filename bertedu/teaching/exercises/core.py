"""The exercise machinery shared by every notebook: :class:`Exercise`, :class:`CheckResult` and the small
helpers every checker uses (reading a number in any valid form, spotting an answer that is right but rounded
too much, and the "not attempted yet" state of a stub).

Introduced in notebook 00.
"""

from __future__ import annotations

import dataclasses
import functools
import html
import math
import numbers
import textwrap
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bertedu.language import get_language, msg, translatable, translate, translate_code
from bertedu.teaching.exercises import library_answers
from bertedu.teaching.quiz.render import inline_html

#: What a notebook's answer cell starts with. ``check(...)`` on it says "not attempted yet".
NOT_ANSWERED = Ellipsis

Checker = Callable[..., "tuple[bool, str]"]

# Labels are plain text plus symbols that DejaVu Sans draws (no emoji: without an emoji font Chromium shows
# them as empty boxes). tests/test_exercises_core.py scans every string of bertedu.teaching.exercises for emoji.
# Every message is English in the code and translated when shown (bertedu.language; Chinese in bertedu/language/zh.py).
LABEL_CORRECT = translatable("✓ Correct")
LABEL_NOT_YET = translatable("✗ Not yet")
LABEL_NOT_ATTEMPTED = translatable("○ Not attempted yet")

#: ``True`` only in the graded copy of the package that ``make assignments`` writes for the students' environment
#: (tools/build_assignments.py sets it and removes every ``solution_code``): there :meth:`Exercise.solution`
#: says that reference solutions are not part of the build. Left ``False`` in the course's own package.
GRADED_BUILD = False
GRADED_BUILD_MESSAGE = translatable(
    "Reference solutions are not part of this graded build of the course; checks and hints still work."
)

NOT_ATTEMPTED_MESSAGE = translatable(
    "no answer yet: write your answer in the cell above (replace the `...` or the "
    "`raise NotImplementedError`), run that cell, then run this check again."
)


# ----------------------------------------------------------------------------------------------------------
# Shared helpers for checkers


def as_number(answer: Any) -> float | None:
    """``answer`` as a Python float if it is one real number in any valid form, else ``None``.

    Accepted: ``int`` and ``float``, every NumPy scalar (``np.float32``, ``np.int64``, ...), 0-d or
    one-element NumPy arrays and torch tensors, ``fractions.Fraction``. Not accepted: ``bool`` (``True`` is
    not an answer), strings, lists. NaN and inf are returned as floats (the checker decides what to say).
    """
    if isinstance(answer, bool):
        return None
    if isinstance(answer, numbers.Real):  # int, float, Fraction and every NumPy scalar type
        return float(answer)
    if hasattr(answer, "numel") and hasattr(answer, "item"):  # a torch tensor (torch is not imported here)
        if answer.numel() != 1 or "bool" in str(answer.dtype) or "complex" in str(answer.dtype):
            return None
        return float(answer.detach().cpu().item())
    if hasattr(answer, "size") and hasattr(answer, "dtype") and hasattr(answer, "item"):  # a NumPy array
        if answer.size != 1 or answer.dtype.kind not in "iuf":
            return None
        return float(answer.item())
    return None


def number_problem(answer: Any, example: str = "answer = 1.23") -> str:
    """The message for an answer that :func:`as_number` could not read."""
    shape = getattr(answer, "shape", None)
    if shape is not None and tuple(shape) not in ((), (1,)):
        kind = msg("tensor") if hasattr(answer, "numel") else msg("array")
        return msg(
            "give one number, not a {kind} of shape {shape}, e.g. {example}.",
            kind=kind,
            shape=tuple(shape),
            example=example,
        )
    return msg(
        "give the answer as one number (a {type} is not one), e.g. {example}.",
        type=type(answer).__name__,
        example=example,
    )


def rounded_decimals(answer: Any, expected: Any, atol: float) -> int | None:
    """If ``answer`` is ``expected`` rounded to ``k`` decimals (entry by entry for arrays) but not within
    ``atol`` of it, return ``k`` (1 to 6), else ``None``: the answer is right, only rounded too much.

    Works for numbers, NumPy arrays and anything ``numpy.asarray`` reads.
    """
    import numpy as np

    a = np.asarray(answer, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    if a.shape != e.shape or not np.all(np.isfinite(a)):
        return None
    if np.allclose(a, e, atol=atol, rtol=0):
        return None
    for k in range(1, 7):
        step = 10.0**-k
        typed_with_k = np.allclose(a, np.round(a, k), atol=1e-9 * max(1.0, float(np.abs(a).max())))
        if typed_with_k and np.all(np.abs(a - e) <= 0.5 * step + 1e-9):
            return k
    return None


def decimals_needed(atol: float) -> int:
    """How many decimals an answer needs to be within ``atol`` (1e-3 -> 3)."""
    return max(0, math.ceil(-math.log10(2 * atol) - 1e-9))


def rounded_message(k: int, atol: float) -> str:
    """'Right, but give N decimals' for an answer :func:`rounded_decimals` recognised."""
    n = decimals_needed(atol)
    return msg(
        "right, but rounded to {k} decimal{_s}, which is not precise enough to check: "
        "give at least {n} decimals (or do not round at all).",
        k=k,
        _s="s" if k != 1 else "",
        n=n,
    )


def expects_function(example: str) -> Callable[[Checker], Checker]:
    """Decorator for a checker whose answer is the student's function: anything that is not callable (the
    function's *result*, usually: ``check(f(x))`` instead of ``check(f)``) gets one clear message.

    ``example`` shows the right call, e.g. ``"ex.lr_schedule.check(lr_at)"``.
    """

    def decorate(checker: Checker) -> Checker:
        @functools.wraps(checker)
        def checked(fn: Any, *rest: Any) -> tuple[bool, str]:
            if not callable(fn):
                return False, msg(
                    "pass your function itself, e.g. `{example}` (no parentheses after its name), not a {type}.",
                    example=example,
                    type=type(fn).__name__,
                )
            return checker(fn, *rest)

        return checked

    return decorate


DIAGNOSIS_TEMPLATE = translatable("{symptom} {fix}")


class Diagnosis(str):
    """A checker's message in two parts: the ``symptom`` (what is wrong in the output: which numbers, which shape,
    which rows) and the ``fix`` (the cause in the code and what to change). It *is* the whole message, symptom
    then fix, so a checker returns it like any message and tests read it as a string.

    ``Exercise.check(..., given=True)``, the check of the buggy code a find-the-bug exercise hands out, shows
    only the symptom: finding the fix is the exercise. A student's own attempt that still has the bug gets both
    (as every other check names what to fix); the fix is also in ``hint()`` and ``solution()``.
    """

    symptom: str
    fixes: tuple[str, ...]

    def __new__(cls, symptom: str, fix: str, template: str = DIAGNOSIS_TEMPLATE) -> Diagnosis:
        """``template`` (a :func:`translatable` with ``{symptom}`` and ``{fix}``) joins the two parts."""
        return cls._build(translate(template).format(symptom=symptom, fix=fix), symptom, (fix,))

    @classmethod
    def _build(cls, text: str, symptom: str, fixes: tuple[str, ...]) -> Diagnosis:
        self = str.__new__(cls, text)
        self.symptom, self.fixes = symptom, fixes
        return self

    @classmethod
    def joined(cls, separator: str, parts: list[str]) -> Diagnosis:
        """Several problems in one message, ``separator`` between them; each part's symptom stays with its fix
        (a plain string part counts as a symptom without a fix)."""
        return cls._build(
            separator.join(parts),
            separator.join(getattr(part, "symptom", part) for part in parts),
            tuple(fix for part in parts for fix in getattr(part, "fixes", ())),
        )

    @classmethod
    def framed(cls, template: str, slot: str, inner: Diagnosis, **fields: object) -> Diagnosis:
        """``inner`` put into the ``{slot}`` of ``template`` (a :func:`translatable` sentence around one or more
        problems), with the other ``fields``."""
        return cls._build(
            translate(template).format(**{slot: str(inner)}, **fields),
            translate(template).format(**{slot: inner.symptom}, **fields),
            inner.fixes,
        )


GIVEN_CODE_NEXT_STEP = translatable(
    "{symptom} Where in the code does this come from? Fix it in the next cell (`ex.{name}.hint()` if you are stuck)."
)


# ----------------------------------------------------------------------------------------------------------
# Results, hints and solutions


@dataclass(frozen=True)
class CheckResult:
    """The outcome of ``Exercise.check``: ``passed`` and a message that says what to fix.

    ``attempted`` is ``False`` while the answer is still the notebook's stub (``...`` or a function that
    raises ``NotImplementedError``). Shown in a notebook as one line with a text label (never colour alone).
    """

    passed: bool
    message: str
    exercise: str = ""
    attempted: bool = True
    language: str = field(default_factory=get_language)  # of the message: how its emphasis is drawn

    def __bool__(self) -> bool:
        return self.passed

    @property
    def label(self) -> str:
        if self.passed:
            return translate(LABEL_CORRECT)
        return translate(LABEL_NOT_YET if self.attempted else LABEL_NOT_ATTEMPTED)

    def __str__(self) -> str:
        return msg("{label}: {message}", label=self.label, message=self.message)

    def __repr__(self) -> str:
        return str(self)

    def handed_out(self) -> CheckResult:
        """This result as the check of a find-the-bug exercise's handed-out code shows it: the symptom of a
        :class:`Diagnosis` and where to go next, never the fix. Any other message is kept."""
        if not isinstance(self.message, Diagnosis):
            return self
        symptom = translate(GIVEN_CODE_NEXT_STEP).format(symptom=self.message.symptom, name=self.exercise)
        return dataclasses.replace(self, message=symptom)

    def _repr_html_(self) -> str:
        """The label in bold and the message with its ``*emphasis*`` and ```code``` drawn as the quizzes draw them
        (:func:`bertedu.teaching.quiz.render.inline_html`: Chinese emphasis upright and bold). The plain-text
        form (``str``) keeps the asterisks, plain text's usual mark of emphasis."""
        label = f"<strong>{html.escape(self.label)}</strong>"
        message = inline_html(self.message, self.language)
        return f"<p>{msg('{label}: {message}', label=label, message=message)}</p>"


@dataclass(frozen=True)
class _Markdown:
    """A small Markdown block with a plain-text fallback (hints and solutions)."""

    text: str

    def __repr__(self) -> str:
        return self.text

    def _repr_markdown_(self) -> str:
        return self.text


def _raised_not_implemented(exc: BaseException) -> bool:
    """True if ``exc`` is (or was caused by) a ``NotImplementedError``: the student's stub was called."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, NotImplementedError):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


@dataclass
class Exercise:
    """One exercise: a checker plus hints and a reference solution.

    Parameters
    ----------
    name:
        Short identifier, e.g. ``"scaled_scores"``; the exercise is ``ex.<name>`` in its notebook.
    prompt:
        What the student has to do, one or two sentences.
    checker:
        A plain function ``checker(*answer) -> (passed, message)``. It must not raise on wrong answers;
        it returns a message that names the mistake (unit tests call it directly).
    hints:
        Hints shown one at a time by :meth:`hint`.
    solution_code:
        The reference solution, as the code a student would type. :meth:`solution` shows it with its comments
        translated (:func:`bertedu.language.translate_code`: each comment is a message of the catalogs).
    points:
        What the exercise is worth in the nbgrader course (``make assignments``).
    expected:
        Optional ``() -> value``: the expected answer of a fill-in exercise (a number or an array). The
        student-edition leak test checks that it is written nowhere in a student notebook.
    answers:
        Dotted paths of the package's functions, methods or classes that already do what the exercise asks
        (``"bertedu.core.attention.build_key_mask"``): an answer that uses one is rejected, ``show()`` prints
        their source only after an attempt, and the graded release neither shows nor imports them
        (:mod:`bertedu.teaching.exercises.library_answers`).
    """

    name: str
    prompt: str
    checker: Checker
    hints: list[str] = field(default_factory=list)
    solution_code: str = ""
    points: int = 1
    expected: Callable[[], Any] | None = field(default=None, repr=False)
    answers: tuple[str, ...] = ()
    _hints_shown: int = field(default=0, repr=False)
    _attempted: bool = field(default=False, repr=False)  # a check ran on a real answer: solution() unlocks

    def __post_init__(self) -> None:
        if isinstance(self.answers, str):
            raise ValueError(f"answers= takes a tuple of dotted paths, got the string {self.answers!r}.")
        self.answers = tuple(self.answers)
        if self.answers:
            library_answers.register(self)  # show() of one of them waits for an attempt

    def __hash__(self) -> int:  # one exercise, one identity (the registry of library answers is a weak set)
        return id(self)

    def __getattribute__(self, name: str) -> Any:
        value = object.__getattribute__(self, name)
        # ``ex.NAME.prompt`` is printed by the notebooks: in the current language when the catalog has it.
        return translate(value) if name == "prompt" else value

    def check(self, *answer: Any, given: bool = False, example: bool = False) -> CheckResult:
        """Check the student's answer and say what is right or what to fix.

        ``given=True`` marks the code the notebook hands out in a find-the-bug exercise: its check shows the
        symptom of the bug, not its fix (:class:`Diagnosis`), and is not the student's attempt, so it does not
        open :meth:`solution`. ``example=True`` marks a mistake the notebook makes itself to show how the
        checker reacts (notebook 01's softmax over the wrong axis): its message is shown whole, and it is not
        the student's attempt either, so a Run All opens neither :meth:`solution` nor a ``show()`` of the
        exercise's library answer.
        """
        result = self._check(*answer)
        if given:
            return result.handed_out()
        if result.attempted and not example:
            self._attempted = True
        return result

    def _check(self, *answer: Any) -> CheckResult:
        if not answer or any(a is NOT_ANSWERED for a in answer):
            return CheckResult(False, translate(NOT_ATTEMPTED_MESSAGE), self.name, attempted=False)
        used = library_answers.library_use(answer, self.answers) if self.answers else None
        if used:  # the library's own answer, by name: not the student's work (the checker need not run)
            return CheckResult(False, library_answers.rejection(used), self.name)
        calls: list[str] = []
        codes = library_answers.student_code(answer) if self.answers else set()
        try:
            with library_answers.guarded(self.answers, codes, calls):
                passed, message = self.checker(*answer)
        except Exception as exc:  # the student's code failed: say where, not a bare traceback
            if calls:
                return CheckResult(False, library_answers.rejection(calls[0]), self.name)
            if _raised_not_implemented(exc):
                return CheckResult(False, translate(NOT_ATTEMPTED_MESSAGE), self.name, attempted=False)
            frames = traceback.extract_tb(exc.__traceback__)
            where = frames[-1] if frames else None
            place = (
                msg(" (line {line} of {function})", line=where.lineno, function=where.name) if where else ""
            )
            return CheckResult(
                False,
                msg(
                    "your code raised {error}: {exc}{place}. Fix that error first, then check again.",
                    error=type(exc).__name__,
                    exc=exc,
                    place=place,
                ),
                self.name,
            )
        if calls:  # called from the student's code (the checker may have caught the guard's error)
            return CheckResult(False, library_answers.rejection(calls[0]), self.name)
        return CheckResult(bool(passed), message, self.name)

    def hint(self, number: int | None = None) -> _Markdown:
        """Show the next hint (or hint ``number``, counting from 1)."""
        if not self.hints:
            return _Markdown(msg("There is no hint for this exercise; try `solution()` after an attempt."))
        if number is None:
            self._hints_shown = min(self._hints_shown + 1, len(self.hints))
            number = self._hints_shown
        if not 1 <= number <= len(self.hints):
            raise ValueError(f"hint number must be between 1 and {len(self.hints)}, got {number}.")
        hint = translate(self.hints[number - 1])  # hints are translatable(...) constants
        return _Markdown(
            msg("**Hint {number}/{total}:** {hint}", number=number, total=len(self.hints), hint=hint)
        )

    def solution(self) -> _Markdown:
        """Show the reference solution (its comments in the current language when the catalog has them), once a
        check of this exercise has run on a real answer, right or wrong (as a quiz's "Show solution" opens after a
        first try); before that, one sentence says how to unlock it. Run All on an untouched notebook shows none.
        In a graded build (:data:`GRADED_BUILD`) there is no reference solution: one sentence says so."""
        if GRADED_BUILD:
            return _Markdown(translate(GRADED_BUILD_MESSAGE))
        if not self._attempted:
            return _Markdown(
                msg(
                    "The reference solution opens after your first attempt: write your answer, run its check "
                    "(`ex.{name}.check(...)`, a wrong answer counts), then ask again.",
                    name=self.name,
                )
            )
        solution = translate_code(self.solution_code)  # the English code, its comments translated
        code = textwrap.dedent(solution).strip("\n")  # a method's solution keeps its shape
        return _Markdown(f"{msg('**Solution:**')}\n\n```python\n{code}\n```")
