"""The library's own answers to an exercise: the functions and classes of bertedu that already do what an exercise
asks a student to write (``Exercise(answers=("bertedu.core.attention.build_key_mask",))``).

Two rules follow from them:

* **An answer must be the student's own code.** :func:`library_use` finds an answer that *is* one of them, a
  subclass of one, or code that refers to one (by name, through a module or a class, in a helper of the student's,
  a closure, a default value or a ``functools.partial``); :func:`guarded` catches, while the checker runs, a call
  of one from inside the student's code that no name shows (``layer(x)`` on a layer the checker hands in).
  ``Exercise.check`` then says that the answer cannot count, and why.
* **Its source is shown after an attempt.** ``show(obj)`` (:mod:`bertedu.teaching.show`) prints the library's code
  of an exercise's answer only once that exercise's check has seen an attempt, as ``solution()`` does, so a Run All
  of the student edition prints none before the student tried (:func:`locked_source`); in the graded build, never.

Introduced in notebook 01.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import sys
import sysconfig
import types
import weakref
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from bertedu.language import msg

_EXERCISES: weakref.WeakSet = weakref.WeakSet()  # every Exercise that declares answers


def register(exercise: Any) -> None:
    """Remember ``exercise`` (it declares answers) for :func:`locked_source`."""
    _EXERCISES.add(exercise)


@functools.lru_cache(maxsize=1024)
def resolve(path: str) -> Any:
    """The object at a dotted ``path`` (``bertedu.core.attention.BertSelfAttention.split_heads``): the longest
    importable module prefix, then attributes. Raises ``ValueError`` naming the path when it does not exist."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for name in parts[cut:]:
                obj = inspect.getattr_static(obj, name)
        except AttributeError:
            break
        return plain(obj)
    raise ValueError(f"{path} names no object of the package: fix the exercise's answers=(...).")


def plain(obj: Any) -> Any:
    """The function behind a method, property, classmethod, staticmethod, partial or wrapper; else ``obj``."""
    for _ in range(8):
        if isinstance(obj, property):
            obj = obj.fget
        elif isinstance(obj, (classmethod, staticmethod, types.MethodType)):
            obj = obj.__func__
        elif isinstance(obj, functools.partial):
            obj = obj.func
        elif _wrapped(obj) is not None:
            obj = _wrapped(obj)
        else:
            return obj
    return obj


def _wrapped(obj: Any) -> Any:
    """``obj.__wrapped__`` as ``functools.wraps`` stores it, or ``None``. Read statically: an object's own
    ``__getattr__`` is not asked (torch's ``torch.classes`` makes up a namespace for any name and raises
    ``RuntimeError`` one level down)."""
    try:
        return inspect.getattr_static(obj, "__wrapped__", None)
    except Exception:  # an object that cannot even be inspected is no wrapper
        return None


def targets(paths: Iterable[str]) -> dict[int, str]:
    """``{id(object): dotted path}`` of the answers named by ``paths`` (their plain functions and classes)."""
    return {id(resolve(p)): p for p in paths}


def _is_library(obj: Any) -> bool:
    """Defined in the bertedu package (not in a notebook or a student's module)."""
    module = getattr(obj, "__module__", None) or ""
    return module == "bertedu" or module.startswith("bertedu.")


@functools.cache
def _installed_folders() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple(str(Path(paths[k]).resolve()) for k in ("stdlib", "platstdlib", "purelib", "platlib"))


def _is_students(obj: Any) -> bool:
    """Written by the student: in a notebook (``__main__``) or a module of their own, not in bertedu, the standard
    library or an installed package (whose code is not searched)."""
    module = getattr(obj, "__module__", None) or ""
    if module in ("__main__", ""):  # a notebook cell, or code made by exec/eval without a module
        return True
    if _is_library(obj) or module == "builtins":
        return False
    file = getattr(sys.modules.get(module), "__file__", None)
    return bool(file) and not _installed(file)


