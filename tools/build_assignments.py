"""Build an nbgrader course from the course notebooks: ``make assignments``.

Usage: python tools/build_assignments.py [--out assignments] [notebooks/01_x.ipynb ...]   (default: every
notebook that checks an exercise)

Writes an nbgrader course directory (docs/instructor_guide.md says how to use it on JupyterHub)::

    assignments/
        nbgrader_config.py                        course id "bertedu", execution timeout
        source/01_self_attention_by_hand/01_self_attention_by_hand.ipynb
        source/...                                one assignment per notebook with exercises

Each source notebook is the instructor edition (tools/editions.py conventions) in nbgrader's own terms:

* a cell holding ``### BEGIN SOLUTION`` / ``### END SOLUTION`` becomes an nbgrader solution cell (nbgrader
  replaces the region by its stub in the release);
* the *last* ``ex.NAME.check(...)`` cell of every exercise becomes an autograded test cell worth
  ``Exercise.points``, with a hidden test (``assert ex.NAME.check(...).passed``) in ``### BEGIN HIDDEN TESTS``
  / ``### END HIDDEN TESTS``; the visible check stays (as ``display(ex.NAME.check(...))``: nbgrader would read
  a cell's result as a partial-credit score), so students get the same feedback as in the course;
* cells tagged ``solution`` or ``instructor`` are left out, and so are the cells that only call
  ``ex.NAME.solution()`` (graded work; ``--keep-solution-calls`` keeps them); outputs are cleared.

Then, in the course directory: ``nbgrader generate_assignment 01_self_attention_by_hand`` (release/),
collect submissions into ``submitted/<student>/<assignment>/``, ``nbgrader autograde <assignment>``.
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import editions  # noqa: E402
import nbformat  # noqa: E402

from bertedu.files import atomic_write_text  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_VERSION = 3  # nbgrader's cell metadata schema

CONFIG = """\
# nbgrader configuration of the bertedu course (written by tools/build_assignments.py; `make assignments`).
# Run nbgrader from this folder: nbgrader generate_assignment ASSIGNMENT, nbgrader autograde ASSIGNMENT.
c = get_config()  # noqa: F821 (nbgrader provides it)
c.CourseDirectory.course_id = "bertedu"
# Notebook 06 pretrains a small model: give every cell time (seconds).
c.ExecutePreprocessor.timeout = 600
c.Execute.timeout = 600
# The release keeps the visible checks (students see the same feedback as in the course); hidden tests go.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}
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


def assignment_notebook(nb, name: str, *, keep_solution_calls: bool = False):
    """The nbgrader source version of an instructor notebook (a new notebook; ``nb`` is not changed).

    Cells that only call ``ex.NAME.solution()`` are left out (graded work), unless ``keep_solution_calls``."""
    found = editions.exercises(nb)
    last_check: dict[str, int] = {}
    for call in editions.check_calls(nb):
        if f"{call.alias}.{call.name}" in found:
            last_check[f"{call.alias}.{call.name}"] = call.cell
    graded = {cell: label for label, cell in last_check.items()}
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
            if editions.solution_regions(cell.source, f"{name}, cell {i}"):
                n_answers += 1
                cell.metadata["nbgrader"] = _metadata(
                    grade=False, solution=True, grade_id=f"answer-{n_answers}"
                )
            elif i in graded:
                label = graded[i]
                exercise = found[label]
                call = next(
                    c for c in editions.check_calls(nb) if c.cell == i and f"{c.alias}.{c.name}" == label
                )
                hidden = (
                    f"{editions.BEGIN_HIDDEN}\n"
                    f"assert {label}.check({call.args}).passed, {label + ' is not solved yet'!r}\n"
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
    out.cells = cells
    out.metadata.pop("widgets", None)
    nbformat.validate(out)
    return out


def build(sources: list[Path], out: Path, *, keep_solution_calls: bool = False) -> dict[str, int]:
    """Write the nbgrader course; returns ``{assignment: total points}`` (notebooks without exercises skipped)."""
    written = {}
    for source in sources:
        nb = editions.read(source)
        if not editions.exercises(nb):
            continue
        assignment = source.stem
        result = assignment_notebook(nb, source.name, keep_solution_calls=keep_solution_calls)
        atomic_write_text(out / "source" / assignment / source.name, editions.notebook_text(result))
        written[assignment] = sum(
            c.metadata["nbgrader"]["points"]
            for c in result.cells
            if c.metadata.get("nbgrader", {}).get("grade")
        )
    atomic_write_text(out / "nbgrader_config.py", CONFIG)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: notebooks/[0-9][0-9]_*.ipynb")
    parser.add_argument("--out", type=Path, default=ROOT / "assignments", help="default: assignments/")
    parser.add_argument(
        "--keep-solution-calls",
        action="store_true",
        help="keep the ex.NAME.solution() cells (practice, not grading)",
    )
    args = parser.parse_args(argv)
    sources = args.notebooks or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    try:
        written = build(sources, args.out, keep_solution_calls=args.keep_solution_calls)
    except editions.EditionError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    for assignment, points in written.items():
        print(f"{args.out.name}/source/{assignment}: {points} points")
    print(f"nbgrader course in {args.out}/ ({len(written)} assignments); see docs/instructor_guide.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
