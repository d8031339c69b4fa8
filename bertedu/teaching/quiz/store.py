"""The student's quiz progress: one JSON file, ``$BERTEDU_HOME/progress.json`` (default ``~/.bertedu``).

What is stored, per notebook: for each question the number of graded attempts, the first, best and last
score (0-1) and what was answered (the last 50 answers: the ids of the chosen options, or the strings
typed into the blanks); for each flashcard whether it was last marked known.

Nothing is lost when several notebooks or processes answer at once: every change takes a lock
(``progress.json.lock``, through :mod:`filelock`, which works on Linux, macOS and Windows), re-reads the
file, applies its own change to what is there now, and writes the file atomically
(:func:`bertedu.files.atomic_write_json`), so a crash never leaves half a file.

A damaged file never blocks the quizzes. The whole file is validated when it is read (types, ranges,
finite numbers). A file that fails is never thrown away: it is renamed
``progress.corrupt-YYYYMMDD-HHMMSS.json`` next to the original, one warning names both paths, and a fresh
file starts. When even that is impossible (a read-only folder), the quizzes still grade and every save
warns with a sentence that says what to do; :class:`ProgressError` carries that sentence.

File layout (``version`` 1)::

    {"version": 1,
     "notebooks": {"03_masking_strategy": {
         "questions": {"select-fraction": {
             "attempts": 2, "first": 0.0, "best": 1.0, "last": 1.0, "updated": "...",
             "answers": [{"answer": ["c"], "score": 0.0, "at": "..."}, {"answer": ["a"], "score": 1.0, "at": "..."}]}},
         "cards": {"mask-80-10-10": {"known": true, "updated": "..."}}}}}

``first`` and ``answers`` were added later: files without them still load (``first`` is then unknown).
A choice answer names options by their bank ``id`` (never by the place a student saw them in). Files
written before options had ids hold whole numbers instead: the options' positions in the banks of that
time, which :func:`option_ids` reads as the ids ``a``, ``b``, ``c`` ... the options were given when the
banks were reordered (:func:`bertedu.teaching.quiz.banks.legacy_option_id`). Both forms load and validate.
An export (:meth:`ProgressStore.export`) has the same layout plus ``"exported": "<time>"`` and, from
``quiz.export_progress``, ``"student": "<id>"`` (:func:`bertedu.teaching.quiz.shuffle.student_id`).

Introduced in notebook 00.
"""

from __future__ import annotations

import copy
import errno
import json
import math
import numbers
import os
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import filelock

from bertedu.files import atomic_write_json
from bertedu.language import pick
from bertedu.teaching.quiz.banks import legacy_option_id

ENV_HOME = "BERTEDU_HOME"
FILE_NAME = "progress.json"
VERSION = 1
LOCK_TIMEOUT = 30.0  # seconds to wait for another process's write (a write takes milliseconds)
MAX_ANSWERS = 50  # answers kept per question (the oldest are dropped; "first" keeps the first score)
MAX_ANSWER_TEXT = 200  # characters kept of one typed answer
MAX_ANSWER_PARTS = 100  # option indices or blanks in one answer

_FIX = (
    "set BERTEDU_HOME to a folder you can write to (for example `export BERTEDU_HOME=$HOME/bertedu-progress` "
    "before starting Jupyter) or fix that folder's permissions"
)


class ProgressError(OSError):
    """Quiz progress could not be read or saved. The message says why, in plain words, and what to do."""


class ProgressWarning(UserWarning):
    """A problem with the progress file that does not stop the quizzes (it was moved aside, or cannot be saved)."""


def home_dir() -> Path:
    """``$BERTEDU_HOME`` if set, else ``~/.bertedu``: where student state lives."""
    env = os.environ.get(ENV_HOME, "").strip()
    return Path(env).expanduser() if env else Path.home() / ".bertedu"


def progress_path() -> Path:
    """Path of the progress file: ``home_dir() / "progress.json"``."""
    return home_dir() / FILE_NAME


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S")


