"""Quiz options: the banks do not give the answer away by its place, each student sees their own stable order,
and grading, saved progress and the class report go by option id (issue 29)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import yaml

from bertedu.teaching import quiz
from bertedu.teaching.quiz import report
from bertedu.teaching.quiz.banks import bank_files, bank_from_data, legacy_option_id, load_all
from bertedu.teaching.quiz.core import grade
from bertedu.teaching.quiz.shuffle import ENV_STUDENT, option_order, student_id
from bertedu.teaching.quiz.store import ProgressStore, _stores, option_ids
from bertedu.teaching.quiz.widgets import question_widget

ROOT = Path(__file__).resolve().parents[1]
WELCOME = "00_welcome"
CHOICE = [q for b in load_all() for q in b.questions if q.type in ("single", "multiple")]


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("BERTEDU_HOME", str(tmp_path / "home"))
    monkeypatch.delenv(ENV_STUDENT, raising=False)
    monkeypatch.delenv("BERTEDU_LANG", raising=False)
    quiz.set_language(None)
    _stores.clear()
    yield tmp_path / "home"
    _stores.clear()


def _restart() -> None:
    """A kernel restart, as far as the quiz knows: its cached stores are gone, the files stay."""
    _stores.clear()


# ------------------------------------------------------------------------------------- the bank files
def upper_tail(probabilities: list[float], observed: int) -> float:
    """P(X >= observed) for X a sum of independent Bernoulli(p_i) (a Poisson-binomial), exactly."""
    dist = [1.0]
    for p in probabilities:
        dist = [
            (dist[k] if k < len(dist) else 0.0) * (1 - p) + (dist[k - 1] * p if k else 0.0)
            for k in range(len(dist) + 1)
        ]
    return sum(dist[observed:])


def first_option_tail(questions) -> float:
    """How likely a bank order blind to the answer puts a correct option first as often as ``questions`` do.

    Under such an order the first option of a question is correct with probability (correct / options)."""
    probabilities = [len(q.correct_indices) / len(q.options) for q in questions]
    observed = sum(q.options[0].correct for q in questions)
    return upper_tail(probabilities, observed)


def test_the_tail_bound_is_right_and_catches_answer_first_banks():
    assert upper_tail([0.5] * 4, 3) == pytest.approx(5 / 16)  # 4 fair coins, 3 or more heads
    assert upper_tail([0.25, 0.5], 0) == pytest.approx(1.0)
    old_habit = bank_from_data(  # the banks as they were: a correct option first in 105 of 106 questions
        {
            "notebook": "99_answer_first",
            "title": {"en": "Answer first", "zh": "答案在前"},
            "questions": [
                {
                    "id": f"q{k}",
                    "type": q.type,
                    "prompt": dict(q.prompt),
                    "options": [
                        {
                            "id": o.id,
                            "text": dict(o.text),
                            "correct": o.correct,
                            "explanation": dict(o.explanation),
                        }
                        for o in sorted(q.options, key=lambda o: not o.correct)
                    ],
                }
                for k, q in enumerate(CHOICE)
            ],
        },
        "99_answer_first.yaml",
    ).questions
    assert first_option_tail(old_habit) < 1e-9


@pytest.mark.parametrize("kind", ["single", "multiple", "both"])
def test_banks_do_not_put_a_correct_option_first_more_often_than_chance(kind):
    questions = [q for q in CHOICE if kind == "both" or q.type == kind]
    assert len(questions) > 20
    tail = first_option_tail(questions)
    first = sum(q.options[0].correct for q in questions)
    assert tail > 0.001, (
        f"{first} of {len(questions)} {kind} questions list a correct option first (p = {tail:.2g})"
    )


def test_every_shipped_option_has_its_own_id():
    """Ids are written in every bank file, not left to their position (which changes when options move)."""
    for path in bank_files():
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for q in data.get("questions") or []:
            ids = [o.get("id") for o in q.get("options") or []]
            assert all(ids), f"{path.name}: question {q['id']!r} has an option without an id"
            assert len(set(ids)) == len(ids)


def test_the_reorder_tool_changes_nothing_any_more():
    """tools/shuffle_bank_options.py is idempotent: the shipped banks are already what it makes."""

    import shuffle_bank_options

    for path in bank_files():
        text = path.read_text(encoding="utf-8")
        assert shuffle_bank_options.rewrite(text, path.stem) == text, path.name


# ------------------------------------------------------------------------------------ order per student
def test_two_students_see_different_orders_and_each_a_stable_one():
    alice = [option_order(q, "alice") for q in CHOICE]
    bob = [option_order(q, "bob") for q in CHOICE]
    assert alice == [option_order(q, "alice") for q in CHOICE]  # a second look: the same
    for order, q in zip(alice, CHOICE):
        assert sorted(order) == list(range(len(q.options)))  # a permutation of the options
    differ = sum(a != b for a, b in zip(alice, bob))
    assert differ > len(CHOICE) / 2, f"only {differ} of {len(CHOICE)} questions differ between two students"
    students = {option_order(CHOICE[0], f"student-{k}") for k in range(40)}
    assert len(students) > 5  # many students, many orders


def test_one_students_order_differs_between_questions():
    """The question is part of the key: one student's order changes from question to question. (With the key
    student/notebook/option alone, as 73 of 74 single-choice questions have the right option's id `a`, a student
    would see the answer at one place in every question of a notebook: "always pick the third" again.)"""
    q = next(q for q in CHOICE if q.type == "single" and len(q.options) == 4)
    orders = {option_order(dataclasses.replace(q, id=f"q{k}"), "alice") for k in range(20)}
    assert len(orders) > 5, orders
    right = q.options.index(next(o for o in q.options if o.correct))
    places = {option_order(dataclasses.replace(q, id=f"q{k}"), "alice").index(right) for k in range(20)}
    assert len(places) == 4, f"the right option is always shown at place {places}"


SHARED_TABLE = json.loads((ROOT / "web" / "quiz" / "shuffle_cases.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", SHARED_TABLE, ids=[f"{c['student']}-{c['question']}" for c in SHARED_TABLE])
def test_the_shared_table_of_orders_python_side(case):
    """web/quiz/shuffle_cases.json: (student, notebook, question, option ids) -> order. web/quiz/shuffle.test.mjs
    checks the same rows in JavaScript, so a web page and a notebook show a student the same order."""
    template = next(q for q in CHOICE if q.type == "single")
    options = tuple(dataclasses.replace(template.options[0], id=i) for i in case["options"])
    question = dataclasses.replace(template, notebook=case["notebook"], id=case["question"], options=options)
    assert list(option_order(question, case["student"])) == case["order"]


def test_the_shared_table_covers_several_students_and_questions():
    assert len({c["student"] for c in SHARED_TABLE}) >= 3 and len({c["question"] for c in SHARED_TABLE}) >= 10
    alice = {tuple(c["order"]) for c in SHARED_TABLE if c["student"] == "alice" and len(c["options"]) == 4}
    assert len(alice) > 3  # one student, many orders


def test_a_student_keeps_their_id_and_their_order_across_restarts(home, monkeypatch):
    first = student_id()
    assert (home / "student-id").read_text(encoding="utf-8").strip() == first
    w = quiz.ask(WELCOME, "show-solution")
    shown = [label for label, _ in w.options_box.options]
    m = quiz.ask(WELCOME, "set-seed")
    boxes = [box.description for box in m.options_box.children]
    _restart()
    assert student_id() == first
    again = quiz.ask(WELCOME, "show-solution")
    assert [label for label, _ in again.options_box.options] == shown
    assert [box.description for box in quiz.ask(WELCOME, "set-seed").options_box.children] == boxes
    assert list(again.order) == [value for _, value in again.options_box.options]

    monkeypatch.setenv("BERTEDU_HOME", str(home.parent / "another-student"))  # another student's machine
    _restart()
    assert student_id() != first
    orders = [question_widget(q).order for q in load_all()[0].questions if q.options]
    mine = [option_order(q, first) for q in load_all()[0].questions if q.options]
    assert orders != mine


def test_the_environment_can_name_the_student_and_an_unwritable_home_still_gives_a_stable_id(
    home, monkeypatch, tmp_path
):
    monkeypatch.setenv(ENV_STUDENT, "hub-user-7")
    assert student_id() == "hub-user-7"
    q = CHOICE[0]
    assert question_widget(q, record=False).order == option_order(q, "hub-user-7")
    monkeypatch.delenv(ENV_STUDENT)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("BERTEDU_HOME", str(blocker / "home"))  # cannot be created
    assert student_id() == student_id() and student_id().startswith("user-")


def test_saved_notebook_output_does_not_depend_on_the_student(home, monkeypatch):
    """The static fallback (text/plain, text/html: what nbval compares) lists options in bank order."""
    outputs = []
    for name in ("alice", "bob"):
        monkeypatch.setenv(ENV_STUDENT, name)
        section = quiz.ask(WELCOME)
        bundle = section._repr_mimebundle_()
        outputs.append((bundle["text/plain"], bundle["text/html"]))
        assert [w.order for w in section.questions if w.question.options] != []
    assert outputs[0] == outputs[1]
    q = quiz.load_bank(WELCOME).question("show-solution")
    text = outputs[0][0]
    positions = [text.index(o.text["en"][:30]) for o in q.options]
    assert positions == sorted(positions)


# ------------------------------------------------------------------------------------ identity, not place
def test_grading_takes_option_ids_or_bank_indices():
    q = quiz.load_bank(WELCOME).question("set-seed")
    by_index = grade(q, [q.option_index("a"), q.option_index("c")])
    by_id = grade(q, ["a", "c"])
    assert by_id == by_index and by_id.score == 0.0
    assert {o.id for o in by_id.options if o.verdict == "wrong"} == {"c"}
    assert grade(q, ["a", "b", "d"]).is_correct
    with pytest.raises(ValueError, match="no option 'z'"):
        grade(q, ["a", "z"])


def test_multiple_choice_explains_its_partial_credit(home):
    m = quiz.ask(WELCOME, "set-seed")
    assert "-1 for each wrong one" in m.scoring.value and "(3)" in m.scoring.value
    for option_id in ("a", "c"):  # one right, one wrong: 0 %
        m.checkboxes[m.question.option_index(option_id)].value = True
    m.submit.click()
    assert "score 0%" in m.feedback.value and "-1 for each wrong one" in m.feedback.value
    assert "-1 for each wrong one" in str(m.result)
    m.language.value = "zh"
    assert "每勾选一个错误选项 -1" in m.feedback.value
    s = quiz.ask(WELCOME, "show-solution")
    assert (
        "-1" not in s.scoring.value and "Tick one option" in s.scoring.value
    )  # a single choice says how to pick


def test_progress_saved_with_positions_before_the_change_still_loads(home):
    """A progress file of the old layout: answers are positions in the banks' old order (a, b, c ...)."""
    home.mkdir(parents=True)
    old = {
        "version": 1,
        "notebooks": {
            WELCOME: {
                "questions": {
                    "show-solution": {
                        "attempts": 2,
                        "first": 0.0,
                        "best": 1.0,
                        "last": 1.0,
                        "answers": [{"answer": [0], "score": 0.0}, {"answer": [1], "score": 1.0}],
                    },
                    "set-seed": {
                        "attempts": 1,
                        "first": 1.0,
                        "best": 1.0,
                        "last": 1.0,
                        "answers": [{"answer": [0, 1, 3], "score": 1.0}],
                    },
                }
            }
        },
    }
    (home / "progress.json").write_text(json.dumps(old), encoding="utf-8")
    assert option_ids([0, 1, 3]) == ["a", "b", "d"] and legacy_option_id(27) == "option-28"
    s = quiz.ask(WELCOME, "show-solution")
    assert "best score 1/1 · 2 attempts" in s.saved.value
    assert s.question.options[s.options_box.value].id == "b"  # the old position 1, wherever it is now
    assert s.check().is_correct
    m = quiz.ask(WELCOME, "set-seed")
    assert {m.question.options[i].id for i, box in enumerate(m.checkboxes) if box.value} == {"a", "b", "d"}
    assert m.check().is_correct
    saved = ProgressStore().question(WELCOME, "show-solution")["answers"]
    assert [a["answer"] for a in saved] == [[0], [1], ["b"]]  # old records kept, the new one by id


