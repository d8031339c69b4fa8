"""Show the package's real source code in a notebook: ``show(obj)``, highlighted, under a ``path:line`` header.

Used right after a notebook's teaching copy has been checked against the package ("here is the code you just
wrote, in the library"); the library's version of an exercise's answer is shown only after that exercise's first
attempt (:func:`locked`)::

    from bertedu.teaching.show import show
    show(bertedu.core.attention.scaled_dot_product_attention)   # bertedu/core/attention.py:24
    show(BertSelfAttention.forward)                         # one method
    show(BertEmbeddings)                                    # a whole class

In Jupyter the code is highlighted with Pygments (inline styles, so it survives an HTML export); everywhere
else it prints as plain text with line numbers. Paths are shown relative to the folder that holds the
package (``bertedu/core/attention.py``), never as this machine's absolute path.

Introduced in notebook 01.
"""

from __future__ import annotations

import html
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bertedu.teaching.exercises import core as exercises_core
from bertedu.teaching.exercises import library_answers

__all__ = ["NotShownYet", "SourceView", "locked", "show", "source_of"]


@dataclass(frozen=True)
class SourceView:
    """The source of one object: its code, where it lives (``bertedu/core/attention.py``) and its first line."""

    name: str
    path: str
    first_line: int
    code: str

    @property
    def header(self) -> str:
        """``bertedu/core/attention.py:105 · BertSelfAttention.forward``."""
        where = f"{self.path}:{self.first_line}" if self.first_line else self.path
        return f"{where} · {self.name}"

    @property
    def last_line(self) -> int:
        return self.first_line + self.code.count("\n") - (1 if self.code.endswith("\n") else 0)

    def __repr__(self) -> str:  # plain text: a terminal, a doctest, the text/plain of a notebook output
        width = len(str(self.last_line))
        lines = self.code.rstrip("\n").split("\n")
        numbered = [f"{self.first_line + i:>{width}}  {line}" for i, line in enumerate(lines)]
        return "\n".join([f"# {self.header}", *numbered])

    def _repr_html_(self) -> str:
        head = (
            '<div style="font-family: monospace; font-size: 90%; color: #444; margin: 0.2em 0;">'
            f"{html.escape(self.header)}</div>"
        )
        try:
            from pygments import highlight
            from pygments.formatters import HtmlFormatter
            from pygments.lexers import PythonLexer
        except ImportError:  # pygments ships with IPython, but the plain view is always possible
            return head + f"<pre>{html.escape(self.code)}</pre>"
        formatter = HtmlFormatter(
            noclasses=True, linenos="inline", linenostart=self.first_line, style="default", nobackground=True
        )
        return head + highlight(self.code, PythonLexer(), formatter)


def _unwrap(obj: Any) -> Any:
    """The function behind a bound method, property, classmethod, staticmethod or functools wrapper."""
    if isinstance(obj, property):
        obj = obj.fget
    if isinstance(obj, (classmethod, staticmethod)):
        obj = obj.__func__
    if inspect.ismethod(obj):
        obj = obj.__func__
    return inspect.unwrap(obj)


def _display_path(filename: str | None, module: str | None) -> str:
    """``filename`` relative to the folder that holds its top-level package (``bertedu/core/attention.py``,
    ``torch/nn/functional.py``); notebook cells and unknown places get a description instead."""
    if not filename:
        return "(unknown file)"
    path = Path(filename).resolve()
    top = sys.modules.get((module or "").split(".")[0])
    top_file = getattr(top, "__file__", None)
    if top_file:
        top_path = Path(top_file).resolve()
        root = top_path.parent.parent if top_path.name == "__init__.py" else top_path.parent
        if path.is_relative_to(root):
            return path.relative_to(root).as_posix()
    if module in (None, "__main__") or "ipykernel" in path.as_posix() or path.name.startswith("<"):
        return "(defined in this notebook)"
    return path.name


def source_of(obj: Any) -> SourceView:
    """The :class:`SourceView` of a function, method, class or module.

    Raises ``ValueError`` (with what to pass instead) for objects without Python source: built-ins, C
    extensions, instances of a class (pass the class, e.g. ``type(model)``), numbers and strings.
    """
    target = _unwrap(obj)
    if not (
        inspect.isfunction(target)
        or inspect.isclass(target)
        or inspect.ismodule(target)
        or inspect.iscode(target)
        or inspect.ismethod(target)
    ):
        kind = type(obj).__name__
        advice = (
            f"show(type(x)) shows the class of an object; here: show({kind})"
            if not inspect.isbuiltin(target)
            else "built-in functions are written in C and have no Python source"
        )
        raise ValueError(
            f"show() needs a function, method, class or module, got an object of type {kind}: {advice}."
        )
    try:
        lines, first_line = inspect.getsourcelines(target)
        filename = inspect.getsourcefile(target) or inspect.getfile(target)
    except (OSError, TypeError) as err:
        raise ValueError(
            f"No Python source found for {getattr(target, '__qualname__', target)!r} ({err}). Built-ins and "
            "compiled extensions have none; a class defined in a notebook cell may not either."
        ) from err
    name = target.__name__ if inspect.ismodule(target) else getattr(target, "__qualname__", repr(target))
    return SourceView(
        name=name,
        path=_display_path(
            filename, getattr(target, "__module__", None) if not inspect.ismodule(target) else target.__name__
        ),
        first_line=max(first_line, 1),
        code="".join(lines),
    )


@dataclass(frozen=True)
class NotShownYet:
    """What :func:`show` displays instead of the source of an exercise's library answer before an attempt."""

    text: str

    def __repr__(self) -> str:
        return self.text

    def _repr_markdown_(self) -> str:
        return self.text


def locked(obj: Any) -> NotShownYet | None:
    """Why ``obj``'s source may not be shown now, or ``None``: ``obj`` is the library's version of what an exercise
    of this kernel asks for, and that exercise's check has seen no attempt yet (or this is the graded build).
    The same rule as ``Exercise.solution()`` (:mod:`bertedu.teaching.exercises.library_answers`)."""
    why = library_answers.locked_source(obj, graded=exercises_core.GRADED_BUILD)
    return None if why is None else NotShownYet(why)


def show(obj: Any) -> None:
    """Display the source of ``obj`` (function, method, class or module), highlighted, under a
    ``bertedu/core/attention.py:105 · name`` header: in Jupyter as HTML, elsewhere printed as plain text.
    (:func:`source_of` returns the same as a :class:`SourceView`, e.g. to read ``.code``.)

    The library's version of what an exercise asks a student to write (``Exercise(answers=...)``) is shown once
    that exercise's check has seen an attempt, right or wrong; before that one sentence says so (:func:`locked`),
    so a Run All of the student edition prints no answer. The instructor edition runs each check first.
    """
    view = source_of(obj)
    view = locked(obj) or view
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # plain Python without IPython
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        display(view)
    else:
        print(repr(view))
