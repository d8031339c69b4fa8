"""The class report: which quiz questions a class finds hardest, which wrong answer it picks most, and how
far each student has got.

Students export their progress in a notebook (``quiz.export_progress("alice.json")``, shown in notebook
00) and hand the file in. The instructor collects the exports in one folder and runs::

    python -m bertedu.teaching.quiz.report EXPORTS_FOLDER --out REPORT_FOLDER

which writes five files to ``REPORT_FOLDER``:

- ``class_report.csv``: one row per question that at least one student answered, hardest first (lowest
  first-try success, then most attempts per student), with the notebook, the question id and its English
  prompt, how many students attempted it, their attempts, the first-try success rate, the most chosen wrong
  answer with its text (for a fill-in question, the most common wrong entry of a blank) and how many students
  chose it, and for multiple-choice questions the correct option most often left unticked and by how many;
- ``class_students.csv``: one row per student (the export's file name without ``.json``) and notebook: the
  notebook's questions, how many the student answered (completion), and their first-try score (the mean
  score of their first attempts, partial credit included, over the questions whose first try is known);
- ``class_report.md``: the question table, then completion per notebook (the class) and per student;
- ``first_try_success.png``: a bar chart of the first-try success per question;
- ``completion_per_student.png``: a students × notebooks grid of completion, each cell also giving the
  first-try score (matplotlib, drawn without a display).

Options are counted by their id (:class:`bertedu.teaching.quiz.banks.Option`), never by the place a student
saw them in, and named ``option c: “text”`` (``c`` is the option's id in the bank file). Exports saved before
options had ids hold positions in the old bank order; they are read as those ids
(:func:`bertedu.teaching.quiz.store.option_ids`).

Every file of the folder is tried. A file that is not a bertedu export (not JSON, another JSON schema, an
export of another version, an empty or damaged file, or the same export handed in twice) is skipped with
a one-line message. A student counts once: by the id inside the export (``"student"``, written by
``quiz.export_progress`` and by the web pages, whose exports are named ``bertedu-progress-<id>.json``), of which
the newest export counts, and by content (the same progress exported twice, at two times, counts once). The command exits with 0 when at least one export was read and 2 when none was.

Exports written before answers were recorded still count for students, attempts and (mostly) first-try
success; only the wrong-answer column needs the newer exports. An instructor's tool, not used in a
notebook (the instructor guide explains where it fits).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bertedu.files import atomic_write, atomic_write_text
from bertedu.teaching.quiz.banks import Question, bank_names, load_bank
from bertedu.teaching.quiz.core import blank_title, format_number, grade_blank, normalize_text, parse_number
from bertedu.teaching.quiz.render import plain_text
from bertedu.teaching.quiz.shuffle import STUDENT_TOKEN
from bertedu.teaching.quiz.store import VERSION, data_problem, option_ids

CSV_NAME = "class_report.csv"
STUDENTS_CSV_NAME = "class_students.csv"
MARKDOWN_NAME = "class_report.md"
PLOT_NAME = "first_try_success.png"
STUDENTS_PLOT_NAME = "completion_per_student.png"
PROMPT_CHARS = 90  # the English prompt is shortened to this many characters in the table
COLUMNS = (
    "rank",
    "notebook",
    "question_id",
    "type",
    "students",
    "attempts",
    "attempts_per_student",
    "first_try_correct",
    "first_try_known",
    "first_try_success",
    "most_chosen_wrong_answer",
    "chosen_by_students",
    "most_missed_correct_option",
    "missed_by_students",
    "question",
)
STUDENT_COLUMNS = (
    "student",
    "notebook",
    "questions",
    "answered",
    "completion",
    "first_try_known",
    "first_try_correct",
    "first_try_score",
)


@dataclass(frozen=True)
class Export:
    """One student's export, as read from ``path``."""

    path: Path
    data: dict[str, Any]

    @property
    def student(self) -> str:
        """The student's name in the report: the file name without ``.json``."""
        return self.path.stem

    @property
    def student_id(self) -> str | None:
        """The id inside the export (``"student"``: the notebooks' and the web pages' id of the student, which
        also orders their options), or ``None`` for an export written before exports carried it."""
        return self.data.get("student")


