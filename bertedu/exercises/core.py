"""The exercise machinery shared by every notebook: :class:`Exercise` and :class:`CheckResult`.

Introduced in notebook 00.
"""

from __future__ import annotations

import html
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: What a notebook's answer cell starts with. ``check(...)`` on it says "not answered yet".
NOT_ANSWERED = Ellipsis

Checker = Callable[..., "tuple[bool, str]"]


@dataclass(frozen=True)
class CheckResult:
    """The outcome of ``Exercise.check``: ``passed`` and a message that says what to fix.

    Shown in a notebook as one line with a text label and an icon (never colour alone).
    """

    passed: bool
    message: str
    exercise: str = ""

    def __bool__(self) -> bool:
        return self.passed

    @property
    def label(self) -> str:
        return "✅ Correct" if self.passed else "❌ Not yet"

    def __str__(self) -> str:
        return f"{self.label}: {self.message}"

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return f"<p><strong>{html.escape(self.label)}</strong>: {html.escape(self.message)}</p>"


@dataclass(frozen=True)
class _Markdown:
    """A small Markdown block with a plain-text fallback (hints and solutions)."""

    text: str

    def __repr__(self) -> str:
        return self.text

    def _repr_markdown_(self) -> str:
        return self.text


@dataclass
class Exercise:
    """One exercise: a checker plus hints and a reference solution.

    Parameters
    ----------
    name:
        Short identifier, e.g. ``"scaled_scores"``.
    prompt:
        What the student has to do, one or two sentences.
    checker:
        A plain function ``checker(*answer) -> (passed, message)``. It must not raise on wrong answers;
        it returns a message that names the mistake (unit tests call it directly).
    hints:
        Hints shown one at a time by :meth:`hint`.
    solution_code:
        The reference solution, as the code a student would type.
    """

    name: str
    prompt: str
    checker: Checker
    hints: list[str] = field(default_factory=list)
    solution_code: str = ""
    _hints_shown: int = field(default=0, repr=False)

    def check(self, *answer: Any) -> CheckResult:
        """Check the student's answer and say what is right or what to fix."""
        if not answer or any(a is NOT_ANSWERED for a in answer):
            return CheckResult(
                False,
                "no answer yet: replace the `...` in the cell above with your answer, run it, then check again.",
                self.name,
            )
        try:
            passed, message = self.checker(*answer)
        except Exception as exc:  # the student's function failed: say where, not a bare traceback
            where = traceback.extract_tb(exc.__traceback__)[-1]
            return CheckResult(
                False,
                f"your code raised {type(exc).__name__}: {exc} (line {where.lineno} of {where.name}). "
                "Fix that error first, then check again.",
                self.name,
            )
        return CheckResult(bool(passed), message, self.name)

    def hint(self, number: int | None = None) -> _Markdown:
        """Show the next hint (or hint ``number``, counting from 1)."""
        if not self.hints:
            return _Markdown("There is no hint for this exercise; try `solution()` after an attempt.")
        if number is None:
            self._hints_shown = min(self._hints_shown + 1, len(self.hints))
            number = self._hints_shown
        if not 1 <= number <= len(self.hints):
            raise ValueError(f"hint number must be between 1 and {len(self.hints)}, got {number}.")
        return _Markdown(f"💡 **Hint {number}/{len(self.hints)}:** {self.hints[number - 1]}")

    def solution(self) -> _Markdown:
        """Show the reference solution."""
        return _Markdown(f"📖 **Solution:**\n\n```python\n{self.solution_code.strip()}\n```")
