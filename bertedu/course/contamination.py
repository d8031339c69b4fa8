"""Contamination: which evaluation items a model met before it is evaluated on them.

A held-out score means what the course says only if the items are held out. An evaluation item is
*contaminated* when training showed the model the item, or its answer:

- the **pretraining corpus** (``data/simple_sentences.txt``): a sentence that is a corpus line; a pair of
  sentences that are consecutive corpus lines (pretraining showed the pair as IsNext); a masked sentence
  that, with an answer in the mask's place, is a corpus line; a question that is a corpus line, worse when the
  next line holds its answer (masked-word and next-token training saw exactly that continuation);
- the task's **fine-tuning training split**: the same sentence, the same question, the same pair of sentences,
  and for pairs a sentence that occurs in a training pair (the training labels then say which facts belong
  together).

:func:`audit_all` checks every evaluation file of ``data/`` and returns one row per file (:func:`audit_table`
prints them as a table); :func:`contaminated` lists what a clean split must not have. The checks of one kind of
item (:func:`audit_sentences`, :func:`audit_masked_sentences`, :func:`audit_pairs`, :func:`audit_questions`) take
plain lists, so a notebook can audit a split it made itself. See Lewis et al. (2021), "Question and Answer
Test-Train Overlap in Open-Domain Question Answering Datasets".

Introduced in notebook 07.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bertedu.training.data import read_corpus
from bertedu.training.evalsets import load_masked_word_items, load_nsp_items
from bertedu.training.finetune_data import (
    SENTENCE_PAIR_CLASSIFICATION,
    SEQUENCE_CLASSIFICATION,
    SPAN_EXTRACTION,
    TOKEN_CLASSIFICATION,
    read_examples,
)
from bertedu.utils import repo_root

#: The columns of an audit row, in order (a count, or ``None`` where the check does not apply).
COLUMNS = ("file", "item", "items", "in_corpus", "answer_next_in_corpus", "in_training", "part_in_training")


def _norm(text: str) -> str:
    """A sentence as the audit compares it: lower case, single spaces."""
    return " ".join(str(text).lower().split())


@dataclass(frozen=True)
class Corpus:
    """The pretraining corpus as the audit reads it: its lines, its pairs of consecutive lines (within a
    document) and, for each line, the lines that come right after it."""

    lines: frozenset[str]
    pairs: frozenset[tuple[str, str]]
    following: dict[str, frozenset[str]]

    @classmethod
    def from_documents(cls, documents: Sequence[Sequence[str]]) -> Corpus:
        """From documents (lists of sentences, :func:`bertedu.training.data.read_corpus`)."""
        if isinstance(documents, str) or not documents or isinstance(documents[0], str):
            raise ValueError(
                "Corpus.from_documents takes documents (lists of sentences), what read_corpus returns; "
                "for one document pass [sentences]."
            )
        lines, pairs, following = set(), set(), {}
        for document in documents:
            sentences = [_norm(s) for s in document]
            lines.update(sentences)
            for first, second in zip(sentences, sentences[1:]):
                pairs.add((first, second))
                following.setdefault(first, set()).add(second)
        frozen = {line: frozenset(after) for line, after in following.items()}
        return cls(frozenset(lines), frozenset(pairs), frozen)

    def consecutive(self, a: str, b: str) -> bool:
        """True if ``a`` and ``b`` are consecutive lines of one document, in either order."""
        a, b = _norm(a), _norm(b)
        return (a, b) in self.pairs or (b, a) in self.pairs

    def answer_follows(self, question: str, answer: str) -> bool:
        """True if ``question`` is a corpus line and a line right after it holds ``answer`` (as whole words)."""
        answer = f" {_norm(answer)} "
        return any(answer in f" {after} " for after in self.following.get(_norm(question), ()))


def _row(file: str, item: str, n: int, **counts) -> dict:
    row = dict.fromkeys(COLUMNS)
    row.update(file=file, item=item, items=n, **counts)
    return row


def audit_sentences(
    file: str, sentences: Iterable[str], corpus: Corpus, train: Iterable[str] | None = None
) -> dict:
    """Sentences (classification, tagging): how many are corpus lines, and how many are training sentences."""
    sentences = [_norm(s) for s in sentences]
    seen = None if train is None else {_norm(s) for s in train}
    return _row(
        file,
        "sentence",
        len(sentences),
        in_corpus=sum(s in corpus.lines for s in sentences),
        in_training=None if seen is None else sum(s in seen for s in sentences),
    )


def audit_masked_sentences(file: str, items: Iterable[tuple[str, Sequence[str]]], corpus: Corpus) -> dict:
    """Masked-word items ``(sentence with one [MASK], answers)``: how many are a corpus line once an answer fills
    the mask (the model was trained on the very sentence, answer included). There is no training split."""
    items = list(items)
    filled = [
        {_norm(sentence.replace("[MASK]", answer, 1)) for answer in answers} for sentence, answers in items
    ]
    return _row(file, "masked sentence", len(items), in_corpus=sum(bool(f & corpus.lines) for f in filled))


def audit_pairs(
    file: str,
    pairs: Iterable[tuple[str, str]],
    corpus: Corpus,
    train: Iterable[tuple[str, str]] | None = None,
) -> dict:
    """Sentence pairs (NSP, the pair task): how many are consecutive corpus lines (either order), how many are a
    training pair (either order), and how many have a sentence that occurs in a training pair."""
    pairs = [(_norm(a), _norm(b)) for a, b in pairs]
    counts = {"in_corpus": sum(corpus.consecutive(a, b) for a, b in pairs)}
    if train is not None:
        train = [(_norm(a), _norm(b)) for a, b in train]
        seen = set(train) | {(b, a) for a, b in train}
        train_sentences = {s for pair in train for s in pair}
        counts["in_training"] = sum(pair in seen for pair in pairs)
        counts["part_in_training"] = sum(bool(set(pair) & train_sentences) for pair in pairs)
    return _row(file, "sentence pair", len(pairs), **counts)


def audit_questions(
    file: str, items: Iterable[tuple[str, str]], corpus: Corpus, train: Iterable[str] | None = None
) -> dict:
    """Span questions ``(question, answer)``: how many questions are corpus lines, how many of those are followed
    by a line holding the answer, and how many were asked in training (any context)."""
    items = [(_norm(q), a) for q, a in items]
    seen = None if train is None else {_norm(q) for q in train}
    return _row(
        file,
        "question",
        len(items),
        in_corpus=sum(q in corpus.lines for q, _ in items),
        answer_next_in_corpus=sum(corpus.answer_follows(q, a) for q, a in items),
        in_training=None if seen is None else sum(q in seen for q, _ in items),
    )


#: The fine-tuning files :func:`audit_all` checks against their task's training split: task -> file names.
FINETUNE_EVAL_FILES = {
    SEQUENCE_CLASSIFICATION: ("dev.tsv", "test.tsv", "word_order.tsv", "indirect.tsv"),
    SENTENCE_PAIR_CLASSIFICATION: ("dev.tsv", "test.tsv"),
    TOKEN_CLASSIFICATION: ("dev.jsonl", "test.jsonl"),
    SPAN_EXTRACTION: ("dev.jsonl", "test.jsonl"),
}


def _audit_task_file(task: str, path: Path, train: list, corpus: Corpus) -> dict:
    """One fine-tuning evaluation file of ``task`` against its training examples ``train``."""
    file = path.relative_to(path.parents[2]).as_posix()  # finetune/<task>/<name>
    examples = read_examples(task, path)
    if task == SENTENCE_PAIR_CLASSIFICATION:
        pairs = [(e.text, e.text_pair) for e in examples]
        return audit_pairs(file, pairs, corpus, [(e.text, e.text_pair) for e in train])
    if task == TOKEN_CLASSIFICATION:
        sentences = [" ".join(e.words) for e in examples]
        return audit_sentences(file, sentences, corpus, [" ".join(e.words) for e in train])
    if task == SPAN_EXTRACTION:
        items = [(e.question, e.answer) for e in examples]
        return audit_questions(file, items, corpus, [e.question for e in train])
    return audit_sentences(file, [e.text for e in examples], corpus, [e.text for e in train])


def audit_all(data_dir: str | os.PathLike | None = None) -> list[dict]:
    """One row per evaluation file of ``data_dir`` (default: the repository's ``data/``), in :data:`COLUMNS`:
    the held-out pretraining files (``mlm_eval.tsv``, ``mlm_eval_generalise.tsv``, ``probes.tsv``,
    ``nsp_eval.tsv``, ``nsp_eval_hard.tsv``) against the corpus, and every fine-tuning dev/test split and
    slice (:data:`FINETUNE_EVAL_FILES`) against the corpus and its task's training split."""
    data = repo_root() / "data" if data_dir is None else Path(data_dir)
    if not (data / "simple_sentences.txt").is_file():
        raise FileNotFoundError(
            f"No simple_sentences.txt in {data}: pass the data/ folder of the repository."
        )
    corpus = Corpus.from_documents(read_corpus(data / "simple_sentences.txt"))
    rows = []
    for name in ("mlm_eval.tsv", "mlm_eval_generalise.tsv", "probes.tsv"):
        items = [(i.sentence, i.answers) for i in load_masked_word_items(data / name)]
        rows.append(audit_masked_sentences(name, items, corpus))
    for name in ("nsp_eval.tsv", "nsp_eval_hard.tsv"):
        rows.append(
            audit_pairs(name, [(i.sentence_a, i.sentence_b) for i in load_nsp_items(data / name)], corpus)
        )
    for task, names in FINETUNE_EVAL_FILES.items():
        folder = data / "finetune" / task
        train_file = next(
            folder / f"train{ext}" for ext in (".tsv", ".jsonl") if (folder / f"train{ext}").is_file()
        )
        train = read_examples(task, train_file)
        rows += [
            _audit_task_file(task, folder / name, train, corpus)
            for name in names
            if (folder / name).is_file()
        ]
    return rows


def contaminated(rows: Iterable[dict]) -> list[str]:
    """What a clean split must not have, one line per file and count: ``"finetune/span_extraction/test.jsonl:
    40 of 54 in_training"``. Empty when every item of every row is unseen."""
    found = []
    for row in rows:
        for column in COLUMNS[3:]:
            if row.get(column):
                found.append(f"{row['file']}: {row[column]} of {row['items']} {column}")
    return found


def audit_table(data_dir: str | os.PathLike | None = None):
    """:func:`audit_all` as a ``pandas.DataFrame`` indexed by file, counts as whole numbers (``<NA>``: the check
    does not apply to that file). What notebook 07 prints."""
    import pandas as pd  # the notebooks' table library; only this table needs it

    table = pd.DataFrame(audit_all(data_dir), columns=COLUMNS).set_index("file")
    return table.astype({column: "Int64" for column in COLUMNS[2:]})
