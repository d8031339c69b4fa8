"""Fine-tuning: task datasets, one training loop for the three task heads, span decoding, the course recipe.

One pretrained encoder serves many tasks; only a small head changes (Devlin et al. 2019, Section 3.2)::

    task                      model (bertedu.model)            head input -> output          loss
    sequence_classification   BertForSequenceClassification    pooled [CLS] C -> K scores    CE(softmax(C·Wᵀ))
    token_classification      BertForTokenClassification       every T_i -> K scores         mean CE over words
    span_extraction           BertForQuestionAnswering         every T_i -> start, end       CE(start) + CE(end)

The pipeline (notebook 07)::

    data = load_task_data("sentence_classification")                 # {"train": [...], "dev": [...], "test": [...]}
    train = make_dataset("sentence_classification", data["train"], tokenizer)
    model = build_task_model("sentence_classification", pretrained, num_labels=train.num_labels)
    result = fine_tune(model, train, dev, config=FineTuneConfig())     # AdamW, warm-up, early stopping on dev
    evaluate(result.model, test)                                      # {"loss", "accuracy", "macro_f1"}

Labels. Sequence classification reads label *names* (``"plausible"``); the label list is fixed by the
training split (sorted names) and an unknown name elsewhere is a ``ValueError``. Token classification gives
each word's tag to the word's **first** WordPiece piece; the other pieces, [CLS], [SEP] and padding get
-100, so the loss and the token accuracy count every word exactly once (the paper, Section 5.3, uses the
first sub-token too). Span extraction packs ``[CLS] question [SEP] context [SEP]`` (question = segment A,
context = segment B) and turns the answer's character offsets into token positions.

Determinism. ``fine_tune`` seeds its own random-number generator (dropout and batch order) from
``config.seed`` inside ``torch.random.fork_rng``, and :func:`build_task_model` seeds the fresh head the
same way, so the same call gives the same weights on the same machine and the notebook's global random
state is left untouched.

Introduced in notebook 07.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import logging
import math
import os
import shutil
import tempfile
import time
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from bertedu.config import BertConfig
from bertedu.losses import IGNORE_INDEX
from bertedu.metrics import accuracy, macro_f1, squad_scores, token_accuracy
from bertedu.model import (
    BertForQuestionAnswering,
    BertForSequenceClassification,
    BertForTokenClassification,
    BertPreTrainedModel,
)
from bertedu.utils import atomic_write_json

logger = logging.getLogger(__name__)

SEQUENCE_CLASSIFICATION = "sentence_classification"
TOKEN_CLASSIFICATION = "token_classification"
SPAN_EXTRACTION = "span_extraction"
TASKS = (SEQUENCE_CLASSIFICATION, TOKEN_CLASSIFICATION, SPAN_EXTRACTION)
TASK_MODELS: dict[str, type[BertPreTrainedModel]] = {
    SEQUENCE_CLASSIFICATION: BertForSequenceClassification,
    TOKEN_CLASSIFICATION: BertForTokenClassification,
    SPAN_EXTRACTION: BertForQuestionAnswering,
}
#: The dev metric that picks the best epoch (higher is better; ties go to the lower dev loss).
MAIN_METRIC = {
    SEQUENCE_CLASSIFICATION: "accuracy",
    TOKEN_CLASSIFICATION: "token_accuracy",
    SPAN_EXTRACTION: "f1",
}
#: The paper's fine-tuning grid (Appendix A.3): batch 16 or 32, Adam lr 5e-5 / 3e-5 / 2e-5, 2-4 epochs.
PAPER_BATCH_SIZES = (16, 32)
PAPER_LEARNING_RATES = (5e-5, 3e-5, 2e-5)
PAPER_EPOCHS = (2, 3, 4)
STATE_NAME = "finetune_state.json"


def check_task(task: str) -> str:
    """Return ``task`` if it is one of :data:`TASKS`, else raise a ``ValueError`` listing them."""
    if task not in TASKS:
        raise ValueError(f"Unknown task {task!r}; choose one of {list(TASKS)}.")
    return task


# ----------------------------------------------------------------------------------------------------------
# Examples and label sets


@dataclass(frozen=True)
class ClassificationExample:
    """One sentence (or sentence pair) and its label name. Introduced in notebook 07."""

    text: str
    label: str
    text_pair: str | None = None


@dataclass(frozen=True)
class TaggingExample:
    """One sentence as words, with one tag per word (e.g. part of speech). Introduced in notebook 07."""

    words: tuple[str, ...]
    tags: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.words) != len(self.tags):
            raise ValueError(
                f"{len(self.words)} words but {len(self.tags)} tags in {' '.join(self.words)!r}: every word needs "
                "exactly one tag."
            )
        if not self.words:
            raise ValueError("A tagging example needs at least one word.")


@dataclass(frozen=True)
class SpanExample:
    """A question, a context and the answer: its text and its first character in the context.

    ``answers`` may list further acceptable answers (for exact match / F1); the first one is ``answer``.
    Introduced in notebook 07.
    """

    question: str
    context: str
    answer: str
    answer_start: int
    answers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.answer or not self.answer.strip():
            raise ValueError(f"The answer to {self.question!r} is empty; every example needs an answer span.")
        end = self.answer_start + len(self.answer)
        if not 0 <= self.answer_start or end > len(self.context):
            raise ValueError(
                f"The answer span [{self.answer_start}, {end}) lies outside the context ({len(self.context)} "
                f"characters) of {self.question!r}."
            )
        if self.context[self.answer_start : end] != self.answer:
            raise ValueError(
                f"The context has {self.context[self.answer_start : end]!r} at characters [{self.answer_start}, {end}), "
                f"not the answer {self.answer!r}: answer_start must be the answer's first character in the context."
            )

    @property
    def gold_answers(self) -> tuple[str, ...]:
        """Every acceptable answer (the span's text first)."""
        return (self.answer, *[a for a in self.answers if a != self.answer])


@dataclass(frozen=True)
class LabelSet:
    """Label names and their ids (id = position in ``names``). Introduced in notebook 07."""

    names: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.names:
            raise ValueError("A label set needs at least one label.")
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"Label names must be unique, got {list(self.names)}.")

    @classmethod
    def from_labels(cls, labels: Iterable[str]) -> LabelSet:
        """The sorted distinct names of ``labels`` (so the ids do not depend on the order of the data)."""
        return cls(tuple(sorted(set(labels))))

    def __len__(self) -> int:
        return len(self.names)

    def id(self, name: str) -> int:
        """The id of label ``name``; an unknown name raises ``ValueError`` listing the known ones."""
        try:
            return self.names.index(name)
        except ValueError:
            raise ValueError(
                f"Unknown label {name!r}; the known labels are {list(self.names)} (taken from the training split)."
            ) from None

    def name(self, label_id: int) -> str:
        """The name of label id ``label_id``."""
        if not isinstance(label_id, int) or not 0 <= label_id < len(self.names):
            raise ValueError(
                f"Label id {label_id!r} is out of range: ids run from 0 to {len(self.names) - 1}."
            )
        return self.names[label_id]


