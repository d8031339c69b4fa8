"""One source, two editions: the conventions that turn a course notebook into its student edition (and, in
tools/build_assignments.py, into an nbgrader assignment). CONTRIBUTING.md, "Exercises and editions", is the
human-readable version of this file.

The committed notebooks in notebooks/ are the instructor edition: executed, with reference solutions. In them:

* ``### BEGIN SOLUTION`` / ``### END SOLUTION`` (nbgrader's own markers, each alone on its line) enclose the
  reference solution inside a code cell. The student edition replaces the region by a stub: inside a
  function or method body ``raise NotImplementedError(...)``; at the top level of a cell ``name = ...`` for
  every name the region assigns that a later ``ex.NAME.check(...)`` call passes (other names are dropped).
* A cell tagged ``solution`` holds only a reference answer (a "reference solution" cell, a check that only
  the solved notebook can pass): dropped from the student edition. ``instructor`` cells (notes for the
  teacher) are dropped too.
* A cell tagged ``exercise`` belongs to an exercise (prompt, starter, check, hint and solution calls); every
  cell that calls ``ex.NAME.hint()`` / ``ex.NAME.solution()`` or holds a solution region counts as one.
* Exercise checks are written ``ALIAS.NAME.check(ANSWER, ...)`` on a line of their own, where ``ALIAS`` comes
  from ``from bertedu.teaching.exercises import TOPIC as ALIAS`` in the notebook.

The student edition has no outputs at all (run it to see them), no execution counts, no widget state, no
nbgrader metadata, and a first Markdown cell that says what it is. :func:`lint` lists what would make a
student edition crash or leak: a teaching cell that uses a name only a solution defines, an untagged cell
holding a known exercise's reference code, markers that do not pair up.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import importlib
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from bertedu import language
from bertedu.language import t

TAG_SOLUTION = "solution"
TAG_INSTRUCTOR = "instructor"
TAG_EXERCISE = "exercise"
DROPPED_TAGS = (TAG_SOLUTION, TAG_INSTRUCTOR)

BEGIN_SOLUTION = "### BEGIN SOLUTION"
END_SOLUTION = "### END SOLUTION"
BEGIN_HIDDEN = "### BEGIN HIDDEN TESTS"
END_HIDDEN = "### END HIDDEN TESTS"

#: The stubs (comment, raise) of a solution region and the student edition's first cell are in the one table of UI
#: words (bertedu/language/words.py: student_*), in each edition's language: a notebook's language is its metadata
#: ``bertedu.language`` (tools/translate.py writes it into the translated notebooks), English without it.

EXERCISE_IMPORT = re.compile(
    r"^\s*from\s+bertedu\.teaching\.exercises\s+import\s+(\w+)\s+as\s+(\w+)\s*$", re.M
)
CHECK_CALL = re.compile(r"^\s*(?P<alias>\w+)\.(?P<name>\w+)\.check\((?P<args>.*)\)\s*(#.*)?$", re.M)
HELP_CALL = re.compile(r"\b\w+\.\w+\.(hint|solution)\(")

STUDENT_NOTE_ID = "student-edition-note"


class EditionError(ValueError):
    """A notebook breaks the conventions (unpaired markers, a class inside a top-level region, ...)."""


def tags(cell) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


# ----------------------------------------------------------------------------------------------------------
# Solution regions and their stubs


@dataclass(frozen=True)
class Region:
    """Lines ``begin`` .. ``end`` (the marker lines, inclusive) of a cell's source; ``indent`` of the marker."""

    begin: int
    end: int
    indent: str


def solution_regions(source: str, where: str = "a cell") -> list[Region]:
    """The ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` regions of a source (raises on unpaired markers)."""
    regions, start = [], None
    for i, line in enumerate(source.split("\n")):
        text = line.strip()
        if text == BEGIN_SOLUTION:
            if start is not None:
                raise EditionError(f"{where}: nested {BEGIN_SOLUTION} (line {i + 1})")
            start = i
        elif text == END_SOLUTION:
            if start is None:
                raise EditionError(f"{where}: {END_SOLUTION} without {BEGIN_SOLUTION} (line {i + 1})")
            regions.append(Region(start, i, line[: len(line) - len(line.lstrip())]))
            start = None
        elif "BEGIN SOLUTION" in text or "END SOLUTION" in text:  # nbgrader matches the bare words
            raise EditionError(
                f"{where}: write the marker alone on its line as {text.split()[0]} ... (line {i + 1})"
            )
    if start is not None:
        raise EditionError(f"{where}: {BEGIN_SOLUTION} without {END_SOLUTION}")
    return regions


