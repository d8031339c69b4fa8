"""The student's quiz progress: one JSON file, ``$BERTEDU_HOME/progress.json`` (default ``~/.bertedu``).

What is stored, per notebook: for each question the number of graded attempts and the best and last
score (0-1); for each flashcard whether it was last marked known. Every change re-reads the file,
applies the change and writes the file atomically (:func:`bertedu.utils.atomic_write_json`), so a crash
never leaves half a file and two open notebooks do not overwrite each other's answers. A file that
cannot be read is never thrown away: it is renamed ``progress.corrupt-YYYYMMDD-HHMMSS.json`` next to the
original and a warning says where it went.

File layout (``version`` 1)::

    {"version": 1,
     "notebooks": {"03_masking_strategy": {
         "questions": {"select-fraction": {"attempts": 2, "best": 1.0, "last": 1.0, "updated": "..."}},
         "cards": {"mask-80-10-10": {"known": true, "updated": "..."}}}}}

Introduced in notebook 00.
"""

from __future__ import annotations

import copy
import json
import os
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bertedu.utils import atomic_write_json

ENV_HOME = "BERTEDU_HOME"
FILE_NAME = "progress.json"
VERSION = 1


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


def _problem(data: Any) -> str | None:
    """What is wrong with parsed progress data, or ``None`` if it has the expected shape."""
    if not isinstance(data, dict):
        return "the top level is not an object"
    if data.get("version") != VERSION:
        return f"unknown version {data.get('version')!r} (expected {VERSION})"
    notebooks = data.get("notebooks")
    if not isinstance(notebooks, dict):
        return "'notebooks' is not an object"
    for name, nb in notebooks.items():
        if not isinstance(nb, dict):
            return f"notebook {name!r} is not an object"
        for qid, entry in (nb.get("questions") or {}).items():
            if not (
                isinstance(entry, dict)
                and isinstance(entry.get("attempts"), int)
                and all(isinstance(entry.get(k), (int, float)) for k in ("best", "last"))
            ):
                return f"question {name}/{qid} is malformed"
        for cid, entry in (nb.get("cards") or {}).items():
            if not (isinstance(entry, dict) and isinstance(entry.get("known"), bool)):
                return f"card {name}/{cid} is malformed"
    return None


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
    """Read and update one progress file (default :func:`progress_path`). Introduced in notebook 00."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else progress_path()
        self._data = self._read()

    # -- reading -------------------------------------------------------------------------------------
    def _read(self) -> dict[str, Any]:
        if not self.path.exists():
            return _empty()
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            problem = _problem(data)
        except (
            UnicodeDecodeError,
            json.JSONDecodeError,
        ) as err:  # an unreadable disk (OSError) is not "corrupt"
            problem = f"{type(err).__name__}: {err}"
        if problem is None:
            return data
        self._move_aside(problem)
        return _empty()

    def _move_aside(self, problem: str) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = self.path.with_name(f"{self.path.stem}.corrupt-{stamp}.json")
        n = 1
        while target.exists():
            n += 1
            target = self.path.with_name(f"{self.path.stem}.corrupt-{stamp}-{n}.json")
        os.replace(self.path, target)
        warnings.warn(
            f"Quiz progress file {self.path} could not be read ({problem}). It was kept as {target}; "
            "a fresh progress file starts now.",
            stacklevel=4,
        )
        return target

    def reload(self) -> None:
        """Re-read the file (another notebook may have written to it)."""
        self._data = self._read()

    @property
    def data(self) -> dict[str, Any]:
        """A copy of everything stored (as last read or written)."""
        return copy.deepcopy(self._data)

    def _update(self, change: Callable[[dict[str, Any]], Any]) -> Any:
        data = self._read()
        out = change(data)
        atomic_write_json(self.path, data)
        self._data = data
        return out

    # -- questions and cards --------------------------------------------------------------------------
    def record_attempt(self, notebook: str, question_id: str, score: float) -> dict[str, Any]:
        """Count one graded attempt with ``score`` in [0, 1]; returns the updated entry."""
        if not (isinstance(score, (int, float)) and 0.0 <= score <= 1.0):
            raise ValueError(f"A score is a number between 0 and 1, got {score!r}.")

        def change(data):
            nb = data["notebooks"].setdefault(notebook, {})
            entry = nb.setdefault("questions", {}).setdefault(
                question_id, {"attempts": 0, "best": 0.0, "last": 0.0}
            )
            entry["attempts"] += 1
            entry["last"] = float(score)
            entry["best"] = max(float(entry["best"]), float(score))
            entry["updated"] = _now()
            return dict(entry)

        return self._update(change)

    def mark_card(self, notebook: str, card_id: str, known: bool) -> None:
        """Remember whether flashcard ``card_id`` is known."""
        if not isinstance(known, bool):
            raise ValueError(f"known must be True or False, got {known!r}.")

        def change(data):
            nb = data["notebooks"].setdefault(notebook, {})
            nb.setdefault("cards", {})[card_id] = {"known": known, "updated": _now()}

        self._update(change)

    def question(self, notebook: str, question_id: str) -> dict[str, Any] | None:
        """The stored entry of a question (attempts, best, last), or ``None``."""
        entry = self._data["notebooks"].get(notebook, {}).get("questions", {}).get(question_id)
        return dict(entry) if entry else None

    def card(self, notebook: str, card_id: str) -> bool | None:
        """Whether a card was last marked known (``None``: never marked)."""
        entry = self._data["notebooks"].get(notebook, {}).get("cards", {}).get(card_id)
        return entry["known"] if entry else None

    # -- summary, export, reset -----------------------------------------------------------------------
    def summary(self, banks, lang: str | None = None) -> list[NotebookProgress]:
        """One :class:`NotebookProgress` per bank (questions that no longer exist are not counted)."""
        from bertedu.quiz.i18n import pick

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

    def export(self, path: str | os.PathLike) -> Path:
        """Write a copy of the progress (same format as the progress file) to ``path``, atomically."""
        self.reload()
        target = Path(path).expanduser()
        if target.is_dir():
            raise ValueError(
                f"{target} is a folder; give a file name such as {target / 'progress-backup.json'}."
            )
        return atomic_write_json(target, self._data)

    def reset(self, notebook: str | None = None) -> int:
        """Erase the progress of ``notebook`` (or of every notebook); returns how many notebooks were erased."""

        def change(data):
            if notebook is None:
                n = len(data["notebooks"])
                data["notebooks"] = {}
                return n
            return 1 if data["notebooks"].pop(notebook, None) is not None else 0

        return self._update(change)


_stores: dict[Path, ProgressStore] = {}


def get_store() -> ProgressStore:
    """The store for the current :func:`progress_path` (a new one when ``BERTEDU_HOME`` changes)."""
    path = progress_path()
    store = _stores.get(path)
    if store is None:
        store = _stores[path] = ProgressStore(path)
    return store
