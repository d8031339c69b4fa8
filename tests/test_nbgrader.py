"""The instructor kit: ``make assignments`` builds an nbgrader course, and nbgrader grades it offline.

One real assignment (notebook 01's) goes through nbgrader's own pipeline in a temporary course directory
with its own nbgrader_config.py and sqlite gradebook: ``generate_assignment``, then ``autograde`` of a fully
solved and an untouched submission. The solved one gets full marks, the untouched one zero.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import build_assignments  # noqa: E402
import editions  # noqa: E402

pytest.importorskip("nbgrader", reason="nbgrader is a dev dependency: pip install -e '.[dev]'")

ASSIGNMENT = "01_self_attention_by_hand"
SOURCE = ROOT / "notebooks" / f"{ASSIGNMENT}.ipynb"


def nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # nbgrader runs `alembic`
    env.setdefault("PYTHONHASHSEED", "0")
    env.pop("MPLBACKEND", None)
    result = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=course,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}"
    return result


def test_assignment_source_uses_nbgrader_markers_and_points(tmp_path):
    written = build_assignments.build([SOURCE], tmp_path)
    nb = nbformat.read(tmp_path / "source" / ASSIGNMENT / SOURCE.name, as_version=4)
    graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
    exercises = editions.exercises(editions.read(SOURCE))
    assert {c.metadata.nbgrader.grade_id for c in graded} == {f"check-{e.name}" for e in exercises.values()}
    assert written == {ASSIGNMENT: sum(e.points for e in exercises.values())}
    for cell in graded:
        assert editions.BEGIN_HIDDEN in cell.source and "assert ex." in cell.source
        assert cell.metadata.nbgrader.locked and cell.metadata.nbgrader.points >= 1
    assert all(editions.BEGIN_SOLUTION in c.source for c in answers) and len(answers) == 3
    assert not any({"solution", "instructor"} & set(c.metadata.get("tags", [])) for c in nb.cells)
    assert not any(".solution()" in c.source for c in nb.cells) and any(
        ".hint()" in c.source for c in nb.cells
    )
    kept = build_assignments.assignment_notebook(editions.read(SOURCE), SOURCE.name, keep_solution_calls=True)
    assert sum(".solution()" in c.source for c in kept.cells) == 3
    assert (tmp_path / "nbgrader_config.py").read_text().count("course_id") == 1


@pytest.mark.integration
@pytest.mark.slow
def test_nbgrader_round_trip_full_marks_and_zero(tmp_path, monkeypatch):
    course = tmp_path / "course"
    build_assignments.build([SOURCE], course)
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("BERTEDU_HOME", str(tmp_path / "home"))  # the kernels' quiz progress goes here
    nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    release = nbformat.read(course / "release" / ASSIGNMENT / SOURCE.name, as_version=4)
    source = nbformat.read(course / "source" / ASSIGNMENT / SOURCE.name, as_version=4)
    assert not any(
        editions.BEGIN_HIDDEN in c.source or editions.BEGIN_SOLUTION in c.source for c in release.cells
    )

    # bob solves every exercise (the source's solutions, markers removed); alice hands in the release as it is
    solutions = {
        c.metadata.nbgrader.grade_id: c.source
        for c in source.cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }
    solved = copy.deepcopy(release)
    for cell in solved.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution"):
            lines = solutions[grade_id].split("\n")
            cell.source = "\n".join(
                line for line in lines if line.strip() not in (editions.BEGIN_SOLUTION, editions.END_SOLUTION)
            )
    for student, nb in (("alice", release), ("bob", solved)):
        folder = course / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / SOURCE.name)
    nbgrader(course, "autograde", ASSIGNMENT, "--force")

    from nbgrader.api import Gradebook

    total = sum(e.points for e in editions.exercises(editions.read(SOURCE)).values())
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        untouched = gradebook.find_submission(ASSIGNMENT, "alice")
        full = gradebook.find_submission(ASSIGNMENT, "bob")
        assert (full.score, full.max_score) == (total, total)
        assert (untouched.score, untouched.max_score) == (0, total)
