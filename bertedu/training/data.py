"""From a text file to pretraining batches: corpus reader, NSP pairs, ``Dataset`` and collator.

The pipeline (notebooks 03 and 06)::

    read_corpus("data/simple_sentences.txt")            # [[sentence, ...], ...]: documents of sentences
    ds = PretrainingDataset(documents, tokenizer)        # item i: [CLS] A [SEP] B [SEP] + NSP label
    collate = PretrainingCollator(tokenizer)             # pad, attention mask, dynamic 80/10/10 masking
    for step, batch in bucketed_batches(ds, collate, batch_size=32):
        loss = model(**batch).loss                       # keys: input_ids, token_type_ids, attention_mask,
                                                         #       labels, next_sentence_label

A pretraining run builds this pipeline from its settings in one place,
:func:`bertedu.training.pretrain.pretraining_batches` (the config's length, masking shares, batch size and seed).

NSP labels follow Hugging Face: **0 = IsNext** (B really follows A), **1 = NotNext** (B from another
document).

Reproducibility and resuming. Nothing here uses a global random state: the NSP pair of item ``i`` is a
function of ``(seed, epoch, i)``, the order of an epoch's items a function of ``(seed, epoch)``, and the
masks of a batch a function of ``(seed, epoch, the items in it)``. So batch number ``step`` of a run is
always the same tensors; to resume a run after ``step`` batches, call
``bucketed_batches(ds, collate, batch_size, start_step=step)`` and training continues bit for bit.
Every epoch re-masks the tokens (dynamic masking, as RoBERTa) and, with ``resample_pairs=True``, draws new
NSP pairs.

Introduced in notebooks 03 (pairs, masking) and 06 (dataset, batches).
"""

from __future__ import annotations

import os
import random
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from bertedu.core.masking import check_masking, mask_tokens
from bertedu.core.validation import PROBABILITY, require_int
from bertedu.utils import stable_seed

IS_NEXT, NOT_NEXT = 0, 1  # Hugging Face's convention for next_sentence_label


# ----------------------------------------------------------------------------------------------------------
# Reading the corpus


def read_corpus(path: str | os.PathLike, *, max_line_chars: int = 1000) -> list[list[str]]:
    """Read a corpus file: one sentence per line, a blank line between documents. Returns the documents
    as lists of sentences (``list[list[str]]``).

    The rules are :func:`corpus_documents`'s: lines are stripped of surrounding whitespace; a whitespace-only
    line counts as blank. Lines that cannot be sentences are skipped with a warning that names them: lines
    without any letter or digit (e.g. ``-----``) and lines longer than ``max_line_chars`` characters (probably a
    pasted paragraph; BERT sees at most a few hundred tokens anyway). A skipped line does not end its document.
    Raises ``FileNotFoundError`` for a missing file and ``ValueError`` for an empty file or bytes that are
    not UTF-8 (with the line, byte offset and how to fix it).
    """
    documents = list(corpus_documents(path, max_line_chars=max_line_chars))
    if not documents:
        what = (
            "is empty"
            if not Path(path).read_bytes().strip()
            else "has no usable sentence (every line is blank or was skipped)"
        )
        raise ValueError(
            f"Corpus file {path} {what}. Write one sentence per line, with a blank line between documents."
        )
    return documents


