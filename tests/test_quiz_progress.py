"""The progress store: one JSON file, written atomically, re-read on start, corrupt files kept aside."""

import json
from pathlib import Path

import pytest

from bertedu.teaching import quiz
from bertedu.teaching.quiz import store as store_mod
from bertedu.teaching.quiz.store import ProgressStore, get_store, progress_path


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("BERTEDU_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("BERTEDU_LANG", raising=False)
    quiz.set_language(None)
    return tmp_path / "home"


def test_location_follows_bertedu_home(home, monkeypatch, tmp_path):
    assert progress_path() == home / "progress.json"
    assert get_store().path == home / "progress.json"
    monkeypatch.delenv("BERTEDU_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert progress_path() == tmp_path / "user" / ".bertedu" / "progress.json"


def test_attempts_best_and_last(home):
    store = ProgressStore()
    assert store.question("00_welcome", "set-seed") is None
    store.record_attempt("00_welcome", "set-seed", 0.5)
    store.record_attempt("00_welcome", "set-seed", 1.0)
    entry = store.record_attempt("00_welcome", "set-seed", 0.0)
    assert entry["attempts"] == 3 and entry["best"] == 1.0 and entry["last"] == 0.0
    with pytest.raises(ValueError, match="between 0 and 1"):
        store.record_attempt("00_welcome", "set-seed", 1.5)
    with pytest.raises(ValueError, match="True or False"):
        store.mark_card("00_welcome", "x", "yes")


def test_progress_survives_a_restart(home):
    """A new store (as after a kernel restart) reads what the old one wrote."""
    first = ProgressStore()
    first.record_attempt("paper", "c-mask-rates", 0.75)
    first.mark_card("paper", "c-mlm", True)
    second = ProgressStore(home / "progress.json")
    assert second.question("paper", "c-mask-rates")["best"] == 0.75
    assert second.card("paper", "c-mlm") is True
    assert second.card("paper", "never-seen") is None


def test_two_stores_do_not_overwrite_each_other(home):
    """Two notebooks open at once: each write re-reads the file first."""
    a, b = ProgressStore(), ProgressStore()
    a.record_attempt("00_welcome", "set-seed", 1.0)
    b.record_attempt("paper", "b-sizes", 0.5)
    data = json.loads((home / "progress.json").read_text(encoding="utf-8"))
    assert set(data["notebooks"]) == {"00_welcome", "paper"}


def test_crash_mid_write_keeps_the_old_file(home, monkeypatch):
    store = ProgressStore()
    store.record_attempt("00_welcome", "set-seed", 1.0)
    before = (home / "progress.json").read_bytes()
    real_write_text = Path.write_text

    def half_then_crash(self, data, *args, **kwargs):
        real_write_text(self, data[: len(data) // 2], *args, **kwargs)
        raise OSError("disk full (simulated crash)")

    monkeypatch.setattr(Path, "write_text", half_then_crash)
    with pytest.raises(OSError, match="simulated crash"):
        store.record_attempt("00_welcome", "make-test", 0.5)
    monkeypatch.undo()
    assert (home / "progress.json").read_bytes() == before
    assert sorted(p.name for p in home.iterdir()) == ["progress.json", "progress.json.lock"]  # no temp file
    assert ProgressStore().question("00_welcome", "make-test") is None


@pytest.mark.parametrize(
    "content",
    [
        '{"version": 1, "notebooks": {"00_welcome": {"ques',
        "[1, 2, 3]",
        '{"version": 99, "notebooks": {}}',
        '{"version": 1, "notebooks": {"x": {"questions": {"q": {"attempts": "many"}}}}}',
        "\udcff",
    ],
    ids=["truncated", "not-an-object", "future-version", "bad-entry", "not-utf8"],
)
def test_corrupt_file_is_moved_aside_with_a_warning(home, content):
    home.mkdir(parents=True)
    path = home / "progress.json"
    if content == "\udcff":
        path.write_bytes(b"\xff\xfe\x00garbage")
    else:
        path.write_text(content, encoding="utf-8")
    original = path.read_bytes()
    with pytest.warns(UserWarning, match=r"was damaged .* kept as .*progress\.corrupt-\d{8}-\d{6}\.json"):
        store = ProgressStore()
    kept = list(home.glob("progress.corrupt-*.json"))
    assert len(kept) == 1 and kept[0].read_bytes() == original  # nothing is thrown away
    assert store.data == {"version": 1, "notebooks": {}}
    store.record_attempt("00_welcome", "set-seed", 1.0)
    assert ProgressStore().question("00_welcome", "set-seed")["attempts"] == 1


def test_two_corrupt_files_in_one_second_both_kept(home):
    home.mkdir(parents=True)
    for _ in range(2):
        (home / "progress.json").write_text("{", encoding="utf-8")
        with pytest.warns(UserWarning):
            ProgressStore()
    assert len(list(home.glob("progress.corrupt-*.json"))) == 2


def test_export_and_reset(home, tmp_path):
    store = ProgressStore()
    store.record_attempt("00_welcome", "set-seed", 1.0)
    store.record_attempt("paper", "b-sizes", 0.25)
    out = quiz.export_progress(tmp_path / "backup" / "mine.json")
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert exported["notebooks"]["paper"]["questions"]["b-sizes"]["best"] == 0.25
    with pytest.raises(ValueError, match="is a folder"):
        quiz.export_progress(tmp_path)

    widget = quiz.reset_progress("paper")  # without confirm=True nothing is erased yet
    assert widget.done is None and ProgressStore().question("paper", "b-sizes") is not None
    assert quiz.reset_progress("paper", confirm=True) == 1
    assert ProgressStore().question("paper", "b-sizes") is None
    assert ProgressStore().question("00_welcome", "set-seed") is not None
    assert quiz.reset_progress(confirm=True) == 1
    assert ProgressStore().data["notebooks"] == {}
    with pytest.raises(ValueError, match="No question bank named"):
        quiz.reset_progress("99_typo", confirm=True)


def test_summary_counts_only_existing_questions(home):
    store = ProgressStore()
    store.record_attempt("00_welcome", "set-seed", 0.5)
    store.record_attempt("00_welcome", "removed-question", 1.0)
    store.mark_card("00_welcome", "progress-file", True)
    store.mark_card("00_welcome", "switch-language", False)
    rows = {r.notebook: r for r in store.summary(quiz.load_bank(n) for n in quiz.bank_names())}
    welcome = rows["00_welcome"]
    assert (welcome.answered, welcome.total, welcome.score) == (1, 4, 0.5)
    assert (welcome.cards_known, welcome.cards_total) == (1, 2)
    assert rows["paper"].answered == 0


def test_get_store_is_per_home(home, monkeypatch, tmp_path):
    a = get_store()
    assert get_store() is a
    monkeypatch.setenv("BERTEDU_HOME", str(tmp_path / "other"))
    b = get_store()
    assert b is not a and b.path == tmp_path / "other" / "progress.json"
    assert store_mod.FILE_NAME == "progress.json"


def test_the_store_keeps_the_last_answers_not_the_first(home):
    """Past MAX_ANSWERS answers the oldest go (as web/quiz/progress.js does): a persistent student's later
    choices reach the class report; "first" still holds the first score."""
    store = ProgressStore()
    for i in range(store_mod.MAX_ANSWERS + 5):
        store.record_attempt("nb", "q", 0.0 if i == 0 else 1.0, answer=[str(i)])
    entry = ProgressStore().question("nb", "q")
    assert entry["attempts"] == store_mod.MAX_ANSWERS + 5 and len(entry["answers"]) == store_mod.MAX_ANSWERS
    assert entry["first"] == 0.0
    assert [a["answer"] for a in entry["answers"][:1] + entry["answers"][-1:]] == [
        ["5"],
        [str(store_mod.MAX_ANSWERS + 4)],
    ]


def test_an_export_carries_the_students_id(home, tmp_path):
    """quiz.export_progress writes the student's id (the one that orders their options) into the export, so the
    class report counts them once however many exports they hand in; the progress file itself has none."""
    from bertedu.teaching.quiz.shuffle import student_id

    ProgressStore().record_attempt("00_welcome", "set-seed", 1.0)
    exported = json.loads(quiz.export_progress(tmp_path / "mine.json").read_text(encoding="utf-8"))
    assert exported["student"] == student_id() and len(exported["student"]) >= 16
    assert "student" not in json.loads(progress_path().read_text(encoding="utf-8"))
