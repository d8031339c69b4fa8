"""The instructor's class report (``python -m bertedu.teaching.quiz.report``) on a folder of synthetic exports.

The exports are made the way students make them: answers recorded through the real ProgressStore (one
student through the real widgets) and written by ``export_progress``. Bad and foreign files sit next to
them. The numbers of the table are worked out by hand below.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bertedu.teaching import quiz
from bertedu.teaching.quiz import report
from bertedu.teaching.quiz.store import ProgressStore, _stores

NB = "00_welcome"
# Answers are saved as the stores of students saved them before options had ids: positions in the banks'
# old order, which are the option ids a, b, c ... (bertedu.teaching.quiz.store.option_ids).
# show-solution: single choice, option b (old position 1) is right.
# set-seed: multiple choice, options a, b, d are right (c and e are wrong).
# quiz-score: two numeric blanks, 0.6667 ("two right") and 0.3333 ("two right, one wrong").
ANSWERS = {
    "alice": [
        ("show-solution", [0], 0.0),
        ("show-solution", [1], 1.0),
        ("set-seed", [0, 1, 3], 1.0),
        ("quiz-score", ["0.5", "1/3"], 0.5),
        ("quiz-score", ["2/3", "1/3"], 1.0),
    ],
    "bob": [
        ("show-solution", [1], 1.0),
        ("set-seed", [0, 2], 0.0),
        ("set-seed", [0, 1, 3], 1.0),
    ],
    "carol": [
        ("show-solution", [0], 0.0),
        ("show-solution", [2], 0.0),
        ("show-solution", [1], 1.0),
        ("set-seed", [0, 1, 2, 3], 2 / 3),
        ("quiz-score", ["0,5", "0.33"], 0.5),  # a decimal comma: the same wrong entry as alice's "0.5"
    ],
}


def _export_of(name: str, folder: Path, tmp_path: Path) -> Path:
    store = ProgressStore(tmp_path / "homes" / name / "progress.json")
    for qid, answer, score in ANSWERS[name]:
        store.record_attempt(NB, qid, score, answer=answer)
    return store.export(folder / f"{name}.json")


@pytest.fixture
def exports(tmp_path, monkeypatch):
    folder = tmp_path / "exports"
    for name in ANSWERS:
        _export_of(name, folder, tmp_path)

    # erin answers through the widgets in a notebook and exports with quiz.export_progress
    monkeypatch.setenv("BERTEDU_HOME", str(tmp_path / "homes" / "erin"))
    monkeypatch.delenv("BERTEDU_LANG", raising=False)
    quiz.set_language(None)
    w = quiz.ask(NB, "show-solution")
    for pick in ("a", "d"):  # options by id: where they appear depends on the student
        w.options_box.value = w.question.option_index(pick)
        w.submit.click()
    quiz.export_progress(folder / "erin.json")

    # dave's export is from before answers were recorded: no "first", no "answers"
    dave = ProgressStore(tmp_path / "homes" / "dave" / "progress.json")
    dave.record_attempt(NB, "show-solution", 1.0)
    dave.record_attempt(NB, "make-test", 0.0)
    dave.record_attempt(NB, "make-test", 1.0)
    dave.record_attempt(NB, "question-removed-since", 1.0)
    data = json.loads(dave.export(folder / "dave.json").read_text(encoding="utf-8"))
    for entry in data["notebooks"][NB]["questions"].values():
        entry.pop("first"), entry.pop("answers", None)
    (folder / "dave.json").write_text(json.dumps(data), encoding="utf-8")

    # files that are not exports, or not usable ones
    (folder / "notes.txt").write_text("Remember to grade the homework.\n", encoding="utf-8")
    (folder / "empty.json").write_text("", encoding="utf-8")
    (folder / "foreign.json").write_text('{"name": "a package.json, not an export"}', encoding="utf-8")
    (folder / "list.json").write_text("[1, 2, 3]", encoding="utf-8")
    future = json.loads((folder / "bob.json").read_text(encoding="utf-8"))
    (folder / "future.json").write_text(json.dumps({**future, "version": 2}), encoding="utf-8")
    (folder / "damaged.json").write_text(
        '{"version": 1, "notebooks": {"00_welcome": {"questions": [1, 2]}}}', encoding="utf-8"
    )
    (folder / "copy-of-alice.json").write_bytes((folder / "alice.json").read_bytes())
    (folder / "a-subfolder").mkdir()
    yield folder
    _stores.clear()
    quiz.set_language(None)


SKIPPED = {
    "copy-of-alice.json": "the same progress as alice.json",
    "damaged.json": "damaged progress export",
    "empty.json": "empty file",
    "foreign.json": "not a bertedu progress export",
    "future.json": "version 2; this bertedu reads version 1",
    "list.json": "not a bertedu progress export",
    "notes.txt": "not JSON",
}


def test_exports_keep_every_answer(exports):
    entry = json.loads((exports / "carol.json").read_text(encoding="utf-8"))["notebooks"][NB]["questions"]
    assert [a["answer"] for a in entry["show-solution"]["answers"]] == [[0], [2], [1]]
    assert entry["show-solution"]["first"] == 0.0 and entry["quiz-score"]["answers"][0]["answer"] == [
        "0,5",
        "0.33",
    ]
    erin = json.loads((exports / "erin.json").read_text(encoding="utf-8"))["notebooks"][NB]["questions"]
    assert [a["answer"] for a in erin["show-solution"]["answers"]] == [["a"], ["d"]]  # ids, by the widget


def test_bad_and_foreign_files_are_skipped_one_line_each(exports):
    read, skipped = report.read_exports(exports)
    assert sorted(e.path.name for e in read) == [
        "alice.json",
        "bob.json",
        "carol.json",
        "dave.json",
        "erin.json",
    ]
    assert len(skipped) == len(SKIPPED)
    for line in skipped:
        assert "\n" not in line and line.startswith("skipped ")
        name = line.split()[1].rstrip(":")
        assert SKIPPED[name] in line, line


def test_table_numbers(exports):
    read, _ = report.read_exports(exports)
    rows, notes = report.class_report(read)
    by_id = {r.question_id: r for r in rows}
    assert [r.question_id for r in rows] == ["quiz-score", "set-seed", "show-solution", "make-test"]

    score = by_id["quiz-score"]  # alice and carol, both wrong first; both typed 0.5 for blank 1
    assert (score.students, score.attempts, score.first_try_correct, score.first_try_known) == (2, 3, 0, 2)
    assert score.first_try_rate == 0.0
    assert score.wrong_answer == "Blank 1 (two right): “0.5”" and score.wrong_answer_students == 2

    seed = by_id[
        "set-seed"
    ]  # alice right first; bob and carol picked option c ("makes the numbers identical")
    assert (seed.students, seed.attempts, seed.first_try_correct, seed.first_try_known) == (3, 4, 1, 3)
    assert seed.first_try_rate == pytest.approx(1 / 3)
    assert (
        seed.wrong_answer.startswith("option c: “It makes the numbers identical")
        and seed.wrong_answer_students == 2
    )
    # bob's [0, 2] missed b and d, carol's [0, 1, 2, 3] none: b and d tie at 1 student, the first id is named
    assert seed.missed_option.startswith("option b: “") and seed.missed_option_students == 1

    show = by_id["show-solution"]  # 5 students: bob and dave right first; option a chosen by 3 students
    assert (show.students, show.attempts, show.first_try_correct, show.first_try_known) == (5, 9, 2, 5)
    assert show.first_try_rate == pytest.approx(0.4)
    assert show.wrong_answer == "option a: “At any time: the button works even before you pick an option”"
    assert show.wrong_answer_students == 3
    assert show.missed_option == "" and show.missed_option_students == 0  # single choice: not counted

    make = by_id["make-test"]  # only dave, old export: 2 attempts, best 1, first try unknown → listed last
    assert (make.students, make.attempts, make.first_try_known, make.first_try_rate) == (1, 2, 0, None)
    assert make.wrong_answer == "" and make.wrong_answer_students == 0
    assert len(notes) == 1 and "00_welcome/question-removed-since" in notes[0]


@pytest.mark.integration
def test_command_writes_csv_markdown_and_plot(exports, tmp_path):
    out = tmp_path / "report"
    proc = subprocess.run(
        [sys.executable, "-m", "bertedu.teaching.quiz.report", str(exports), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Read 5 export(s) (7 file(s) skipped): 4 question(s)." in proc.stdout
    stderr = proc.stderr.strip().splitlines()
    assert sum(line.startswith("skipped ") for line in stderr) == 7 and "Traceback" not in proc.stderr

    with open(out / report.CSV_NAME, encoding="utf-8", newline="") as fh:
        table = list(csv.DictReader(fh))
    assert [r["question_id"] for r in table] == ["quiz-score", "set-seed", "show-solution", "make-test"]
    first = table[2]
    assert first["students"] == "5" and first["attempts"] == "9" and first["first_try_success"] == "0.400"
    assert (
        first["most_chosen_wrong_answer"]
        == "option a: “At any time: the button works even before you pick an option”"
    )
    assert first["chosen_by_students"] == "3" and first["question"].startswith("You are answering")
    assert table[3]["first_try_success"] == ""

    md = (out / report.MARKDOWN_NAME).read_text(encoding="utf-8")
    assert "5 student export(s) read; 4 question(s) answered" in md
    assert "| 1 | 00_welcome | `quiz-score`:" in md and "| 0% (0/2) | Blank 1 (two right): “0.5” (2) |" in md
    assert "| 33% (1/3) |" in md and "- skipped notes.txt: not JSON" in md

    png = (out / report.PLOT_NAME).read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000


def test_plot_bars_are_the_first_try_rates(exports):
    read, _ = report.read_exports(exports)
    rows, _ = report.class_report(read)
    fig = report.plot_first_try(rows, len(read))
    bars = fig.axes[0].patches
    assert [round(b.get_width(), 1) for b in bars] == [0.0, 33.3, 40.0]  # make-test (unknown) is left out
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == ["00_welcome / quiz-score", "00_welcome / set-seed", "00_welcome / show-solution"]


def test_exit_code_2_when_no_export_can_be_read(tmp_path, capsys):
    folder = tmp_path / "junk"
    folder.mkdir()
    (folder / "a.json").write_text("{", encoding="utf-8")
    (folder / "b.txt").write_text("hello", encoding="utf-8")
    assert report.main([str(folder), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "skipped a.json: not JSON" in err and "no student export could be read" in err
    assert not (tmp_path / "out").exists()  # nothing written
    assert report.main([str(tmp_path / "missing"), "--out", str(tmp_path / "out")]) == 2
    assert "is not a folder" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert report.main([str(empty), "--out", str(tmp_path / "out")]) == 2


def test_exit_code_0_with_one_good_export_among_bad_ones(tmp_path, capsys):
    folder = tmp_path / "exports"
    _export_of("bob", folder, tmp_path)
    (folder / "x.json").write_text("[]", encoding="utf-8")
    assert report.main([str(folder), "--out", str(tmp_path / "out")]) == 0
    assert "Read 1 export(s) (1 file(s) skipped)" in capsys.readouterr().out


# ------------------------------------------------------------------------------------- one student, once


def test_the_same_progress_exported_twice_counts_once(tmp_path):
    """A student who clicks export twice and hands in both files is one student: the second file holds the same
    progress at a later ``exported`` time (not a byte copy) and is skipped, saying why."""
    store = ProgressStore(tmp_path / "home" / "progress.json")
    store.record_attempt(NB, "show-solution", 0.0, answer=["a"])
    data = json.loads(store.export(tmp_path / "exports" / "alice.json").read_text(encoding="utf-8"))
    data["exported"] = "2030-01-01T00:00:00"
    (tmp_path / "exports" / "alice-again.json").write_text(json.dumps(data), encoding="utf-8")
    exports, skipped = report.read_exports(tmp_path / "exports")
    assert len(exports) == 1 and len(skipped) == 1 and "handed in twice" in skipped[0], skipped
    rows, _ = report.class_report(exports)
    assert rows[0].students == 1 and rows[0].wrong_answer_students == 1


def _export_with_id(folder: Path, name: str, student: str, exported: str, attempts: list[float]) -> None:
    store = ProgressStore(folder.parent / "homes" / name / "progress.json")
    for score in attempts:
        store.record_attempt(NB, "show-solution", score, answer=["a" if score == 0 else "b"])
    data = json.loads(store.export(folder / name, student=student).read_text(encoding="utf-8"))
    data["exported"] = exported
    (folder / name).write_text(json.dumps(data), encoding="utf-8")


def test_the_class_report_counts_a_student_by_the_id_inside_the_export(tmp_path):
    """Two exports carrying one student id (Monday's and Friday's, under any file names) are one student: the
    newer counts and the older is skipped naming both; two ids are two students, even with equal progress."""
    folder = tmp_path / "exports"
    folder.mkdir()
    _export_with_id(folder, "bertedu-progress-x.json", "0f3c9a5e", "2026-12-11T09:00:00", [0.0, 1.0])
    _export_with_id(folder, "alice-monday.json", "0f3c9a5e", "2026-12-07T09:00:00", [0.0])
    _export_with_id(folder, "bob.json", "77aa0b1c", "2026-12-07T09:00:00", [0.0])
    _export_with_id(folder, "carol.json", "9c9c9c9c", "2026-12-07T09:00:00", [0.0])
    carol = json.loads((folder / "carol.json").read_text(encoding="utf-8"))
    bob = json.loads((folder / "bob.json").read_text(encoding="utf-8"))
    carol["notebooks"] = bob["notebooks"]  # the very same progress, another student
    (folder / "carol.json").write_text(json.dumps(carol), encoding="utf-8")
    exports, skipped = report.read_exports(folder)
    assert sorted(e.path.name for e in exports) == ["bertedu-progress-x.json", "bob.json", "carol.json"]
    assert skipped == [
        "skipped alice-monday.json: an older export of the same student as bertedu-progress-x.json "
        "(student id 0f3c9a5e); the newer one counts"
    ]
    rows, _ = report.class_report(exports)
    (row,) = [r for r in rows if r.question_id == "show-solution"]
    assert (row.students, row.attempts, row.first_try_correct) == (3, 4, 0)


def test_an_export_whose_student_id_is_not_one_is_skipped(tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    _export_with_id(folder, "x.json", "0f3c9a5e", "2026-12-07T09:00:00", [1.0])
    data = json.loads((folder / "x.json").read_text(encoding="utf-8"))
    (folder / "x.json").write_text(json.dumps({**data, "student": ["not", "an", "id"]}), encoding="utf-8")
    exports, skipped = report.read_exports(folder)
    assert exports == [] and "'student' must be a student id" in skipped[0], skipped