def corpus_documents(
    path: str | os.PathLike, *, max_line_chars: int = 1000, reader: str = "read_corpus"
) -> Iterator[list[str]]:
    """The documents of a corpus file, one at a time, read line by line (so a corpus larger than memory
    streams): the one rule for corpus lines, used by :func:`read_corpus` and the shards writer.

    One sentence per line, stripped; a blank (or whitespace-only) line ends a document; a byte-order mark and
    Windows or old-Mac line ends are accepted. Lines without a letter or digit, or longer than
    ``max_line_chars``, are skipped (they do not end their document) and named in one warning at the end,
    which starts with ``reader``. Raises ``FileNotFoundError`` for a missing file and ``ValueError`` for a
    folder or bytes that are not UTF-8 (with the line, byte offset and how to fix it).
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(
            f"Corpus file {path} does not exist (working directory: {Path.cwd()}). Check the path; the course "
            "corpus is bertedu.utils.data_path('simple_sentences.txt')."
        )
    if path.is_dir():
        raise ValueError(f"{path} is a folder; {reader} needs a text file (one sentence per line).")
    document: list[str] = []
    skipped: list[str] = []
    line_no = offset = 0  # lines (any line end) and bytes read so far
    with open(path, "rb") as file:
        for raw_no, raw in enumerate(file, start=1):  # raw lines end at b"\n", never inside a UTF-8 character
            text = _decode_corpus_line(raw, path, raw_no, offset)
            offset += len(raw)
            if raw_no == 1:
                text = text.removeprefix("\ufeff")  # a byte-order mark (Notepad's "UTF-8 with BOM")
            lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")  # Windows and old-Mac ends
            for line in lines[:-1] if raw.endswith(b"\n") else lines:
                line_no += 1
                sentence = line.strip()
                if not sentence:  # blank line: the current document ends
                    if document:
                        yield document
                    document = []
                elif len(sentence) > max_line_chars:
                    skipped.append(
                        f"line {line_no} ({len(sentence)} characters > max_line_chars={max_line_chars})"
                    )
                elif not any(c.isalnum() for c in sentence):
                    skipped.append(f"line {line_no} (no letter or digit: {sentence[:30]!r})")
                else:
                    document.append(sentence)
    if document:
        yield document
    if skipped:
        more = f" and {len(skipped) - 10} more" if len(skipped) > 10 else ""
        warnings.warn(
            f"{reader} skipped {len(skipped)} line(s) of {path}: {'; '.join(skipped[:10])}{more}. "
            "Fix or delete them to silence this warning.",
            stacklevel=3,  # the caller of read_corpus
        )


def _decode_corpus_line(raw: bytes, path: Path, line_no: int, offset: int) -> str:
    """Line ``line_no`` of a corpus file (which starts at byte ``offset``) as text, or a ``ValueError`` that
    says where the first byte that is not UTF-8 is and how to re-save the file."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(
            f"{path} is not valid UTF-8: line {line_no}, byte {err.start} of that line (offset "
            f"{offset + err.start} in the file) is {raw[err.start : err.end]!r}. The file was probably saved in "
            "another encoding (e.g. Latin-1 or Windows-1252). Re-save it as UTF-8, e.g. "
            f"`iconv -f latin1 -t utf-8 {path.name} > fixed.txt`, or in Python: "
            "Path(p).write_text(Path(p).read_text(encoding='latin-1'), encoding='utf-8')."
        ) from err


# ----------------------------------------------------------------------------------------------------------
# Next-sentence-prediction pairs


@dataclass(frozen=True)
class SentenceSpan:
    """Sentences ``documents[doc][start:stop]`` (one segment of an NSP pair). Introduced in notebook 03."""

    doc: int
    start: int
    stop: int


@dataclass(frozen=True)
class NSPPair:
    """Where segment A and segment B come from, and the NSP label: 0 = IsNext, 1 = NotNext (as HF).

    IsNext: ``b.doc == a.doc`` and ``b.start == a.stop`` (B is the real continuation of A).
    NotNext: ``b.doc != a.doc``. Introduced in notebook 03.
    """

    a: SentenceSpan
    b: SentenceSpan
    next_sentence_label: int

    @property
    def is_next(self) -> bool:
        return self.next_sentence_label == IS_NEXT


