"""The quiz without a kernel: web/quiz/grader.js grades like bertedu/teaching/quiz/core.py.

One table of cases, ``web/quiz/grading_cases.json`` (question, answer, expected verdict and score), is run here
through the Python grader and, by ``node --test``, through the JavaScript one (``web/quiz/grader.test.mjs``). The
integration tests also compare the two graders directly through ``web/quiz/cli.mjs``: every feedback line of every
case in both languages, case folding on every assigned code point, and thousands of generated typed numbers and
texts; and every question of every real bank (exported by ``tools/export_banks.py``).
"""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from bertedu.language import UI
from bertedu.teaching.quiz.banks import bank_from_data, load_all
from bertedu.teaching.quiz.core import (
    correct_answer,
    format_number,
    grade,
    normalize_text,
    parse_number,
    solution_lines,
)
from bertedu.teaching.quiz.render import markdown_to_html
from bertedu.teaching.quiz.report import class_report, read_exports

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "web" / "quiz"
CASES = json.loads((WEB / "grading_cases.json").read_text(encoding="utf-8"))
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(
    NODE is None, reason="node is not installed: the JavaScript grader cannot run"
)


def T(en: str) -> dict[str, str]:
    return {"en": en, "zh": f"中文：{en}"}


def complete(qid: str, spec: dict) -> dict:
    """A case's question with the texts a bank requires (the cases leave them out)."""
    q = {"id": qid, "prompt": T(f"Question {qid}"), **spec}
    if q["type"] == "fill":
        q.setdefault("explanation", T(f"Why {qid}"))
    q["options"] = [
        {"text": T(f"Option {k}"), "explanation": T(f"Because {k}"), **o}
        for k, o in enumerate(q.get("options", []))
    ]
    if not q["options"]:
        del q["options"]
    return q


BANK_DATA = {
    "notebook": "99_web_cases",
    "title": T("Shared grading cases"),
    "questions": [complete(qid, spec) for qid, spec in CASES["questions"].items()],
}
BANK = bank_from_data(BANK_DATA, "99_web_cases.yaml")
QUESTIONS = {q["id"]: q for q in BANK_DATA["questions"]}


def check_case(case: dict, outcome: dict) -> list[str]:
    """What differs between a case's expectation and a grader's outcome (answered, correct, score, ...)."""
    expect = case["expect"]
    problems = []
    if expect.get("error"):
        return [] if outcome.get("error") else [f"expected an error, got {outcome}"]
    if outcome.get("error"):
        return [f"unexpected error {outcome['error']}"]
    for key in ("answered", "correct", "percent", "options", "blanks"):
        if key in expect and expect[key] != outcome[key]:
            problems.append(f"{key}: expected {expect[key]!r}, got {outcome[key]!r}")
    if not math.isclose(expect["score"], outcome["score"], abs_tol=1e-12):
        problems.append(f"score: expected {expect['score']!r}, got {outcome['score']!r}")
    return problems


def python_outcome(case: dict) -> dict:
    q = BANK.question(case["question"])
    try:
        r = grade(q, case["answer"], language="en")
    except ValueError as err:
        return {"error": str(err)}
    return {
        "answered": r.answered,
        "correct": r.is_correct,
        "score": r.score,
        "percent": round(r.score * 100),
        "options": [o.verdict for o in r.options],
        "blanks": [[b.correct, b.readable] for b in r.blanks],
    }


def test_case_table_is_well_formed():
    names = [c["name"] for c in CASES["cases"]]
    assert len(names) == len(set(names)), "two cases have the same name"
    assert {c["question"] for c in CASES["cases"]} == set(CASES["questions"]), (
        "a question has no case, or a case no question"
    )
    kinds = {c["expect"].get("error", False) for c in CASES["cases"]} | {
        c["expect"].get("correct") for c in CASES["cases"]
    }
    assert {True, False} <= kinds, "the table needs right, wrong and error cases"


@pytest.mark.parametrize("case", CASES["cases"], ids=[c["name"] for c in CASES["cases"]])
def test_python_grader_passes_the_shared_table(case):
    problems = check_case(case, python_outcome(case))
    assert not problems, f"{case['name']}: " + "; ".join(problems)