def _empty() -> dict[str, Any]:
    return {"version": VERSION, "notebooks": {}}


def _os_reason(err: OSError) -> str:
    """An OS error in plain words: "the folder is read-only", "the disk is full"."""
    plain = {
        errno.EROFS: "the folder is read-only",
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
        errno.ENOSPC: "the disk is full",
        errno.EDQUOT: "the disk quota is exceeded",
        errno.ENOTDIR: "a part of the path is a file, not a folder",
        errno.EEXIST: "a part of the path is a file, not a folder",
        errno.EISDIR: "it is a folder, not a file",
    }.get(err.errno)
    return plain or err.strerror or str(err)


# ------------------------------------------------------------------------------------------ validation


def _is_score(value: Any) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0.0 <= value <= 1.0
    )


def _answer_problem(answer: Any) -> str | None:
    """What is wrong with one stored answer (a list of option indices or of typed strings), or ``None``."""
    if not isinstance(answer, list) or len(answer) > MAX_ANSWER_PARTS:
        return f"an answer must be a list of at most {MAX_ANSWER_PARTS} items"
    if all(isinstance(a, int) and not isinstance(a, bool) and a >= 0 for a in answer):
        return None
    if all(isinstance(a, str) for a in answer):
        return None
    return "an answer must hold option indices (whole numbers >= 0) or typed strings"


def _entry_problem(entry: Any) -> str | None:
    """What is wrong with one question entry, or ``None``."""
    if not isinstance(entry, dict):
        return "is not an object"
    attempts = entry.get("attempts")
    if not (isinstance(attempts, int) and not isinstance(attempts, bool) and attempts >= 1):
        return f"'attempts' must be a whole number >= 1, got {attempts!r}"
    for key in ("best", "last", "first"):
        if (key in entry or key != "first") and not _is_score(entry.get(key)):
            return f"'{key}' must be a number between 0 and 1, got {entry.get(key)!r}"
    if "updated" in entry and not isinstance(entry["updated"], str):
        return "'updated' must be a string"
    answers = entry.get("answers", [])
    if not isinstance(answers, list):
        return "'answers' must be a list"
    for n, item in enumerate(answers):
        if not isinstance(item, dict):
            return f"answer {n} is not an object"
        problem = _answer_problem(item.get("answer"))
        if problem:
            return f"answer {n}: {problem}"
        if not _is_score(item.get("score")):
            return f"answer {n}: 'score' must be a number between 0 and 1"
        if "at" in item and not isinstance(item["at"], str):
            return f"answer {n}: 'at' must be a string"
    return None


def data_problem(data: Any) -> str | None:
    """What is wrong with parsed progress data (the whole structure is checked), or ``None`` if it is valid.

    Used on the progress file and on exports (:mod:`bertedu.teaching.quiz.report`).
    """
    if not isinstance(data, dict):
        return "the top level is not a JSON object"
    if data.get("version") != VERSION:
        return f"unknown version {data.get('version')!r} (this bertedu reads version {VERSION})"
    notebooks = data.get("notebooks")
    if not isinstance(notebooks, dict):
        return "'notebooks' is not an object"
    for name, nb in notebooks.items():
        if not isinstance(nb, dict):
            return f"notebook {name!r} is not an object"
        questions = nb.get("questions", {})
        if not isinstance(questions, dict):
            return f"'questions' of notebook {name!r} is not an object"
        for qid, entry in questions.items():
            found = _entry_problem(entry)
            if found:
                return f"question {name}/{qid}: {found}"
        cards = nb.get("cards", {})
        if not isinstance(cards, dict):
            return f"'cards' of notebook {name!r} is not an object"
        for cid, entry in cards.items():
            if not (isinstance(entry, dict) and isinstance(entry.get("known"), bool)):
                return f"card {name}/{cid}: 'known' must be true or false"
            if "updated" in entry and not isinstance(entry["updated"], str):
                return f"card {name}/{cid}: 'updated' must be a string"
    return None


