"""grades.csv with one row per student and notebook: an assignment and its Chinese twin are one assignment there.

``make assignments`` builds each notebook twice, ``NN_topic`` from the English edition and ``NN_topic_zh`` from the
Chinese one (tools/build_assignments.py), and a student hands in one of the two. nbgrader's gradebook keeps them
apart, and its ``nbgrader export`` writes a row per student for each, so every student would get 0 on the twin
they did not do. The course's nbgrader_config.py makes ``nbgrader export`` use :class:`TwinsExport` instead: the
same CSV (nbgrader's columns, in its order), with the two rows of a notebook merged into one, named by the English
assignment, and a last column ``edition`` (``en``, ``zh``, or empty when the student handed in neither):

* a student who handed in one twin gets that submission's row;
* one who handed in both gets the later one (the ``timestamp`` of the submission: the last hand-in counts, as
  with a resubmission in nbgrader);
* one who handed in neither gets nbgrader's row of a missing submission (score 0) once.

The gradebook itself is unchanged (the formgrader still lists both twins). ``make assignments`` copies this file
into the course folder, next to nbgrader_config.py, which imports it; it needs nbgrader and the standard library
only (the instructor's environment on a class's server has no repository).
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from nbgrader.plugins import CsvExportPlugin

from bertedu.language import DEFAULT_LANGUAGE, LANGUAGES

#: a translated twin's assignment id ends in ``_`` + its language (tools/build_assignments.py, ``assignment_id``)
TWIN_LANGUAGES = tuple(lang for lang in LANGUAGES if lang != DEFAULT_LANGUAGE)
EDITION = "edition"


def twin_of(assignment: str) -> tuple[str, str]:
    """``(the English assignment's name, the edition)`` of an assignment id: ``("01_x", "zh")`` for ``01_x_zh``."""
    for lang in TWIN_LANGUAGES:
        if assignment.endswith(f"_{lang}"):
            return assignment[: -len(lang) - 1], lang
    return assignment, DEFAULT_LANGUAGE


def merge_twins(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """nbgrader's export rows (one per assignment and student) with each notebook's twins merged, in the order
    of the first row of each (notebook, student); each row gains ``edition``."""
    merged: dict[tuple[str, str], dict[str, str]] = {}
    for row in rows:
        base, edition = twin_of(row["assignment"])
        submitted = bool(row.get("timestamp"))
        candidate = {**row, "assignment": base, EDITION: edition if submitted else ""}
        key = (base, row["student_id"])
        kept = merged.get(key)
        if kept is None or (submitted and (not kept[EDITION] or row["timestamp"] > kept["timestamp"])):
            merged[key] = candidate
    return list(merged.values())


class TwinsExport(CsvExportPlugin):
    """nbgrader's CSV export (``nbgrader export``; ``--to`` names the file, default grades.csv) with an assignment
    and its Chinese twin merged into one row per student (:func:`merge_twins`)."""

    def export(self, gradebook) -> None:
        super().export(gradebook)
        dest = Path(self.to or "grades.csv")
        with dest.open(newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            columns, rows = list(reader.fieldnames or []), list(reader)
        out = io.StringIO()
        writer = csv.DictWriter(out, [*columns, EDITION], lineterminator="\n")
        writer.writeheader()
        writer.writerows(merge_twins(rows))
        partial = dest.with_name(f".{dest.name}.partial")
        partial.write_text(out.getvalue(), encoding="utf-8")
        os.replace(partial, dest)
        self.log.info("Merged each assignment with its translated twins (%s) in %s", TWIN_LANGUAGES, dest)
