"""docs/instructor_guide.md runs as printed: its ``bash`` blocks, in order, from a fresh clone's folder.

The clone is a temporary copy of what the guide's commands read (Makefile, pyproject.toml, tools/, bertedu/,
data/, notebook 01 in English and Chinese: so `make assignments` builds two assignments, not twenty) with
this repository's .venv linked in (`make` must find it installed: the test fails if `make -n` would install
anything). Each block runs in its own ``bash -e``, as a reader pastes it into a new terminal: no venv on PATH.
Between the release and the grading, two students hand in notebook 01: alice the release untouched, bob every
answer right but the first (softmax over the wrong axis). Then nbgrader's round trip is checked: zero and two of
three points, the release runs top to bottom (in alice's graded notebook only the hidden tests fail), bob's
feedback page names his mistake as the checker does and needs no network for its maths, the warnings are the
ones the guide explains, and nothing a student can read holds a reference solution (tests/test_nbgrader.py).
Bob's notebook also prints where a submission's ``runs/`` resolves under autograde (notebooks 06 and 07) and,
with a pre-made run folder (a copy of this repository's runs/mini-bert/, when notebook 06 ran here), loads the
course model from the clone's runs/ as notebook 07 does. The full 07 autograde is opt-in (tests/test_nbgrader.py).
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "instructor_guide.md"

pytest.importorskip("nbgrader", reason="nbgrader is a dev dependency: make dev")

import editions  # noqa: E402
from test_nbgrader import ASSIGNMENT, SOURCE, no_solution_readable, solved  # noqa: E402

#: what the guide's commands read, copied into the clone (the rest of the repository plays no part)
CLONED = ("Makefile", "pyproject.toml", "LICENSE", "tools", "bertedu", "data", "benchmarks/results.json")
NOTEBOOKS = (SOURCE, ROOT / "notebooks" / "zh" / SOURCE.name)
WRONG = ("softmax(scores_3, axis=-1)", "softmax(scores_3, axis=0)")  # bob's mistake in exercise 1
WHERE = 'from bertedu.course import course_checkpoint_dir\nprint("RUNS", course_checkpoint_dir())'
#: with a pre-made run folder (notebook 06 ran in this repository), bob's cell also loads the model, as 07 does
COURSE_MODEL = ROOT / "runs" / "mini-bert"
LOAD = '\nfrom bertedu.course import load_course_model\nmodel, _ = load_course_model()\nprint("LOADED", model.training)'


def bash_blocks(text: str) -> list[str]:
    """The guide's ```bash blocks, dedented (a block inside a list item is indented)."""
    return [textwrap.dedent(b) for b in re.findall(r"^[ \t]*```bash\n(.*?)^[ \t]*```", text, re.M | re.S)]


def fence_languages(text: str) -> list[str]:
    return [lang for lang, _ in re.findall(r"^[ \t]*```(\w*)\n(.*?)^[ \t]*```", text, re.M | re.S)]


def test_the_guide_marks_its_commands():
    """Every command block of the guide is a bash block (run below) or the students' server block (sh); the
    hub section's blocks are all sh (they set up a server as root: tests/test_hub.py tests that set-up)."""
    text = GUIDE.read_text(encoding="utf-8")
    hub = re.search(r"^## Running a class on a JupyterHub\n.*?(?=^## |\Z)", text, re.M | re.S)
    assert hub and set(fence_languages(hub.group())) == {"sh"}
    fences = fence_languages(text.replace(hub.group(), ""))
    assert fences.count("sh") == 1 and set(fences) == {"bash", "sh"}, fences
    blocks = bash_blocks(text)
    assert blocks[0].strip() == "make assignments" and len(blocks) == 4
    assert all("source .venv/bin/activate" in b for b in blocks if "nbgrader" in b)