def parse(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """Parse and validate the bytes of a progress file: ``(data, None)`` or ``(None, what is wrong)``.

    Never raises on bad content: invalid UTF-8 or JSON, nesting too deep for Python, numbers too long to
    read and every shape error become the message.
    """
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as err:
        return None, f"not UTF-8 text ({err.reason} at byte {err.start})"
    except RecursionError:
        return None, "nested too deeply to read"
    except ValueError as err:  # json.JSONDecodeError, or an integer with thousands of digits
        return None, f"not valid JSON ({err})"
    found = data_problem(data)
    return (data, None) if found is None else (None, found)


# ------------------------------------------------------------------------------------- argument checks


def _name(value: Any, what: str, example: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty string such as {example!r}, got {value!r}.")
    return value


def _score(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"A score is a number between 0 and 1 (not True/False or text), got {value!r}.")
    if not (math.isfinite(float(value)) and 0.0 <= float(value) <= 1.0):
        raise ValueError(f"A score is a number between 0 and 1, got {value!r}.")
    return float(value)


def option_ids(record: list) -> list[str]:
    """The option ids a stored choice answer names: ids as they are, and the whole numbers of files saved
    before options had ids as the ids of those positions (``[0, 2]`` → ``["a", "c"]``)."""
    return [a if isinstance(a, str) else legacy_option_id(int(a)) for a in record]


def answer_record(answer: Any) -> list | None:
    """The stored form of an answer: option ids (or, from old callers, positions of the old banks: see
    :func:`option_ids`) → a list of strings (or ints); typed blanks → a list of strings.

    ``None`` stays ``None`` (nothing is stored). One index or one string is accepted as a one-item answer.
    Typed strings are stripped and cut to ``MAX_ANSWER_TEXT`` characters. Raises ``ValueError`` otherwise.
    """
    if answer is None:
        return None
    items = [answer] if isinstance(answer, (str, numbers.Integral)) else answer
    try:
        items = list(items)
    except TypeError:
        raise ValueError(
            f"An answer is a list of option indices or of typed strings, got {answer!r}."
        ) from None
    if len(items) > MAX_ANSWER_PARTS:
        raise ValueError(f"An answer has at most {MAX_ANSWER_PARTS} parts, got {len(items)}.")
    if all(isinstance(a, numbers.Integral) and not isinstance(a, bool) and int(a) >= 0 for a in items):
        return [int(a) for a in items]
    if all(isinstance(a, str) for a in items):
        return [a.strip()[:MAX_ANSWER_TEXT] for a in items]
    raise ValueError(f"An answer is a list of option indices or of typed strings, got {answer!r}.")


# ---------------------------------------------------------------------------------------------- store


@dataclass(frozen=True)
class NotebookProgress:
    """One row of the progress summary."""

    notebook: str
    title: str
    answered: int
    total: int
    score: float  # sum of best scores over the bank's questions
    cards_known: int
    cards_total: int


class ProgressStore:
    """Read and update one progress file (default :func:`progress_path`). Introduced in notebook 00.

    ``problem`` is ``None``, or the sentence that was warned about when the file could not be read or
    moved aside (the store then holds empty progress, and saving raises :class:`ProgressError`).
    """

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else progress_path()
        self.problem: str | None = None
        self._lock = filelock.FileLock(f"{self.path}.lock", timeout=LOCK_TIMEOUT)
        self._data = self._read()

    # -- reading -------------------------------------------------------------------------------------
    def _load(self) -> tuple[dict[str, Any] | None, str | None]:
        """``(data, None)`` (empty progress when there is no file) or ``(None, what is wrong)``.

        Raises ``OSError`` when the file exists but cannot be read at all.
        """
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return _empty(), None
        return parse(raw)

    def _note(self, message: str) -> None:
        """Warn about a problem once (not again on every re-read while it lasts)."""
        if message != self.problem:
            warnings.warn(message, ProgressWarning, stacklevel=4)
        self.problem = message

    def _read(self) -> dict[str, Any]:
        """The file's progress, validated; a damaged file is moved aside. Never raises."""
        try:
            data, found = self._load()
        except OSError as err:
            self._note(
                f"Quiz progress file {self.path} cannot be read ({_os_reason(err)}), so your answers are "
                f"graded but not saved; {_FIX}."
            )
            return _empty()
        if found is None:
            self.problem = None
            return data
        try:
            with self._lock:  # look again under the lock: another process may have replaced it already
                data, found = self._load()
                if found is None:
                    self.problem = None
                    return data
                self._move_aside(found)
                return _empty()
        except (OSError, filelock.Timeout) as err:
            reason = _os_reason(err) if isinstance(err, OSError) else str(err)
            self._note(
                f"Quiz progress file {self.path} is damaged ({found}) and could not be moved aside "
                f"({reason}), so your answers are graded but not saved; move or delete that file, or {_FIX}."
            )
            return _empty()

    def _move_aside(self, found: str) -> Path:
        """Rename the damaged file ``progress.corrupt-YYYYMMDD-HHMMSS.json`` (never overwriting one)."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = self.path.with_name(f"{self.path.stem}.corrupt-{stamp}.json")
        n = 1
        while target.exists():
            n += 1
            target = self.path.with_name(f"{self.path.stem}.corrupt-{stamp}-{n}.json")
        os.replace(self.path, target)
        self.problem = None
        warnings.warn(
            f"Quiz progress file {self.path} was damaged ({found}), so it was kept as {target} and a fresh "
            "progress file was started: the quizzes work again.",
            ProgressWarning,
            stacklevel=4,
        )
        return target

    def reload(self) -> None:
        """Re-read the file (another notebook may have written to it). Never raises."""
        self._data = self._read()

    @property
    def data(self) -> dict[str, Any]:
        """A copy of everything stored (as last read or written)."""
        return copy.deepcopy(self._data)

    def _update(self, change: Callable[[dict[str, Any]], Any], action: str = "save quiz progress") -> Any:
        """Under the lock: re-read the file, apply ``change`` to it, write it atomically.

        A damaged file is moved aside first (never overwritten). Any OS problem becomes a
        :class:`ProgressError` that says what happened and what to do.
        """
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._lock:
                data, found = self._load()
                if found is not None:
                    self._move_aside(found)
                    data = _empty()
                out = change(data)
                atomic_write_json(self.path, data)
        except filelock.Timeout:
            raise ProgressError(
                f"Could not {action}: another process has held the lock {self._lock.lock_file} for more "
                f"than {self._lock.timeout:.0f} s, so try again, and restart the other notebooks' kernels if "
                "it keeps happening."
            ) from None
        except ProgressError:
            raise
        except OSError as err:
            raise ProgressError(f"Could not {action} in {self.path}: {_os_reason(err)}; {_FIX}.") from None
        self._data = data
        self.problem = None
        return out

    # -- questions and cards --------------------------------------------------------------------------
    def record_attempt(
        self, notebook: str, question_id: str, score: float, answer: Any = None
    ) -> dict[str, Any]:
        """Count one graded attempt with ``score`` in [0, 1]; returns the updated entry.

        ``answer`` (optional) is what was answered: the chosen options' ids, or the strings typed into the
        blanks (see :func:`answer_record`); it is kept so that an instructor's class report
        (:mod:`bertedu.teaching.quiz.report`) can find the most chosen wrong option.
        """
        _name(notebook, "The notebook", "03_masking_strategy")
        _name(question_id, "The question id", "select-fraction")
        score = _score(score)
        record = answer_record(answer)
        at = _now()

        def change(data):
            nb = data["notebooks"].setdefault(notebook, {})
            entry = nb.setdefault("questions", {}).setdefault(
                question_id, {"attempts": 0, "best": 0.0, "last": 0.0}
            )
            if entry["attempts"] == 0:
                entry["first"] = score
            entry["attempts"] += 1
            entry["last"] = score
            entry["best"] = max(float(entry["best"]), score)
            entry["updated"] = at
            if record is not None:
                answers = entry.setdefault("answers", [])
                answers.append({"answer": record, "score": score, "at": at})
                del answers[:-MAX_ANSWERS]
            return copy.deepcopy(entry)

        return self._update(change)

    def mark_card(self, notebook: str, card_id: str, known: bool) -> None:
        """Remember whether flashcard ``card_id`` is known."""
        _name(notebook, "The notebook", "03_masking_strategy")
        _name(card_id, "The card id", "mask-80-10-10")
        if not isinstance(known, bool):
            raise ValueError(f"known must be True or False, got {known!r}.")

        def change(data):
            nb = data["notebooks"].setdefault(notebook, {})
            nb.setdefault("cards", {})[card_id] = {"known": known, "updated": _now()}

        self._update(change)

    def question(self, notebook: str, question_id: str) -> dict[str, Any] | None:
        """The stored entry of a question (attempts, first, best, last, answers), or ``None``."""
        entry = self._data["notebooks"].get(notebook, {}).get("questions", {}).get(question_id)
        return copy.deepcopy(entry) if entry else None

    def card(self, notebook: str, card_id: str) -> bool | None:
        """Whether a card was last marked known (``None``: never marked)."""
        entry = self._data["notebooks"].get(notebook, {}).get("cards", {}).get(card_id)
        return entry["known"] if entry else None

    # -- summary, export, reset -----------------------------------------------------------------------
    def summary(self, banks, lang: str | None = None) -> list[NotebookProgress]:
        """One :class:`NotebookProgress` per bank (questions that no longer exist are not counted)."""
        rows = []
        for bank in banks:
            nb = self._data["notebooks"].get(bank.notebook, {})
            qs = nb.get("questions", {})
            cards = nb.get("cards", {})
            ids = [q.id for q in bank.questions]
            rows.append(
                NotebookProgress(
                    notebook=bank.notebook,
                    title=pick(bank.title, lang),
                    answered=sum(1 for i in ids if i in qs),
                    total=len(ids),
                    score=sum(float(qs[i]["best"]) for i in ids if i in qs),
                    cards_known=sum(1 for c in bank.flashcards if cards.get(c.id, {}).get("known") is True),
                    cards_total=len(bank.flashcards),
                )
            )
        return rows

    def export(self, path: str | os.PathLike, student: str | None = None) -> Path:
        """Write a copy of the progress to ``path`` (the file's layout plus ``"exported"`` and, given one, the
        ``"student"`` id the class report counts a student by), atomically.

        Raises ``ValueError`` when ``path`` is a folder, and :class:`ProgressError` when the progress file
        cannot be read (nothing valid to export) or ``path`` cannot be written.
        """
        target = Path(path).expanduser()
        if target.is_dir():
            raise ValueError(
                f"{target} is a folder; give a file name such as {target / 'progress-backup.json'}."
            )
        self.reload()
        if self.problem is not None:
            raise ProgressError(f"Nothing was exported. {self.problem}")
        data = {**self._data, **({"student": student} if student else {}), "exported": _now()}
        try:
            return atomic_write_json(target, data)
        except OSError as err:
            raise ProgressError(
                f"Could not write the export to {target}: {_os_reason(err)}. Choose a file in a folder you "
                "can write to."
            ) from None

    def reset(self, notebook: str | None = None) -> int:
        """Erase the progress of ``notebook`` (or of every notebook); returns how many notebooks were erased."""

        def change(data):
            if notebook is None:
                n = len(data["notebooks"])
                data["notebooks"] = {}
                return n
            return 1 if data["notebooks"].pop(notebook, None) is not None else 0

        return self._update(change, action="erase quiz progress")


_stores: dict[Path, ProgressStore] = {}


def get_store() -> ProgressStore:
    """The store for the current :func:`progress_path` (a new one when ``BERTEDU_HOME`` changes)."""
    path = progress_path()
    store = _stores.get(path)
    if store is None:
        store = _stores[path] = ProgressStore(path)
    return store