@dataclass(frozen=True)
class QuestionStats:
    """The class's results on one question (one row of the report)."""

    notebook: str
    question_id: str
    kind: str
    question: str  # the English prompt, as plain text, shortened
    students: int  # exports with at least one attempt
    attempts: int  # all attempts of all those students
    first_try_correct: int  # students whose first attempt scored 1
    first_try_known: int  # students whose first attempt's score is known (old exports may not say)
    wrong_answer: str  # the most chosen wrong answer, with its text ("" when none was recorded)
    wrong_answer_students: int  # how many students chose it at least once
    missed_option: str = ""  # multiple choice: the correct option most often left unticked, with its text
    missed_option_students: int = 0  # how many students left it unticked at least once

    @property
    def first_try_rate(self) -> float | None:
        """first_try_correct / first_try_known, or ``None`` when no first try is known."""
        return self.first_try_correct / self.first_try_known if self.first_try_known else None

    @property
    def attempts_per_student(self) -> float:
        return self.attempts / self.students


# --------------------------------------------------------------------------------------------- reading


def read_export(path: Path) -> tuple[Export | None, str | None]:
    """``(Export, None)``, or ``(None, why it was skipped)`` for anything that is not a valid export."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        return None, f"cannot be read ({err.strerror or err})"
    if not raw.strip():
        return None, "empty file"
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return None, "not a text file, so not a bertedu progress export"
    except (ValueError, RecursionError) as err:
        return None, f"not JSON ({str(err).splitlines()[0][:80]})"
    if not (isinstance(data, dict) and "version" in data and "notebooks" in data):
        return None, "JSON, but not a bertedu progress export (it has no 'version' and 'notebooks')"
    if data["version"] != VERSION:
        return None, f"a progress export of version {data['version']!r}; this bertedu reads version {VERSION}"
    problem = data_problem(data)
    if problem:
        return None, f"damaged progress export ({problem})"
    if "student" in data and not (isinstance(data["student"], str) and STUDENT_TOKEN.match(data["student"])):
        return None, f"damaged progress export ('student' must be a student id, got {data['student']!r})"
    return Export(path, data), None


def read_exports(folder: str | Path) -> tuple[list[Export], list[str]]:
    """Every valid export in ``folder`` (files in name order; sub-folders are ignored), one per student, and
    one message per skipped file (``"skipped notes.txt: not JSON (...)"``).

    A student counts once: an export with the same progress and student id (or none) as an earlier file, whatever
    its ``exported`` time, is skipped, and of several exports carrying the same student id only the newest
    (``exported`` time) counts."""
    folder = Path(folder)
    exports: list[Export] = []
    skipped: dict[Path, str] = {}
    seen: dict[str, Path] = {}
    paths = sorted(p for p in folder.iterdir() if p.is_file())
    for path in paths:
        export, why = read_export(path)
        if export is not None:
            progress = {k: v for k, v in export.data.items() if k not in ("exported", "student")}
            content = json.dumps([export.student_id, progress], sort_keys=True)  # two ids: two students
            if content in seen:
                export, why = None, f"the same progress as {seen[content].name} (handed in twice?)"
            else:
                seen[content] = path
        if export is None:
            skipped[path] = f"skipped {path.name}: {why}"
        else:
            exports.append(export)
    newest: dict[str, Export] = {}
    for export in exports:  # the newest export of each student id
        kept = newest.get(export.student_id or "")
        if export.student_id and (kept is None or _export_time(export) >= _export_time(kept)):
            newest[export.student_id] = export
    for export in exports:
        kept = newest.get(export.student_id or "")
        if kept is not None and kept is not export:
            skipped[export.path] = (
                f"skipped {export.path.name}: an older export of the same student as {kept.path.name} "
                f"(student id {export.student_id}); the newer one counts"
            )
    return [e for e in exports if e.path not in skipped], [skipped[p] for p in paths if p in skipped]


def _export_time(export: Export) -> tuple[str, str]:
    """When an export was written (its ``exported`` text: local time, ISO order) and its file name, to sort by."""
    exported = export.data.get("exported")
    return (exported if isinstance(exported, str) else "", export.path.name)


# ---------------------------------------------------------------------------------------- statistics


def _first_try(entry: dict[str, Any]) -> bool | None:
    """Whether the student's first attempt scored 1 (``None``: the export does not say)."""
    if "first" in entry:
        return entry["first"] >= 1.0
    answers = entry.get("answers") or []
    if answers and len(answers) == entry["attempts"]:  # the whole history is there
        return answers[0]["score"] >= 1.0
    if entry["attempts"] == 1:
        return entry["best"] >= 1.0
    if entry["best"] < 1.0:  # never right, so not right the first time either
        return False
    return None


