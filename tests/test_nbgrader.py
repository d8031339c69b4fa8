"""The instructor kit: ``make assignments`` builds an nbgrader course, and nbgrader grades it offline.

Here: the assignment sources (markers, points, hidden tests that name the mistake in the notebook's language,
the student edition's stubs for the release, the Chinese assignments, the feedback template) and the graded
package. The round trip through nbgrader itself (generate, autograde an untouched and a solved submission:
zero and the points of the right answers, feedback, export) runs the instructor guide's own commands in
tests/test_instructor_guide.py, which calls :func:`no_solution_readable` below: the release and the graded
package that ``make assignments`` writes hold no reference solution (the rule of what "holds" means is in
tools/build_assignments.py, above ``find_solutions``). Opt-in: ``BERTEDU_NBGRADER_ALL=1`` autogrades notebook
07's solved assignment (it loads the course model; about 4 minutes).
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]

import build_assignments  # noqa: E402
import editions  # noqa: E402

import bertedu.teaching.viz  # noqa: E402, F401  (at collection: its font search may start fc-list, once)

pytest.importorskip("nbgrader", reason="nbgrader is a dev dependency: pip install -e '.[dev]'")

ASSIGNMENT = "01_self_attention_by_hand"
SOURCE = ROOT / "notebooks" / f"{ASSIGNMENT}.ipynb"


def nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
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
    written = build_assignments.build([SOURCE], tmp_path, package=False)
    nb = nbformat.read(tmp_path / "source" / ASSIGNMENT / SOURCE.name, as_version=4)
    graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
    exercises = editions.exercises(editions.read(SOURCE))
    assert {c.metadata.nbgrader.grade_id for c in graded} == {f"check-{e.name}" for e in exercises.values()}
    assert written == {ASSIGNMENT: sum(e.points for e in exercises.values())}
    hidden = f"assert {build_assignments.HIDDEN_RESULT}.passed, {build_assignments.HIDDEN_RESULT}\n"
    for cell in graded:
        assert editions.BEGIN_HIDDEN in cell.source and hidden in cell.source
        assert cell.metadata.nbgrader.locked and cell.metadata.nbgrader.points >= 1
    assert all(editions.BEGIN_SOLUTION in c.source for c in answers) and len(answers) == 3
    assert all(len(c.metadata.bertedu.stubs) == c.source.count(editions.BEGIN_SOLUTION) for c in answers)
    assert not any({"solution", "instructor"} & set(c.metadata.get("tags", [])) for c in nb.cells)
    assert not any(".solution()" in c.source for c in nb.cells) and any(
        ".hint()" in c.source for c in nb.cells
    )
    kept = build_assignments.assignment_notebook(editions.read(SOURCE), SOURCE.name, keep_solution_calls=True)
    assert sum(".solution()" in c.source for c in kept.cells) == 3
    assert (tmp_path / "nbgrader_config.py").read_text().count("course_id") == 1
    assert not (tmp_path / build_assignments.PACKAGE_DIR).exists()  # package=False


def course_config(course: Path):
    """The config nbgrader reads from ``course/nbgrader_config.py`` (executed as nbgrader does)."""
    from traitlets.config import Config

    config = Config()
    namespace = {"get_config": lambda: config, "__file__": str(course / "nbgrader_config.py")}
    exec(compile((course / "nbgrader_config.py").read_text(), "nbgrader_config.py", "exec"), namespace)
    return config, namespace


def test_the_release_has_the_student_editions_stubs(tmp_path):
    """nbgrader's release, through the config's StudentEditionStubs, holds the student edition's code: Run All
    goes on past an unanswered exercise (no top-level raise), and the stubs are the same lines."""
    from nbgrader.preprocessors import ClearSolutions

    build_assignments.build([SOURCE], tmp_path, package=False)
    config, namespace = course_config(tmp_path)
    stubs_class = namespace["StudentEditionStubs"]
    steps = config.GenerateAssignment.preprocessors
    assert stubs_class in steps and ClearSolutions not in steps and issubclass(stubs_class, ClearSolutions)
    source = nbformat.read(tmp_path / "source" / ASSIGNMENT / SOURCE.name, as_version=4)
    stubs = stubs_class()
    released = []
    for cell in source.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            assert stubs._replace_solution_region(cell, "python")
            released.append(cell.source)
    student = editions.student_notebook(editions.read(SOURCE), SOURCE.name)
    student_code = {c.source for c in student.cells if c.cell_type == "code"}
    assert len(released) == 3 and all(code in student_code for code in released)
    for code in released:
        assert "BEGIN SOLUTION" not in code and "raise NotImplementedError()" not in code
        top_level = [line for line in code.split("\n") if line.startswith("raise")]
        assert not top_level, code  # a raise at the top level of a cell would stop Run All
        compile(code, "release", "exec")
    assert "weights = ..." in released[0]


WRONG_AXIS = "weights = softmax(ex.Q @ ex.K.T / np.sqrt(4), axis=0)"


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_failed_hidden_test_names_the_mistake_in_the_notebooks_language(tmp_path, language):
    """The hidden test's AssertionError (what nbgrader's feedback shows) is the checker's message, in Chinese
    for an assignment built from notebooks/zh/."""
    import numpy as np

    from bertedu import language as i18n
    from bertedu.teaching.exercises import attention

    source = SOURCE if language == "en" else ZH_SOURCE
    nb = build_assignments.assignment_notebook(editions.read(source), source.name)
    (cell,) = [
        c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "check-attention_weights"
    ]
    hidden = cell.source.split(editions.BEGIN_HIDDEN)[1].split(editions.END_HIDDEN)[0]
    namespace = {
        "ex": attention,
        "np": np,
        "softmax": lambda x, axis: np.exp(x) / np.exp(x).sum(axis, keepdims=True),
    }
    exec(WRONG_AXIS, namespace)
    try:
        if language == "zh":  # what the Chinese notebook's generated cell does before any check
            assert any('set_language("zh")' in c.source for c in nb.cells if c.cell_type == "code")
        i18n.set_language(language)
        with pytest.raises(AssertionError) as failed:
            exec(hidden, namespace)
        expected = str(attention.attention_weights.check(namespace["weights"]))
        shown = str(failed.value)  # the label is translated when shown (nbgrader shows it in the same kernel)
    finally:
        i18n.set_language(None)
    assert shown == expected and "axis" in expected
    assert ("不" in expected or "轴" in expected) == (language == "zh"), expected


ZH_SOURCE = ROOT / "notebooks" / "zh" / f"{ASSIGNMENT}.ipynb"


def test_chinese_assignments_are_built_next_to_the_english_ones(tmp_path):
    sources = build_assignments.default_sources()
    assert ZH_SOURCE in sources and SOURCE in sources
    written = build_assignments.build([SOURCE, ZH_SOURCE], tmp_path, package=False)
    assert written == {ASSIGNMENT: 3, f"{ASSIGNMENT}_zh": 3}
    zh = nbformat.read(tmp_path / "source" / f"{ASSIGNMENT}_zh" / SOURCE.name, as_version=4)
    en = nbformat.read(tmp_path / "source" / ASSIGNMENT / SOURCE.name, as_version=4)
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in zh.cells]
    assert [i for i in ids if i] == [
        c.metadata.nbgrader.grade_id for c in en.cells if "nbgrader" in c.metadata
    ]
    assert any("自注意力" in c.source for c in zh.cells if c.cell_type == "markdown")


def test_nbgrader_finds_alembic_without_an_activated_venv(tmp_path, monkeypatch):
    """nbgrader starts `alembic` by name; the config puts this Python's bin/ first on PATH, so that
    `.venv/bin/nbgrader ...` works without `source .venv/bin/activate` (the guide's step 3)."""
    build_assignments.build([SOURCE], tmp_path, package=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    course_config(tmp_path)
    first = os.environ["PATH"].split(os.pathsep)[0]
    assert first == os.path.dirname(sys.executable) and shutil.which("alembic", path=first)


def test_the_feedback_template_inlines_mathjax(tmp_path):
    """nbgrader_config.py selects templates/bertedu_feedback, whose mathjax() macro writes MathJax into the page
    (no script from a CDN); the rendered page is checked in tests/test_instructor_guide.py."""
    build_assignments.build([SOURCE], tmp_path, package=False)
    config, _ = course_config(tmp_path)
    assert config.HTMLExporter.template_name == build_assignments.FEEDBACK_TEMPLATE
    assert str(tmp_path / "templates") in config.HTMLExporter.extra_template_basedirs
    macro = (tmp_path / "templates" / build_assignments.FEEDBACK_TEMPLATE / "mathjax.html.j2").read_text()
    assert "macro mathjax(" in macro and "MathJax" in macro and len(macro) > 1_000_000
    assert not re.search(r"<script[^>]*\bsrc=", macro)


# ----------------------------------------------------------------------------------------------------------
# The graded package and the search for reference solutions

MODULE = '''\
GRADED_BUILD = False  # the marker
demo = Exercise(
    name="demo", prompt="p", checker=check,
    solution_code="""
answer = compute()   # 中文注释: a multi-byte comment before the end
""",
    points=2,
)
old_style = Exercise("old", "p", check, [], "x = 1  # positional")
empty = Exercise("empty", "p", check, solution_code="")
'''


def test_strip_solutions_empties_every_solution_and_sets_the_marker():
    stripped, removed = build_assignments.strip_solutions(MODULE, "demo.py")
    assert removed == 2  # two solution_code values (their translations are generated from them)
    for gone in ("compute()", "x = 1", "中文注释"):
        assert gone not in stripped
    assert "GRADED_BUILD = True  # the marker" in stripped  # the rest of the line kept
    assert 'solution_code="",' in stripped and '[], "")' in stripped
    assert "points=2" in stripped and 'solution_code="")' in stripped  # untouched
    namespace = {"Exercise": lambda *a, **k: (a, k), "check": None}
    exec(stripped, namespace)
    assert namespace["demo"][1]["solution_code"] == ""


def test_strip_solutions_refuses_a_solution_it_cannot_remove_whole():
    with pytest.raises(editions.EditionError, match="string literal"):
        build_assignments.strip_solutions("e = Exercise(name='e', solution_code=CODE)", "x.py")


PLANTED = """\
def attention(q, k, v):
    scores = q @ k.transpose(-2, -1)          # (B, T, T)
    scores = scores / math.sqrt(q.shape[-1])
    weights = torch.softmax(scores, dim=-1)
    return weights @ v
"""


def test_the_search_finds_a_planted_solution_and_keeps_the_course_code():
    """Rule 1: the whole solution in a text meant to be read (a string, a cell), translated comments or not.
    Rule 2: three consecutive lines anywhere, code included, unless the course's own code holds them."""
    translated = PLANTED.replace("# (B, T, T)", "# 分数 (B, T, T)")
    lines = PLANTED.split("\n")
    texts = {
        "pkg/hidden.py, string 0": translated,  # rule 1: a solution string left in a module
        "release/nb.ipynb, cell 3": "x = 1\n" + "\n".join(lines[2:5]) + "\ny = 2",  # rule 2: three lines
        "release/nb.ipynb, cell 4": "\n".join(lines[2:4]),  # two lines: not enough
        "pkg/core.py": "def f(q, k):\n" + "\n".join(lines[1:4]),  # three lines the library holds too
        "pkg/other.py": "\n".join(lines[2:5]) + "\n",  # three lines the library does not hold
    }
    library = {"core.py": "def g(q, k):\n" + "\n".join(lines[1:4]) + "\n    return q"}
    found = build_assignments.find_solutions({"attention": PLANTED}, texts, library)
    assert {f.where for f in found} == {
        "pkg/hidden.py, string 0",
        "release/nb.ipynb, cell 3",
        "pkg/other.py",
    }, found
    # the whole solution as a string is a leak even when the library's code holds every line of it
    assert build_assignments.find_solutions({"a": PLANTED}, {"m.py, string 1": PLANTED}, {"m.py": PLANTED})
    assert not build_assignments.find_solutions({"a": PLANTED}, {"m.py": PLANTED}, {"m.py": PLANTED})


def test_a_graded_build_says_solutions_are_not_part_of_it(monkeypatch):
    from bertedu import language as i18n
    from bertedu.teaching.exercises import core
    from bertedu.teaching.exercises import welcome as ex

    monkeypatch.setattr(core, "GRADED_BUILD", True)
    shown = repr(ex.expected_masked.solution())
    assert shown == core.GRADED_BUILD_MESSAGE and ex.expected_masked.solution_code.strip() not in shown
    assert i18n.translate(core.GRADED_BUILD_MESSAGE, "zh") != core.GRADED_BUILD_MESSAGE


GRADED_PROBE = """
import importlib
import json
import bertedu
from bertedu import language as i18n
from bertedu.teaching.exercises import welcome as ex
from bertedu.utils import data_path

ex.expected_masked.check(30)  # an attempt: the course's package would now show the solution
shown = {}
for lang in i18n.LANGUAGES:
    i18n.set_language(lang)
    shown[lang] = repr(ex.expected_masked.solution())
translations = sum("SOLUTIONS" in vars(importlib.import_module(m)) for m in i18n.CATALOG_MODULES["zh"])
print(json.dumps({"package": bertedu.__file__, "data": str(data_path("simple_sentences.txt")),
                  "shown": shown, "translations": translations}))
"""


def no_solution_readable(course: Path) -> None:
    """Nothing a student can read holds a reference solution: not the release, not the graded package (by the
    rule above tools/build_assignments.py's ``find_solutions``), while the same search finds every solution
    in the course's own package; and the graded package, imported from its folder, says so in solution()."""
    from bertedu import language as i18n
    from bertedu.teaching.exercises import core

    package = course / build_assignments.PACKAGE_DIR
    solutions = build_assignments.reference_solutions()
    own = build_assignments.library_texts() | build_assignments.given_code([SOURCE])
    readable = build_assignments.readable_texts(course / "release", package)
    assert f"{package.name}/{build_assignments.MARKER_MODULE}" in readable and len(readable) > 1000
    found = build_assignments.find_solutions(solutions, readable, own)
    assert not found, "\n".join(map(str, found))
    # the transform skipped: the course's own package holds every solution (and translation) with code lines
    unstripped = build_assignments.find_solutions(
        solutions, build_assignments.readable_texts(ROOT / "bertedu" / "teaching"), own
    )
    with_code = {name for name, code in solutions.items() if build_assignments.significant_lines(code)}
    assert {f.exercise for f in unstripped} == with_code and len(with_code) >= 40

    env = {**os.environ, "PYTHONPATH": str(package)}
    with tempfile.TemporaryDirectory() as away:  # a student's folder: no repository above it
        probe = subprocess.run(
            [sys.executable, "-c", GRADED_PROBE],
            cwd=away,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert probe.returncode == 0, probe.stderr
    seen = json.loads(probe.stdout)
    assert Path(seen["package"]).is_relative_to(package) and Path(seen["data"]).is_relative_to(package)
    assert seen["shown"] == {lang: i18n.translate(core.GRADED_BUILD_MESSAGE, lang) for lang in i18n.LANGUAGES}
    assert seen["translations"] == 0


def solved(release, source):
    """``release`` with every answer cell holding the source's solution (markers removed): a full-marks submission."""
    solutions = {
        c.metadata.nbgrader.grade_id: c.source
        for c in source.cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }
    nb = copy.deepcopy(release)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            lines = solutions[cell.metadata.nbgrader.grade_id].split("\n")
            cell.source = "\n".join(
                line for line in lines if line.strip() not in (editions.BEGIN_SOLUTION, editions.END_SOLUTION)
            )
    return nb


FINE_TUNING = ROOT / "notebooks" / "07_fine_tuning.ipynb"


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("BERTEDU_NBGRADER_ALL") != "1", reason="about 4 minutes: BERTEDU_NBGRADER_ALL=1 to run it"
)
def test_autograding_notebook_07_loads_the_course_model(tmp_path):
    """Notebook 07 loads runs/mini-bert/ (trained by 06, or by load_course_model the first time). Graded in a
    course folder outside the repository, the submission finds the repository's runs/ through the package's
    editable install, and the solved assignment gets full marks."""
    course = tmp_path / "course"
    assignment = FINE_TUNING.stem
    build_assignments.build([FINE_TUNING], course, package=False)
    nbgrader(course, "generate_assignment", assignment)
    release = nbformat.read(course / "release" / assignment / FINE_TUNING.name, as_version=4)
    source = nbformat.read(course / "source" / assignment / FINE_TUNING.name, as_version=4)
    folder = course / "submitted" / "bob" / assignment
    folder.mkdir(parents=True)
    nbformat.write(solved(release, source), folder / FINE_TUNING.name)
    nbgrader(course, "autograde", assignment)

    from nbgrader.api import Gradebook

    total = sum(e.points for e in editions.exercises(editions.read(FINE_TUNING)).values())
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission(assignment, "bob")
        assert (submission.score, submission.max_score) == (total, total)


# ------------------------------------------------------------------- the release and the library's answers

#: Imports of a library answer that a release keeps before the exercise's graded check, because a teaching cell
#: before the check uses them (the notebook works with the library's version, then asks for one's own): there
#: the check's rejection of an answer that uses the library is the guard (test below, and
#: tests/test_exercises_library_answers.py for every exercise).
TAUGHT_FIRST = {
    ("01", "scaled_dot_product_attention", "attention_weights"),
    ("02", "WordpieceTokenizer", "wordpiece"),
    ("03", "mask_tokens_with_details", "fix_masking"),
    ("03", "mask_tokens_with_details", "masking_function"),
    ("04", "BertLMPredictionHead", "mlm_head"),
    ("04", "build_nsp_example", "collate_batch"),
    ("04", "mlm_loss", "fix_mlm_average"),
    ("04", "nsp_loss", "fix_nsp_loss"),
    ("05", "BertLayer", "post_ln_layer"),
    ("06", "linear_schedule", "lr_schedule"),
}


@pytest.mark.slow  # builds every assignment of both languages (16 s beside other work)
def test_the_release_neither_shows_nor_imports_a_library_answer_before_its_check():
    """Every assignment, English and Chinese: no ``show(X)`` of a library answer of its exercises (their code is
    not printed), and no import binds one before the graded check of the exercise it answers (the import moved
    after the check), except the imports listed in TAUGHT_FIRST, which a teaching cell before the check needs."""
    from bertedu.teaching.exercises import library_answers

    kept, moved, shows = set(), 0, 0
    for source in build_assignments.default_sources():
        nb = editions.read(source)
        if not editions.exercises(nb):
            continue
        release = build_assignments.assignment_notebook(nb, source.name)
        answers = build_assignments.library_answers_of(nb)
        names = build_assignments._bertedu_imports(release)
        for cell in release.cells:
            for line in cell.source.split("\n"):
                assert not build_assignments._shown_answer(line, names, answers), f"{source}: {line}"
        instructor_names = build_assignments._bertedu_imports(nb)
        shows += sum(
            build_assignments._shown_answer(line, instructor_names, answers)
            for c in nb.cells
            for line in c.source.split("\n")
        )
        graded = {
            c.metadata.nbgrader.grade_id[len("check-") :]: i
            for i, c in enumerate(release.cells)
            if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("check-")
        }
        for name, (at, obj) in names.items():
            for exercise in answers.get(id(library_answers.plain(obj)), []):
                if at < graded[exercise]:
                    kept.add((source.name[:2], name, exercise))
                elif at > 1:
                    moved += 1
    assert kept == TAUGHT_FIRST
    assert shows >= 24 and moved >= 6, (shows, moved)  # both languages: what the rule acted on


def test_a_moved_import_still_serves_the_cells_after_the_check():
    """Notebook 01's release imports build_key_mask in the first cell after the key-mask check that uses it (the
    nbval marker stays the first line), and no longer in the first cell."""
    release = build_assignments.assignment_notebook(editions.read(SOURCE), SOURCE.name)
    code = [c for c in release.cells if c.cell_type == "code"]
    first = code[0].source
    assert (
        "build_key_mask" not in first and "BertSelfAttention" not in first and "scaled_dot_product" in first
    )
    at = next(
        i
        for i, c in enumerate(release.cells)
        if "from bertedu.core.attention import build_key_mask" in c.source
    )
    check = next(
        i
        for i, c in enumerate(release.cells)
        if c.metadata.get("nbgrader", {}).get("grade_id") == "check-key_mask"
    )
    assert at > check and "build_key_mask(" in release.cells[at].source
    assert not any(c.source.lstrip().startswith("from") and "NBVAL" in c.source for c in release.cells)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_hidden_test_rejects_an_answer_that_calls_the_library(language):
    """``padding_mask = lambda m: build_key_mask(m)`` gets no point: the hidden test fails with the reason, in the
    notebook's language (what nbgrader's feedback shows)."""
    from bertedu import language as i18n
    from bertedu.core.attention import build_key_mask
    from bertedu.teaching.exercises import attention

    source = SOURCE if language == "en" else ZH_SOURCE
    nb = build_assignments.assignment_notebook(editions.read(source), source.name)
    (cell,) = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "check-key_mask"]
    hidden = cell.source.split(editions.BEGIN_HIDDEN)[1].split(editions.END_HIDDEN)[0]
    namespace = {"ex": attention, "padding_mask": lambda m: build_key_mask(m)}
    try:
        i18n.set_language(language)
        with pytest.raises(AssertionError) as failed:
            exec(hidden, namespace)
    finally:
        i18n.set_language(None)
    shown = str(failed.value)
    assert "bertedu.core.attention.build_key_mask" in shown
    assert ("不能算数" in shown) == (language == "zh") and ("cannot count" in shown) == (language == "en"), (
        shown
    )


@pytest.mark.integration
@pytest.mark.slow
def test_autograde_gives_no_point_for_an_answer_that_calls_the_library(tmp_path):
    """The real round trip: a submission whose key-mask answer imports and calls the library's build_key_mask
    gets every point but that exercise's, and its feedback page says why."""
    course = tmp_path / "course"
    build_assignments.build([SOURCE], course, package=False)
    nbgrader(course, "generate_assignment", ASSIGNMENT)
    release = nbformat.read(course / "release" / ASSIGNMENT / SOURCE.name, as_version=4)
    source = nbformat.read(course / "source" / ASSIGNMENT / SOURCE.name, as_version=4)
    assert not any("show(build_key_mask)" in c.source for c in release.cells)
    submission = solved(release, source)
    for cell in submission.cells:
        if "def padding_mask" in cell.source and cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = (
                "from bertedu.core.attention import build_key_mask\n\n\n"
                "def padding_mask(attention_mask):\n    return build_key_mask(attention_mask)\n"
            )
    folder = course / "submitted" / "mallory" / ASSIGNMENT
    folder.mkdir(parents=True)
    nbformat.write(submission, folder / SOURCE.name)
    nbgrader(course, "autograde", ASSIGNMENT)
    nbgrader(course, "generate_feedback", ASSIGNMENT)

    from nbgrader.api import Gradebook

    exercises = editions.exercises(editions.read(SOURCE))
    total = sum(e.points for e in exercises.values())
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        score = gradebook.find_submission(ASSIGNMENT, "mallory").score
    assert score == total - exercises["ex.key_mask"].points
    (page,) = (course / "feedback" / "mallory" / ASSIGNMENT).glob("*.html")
    text = page.read_text(encoding="utf-8")
    assert "cannot count" in text and "bertedu.core.attention.build_key_mask" in text


@pytest.mark.slow  # about 10 s, no process: the nbgrader round trip that caught N6 takes minutes
def test_the_graded_package_holds_no_solution_in_any_language(tmp_path):
    """Mutation review 2026-12-06, N6: only the integration round trip ever wrote the graded package. Here,
    without nbgrader or a process: no reference solution is readable in it (find_solutions, the build's own search, finds
    none; the Chinese solutions are generated from the English code, which is gone), the catalogs keep no
    solution code, and the marker module alone says GRADED_BUILD = True."""
    from bertedu import language

    package = tmp_path / "pkg"
    # write_graded_package searches the package (find_solutions over every readable text, each solution in
    # each language) and raises EditionError, deleting it, if a solution is left
    removed = build_assignments.write_graded_package(package)
    assert removed >= 30 and (package / "bertedu").is_dir()
    catalogs = [package / (name.replace(".", "/") + ".py") for name in language.CATALOG_MODULES["zh"]]
    assert all(path.is_file() and "SOLUTIONS" not in path.read_text(encoding="utf-8") for path in catalogs)
    marked = sorted(
        path.relative_to(package).as_posix()
        for path in (package / "bertedu").rglob("*.py")
        if re.search(rf"^{build_assignments.MARKER} = True\b", path.read_text(encoding="utf-8"), re.M)
    )
    assert marked == [build_assignments.MARKER_MODULE]
