"""No answer before an attempt, in Run All too: a student edition never prints the library's version of what one of
its exercises asks for (``show(build_key_mask)`` under the key-mask exercise) before that exercise's check has
seen an attempt.

Exercises name the package objects that answer them (``Exercise(answers=...)``); ``show()`` prints such an object
only once its exercise has an attempt (bertedu.teaching.show.locked). Here, every student notebook of both
languages, built by tools/build_student.py into a temporary folder, is read:

* statically: every ``show(X)`` is resolved in the notebook's own imports; when X's source holds the code of an
  exercise of the notebook (its library answer, or any object whose source the exercise's messages name), X must
  be one of that exercise's declared answers, so that ``show`` waits; and in a Run All (nothing attempted) it does;
* dynamically: notebook 01's student edition, English and Chinese, runs top to bottom in a kernel, and no output
  holds the source of any answer its ``show`` cells name, while those cells say when the code will be shown.

The instructor edition still shows the code: each of its ``show(X)`` of an answer comes after that exercise's
check, which the reference solution passes.
"""

from __future__ import annotations

import ast
import os
import re
import tempfile
from pathlib import Path

import build_student
import editions
import pytest

from bertedu.teaching.exercises import library_answers
from bertedu.teaching.show import locked, source_of

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
ZH_NOTEBOOKS = sorted((ROOT / "notebooks" / "zh").glob("[0-9][0-9]_*.ipynb"))
SHOW = re.compile(r"^\s*show\((?P<arg>[^()]+)\)\s*(#.*)?$", re.M)


@pytest.fixture(scope="module")
def editions_dir(tmp_path_factory) -> dict[str, Path]:
    """Both student editions, built as `make student` / `make student-zh` build them."""
    out = {"en": tmp_path_factory.mktemp("student"), "zh": tmp_path_factory.mktemp("student-zh")}
    build_student.build(NOTEBOOKS, out["en"], quiet=True)
    build_student.build(ZH_NOTEBOOKS, out["zh"], quiet=True)
    return out


def imports_of(nb) -> dict:
    """The namespace the notebook's import statements make (every code cell's top-level imports)."""
    namespace: dict = {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                exec(compile(ast.Module([node], []), "<imports>", "exec"), namespace)  # noqa: S102
    return namespace


def shows(nb) -> list[tuple[int, str]]:
    """``(cell index, argument)`` of every ``show(X)`` line."""
    return [
        (i, m["arg"].strip())
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        for m in SHOW.finditer(cell.source)
    ]


def first_checks(nb) -> dict[str, int]:
    """``{exercise name: the cell of its first check of the student's own answer}`` (not ``given=True``)."""
    out: dict[str, int] = {}
    for call in editions.check_calls(nb):
        if "given=True" not in call.args:
            out.setdefault(call.name, call.cell)
    return out


def answered_by(exercise, obj) -> bool:
    return exercise in library_answers.exercises_answered_by(obj)


def named_by(exercise, obj) -> bool:
    """The exercise's own texts name ``obj``, a function or class of the package outside the exercises (by its
    qualified name: ``BertSelfAttention.split_heads``): its prompt, hints, reference solution and its checker's
    source, where a message says "the same mask as bertedu.core.attention.build_key_mask"."""
    import inspect

    plain = library_answers.plain(obj)
    name = getattr(plain, "__qualname__", "")
    if not name or not library_answers._is_library(plain) or plain.__module__.startswith("bertedu.teaching"):
        return False
    checker = inspect.unwrap(exercise.checker)
    texts = [exercise.prompt, *exercise.hints, exercise.solution_code, inspect.getsource(checker)]
    return any(re.search(rf"\b{re.escape(name)}\b", t) for t in texts)


@pytest.fixture
def nothing_attempted(monkeypatch):
    """Every exercise of the package as a fresh kernel has it: no attempt yet (as in a Run All of a student
    edition, where every answer is a stub); English."""
    import importlib
    import pkgutil

    import bertedu.teaching.exercises as package
    from bertedu import language as i18n
    from bertedu.teaching.exercises import Exercise

    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, Exercise):
                monkeypatch.setattr(value, "_attempted", False)
    i18n.set_language("en")
    yield
    i18n.set_language(None)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_show_prints_an_exercises_answer_before_its_attempt(lang, editions_dir, nothing_attempted):
    problems, gated = [], 0
    for path in sorted(editions_dir[lang].glob("[0-9][0-9]_*.ipynb")):
        nb = editions.read(path)
        namespace = imports_of(nb)
        exercises = editions.exercises(nb)
        for cell, arg in shows(nb):
            obj = eval(arg, dict(namespace))  # noqa: S307 (a name or attribute of the notebook's imports)
            where = f"{path.name}, cell {cell}: show({arg})"
            declared = [label for label, e in exercises.items() if answered_by(e, obj)]
            named = [label for label, e in exercises.items() if named_by(e, obj)]
            if named and not declared:
                problems.append(
                    f"{where} prints code that {', '.join(named)} name, which no answers=(...) declares"
                )
            elif declared and locked(obj) is None:
                problems.append(f"{where} prints the answer of {', '.join(declared)} before any attempt")
            elif declared:
                gated += 1
    assert not problems, "\n".join(problems)
    assert gated >= 12, f"only {gated} show() cells of answers found: the search is broken"