class NSPPairSampler:
    """Draw NSP pairs from documents (lists of sentences; a sentence is a ``str`` or a list of token ids).

    Each draw is IsNext with probability ``is_next_prob`` (0.5). A is always 1..``max_sentences``
    consecutive sentences ending just before a *boundary* (a position k >= 1 inside a document);
    IsNext: B is the 1..``max_sentences`` sentences starting at that boundary; NotNext: B starts at a
    boundary of a *different* document. A and B are therefore drawn alike for both labels (B never
    opens a document, A never closes one in either case), so the label can only be learned from how A and
    B fit together, not from a shortcut. A document with a single sentence has no boundary and is not used.

    ``max_tokens`` (documents of token-id lists only) *packs* the pair instead, as the paper's pretraining data
    does ("a sentence" is any span of text, Section 3.1): A and B take as many consecutive sentences as fill
    ``max_tokens`` tokens together (:meth:`pack`), so an example of a corpus of short sentences is a
    full row, not two short sentences and padding. Introduced in notebook 03.
    """

    def __init__(
        self,
        documents: Sequence[Sequence],
        *,
        max_sentences: int = 2,
        is_next_prob: float = 0.5,
        max_tokens: int | None = None,
    ):
        check_nsp_documents(documents)
        require_int("max_sentences", max_sentences, 1)
        PROBABILITY.check("is_next_prob", is_next_prob)
        require_int("max_tokens", max_tokens, 2, none_ok=True)
        if max_tokens is not None and isinstance(documents[0][0], str):
            raise ValueError(
                "max_tokens packs sentences by their number of tokens: pass tokenized documents (lists of "
                "token ids), e.g. PretrainingDataset's token_documents, or leave max_tokens out."
            )
        self.documents = documents
        self.max_sentences = max_sentences
        self.is_next_prob = is_next_prob
        self.max_tokens = max_tokens
        # Every boundary (doc, k), grouped by document: boundaries of doc d are [first[d], first[d] + count[d]).
        self.boundaries = [(d, k) for d, doc in enumerate(documents) for k in range(1, len(doc))]
        self.first, self.count = {}, {}
        for i, (d, _) in enumerate(self.boundaries):
            self.first.setdefault(d, i)
            self.count[d] = self.count.get(d, 0) + 1
        unused = sum(1 for doc in documents if len(doc) == 1)
        if unused:
            warnings.warn(
                f"{unused} document(s) have a single sentence and cannot take part in NSP pairs "
                "(no sentence follows another inside them).",
                stacklevel=2,
            )

    def sample(self, rng: random.Random) -> NSPPair:
        """One pair, drawn with ``rng`` (a ``random.Random``); grown to fill ``max_tokens`` if set (:meth:`pack`)."""
        d, k = self.boundaries[rng.randrange(len(self.boundaries))]
        a = SentenceSpan(d, max(0, k - rng.randint(1, self.max_sentences)), k)
        if rng.random() < self.is_next_prob:
            b_doc, b_start, label = d, k, IS_NEXT
        else:  # a boundary of any other document, uniformly: skip over the block of document d
            i = rng.randrange(len(self.boundaries) - self.count[d])
            i = i + self.count[d] if i >= self.first[d] else i
            (b_doc, b_start), label = self.boundaries[i], NOT_NEXT
        b_stop = min(len(self.documents[b_doc]), b_start + rng.randint(1, self.max_sentences))
        pair = NSPPair(a, SentenceSpan(b_doc, b_start, b_stop), label)
        return pair if self.max_tokens is None else self.pack(pair, rng)

    def pack(self, pair: NSPPair, rng: random.Random) -> NSPPair:
        """``pair`` with its segments grown to fill ``max_tokens`` (the same boundary, B's start and label): A
        reaches back from its end until it holds a share of ``max_tokens`` drawn uniformly from 1 to
        ``max_tokens - 1`` (the paper draws where A ends inside its chunk of sentences); B takes sentences until
        the two fill ``max_tokens``; if B's document ends first, A reaches further back. The last sentence taken
        may overflow: :func:`truncate_seq_pair` trims the pair to length, as the paper does."""
        a, b = pair.a, pair.b
        a_start, a_tokens = self._reach_back(a.doc, a.stop, 0, rng.randint(1, self.max_tokens - 1))
        b_sentences = self.documents[b.doc]
        b_stop, b_tokens = b.start, 0
        while b_stop < len(b_sentences) and (b_stop == b.start or a_tokens + b_tokens < self.max_tokens):
            b_tokens += len(b_sentences[b_stop])
            b_stop += 1
        if a_tokens + b_tokens < self.max_tokens:  # B's document ended: give the room to A
            a_start, a_tokens = self._reach_back(a.doc, a_start, a_tokens, self.max_tokens - b_tokens)
        spans = SentenceSpan(a.doc, a_start, a.stop), SentenceSpan(b.doc, b.start, b_stop)
        return NSPPair(*spans, pair.next_sentence_label)

    def _reach_back(self, d: int, start: int, tokens: int, target: int) -> tuple[int, int]:
        """Extend a segment ending before sentence ``start`` of document ``d`` (holding ``tokens`` already)
        backwards until it holds ``target`` tokens or the document begins; at least one sentence."""
        while start > 0 and (tokens == 0 or tokens < target):
            start -= 1
            tokens += len(self.documents[d][start])
        return start, tokens


