"""A damaged progress file, or a folder that cannot be written, never blocks the quizzes.

Every damaged form is moved aside (its bytes kept, under a name a student can find), ONE warning names both
paths, and then Check, flashcard marks, ``quiz.progress()`` and ``quiz.export_progress()`` all work. A
read-only BERTEDU_HOME (simulated at the OS-call level, so the test also runs as root) still grades and
says clearly, in one sentence, why nothing is saved; no raw ``OSError`` escapes.
"""

from __future__ import annotations

import builtins
import errno
import io
import json
import os
import warnings
from pathlib import Path

import pytest

from bertedu.teaching import quiz
from bertedu.teaching.quiz.store import ProgressError, ProgressStore, ProgressWarning, get_store

NB, QID = "00_welcome", "show-solution"  # a single-choice question; option 1 is right


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("BERTEDU_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("BERTEDU_LANG", raising=False)
    quiz.set_language(None)
    return tmp_path / "home"


def _progress(notebooks: str) -> str:
    return '{"version": 1, "notebooks": ' + notebooks + "}"


def _entry(**fields) -> str:
    entry = {"attempts": 1, "best": 1.0, "last": 1.0, **fields}
    text = json.dumps(entry)  # NaN / Infinity come out as JSON's non-standard literals, as Python writes them
    return _progress('{"00_welcome": {"questions": {"set-seed": ' + text + "}}}")


DEEP = 100_000
DAMAGED = {
    # wrong container types (reliability report #3)
    "questions-is-a-list": _progress('{"00_welcome": {"questions": [1, 2]}}'),
    "cards-is-a-list": _progress('{"00_welcome": {"cards": ["a"]}}'),
    "questions-is-a-string": _progress('{"00_welcome": {"questions": "abc"}}'),
    "questions-is-an-empty-list": _progress('{"00_welcome": {"questions": []}}'),
    "cards-is-null": _progress('{"00_welcome": {"cards": null}}'),
    "notebook-is-a-list": _progress('{"00_welcome": [1]}'),
    "notebooks-is-a-list": _progress("[]"),
    "top-level-is-a-list": "[1, 2, 3]",
    "top-level-is-null": "null",
    "future-version": '{"version": 2, "notebooks": {}}',
    "no-version": '{"notebooks": {}}',
    # unreadable text
    "truncated": '{"version": 1, "notebooks": {"00_welcome": {"ques',
    "empty": "",
    "whitespace": "  \n\t ",
    "not-utf8": b"\xff\xfe\x00garbage",
    "latin1": '{"version": 1, "notebooks": {"caf\xe9": {}}}'.encode("latin-1"),
    "deep-nesting": _progress("[" * DEEP + "]" * DEEP),
    "integer-too-long": _progress('{"00_welcome": {"questions": {"q": {"attempts": ' + "9" * 5000 + "}}}}"),
    # bad numbers
    "best-nan": _entry(best=float("nan")),
    "best-infinity": _entry(best=float("inf")),
    "best-out-of-range": _entry(best=5),
    "best-negative": _entry(best=-0.5),
    "last-missing": _entry(last=None),
    "first-out-of-range": _entry(first=2.0),
    "attempts-negative": _entry(attempts=-3),
    "attempts-zero": _entry(attempts=0),
    "attempts-boolean": _entry(attempts=True),
    "attempts-fraction": _entry(attempts=2.5),
    "attempts-text": _entry(attempts="many"),
    "best-boolean": _entry(best=True),
    # entries of the wrong kind
    "question-entry-is-a-number": _progress('{"00_welcome": {"questions": {"set-seed": 1}}}'),
    "question-entry-is-a-list": _progress('{"00_welcome": {"questions": {"set-seed": []}}}'),
    "card-entry-is-true": _progress('{"00_welcome": {"cards": {"progress-file": true}}}'),
    "card-known-is-text": _progress('{"00_welcome": {"cards": {"progress-file": {"known": "yes"}}}}'),
    "answers-is-a-dict": _entry(answers={}),
    "answer-holds-booleans": _entry(answers=[{"answer": [True], "score": 1.0}]),
    "answer-score-nan": _entry(answers=[{"answer": [1], "score": float("nan")}]),
}


def _write(path: Path, content: str | bytes) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = content if isinstance(content, bytes) else content.encode("utf-8")
    path.write_bytes(raw)
    return raw


def _answer_right(widget):
    widget.options_box.value = widget.question.option_index("b")
    widget.submit.click()
    return widget.result


@pytest.mark.parametrize("content", list(DAMAGED.values()), ids=list(DAMAGED))
def test_damaged_file_is_moved_aside_and_quizzes_work_again(home, content, tmp_path):
    path = home / "progress.json"
    original = _write(path, content)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w = quiz.ask(NB, QID)  # the first read finds the damage
        assert _answer_right(w).is_correct and "✓ Correct" in w.feedback.value
        deck = quiz.flashcards(NB)
        deck.known.click()
        table = quiz.progress()
        exported = quiz.export_progress(tmp_path / "export.json")
    said = [str(c.message) for c in caught if issubclass(c.category, ProgressWarning)]
    others = [str(c.message) for c in caught if not issubclass(c.category, ProgressWarning)]
    assert len(said) == 1, said  # one clear sentence, not one per click
    assert not others, others
    kept = list(home.glob("progress.corrupt-*.json"))
    assert len(kept) == 1 and kept[0].read_bytes() == original  # nothing is thrown away
    assert str(path) in said[0] and str(kept[0]) in said[0]  # it names both paths
    assert said[0].count(". ") == 0 and said[0].endswith(".")  # one sentence
    # ... and everything after it works and is saved
    assert "1 / 4" in table.table.value and "1 / 2" in table.table.value
    entry = ProgressStore(path).question(NB, QID)
    assert (
        entry["attempts"] == 1 and entry["best"] == 1.0 and entry["answers"][0]["answer"] == ["b"]
    )  # saved by option id
    assert json.loads(exported.read_text(encoding="utf-8"))["notebooks"][NB]["cards"]["progress-file"][
        "known"
    ]


def test_a_valid_file_with_a_utf8_bom_is_read_not_moved(home):
    path = home / "progress.json"
    _write(path, b"\xef\xbb\xbf" + _entry().encode("utf-8"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        store = ProgressStore()
    assert store.question(NB, "set-seed")["attempts"] == 1
    assert not list(home.glob("progress.corrupt-*"))


def test_an_old_file_without_first_or_answers_still_loads_and_grows(home):
    """Files written before answers were recorded stay valid; new attempts add the new fields."""
    path = home / "progress.json"
    old = {
        "version": 1,
        "notebooks": {NB: {"questions": {QID: {"attempts": 2, "best": 1.0, "last": 0.0, "updated": "x"}}}},
    }
    _write(path, json.dumps(old))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        entry = ProgressStore().record_attempt(NB, QID, 1.0, answer=[1])
    assert entry["attempts"] == 3 and "first" not in entry  # the first score of an old entry is unknown
    assert entry["answers"] == [{"answer": [1], "score": 1.0, "at": entry["updated"]}]


# ------------------------------------------------------------------------------------ bad arguments
@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((NB, QID, True), "not True/False"),
        ((NB, QID, False), "not True/False"),
        ((NB, QID, "1"), "not True/False or text"),
        ((NB, QID, float("nan")), "between 0 and 1"),
        ((NB, QID, 1.5), "between 0 and 1"),
        ((None, QID, 1.0), "The notebook must be a non-empty string"),
        (("", QID, 1.0), "The notebook must be a non-empty string"),
        ((NB, None, 1.0), "The question id must be a non-empty string"),
        ((NB, 3, 1.0), "The question id must be a non-empty string"),
    ],
)
def test_record_attempt_refuses_bad_arguments_clearly(home, args, message):
    store = ProgressStore()
    with pytest.raises(ValueError, match=message):
        store.record_attempt(*args)
    assert not (home / "progress.json").exists()


def test_record_attempt_refuses_a_bad_answer(home):
    store = ProgressStore()
    for bad in ([True], [1, "a"], [{"x": 1}], 1.5, object()):
        with pytest.raises(ValueError, match="option indices or of typed strings"):
            store.record_attempt(NB, QID, 1.0, answer=bad)
    with pytest.raises(ValueError, match="The card id must be"):
        store.mark_card(NB, None, True)


# ------------------------------------------------------------------------------- read-only BERTEDU_HOME
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


@pytest.fixture
def make_read_only(home, monkeypatch):
    """``make_read_only()`` makes ``home`` behave like a read-only file system (EROFS on every write),
    even for root (who ignores permission bits)."""
    home.mkdir(parents=True, exist_ok=True)
    root = str(home)

    def inside(*paths) -> bool:
        return any(
            isinstance(p, (str, bytes, os.PathLike)) and os.path.abspath(os.fsdecode(p)).startswith(root)
            for p in paths
        )

    def refuse(path):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fsdecode(path))

    real = {name: getattr(os, name) for name in ("open", "replace", "rename", "mkdir", "unlink", "remove")}
    real_open = builtins.open

    def fake_os_open(path, flags, *args, **kwargs):
        if inside(path) and flags & _WRITE_FLAGS:
            refuse(path)
        return real["open"](path, flags, *args, **kwargs)

    def two_paths(name):
        def fake(src, dst, *args, **kwargs):
            if inside(src, dst):
                refuse(dst)
            return real[name](src, dst, *args, **kwargs)

        return fake

    def one_path(name):
        def fake(path, *args, **kwargs):
            if inside(path):
                refuse(path)
            return real[name](path, *args, **kwargs)

        return fake

    def fake_open(file, mode="r", *args, **kwargs):
        if inside(file) and any(c in mode for c in "wax+"):
            refuse(file)
        return real_open(file, mode, *args, **kwargs)

    def activate() -> Path:
        monkeypatch.setattr(os, "open", fake_os_open)
        monkeypatch.setattr(os, "replace", two_paths("replace"))
        monkeypatch.setattr(os, "rename", two_paths("rename"))
        for name in ("mkdir", "unlink", "remove"):
            monkeypatch.setattr(os, name, one_path(name))
        monkeypatch.setattr(builtins, "open", fake_open)
        monkeypatch.setattr(io, "open", fake_open)
        return home

    return activate