def test_the_instructor_edition_shows_each_answer_after_its_check():
    """In the instructor edition the reference solution is checked first, so ``show`` opens: every ``show(X)`` of
    a declared answer comes after the first check of an exercise it answers (one attempt opens it)."""
    problems = []
    for path in NOTEBOOKS:
        nb = editions.read(path)
        namespace, checks = imports_of(nb), first_checks(nb)
        for cell, arg in shows(nb):
            obj = eval(arg, dict(namespace))  # noqa: S307
            answering = [e for e in editions.exercises(nb).values() if answered_by(e, obj)]
            if answering and min(checks.get(e.name, 10**9) for e in answering) > cell:
                names = ", ".join(e.name for e in answering)
                problems.append(f"{path.name}, cell {cell}: show({arg}) before any check of {names}")
    assert not problems, "\n".join(problems)


def test_the_static_search_finds_an_ungated_show(nothing_attempted):
    """The rule above fails on a notebook whose show() prints an answer nobody declared: build_key_mask with the
    key-mask exercise's answers taken away."""
    from bertedu.core.attention import build_key_mask
    from bertedu.teaching.exercises import attention as ex

    assert locked(build_key_mask) is not None and answered_by(ex.key_mask, build_key_mask)
    saved = ex.key_mask.answers
    try:
        ex.key_mask.answers = ()
        assert locked(build_key_mask) is None and not answered_by(ex.key_mask, build_key_mask)
        assert named_by(ex.key_mask, build_key_mask)  # its messages name it: the test would report it
    finally:
        ex.key_mask.answers = saved


def _answer_sources(nb) -> dict[str, list[str]]:
    """``{show argument: significant lines of its source}`` for every show() of a declared answer."""
    namespace, out = imports_of(nb), {}
    for _, arg in shows(nb):
        obj = eval(arg, dict(namespace))  # noqa: S307
        if library_answers.exercises_answered_by(obj):
            lines = editions.significant_lines(source_of(obj).code)
            out[arg] = [line for line in lines if len(line) > 30]
    return out


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_run_all_of_notebook_01_prints_no_library_answer(lang, editions_dir, monkeypatch):
    """Notebook 01's student edition, executed top to bottom in a kernel (Run All): its show() cells of
    scaled_dot_product_attention, build_key_mask and BertSelfAttention.split_heads print the sentence, not the
    code, and no output anywhere holds a line of those answers."""
    from nbclient import NotebookClient

    path = editions_dir[lang] / "01_self_attention_by_hand.ipynb"
    nb = editions.read(path)
    answers = _answer_sources(nb)
    assert set(answers) == {
        "scaled_dot_product_attention",
        "build_key_mask",
        "BertSelfAttention.split_heads",
    }, answers
    monkeypatch.setenv("BERTEDU_HOME", tempfile.mkdtemp(prefix="bertedu-home-"))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("MKL_NUM_THREADS", "1")
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    printed = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            printed.append(output.get("text", "") + "".join(str(v) for v in output.get("data", {}).values()))
    text = "\n".join(printed)
    for arg, lines in answers.items():
        assert lines and not [line for line in lines if line in text], f"show({arg}) printed its code"
    notes = [
        "".join(str(v) for o in c.outputs for v in o.get("data", {}).values())
        for c in nb.cells
        if c.cell_type == "code" and SHOW.search(c.source)
    ]
    expected = "第一次尝试之后" if lang == "zh" else "shown after your first attempt"
    assert len(notes) == 3 and all(expected in n for n in notes), notes
    assert os.environ.get("BERTEDU_HOME")  # the kernel's progress went to the throw-away home
