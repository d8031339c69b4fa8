"""Build an nbgrader course from the course notebooks: ``make assignments``.

Usage: python tools/build_assignments.py [--out assignments] [notebooks/01_x.ipynb ...]   (default: every
notebook that checks an exercise, English and Chinese)

Writes an nbgrader course directory (docs/instructor_guide.md says how to use it on JupyterHub)::

    assignments/
        nbgrader_config.py                        course id, timeouts, the release's stubs, the feedback template
        nbgrader_twins.py                         grades.csv: an assignment and its Chinese twin in one row
        source/01_self_attention_by_hand/01_self_attention_by_hand.ipynb
        source/01_self_attention_by_hand_zh/01_self_attention_by_hand.ipynb     from notebooks/zh/
        source/...                                one assignment per notebook with exercises
        templates/bertedu_feedback/               nbgrader's feedback page with MathJax inlined (offline maths)

Each source notebook is the instructor edition (tools/editions.py conventions) in nbgrader's own terms:

* a cell holding ``### BEGIN SOLUTION`` / ``### END SOLUTION`` becomes an nbgrader solution cell; its
  metadata holds the student edition's stub of each region (``bertedu.stubs``), which the config's
  ``StudentEditionStubs`` puts in the release instead of nbgrader's top-level ``raise NotImplementedError()``:
  Run All goes through a release, and an unanswered exercise's check says "not attempted yet" (0 points);
* the *last* ``ex.NAME.check(...)`` cell of every exercise becomes an autograded test cell worth
  ``Exercise.points``, with a hidden test (``_graded = ex.NAME.check(...)`` then ``assert _graded.passed,
  _graded``) in ``### BEGIN HIDDEN TESTS`` / ``### END HIDDEN TESTS``: a failure's message is the checker's
  ("✗ Not yet: ...", in the notebook's language), which nbgrader's feedback shows; the visible check stays (as
  ``display(ex.NAME.check(...))``: nbgrader would read a cell's result as a partial-credit score), so students
  get the same feedback as in the course;
* cells tagged ``solution`` or ``instructor`` are left out, and so are the cells that only call
  ``ex.NAME.solution()`` (graded work; ``--keep-solution-calls`` keeps them); outputs are cleared.

It also writes ``assignments/student_package/``, the **graded package**: a copy of the course package for the
students' environment (pyproject.toml, bertedu/, data/, benchmarks/results.json) without a reference
solution. Every ``solution_code`` value (found by its syntax tree, so new exercises are covered) becomes
``""`` (the Chinese solutions are generated from them, :func:`bertedu.language.translate_code`), and the copy's
``bertedu.teaching.exercises.core.GRADED_BUILD`` is ``True``, so ``ex.NAME.solution()`` says in one sentence
that solutions are not part of a graded build. The build then searches the copy for every exercise's
reference solution (:func:`find_solutions`) and stops if one survived. ``--no-package`` skips it.

Then, in the course directory: ``nbgrader generate_assignment 01_self_attention_by_hand`` (release/),
collect submissions into ``submitted/<student>/<assignment>/``, ``nbgrader autograde <assignment>``.
"""

from __future__ import annotations

import argparse
import ast
import bisect
import copy
import functools
import importlib
import re
import shutil
import sys
import types
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import editions  # noqa: E402
import nbformat  # noqa: E402

from bertedu import language  # noqa: E402
from bertedu.files import atomic_write_text, write_directory_atomically  # noqa: E402
from bertedu.teaching.exercises import library_answers  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_VERSION = 3  # nbgrader's cell metadata schema