def _saved_warnings(caught) -> list[str]:
    return [str(c.message) for c in caught]


def test_read_only_home_grades_warns_and_explains(home, make_read_only, tmp_path):
    ProgressStore().record_attempt(NB, "set-seed", 0.5)  # some progress saved before
    make_read_only()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w = quiz.ask(NB, QID)
        assert _answer_right(w).is_correct and "✓ Correct" in w.feedback.value  # graded all the same
        deck = quiz.flashcards(NB)
        deck.known.click()
        assert "marked as known" in deck.status.value
    said = _saved_warnings(caught)
    assert len(said) == 2, said  # one for the answer, one for the card
    assert all("read-only" in s and str(home) in s and "BERTEDU_HOME" in s for s in said), said
    assert "graded but not saved" in said[0] and "flashcard mark was not saved" in said[1]

    table = quiz.progress()  # reading works
    assert "1 / 4" in table.table.value and "0.5 / 4" in table.table.value
    with pytest.raises(ProgressError, match=r"Could not erase quiz progress in .*: the folder is read-only"):
        quiz.reset_progress(confirm=True)
    confirm = quiz.reset_progress()
    confirm.confirm.click()  # no traceback from the button: the widget says why
    assert "Nothing was erased" in confirm.message.value and "read-only" in confirm.message.value
    assert not confirm.confirm.disabled  # ... and one can try again after fixing the folder
    assert quiz.export_progress(tmp_path / "elsewhere.json").exists()  # exporting elsewhere works


