"""The class report per student: completion and first-try score per notebook, the most missed correct option,
as CSV, Markdown and a plot, on a small synthetic class whose numbers are worked out by hand below."""

from __future__ import annotations

import csv
import io

import pytest

from bertedu.teaching.quiz import load_bank, report
from bertedu.teaching.quiz.store import ProgressStore

W, A = "00_welcome", "01_self_attention_by_hand"
# (notebook, question, answer by option id or typed blanks, score), in the order each student answered.
CLASS = {
    "ann": [
        (W, "show-solution", ["a"], 0.0),
        (W, "show-solution", ["b"], 1.0),
        (W, "set-seed", ["a", "b"], 2 / 3),  # misses d
    ],
    "ben": [
        (W, "show-solution", ["b"], 1.0),
        (A, "qkv-roles", ["a"], 1.0),
        (A, "row-sum", ["b"], 0.0),
    ],
    "cid": [
        (W, "set-seed", ["a", "c"], 0.0),  # misses b and d, picks the wrong c
        (W, "set-seed", ["a", "b", "d"], 1.0),
    ],
}


@pytest.fixture
def exports(tmp_path):
    folder = tmp_path / "exports"
    for name, answers in CLASS.items():
        store = ProgressStore(tmp_path / "homes" / name / "progress.json")
        for notebook, qid, answer, score in answers:
            store.record_attempt(notebook, qid, score, answer=answer)
        store.export(folder / f"{name}.json")
    read, skipped = report.read_exports(folder)
    assert skipped == [] and [e.student for e in read] == ["ann", "ben", "cid"]
    return read


def test_completion_and_first_try_score_per_student_and_notebook(exports):
    rows = report.student_report(exports, notebooks=[W, A])
    by = {(r.student, r.notebook): r for r in rows}
    assert len(rows) == 6  # every student x notebook, also the ones not started
    n_w, n_a = len(load_bank(W).questions), len(load_bank(A).questions)

    ann = by[("ann", W)]  # two questions; first tries 0 and 2/3
    assert (ann.questions, ann.answered, ann.first_try_known, ann.first_try_correct) == (n_w, 2, 2, 0)
    assert ann.first_try_score == pytest.approx(1 / 3) and ann.completion == pytest.approx(2 / n_w)
    assert by[("ann", A)].answered == 0 and by[("ann", A)].first_try_score is None

    ben = by[("ben", A)]  # two questions; first tries 1 and 0
    assert (ben.answered, ben.first_try_correct, ben.first_try_score) == (2, 1, 0.5)
    assert by[("ben", W)].first_try_score == 1.0

    cid = by[("cid", W)]  # one question, wrong first, right second: the first try counts
    assert (cid.answered, cid.first_try_correct, cid.first_try_score) == (1, 0, 0.0)

    table = list(csv.DictReader(io.StringIO(report.students_csv(rows))))
    assert list(table[0]) == list(report.STUDENT_COLUMNS)
    (row,) = [r for r in table if r["student"] == "ben" and r["notebook"] == A]
    assert row["answered"] == "2" and row["first_try_score"] == "0.500" and row["questions"] == str(n_a)
    assert [r["first_try_score"] for r in table if r["student"] == "ann" and r["notebook"] == A] == [""]


def test_most_missed_correct_option_of_a_multiple_choice_question(exports):
    rows, _ = report.class_report(exports)
    seed = next(r for r in rows if r.question_id == "set-seed")
    q = load_bank(W).question("set-seed")
    d = q.options[q.option_index("d")].text["en"]
    assert seed.missed_option == f"option d: “{d}”" and seed.missed_option_students == 2  # ann and cid
    assert seed.wrong_answer.startswith("option c: ") and seed.wrong_answer_students == 1  # cid
    table = list(csv.DictReader(io.StringIO(report.to_csv(rows))))
    (row,) = [r for r in table if r["question_id"] == "set-seed"]
    assert row["most_missed_correct_option"] == seed.missed_option and row["missed_by_students"] == "2"
    (single,) = [r for r in table if r["question_id"] == "show-solution"]
    assert single["most_missed_correct_option"] == "" and single["missed_by_students"] == ""


def test_markdown_has_completion_per_notebook_and_per_student(exports):
    rows, _ = report.class_report(exports)
    students = report.student_report(exports)
    md = report.to_markdown(rows, len(exports), (), students)
    n_w, n_a = len(load_bank(W).questions), len(load_bank(A).questions)
    assert "## Completion per notebook" in md and "## Completion per student" in md
    assert f"| Student | {W} | {A} |" in md  # only the notebooks someone started, in bank order
    assert f"| ann | 2/{n_w} · 33% | 0/{n_a} |" in md
    assert f"| ben | 1/{n_w} · 100% | 2/{n_a} · 50% |" in md
    assert f"| cid | 1/{n_w} · 0% | 0/{n_a} |" in md
    # 00_welcome: 3 students started; first tries 0, 2/3, 1, 0 → mean 5/12 = 42 %
    assert f"| {W} | {n_w} | 3 | " in md and " | 42% |" in md
    assert "| paper |" in md and "| Most missed correct option |" in md


def test_completion_plot_and_every_file_written(exports, tmp_path):
    students = report.student_report(exports)
    fig = report.plot_completion(students)
    grid = fig.axes[0].images[0].get_array()
    assert grid.shape == (3, 2)  # ann, ben, cid x the two started notebooks
    n_w, n_a = len(load_bank(W).questions), len(load_bank(A).questions)
    assert grid[1].tolist() == pytest.approx([100 / n_w, 200 / n_a])
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert f"2/{n_a}\nfirst try 50%" in texts and [t.get_text() for t in fig.axes[0].get_yticklabels()] == [
        "ann",
        "ben",
        "cid",
    ]

    rows, _ = report.class_report(exports)
    paths = report.write_report(rows, tmp_path / "out", len(exports), (), students)
    assert set(paths) == {"csv", "markdown", "plot", "students_csv", "students_plot"}
    assert paths["students_plot"].read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert "ann,00_welcome," in paths["students_csv"].read_text(encoding="utf-8")

    empty = report.plot_completion(report.student_report(exports[:0]))
    assert [t.get_text() for t in empty.axes[0].texts] == ["no answers recorded"]


def test_the_command_writes_the_student_files(exports, tmp_path, capsys):
    folder = exports[0].path.parent
    assert report.main([str(folder), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert report.STUDENTS_CSV_NAME in out and report.STUDENTS_PLOT_NAME in out
    assert (tmp_path / "out" / report.STUDENTS_PLOT_NAME).exists()