CONFIG = """\
# nbgrader configuration of the bertedu course (written by tools/build_assignments.py; `make assignments`).
# Run nbgrader from this folder: nbgrader generate_assignment ASSIGNMENT, nbgrader autograde ASSIGNMENT.
import os
import sys
from pathlib import Path

import nbgrader
from nbgrader.converters import GenerateAssignment
from nbgrader.preprocessors import ClearSolutions

c = get_config()  # noqa: F821 (nbgrader provides it)
c.CourseDirectory.course_id = "bertedu"
# Notebook 06 pretrains a small model: give every cell time (seconds).
c.ExecutePreprocessor.timeout = 600
c.Execute.timeout = 600
# Autograde keeps no widget state, so a quiz's output in the graded notebook and on its feedback page is its static
# text/html fallback (prompt and options, no answers). With the state, nbconvert would pick the live widget view,
# which the page cannot draw (no widget manager there): an empty output.
c.Execute.store_widget_state = False

# nbgrader starts the program `alembic` (its gradebook's schema tool) by name: find it next to this Python, in
# the venv's bin/, also when the venv is not activated (`../.venv/bin/nbgrader ...`).
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")


class StudentEditionStubs(ClearSolutions):
    \"\"\"Each solution region becomes the student edition's stub, not nbgrader's `raise NotImplementedError()`:
    `name = ...` at the top level of a cell, `raise NotImplementedError(...)` inside a function. So Run All goes
    through a release, and an unanswered exercise's check says "not attempted yet" (and scores 0). The build
    wrote each cell's stubs, one per region, in its metadata (`bertedu.stubs`).\"\"\"

    def _replace_solution_region(self, cell, language):
        stubs = cell.metadata.get("bertedu", {}).get("stubs")
        if stubs is None:
            return super()._replace_solution_region(cell, language)
        lines, inside, regions = [], False, 0
        for line in cell.source.split("\\n"):
            if self.begin_solution_delimeter in line:
                lines += stubs[regions].split("\\n")
                inside, regions = True, regions + 1
            elif self.end_solution_delimeter in line:
                inside = False
            elif not inside:
                lines.append(line)
        cell.source = "\\n".join(lines)
        return regions > 0


c.GenerateAssignment.preprocessors = [
    StudentEditionStubs if step is ClearSolutions else step
    for step in GenerateAssignment.class_traits()["preprocessors"].make_dynamic_default()
]

# `nbgrader export`: grades.csv with an assignment and its translated twin (NN_topic_<language>) as one row per student
# (nbgrader_twins.py, written beside this file by the build: the student's edition, or the later if both).
sys.path.insert(0, str(Path(__file__).parent))
from nbgrader_twins import TwinsExport  # noqa: E402

c.ExportApp.plugin_class = TwinsExport

# Feedback pages (nbgrader generate_feedback) render maths without a network: the template in templates/ (written
# by the build) inlines MathJax instead of loading it from a CDN.
if (Path(__file__).parent / "templates" / "bertedu_feedback").is_dir():
    c.HTMLExporter.template_name = "bertedu_feedback"
    c.HTMLExporter.extra_template_basedirs = [
        str(Path(__file__).parent / "templates"),
        str(Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"),
    ]
"""


def _metadata(*, grade: bool, solution: bool, grade_id: str, points: int | None = None) -> dict:
    meta = {
        "grade": grade,
        "solution": solution,
        "locked": grade and not solution,
        "grade_id": grade_id,
        "schema_version": SCHEMA_VERSION,
    }
    if grade:
        meta["points"] = points
    return meta


SOLUTION_CALL = re.compile(r"^\s*\w+\.\w+\.solution\(\)\s*$")
HIDDEN_RESULT = "_graded"  # the hidden test's name for the check's result


def release_stubs(source: str, regions: list[editions.Region], answers: set[str], where: str) -> list[str]:
    """The student edition's stub of each solution region of ``source`` (one string per region), for the
    config's ``StudentEditionStubs``: the release then runs top to bottom, as the student edition does."""
    lines = source.split("\n")
    return ["\n".join(editions.stub(lines[r.begin + 1 : r.end], r.indent, answers, where)) for r in regions]