def test_read_only_home_with_a_damaged_file(home, make_read_only, tmp_path):
    path = home / "progress.json"
    original = _write(path, '{"version": 1, "notebooks": {"x": {"questions": [1, 2]}}}')
    make_read_only()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w = quiz.ask(NB, QID)
        assert _answer_right(w).is_correct
        quiz.flashcards(NB).unknown.click()
        table = quiz.progress()
    said = _saved_warnings(caught)
    damaged = [s for s in said if "is damaged" in s]
    assert len(damaged) == 1 and "could not be moved aside" in damaged[0] and "read-only" in damaged[0]
    assert any("graded but not saved" in s for s in said)
    assert "Problem with the progress file" in table.saved_in.value and "0 / 4" in table.table.value
    with pytest.raises(ProgressError, match="Nothing was exported.*is damaged"):
        quiz.export_progress(tmp_path / "out.json")
    with pytest.raises(ProgressError, match="read-only"):
        quiz.reset_progress(confirm=True)
    assert path.read_bytes() == original  # never overwritten, never lost
    assert not list(home.glob("progress.corrupt-*"))


def test_home_below_a_file_gives_clear_messages(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("BERTEDU_HOME", str(blocker / "home"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w = quiz.ask(NB, QID)
        assert _answer_right(w).is_correct
    assert any("a part of the path is a file, not a folder" in str(c.message) for c in caught)
    with pytest.raises(ProgressError, match="a part of the path is a file"):
        quiz.reset_progress(confirm=True)
    with pytest.raises(ProgressError, match="Nothing was exported.*a part of the path is a file"):
        quiz.export_progress(tmp_path / "export.json")


def test_export_to_an_unwritable_place_says_so(home, tmp_path):
    ProgressStore().record_attempt(NB, QID, 1.0)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(ProgressError, match="Could not write the export to .*a part of the path is a file"):
        quiz.export_progress(blocker / "export.json")
    with pytest.raises(ValueError, match="is a folder; give a file name"):
        quiz.export_progress(tmp_path)


def test_store_warns_once_while_a_problem_lasts(home, make_read_only):
    _write(home / "progress.json", "{")
    make_read_only()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        store = get_store()
        for _ in range(3):
            store.reload()
    assert len(caught) == 1 and store.problem is not None


def test_a_lock_held_too_long_gives_a_clear_error(home):
    """Another process stuck while holding the lock: the save gives up with a sentence, not a hang."""
    import filelock

    store = ProgressStore()
    store._lock.timeout = 0.2
    other = filelock.FileLock(f"{store.path}.lock")  # a second handle: flock makes it a different holder
    home.mkdir(parents=True, exist_ok=True)
    with other:
        with pytest.raises(ProgressError, match=r"another process has held the lock .*progress\.json\.lock"):
            store.record_attempt(NB, QID, 1.0)
    assert store.record_attempt(NB, QID, 1.0)["attempts"] == 1  # and works once the lock is free