def test_the_report_counts_options_by_identity(home, monkeypatch, tmp_path):
    """Two students who saw the options in different places, and an old export with positions, chose the same
    wrong option: the report counts it three times, once per student."""
    q = quiz.load_bank(WELCOME).question("show-solution")
    folder = tmp_path / "exports"
    places = []
    for name in ("ann", "ben"):
        monkeypatch.setenv(ENV_STUDENT, name)
        monkeypatch.setenv("BERTEDU_HOME", str(tmp_path / name))
        _restart()
        w = quiz.ask(WELCOME, "show-solution")
        shown = [value for _, value in w.options_box.options]
        places.append(shown.index(q.option_index("a")))
        w.options_box.value = q.option_index("a")  # "At any time": wrong
        w.submit.click()
        if name == "ben":  # ... then right
            w.options_box.value = q.option_index("b")
            w.submit.click()
        quiz.export_progress(folder / f"{name}.json")
    old = ProgressStore(tmp_path / "cid" / "progress.json")
    old.record_attempt(WELCOME, "show-solution", 0.0, answer=[0])  # position 0 of the old order: option a
    old.export(folder / "cid.json")
    _restart()
    exports, skipped = report.read_exports(folder)
    assert skipped == [] and len(exports) == 3
    rows, _ = report.class_report(exports)
    (row,) = [r for r in rows if r.question_id == "show-solution"]
    assert row.wrong_answer == "option a: “At any time: the button works even before you pick an option”"
    assert row.wrong_answer_students == 3
    assert len(places) == 2  # (where each saw it is their own business; the count does not depend on it)