def check_nsp_documents(documents: Sequence[Sequence]) -> None:
    """Raise a ``ValueError`` that says what to fix if NSP pairs cannot be drawn from ``documents``.

    Needs: a non-empty list of documents, none empty, no empty sentence, and at least two documents with
    two or more sentences (IsNext needs a next sentence, NotNext a second document).
    """
    if isinstance(documents, (str, bytes)) or not isinstance(documents, Sequence) or not documents:
        raise ValueError(
            "Expected documents as a non-empty list of lists of sentences (as read_corpus returns)."
        )
    for d, doc in enumerate(documents):
        if isinstance(doc, str) or not isinstance(doc, Sequence) or len(doc) == 0:
            raise ValueError(f"Document {d} must be a non-empty list of sentences, got {doc!r:.60}.")
        for s, sentence in enumerate(doc):
            if len(sentence) == 0 or (isinstance(sentence, str) and not sentence.strip()):
                raise ValueError(
                    f"Document {d}, sentence {s} is empty ({sentence!r}); remove it or give it text."
                )
    if len(documents) < 2:
        raise ValueError(
            "NSP needs at least two documents: a NotNext B must come from a different document "
            "than A. Separate the documents of your corpus with blank lines."
        )
    multi = sum(1 for doc in documents if len(doc) >= 2)
    if multi < 2:
        raise ValueError(
            f"NSP needs at least two documents with two or more sentences (found {multi}): IsNext "
            "takes B from the sentence after A in the same document, NotNext from another one. "
            "Put related sentences together in documents separated by blank lines."
        )


def make_nsp_pairs(
    documents: Sequence[Sequence],
    num_pairs: int,
    *,
    seed: int = 0,
    max_sentences: int = 2,
    is_next_prob: float = 0.5,
) -> list[NSPPair]:
    """``num_pairs`` NSP pairs drawn with ``random.Random(seed)`` (for inspection and statistics)."""
    sampler = NSPPairSampler(documents, max_sentences=max_sentences, is_next_prob=is_next_prob)
    rng = random.Random(seed)
    return [sampler.sample(rng) for _ in range(num_pairs)]