def _installed(file: str) -> bool:
    """``file`` belongs to Python or an installed package: under this interpreter's standard library or
    site-packages, or in any ``site-packages`` / ``dist-packages`` folder (a user's, the system's, or another
    environment's linked in: Debian's and Colab's PyTorch live in ``dist-packages``, a hub's in the class venv).
    Searching such a package as if a student wrote it walks all of PyTorch: minutes for one check."""
    path = Path(file).resolve()
    return str(path).startswith(_installed_folders()) or not {"site-packages", "dist-packages"}.isdisjoint(
        path.parts
    )


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    """``code`` and every code object nested in it (inner functions, lambdas, comprehensions)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _reachable_through(obj: Any, names: set[str], depth: int = 4) -> Iterator[Any]:
    """``obj`` and what its attributes named in ``names`` hold, attribute after attribute (``depth`` deep):
    ``bertedu.core.attention.build_key_mask`` when the code names ``bertedu``, ``core``, ... in turn."""
    frontier = [obj]
    for _ in range(depth):
        found = []
        for parent in frontier:
            if not isinstance(parent, (types.ModuleType, type)):
                continue
            for name in names:
                try:
                    found.append(inspect.getattr_static(parent, name))
                except AttributeError:
                    continue
        yield from frontier
        frontier = found
    yield from frontier


class _Search:
    """One search of an answer for the library's answers (:func:`library_use`)."""

    def __init__(self, wanted: dict[int, str]):
        self.wanted = wanted
        self.seen: set[int] = set()
        self.codes: set[types.CodeType] = set()  # the student's code met on the way (for guarded())

    def hit(self, obj: Any) -> str | None:
        return self.wanted.get(id(plain(obj)))

    def value(self, obj: Any) -> str | None:
        """The first answer ``obj`` is or reaches (student code is searched; the library's is not)."""
        if id(obj) in self.seen or obj is None or isinstance(obj, (str, bytes, int, float, bool)):
            return None
        self.seen.add(id(obj))
        found = self.hit(obj)
        if found:
            return found
        if isinstance(obj, functools.partial):
            return self.many([obj.func, *obj.args, *obj.keywords.values()])
        if isinstance(obj, types.MethodType):
            return self.value(obj.__func__) or self.value(type(obj.__self__))
        if isinstance(obj, type):
            return self.cls(obj)
        if isinstance(obj, types.FunctionType):
            return self.function(obj) if _is_students(obj) else None
        if isinstance(obj, (list, tuple, set, frozenset)):
            return self.many(obj)
        if isinstance(obj, dict):
            return self.many(obj.values())
        if not isinstance(obj, types.ModuleType) and _is_students(type(obj)):
            return self.cls(type(obj))  # an instance of a student's class
        return None

    def many(self, items: Iterable[Any]) -> str | None:
        return next((found for item in items if (found := self.value(item))), None)

    def cls(self, cls: type) -> str | None:
        for base in cls.__mro__:
            found = self.hit(base)
            if found:
                return found
        for path in self.wanted.values():  # an inherited method that is an answer
            name = path.rpartition(".")[2]
            found = self.hit(inspect.getattr_static(cls, name, None)) if name in dir(cls) else None
            if found:
                return found
        return self.many(vars(cls).values()) if _is_students(cls) else None

    def function(self, fn: types.FunctionType) -> str | None:
        names: set[str] = set()
        for code in _codes(fn.__code__):
            self.codes.add(code)
            names.update(code.co_names)
        cells = [c.cell_contents for c in fn.__closure__ or () if _cell_is_set(c)]
        found = self.many([*cells, *(fn.__defaults__ or ()), *(fn.__kwdefaults__ or {}).values()])
        if found:
            return found
        for name in sorted(names):
            if name not in fn.__globals__:
                continue
            for obj in _reachable_through(fn.__globals__[name], names):
                found = self.hit(obj) or self.value(obj)
                if found:
                    return found
        return None


