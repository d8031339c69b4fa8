"""Fine-tuning data: the course's task files, examples, label sets, encoding, and the ``TaskDataset``.

Three task shapes (Devlin et al. 2019, Figure 4), one reader and one encoder each::

    task                      example                                      encoded as
    sentence_classification   ClassificationExample(text, label[, pair])  [CLS] A [SEP] (B [SEP])  + label id
    token_classification      TaggingExample(words, tags)                  [CLS] pieces [SEP]        + a label per piece
    span_extraction           SpanExample(question, context, answer, ...)  [CLS] Q [SEP] context [SEP] + start, end

Sentence *pairs* (the paper's MNLI / QQP shape) are sentence classification with a second text: the
``sentence_b`` column of a TSV file fills segment B.

Labels. Sequence classification reads label *names* (``"plausible"``); the label list is fixed by the
training split (sorted names) and an unknown name elsewhere is a ``ValueError``. Token classification gives
each word's tag to the word's **first** WordPiece piece; the other pieces, [CLS], [SEP] and padding get
-100, so the loss and the token accuracy count every word exactly once (the paper, Section 5.3, uses the
first sub-token too). Span extraction packs ``[CLS] question [SEP] context [SEP]`` (question = segment A,
context = segment B) and turns the answer's character offsets into token positions.

The training loop is in :mod:`bertedu.training.finetune`; the file formats in ``data/README.md``.
Introduced in notebook 07.
"""

from __future__ import annotations

import copy
import json
import numbers
import os
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

from bertedu.core.losses import IGNORE_INDEX
from bertedu.core.validation import require_int, require_number
from bertedu.training.evalsets import read_tsv
from bertedu.utils import data_path

# The task of classifying one sentence is named for its data ("sentence_classification": its folder under
# data/finetune and its results' key); the constant is named for its head, Hugging Face's sequence
# classification (BertForSequenceClassification), which sentence-pair classification shares (task_shape).
# Notebook 07 uses the constant by this name.
SEQUENCE_CLASSIFICATION = "sentence_classification"
SENTENCE_PAIR_CLASSIFICATION = "sentence_pair_classification"  # the paper's MNLI / QQP shape
TOKEN_CLASSIFICATION = "token_classification"
SPAN_EXTRACTION = "span_extraction"
TASKS = (SEQUENCE_CLASSIFICATION, SENTENCE_PAIR_CLASSIFICATION, TOKEN_CLASSIFICATION, SPAN_EXTRACTION)


def check_task(task: str) -> str:
    """Return ``task`` if it is one of :data:`TASKS`, else raise a ``ValueError`` listing them."""
    if task not in TASKS:
        raise ValueError(f"Unknown task {task!r}; choose one of {list(TASKS)}.")
    return task


def task_shape(task: str) -> str:
    """The head a task needs: sentence-pair classification is sequence classification with a segment B."""
    check_task(task)
    return SEQUENCE_CLASSIFICATION if task == SENTENCE_PAIR_CLASSIFICATION else task


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
        names = set(labels)
        kinds = sorted({type(name).__name__ for name in names})
        if len(kinds) > 1:
            raise ValueError(
                f"The labels mix types ({', '.join(kinds)}): give every label as a string, e.g. "
                "str(label), so that '1' and 1 are not two different classes."
            )
        return cls(tuple(sorted(names)))

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
        require_int("label_id", label_id, 0, len(self.names) - 1, hint="an id out of range has no label name")
        return self.names[label_id]


# ----------------------------------------------------------------------------------------------------------
# Reading the course's data files (format: data/README.md)


def task_data_dir(task: str) -> Path:
    """``data/finetune/<task>/`` in the repository."""
    return data_path(f"finetune/{check_task(task)}")


def _read_jsonl(path: Path) -> list[dict]:
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