# ----------------------------------------------------------------------------------------------------------
# Reading the course's data files (format: data/README.md)


def task_data_dir(task: str) -> Path:
    """``data/finetune/<task>/`` in the repository. Introduced in notebook 07."""
    from bertedu.utils import data_path

    return data_path(f"finetune/{check_task(task)}")


def _read_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist.")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path.name}, line {number} is not valid JSON: {err}") from None
        if not isinstance(row, dict):
            raise ValueError(f"{path.name}, line {number}: expected a JSON object, got {type(row).__name__}.")
        rows.append(row)
    return rows


def _field(row: dict, key: str, where: str):
    if key not in row:
        raise ValueError(
            f"{where} has no {key!r} field (fields: {sorted(row)}); see data/README.md for the format."
        )
    return row[key]


def _read_tsv(path: Path) -> list[dict]:
    """A TSV file with a header row -> one dict per data row (blank lines skipped)."""
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist.")
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines:
        raise ValueError(f"{path} is empty: it needs a header row (e.g. 'sentence<TAB>label') and examples.")
    header = lines[0].split("\t")
    rows = []
    for number, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) != len(header):
            raise ValueError(
                f"{path.name}, line {number} has {len(cells)} columns but the header has {len(header)} "
                f"({header}); separate the columns with one tab."
            )
        rows.append(dict(zip(header, cells)))
    return rows


def read_examples(task: str, path: str | os.PathLike) -> list:
    """Read one split file of ``task`` into examples (formats: data/README.md).

    - sentence classification: ``.tsv`` with a header ``sentence<TAB>label`` (an optional ``sentence_b``
      column makes sentence pairs), or ``.jsonl`` with ``{"text", "label"}`` (and ``"text_pair"``);
    - token classification: ``.jsonl``, ``{"tokens": [...], "tags": [...]}`` (one tag per word);
    - span extraction: ``.jsonl``, ``{"question", "context", "answer", "answer_start"}`` (SQuAD style:
      ``context[answer_start:answer_start + len(answer)] == answer``; optional ``"answers"``, more gold answers).

    Raises ``FileNotFoundError`` for a missing file and ``ValueError`` naming the example for a malformed one.
    Introduced in notebook 07.
    """
    check_task(task)
    path = Path(path)
    rows = _read_tsv(path) if path.suffix == ".tsv" else _read_jsonl(path)
    examples: list = []
    for number, row in enumerate(rows, 1):
        where = f"{path.name}, example {number}"
        if task == SEQUENCE_CLASSIFICATION:
            text = row["sentence"] if "sentence" in row else _field(row, "text", where)
            pair = row.get("sentence_b", row.get("text_pair"))
            examples.append(
                ClassificationExample(
                    str(text), str(_field(row, "label", where)), None if pair in (None, "") else str(pair)
                )
            )
        elif task == TOKEN_CLASSIFICATION:
            words, tags = _field(row, "tokens", where), _field(row, "tags", where)
            try:
                examples.append(TaggingExample(tuple(words), tuple(tags)))
            except ValueError as err:
                raise ValueError(f"{where}: {err}") from None
        else:
            answer = _field(row, "answer", where)
            try:
                examples.append(
                    SpanExample(
                        str(_field(row, "question", where)),
                        str(_field(row, "context", where)),
                        str(answer),
                        int(_field(row, "answer_start", where)),
                        tuple(row.get("answers", ())),
                    )
                )
            except ValueError as err:
                raise ValueError(f"{where}: {err}") from None
    if not examples:
        raise ValueError(f"{path} holds no examples.")
    return examples


def load_task_data(task: str, directory: str | os.PathLike | None = None) -> dict[str, list]:
    """The train, dev and test examples of one of the course's tasks: ``{"train": [...], "dev": [...], "test": [...]}``.

    ``directory`` defaults to ``data/finetune/<task>/``. Introduced in notebook 07.
    """
    folder = task_data_dir(task) if directory is None else Path(directory)
    out = {}
    for split in ("train", "dev", "test"):
        candidates = [folder / f"{split}{ext}" for ext in (".tsv", ".jsonl")]
        found = [c for c in candidates if c.is_file()]
        if not found:
            raise FileNotFoundError(f"No {split}.tsv or {split}.jsonl in {folder}; see data/README.md.")
        out[split] = read_examples(task, found[0])
    return out


# ----------------------------------------------------------------------------------------------------------
# Tokenizing with character offsets


def _normalise_char(char: str, tokenizer) -> str:
    """What the basic tokenizer turns one character into (possibly nothing, or two characters)."""
    if (
        char == "\x00"
        or char == "\ufffd"
        or (unicodedata.category(char).startswith("C") and char not in "\t\n\r")
    ):
        return ""
    if char.isspace():
        return " "
    if tokenizer.do_lower_case:
        char = char.lower()
    strip = tokenizer.strip_accents
    if strip or (strip is None and tokenizer.do_lower_case):
        char = "".join(c for c in unicodedata.normalize("NFD", char) if unicodedata.category(c) != "Mn")
    return char


def tokenize_with_offsets(tokenizer, text: str) -> list[tuple[str, int, int]]:
    """WordPiece tokens of ``text`` with the character span ``[start, end)`` of each in ``text``.

    Same tokens as ``tokenizer.tokenize(text)``; a ``##`` piece covers its own characters, an ``[UNK]``
    the whole word. ``(token, start, end)`` triples. Introduced in notebook 07.
    """
    normalised, owner = [], []  # normalised characters, and the index in `text` each one came from
    for i, char in enumerate(text):
        for piece in _normalise_char(char, tokenizer):
            normalised.append(piece)
            owner.append(i)
    flat = "".join(normalised)
    out: list[tuple[str, int, int]] = []
    cursor = 0
    for word in tokenizer.basic_tokenizer.tokenize(text):
        special = word in tokenizer.basic_tokenizer.never_split
        target = "".join(_normalise_char(c, tokenizer) for c in word) if special else word
        pos = flat.find(target, cursor)
        if pos < 0:  # cannot happen for the course tokenizer; say so clearly if it ever does
            raise ValueError(
                f"Could not locate the word {word!r} in {text!r} while computing character offsets."
            )
        pieces = [word] if special else tokenizer.wordpiece_tokenizer.tokenize_word(word)
        offset = pos
        for piece in pieces:
            length = len(target) if piece == tokenizer.unk_token or special else len(piece.removeprefix("##"))
            out.append((piece, owner[offset], owner[offset + length - 1] + 1))
            offset += length
        cursor = pos + len(target)
    return out


# ----------------------------------------------------------------------------------------------------------
# Encoding one example