def _cell_is_set(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018 (an empty cell raises)
    except ValueError:
        return False
    return True


def library_use(answer: tuple, paths: Iterable[str]) -> str | None:
    """The dotted path of the first of ``paths`` (an exercise's library answers) that ``answer`` (the values given
    to ``check``) is, subclasses or refers to, or ``None`` when it uses none of them."""
    wanted = targets(paths)
    if not wanted:
        return None
    return _Search(wanted).many(answer)


def student_code(answer: tuple) -> set[types.CodeType]:
    """The code objects of the student's functions and classes in ``answer`` (and of the helpers they call)."""
    search = _Search({})
    search.many(answer)
    return search.codes


class LibraryAnswerCalled(RuntimeError):
    """Raised (and remembered) when the student's code calls one of the exercise's library answers."""


@contextlib.contextmanager
def guarded(paths: Iterable[str], codes: set[types.CodeType], calls: list[str]) -> Iterator[None]:
    """While the block runs, each library answer that is a method or a module's function calls through a guard:
    called with one of ``codes`` (the student's) on the stack, it appends its path to ``calls`` and raises
    :class:`LibraryAnswerCalled`; called by the checker, it simply runs."""
    patches = []
    for path in paths:
        owner_path, _, name = path.rpartition(".")
        try:
            owner = resolve(owner_path)
        except ValueError:
            continue
        original = vars(owner).get(name) if isinstance(owner, (type, types.ModuleType)) else None
        if isinstance(original, type) and isinstance(vars(original).get("forward"), types.FunctionType):
            owner, name, original = original, "forward", vars(original)["forward"]  # a module: its forward
        if not isinstance(original, types.FunctionType):
            continue
        patches.append((owner, name, original))
        setattr(owner, name, _guard(original, path, codes, calls))
    try:
        yield
    finally:
        for owner, name, original in reversed(patches):
            setattr(owner, name, original)


def _guard(original: types.FunctionType, path: str, codes: set, calls: list[str]):
    @functools.wraps(original)
    def guard(*args: Any, **kwargs: Any) -> Any:
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code in codes:
                calls.append(path)
                raise LibraryAnswerCalled(path)
            frame = frame.f_back
        return original(*args, **kwargs)

    return guard


def rejection(path: str) -> str:
    """The message of an answer that uses the library's own answer ``path``."""
    short = path.rpartition(".")[2] if "." in path else path
    return msg(
        "your answer uses `{path}`, bertedu's own version of what this exercise asks you to write, so it cannot "
        "count: write the code yourself, without `{short}` (its source is shown after an attempt, by "
        "`show(...)` below the exercise).",
        path=path,
        short=short,
    )


# ----------------------------------------------------------------------------------------------------------
# show(): the source of an answer after an attempt


def exercises_answered_by(obj: Any) -> list[Any]:
    """The registered exercises whose library answers include ``obj``: the object itself, or, for a declared
    class, the class and its own methods."""
    target = plain(obj)
    out = []
    for exercise in list(_EXERCISES):
        for path in exercise.answers:
            try:
                answer = resolve(path)
            except ValueError:
                continue
            if answer is target or (
                isinstance(answer, type) and any(v is target for v in map(plain, vars(answer).values()))
            ):
                out.append(exercise)
                break
    return sorted(out, key=lambda e: e.name)


def locked_source(obj: Any, graded: bool) -> str | None:
    """Why ``show(obj)`` must not print ``obj``'s source now (a sentence), or ``None`` when it may: ``obj`` is a
    library answer of an exercise (loaded in this kernel) whose check has not seen an attempt yet, or of any
    exercise in the graded build."""
    gating = exercises_answered_by(obj)
    if not gating:
        return None
    names = ", ".join(f"`ex.{e.name}`" for e in gating)
    if graded:
        return msg(
            "The library's code of what {names} asks for is not shown in this graded build: write your own.",
            names=names,
        )
    if any(e._attempted for e in gating):
        return None
    first = gating[0].name
    return msg(
        "This is the library's version of what {names} asks you to write, so it is shown after your first "
        "attempt: write your answer, run its check (`ex.{first}.check(...)`, a wrong answer counts), then run "
        "this cell again.",
        names=names,
        first=first,
    )
