"""Corpora larger than memory: tokenize a corpus once into shards on disk, then stream them, memory-mapped.

Notebook 06 reads its corpus into memory and tokenizes it at the start of every run (:mod:`bertedu.training.data`):
fine for a few thousand sentences, not for a few hundred MB of text, whose token lists alone would need GBs
as Python objects. For such a corpus, tokenize it once::

    python -m bertedu.training.shards --corpus wiki.txt --output shards/wiki [--vocab vocab.txt] [--shard-tokens N]
    python -m bertedu.cli --corpus shards/wiki --output runs/wiki ...      # a shard folder as --corpus

The corpus is read line by line (:func:`bertedu.training.data.corpus_documents`, the rules of ``read_corpus``: one
sentence per line, a blank line between documents), so writing the shards needs the memory of one shard plus the vocabulary.

The format (a folder; written atomically, like a checkpoint)::

    shards.json                 {"format": 1, "corpus_sha256", "dtype", "tokens", "sentences", "documents",
                                 "shards": [{"name": "shard-00000", "tokens", "sentences", "documents"}, ...]}
    vocab.txt, tokenizer_config.json    the tokenizer the ids belong to (BertTokenizer.from_file(folder))
    shard-00000.ids.npy         (tokens,) every sentence's token ids, one after the other (uint16, or int32
                                for a vocabulary of more than 65,535 tokens)
    shard-00000.sentences.npy   (sentences + 1,) int64: sentence i is ids[sentences[i]:sentences[i + 1]]
    shard-00000.documents.npy   (documents + 1,) int64: document d is sentences documents[d] ... documents[d + 1] - 1

Plain ``.npy`` files, so ``numpy.load(path, mmap_mode="r")`` maps them without reading them: the operating
system pages in what a batch touches. A shard ends at a document boundary once it holds ``shard_tokens``
tokens, and holds at least two documents of two or more sentences (NSP draws a NotNext B from another
document of the same shard, as Google's ``create_pretraining_data.py`` does within its input files).

Training (:meth:`ShardedCorpus.batches`): each epoch visits the shards in a shuffled order, and inside a
shard draws NSP pairs and batches exactly as :func:`bertedu.training.data.bucketed_batches` does for a whole corpus;
only the shard being read has pairs in memory. Batch ``step`` is a pure function of ``(seed, step)``, so runs
resume exactly and several processes (:mod:`bertedu.scaleout.distributed`) build the same batches. Beyond notebook 06
(docs/scaling.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import torch

from bertedu.core.tokenizer import BertTokenizer, train_tokenizer
from bertedu.core.validation import require_int
from bertedu.files import atomic_write_json, write_directory_atomically
from bertedu.training.data import (
    PretrainingDataset,
    bucketed_batches,
    check_nsp_documents,
    corpus_documents,
    packed_pairs,
)
from bertedu.utils import file_sha256, stable_seed

SHARDS_META = "shards.json"
SHARDS_FORMAT = 1


def is_shard_folder(path) -> bool:
    """Whether ``path`` is a folder written by :func:`write_shards`."""
    return Path(path).is_dir() and (Path(path) / SHARDS_META).is_file()


# ----------------------------------------------------------------------------------------------------------
# Writing


class _Shard:
    """The ids, sentence offsets and document offsets of the shard being filled (compact numpy buffers)."""

    def __init__(self) -> None:
        self.ids: list[np.ndarray] = []
        self.sentences, self.documents, self.tokens = [0], [0], 0
        self.multi = 0  # documents with two or more sentences (NSP needs two of them)

    def add(self, document: list[list[int]]) -> None:
        for ids in document:
            self.ids.append(np.asarray(ids, dtype=np.int64))
            self.tokens += len(ids)
            self.sentences.append(self.tokens)
        self.documents.append(len(self.sentences) - 1)
        self.multi += len(document) >= 2

    def write(self, folder: Path, name: str, dtype) -> dict:
        ids = np.concatenate(self.ids).astype(dtype) if self.ids else np.zeros(0, dtype)
        np.save(folder / f"{name}.ids.npy", ids)
        np.save(folder / f"{name}.sentences.npy", np.asarray(self.sentences, dtype=np.int64))
        np.save(folder / f"{name}.documents.npy", np.asarray(self.documents, dtype=np.int64))
        return {
            "name": name,
            "tokens": self.tokens,
            "sentences": len(self.sentences) - 1,
            "documents": len(self.documents) - 1,
        }


def write_shards(
    corpus,
    folder,
    tokenizer: BertTokenizer | None = None,
    *,
    vocab_size: int | None = None,
    shard_tokens: int = 1 << 20,
) -> Path:
    """Tokenize the corpus file ``corpus`` into shards in ``folder`` (the format is in the module docstring)
    and return the folder. ``tokenizer``: the one to use (e.g. ``BertTokenizer.from_file("vocab.txt")``);
    ``None`` trains a WordPiece vocabulary of ``vocab_size`` on the corpus (streamed; ``None``: every word
    whole, as :func:`bertedu.core.tokenizer.train_tokenizer`). ``shard_tokens``: tokens per shard (at least).
    """
    corpus = Path(corpus)
    require_int("shard_tokens", shard_tokens, 1)
    if tokenizer is None:
        tokenizer = train_tokenizer(corpus_documents(corpus, reader="write_shards"), vocab_size)
    dtype = np.uint16 if tokenizer.vocab_size <= np.iinfo(np.uint16).max else np.int32

    def fill(tmp: Path) -> None:
        tokenizer.save_pretrained(tmp)
        shards, current, single = [], _Shard(), 0
        for document in corpus_documents(corpus, reader="write_shards"):
            ids = [tokenizer.convert_tokens_to_ids(tokenizer.tokenize(s)) for s in document]
            ids = [s for s in ids if s]  # a sentence of only invisible characters has no token
            if ids:
                current.add(ids)
                single += len(ids) == 1
            if current.tokens >= shard_tokens and current.multi >= 2:
                shards.append(current.write(tmp, f"shard-{len(shards):05d}", dtype))
                current = _Shard()
        if current.tokens and (current.multi >= 2 or not shards):
            shards.append(current.write(tmp, f"shard-{len(shards):05d}", dtype))
        elif current.tokens:  # a last few documents that cannot make NSP pairs alone: join the last shard
            last, merged = shards.pop(), _Shard()
            ids, sentences, documents = (
                np.load(tmp / f"{last['name']}.{part}.npy") for part in ("ids", "sentences", "documents")
            )
            for d in range(len(documents) - 1):
                merged.add(
                    [ids[sentences[i] : sentences[i + 1]] for i in range(documents[d], documents[d + 1])]
                )
            merged.ids += current.ids
            for start, stop in zip(current.documents, current.documents[1:]):
                merged.sentences += [merged.tokens + current.sentences[i + 1] for i in range(start, stop)]
                merged.documents.append(len(merged.sentences) - 1)
            merged.tokens += current.tokens
            shards.append(merged.write(tmp, last["name"], dtype))
        for shard in shards:  # every shard must make NSP pairs (raises with what to fix)
            check_nsp_documents(_ShardDocuments(tmp, shard["name"]))
        if single:
            warnings.warn(
                f"{single} document(s) of {corpus} have a single sentence: no NSP pair uses them.",
                stacklevel=2,
            )
        atomic_write_json(
            tmp / SHARDS_META,
            {
                "format": SHARDS_FORMAT,
                "corpus": corpus.name,
                "corpus_sha256": file_sha256(corpus),
                "dtype": np.dtype(dtype).name,
                "tokens": sum(s["tokens"] for s in shards),
                "sentences": sum(s["sentences"] for s in shards),
                "documents": sum(s["documents"] for s in shards),
                "shards": shards,
            },
        )

    return write_directory_atomically(folder, fill, is_complete=is_shard_folder, what="the shards")


# ----------------------------------------------------------------------------------------------------------
# Reading


class _Document(Sequence):
    """One document of a shard: ``doc[i]`` (a list of ids) or ``doc[i:j]`` (a list of them), read from the map."""

    def __init__(self, ids: np.ndarray, offsets: np.ndarray) -> None:
        self._ids, self._offsets = ids, offsets  # offsets: (sentences + 1,) for this document

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        i %= len(self)
        return self._ids[self._offsets[i] : self._offsets[i + 1]].tolist()


class _ShardDocuments(Sequence):
    """The documents of one shard, memory-mapped: what ``PretrainingDataset.token_documents`` holds in memory."""

    def __init__(self, folder: Path, name: str) -> None:
        self._ids, self._sentences, self._documents = (
            np.load(folder / f"{name}.{part}.npy", mmap_mode="r")
            for part in ("ids", "sentences", "documents")
        )

    def __len__(self) -> int:
        return len(self._documents) - 1

    def __getitem__(self, d):
        if not -len(self) <= d < len(self):
            raise IndexError(d)
        d %= len(self)
        return _Document(self._ids, self._sentences[self._documents[d] : self._documents[d + 1] + 1])


class ShardedCorpus:
    """A folder of shards (:func:`write_shards`): ``tokenizer``, ``corpus_sha256``, ``shards`` (their sizes)
    and :meth:`batches`. Raises ``ValueError`` naming what is wrong with a damaged folder."""

    def __init__(self, folder) -> None:
        self.folder = Path(folder)
        try:
            meta = json.loads((self.folder / SHARDS_META).read_text(encoding="utf-8"))
            if meta.get("format") != SHARDS_FORMAT:
                raise ValueError(f"format {meta.get('format')!r}, this bertedu reads format {SHARDS_FORMAT}")
            self.shards, self.corpus_sha256 = meta["shards"], meta["corpus_sha256"]
            missing = [s["name"] for s in self.shards if not (self.folder / f"{s['name']}.ids.npy").is_file()]
            if missing or not self.shards:
                raise ValueError(f"shard files missing: {missing[:3] or 'no shard listed'}")
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise ValueError(
                f"{self.folder} is not a complete shard folder ({err}); write it again with "
                "python -m bertedu.training.shards --corpus FILE --output FOLDER."
            ) from err
        self.tokenizer = BertTokenizer.from_file(self.folder)

    def pairs_per_epoch(self, *, packing: bool = False, max_length: int = 64) -> list[int]:
        """Each shard's NSP pairs in an epoch: one per sentence, or (``packing``) as many packed rows of
        ``max_length`` as hold its tokens once (:func:`bertedu.training.data.packed_pairs`)."""
        if packing:
            return [packed_pairs(s["tokens"], max_length) for s in self.shards]
        return [s["sentences"] for s in self.shards]

    def batches_per_epoch(self, batch_size: int, *, packing: bool = False, max_length: int = 64) -> list[int]:
        return [-(-n // batch_size) for n in self.pairs_per_epoch(packing=packing, max_length=max_length)]

    def batches(
        self,
        collator,
        batch_size: int,
        *,
        seed: int,
        max_length: int,
        max_sentences: int = 2,
        start_step: int = 0,
        bucket_batches: int = 8,
        packing: bool = False,
    ) -> Iterator[tuple[int, dict]]:
        """Endless ``(step, batch)`` as :func:`bertedu.training.data.bucketed_batches` gives them for a corpus in
        memory: an epoch has one NSP pair per sentence (``packing``: one packed row per ``max_length - 3``
        tokens); the shards come in an order drawn from ``(seed, epoch)``, each one's batches from
        ``(seed, shard, epoch)``. ``start_step`` resumes exactly."""
        pairs = self.pairs_per_epoch(packing=packing, max_length=max_length)
        per = self.batches_per_epoch(batch_size, packing=packing, max_length=max_length)
        step = start_step
        while True:
            epoch, first = divmod(step, sum(per))
            shuffle = torch.Generator().manual_seed(stable_seed(seed, epoch, "shards"))
            done = 0
            for j in torch.randperm(len(per), generator=shuffle).tolist():
                if done + per[j] <= first:  # before start_step (resuming)
                    done += per[j]
                    continue
                local = max(first - done, 0)
                with warnings.catch_warnings():  # write_shards warned about single-sentence documents once
                    warnings.simplefilter("ignore")
                    dataset = PretrainingDataset.from_token_documents(
                        _ShardDocuments(self.folder, self.shards[j]["name"]),
                        self.tokenizer,
                        num_pairs=pairs[j],
                        max_length=max_length,
                        max_sentences=max_sentences,
                        seed=stable_seed(seed, "shard", j),
                        packing=packing,
                    )
                inner = bucketed_batches(
                    dataset,
                    collator,
                    batch_size,
                    start_step=epoch * per[j] + local,
                    bucket_batches=bucket_batches,
                )
                for _ in range(per[j] - local):
                    yield step, next(inner)[1]
                    step += 1
                done += per[j]


def main(argv: list[str] | None = None) -> int:
    """``python -m bertedu.training.shards``: tokenize a corpus file into a shard folder."""
    parser = argparse.ArgumentParser(
        prog="python -m bertedu.training.shards",
        description="Tokenize a corpus (one sentence per line, a blank line between documents) once into "
        "memory-mapped shards, for python -m bertedu.cli --corpus FOLDER.",
    )
    parser.add_argument("--corpus", required=True, help="the text file")
    parser.add_argument("--output", required=True, help="the shard folder to write")
    parser.add_argument(
        "--vocab", help="vocab.txt (or a folder with one) to use; default: train one on the corpus"
    )
    parser.add_argument(
        "--vocab-size", type=int, help="size of the vocabulary to train (default: every word whole)"
    )
    parser.add_argument(
        "--shard-tokens", type=int, default=1 << 20, help="tokens per shard (default: 1048576)"
    )
    args = parser.parse_args(argv)
    try:
        tokenizer = BertTokenizer.from_file(args.vocab) if args.vocab else None
        folder = write_shards(
            args.corpus, args.output, tokenizer, vocab_size=args.vocab_size, shard_tokens=args.shard_tokens
        )
    except (ValueError, OSError) as err:
        print(f"{parser.prog}: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 1
    meta = json.loads((folder / SHARDS_META).read_text(encoding="utf-8"))
    print(
        f"{meta['tokens']} tokens, {meta['sentences']} sentences, {len(meta['shards'])} shard(s) in {folder}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