def encode_classification(
    example: ClassificationExample, tokenizer, labels: LabelSet, max_length: int
) -> dict:
    """``[CLS] text [SEP]`` (or a pair) -> ``input_ids``, ``token_type_ids`` and the label id. Introduced in notebook 07."""
    enc = tokenizer.encode(example.text, example.text_pair, max_length=max_length, truncation=True)
    return {
        "input_ids": enc["input_ids"],
        "token_type_ids": enc["token_type_ids"],
        "labels": labels.id(example.label),
    }


def align_word_labels(
    words: Sequence[str], tags: Sequence[str], tokenizer, labels: LabelSet, max_length: int
) -> dict:
    """Tokenize words and give each word's tag to its **first** piece; other pieces, [CLS], [SEP] get -100.

    ``["the", "dog", "barks"]``, ``["DET", "NOUN", "VERB"]`` with ``barks -> bark ##s`` gives
    ``[CLS] the dog bark ##s [SEP]`` and labels ``[-100, DET, NOUN, VERB, -100, -100]`` (as ids). Also returns
    ``word_index`` (the word each token starts, -1 elsewhere). Raises ``ValueError`` if the numbers of words
    and tags differ, for an unknown tag, or if the pieces do not fit in ``max_length``.
    Introduced in notebook 07.
    """
    if len(words) != len(tags):
        raise ValueError(f"{len(words)} words but {len(tags)} tags: every word needs exactly one tag.")
    ids, label_ids, word_index = [tokenizer.cls_token_id], [IGNORE_INDEX], [-1]
    for w, (word, tag) in enumerate(zip(words, tags)):
        pieces = tokenizer.tokenize(word)
        if not pieces:
            raise ValueError(
                f"The word {word!r} produces no token; remove it (and its tag) from the example."
            )
        ids.extend(tokenizer.convert_tokens_to_ids(pieces))
        label_ids.extend([labels.id(tag)] + [IGNORE_INDEX] * (len(pieces) - 1))
        word_index.extend([w] + [-1] * (len(pieces) - 1))
    ids.append(tokenizer.sep_token_id)
    label_ids.append(IGNORE_INDEX)
    word_index.append(-1)
    if len(ids) > max_length:
        raise ValueError(
            f"{' '.join(words)!r} needs {len(ids)} tokens but max_length is {max_length}: truncating would drop "
            "the tags of its last words. Raise max_length."
        )
    return {"input_ids": ids, "token_type_ids": [0] * len(ids), "labels": label_ids, "word_index": word_index}


def encode_span(example: SpanExample, tokenizer, max_length: int) -> dict:
    """``[CLS] question [SEP] context [SEP]`` with the answer as token positions ``start_positions``/``end_positions``.

    The answer's characters ``[answer_start, answer_start + len(answer))`` become the first and last context
    token overlapping them. Also returns ``offsets`` (character span in the context of every token; ``None``
    outside the context) and ``context_mask`` (1 on context tokens). A context longer than the room left by
    the question is cut at the end; if that cuts the answer, a ``ValueError`` says so.
    Introduced in notebook 07.
    """
    question_ids = tokenizer.convert_tokens_to_ids(tokenizer.tokenize(example.question))
    context_tokens = tokenize_with_offsets(tokenizer, example.context)
    room = max_length - len(question_ids) - 3  # [CLS] question [SEP] context [SEP]
    if room < 1:
        raise ValueError(
            f"The question {example.question!r} leaves no room for the context in max_length={max_length}."
        )
    a_start, a_end = example.answer_start, example.answer_start + len(example.answer)
    inside = [i for i, (_, s, e) in enumerate(context_tokens) if s < a_end and e > a_start]
    if not inside:
        raise ValueError(
            f"No token of the context covers the answer {example.answer!r} of {example.question!r}."
        )
    if inside[-1] >= room:
        raise ValueError(
            f"The answer {example.answer!r} ends at context token {inside[-1]}, outside the sequence: only {room} "
            f"context tokens fit in max_length={max_length} after the question. Raise max_length."
        )
    context_tokens = context_tokens[:room]
    first = len(question_ids) + 2  # position of the first context token
    ids = (
        [tokenizer.cls_token_id, *question_ids, tokenizer.sep_token_id]
        + tokenizer.convert_tokens_to_ids([t for t, _, _ in context_tokens])
        + [tokenizer.sep_token_id]
    )
    n_context = len(context_tokens)
    return {
        "input_ids": ids,
        "token_type_ids": [0] * first + [1] * (n_context + 1),
        "start_positions": first + inside[0],
        "end_positions": first + inside[-1],
        "offsets": [None] * first + [(s, e) for _, s, e in context_tokens] + [None],
        "context_mask": [0] * first + [1] * n_context + [0],
    }


# ----------------------------------------------------------------------------------------------------------
# Datasets and batches

_EXAMPLE_TYPES = {
    SEQUENCE_CLASSIFICATION: ClassificationExample,
    TOKEN_CLASSIFICATION: TaggingExample,
    SPAN_EXTRACTION: SpanExample,
}


def _check_examples(task: str, examples: list) -> None:
    if not examples:
        raise ValueError(f"The {task} dataset is empty: give at least one example.")
    expected = _EXAMPLE_TYPES[task]
    wrong = [type(e).__name__ for e in examples if not isinstance(e, expected)]
    if wrong:
        raise ValueError(f"A {task} dataset needs {expected.__name__} items, got {wrong[0]}.")


_MODEL_KEYS = {
    SEQUENCE_CLASSIFICATION: ("input_ids", "token_type_ids", "labels"),
    TOKEN_CLASSIFICATION: ("input_ids", "token_type_ids", "labels"),
    SPAN_EXTRACTION: ("input_ids", "token_type_ids", "start_positions", "end_positions"),
}