def clone(target: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in CLONED:
        source = ROOT / name
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignore)
        else:
            shutil.copy2(source, target / name)  # keeps pyproject.toml's time: make sees the venv up to date
    for notebook in NOTEBOOKS:
        (target / notebook.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(notebook, target / notebook.relative_to(ROOT))
    (target / ".venv").symlink_to(ROOT / ".venv")
    return target


def fresh_shell(home: Path) -> dict[str, str]:
    """A new terminal's environment: no venv active, nothing of ours on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "MPLBACKEND", "PYTHONPATH")}
    venv = str(ROOT / ".venv")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(venv))
    env["BERTEDU_HOME"] = str(home)
    return env


def run_block(block: str, repo: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        ["bash", "-e", "-c", block], cwd=repo, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, f"guide block failed:\n{block}\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    return done.stdout + done.stderr


def hand_in(course: Path, load: bool) -> None:
    """alice hands in the release untouched; bob every answer right but the first, plus a cell of his own (where
    runs/ is; ``load``: and load the course model from there)."""
    release = nbformat.read(course / "release" / ASSIGNMENT / SOURCE.name, as_version=4)
    source = nbformat.read(course / "source" / ASSIGNMENT / SOURCE.name, as_version=4)
    bob = solved(release, source)
    first = next(c for c in bob.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "answer-1")
    assert WRONG[0] in first.source
    first.source = first.source.replace(*WRONG)
    bob.cells.append(nbformat.v4.new_code_cell(WHERE + (LOAD if load else "")))
    for student, nb in (("alice", release), ("bob", bob)):
        folder = course / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / SOURCE.name)


def write_exports(folder: Path, tmp_path: Path) -> None:
    from bertedu.teaching.quiz.store import ProgressStore

    for student, score in (("alice", 1.0), ("bob", 0.0)):
        store = ProgressStore(tmp_path / "homes" / student / "progress.json")
        store.record_attempt("00_welcome", "show-solution", score, answer=[0])
        store.export(folder / f"{student}.json")


def page_text(path: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8")))


@pytest.mark.integration
@pytest.mark.slow
def test_the_guides_commands_run_as_printed(tmp_path):
    repo = clone(tmp_path / "bertedu")
    load = (COURSE_MODEL / "model.safetensors").is_file()  # a fresh clone (CI's unit tests) has none yet
    if load:
        shutil.copytree(COURSE_MODEL, repo / "runs" / "mini-bert")
    dry = subprocess.run(["make", "-n", "assignments"], cwd=repo, capture_output=True, text=True, check=True)
    assert "pip" not in dry.stdout, f"make would install into the venv first: run `make dev`\n{dry.stdout}"
    (tmp_path / "home").mkdir()
    env = fresh_shell(tmp_path / "home")
    course = repo / "assignments"
    outputs = []
    for block in bash_blocks(GUIDE.read_text(encoding="utf-8")):
        if "nbgrader autograde" in block:
            hand_in(course, load)
        if "quiz.report EXPORTS" in block:
            write_exports(repo / "EXPORTS", tmp_path)
        outputs.append(run_block(block, repo, env))
    build, release, grading, report = outputs
    assert f"{ASSIGNMENT}_zh: 3 points" in build and (course / "release" / f"{ASSIGNMENT}_zh").is_dir()
    assert "Read 2 export(s)" in report and (repo / "REPORT" / "class_report.md").is_file()

    # the grades: nothing for the untouched release, two of three points for bob
    from nbgrader.api import Gradebook

    points = {e.name: e.points for e in editions.exercises(editions.read(SOURCE)).values()}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        alice = gradebook.find_submission(ASSIGNMENT, "alice")
        bob = gradebook.find_submission(ASSIGNMENT, "bob")
        assert (alice.score, alice.max_score) == (0, sum(points.values()))
        assert bob.score == sum(points.values()) - points["attention_weights"]
    assert (course / "grades.csv").read_text().count(ASSIGNMENT) >= 2

    # the release ran top to bottom: in alice's graded notebook only the hidden tests failed
    graded = nbformat.read(course / "autograded" / "alice" / ASSIGNMENT / SOURCE.name, as_version=4)
    failed = [c for c in graded.cells if any(o.output_type == "error" for o in c.get("outputs", []))]
    assert failed and all(c.metadata.get("nbgrader", {}).get("grade") for c in failed)
    assert all("Not attempted yet" in "".join(o.get("evalue", "") for o in c.outputs) for c in failed)
    # the warnings the guide explains: one per exercise and submission, for the hidden tests' cells
    assert grading.count("Attribute 'checksum' for cell check-") == 2 * len(points)

    # bob's feedback: the checker's explanation of his mistake, and maths without a network
    import numpy as np

    from bertedu.teaching.exercises import attention as ex

    scores = np.exp(ex.Q @ ex.K.T / np.sqrt(ex.Q.shape[-1]))
    explanation = str(ex.attention_weights.check(scores / scores.sum(axis=0, keepdims=True)))
    assert "wrong axis" in explanation
    page = course / "feedback" / "bob" / ASSIGNMENT / f"{ASSIGNMENT}.html"
    assert f"AssertionError: {explanation}" in page_text(page)
    source = page.read_text(encoding="utf-8")
    assert "MathJax" in source and not re.search(r"<script[^>]*\bsrc=", source)
    assert not re.search(r"<link[^>]*\bhref=[\"']?(https?:)?//", source)
    # a quiz shows its static fallback there (prompt and options, no answers), not an empty live-widget view
    from bertedu.teaching.quiz import load_bank
    from bertedu.teaching.quiz.render import markdown_to_html

    def shown(text: str) -> str:
        return html.unescape(re.sub(r"<[^>]+>", "", markdown_to_html(text)))

    quiz, feedback = load_bank(ASSIGNMENT).questions[0], page_text(page)
    assert "bertedu-quiz-static" in source and "widget-view+json" not in source
    assert shown(quiz.prompt["en"]) in feedback
    assert all(shown(o.text["en"]) in feedback for o in quiz.options)
    assert not any(shown(o.explanation["en"]) in feedback for o in quiz.options)

    # where runs/ resolves under autograde: the repository that holds the course folder
    bobs = nbformat.read(course / "autograded" / "bob" / ASSIGNMENT / SOURCE.name, as_version=4)
    printed = "".join(o.get("text", "") for o in bobs.cells[-1].outputs)
    assert f"RUNS {repo / 'runs' / 'mini-bert'}" in printed, printed
    if load:  # loaded from the clone's runs/, not trained again
        assert "LOADED False" in printed and "training" not in printed, printed

    no_solution_readable(course)