def _first_score(entry: dict[str, Any]) -> float | None:
    """The score of the student's first attempt (``None``: the export does not say)."""
    if "first" in entry:
        return float(entry["first"])
    answers = entry.get("answers") or []
    if answers and len(answers) == entry["attempts"]:
        return float(answers[0]["score"])
    if entry["attempts"] == 1:
        return float(entry["best"])
    return None


def _option_label(question: Question, index: int) -> str:
    option = question.options[index]
    return f"option {option.id}: “{plain_text(option.text['en'])}”"


def _picked(question: Question, record: list) -> set[int] | None:
    """The bank positions a stored choice answer picks (ids, or old positions); ``None`` if it does not fit."""
    if not all(isinstance(a, (int, str)) for a in record):
        return None
    ids = question.option_ids
    picks = {ids.index(i) for i in option_ids(record) if i in ids}
    return picks or None


def _wrong_choices(question: Question, answers: Iterable[dict]) -> dict[tuple, str]:
    """The wrong answers one student gave, each once: ``{key: text}``. Keys sort options by id and
    group a blank's typed entries by their value or normalised form ("0,5" and "0.5 " are one answer)."""
    out: dict[tuple, str] = {}
    for item in answers:
        answer = item["answer"]
        if question.type in ("single", "multiple"):
            for i in sorted(_picked(question, answer) or ()):
                if not question.options[i].correct:
                    out[(0, question.options[i].id, "")] = _option_label(question, i)
        elif len(answer) == len(question.blanks) and all(isinstance(a, str) for a in answer):
            for i, (blank, given) in enumerate(zip(question.blanks, answer)):
                if given.strip() and not grade_blank(blank, given)[0]:
                    number = parse_number(given, blank.unit) if blank.kind == "numeric" else None
                    key = (1, i, normalize_text(given) if number is None else format_number(number))
                    out.setdefault(key, f"{blank_title(blank, i, 'en')}: “{given.strip()}”")
    return out


def _missed_options(question: Question, answers: Iterable[dict]) -> set[str]:
    """Multiple choice: the ids of the correct options one student left unticked in at least one answer."""
    if question.type != "multiple":
        return set()
    missed: set[str] = set()
    for item in answers:
        picks = _picked(question, item["answer"])
        if picks is not None:
            missed |= {question.options[i].id for i in set(question.correct_indices) - picks}
    return missed