def assignment_notebook(nb, name: str, *, keep_solution_calls: bool = False):
    """The nbgrader source version of an instructor notebook (a new notebook; ``nb`` is not changed).

    Cells that only call ``ex.NAME.solution()`` are left out (graded work), unless ``keep_solution_calls``."""
    found = editions.exercises(nb)
    last_check: dict[str, int] = {}
    for call in editions.check_calls(nb):
        if f"{call.alias}.{call.name}" in found:
            last_check[f"{call.alias}.{call.name}"] = call.cell
    graded = {cell: label for label, cell in last_check.items()}
    answers = {a for call in editions.check_calls(nb) for a in call.arg_names}  # as the student edition
    out = copy.deepcopy(nb)
    cells, n_answers = [], 0
    for i, cell in enumerate(out.cells):
        if editions.tags(cell) & set(editions.DROPPED_TAGS):
            continue
        if cell.cell_type == "code" and SOLUTION_CALL.match(cell.source) and not keep_solution_calls:
            continue
        for key in ("execution", "ExecuteTime", "collapsed", "scrolled", "nbgrader"):
            cell.metadata.pop(key, None)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            if regions := editions.solution_regions(cell.source, f"{name}, cell {i}"):
                n_answers += 1
                cell.metadata["nbgrader"] = _metadata(
                    grade=False, solution=True, grade_id=f"answer-{n_answers}"
                )
                cell.metadata["bertedu"] = {
                    "stubs": release_stubs(cell.source, regions, answers, f"{name}, cell {i}")
                }
            elif i in graded:
                label = graded[i]
                exercise = found[label]
                call = next(
                    c for c in editions.check_calls(nb) if c.cell == i and f"{c.alias}.{c.name}" == label
                )
                # the failure says what the checker says ("✗ Not yet: ..." in the notebook's language), so
                # nbgrader's feedback names the mistake
                hidden = (
                    f"{editions.BEGIN_HIDDEN}\n"
                    f"{HIDDEN_RESULT} = {label}.check({call.args})\n"
                    f"assert {HIDDEN_RESULT}.passed, {HIDDEN_RESULT}\n"
                    f"{editions.END_HIDDEN}\n"
                )
                # display(): the feedback shows as before, but not as the cell's *result*, which nbgrader
                # would read as a partial-credit score.
                lines = [
                    f"display({line.strip()})" if editions.CHECK_CALL.fullmatch(line) else line
                    for line in cell.source.split("\n")
                ]
                cell.source = hidden + "\n".join(lines)
                cell.metadata["nbgrader"] = _metadata(
                    grade=True, solution=False, grade_id=f"check-{call.name}", points=exercise.points
                )
        cells.append(cell)
    out.cells = without_library_answers(nb, cells)
    out.metadata.pop("widgets", None)
    nbformat.validate(out)
    return out


# ----------------------------------------------------------------------------------------------------------
# The release shows and imports none of the library's answers
#
# An exercise names the package objects that already do what it asks (``Exercise(answers=...)``). In the release,
# a ``show(X)`` of one of them is left out (with the Markdown line that introduced it, when that line ends with a
# colon), and an import of one (``from bertedu.core.attention import build_key_mask``) moves to the first cell
# after the exercise's graded check that uses the name, or goes, when none does. An import that a teaching cell
# before the check needs stays (notebook 03 shows the library's masking before its exercises): there the checker's
# rejection of an answer that uses the library is the guard (bertedu.teaching.exercises.library_answers).

SHOW_LINE = re.compile(r"^\s*show\((?P<arg>[^()]+)\)\s*(#.*)?$")
ONLY_COMMENTS = re.compile(r"^\s*(#.*)?$")


def _bertedu_imports(nb) -> dict[str, tuple[int, object]]:
    """``{name: (cell, object)}`` for the names the notebook's ``from bertedu... import`` lines bind."""
    out: dict[str, tuple[int, object]] = {}
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for node in _import_nodes(cell.source):
            for alias in node.names:
                try:
                    obj = library_answers.resolve(f"{node.module}.{alias.name}")
                except ValueError:
                    continue
                out.setdefault(alias.asname or alias.name, (i, obj))
    return out


def _import_nodes(source: str) -> list[ast.ImportFrom]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [
        n for n in tree.body if isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "bertedu"
    ]


def library_answers_of(nb) -> dict[int, list[str]]:
    """``{id(object): [exercise names]}``: each library answer of the notebook's exercises (a class answer also
    by its own methods, a method answer also by its class, which holds it)."""
    out: dict[int, list[str]] = {}
    for exercise in editions.exercises(nb).values():
        for path in exercise.answers:
            obj = library_answers.resolve(path)
            owner = library_answers.resolve(path.rpartition(".")[0]) if "." in path else None
            held = [obj, *(vars(obj).values() if isinstance(obj, type) else ())]
            held += [owner] if isinstance(owner, type) else []
            for item in held:
                out.setdefault(id(library_answers.plain(item)), []).append(exercise.name)
    return out


def _shown_answer(line: str, names: dict, answers: dict[int, list[str]]) -> bool:
    """``line`` is ``show(X)`` of a library answer (X a name or attribute of the notebook's bertedu imports)."""
    m = SHOW_LINE.match(line)
    if not m:
        return False
    try:
        obj = eval(m["arg"], {name: obj for name, (_, obj) in names.items()})  # noqa: S307 (names, attributes)
    except Exception:
        return False
    return id(library_answers.plain(obj)) in answers


def _without_shown_answers(cells: list, names: dict, answers: dict[int, list[str]]) -> list:
    """``cells`` without the ``show(X)`` lines of library answers; a cell left with comments only goes, and so
    does the Markdown cell before it when it ends with a colon (it introduced the code)."""
    out = []
    for cell in cells:
        if cell.cell_type == "code":
            lines = cell.source.split("\n")
            kept = [line for line in lines if not _shown_answer(line, names, answers)]
            if len(kept) < len(lines):
                if all(ONLY_COMMENTS.match(line) for line in kept):
                    if out and out[-1].cell_type == "markdown" and out[-1].source.rstrip().endswith(":"):
                        out.pop()
                    continue
                cell.source = "\n".join(kept)
        out.append(cell)
    return out