def assigned_names(code: str) -> tuple[list[str], list[ast.FunctionDef], list[str]]:
    """Top-level names a piece of code assigns, its top-level functions, and its top-level classes."""
    tree = ast.parse(code)
    names, functions, classes = [], [], []
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.extend(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.append(node)
        elif isinstance(node, ast.ClassDef):
            classes.append(node.name)
        elif isinstance(node, (ast.For, ast.With, ast.If)):
            names.extend(
                n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            )
    return list(dict.fromkeys(names)), functions, classes


def notebook_language(nb) -> str:
    """The language of a notebook's prose and stubs: ``metadata.bertedu.language`` ("zh" in notebooks/zh/),
    else English."""
    lang = nb.metadata.get("bertedu", {}).get("language", language.DEFAULT_LANGUAGE)
    if lang not in language.LANGUAGES:
        raise EditionError(
            f"unknown notebook language {lang!r} (metadata bertedu.language): {list(language.LANGUAGES)}"
        )
    return lang


def stub(region_lines: list[str], indent: str, answers: set[str], where: str, lang: str = "en") -> list[str]:
    """The student-edition lines for one solution region (markers excluded from ``region_lines``), with the
    stubs of the notebook's language ``lang``."""
    comment, raise_line = t("student_stub_comment", lang), t("student_stub_raise", lang)
    if indent:  # inside a function or method body
        return [indent + comment, indent + raise_line]
    code = "\n".join(region_lines)
    try:
        names, functions, classes = assigned_names(code)
    except SyntaxError as err:
        raise EditionError(f"{where}: the solution region is not valid Python on its own ({err})") from err
    if classes:
        raise EditionError(
            f"{where}: class {classes[0]} is defined inside a top-level solution region; put the markers "
            "inside its methods instead, so the student keeps the class and its signatures"
        )
    out = [comment]
    for name in names:
        if name in answers:
            out.append(f"{name} = ...")
    for fn in functions:
        if fn.name in answers:
            first, body = fn.lineno - 1, fn.body[0].lineno - 1
            signature = (
                region_lines[first:body] if body > first else [region_lines[first].split(":")[0] + ":"]
            )
            out.extend([*signature, "    " + raise_line])
    return out


def replace_regions(source: str, answers: set[str], where: str, lang: str = "en") -> tuple[str, bool]:
    """``source`` with every solution region replaced by its stub (in ``lang``) and every hidden-test region
    removed."""
    regions = solution_regions(source, where)
    lines = source.split("\n")
    out, i = [], 0
    for region in regions:
        out.extend(lines[i : region.begin])
        out.extend(stub(lines[region.begin + 1 : region.end], region.indent, answers, where, lang))
        i = region.end + 1
    out.extend(lines[i:])
    text = "\n".join(out)
    hidden = re.compile(
        rf"^[ \t]*{re.escape(BEGIN_HIDDEN)}[ \t]*\n.*?^[ \t]*{re.escape(END_HIDDEN)}[ \t]*\n?", re.M | re.S
    )
    text, n_hidden = hidden.subn("", text)
    return text, bool(regions or n_hidden)


# ----------------------------------------------------------------------------------------------------------
# What a notebook's exercises are


def exercise_aliases(nb) -> dict[str, str]:
    """``{alias: topic module}`` from the notebook's ``from bertedu.teaching.exercises import TOPIC as ALIAS`` lines."""
    out = {}
    for cell in nb.cells:
        if cell.cell_type == "code":
            for topic, alias in EXERCISE_IMPORT.findall(cell.source):
                out[alias] = topic
    return out


@dataclass(frozen=True)
class CheckCall:
    cell: int
    alias: str
    name: str
    args: str

    @property
    def arg_names(self) -> set[str]:
        try:
            call = ast.parse(f"f({self.args})").body[0].value
        except SyntaxError:
            return set()
        return {n.id for a in call.args for n in ast.walk(a) if isinstance(n, ast.Name)}


def check_calls(nb) -> list[CheckCall]:
    """Every ``ALIAS.NAME.check(...)`` line whose alias is an exercise module of the notebook."""
    aliases = exercise_aliases(nb)
    out = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            for m in CHECK_CALL.finditer(cell.source):
                if m["alias"] in aliases:
                    out.append(CheckCall(i, m["alias"], m["name"], m["args"]))
    return out


def exercises(nb) -> dict[str, object]:
    """``{"alias.NAME": Exercise}`` for every exercise the notebook checks (imports bertedu.teaching.exercises.*)."""
    from bertedu.teaching.exercises import Exercise

    aliases = exercise_aliases(nb)
    out = {}
    for call in check_calls(nb):
        module = importlib.import_module(f"bertedu.teaching.exercises.{aliases[call.alias]}")
        exercise = getattr(module, call.name, None)
        if isinstance(exercise, Exercise):
            out[f"{call.alias}.{call.name}"] = exercise
    return out


def is_exercise_cell(cell) -> bool:
    if cell.cell_type != "code":
        return TAG_EXERCISE in tags(cell)
    return (
        TAG_EXERCISE in tags(cell)
        or bool(HELP_CALL.search(cell.source))
        or any(line.strip() == BEGIN_SOLUTION for line in cell.source.split("\n"))
    )


def is_converted(nb) -> bool:
    """True once a notebook follows the conventions (some cell is tagged or holds a solution region)."""
    return any(
        tags(c) & {TAG_EXERCISE, TAG_SOLUTION, TAG_INSTRUCTOR} or BEGIN_SOLUTION in c.source for c in nb.cells
    )


def significant_lines(code: str) -> list[str]:
    """The lines of a reference solution worth searching for in a student notebook: comments and blank lines
    removed, whitespace collapsed; ``def``/``class`` signatures, imports, bare ``return``, check calls and
    short lines (under 16 characters) left out, since a starter cell may show them on purpose."""
    out = []
    for line in code.split("\n"):
        text = re.sub(r"\s+", " ", line.split("#", 1)[0]).strip()
        if (
            len(text) < 16
            or text.startswith(("def ", "class ", "import ", "from ", "@"))
            or CHECK_CALL.match(text)
            or text in ("return", "super().__init__()")
        ):
            continue
        out.append(text)
    return out


def normalised_code_lines(nb) -> set[str]:
    return {
        re.sub(r"\s+", " ", line.split("#", 1)[0]).strip()
        for cell in nb.cells
        if cell.cell_type == "code"
        for line in cell.source.split("\n")
    }


def answer_names(nb) -> dict[str, int]:
    """``{name: cell}`` for the names that only exist once an exercise is solved: assigned in a solution
    region, defined in a cell tagged ``solution``, or (function and class) defined around a region."""
    out: dict[str, int] = {}
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        regions = solution_regions(cell.source, f"cell {i}")
        if TAG_SOLUTION in tags(cell):
            try:
                names, functions, classes = assigned_names(cell.source)
            except SyntaxError:
                continue
            for name in [*names, *(f.name for f in functions), *classes]:
                out.setdefault(name, i)
        elif regions:
            lines = cell.source.split("\n")
            for region in regions:
                if not region.indent:
                    code = "\n".join(lines[region.begin + 1 : region.end])
                    names, functions, classes = assigned_names(code)
                    for name in [*names, *(f.name for f in functions)]:
                        out.setdefault(name, i)
            try:
                tree = ast.parse(cell.source)  # the markers are comments: the cell parses as it is
            except SyntaxError:
                continue
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and any(
                    node.lineno <= r.begin + 1 <= (node.end_lineno or node.lineno) for r in regions
                ):
                    out.setdefault(node.name, i)
    return out


def loaded_names(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def lint(nb, name: str = "notebook") -> list[str]:
    """Problems that would make the student edition crash or leak (empty list: none)."""
    problems = []
    try:
        answers = answer_names(nb)
    except EditionError as err:
        return [f"{name}: {err}"]
    for i, cell in enumerate(nb.cells):
        if (
            cell.cell_type == "markdown"
            and BEGIN_SOLUTION in cell.source
            and not tags(cell) & set(DROPPED_TAGS)
        ):
            problems.append(f"{name}, cell {i}: solution markers in a Markdown cell; tag the cell `solution`")
        if cell.cell_type != "code" or tags(cell) & set(DROPPED_TAGS) or is_exercise_cell(cell):
            continue
        for used in sorted(loaded_names(cell.source)):
            if used in answers and answers[used] < i:
                # assigned again in this very cell before use? then it is the cell's own variable
                mine, _, _ = assigned_names_safe(cell.source)
                if used not in mine:
                    problems.append(
                        f"{name}, cell {i}: uses `{used}`, which only a solution defines (cell {answers[used]}); in "
                        "the student edition it would be missing or a stub. Use the package's version here, tag "
                        f"the cell `{TAG_EXERCISE}` (a check) or `{TAG_SOLUTION}` (instructor only)."
                    )
    try:
        found = exercises(nb)
    except ImportError as err:
        return [*problems, f"{name}: cannot import its exercises ({err})"]
    for label, exercise in found.items():
        wanted = significant_lines(exercise.solution_code)
        enough = len(wanted)  # all of them: a find-the-bug starter shares every line but the buggy one
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code" or tags(cell) & set(DROPPED_TAGS) or BEGIN_SOLUTION in cell.source:
                continue  # dropped, or its region becomes a stub
            lines = {re.sub(r"\s+", " ", line.split("#", 1)[0]).strip() for line in cell.source.split("\n")}
            hits = [w for w in wanted if w in lines]
            if wanted and len(hits) >= enough:
                problems.append(
                    f"{name}, cell {i}: holds the reference solution of {label} ({hits[0]!r}); wrap it in "
                    f"{BEGIN_SOLUTION} / {END_SOLUTION} or tag the cell `{TAG_SOLUTION}`"
                )
    return problems


def assigned_names_safe(code: str):
    try:
        return assigned_names(code)
    except SyntaxError:
        return [], [], []


# ----------------------------------------------------------------------------------------------------------
# The student edition


#: A line that only asks for an exercise's hint (``ex.NAME.hint()``, maybe with a number and a comment).
HINT_LINE = re.compile(r"^(?P<indent>[ \t]*)(?P<call>\w+\.\w+\.hint\(\d*\))[ \t]*(?:#.*)?$", re.MULTILINE)


def comment_hint_calls(source: str, lang: str = "en") -> str:
    """``source`` with every line that only asks for a hint commented out, saying how to ask for it: as in
    Kaggle's learntools (``#q1.hint()``), Run All on a fresh student notebook shows no hint; the student
    deletes the ``# `` when stuck."""
    return HINT_LINE.sub(lambda m: m["indent"] + t("student_hint_call", lang, call=m["call"]), source)


#: A line holding only an nbval marker (``# NBVAL_IGNORE_OUTPUT`` ...), with its line break.
NBVAL_MARKER = re.compile(r"^# NBVAL_[A-Z_]+[ \t]*(?:\n|$)", re.MULTILINE)


def student_notebook(nb, name: str):
    """The student edition of a (parsed) instructor notebook. ``name`` is its file name, for messages."""
    answers = {a for call in check_calls(nb) for a in call.arg_names}
    lang = notebook_language(nb)
    out = copy.deepcopy(nb)
    cells = []
    for i, cell in enumerate(out.cells):
        if tags(cell) & set(DROPPED_TAGS):
            continue
        cell.metadata.pop("nbgrader", None)
        for key in ("execution", "ExecuteTime", "collapsed", "scrolled"):
            cell.metadata.pop(key, None)
        if cell.cell_type == "code":
            cell.source, _ = replace_regions(cell.source, answers, f"{name}, cell {i}", lang)
            cell.source = NBVAL_MARKER.sub("", cell.source)  # nbval's markers mean nothing to a student
            cell.source = comment_hint_calls(cell.source, lang)
            cell.outputs = []
            cell.execution_count = None
        cells.append(cell)
    note = nbformat.v4.new_markdown_cell(t("student_note", lang, name=name))
    note.id = STUDENT_NOTE_ID
    out.cells = [note, *cells]
    out.metadata.pop("widgets", None)
    if lang == "en":
        out.metadata["bertedu"] = {"edition": "student", "source": f"notebooks/{name}"}
    else:
        out.metadata["bertedu"] = {
            "edition": "student",
            "source": f"notebooks/{lang}/{name}",
            "language": lang,
        }
    nbformat.validate(out)
    return out


def notebook_text(nb) -> str:
    """The exact file contents for ``nb`` (nbformat's sorted-key JSON, final newline): deterministic."""
    text = nbformat.writes(nb)
    return text if text.endswith("\n") else text + "\n"


def sha256(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


def read(path: Path):
    return nbformat.read(path, as_version=4)


# ----------------------------------------------------------------------------------------------------------
# Leaks: what must never be readable in a student notebook


def _number_forms(value) -> list[str]:
    """How a non-integer expected answer could be written: 3 and 4 decimals (integers are too common to search)."""
    import numpy as np

    out = []
    for x in np.asarray(value, dtype=np.float64).ravel():
        if np.isfinite(x) and abs(x - round(x)) > 1e-6:
            out += [f"{x:.4f}", f"{x:.3f}"]
    return sorted(set(out))


def find_leaks(instructor_nb, student_nb) -> list[str]:
    """Every answer of ``instructor_nb`` readable in ``student_nb`` (empty list: none). Looks for: outputs
    and widget state at all; solution markers and hidden tests; the reference code of every exercise the
    notebook checks, of every ``solution``-tagged cell and of every solution region (all of its significant
    lines in one student cell); every hint's text; and every non-integer ``Exercise.expected()`` value."""
    leaks = []
    text = notebook_text(student_nb)
    code_cells = [c for c in student_nb.cells if c.cell_type == "code"]
    if "widgets" in student_nb.metadata:
        leaks.append("widget state in the notebook metadata")
    for i, cell in enumerate(code_cells):
        if cell.outputs:
            leaks.append(f"code cell {i} has outputs")
        for marker in (BEGIN_SOLUTION, BEGIN_HIDDEN, "BEGIN SOLUTION", "BEGIN HIDDEN"):
            if marker in cell.source:
                leaks.append(f"code cell {i} still holds {marker!r}")
    cell_lines = [
        {re.sub(r"\s+", " ", line.split("#", 1)[0]).strip() for line in c.source.split("\n")}
        for c in code_cells
    ]

    def look_for(code: str, what: str) -> None:
        wanted = significant_lines(code)
        for i, lines in enumerate(cell_lines):
            if wanted and all(w in lines for w in wanted):
                leaks.append(f"{what} is in student code cell {i} ({wanted[0]!r} ...)")

    for label, exercise in exercises(instructor_nb).items():
        look_for(exercise.solution_code, f"the reference solution of {label}")
        for k, hint in enumerate(exercise.hints, 1):
            if hint in text or (len(hint) > 40 and hint[:60] in text):
                leaks.append(f"hint {k} of {label} is written in the student notebook")
        if exercise.expected is not None:
            for form in _number_forms(exercise.expected()):
                if form in text:
                    leaks.append(
                        f"the expected answer of {label} ({form}) is written in the student notebook"
                    )
    for i, cell in enumerate(instructor_nb.cells):
        if cell.cell_type != "code":
            continue
        if tags(cell) & set(DROPPED_TAGS):
            look_for(cell.source, f"instructor cell {i} (tagged {sorted(tags(cell) & set(DROPPED_TAGS))})")
        lines = cell.source.split("\n")
        for region in solution_regions(cell.source, f"cell {i}"):
            look_for(
                "\n".join(lines[region.begin + 1 : region.end]), f"the solution region of instructor cell {i}"
            )
    return sorted(set(leaks))