def _short(text: str, n: int = PROMPT_CHARS) -> str:
    text = " ".join(plain_text(text).split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _known_questions() -> dict[tuple[str, str], Question]:
    return {(name, q.id): q for name in bank_names() for q in load_bank(name).questions}


def _most_common(counter: Counter) -> tuple[Any, int]:
    """The key counted most (ties: the smallest key) and its count; ``(None, 0)`` for an empty counter."""
    return min(counter.items(), key=lambda kv: (-kv[1], kv[0])) if counter else (None, 0)


def _question_stats(key: tuple[str, str], q: Question, entries: list[dict]) -> QuestionStats:
    """One row of the question table from every student's entry for question ``q``."""
    firsts = [_first_try(e) for e in entries]
    wrong: Counter = Counter()
    texts: dict[tuple, str] = {}
    missed: Counter = Counter()
    for e in entries:
        for key_, text in _wrong_choices(q, e.get("answers") or []).items():
            wrong[key_] += 1
            texts.setdefault(key_, text)
        missed.update(_missed_options(q, e.get("answers") or []))
    top_key, top_n = _most_common(wrong)
    missed_id, missed_n = _most_common(missed)
    return QuestionStats(
        notebook=key[0],
        question_id=key[1],
        kind=q.type,
        question=_short(q.prompt["en"]),
        students=len(entries),
        attempts=sum(e["attempts"] for e in entries),
        first_try_correct=sum(f is True for f in firsts),
        first_try_known=sum(f is not None for f in firsts),
        wrong_answer=texts.get(top_key, ""),
        wrong_answer_students=top_n,
        missed_option="" if missed_id is None else _option_label(q, q.option_index(missed_id)),
        missed_option_students=missed_n,
    )


def class_report(exports: Sequence[Export]) -> tuple[list[QuestionStats], list[str]]:
    """One :class:`QuestionStats` per question answered in ``exports``, hardest first, and notes (answers
    to questions that are no longer in the banks are left out and counted in a note)."""
    questions = _known_questions()
    per_question: dict[tuple[str, str], list[dict]] = {}
    unknown: set[tuple[str, str]] = set()
    for export in exports:
        for notebook, nb in export.data["notebooks"].items():
            for qid, entry in nb.get("questions", {}).items():
                key = (notebook, qid)
                if key in questions:
                    per_question.setdefault(key, []).append(entry)
                else:
                    unknown.add(key)
    rows = [_question_stats(key, questions[key], entries) for key, entries in per_question.items()]
    rows.sort(
        key=lambda r: (
            r.first_try_rate is None,
            r.first_try_rate if r.first_try_rate is not None else 0.0,
            -r.attempts_per_student,
            r.notebook,
            r.question_id,
        )
    )
    notes = []
    if unknown:
        notes.append(
            f"left out answers to {len(unknown)} question(s) that are not in today's question banks "
            f"(renamed or removed): {', '.join(sorted(f'{n}/{q}' for n, q in unknown)[:5])}"
            + (" ..." if len(unknown) > 5 else "")
        )
    return rows, notes


@dataclass(frozen=True)
class StudentStats:
    """One student's results on one notebook's questions (one row of ``class_students.csv``)."""

    student: str
    notebook: str
    questions: int  # questions in today's bank
    answered: int  # of those, how many the student answered at least once
    first_try_known: int  # answered questions whose first attempt's score is known
    first_try_correct: int  # ... and scored 1
    first_try_total: float  # the sum of those first scores (partial credit included)

    @property
    def completion(self) -> float:
        return self.answered / self.questions if self.questions else 0.0

    @property
    def first_try_score(self) -> float | None:
        """The mean first-attempt score (0-1), or ``None`` when no first try is known."""
        return self.first_try_total / self.first_try_known if self.first_try_known else None


def student_report(exports: Sequence[Export], notebooks: Sequence[str] | None = None) -> list[StudentStats]:
    """One :class:`StudentStats` per student and notebook (default: every bank), students in name order.

    Only questions in today's banks count; a notebook a student never opened has ``answered == 0``.
    """
    names = list(bank_names() if notebooks is None else notebooks)
    rows = []
    for export in sorted(exports, key=lambda e: e.student):
        for name in names:
            ids = [q.id for q in load_bank(name).questions]
            saved = export.data["notebooks"].get(name, {}).get("questions", {})
            firsts = [_first_score(saved[i]) for i in ids if i in saved]
            known = [f for f in firsts if f is not None]
            rows.append(
                StudentStats(
                    student=export.student,
                    notebook=name,
                    questions=len(ids),
                    answered=len(firsts),
                    first_try_known=len(known),
                    first_try_correct=sum(f >= 1.0 for f in known),
                    first_try_total=sum(known),
                )
            )
    return rows


# ------------------------------------------------------------------------------------------- writing


def _percent(rate: float | None) -> str:
    return "" if rate is None else f"{round(100 * rate)}%"


def _csv_rows(rows: Sequence[QuestionStats]) -> list[list[Any]]:
    return [
        [
            rank,
            r.notebook,
            r.question_id,
            r.kind,
            r.students,
            r.attempts,
            f"{r.attempts_per_student:.2f}",
            r.first_try_correct,
            r.first_try_known,
            "" if r.first_try_rate is None else f"{r.first_try_rate:.3f}",
            r.wrong_answer,
            r.wrong_answer_students,
            r.missed_option,
            r.missed_option_students if r.kind == "multiple" else "",
            r.question,
        ]
        for rank, r in enumerate(rows, 1)
    ]


def to_csv(rows: Sequence[QuestionStats]) -> str:
    """The report as CSV (UTF-8; ``first_try_success`` is a fraction, empty when unknown)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(_csv_rows(rows))
    return buf.getvalue()


def students_csv(students: Sequence[StudentStats]) -> str:
    """Completion and first-try score per student and notebook as CSV (fractions; empty when unknown)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(STUDENT_COLUMNS)
    for s in students:
        score = "" if s.first_try_score is None else f"{s.first_try_score:.3f}"
        writer.writerow(
            [
                s.student,
                s.notebook,
                s.questions,
                s.answered,
                f"{s.completion:.3f}",
                s.first_try_known,
                s.first_try_correct,
                score,
            ]
        )
    return buf.getvalue()


def _started(students: Sequence[StudentStats]) -> list[str]:
    """The notebooks at least one student answered a question of, in bank order."""
    return list(dict.fromkeys(s.notebook for s in students if s.answered))


def _student_cell(s: StudentStats) -> str:
    """``3/4 · 67%``: answered of the notebook's questions, and the mean first-try score."""
    score = "" if s.first_try_score is None else f" · {_percent(s.first_try_score)}"
    return f"{s.answered}/{s.questions}{score}"


def _students_markdown(students: Sequence[StudentStats]) -> list[str]:
    """The Markdown sections on completion: per notebook (the class), then per student."""
    names = list(dict.fromkeys(s.student for s in students))
    lines = [
        "",
        "## Completion per notebook",
        "",
        "Completion: the share of a notebook's questions a student answered at least once. First-try score: "
        "the mean score of first attempts (partial credit counted), over the questions whose first try is known.",
        "",
        "| Notebook | Questions | Students who started | Mean completion | Mean first-try score |",
        "|---|---|---|---|---|",
    ]
    for notebook in dict.fromkeys(s.notebook for s in students):
        rows = [s for s in students if s.notebook == notebook]
        known = sum(s.first_try_known for s in rows)
        first = sum(s.first_try_total for s in rows) / known if known else None
        mean = sum(s.completion for s in rows) / len(rows)
        cells = [
            notebook,
            rows[0].questions,
            sum(s.answered > 0 for s in rows),
            _percent(mean),
            _percent(first),
        ]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    started = _started(students)
    lines += ["", "## Completion per student", ""]
    if not started:
        return lines + ["No student has answered a question yet."]
    lines += [
        "Each cell: questions answered / questions in the notebook · mean first-try score. Notebooks nobody "
        "has started are left out.",
        "",
        "| Student | " + " | ".join(started) + " |",
        "|---" * (len(started) + 1) + "|",
    ]
    by_key = {(s.student, s.notebook): s for s in students}
    for name in names:
        cells = [name] + [_student_cell(by_key[(name, nb)]) for nb in started]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return lines


def _cell(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def to_markdown(
    rows: Sequence[QuestionStats],
    n_exports: int,
    skipped: Sequence[str] = (),
    students: Sequence[StudentStats] = (),
) -> str:
    """The report as a Markdown page: a summary line, the question table (hardest first), completion per
    notebook and per student (when ``students`` are given), the skipped files."""
    lines = [
        "# Class quiz report",
        "",
        f"{n_exports} student export(s) read; {len(rows)} question(s) answered. Hardest first: lowest "
        "first-try success, then most attempts per student. The most chosen wrong answer counts students "
        "who gave it at least once; the most missed correct option (multiple choice) counts students who "
        "left it unticked at least once. Options are named by their id in the bank file.",
        "",
        "| # | Notebook | Question | Students | Attempts | First-try success | Most chosen wrong answer "
        "| Most missed correct option |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for rank, r in enumerate(rows, 1):
        success = _percent(r.first_try_rate)
        if r.first_try_rate is not None:
            success += f" ({r.first_try_correct}/{r.first_try_known})"
        wrong = f"{r.wrong_answer} ({r.wrong_answer_students})" if r.wrong_answer else ""
        missed = f"{r.missed_option} ({r.missed_option_students})" if r.missed_option else ""
        question = f"`{r.question_id}`: {r.question}"
        cells = [rank, r.notebook, question, r.students, r.attempts, success, wrong, missed]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    if students:
        lines += _students_markdown(students)
    if skipped:
        lines += ["", "## Files skipped", ""] + [f"- {_cell(s)}" for s in skipped]
    return "\n".join(lines) + "\n"


def plot_first_try(rows: Sequence[QuestionStats], n_exports: int):
    """A horizontal bar chart of first-try success per question (hardest at the top); a matplotlib Figure.

    Drawn with the Agg canvas directly (no pyplot, no display, the notebook's backend is untouched).
    Questions whose first try is unknown are left out.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    shown = [r for r in rows if r.first_try_rate is not None]
    fig = Figure(figsize=(9, max(2.5, 0.3 * len(shown) + 1.3)), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    labels = [f"{r.notebook} / {r.question_id}" for r in shown]
    rates = [100 * r.first_try_rate for r in shown]
    y = list(range(len(shown)))
    ax.barh(y, rates, color="#4c72b0")
    for yi, rate, r in zip(y, rates, shown):
        ax.text(min(rate + 1, 88), yi, f"{rate:.0f}% of {r.first_try_known}", va="center", fontsize=8)
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()  # hardest first, at the top
    ax.set_xlim(0, 100)
    ax.set_xlabel("students right on the first try (%)")
    ax.set_title(f"First-try success per question ({n_exports} student exports)")
    if not shown:
        ax.text(50, 0, "no first tries recorded", ha="center")
    return fig


def plot_completion(students: Sequence[StudentStats]):
    """A students × notebooks grid: colour = completion, text = answered/questions and the mean first-try
    score; a matplotlib Figure (Agg canvas, no display). Notebooks nobody started are left out."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = list(dict.fromkeys(s.student for s in students))
    started = _started(students)
    by_key = {(s.student, s.notebook): s for s in students}
    grid = [[by_key[(n, nb)].completion * 100 for nb in started] for n in names]
    fig = Figure(
        figsize=(max(5.0, 1.3 * len(started) + 2.5), max(2.5, 0.45 * len(names) + 1.6)), layout="constrained"
    )
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_title(
        f"Quiz completion per student ({len(names)}): answered / questions, first-try score", fontsize=10
    )
    if not started or not names:
        ax.text(0.5, 0.5, "no answers recorded", ha="center", va="center")
        ax.set_axis_off()
        return fig
    image = ax.imshow(grid, cmap="Blues", vmin=0, vmax=100, aspect="auto")
    for i, name in enumerate(names):
        for j, nb in enumerate(started):
            s = by_key[(name, nb)]
            colour = "white" if s.completion > 0.6 else "black"
            ax.text(
                j,
                i,
                _student_cell(s).replace(" · ", "\nfirst try "),
                ha="center",
                va="center",
                fontsize=8,
                color=colour,
            )
    ax.set_xticks(range(len(started)), started, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    fig.colorbar(image, ax=ax, label="questions answered (%)")
    return fig


def _save_png(fig, path: Path) -> None:
    atomic_write(path, lambda p: fig.savefig(p, format="png", dpi=110))


def write_report(
    rows: Sequence[QuestionStats],
    out: str | Path,
    n_exports: int,
    skipped: Sequence[str] = (),
    students: Sequence[StudentStats] = (),
) -> dict[str, Path]:
    """Write the CSV files, the Markdown page and the plots into ``out`` (created if needed); returns their
    paths by kind (``csv``, ``markdown``, ``plot``, and with ``students`` also ``students_csv``,
    ``students_plot``)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"csv": out / CSV_NAME, "markdown": out / MARKDOWN_NAME, "plot": out / PLOT_NAME}
    atomic_write_text(paths["csv"], to_csv(rows))
    atomic_write_text(paths["markdown"], to_markdown(rows, n_exports, skipped, students))
    _save_png(plot_first_try(rows, n_exports), paths["plot"])
    if students:
        paths["students_csv"] = out / STUDENTS_CSV_NAME
        paths["students_plot"] = out / STUDENTS_PLOT_NAME
        atomic_write_text(paths["students_csv"], students_csv(students))
        _save_png(plot_completion(students), paths["students_plot"])
    return paths


# ----------------------------------------------------------------------------------------------- CLI


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bertedu.teaching.quiz.report",
        description="Class report from students' quiz exports (quiz.export_progress): per question, "
        "attempts, first-try success, the most chosen wrong answer and the most missed correct option, "
        "hardest first; completion and first-try score per student and notebook; two plots.",
        epilog="Example: python -m bertedu.teaching.quiz.report exports/ --out report/   "
        "(exit code 0 when at least one export was read, 2 when none was)",
    )
    parser.add_argument("exports", type=Path, help="folder holding the students' exported .json files")
    parser.add_argument("--out", type=Path, required=True, help="folder to write the report into")
    args = parser.parse_args(argv)
    if not args.exports.is_dir():
        print(
            f"error: {args.exports} is not a folder; give the folder that holds the exports.", file=sys.stderr
        )
        return 2
    exports, skipped = read_exports(args.exports)
    for line in skipped:
        print(line, file=sys.stderr)
    if not exports:
        print(
            f"error: no student export could be read from {args.exports}; nothing was written.",
            file=sys.stderr,
        )
        return 2
    rows, notes = class_report(exports)
    for line in notes:
        print(line, file=sys.stderr)
    students = student_report(exports)
    try:
        paths = write_report(rows, args.out, len(exports), skipped, students)
    except OSError as err:
        print(f"error: could not write the report to {args.out}: {err.strerror or err}", file=sys.stderr)
        return 1
    print(
        f"Read {len(exports)} export(s) ({len(skipped)} file(s) skipped): {len(rows)} question(s). "
        f"Wrote {', '.join(str(p) for p in paths.values())}."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