def _move_answer_imports(cells: list, graded_at: dict[str, int], answers: dict[int, list[str]]) -> None:
    """Move each import of a library answer to the first code cell after its exercises' graded checks (``cells``
    indices) that uses the name; drop it when no cell does; keep it when a cell before those checks uses it."""
    names = _bertedu_imports(types.SimpleNamespace(cells=cells))
    for name, (at, obj) in sorted(names.items()):
        exercises = answers.get(id(library_answers.plain(obj)))
        if not exercises:
            continue
        after = max(graded_at.get(e, -1) for e in exercises)
        users = [
            i
            for i, c in enumerate(cells)
            if c.cell_type == "code" and i != at and name in editions.loaded_names(c.source)
        ]
        if any(i < after for i in users):
            continue  # the notebook teaches with it before the exercise: the check's rejection guards it
        module = _remove_import(cells[at], name)
        later = [i for i in users if i > after]
        if later:
            cell = cells[later[0]]
            marker = editions.NBVAL_MARKER.match(cell.source)  # nbval's marker stays the first line
            head = marker.group(0) if marker else ""
            cell.source = f"{head}from {module} import {name}\n{cell.source[len(head) :]}"


def _remove_import(cell, name: str) -> str:
    """Take ``name`` out of the ``from bertedu... import`` statement of ``cell`` that binds it; returns the module."""
    for node in _import_nodes(cell.source):
        alias = next((a for a in node.names if (a.asname or a.name) == name), None)
        if alias is None:
            continue
        lines = cell.source.split("\n")
        node.names = [a for a in node.names if a is not alias]
        text = [ast.unparse(node)] if node.names else []
        lines[node.lineno - 1 : node.end_lineno] = text
        cell.source = "\n".join(lines)
        return node.module
    raise editions.EditionError(f"no import of {name} found in the cell")


def without_library_answers(nb, cells: list) -> list:
    """The release's ``cells`` (of the instructor notebook ``nb``) without a ``show()`` of a library answer, and
    with each import of one moved after its exercise's graded check (see above)."""
    answers = library_answers_of(nb)
    cells = _without_shown_answers(cells, _bertedu_imports(nb), answers)
    graded_at = {}
    for i, cell in enumerate(cells):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if grade_id.startswith("check-"):
            graded_at[grade_id[len("check-") :]] = i
    _move_answer_imports(cells, graded_at, answers)
    return cells


def assignment_id(source: Path) -> str:
    """The assignment a notebook becomes: its name, with ``_zh`` for the Chinese edition (notebooks/zh/): a
    translated edition's assignments end in its language."""
    lang = language.edition_language(source)
    return source.stem if lang == language.DEFAULT_LANGUAGE else f"{source.stem}_{lang}"


def default_sources(root: Path = ROOT) -> list[Path]:
    """Every course notebook, English (notebooks/NN_*.ipynb) and Chinese (notebooks/zh/NN_*.ipynb)."""
    return [
        path
        for lang in language.LANGUAGES
        for path in sorted((root / language.NOTEBOOK_FOLDERS[lang]).glob("[0-9][0-9]_*.ipynb"))
    ]


# ----------------------------------------------------------------------------------------------------------
# Feedback pages that render maths offline
#
# nbgrader's feedback template loads MathJax 2 from a CDN (its `mathjax()` macro, nbconvert's mathjax.html.j2).
# Our template, templates/bertedu_feedback/ (nbgrader_config.py selects it), is nbgrader's with that macro
# replaced: MathJax 3's TeX-to-SVG build (one file, its fonts inside; the pinned django-static-mathjax package)
# is written into the page. A page is about 2 MB larger, and nothing it shows needs a network: `nbgrader
# release_feedback` hands out the HTML file alone, so a script beside it would not travel with it.