class TaskDataset(torch.utils.data.Dataset):
    """The encoded examples of one task, ready for batching. Item ``i``: a dict of lists / ints.

    Build it with :func:`make_dataset`. ``labels`` is the :class:`LabelSet` (``None`` for span extraction),
    ``features`` the full encodings (with offsets etc.), ``examples`` the originals. ``collate(items)``
    pads a list of items into a batch of ``(B, T)`` tensors whose keys are the model's forward arguments.
    Introduced in notebook 07.
    """

    def __init__(self, task: str, examples: Sequence, tokenizer, labels: LabelSet | None, max_length: int):
        self.task = check_task(task)
        self.examples = list(examples)
        if not self.examples:
            raise ValueError(f"The {task} dataset is empty: give at least one example.")
        if not isinstance(max_length, int) or max_length < 3:
            raise ValueError(f"max_length must be an integer >= 3, got {max_length!r}.")
        _check_examples(task, self.examples)
        self.tokenizer = tokenizer
        self.labels = labels
        self.max_length = max_length
        self.pad_token_id = tokenizer.pad_token_id
        features = []
        for i, ex in enumerate(self.examples):
            try:
                if task == SEQUENCE_CLASSIFICATION:
                    features.append(encode_classification(ex, tokenizer, labels, max_length))
                elif task == TOKEN_CLASSIFICATION:
                    features.append(align_word_labels(ex.words, ex.tags, tokenizer, labels, max_length))
                else:
                    features.append(encode_span(ex, tokenizer, max_length))
            except ValueError as err:
                raise ValueError(f"Example {i}: {err}") from None
        self.features = features

    @property
    def num_labels(self) -> int:
        """Number of classes (2 for span extraction: start and end)."""
        return len(self.labels) if self.labels is not None else 2

    def __len__(self) -> int:
        return len(self.features)

    def __getitem__(self, index: int) -> dict:
        feature = self.features[index]
        return {key: feature[key] for key in _MODEL_KEYS[self.task]}

    def subset(self, indices: Sequence[int]) -> TaskDataset:
        """A dataset with only the items at ``indices`` (same tokenizer and labels; nothing re-encoded)."""
        indices = list(indices)
        if not indices:
            raise ValueError("A subset needs at least one index: the dataset would be empty.")
        new = copy.copy(self)
        new.examples = [self.examples[i] for i in indices]
        new.features = [self.features[i] for i in indices]
        return new

    def collate(self, items: Sequence[dict]) -> dict[str, torch.Tensor]:
        """Pad ``items`` on the right into tensors: ``input_ids``/``token_type_ids``/``attention_mask`` ``(B, T)``,
        and ``labels`` ``(B,)`` or ``(B, T)`` (padding -100), or ``start_positions``/``end_positions`` ``(B,)``."""
        longest = max(len(item["input_ids"]) for item in items)

        def pad(rows, value):
            return torch.tensor([list(r) + [value] * (longest - len(r)) for r in rows], dtype=torch.long)

        batch = {
            "input_ids": pad([it["input_ids"] for it in items], self.pad_token_id),
            "token_type_ids": pad([it["token_type_ids"] for it in items], 0),
            "attention_mask": pad([[1] * len(it["input_ids"]) for it in items], 0),
        }
        if self.task == TOKEN_CLASSIFICATION:
            batch["labels"] = pad([it["labels"] for it in items], IGNORE_INDEX)
        elif self.task == SEQUENCE_CLASSIFICATION:
            batch["labels"] = torch.tensor([it["labels"] for it in items], dtype=torch.long)
        else:
            for key in ("start_positions", "end_positions"):
                batch[key] = torch.tensor([it[key] for it in items], dtype=torch.long)
        return batch

    def batches(self, batch_size: int, *, shuffle: bool = False, generator: torch.Generator | None = None):
        """Yield ``(indices, batch)`` pairs over the dataset (in order, or shuffled with ``generator``)."""
        order = torch.randperm(len(self), generator=generator).tolist() if shuffle else list(range(len(self)))
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            yield idx, self.collate([self[i] for i in idx])

    def __repr__(self) -> str:
        labels = f", labels={list(self.labels.names)}" if self.labels is not None else ""
        return f"TaskDataset({self.task!r}, {len(self)} examples{labels}, max_length={self.max_length})"


def make_dataset(
    task: str, examples: Sequence, tokenizer, *, labels: LabelSet | None = None, max_length: int = 64
) -> TaskDataset:
    """Encode ``examples`` of ``task`` with ``tokenizer``. ``labels`` defaults to the sorted label names of
    these examples: pass the training set's ``dataset.labels`` when you build the dev and test sets, so the ids
    agree (an unseen label is then a ``ValueError``). Introduced in notebook 07."""
    check_task(task)
    examples = list(examples)
    _check_examples(task, examples)
    if task != SPAN_EXTRACTION and labels is None:
        names = (
            [getattr(e, "label", None) for e in examples]
            if task == SEQUENCE_CLASSIFICATION
            else [t for e in examples for t in getattr(e, "tags", ())]
        )
        labels = LabelSet.from_labels(n for n in names if n is not None)
    return TaskDataset(task, examples, tokenizer, labels if task != SPAN_EXTRACTION else None, max_length)


def make_task_datasets(
    task: str, tokenizer, *, max_length: int = 64, data: dict[str, list] | None = None
) -> dict[str, TaskDataset]:
    """``{"train", "dev", "test"}`` datasets of one of the course's tasks, sharing the training labels.

    ``data`` defaults to :func:`load_task_data` ``(task)``. Introduced in notebook 07.
    """
    data = load_task_data(task) if data is None else data
    train = make_dataset(task, data["train"], tokenizer, max_length=max_length)
    out = {"train": train}
    for split in ("dev", "test"):
        out[split] = make_dataset(task, data[split], tokenizer, labels=train.labels, max_length=max_length)
    return out


# ----------------------------------------------------------------------------------------------------------
# Span decoding