def packed_pairs(tokens: int, max_length: int) -> int:
    """Packed examples per epoch: as many as hold every token once (``max_length - 3`` tokens each)."""
    return max(1, -(-tokens // (max_length - 3)))


def truncate_seq_pair(tokens_a: list, tokens_b: list, max_num_tokens: int) -> tuple[list, list]:
    """Shorten A and B to at most ``max_num_tokens`` together, one token at a time from the longer one.

    A loses tokens at its *front* and B at its *end*, so the seam ``... A [SEP] B ...`` stays intact and an
    IsNext pair still reads on across the [SEP]. (Google's BERT removes from a random end; the tokenizer's
    ``truncation="longest_first"`` removes from both ends like Hugging Face.)
    """
    n_a, n_b = len(tokens_a), len(tokens_b)
    while n_a + n_b > max_num_tokens:
        if n_a > n_b:
            n_a -= 1
        else:
            n_b -= 1
    return tokens_a[len(tokens_a) - n_a :], tokens_b[:n_b]


def build_nsp_example(
    token_documents: Sequence[Sequence[Sequence[int]]],
    pair: NSPPair,
    *,
    cls_token_id: int,
    sep_token_id: int,
    max_length: int,
) -> dict:
    """``[CLS] A [SEP] B [SEP]`` ids for ``pair``, at most ``max_length`` long.

    Returns ``{"input_ids": [...], "token_type_ids": [...], "next_sentence_label": 0 or 1}``; segment ids
    are 0 for [CLS], A and the first [SEP], 1 for B and the final [SEP].
    """
    if max_length < 5:
        raise ValueError(f"max_length={max_length} is too short for [CLS] A [SEP] B [SEP] (at least 5).")
    a, b = pair.a, pair.b
    tokens_a = [t for sentence in token_documents[a.doc][a.start : a.stop] for t in sentence]
    tokens_b = [t for sentence in token_documents[b.doc][b.start : b.stop] for t in sentence]
    tokens_a, tokens_b = truncate_seq_pair(tokens_a, tokens_b, max_length - 3)
    return {
        "input_ids": [cls_token_id, *tokens_a, sep_token_id, *tokens_b, sep_token_id],
        "token_type_ids": [0] * (len(tokens_a) + 2) + [1] * (len(tokens_b) + 1),
        "next_sentence_label": pair.next_sentence_label,
    }


# ----------------------------------------------------------------------------------------------------------
# Dataset, collator, batches


class PretrainingDataset(torch.utils.data.Dataset):
    """NSP pairs from tokenized documents, as ``[CLS] A [SEP] B [SEP]`` id lists (unpadded, unmasked).

    ``documents``: lists of sentences (``read_corpus``'s result); every sentence is tokenized once, here.
    ``packing=True`` fills every example with consecutive sentences up to ``max_length`` (:class:`NSPPairSampler`'s
    ``max_tokens``). ``len(ds)`` is ``num_pairs`` (default: the number of sentences; packed, as many rows as hold
    every token once). Item ``i`` is a dict with
    ``input_ids``, ``token_type_ids`` (lists), ``next_sentence_label`` (0 = IsNext, 1 = NotNext) and
    ``mask_seed`` (for :class:`PretrainingCollator`); it depends only on ``(seed, epoch, i)``: call
    :meth:`set_epoch` to get new pairs (``resample_pairs=True``) and new masks each epoch. The epoch is
    state of this object, so use it in the main process (``DataLoader`` workers would keep stale copies;
    none are needed: an item costs microseconds). Introduced in notebook 06.
    """

    def __init__(
        self,
        documents: Sequence[Sequence[str]],
        tokenizer,
        *,
        max_length: int = 64,
        num_pairs: int | None = None,
        max_sentences: int = 2,
        is_next_prob: float = 0.5,
        seed: int = 0,
        resample_pairs: bool = True,
        packing: bool = False,
    ):
        check_nsp_documents(documents)
        token_documents = []  # [doc][sentence] -> list of token ids
        for d, doc in enumerate(documents):
            token_documents.append([])
            for s, sentence in enumerate(doc):
                if not isinstance(sentence, str):
                    raise ValueError(
                        f"Document {d}, sentence {s} is {type(sentence).__name__}, expected str."
                    )
                ids = tokenizer.convert_tokens_to_ids(tokenizer.tokenize(sentence))
                if not ids:
                    raise ValueError(
                        f"Document {d}, sentence {s} ({sentence!r}) has no tokens after "
                        "tokenization (only control or invisible characters?); remove it."
                    )
                token_documents[-1].append(ids)
        if (
            num_pairs is None
        ):  # an epoch: one pair per sentence, or (packed) as many rows as hold every token once
            tokens = sum(len(s) for doc in token_documents for s in doc)
            num_pairs = packed_pairs(tokens, max_length) if packing is True else sum(map(len, documents))
        size = (max_length, num_pairs, max_sentences, is_next_prob, seed, packing)
        self._setup(token_documents, tokenizer, *size)
        self.resample_pairs = resample_pairs

    def _setup(
        self,
        token_documents,
        tokenizer,
        max_length,
        num_pairs,
        max_sentences,
        is_next_prob,
        seed,
        packing=False,
    ):
        require_int("max_length", max_length, 5, hint="[CLS] A [SEP] B [SEP]")
        require_int("seed", seed)
        require_int("num_pairs", num_pairs, 1)
        if packing not in (True, False) or type(packing) is int:
            raise ValueError(f"packing must be True or False, got {packing!r}.")
        self.tokenizer, self.max_length, self.seed, self.resample_pairs = tokenizer, max_length, seed, True
        self.set_epoch(0)
        self._pairs, self._pairs_epoch = [], None
        self.token_documents = token_documents
        self.sampler = NSPPairSampler(
            token_documents,
            max_sentences=max_sentences,
            is_next_prob=is_next_prob,
            max_tokens=max_length - 3 if packing else None,  # [CLS] A [SEP] B [SEP]: 3 special tokens
        )
        self.num_pairs = num_pairs

    @classmethod
    def from_token_documents(
        cls,
        token_documents,
        tokenizer,
        *,
        num_pairs: int,
        max_length: int = 64,
        max_sentences: int = 2,
        is_next_prob: float = 0.5,
        seed: int = 0,
        packing: bool = False,
    ) -> PretrainingDataset:
        """The dataset of documents tokenized already (``[doc][sentence] -> token ids``, e.g. a shard on disk:
        :mod:`bertedu.training.shards`), with ``num_pairs`` pairs per epoch; the same items as the constructor
        gives for the same documents as text."""
        dataset = cls.__new__(cls)
        size = (max_length, num_pairs, max_sentences, is_next_prob, seed, packing)
        dataset._setup(token_documents, tokenizer, *size)
        return dataset

    @classmethod
    def from_file(cls, path: str | os.PathLike, tokenizer, **kwargs) -> PretrainingDataset:
        """``PretrainingDataset(read_corpus(path), tokenizer, **kwargs)``."""
        return cls(read_corpus(path), tokenizer, **kwargs)

    def set_epoch(self, epoch: int) -> None:
        """Select the epoch whose pairs and masks the items give (``bucketed_batches`` calls this)."""
        require_int("epoch", epoch)
        self.epoch = epoch
        self._mask_seed = stable_seed(self.seed, epoch, "mask")

    def __len__(self) -> int:
        return self.num_pairs

    def pairs(self) -> list[NSPPair]:
        """The ``len(self)`` pairs of the current epoch, drawn with ``random.Random`` seeded by
        ``(seed, epoch)`` (``epoch`` fixed at 0 if ``resample_pairs=False``) and kept until the epoch changes."""
        pair_epoch = self.epoch if self.resample_pairs else 0
        if self._pairs_epoch != pair_epoch:
            rng = random.Random(stable_seed(self.seed, pair_epoch, "pairs"))
            self._pairs = [self.sampler.sample(rng) for _ in range(self.num_pairs)]
            self._pairs_epoch = pair_epoch
        return self._pairs

    def __getitem__(self, index: int) -> dict:
        if not 0 <= index < self.num_pairs:
            raise IndexError(f"index {index} out of range for a dataset of {self.num_pairs} pairs")
        example = build_nsp_example(
            self.token_documents,
            self.pairs()[index],
            max_length=self.max_length,
            cls_token_id=self.tokenizer.cls_token_id,
            sep_token_id=self.tokenizer.sep_token_id,
        )
        example["mask_seed"] = self._mask_seed + index  # the collator hashes the seeds of a batch together
        return example


class PretrainingCollator:
    """Turn a list of examples into a padded, masked batch for ``BertForPreTraining``.

    Returns a dict of LongTensors: ``input_ids`` (B, T) masked, ``token_type_ids`` (B, T),
    ``attention_mask`` (B, T) 1 = token / 0 = padding, ``labels`` (B, T) original id at masked positions and
    -100 elsewhere, ``next_sentence_label`` (B,) 0 = IsNext / 1 = NotNext. T is the longest example
    (rounded up to ``pad_to_multiple_of``). Masking is redone on every call (dynamic masking) with
    :func:`bertedu.core.masking.mask_tokens`; the masking arguments are passed on to it. If every example has a
    ``mask_seed`` (as :class:`PretrainingDataset` items do) the masks are a function of those seeds, so the
    same examples always get the same masks; otherwise ``generator`` (or the global RNG) is used.
    Introduced in notebook 06.
    """

    def __init__(
        self,
        tokenizer,
        *,
        mlm_probability: float = 0.15,
        mask_replace_prob: float = 0.8,
        random_replace_prob: float = 0.1,
        selection: str = "bernoulli",
        whole_word_mask: bool = False,
        pad_to_multiple_of: int | None = None,
        generator: torch.Generator | None = None,
    ):
        check_masking(mlm_probability, mask_replace_prob, random_replace_prob, selection)
        require_int("pad_to_multiple_of", pad_to_multiple_of, 1, none_ok=True)
        self.tokenizer = tokenizer
        self.mlm_probability = mlm_probability
        self.mask_replace_prob = mask_replace_prob
        self.random_replace_prob = random_replace_prob
        self.selection = selection
        self.whole_word_mask = whole_word_mask
        self.pad_to_multiple_of = pad_to_multiple_of
        self.generator = generator

    def __call__(self, examples: Sequence[dict]) -> dict[str, torch.Tensor]:
        if not examples:
            raise ValueError("Cannot collate an empty list of examples.")
        T = max(len(ex["input_ids"]) for ex in examples)
        if self.pad_to_multiple_of:
            T = -(-T // self.pad_to_multiple_of) * self.pad_to_multiple_of
        pad = self.tokenizer.pad_token_id
        lengths = [len(ex["input_ids"]) for ex in examples]
        # (numpy turns a list of lists into an array ~5x faster than torch.tensor does)
        input_ids = _long_tensor(
            [ex["input_ids"] + [pad] * (T - n) for ex, n in zip(examples, lengths)]
        )  # (B, T)
        token_type_ids = _long_tensor(
            [ex["token_type_ids"] + [0] * (T - n) for ex, n in zip(examples, lengths)]
        )
        attention_mask = _long_tensor([[1] * n + [0] * (T - n) for n in lengths])  # (B, T) 1 = token, 0 = pad

        generator = self.generator
        if all("mask_seed" in ex for ex in examples):
            generator = torch.Generator().manual_seed(stable_seed(*(ex["mask_seed"] for ex in examples)))
        word_ids = self.tokenizer.word_ids(input_ids) if self.whole_word_mask else None
        masked_ids, labels = mask_tokens(
            input_ids,
            tokenizer=self.tokenizer,
            mlm_probability=self.mlm_probability,
            mask_replace_prob=self.mask_replace_prob,
            random_replace_prob=self.random_replace_prob,
            selection=self.selection,
            word_ids=word_ids,
            generator=generator,
        )
        return {
            "input_ids": masked_ids,
            "token_type_ids": token_type_ids,
            "attention_mask": attention_mask,
            "labels": labels,
            "next_sentence_label": torch.tensor([int(ex["next_sentence_label"]) for ex in examples]),  # (B,)
        }


def _long_tensor(rows: list[list[int]]) -> torch.Tensor:
    return torch.from_numpy(np.array(rows, dtype=np.int64))


# ----------------------------------------------------------------------------------------------------------
# Batches


def bucketed_batches(
    dataset: PretrainingDataset,
    collator: PretrainingCollator,
    batch_size: int,
    *,
    start_step: int = 0,
    bucket_batches: int = 8,
) -> Iterator[tuple[int, dict]]:
    """Endless stream of ``(step, batch)``, epoch after epoch, batches of similar lengths (less padding).

    fast path: grouping by length only saves compute; ``bucket_batches=1`` gives plain shuffled batches.

    Each epoch's examples are shuffled; every run of ``bucket_batches`` batches' worth of examples is then
    sorted by length and cut into batches, whose order inside the run is shuffled again. A batch is padded
    to its longest example, so grouping similar lengths saves most of the padding (about a third of the
    compute on the course corpus). Batch ``step`` is still a pure function of ``(dataset.seed, step)``, so
    ``start_step`` resumes exactly. ``bucket_batches=1`` gives plain shuffled batches.
    """
    require_int("batch_size", batch_size, 1)
    require_int("bucket_batches", bucket_batches, 1)
    n = len(dataset)
    per_epoch = -(-n // batch_size)
    group = bucket_batches * batch_size  # examples per bucket
    step = start_step
    while True:
        epoch, first = divmod(step, per_epoch)
        dataset.set_epoch(epoch)
        order = torch.randperm(
            n, generator=torch.Generator().manual_seed(stable_seed(dataset.seed, epoch, "bucket"))
        )
        for start in range(first // bucket_batches * group, n, group):
            g = start // group  # the bucket's number inside the epoch
            members = order[start : start + group].tolist()
            examples = {i: dataset[i] for i in members}
            members.sort(key=lambda i: len(examples[i]["input_ids"]))  # stable: ties keep the shuffled order
            batches = [members[k : k + batch_size] for k in range(0, len(members), batch_size)]
            shuffle = torch.Generator().manual_seed(stable_seed(dataset.seed, epoch, g, "bucket-order"))
            batches = [batches[k] for k in torch.randperm(len(batches), generator=shuffle).tolist()]
            offset = start // batch_size  # index (within the epoch) of this bucket's first batch
            for k, indices in enumerate(batches):
                if offset + k < first:
                    continue  # before start_step (resuming)
                yield step, collator([examples[i] for i in indices])
                step += 1