FEEDBACK_TEMPLATE = "bertedu_feedback"
MATHJAX_FILE = "static/mathjax/es5/tex-svg.js"  # in the `mathjax` package (django-static-mathjax)
MATHJAX_MACRO = """\
{%- macro mathjax(url=None) -%}
<!-- MathJax 3 (TeX to SVG), inlined by tools/build_assignments.py: maths without a network -->
<script>
window.MathJax = {
  tex: {inlineMath: [["$", "$"], ["\\\\(", "\\\\)"]], displayMath: [["$$", "$$"], ["\\\\[", "\\\\]"]],
        processEscapes: true, processEnvironments: true},
  svg: {fontCache: "global"},
  options: {enableMenu: false},  // the menu would load its accessibility parts from the web
};
</script>
<script>
{% raw %}SCRIPT{% endraw %}
</script>
{%- endmacro %}
"""


def mathjax_script() -> str | None:
    """MathJax's tex-svg.js from the installed django-static-mathjax package, or ``None`` without it."""
    try:
        import mathjax
    except ImportError:
        return None
    path = Path(mathjax.__file__).parent / MATHJAX_FILE
    return path.read_text(encoding="utf-8") if path.is_file() else None


def write_feedback_template(folder: Path) -> bool:
    """Write ``folder/bertedu_feedback/`` (nbgrader's feedback template with MathJax inlined); ``False`` (and a
    warning, nbgrader's own template stays) if MathJax is not installed."""
    script = mathjax_script()
    if script is None:
        print(
            "warning: django-static-mathjax is not installed (make dev): feedback pages will load MathJax from "
            "the web",
            file=sys.stderr,
        )
        return False
    if "{% endraw %}" in script or "</script" in script.lower():
        raise editions.EditionError(f"{MATHJAX_FILE} cannot be inlined in an HTML template as it is")
    target = folder / FEEDBACK_TEMPLATE
    # no index.html.j2 of its own: nbgrader's (the base template's) is used, with this folder's mathjax.html.j2
    conf = '{\n  "base_template": "feedback",\n  "mimetypes": {"text/html": true}\n}\n'
    atomic_write_text(target / "conf.json", conf)
    atomic_write_text(target / "mathjax.html.j2", MATHJAX_MACRO.replace("SCRIPT", script))
    return True


#: grades.csv merges each assignment with its Chinese twin: the export plugin the course's config imports
TWINS_MODULE = "nbgrader_twins.py"
#: What a course folder needs, all of it written by the build: what the hub's course folder copies from
#: assignments/ (docs/instructor_guide.md), and nothing of a trial run (release/, submitted/, autograded/,
#: feedback/, gradebook.db, grades.csv) nor the graded package.
COURSE_FILES = ("nbgrader_config.py", TWINS_MODULE, "templates", "source")


def build(
    sources: list[Path], out: Path, *, keep_solution_calls: bool = False, package: bool = True
) -> dict[str, int]:
    """Write the nbgrader course and (``package``) its graded package; returns ``{assignment: total points}``
    (notebooks without exercises skipped)."""
    written = {}
    for source in sources:
        nb = editions.read(source)
        if not editions.exercises(nb):
            continue
        assignment = assignment_id(source)
        result = assignment_notebook(nb, source.name, keep_solution_calls=keep_solution_calls)
        atomic_write_text(out / "source" / assignment / source.name, editions.notebook_text(result))
        written[assignment] = sum(
            c.metadata["nbgrader"]["points"]
            for c in result.cells
            if c.metadata.get("nbgrader", {}).get("grade")
        )
    atomic_write_text(out / "nbgrader_config.py", CONFIG)
    atomic_write_text(out / TWINS_MODULE, (Path(__file__).resolve().parent / TWINS_MODULE).read_text())
    write_feedback_template(out / "templates")
    if package:
        write_graded_package(out / PACKAGE_DIR)
    return written


# ----------------------------------------------------------------------------------------------------------
# The graded package: the course package without its reference solutions, for the students' environment

PACKAGE_DIR = "student_package"
#: What the graded package holds next to bertedu/: what pip needs (pyproject.toml names LICENSE; a README.md
#: is written) and what the notebooks read (``bertedu.utils.repo_root()`` finds data/ next to the package).
PACKAGE_EXTRAS = ("pyproject.toml", "LICENSE", "data", "benchmarks/results.json")
SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".*")
#: The marker the transform writes (``GRADED_BUILD = True``) and the module that holds it.
MARKER, MARKER_MODULE = "GRADED_BUILD", "bertedu/teaching/exercises/core.py"
PACKAGE_README = """\
# bertedu, graded build

The bertedu course package without its reference solutions, written by `make assignments`
(tools/build_assignments.py) for the students' environment of an nbgrader course: every exercise checks and
hints as in the course, and `ex.NAME.solution()` says that solutions are not part of this build. Install it
as an editable install (`pip install -e .`), so that the notebooks find `data/` next to the package.
"""