def test_check_case_fails_on_a_wrong_outcome():
    """The comparison itself can fail: a flipped verdict, a changed score or a missing error is reported."""
    case = next(c for c in CASES["cases"] if c["expect"].get("percent") == 67)
    good = python_outcome(case)
    assert check_case(case, good) == []
    assert check_case(case, {**good, "correct": not good["correct"]})
    assert check_case(case, {**good, "score": good["score"] + 0.01})
    assert check_case(case, {**good, "percent": 66})
    error_case = next(c for c in CASES["cases"] if c["expect"].get("error"))
    assert check_case(error_case, good)


# ------------------------------------------------------------------------------------- JavaScript side


def run_node(request: dict) -> dict:
    """Send ``request`` to web/quiz/cli.mjs and return its reply."""
    done = subprocess.run(
        [NODE, str(WEB / "cli.mjs")],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def js_outcome(reply: dict) -> dict:
    if reply["error"]:
        return {"error": reply["error"]}
    r = reply["result"]
    return {
        "answered": r["answered"],
        "correct": r["isCorrect"],
        "score": r["score"],
        "percent": r["percent"],
        "options": [o["verdict"] for o in r["options"]],
        "blanks": [[b["correct"], b["readable"]] for b in r["blanks"]],
    }


@pytest.mark.integration
@needs_node
def test_node_test_runner_passes_the_javascript_tests():
    """``node --test`` on web/quiz: the shared table, the progress store and the renderer's pure parts."""
    tests = sorted(str(p) for p in WEB.glob("*.test.mjs"))
    assert tests, "no web/quiz/*.test.mjs found"
    done = subprocess.run([NODE, "--test", *tests], capture_output=True, text=True, timeout=120, check=False)
    failing = [line for line in done.stdout.splitlines() if line.lstrip().startswith("not ok")]
    assert done.returncode == 0, "\n".join(failing) + "\n" + done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# pass 0" not in done.stdout, done.stdout[-2000:]


@pytest.mark.integration
@needs_node
def test_javascript_feedback_equals_python_in_both_languages():
    """Verdicts and every feedback line (Python's ``str(Result)``), solutions and correct answers, en and zh."""
    jobs, expected = [], []
    for case in CASES["cases"]:
        for lang in ("en", "zh"):
            jobs.append({"question": QUESTIONS[case["question"]], "answer": case["answer"], "lang": lang})
            try:
                expected.append(
                    str(grade(BANK.question(case["question"]), case["answer"], language=lang)).split("\n")
                )
            except ValueError:
                expected.append(None)
    solutions = [{"question": q, "lang": lang} for q in QUESTIONS.values() for lang in ("en", "zh")]
    reply = run_node({"ui": UI, "grade": jobs, "solution": solutions, "correct": list(QUESTIONS.values())})
    for case, out in zip(CASES["cases"], reply["grade"][::2]):
        problems = check_case(case, js_outcome(out))
        assert not problems, f"JavaScript, {case['name']}: " + "; ".join(problems)
    for job, want, out in zip(jobs, expected, reply["grade"]):
        assert (out["lines"] if out["error"] is None else None) == want, (job, out)
    want_solutions = [
        [list(row) for row in solution_lines(BANK.question(s["question"]["id"]), s["lang"])]
        for s in solutions
    ]
    assert reply["solution"] == want_solutions
    want_correct = [correct_answer(BANK.question(qid)) for qid in QUESTIONS]
    assert reply["correct"] == [list(a) if isinstance(a, tuple) else a for a in want_correct]


def _number_like(rng: random.Random) -> str:
    parts = [
        rng.choice(["", "", "+", "-", "≈", "~", "－", " "]),
        rng.choice(["0", "1", "12", "123", "1234", "٣", "１２"]),
    ]
    if rng.random() < 0.4:
        parts.append(
            rng.choice([",000", " 000", "_000", "'000", ",5", ".5", ".", "..5", ".000,", "\u00a0000"])
        )
    if rng.random() < 0.3:
        parts.append(rng.choice(["e3", "E-2", "e+1"]))
    if rng.random() < 0.2:
        parts.append("/" + rng.choice(["4", "0", "2.5", "3%"]))
    if rng.random() < 0.5:
        parts.append(
            rng.choice(
                [
                    "%",
                    " %",
                    "k",
                    "K",
                    "M",
                    "b",
                    "万",
                    "亿",
                    " million",
                    "thousand",
                    "百万",
                    "千",
                    "％",
                    ".",
                    "。",
                ]
            )
        )
    return "".join(parts)


@pytest.mark.integration
@needs_node
def test_javascript_normalisation_equals_python_everywhere():
    """Case folding and text normalisation of every assigned code point; numbers and texts from a seeded generator."""
    rng = random.Random(0)
    chars = [chr(i) for i in range(sys.maxunicode + 1) if unicodedata.category(chr(i)) not in ("Cn", "Cs")]
    pool = list(
        "0123456789.,-+/%eEkKmMbB万亿百千 \t\n'_≈~ＡＢ１２％．，　٣—–−‐\u00a0\x1c\x85\ufeffabcxyz[]#“”。!?ßΣςİ"
    )
    texts = ["".join(rng.choice(pool) for _ in range(rng.randint(0, 8))) for _ in range(5000)]
    numbers = [_number_like(rng) for _ in range(5000)] + texts
    units = [None, "%", "M", "k", "万", " % "]
    parse = [[s, rng.choice(units)] for s in numbers]
    normalize = [[s, rng.random() < 0.3] for s in texts] + [[c, False] for c in chars[::3]]
    values = [
        0.24,
        1e-5,
        123456.789,
        1 / 3,
        2e15,
        -0.5,
        0.1 + 0.2,
        1e21,
        0.0001,
        0.00012345678,
        12345678901.5,
        5,
    ]
    reply = run_node({"casefold": chars, "normalize": normalize, "parse": parse, "format": values})
    bad = [(hex(ord(c)), c.casefold(), js) for c, js in zip(chars, reply["casefold"]) if c.casefold() != js]
    assert not bad, f"{len(bad)} code points fold differently, e.g. {bad[:5]}"
    bad = [
        (s, cs, js)
        for (s, cs), js in zip(normalize, reply["normalize"])
        if normalize_text(s, case_sensitive=cs) != js
    ]
    assert not bad, f"{len(bad)} texts normalise differently, e.g. {bad[:5]}"
    bad = [(s, u, js) for (s, u), js in zip(parse, reply["parse"]) if parse_number(s, u) != js]
    assert not bad, f"{len(bad)} typed numbers read differently, e.g. {bad[:5]}"
    assert sum(js is not None for js in reply["parse"]) > 2000, (
        "the generator should make mostly readable numbers"
    )
    assert reply["format"] == [format_number(x) for x in values]


@pytest.mark.integration
@needs_node
def test_every_bank_question_grades_alike_after_export(tmp_path):
    """Export the real banks, then grade each question in JavaScript: its correct answer, each option alone, and
    each accepted text typed in capitals with a full stop; equal to Python's verdicts and feedback."""
    import export_banks  # tools/ is on pytest's path (pyproject.toml)

    export_banks.main(["--out", str(tmp_path)])
    banks = load_all()
    exported = {
        p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (tmp_path / "banks").glob("*.json")
    }
    assert set(exported) == {b.notebook for b in banks}
    jobs, want = [], []
    for bank in banks:
        for q, data in zip(bank.questions, exported[bank.notebook]["questions"]):
            answers = [correct_answer(q)]
            answers += [i if q.type == "single" else [i] for i in range(len(q.options))]
            if q.type == "fill":
                answers.append([f"{b.answers[-1].upper()}." if b.kind == "text" else "0" for b in q.blanks])
            for answer in answers:
                answer = list(answer) if isinstance(answer, tuple) else answer
                for lang in ("en", "zh"):
                    jobs.append({"question": data, "answer": answer, "lang": lang})
                    want.append(str(grade(q, answer, language=lang)).split("\n"))
    reply = run_node(
        {"ui": json.loads((tmp_path / "ui.json").read_text(encoding="utf-8"))["ui"], "grade": jobs}
    )
    assert len(jobs) > 500
    for job, expected, out in zip(jobs, want, reply["grade"]):
        assert out["error"] is None and out["lines"] == expected, (job["question"]["id"], job["answer"], out)


def _bank_texts() -> list[str]:
    """Every text of every bank, in both languages."""
    texts = []

    def add(value):
        if (
            isinstance(value, dict)
            and set(value) == {"en", "zh"}
            and all(isinstance(v, str) for v in value.values())
        ):
            texts.extend(value.values())
        elif isinstance(value, dict):
            for v in value.values():
                add(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                add(v)

    import export_banks  # tools/ is on pytest's path (pyproject.toml)

    for bank in load_all():
        add(export_banks.bank_json(bank))
    return texts


@pytest.mark.integration
@needs_node
def test_javascript_markdown_equals_python():
    """web/quiz/markdown.js renders every bank text, and generated awkward ones, to Python's HTML."""
    rng = random.Random(0)
    pieces = [
        "*a*",
        "**b**",
        "`c`",
        "$x$",
        "$$y$$",
        "[blank 1]",
        "[ 空 2 ]",
        "- ",
        "\n",
        "\n\n",
        " ",
        "<",
        "&",
        "*",
        "$",
        "\x00",
    ]
    pieces += ["word", "词", "_", "\x85", "\u3000"]
    texts = _bank_texts()
    generated = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(3000)]
    reply = run_node({"markdown": texts + generated})
    assert len(texts) > 1000
    bad = [(s, js) for s, js in zip(texts + generated, reply["markdown"]) if markdown_to_html(s) != js]
    assert not bad, f"{len(bad)} texts render differently, e.g. {bad[:3]}"


@pytest.mark.integration
@needs_node
def test_a_browser_export_is_read_by_the_class_report(tmp_path):
    """Progress recorded by web/quiz/progress.js, exported, is a valid export for bertedu's class report."""
    bank = load_all()[0]
    single = next(q for q in bank.questions if q.type == "single")
    wrong = next(o.id for o in single.options if not o.correct)  # the page records options by id
    right = single.options[correct_answer(single)].id
    steps = [
        {"op": "attempt", "notebook": bank.notebook, "id": single.id, "score": 0.0, "answer": [wrong]},
        {"op": "attempt", "notebook": bank.notebook, "id": single.id, "score": 1.0, "answer": [right]},
        {"op": "card", "notebook": bank.notebook, "id": bank.flashcards[0].id, "known": True},
    ]
    (tmp_path / "web-student.json").write_text(run_node({"progress": steps})["progress"], encoding="utf-8")
    exports, skipped = read_exports(tmp_path)
    assert skipped == [] and len(exports) == 1
    rows, _ = class_report(exports)
    (row,) = [r for r in rows if r.question_id == single.id]
    assert (row.students, row.attempts, row.first_try_correct, row.first_try_known) == (1, 2, 0, 1)
    assert row.wrong_answer.startswith(f"option {wrong}:")


@pytest.mark.integration
@needs_node
def test_the_web_page_orders_every_question_as_the_notebook_does():
    """web/quiz/shuffle.js gives each student the order Python's option_order gives, on every choice question of
    every bank, for students whose ids look like the file's token, a hub user name and an e-mail address."""
    from bertedu.teaching.quiz.shuffle import option_order

    students = ["0f3c9a5e2b7d4c1a8e6f0b2d4c6a8e1f", "alice", "bob.smith@example.org"]
    questions = [q for b in load_all() for q in b.questions if q.options]
    jobs = [[s, q.notebook, q.id, [o.id for o in q.options]] for s in students for q in questions]
    want = [list(option_order(q, s)) for s in students for q in questions]
    reply = run_node({"order": jobs})
    assert len(jobs) > 200
    assert reply["order"] == want, next(j for j, a, b in zip(jobs, reply["order"], want) if a != b)


@pytest.mark.integration
@needs_node
def test_a_web_export_with_the_students_id_counts_once_in_the_class_report(tmp_path):
    """The page's export carries the browser's student id; exported again later (more progress, a new file
    name), the class report counts that student once, by the newer export."""
    bank = load_all()[0]
    single = next(q for q in bank.questions if q.type == "single")
    step = {
        "op": "attempt",
        "notebook": bank.notebook,
        "id": single.id,
        "score": 0.0,
        "answer": [single.options[0].id],
    }
    student = "0f3c9a5e2b7d4c1a8e6f0b2d4c6a8e1f"
    monday = json.loads(run_node({"progress": [step], "student": student})["progress"])
    friday = json.loads(
        run_node({"progress": [step, {**step, "score": 1.0}], "student": student})["progress"]
    )
    assert monday["student"] == friday["student"] == student
    monday["exported"], friday["exported"] = "2026-12-07T09:00:00", "2026-12-11T09:00:00"
    (tmp_path / "bertedu-progress-monday.json").write_text(json.dumps(monday), encoding="utf-8")
    (tmp_path / "bertedu-progress-friday.json").write_text(json.dumps(friday), encoding="utf-8")
    exports, skipped = read_exports(tmp_path)
    assert [e.path.name for e in exports] == ["bertedu-progress-friday.json"]
    assert len(skipped) == 1 and "same student" in skipped[0] and "monday" in skipped[0], skipped
    rows, _ = class_report(exports)
    (row,) = [r for r in rows if r.question_id == single.id]
    assert (row.students, row.attempts) == (1, 2)
