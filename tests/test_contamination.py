"""The contamination audit (bertedu.course.contamination, issue 39): every check counts what it should on tiny
hand-made corpora and splits, the course's evaluation files are clean, and a contaminated split fails."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bertedu.course.contamination import (
    COLUMNS,
    FINETUNE_EVAL_FILES,
    Corpus,
    audit_all,
    audit_masked_sentences,
    audit_pairs,
    audit_questions,
    audit_sentences,
    audit_table,
    contaminated,
)

DATA = Path(__file__).resolve().parents[1] / "data"
# Two documents; the second is a "school lesson": a question line followed by its answer line.
DOCUMENTS = [
    ["the cat sits on the mat", "the cat drinks milk", "then the cat sleeps"],
    ["where does the dog sleep", "the dog sleeps under the table"],
]


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus.from_documents(DOCUMENTS)


def test_the_corpus_knows_its_lines_and_which_line_follows_which(corpus):
    assert "the cat drinks milk" in corpus.lines and len(corpus.lines) == 5
    assert corpus.consecutive("the cat sits on the mat", "the cat drinks milk")
    assert corpus.consecutive("The cat drinks milk", "the cat sits  on the mat")  # either order, any spacing
    assert not corpus.consecutive("the cat sits on the mat", "then the cat sleeps")  # one line between them
    assert not corpus.consecutive("then the cat sleeps", "where does the dog sleep")  # across two documents
    assert corpus.answer_follows("where does the dog sleep", "under the table")
    assert not corpus.answer_follows("where does the dog sleep", "by the fire")
    assert not corpus.answer_follows("where does the dog sleep", "the tab")  # whole words only
    with pytest.raises(ValueError, match="lists of sentences"):
        Corpus.from_documents(["the cat sits on the mat"])


def test_each_check_counts_by_hand(corpus):
    row = audit_sentences("s.tsv", ["the cat drinks milk", "the dog drinks milk", "a b"], corpus, ["a  b"])
    assert row == {
        "file": "s.tsv",
        "item": "sentence",
        "items": 3,
        "in_corpus": 1,  # "the cat drinks milk" is a line
        "answer_next_in_corpus": None,
        "in_training": 1,  # "a b" is a training sentence
        "part_in_training": None,
    }
    masked = [("the cat drinks [MASK]", ("milk", "water")), ("the cat drinks [MASK] again", ("milk",))]
    assert audit_masked_sentences("m.tsv", masked, corpus)["in_corpus"] == 1  # "... milk" is a line
    pairs = [
        ("the cat drinks milk", "then the cat sleeps"),  # consecutive
        (
            "the cat sits on the mat",
            "then the cat sleeps",
        ),  # not consecutive; its first sentence is in a training pair
        ("it barks", "it digs"),  # the training pair itself, in the other order
    ]
    row = audit_pairs(
        "p.tsv", pairs, corpus, [("it digs", "it barks"), ("the cat sits on the mat", "it runs")]
    )
    assert (row["in_corpus"], row["in_training"], row["part_in_training"]) == (1, 1, 2)
    assert audit_pairs("nsp.tsv", pairs, corpus)["in_training"] is None  # no training split: the check is off
    questions = [
        ("where does the dog sleep", "under the table"),  # a corpus line, and its answer is the next line
        ("where does the cat sit", "on the mat"),  # asked in training
        ("what does the cat drink", "milk"),  # clean
    ]
    row = audit_questions("q.jsonl", questions, corpus, ["where does the cat sit", "who sleeps"])
    assert (row["in_corpus"], row["answer_next_in_corpus"], row["in_training"]) == (1, 1, 1)
    assert contaminated([row]) == [
        "q.jsonl: 1 of 3 in_corpus",
        "q.jsonl: 1 of 3 answer_next_in_corpus",
        "q.jsonl: 1 of 3 in_training",
    ]


def test_every_evaluation_file_of_the_course_is_clean():
    """After the re-split (issue 39) no evaluation item was met in pretraining or in its task's training split:
    in particular no span test question is a training question or a corpus line (before: 40 and 23 of 54)."""
    rows = audit_all()
    files = {row["file"] for row in rows}
    expected = {"mlm_eval.tsv", "mlm_eval_generalise.tsv", "probes.tsv", "nsp_eval.tsv", "nsp_eval_hard.tsv"}
    expected |= {f"finetune/{task}/{name}" for task, names in FINETUNE_EVAL_FILES.items() for name in names}
    assert files == expected
    assert all(set(row) == set(COLUMNS) and row["items"] > 0 for row in rows)
    assert contaminated(rows) == []
    spans = {row["file"]: row for row in rows if "span_extraction" in row["file"]}
    assert all(
        row["in_training"] == row["in_corpus"] == row["answer_next_in_corpus"] == 0 for row in spans.values()
    )
    table = audit_table()
    assert list(table.columns) == list(COLUMNS[1:]) and table.loc["nsp_eval_hard.tsv", "items"] == 120


def test_a_contaminated_split_fails_the_audit(tmp_path):
    """The old span split's faults, planted in a copy of data/: a test question asked in training, and one that is
    a corpus line followed by its answer line ("where does the cat sleep" / "the cat sleeps by the fire")."""
    copy = tmp_path / "data"
    shutil.copytree(DATA, copy)
    test_file = copy / "finetune" / "span_extraction" / "test.jsonl"
    corpus_lines = set((DATA / "simple_sentences.txt").read_text().splitlines())
    train = [
        json.loads(line)
        for line in (copy / "finetune" / "span_extraction" / "train.jsonl").read_text().splitlines()
    ]
    asked = next(e for e in train if e["question"] not in corpus_lines)
    assert any(
        e["question"] == "where does the cat sleep" for e in train
    )  # the corpus asks it: a training fact
    context = "the dog runs in the park the cat sleeps by the fire"
    planted = [
        asked,  # a training question (with its training context), not a corpus line
        {
            "question": "where does the cat sleep",
            "context": context,
            "answer": "by the fire",
            "answer_start": context.index("by the fire"),
        },
    ]
    lines = test_file.read_text().splitlines()[: -len(planted)] + [json.dumps(e) for e in planted]
    test_file.write_text("\n".join(lines) + "\n")
    problems = contaminated(audit_all(copy))
    assert problems == [  # the corpus question is a training question too
        "finetune/span_extraction/test.jsonl: 1 of 54 in_corpus",
        "finetune/span_extraction/test.jsonl: 1 of 54 answer_next_in_corpus",
        "finetune/span_extraction/test.jsonl: 2 of 54 in_training",
    ]
    with pytest.raises(FileNotFoundError, match="simple_sentences.txt"):
        audit_all(tmp_path)