def _is_string(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _solution_edits(tree: ast.Module, where: str) -> tuple[list[tuple[ast.AST, str]], int]:
    """The replacements that remove ``tree``'s reference solutions, and how many solutions they remove."""
    edits, removed = [], 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            values = [k.value for k in node.keywords if k.arg == "solution_code"]
            called = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if called == "Exercise" and len(node.args) >= 5:  # (name, prompt, checker, hints, solution)
                values.append(node.args[4])
            for value in values:
                if not _is_string(value):
                    raise editions.EditionError(
                        f"{where}, line {value.lineno}: solution_code must be a string literal, so that the "
                        "graded package can leave it out whole"
                    )
                if value.value:
                    edits.append((value, '""'))
                    removed += 1
    return edits, removed


def strip_solutions(source: str, where: str = "<module>") -> tuple[str, int]:
    """``source`` (a module of the package) without reference solutions: every ``solution_code`` value (a
    keyword, or ``Exercise``'s fifth argument) becomes ``""``; a module-level
    ``GRADED_BUILD = False`` becomes ``True``. Comments and layout elsewhere are kept. Returns the new source
    and the number of solutions removed; raises ``EditionError`` for a solution that is not a literal."""
    tree = ast.parse(source, filename=where)
    edits, removed = _solution_edits(tree, where)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == MARKER for t in node.targets):
            edits.append((node.value, "True"))
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(lineno: int, col: int) -> int:  # ast columns count UTF-8 bytes
        return starts[lineno - 1] + len(lines[lineno - 1].encode()[:col].decode())

    for node, text in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True):
        begin, end = offset(node.lineno, node.col_offset), offset(node.end_lineno, node.end_col_offset)
        source = source[:begin] + text + source[end:]
    ast.parse(source, filename=where)  # still Python
    return source, removed


def graded_module(source: str, name: str) -> tuple[str, int, bool]:
    """One module of the graded package: ``(source without its reference solutions, how many were removed,
    whether it is marked GRADED_BUILD = True)``. A module whose text names neither ``solution_code``, nor
    ``Exercise(``, nor the marker is kept as it is without parsing it (most of the package)."""
    if not any(word in source for word in ("solution_code", "Exercise(", MARKER)):
        return source, 0, False  # none of them in its text: nothing to remove
    stripped, removed = strip_solutions(source, name)
    return stripped, removed, bool(re.search(rf"^{MARKER} = True\b", stripped, re.M))


