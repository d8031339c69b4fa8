"""The course's held-out evaluation files, read in one place for the model's scores and the baselines.

The files in ``data/`` (see ``data/README.md``) hold sentences from the same small world as the training
corpus but not copied from it:

- ``mlm_eval.tsv``: ``sentence<TAB>answers``; the sentence has exactly one ``[MASK]``, ``answers`` lists
  every acceptable word separated by ``|`` (``the cat drinks [MASK]`` -> ``milk``).
- ``nsp_eval.tsv``: ``sentence_a<TAB>sentence_b<TAB>label`` with label ``IsNext`` / ``NotNext`` (or
  Hugging Face's ``0`` / ``1``).
- ``probes.tsv``: the blog post's three probe sentences, in the format of ``mlm_eval.tsv`` plus a ``note``
  column (what the blog post's model predicted), which the reader ignores.

The first line is a header; blank lines are skipped; a byte-order mark (a file saved by Windows Notepad) is
dropped (:func:`read_tsv`, which also reads the fine-tuning TSV files). :mod:`bertedu.training.probes` scores a model on these items and :mod:`bertedu.course.baselines` scores simple rules
on the same items. Introduced in notebook 06.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bertedu.training.data import IS_NEXT, NOT_NEXT

MASK = "[MASK]"
#: The label column's spellings (lower-cased) -> Hugging Face's next_sentence_label (0 = IsNext).
NSP_LABELS = {"isnext": IS_NEXT, "0": IS_NEXT, "notnext": NOT_NEXT, "1": NOT_NEXT}


@dataclass(frozen=True)
class MaskedWordItem:
    """One masked-word question: a sentence with exactly one ``[MASK]`` and the acceptable answers."""

    sentence: str
    answers: tuple[str, ...]


@dataclass(frozen=True)
class NSPItem:
    """One next-sentence question: A, B and the label (Hugging Face's: 0 = IsNext, 1 = NotNext)."""

    sentence_a: str
    sentence_b: str
    next_sentence_label: int

    @property
    def is_next(self) -> bool:
        return self.next_sentence_label == IS_NEXT


def has_one_mask(sentence: str) -> bool:
    """The rule every masked-word item follows: exactly one ``[MASK]``, written as a word of its own."""
    return sentence.count(MASK) == 1 and MASK in sentence.split()


def split_answers(answers: str | Sequence[str]) -> tuple[str, ...]:
    """The acceptable answers, lower-cased: ``"chases | Catches"`` (or a list of words) -> ``("chases", "catches")``."""
    answers = answers.split("|") if isinstance(answers, str) else answers
    return tuple(a.strip().lower() for a in answers if a.strip())


def read_tsv(
    path: str | os.PathLike, columns: Sequence[str] = (), *, hint: str = ""
) -> list[tuple[int, dict]]:
    """Rows of a TSV file with a header line, as ``(line number, {column: field})``: the one reader of the
    course's TSV files (the held-out files here, the fine-tuning files of :mod:`bertedu.training.finetune_data`).

    Header names are lower-cased, names and fields stripped; blank lines are skipped and a byte-order mark is
    dropped; quotes are plain characters. The header must start with ``columns`` (further columns, e.g. a
    ``note``, may follow) and every row must have as many fields as the header. Raises ``FileNotFoundError``
    (followed by ``hint``: where such files are) and ``ValueError`` naming the file and line. Introduced in
    notebook 06.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist{hint}.")
    with open(path, encoding="utf-8-sig", newline="") as fh:  # utf-8-sig: a byte-order mark is dropped
        rows = list(csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    rows = [(i, r) for i, r in enumerate(rows, start=1) if any(cell.strip() for cell in r)]
    names = "<TAB>".join(columns) if columns else "the column names, e.g. sentence<TAB>label"
    if not rows:
        raise ValueError(f"{path} is empty; it needs a header line ({names}) and one item per line.")
    header = [cell.strip().lower() for cell in rows[0][1]]
    if header[: len(columns)] != list(columns):
        raise ValueError(
            f"{path}: the first line must be the header {names} (further columns, "
            f"e.g. a note, may follow), got {rows[0][1]!r}."
        )
    body = []
    for line_no, row in rows[1:]:
        if len(row) != len(header):
            raise ValueError(
                f"{path}, line {line_no}: expected {len(header)} tab-separated fields "
                f"({', '.join(header)}), got {len(row)}: {row!r}. Separate the columns with one tab."
            )
        body.append((line_no, {name: cell.strip() for name, cell in zip(header, row)}))
    if not body:
        raise ValueError(f"{path} has a header but no items.")
    return body


#: Where the course's evaluation files are (the hint of a missing file's error).
_EVAL_FILES_HINT = "; the course's evaluation files are in data/ (bertedu.utils.data_path('mlm_eval.tsv'))"


def load_masked_word_items(path: str | os.PathLike) -> list[MaskedWordItem]:
    """Read ``sentence<TAB>answers`` items (``mlm_eval.tsv``, ``probes.tsv``). Answers are ``|``-separated.

    Raises ``ValueError`` for a sentence without exactly one ``[MASK]`` or an empty answer list.
    """
    items = []
    for line_no, row in read_tsv(path, ("sentence", "answers"), hint=_EVAL_FILES_HINT):
        sentence, answers = row["sentence"], row["answers"]
        if not has_one_mask(sentence):
            raise ValueError(
                f"{path}, line {line_no}: the sentence must contain exactly one [MASK], got {sentence!r}."
            )
        words = split_answers(answers)
        if not words:
            raise ValueError(f"{path}, line {line_no}: no answer given for {sentence!r}.")
        items.append(MaskedWordItem(sentence, words))
    return items


def load_nsp_items(path: str | os.PathLike) -> list[NSPItem]:
    """Read ``sentence_a<TAB>sentence_b<TAB>label`` items (``nsp_eval.tsv``).

    ``label`` is ``IsNext``/``NotNext`` or ``0``/``1`` (Hugging Face: 0 = IsNext).
    """
    items = []
    for line_no, row in read_tsv(path, ("sentence_a", "sentence_b", "label"), hint=_EVAL_FILES_HINT):
        a, b, label = row["sentence_a"], row["sentence_b"], row["label"]
        key = label.strip().lower()
        if key not in NSP_LABELS:
            raise ValueError(
                f"{path}, line {line_no}: label must be IsNext or NotNext (or 0 / 1), got {label!r}."
            )
        if not a or not b:
            raise ValueError(f"{path}, line {line_no}: both sentences must be non-empty.")
        items.append(NSPItem(a, b, NSP_LABELS[key]))
    return items