def read_examples(task: str, path: str | os.PathLike) -> list:
    """Read one split file of ``task`` into examples (formats: data/README.md).

    - sentence classification: ``.tsv`` with a header ``sentence<TAB>label`` (an optional ``sentence_b``
      column makes sentence pairs), or ``.jsonl`` with ``{"text", "label"}`` (and ``"text_pair"``);
    - token classification: ``.jsonl``, ``{"tokens": [...], "tags": [...]}`` (one tag per word);
    - span extraction: ``.jsonl``, ``{"question", "context", "answer", "answer_start"}`` (SQuAD style:
      ``context[answer_start:answer_start + len(answer)] == answer``; optional ``"answers"``, more gold answers).

    Raises ``FileNotFoundError`` for a missing file and ``ValueError`` naming the example for a malformed one.
    """
    check_task(task)
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist.")
    rows = [row for _, row in read_tsv(path)] if path.suffix == ".tsv" else _read_jsonl(path)
    examples: list = []
    for number, row in enumerate(rows, 1):
        where = f"{path.name}, example {number}"
        if task_shape(task) == SEQUENCE_CLASSIFICATION:
            text = row["sentence"] if "sentence" in row else _field(row, "text", where)
            pair = row.get("sentence_b", row.get("text_pair"))
            examples.append(
                ClassificationExample(
                    str(text), str(_field(row, "label", where)), None if pair in (None, "") else str(pair)
                )
            )
        elif task_shape(task) == TOKEN_CLASSIFICATION:
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

    ``directory`` defaults to ``data/finetune/<task>/``.
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
    the whole word. ``(token, start, end)`` triples.
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
    """``[CLS] text [SEP]`` (or a pair) -> ``input_ids``, ``token_type_ids`` and the label id."""
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
    expected = _EXAMPLE_TYPES[task_shape(task)]
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
        require_int("max_length", max_length, 3, hint="[CLS] and [SEP] around at least one token")
        _check_examples(task, self.examples)
        self.tokenizer = tokenizer
        self.labels = labels
        self.max_length = max_length
        self.pad_token_id = tokenizer.pad_token_id
        features = []
        for i, ex in enumerate(self.examples):
            try:
                if task_shape(task) == SEQUENCE_CLASSIFICATION:
                    features.append(encode_classification(ex, tokenizer, labels, max_length))
                elif task_shape(task) == TOKEN_CLASSIFICATION:
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
        return {key: feature[key] for key in _MODEL_KEYS[task_shape(self.task)]}

    def subset(self, indices: Sequence[int]) -> TaskDataset:
        """A dataset with only the items at ``indices`` (same tokenizer and labels; nothing re-encoded)."""
        indices = list(indices)
        if not indices:
            raise ValueError("A subset needs at least one index: the dataset would be empty.")
        bad = [
            i
            for i in indices
            if not isinstance(i, numbers.Integral) or isinstance(i, bool) or not -len(self) <= i < len(self)
        ]
        if bad:
            raise ValueError(
                f"subset indices must be whole numbers in 0..{len(self) - 1} (the dataset has {len(self)} "
                f"examples), got {bad[:5]}."
            )
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
        if task_shape(self.task) == TOKEN_CLASSIFICATION:
            batch["labels"] = pad([it["labels"] for it in items], IGNORE_INDEX)
        elif task_shape(self.task) == SEQUENCE_CLASSIFICATION:
            batch["labels"] = torch.tensor([it["labels"] for it in items], dtype=torch.long)
        else:
            for key in ("start_positions", "end_positions"):
                batch[key] = torch.tensor([it[key] for it in items], dtype=torch.long)
        return batch

    def batches(self, batch_size: int, *, shuffle: bool = False, generator: torch.Generator | None = None):
        """Yield ``(indices, batch)`` pairs over the dataset (in order, or shuffled with ``generator``)."""
        require_int("batch_size", batch_size, 1)
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
    agree (an unseen label is then a ``ValueError``)."""
    check_task(task)
    examples = list(examples)
    _check_examples(task, examples)
    if task_shape(task) != SPAN_EXTRACTION and labels is None:
        names = (
            [getattr(e, "label", None) for e in examples]
            if task_shape(task) == SEQUENCE_CLASSIFICATION
            else [t for e in examples for t in getattr(e, "tags", ())]
        )
        labels = LabelSet.from_labels(n for n in names if n is not None)
    return TaskDataset(
        task, examples, tokenizer, labels if task_shape(task) != SPAN_EXTRACTION else None, max_length
    )


def make_task_datasets(
    task: str, tokenizer, *, max_length: int = 64, data: dict[str, list] | None = None
) -> dict[str, TaskDataset]:
    """``{"train", "dev", "test"}`` datasets of one of the course's tasks, sharing the training labels.

    ``data`` defaults to :func:`load_task_data` ``(task)``.
    """
    data = load_task_data(task) if data is None else data
    train = make_dataset(task, data["train"], tokenizer, max_length=max_length)
    out = {"train": train}
    for split in ("dev", "test"):
        out[split] = make_dataset(task, data[split], tokenizer, labels=train.labels, max_length=max_length)
    return out


def word_order_dataset(tokenizer, labels, *, max_length: int = 64) -> TaskDataset:
    """The sentence task's word-order slice, ``data/finetune/sentence_classification/word_order.tsv``: 24 minimal
    pairs, a plausible sentence and the same words in another order ("the egg eats the boy"), encoded with the
    training split's ``labels`` (``make_task_datasets(...)["train"].labels``). A bag of words scores 0.5 on it by
    construction; notebooks 07 and 10 ask whether a model reads word order."""
    path = task_data_dir(SEQUENCE_CLASSIFICATION) / "word_order.tsv"
    examples = read_examples(SEQUENCE_CLASSIFICATION, path)
    return make_dataset(SEQUENCE_CLASSIFICATION, examples, tokenizer, labels=labels, max_length=max_length)


def indirect_dataset(tokenizer, labels, *, max_length: int = 64) -> TaskDataset:
    """The sentence task's indirect slice, ``data/finetune/sentence_classification/indirect.tsv``: 15 quadruples of
    facts stated only through another fact ("the cat drinks what the cow gives": milk), encoded with the training
    split's ``labels``. Both clauses of every sentence are true; only what the clue names decides the label, so the
    corpus lookup and a bag of words are near chance (data/README.md); notebook 07 asks what a model does."""
    path = task_data_dir(SEQUENCE_CLASSIFICATION) / "indirect.tsv"
    examples = read_examples(SEQUENCE_CLASSIFICATION, path)
    return make_dataset(SEQUENCE_CLASSIFICATION, examples, tokenizer, labels=labels, max_length=max_length)


def budget_indices(
    labels: Sequence, fraction: float, seed: int = 0, *, every_label: bool = True
) -> list[int]:
    """The sorted indices of a random ``fraction`` of items whose labels are ``labels`` (one entry per item),
    drawn with ``seed``; with ``every_label``, one item of each label first (in the draw's order), so that no class
    is absent when the budget allows. :func:`label_budget`'s draw, for data that is not a ``TaskDataset``."""
    require_number("fraction", fraction, 0, 1, low_inclusive=False, example="0.1 for a tenth")
    n = max(1, round(fraction * len(labels)))
    generator = torch.Generator().manual_seed(seed)
    order = torch.randperm(len(labels), generator=generator).tolist()
    if not every_label:
        return sorted(order[:n])
    first: dict = {}
    for i in order:
        first.setdefault(labels[i], i)
    chosen = list(first.values())[:n]
    taken = set(chosen)
    chosen += [i for i in order if i not in taken][: n - len(chosen)]
    return sorted(chosen)


def label_budget(dataset: TaskDataset, fraction: float, seed: int = 0) -> TaskDataset:
    """A random ``fraction`` of ``dataset`` (at least one example per label for classification when possible),
    drawn with ``seed``: the "number of labelled examples" axis of a learning curve."""
    classification = task_shape(dataset.task) == SEQUENCE_CLASSIFICATION
    labels = [f["labels"] for f in dataset.features] if classification else [None] * len(dataset)
    return dataset.subset(budget_indices(labels, fraction, seed, every_label=classification))