def _fill_graded_package(folder: Path, root: Path) -> int:
    shutil.copytree(root / "bertedu", folder / "bertedu", ignore=SKIPPED)
    for extra in PACKAGE_EXTRAS:
        if (root / extra).is_dir():
            shutil.copytree(root / extra, folder / extra, ignore=SKIPPED)
        else:
            (folder / extra).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / extra, folder / extra)
    pyproject = folder / "pyproject.toml"  # a local version tells the graded build apart: 0.1.0+graded
    text = re.sub(
        r'^version = "([^"+]+)"$', r'version = "\1+graded"', pyproject.read_text(), count=1, flags=re.M
    )
    pyproject.write_text(text, encoding="utf-8")
    (folder / "README.md").write_text(PACKAGE_README, encoding="utf-8")
    removed, marked = 0, []
    for path in sorted((folder / "bertedu").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        name = path.relative_to(folder).as_posix()
        stripped, n, is_marked = graded_module(source, name)
        removed += n
        if is_marked:
            marked.append(name)
        if stripped != source:
            path.write_text(stripped, encoding="utf-8")
    if marked != [MARKER_MODULE]:
        raise editions.EditionError(f"the graded package needs `{MARKER} = False` in {MARKER_MODULE} alone")
    return removed


def write_graded_package(target: Path, root: Path = ROOT, *, check: bool = True) -> int:
    """Write the graded package to ``target`` (replaced whole) and (``check``) make sure that no reference
    solution of any exercise is left in it (:func:`find_solutions`; else it is deleted and ``EditionError``
    raised). Returns the number of solutions removed."""
    removed = []
    write_directory_atomically(
        target, lambda folder: removed.append(_fill_graded_package(folder, root)), what="the graded package"
    )
    if not check:
        return removed[0]
    found = find_solutions(reference_solutions(), readable_texts(target), library_texts(root / "bertedu"))
    if found:
        shutil.rmtree(target)  # never leave a package that holds solutions where an instructor would copy it
        raise editions.EditionError(
            f"the graded package held reference solutions (removed {target}):\n" + "\n".join(map(str, found))
        )
    return removed[0]


# ----------------------------------------------------------------------------------------------------------
# Searching for reference solutions in what a student can read
#
# What "holds a reference solution" means (tests/test_nbgrader.py applies it to a release and the graded
# package). Lines are compared after dropping comments and blank lines and collapsing whitespace, without the
# lines a release shows on purpose (def/class signatures, imports, decorators, bare return/pass,
# super().__init__(), check calls: tools/editions.py's rule), so a translation (comments only differ) is the
# same as its English. A text holds the solution of an exercise if
#   1. a text meant to be read (a notebook cell, a string in a module, a data or Markdown file) holds its whole
#      block of lines; no exception: this is the solution text itself, or a hint that gives all of it away;
#   2. any text, code included, holds its whole block or RUN consecutive lines of it, *unless* the course's
#      own code holds them too: the modules of the package with their multi-line strings (docstrings,
#      prompts, hints, solutions) removed, checkers included. A "write the module" solution shares lines with
#      bertedu/core/attention.py, which notebooks show with show(), and a checker computes the right answer,
#      sometimes as the solution does: that is the package's implementation, readable in any build.

RUN = 3
NOT_SIGNIFICANT = ("def ", "class ", "import ", "from ", "@")


def significant_lines(code: str) -> list[str]:
    """The lines of ``code`` a search compares: comments and blank lines dropped, whitespace collapsed,
    without the lines a release shows on purpose (signatures, imports, check calls)."""
    out = []
    for line in code.split("\n"):
        text = " ".join(line.split("#", 1)[0].split())
        if not text or text.startswith(NOT_SIGNIFICANT) or editions.CHECK_CALL.match(text):
            continue
        if text not in ("return", "pass", "...", "super().__init__()"):
            out.append(text)
    return out


def reference_solutions() -> dict[str, str]:
    """``{exercise name: solution code}`` for every exercise of the course package (each module of
    bertedu.teaching.exercises), and ``{"NAME (zh)": translation}``: each solution as the Chinese edition shows it."""
    from bertedu.teaching.exercises import Exercise

    folder = ROOT / "bertedu" / "teaching" / "exercises"
    found = {}
    for path in sorted(folder.glob("*.py")):
        module = importlib.import_module(f"bertedu.teaching.exercises.{path.stem}")
        found.update({v.name: v.solution_code for v in vars(module).values() if isinstance(v, Exercise)})
    english = dict(found)
    for lang in language.LANGUAGES[1:]:  # the translations: the English code, comments translated
        found.update(
            {f"{name} ({lang})": language.translate_code(code, lang) for name, code in english.items()}
        )
    return found


def _texts_of(path: Path, shown: str) -> dict[str, str]:
    """What a reader sees in one file, by where it is: a module's code (named ``shown``, ending in .py) and each
    of its strings (escapes resolved); a notebook's cells (source and text outputs); any other text file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return {}
    if path.suffix == ".ipynb":
        out = {}
        for i, cell in enumerate(nbformat.reads(text, as_version=4).cells):
            parts = [cell.source]
            for output in cell.get("outputs", []):
                parts += [output.get("text", "")] + [str(v) for v in output.get("data", {}).values()]
            out[f"{shown}, cell {i}"] = "\n".join(parts)
        return out
    if path.suffix != ".py":
        return {shown: text}
    try:
        strings = [n.value for n in ast.walk(ast.parse(text)) if _is_string(n)]
    except SyntaxError:
        strings = []
    return {shown: text} | {f"{shown}, string {k}": value for k, value in enumerate(strings)}


def readable_texts(*folders: Path) -> dict[str, str]:
    """Every text a student can read in ``folders`` (a release, the graded package), by where it is."""
    out = {}
    for folder in folders:
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            out.update(_texts_of(path, f"{folder.name}/{path.relative_to(folder).as_posix()}"))
    return out


def without_long_strings(source: str) -> str:
    """``source`` with every string literal that spans lines replaced by ``""``: the code of a module."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    spans = [n for n in ast.walk(tree) if _is_string(n) and n.end_lineno > n.lineno]
    for node in sorted(spans, key=lambda n: (n.lineno, n.col_offset), reverse=True):
        head = lines[node.lineno - 1].encode()[: node.col_offset].decode()
        tail = lines[node.end_lineno - 1].encode()[node.end_col_offset :].decode()
        lines[node.lineno - 1 : node.end_lineno] = [f'{head}""{tail}']
    return "".join(lines)


@functools.cache
def library_texts(package: Path = ROOT / "bertedu") -> dict[str, str]:
    """The course's own code (rule 2 above): every module of ``package`` without its solutions and long strings
    (read once per process)."""
    out = {}
    for path in sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts):
        shown, source = path.relative_to(package).as_posix(), path.read_text(encoding="utf-8")
        if any(word in source for word in ("solution_code", "Exercise(")):
            source = strip_solutions(source, shown)[0]
        out[shown] = without_long_strings(source)
    return out