def best_span(
    start_logits: torch.Tensor,
    end_logits: torch.Tensor,
    context_mask: torch.Tensor,
    max_answer_length: int = 30,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The highest-scoring valid answer span of each row: ``argmax over (i, j) of start[i] + end[j]``.

    Valid means ``i <= j``, ``j - i < max_answer_length`` and both ``i`` and ``j`` in the context
    (``context_mask`` 1). Inputs ``(B, T)`` (or ``(T,)``), returns ``(starts, ends)`` of shape ``(B,)``
    (or scalars). Taking the argmax of the start and end scores separately, as a quick demo often does,
    can return an end before the start or a "span" in the question. Introduced in notebook 07.
    """
    squeeze = start_logits.dim() == 1
    if squeeze:
        start_logits, end_logits, context_mask = start_logits[None], end_logits[None], context_mask[None]
    if (
        start_logits.shape != end_logits.shape
        or start_logits.shape != context_mask.shape
        or start_logits.dim() != 2
    ):
        raise ValueError(
            f"start_logits {tuple(start_logits.shape)}, end_logits {tuple(end_logits.shape)} and context_mask "
            f"{tuple(context_mask.shape)} must all be (B, T)."
        )
    if not isinstance(max_answer_length, int) or max_answer_length < 1:
        raise ValueError(f"max_answer_length must be a positive integer, got {max_answer_length!r}.")
    if not (torch.isfinite(start_logits).all() and torch.isfinite(end_logits).all()):
        raise ValueError("The start/end logits contain NaN or infinite values; the model has diverged.")
    context = context_mask.bool()
    if not context.any(dim=1).all():
        raise ValueError("A row of context_mask has no context token: there is nowhere to put an answer.")
    B, T = start_logits.shape
    scores = start_logits.float()[:, :, None] + end_logits.float()[:, None, :]  # (B, T, T): start i, end j
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    allowed = (j >= i) & (j - i < max_answer_length)  # (T, T)
    allowed = allowed[None] & context[:, :, None] & context[:, None, :]  # (B, T, T)
    best = scores.masked_fill(~allowed, float("-inf")).view(B, -1).argmax(dim=1)  # (B,) flat index i * T + j
    starts, ends = best // T, best % T
    return (starts[0], ends[0]) if squeeze else (starts, ends)


def span_to_text(feature: dict, context: str, start: int, end: int) -> str:
    """The context's characters covered by tokens ``start..end`` of an encoded span example."""
    offsets = feature["offsets"]
    if not (0 <= start <= end < len(offsets)) or offsets[start] is None or offsets[end] is None:
        raise ValueError(f"Tokens {start}..{end} are not a span of the context.")
    return context[offsets[start][0] : offsets[end][1]]


# ----------------------------------------------------------------------------------------------------------
# Models


def build_task_model(
    task: str, source, *, num_labels: int = 2, seed: int = 0, quiet: bool = True, **config_overrides: Any
) -> BertPreTrainedModel:
    """The task model of ``task`` with a fresh head (seeded) on the encoder given by ``source``:

    - a :class:`BertConfig`: every weight random (the *from-scratch* control);
    - a bertedu model (e.g. notebook 06's ``BertForPreTraining``): its encoder weights are copied;
    - a Hugging Face-format directory (``config.json`` + weights), e.g. ``bertedu.pretrained.minilm_dir()``.

    With ``quiet=True`` the expected "head starts from random initialisation" warning is not logged, but
    an encoder weight missing from ``source`` is a ``ValueError``. The model is returned in train mode.
    Introduced in notebook 07.
    """
    cls = TASK_MODELS[check_task(task)]
    if task == SPAN_EXTRACTION:
        num_labels = 2
    if not isinstance(num_labels, int) or num_labels < 1:
        raise ValueError(f"num_labels must be a positive integer, got {num_labels!r}.")
    state = None
    if isinstance(source, BertConfig):
        config = source
    elif isinstance(source, BertPreTrainedModel):
        config, state = source.config, source.state_dict()
    elif isinstance(source, (str, os.PathLike)):
        from bertedu.model import load_checkpoint_file

        directory = Path(source)
        config = BertConfig.from_json_file(directory)
        state = load_checkpoint_file(directory)
    else:
        raise ValueError(
            f"source must be a BertConfig, a bertedu model or a checkpoint folder, got {type(source).__name__}."
        )
    config = config.replace(num_labels=num_labels, architectures=None, **config_overrides)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = cls(config)
    if state is not None:
        model_logger = logging.getLogger("bertedu.model")
        level = model_logger.level
        if quiet:
            model_logger.setLevel(logging.ERROR)
        try:
            info = model.load_hf_state_dict(state, source="the pretrained weights")
        finally:
            model_logger.setLevel(level)
        heads = ("classifier.", "qa_outputs.")
        encoder_missing = [k for k in info.missing_keys if not k.startswith(heads)]
        if encoder_missing:
            raise ValueError(
                f"The pretrained weights lack {len(encoder_missing)} encoder tensors (e.g. {encoder_missing[0]}): "
                "they are not a BERT encoder of this size."
            )
    return model.train()


# ----------------------------------------------------------------------------------------------------------
# Training


@dataclass
class FineTuneConfig:
    """The settings of a fine-tuning run; defaults are the paper's recipe (Appendix A.3).

    The learning rate used is ``learning_rate * lr_scale``: ``learning_rate`` is one of the paper's values
    (5e-5, 3e-5, 2e-5) and ``lr_scale`` the factor a small model needs (see :func:`course_recipe`).
    ``warmup_ratio`` of the planned steps warm the learning rate up linearly, then it decays linearly to 0.
    With a dev set, the model is evaluated after every epoch; the epoch with the best ``metric`` (ties: lower
    dev loss) is kept, and training stops after ``patience`` epochs without improvement (``None``: never).
    ``min_steps`` adds epochs until at least that many optimizer steps are planned (a training set of 8
    examples is one step per epoch), and early stopping never stops before them.
    Introduced in notebook 07.
    """

    learning_rate: float = 5e-5
    lr_scale: float = 1.0
    batch_size: int = 32
    epochs: int = 3
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    max_grad_norm: float = 1.0
    patience: int | None = None
    metric: str | None = None  # default: MAIN_METRIC of the task
    seed: int = 0
    max_answer_length: int = 30  # span extraction: longest answer (in tokens) decoding may return
    min_steps: int = 0  # train for at least this many optimizer steps (more epochs on a tiny training set)
    progress: bool = True

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first setting that cannot work."""
        if not isinstance(self.min_steps, int) or isinstance(self.min_steps, bool) or self.min_steps < 0:
            raise ValueError(f"min_steps must be an integer >= 0, got {self.min_steps!r}.")
        for name in ("batch_size", "epochs", "max_answer_length"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}.")
        for name in ("learning_rate", "lr_scale"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                raise ValueError(f"{name} must be a positive number, got {value!r}.")
        if not 0 < self.lr < 1:
            raise ValueError(f"learning_rate * lr_scale = {self.lr!r} must be between 0 and 1.")
        if not isinstance(self.warmup_ratio, (int, float)) or not 0 <= self.warmup_ratio < 1:
            raise ValueError(f"warmup_ratio must be in [0, 1), got {self.warmup_ratio!r}.")
        for name in ("weight_decay", "max_grad_norm"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a non-negative number, got {value!r}.")
        if self.patience is not None and (not isinstance(self.patience, int) or self.patience < 1):
            raise ValueError(
                f"patience must be None (no early stopping) or an integer >= 1, got {self.patience!r}."
            )
        if not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {self.seed!r}.")

    @property
    def lr(self) -> float:
        """The peak learning rate actually used: ``learning_rate * lr_scale``."""
        return self.learning_rate * self.lr_scale

    def replace(self, **changes: Any) -> FineTuneConfig:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class FineTuneResult:
    """What :func:`fine_tune` returns: the model (best dev epoch restored, eval mode), the history records
    (``{"step", "epoch", "split": "train"|"eval", "loss", metrics..., "lr"}``), the best epoch and its dev
    metrics, whether training stopped early, and the wall-clock seconds. Introduced in notebook 07."""

    model: BertPreTrainedModel
    history: list[dict]
    best_epoch: int | None
    best_metrics: dict[str, float]
    epochs_run: int
    stopped_early: bool
    steps: int
    train_seconds: float = field(default=0.0, compare=False)


def make_optimizer(model: torch.nn.Module, config: FineTuneConfig, total_steps: int):
    """AdamW (β = 0.9, 0.999, ε = 1e-6 as BERT; weight decay on weight matrices only) and the linear
    warm-up / linear decay schedule over ``total_steps``. Returns ``(optimizer, scheduler)``.
    Introduced in notebook 07."""
    from bertedu.pretrain import linear_schedule

    decay, no_decay = [], []
    for name, param in model.named_parameters():
        if param.requires_grad:
            (no_decay if param.dim() < 2 or "LayerNorm" in name else decay).append(param)
    groups = [
        {"params": decay, "weight_decay": config.weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=config.lr, betas=(0.9, 0.999), eps=1e-6)
    warmup = round(config.warmup_ratio * total_steps)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, linear_schedule(warmup, total_steps))
    return optimizer, scheduler


def _check_model_fits(model: BertPreTrainedModel, dataset: TaskDataset) -> None:
    expected = TASK_MODELS[dataset.task]
    if not isinstance(model, expected):
        raise ValueError(f"A {dataset.task} dataset needs a {expected.__name__}, got {type(model).__name__}.")
    if dataset.task != SPAN_EXTRACTION and model.config.num_labels != dataset.num_labels:
        raise ValueError(
            f"The model has {model.config.num_labels} output classes but the dataset {dataset.num_labels} labels "
            f"{list(dataset.labels.names)}; build the model with num_labels={dataset.num_labels}."
        )
    vocab = model.config.vocab_size
    if dataset.tokenizer.vocab_size > vocab:
        raise ValueError(
            f"The tokenizer has {dataset.tokenizer.vocab_size} tokens but the model only {vocab} embeddings: use the "
            "tokenizer the encoder was pretrained with."
        )
    longest = max(len(f["input_ids"]) for f in dataset.features)
    if longest > model.config.max_position_embeddings:
        raise ValueError(
            f"Sequences of {longest} tokens exceed the model's max_position_embeddings="
            f"{model.config.max_position_embeddings}; lower max_length."
        )


@torch.no_grad()
def predict(
    model: BertPreTrainedModel, dataset: TaskDataset, *, batch_size: int = 64, max_answer_length: int = 30
) -> list:
    """The model's predictions for every item of ``dataset`` (eval mode, no dropout):

    - sequence classification: label ids;
    - token classification: a list of tag ids per sentence, one per word;
    - span extraction: ``(start, end, answer_text)`` per example, from :func:`best_span`.

    Introduced in notebook 07.
    """
    _check_model_fits(model, dataset)
    was_training = model.training
    model.eval()
    out: list = []
    try:
        for idx, batch in dataset.batches(batch_size):
            inputs = {k: batch[k] for k in ("input_ids", "attention_mask", "token_type_ids")}
            result = model(**inputs)
            if dataset.task == SEQUENCE_CLASSIFICATION:
                out.extend(result.logits.argmax(-1).tolist())
            elif dataset.task == TOKEN_CLASSIFICATION:
                preds = result.logits.argmax(-1)  # (B, T)
                for row, i in enumerate(idx):
                    first = [t for t, w in enumerate(dataset.features[i]["word_index"]) if w >= 0]
                    out.append(preds[row, first].tolist())
            else:
                T = batch["input_ids"].shape[1]
                mask = torch.tensor(
                    [
                        dataset.features[i]["context_mask"]
                        + [0] * (T - len(dataset.features[i]["context_mask"]))
                        for i in idx
                    ],
                    dtype=torch.bool,
                )
                starts, ends = best_span(result.start_logits, result.end_logits, mask, max_answer_length)
                for row, i in enumerate(idx):
                    s, e = int(starts[row]), int(ends[row])
                    out.append((s, e, span_to_text(dataset.features[i], dataset.examples[i].context, s, e)))
    finally:
        model.train(was_training)
    return out


@torch.no_grad()
def evaluate(
    model: BertPreTrainedModel, dataset: TaskDataset, *, batch_size: int = 64, max_answer_length: int = 30
) -> dict[str, float]:
    """Loss and metrics of ``model`` on ``dataset`` (eval mode). Returns a dict of floats:

    - sequence classification: ``loss``, ``accuracy``, ``macro_f1``;
    - token classification: ``loss``, ``token_accuracy`` (one vote per word), ``macro_f1`` (over words);
    - span extraction: ``loss``, ``exact_match``, ``f1`` (SQuAD-style, :mod:`bertedu.metrics`).

    Introduced in notebook 07.
    """
    _check_model_fits(model, dataset)
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    try:
        for idx, batch in dataset.batches(batch_size):
            n = len(idx)
            total += model(**batch).loss.item() * n
            count += n
    finally:
        model.train(was_training)
    metrics = {"loss": total / count}
    preds = predict(model, dataset, batch_size=batch_size, max_answer_length=max_answer_length)
    if dataset.task == SEQUENCE_CLASSIFICATION:
        golds = [f["labels"] for f in dataset.features]
        metrics.update(accuracy=accuracy(preds, golds), macro_f1=macro_f1(preds, golds))
    elif dataset.task == TOKEN_CLASSIFICATION:
        flat_pred = [p for row in preds for p in row]
        flat_gold = [lab for f in dataset.features for lab in f["labels"] if lab != IGNORE_INDEX]
        metrics.update(
            token_accuracy=token_accuracy(flat_pred, flat_gold), macro_f1=macro_f1(flat_pred, flat_gold)
        )
    else:
        metrics.update(squad_scores([p[2] for p in preds], [ex.gold_answers for ex in dataset.examples]))
    return metrics


def save_finetuned(
    directory: str | os.PathLike, model: BertPreTrainedModel, tokenizer=None, state: dict | None = None
) -> Path:
    """Write an HF-format model folder (``config.json``, ``model.safetensors``, ``vocab.txt``) plus
    ``finetune_state.json`` atomically: into a temporary folder next to ``directory``, then renamed into
    place, so a crash never leaves a half-written checkpoint. Introduced in notebook 07."""
    directory = Path(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}.tmp-", dir=directory.parent))
    try:
        model.save_pretrained(tmp, tokenizer)
        if state is not None:
            atomic_write_json(tmp / STATE_NAME, state)
        old = None
        if directory.exists():
            old = directory.parent / f".{directory.name}.old-{os.getpid()}-{time.monotonic_ns()}"
            os.replace(directory, old)
        os.replace(tmp, directory)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return directory


def _is_better(metrics: dict, best: dict | None, key: str) -> bool:
    if best is None:
        return True
    return (metrics[key], -metrics["loss"]) > (best[key], -best["loss"])


def fine_tune(
    model: BertPreTrainedModel,
    train: TaskDataset,
    dev: TaskDataset | None = None,
    *,
    config: FineTuneConfig | None = None,
    output_dir: str | os.PathLike | None = None,
    callback: Callable[[dict], None] | None = None,
) -> FineTuneResult:
    """Fine-tune every parameter of ``model`` on ``train``; keep the best epoch on ``dev``.

    Each step: a shuffled batch, ``loss = model(**batch).loss``, backward, gradient clipping to
    ``max_grad_norm``, AdamW step, learning-rate schedule step. After every epoch (with ``dev``): evaluate,
    keep a copy of the weights if the main metric improved, save them to ``output_dir`` (HF format, atomic)
    if given, and stop after ``patience`` epochs without improvement. At the end the best weights are put
    back. Without ``dev`` the last epoch's weights are kept (and saved). ``callback(record)`` sees every
    history record. Deterministic for a given ``config.seed``. Introduced in notebook 07.
    """
    config = FineTuneConfig() if config is None else config
    if not isinstance(config, FineTuneConfig):
        raise ValueError(f"config must be a FineTuneConfig, got {type(config).__name__}.")
    if not isinstance(train, TaskDataset):
        raise ValueError(f"train must be a TaskDataset (see make_dataset), got {type(train).__name__}.")
    _check_model_fits(model, train)
    if dev is not None:
        if not isinstance(dev, TaskDataset) or dev.task != train.task:
            raise ValueError("dev must be a TaskDataset of the same task as train.")
        if dev.labels != train.labels:
            raise ValueError("dev uses other label ids than train; build it with labels=train.labels.")
    metric = config.metric or MAIN_METRIC[train.task]
    steps_per_epoch = math.ceil(len(train) / config.batch_size)
    epochs = max(config.epochs, math.ceil(config.min_steps / steps_per_epoch))  # tiny sets: more epochs
    total_steps = steps_per_epoch * epochs
    from tqdm.auto import tqdm

    history: list[dict] = []
    best_metrics: dict | None = None
    best_state: dict | None = None
    best_epoch = None
    stale, step, epoch = 0, 0, 0
    stopped_early = False
    began = time.perf_counter()

    def log(record: dict) -> None:
        history.append(record)
        if callback is not None:
            callback(record)

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(config.seed)
        generator = torch.Generator().manual_seed(config.seed)
        optimizer, scheduler = make_optimizer(model, config, total_steps)
        bar = tqdm(
            total=total_steps,
            desc=f"fine-tuning ({train.task})",
            disable=not config.progress,
            leave=False,
            unit="step",
        )
        try:
            for epoch in range(1, epochs + 1):
                model.train()
                loss_sum, seen = 0.0, 0
                for idx, batch in train.batches(config.batch_size, shuffle=True, generator=generator):
                    out = model(**batch)
                    if not torch.isfinite(out.loss):
                        raise FloatingPointError(
                            f"The loss became {out.loss.item()} at step {step + 1}; lower the learning rate "
                            f"(now {config.lr:g})."
                        )
                    optimizer.zero_grad(set_to_none=True)
                    out.loss.backward()
                    if config.max_grad_norm > 0:
                        torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
                    optimizer.step()
                    scheduler.step()
                    step += 1
                    loss_sum += out.loss.item() * len(idx)
                    seen += len(idx)
                    bar.update(1)
                    bar.set_postfix(loss=f"{out.loss.item():.3f}", refresh=False)
                log(
                    {
                        "step": step,
                        "epoch": epoch,
                        "split": "train",
                        "loss": loss_sum / seen,
                        "lr": optimizer.param_groups[0]["lr"],
                    }
                )
                if dev is None:
                    continue
                scores = evaluate(model, dev, max_answer_length=config.max_answer_length)
                if metric not in scores:
                    raise ValueError(
                        f"metric {metric!r} is not computed for {train.task}; choose one of {sorted(scores)}."
                    )
                log({"step": step, "epoch": epoch, "split": "eval", **scores})
                if _is_better(scores, best_metrics, metric):
                    best_metrics, best_epoch, stale = scores, epoch, 0
                    best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
                    if output_dir is not None:
                        save_finetuned(
                            output_dir, model, train.tokenizer, _state(train, config, epoch, scores)
                        )
                else:
                    stale += 1
                    if config.patience is not None and stale >= config.patience and step >= config.min_steps:
                        stopped_early = epoch < epochs
                        break
        finally:
            bar.close()
    if best_state is not None:
        model.load_state_dict(best_state)
    elif output_dir is not None:
        save_finetuned(output_dir, model, train.tokenizer, _state(train, config, epoch, {}))
    model.eval()
    return FineTuneResult(
        model=model,
        history=history,
        best_epoch=best_epoch,
        best_metrics=best_metrics or {},
        epochs_run=epoch,
        stopped_early=stopped_early,
        steps=step,
        train_seconds=time.perf_counter() - began,
    )


def _state(train: TaskDataset, config: FineTuneConfig, epoch: int, dev_metrics: dict) -> dict:
    return {
        "task": train.task,
        "labels": list(train.labels.names) if train.labels is not None else None,
        "epoch": epoch,
        "dev_metrics": dev_metrics,
        "config": config.to_dict(),
        "max_length": train.max_length,
    }


def load_finetuned(directory: str | os.PathLike):
    """Load a folder written by :func:`fine_tune`: ``(model, tokenizer, state)``. Introduced in notebook 07."""
    from bertedu.tokenizer import BertTokenizer

    directory = Path(directory)
    state_file = directory / STATE_NAME
    if not state_file.is_file():
        raise FileNotFoundError(
            f"{directory} holds no {STATE_NAME}: it was not written by bertedu.finetune.fine_tune."
        )
    state = json.loads(state_file.read_text(encoding="utf-8"))
    model = TASK_MODELS[check_task(state["task"])].from_pretrained(directory)
    return model, BertTokenizer.from_file(directory), state


# ----------------------------------------------------------------------------------------------------------
# The course recipe (notebook 07 and the benchmarks)

#: Peak learning rate = paper's 5e-5 times this factor, per encoder. See :func:`course_recipe`.
LR_SCALE = {"mini-bert": 20.0, "scratch": 20.0, "minilm": 4.0}
#: Test-set scores every course run must reach (asserted in notebook 07; reported by the benchmarks).
COURSE_THRESHOLDS = {
    SEQUENCE_CLASSIFICATION: {"accuracy": 0.85},
    TOKEN_CLASSIFICATION: {"token_accuracy": 0.95},
    SPAN_EXTRACTION: {"f1": 0.40},
}
COURSE_MAX_LENGTH = 64
#: Every mini-BERT run takes at least this many optimizer steps: with 8 or 40 labelled sentences, 10 epochs
#: are only 10-30 steps, too few for a model from scratch to learn anything, which would flatter pretraining.
COURSE_MIN_STEPS = 100
#: Dropout while fine-tuning, as in the paper (0.1), whatever the pretraining run used (notebook 06 turns it off).
COURSE_DROPOUT = {"hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1}


def course_recipe(task: str, encoder: str = "mini-bert", **overrides: Any) -> FineTuneConfig:
    """The fine-tuning settings notebook 07 uses for ``task`` and ``encoder`` ("mini-bert", "scratch", "minilm").

    Batch 16 and lr 5e-5 come from the paper's grid; ``lr_scale`` multiplies the learning rate for our
    models (:data:`LR_SCALE`), and the number of epochs is larger than the paper's 2-4 because our training
    sets give a few dozen steps per epoch, not thousands; a small label budget still gets at least
    :data:`COURSE_MIN_STEPS` steps. Early stopping on dev picks the epoch. MiniLM: 3 epochs of batch 32.
    Introduced in notebook 07.
    """
    check_task(task)
    if encoder not in LR_SCALE:
        raise ValueError(f"encoder must be one of {list(LR_SCALE)}, got {encoder!r}.")
    epochs = {SEQUENCE_CLASSIFICATION: 10, TOKEN_CLASSIFICATION: 10, SPAN_EXTRACTION: 15}[task]
    batch_size, min_steps = 16, COURSE_MIN_STEPS
    if encoder == "minilm":  # a real 22.7M-parameter encoder: the paper's 3 epochs, batch 32
        epochs, batch_size, min_steps = 3, 32, 0
    recipe = FineTuneConfig(
        learning_rate=5e-5,
        lr_scale=LR_SCALE[encoder],
        batch_size=batch_size,
        epochs=epochs,
        warmup_ratio=0.1,
        patience=4,
        min_steps=min_steps,
        progress=False,
    )
    return recipe.replace(**overrides)


def label_budget(dataset: TaskDataset, fraction: float, seed: int = 0) -> TaskDataset:
    """A random ``fraction`` of ``dataset`` (at least one example per label for classification when possible),
    drawn with ``seed``: the "number of labelled examples" axis of a learning curve. Introduced in notebook 07."""
    if not isinstance(fraction, (int, float)) or not 0 < fraction <= 1:
        raise ValueError(f"fraction must be in (0, 1], got {fraction!r}.")
    n = max(1, round(fraction * len(dataset)))
    generator = torch.Generator().manual_seed(seed)
    order = torch.randperm(len(dataset), generator=generator).tolist()
    if dataset.task == SEQUENCE_CLASSIFICATION:  # one of each label first, so no class is absent
        first: dict[int, int] = {}
        for i in order:
            first.setdefault(dataset.features[i]["labels"], i)
        chosen = list(first.values())[:n]
        taken = set(chosen)
        chosen += [i for i in order if i not in taken][: n - len(chosen)]
        return dataset.subset(sorted(chosen))
    return dataset.subset(sorted(order[:n]))


def course_datasets(task: str, tokenizer, max_length: int = COURSE_MAX_LENGTH) -> dict[str, TaskDataset]:
    """The train/dev/test datasets of one course task for ``tokenizer`` (:func:`make_task_datasets`)."""
    return make_task_datasets(task, tokenizer, max_length=max_length)


def run_course_task(
    task: str,
    encoder: str,
    source,
    datasets: dict[str, TaskDataset],
    *,
    fraction: float = 1.0,
    seed: int = 0,
    progress: bool = False,
    **recipe_overrides: Any,
) -> tuple[FineTuneResult, dict]:
    """Fine-tune one model with the course recipe and score it on the test split: ``(result, test_metrics)``.

    ``encoder`` names the recipe ("mini-bert", "scratch", "minilm"); ``source`` is what
    :func:`build_task_model` starts from (the pretrained model, its ``config`` for "scratch", or a folder).
    ``fraction`` < 1 trains on :func:`label_budget` ``(train, fraction, seed)``. Introduced in notebook 07.
    """
    if encoder == "scratch" and not isinstance(source, BertConfig):
        source = source.config  # the same architecture, random weights
    train = datasets["train"] if fraction == 1 else label_budget(datasets["train"], fraction, seed)
    model = build_task_model(task, source, num_labels=train.num_labels, seed=seed, **COURSE_DROPOUT)
    config = course_recipe(task, encoder, seed=seed, progress=progress, **recipe_overrides)
    result = fine_tune(model, train, datasets["dev"], config=config)
    return result, evaluate(result.model, datasets["test"], max_answer_length=config.max_answer_length)


def learning_curve(
    task: str,
    source,
    datasets: dict[str, TaskDataset],
    *,
    fractions=(0.1, 0.25, 0.5, 1.0),
    seeds=(0, 1, 2),
    encoders=("mini-bert", "scratch"),
    progress: bool = False,
) -> list[dict]:
    """Test scores against the number of labelled training examples, for each encoder recipe.

    One record per (encoder, fraction, seed): ``{"encoder", "fraction", "n_train", "seed", **test_metrics}``.
    The full training set (fraction 1.0) is run with the first seed only (every seed would see the same
    examples). Introduced in notebook 07.
    """
    records = []
    for encoder in encoders:
        for fraction in fractions:
            for seed in seeds if fraction < 1 else seeds[:1]:
                result, metrics = run_course_task(
                    task, encoder, source, datasets, fraction=fraction, seed=seed, progress=progress
                )
                n_train = (
                    len(datasets["train"])
                    if fraction == 1
                    else len(label_budget(datasets["train"], fraction, seed))
                )
                records.append(
                    {"encoder": encoder, "fraction": fraction, "n_train": n_train, "seed": seed, **metrics}
                )
    return records


def run_course_finetuning(
    tasks: Sequence[str] = TASKS, *, minilm: bool = True, curve: bool = False, progress: bool = False
) -> dict[str, Any]:
    """Notebook 07's experiments in one call, for the benchmarks: test metrics of every run.

    Returns ``{"mini-bert": {task: metrics}, "scratch": {task: metrics}, "minilm": {"sentence_classification":
    metrics}, "thresholds": COURSE_THRESHOLDS}`` (``"minilm"`` only with ``minilm=True``), plus
    ``"learning_curve"`` (records of :func:`learning_curve` on sentence classification) with ``curve=True``.
    The course mini-BERT comes from ``bertedu.pretrain.load_course_model`` (``runs/mini-bert/``, retrained if
    missing). Introduced in notebook 07.
    """
    from bertedu.pretrain import load_course_model

    pretrained, tokenizer = load_course_model()
    out: dict[str, Any] = {"mini-bert": {}, "scratch": {}, "thresholds": COURSE_THRESHOLDS}
    for task in tasks:
        datasets = course_datasets(check_task(task), tokenizer)
        for encoder in ("mini-bert", "scratch"):
            out[encoder][task] = run_course_task(task, encoder, pretrained, datasets, progress=progress)[1]
        if curve and task == SEQUENCE_CLASSIFICATION:
            out["learning_curve"] = learning_curve(task, pretrained, datasets, progress=progress)
    if minilm:
        out["minilm"] = {SEQUENCE_CLASSIFICATION: run_minilm(progress=progress)[1]}
    return out


MINILM_MAX_LENGTH = 32


def run_minilm(*, progress: bool = False, **recipe_overrides: Any) -> tuple[FineTuneResult, dict]:
    """Fine-tune all-MiniLM-L6-v2 (every parameter) on the course's sentence classification: ``(result, test_metrics)``.

    The weights come from the installed package through our ``from_pretrained``; our ``BertTokenizer`` reads
    its ``vocab.txt``. Sequences are at most :data:`MINILM_MAX_LENGTH` tokens (the course sentences need fewer).
    Introduced in notebook 07.
    """
    from bertedu.pretrained import minilm_dir
    from bertedu.tokenizer import BertTokenizer

    folder = minilm_dir()
    datasets = course_datasets(
        SEQUENCE_CLASSIFICATION, BertTokenizer.from_file(folder / "vocab.txt"), MINILM_MAX_LENGTH
    )
    return run_course_task(
        SEQUENCE_CLASSIFICATION, "minilm", folder, datasets, progress=progress, **recipe_overrides
    )