class _Index:
    """Texts as significant lines: one string to search for a whole block, and every run of RUN lines."""

    def __init__(self, texts: dict[str, str]):
        self.names, self.starts, parts, at = [], [], [], 0
        self.runs: dict[tuple[str, ...], list[str]] = {}
        for name, text in texts.items():
            lines = significant_lines(text)
            for i in range(len(lines) - RUN + 1):
                self.runs.setdefault(tuple(lines[i : i + RUN]), []).append(name)
            self.names.append(name)
            self.starts.append(at)
            parts.append("\n".join(lines))
            at += len(parts[-1]) + 1
        self.joined = "\0".join(parts)

    def holding(self, block: str) -> list[str]:
        """The names of the texts whose significant lines hold ``block``."""
        found, at = [], self.joined.find(block)
        while at >= 0:
            found.append(self.names[bisect.bisect_right(self.starts, at) - 1])
            at = self.joined.find(block, at + 1)
        return found


def given_code(notebooks: list[Path]) -> dict[str, str]:
    """The code cells each instructor notebook gives a student, by ``tools/editions.py`` (the student edition,
    built without nbgrader): own code of the course for rule 2, since a find-the-bug exercise hands out the
    buggy function, which shares every line but one with the fix."""
    out = {}
    for path in notebooks:
        edition = editions.student_notebook(editions.read(path), path.name)
        cells = enumerate(c for c in edition.cells if c.cell_type == "code")
        out.update({f"{path.name} (student edition), code cell {i}": cell.source for i, cell in cells})
    return out


@dataclass(frozen=True, order=True)
class Finding:
    """A reference solution found where a student can read it."""

    where: str  # a file, a file's string or a notebook's cell
    exercise: str  # the exercise's name; "NAME (zh)" for a translation
    lines: str  # the first line found

    def __str__(self) -> str:
        return f"{self.where}: the reference solution of {self.exercise} ({self.lines!r} ...)"


def find_solutions(
    solutions: dict[str, str], texts: dict[str, str], library: dict[str, str]
) -> list[Finding]:
    """Where ``texts`` hold one of ``solutions`` ({exercise: code}) by the rules above (texts named ``*.py`` are
    code, the others are read); ``library`` is the course's own code. An empty list: nowhere."""
    index, own = _Index(texts), _Index(library)
    found = set()
    for exercise, code in solutions.items():
        lines = significant_lines(code)
        if not lines:
            continue
        block, in_library = "\n".join(lines), bool(own.holding("\n".join(lines)))
        for name in index.holding(block):
            if not name.endswith(".py") or not in_library:
                found.add(Finding(name, exercise, lines[0]))
        for i in range(len(lines) - RUN + 1):
            run = tuple(lines[i : i + RUN])
            if run not in own.runs:
                found |= {Finding(name, exercise, run[0]) for name in index.runs.get(run, ())}
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "notebooks",
        nargs="*",
        type=Path,
        help="default: the notebooks of every edition, "
        + " and ".join(f"{folder}/[0-9][0-9]_*.ipynb" for folder in language.NOTEBOOK_FOLDERS.values()),
    )
    parser.add_argument("--out", type=Path, default=ROOT / "assignments", help="default: assignments/")
    parser.add_argument(
        "--keep-solution-calls",
        action="store_true",
        help="keep the ex.NAME.solution() cells (practice, not grading)",
    )
    parser.add_argument(
        "--no-package",
        action="store_true",
        help=f"do not write the graded package ({PACKAGE_DIR}/: the course package without solutions)",
    )
    args = parser.parse_args(argv)
    sources = args.notebooks or default_sources()
    try:
        written = build(
            sources, args.out, keep_solution_calls=args.keep_solution_calls, package=not args.no_package
        )
    except editions.EditionError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    for assignment, points in written.items():
        print(f"{args.out.name}/source/{assignment}: {points} points")
    if not args.no_package:
        print(f"{args.out.name}/{PACKAGE_DIR}: the graded package (no reference solutions) for the students")
    print(f"nbgrader course in {args.out}/ ({len(written)} assignments); see docs/instructor_guide.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
