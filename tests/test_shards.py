"""Corpora larger than memory (bertedu.training.shards): the shard format holds exactly the tokenized corpus, batches
stream one shard at a time and resume exactly, memory does not grow with the corpus, and pretrain and the
command line take a shard folder as the corpus."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest
import torch
from support import CORPUS, same_weights

from bertedu.core.tokenizer import train_tokenizer
from bertedu.training.data import PretrainingCollator, read_corpus
from bertedu.training.pretrain import pretrain
from bertedu.training.shards import SHARDS_META, ShardedCorpus, is_shard_folder, write_shards


def corpus_file(tmp_path, copies: int = 1, name: str = "corpus.txt"):
    """The conftest corpus (4 documents of 3 sentences) ``copies`` times, each copy's words marked apart."""
    docs = [
        "\n".join(f"{line} {'again ' * (i % 3)}".strip() for line in doc.splitlines())
        for i in range(copies)
        for doc in CORPUS.strip().split("\n\n")
    ]
    path = tmp_path / name
    path.write_text("\n\n".join(docs) + "\n", encoding="utf-8")
    return path


def test_shards_hold_exactly_the_tokenized_corpus(tmp_path):
    path = corpus_file(tmp_path, copies=3)
    folder = write_shards(path, tmp_path / "shards", shard_tokens=40)
    meta = json.loads((folder / SHARDS_META).read_text(encoding="utf-8"))
    assert is_shard_folder(folder) and len(meta["shards"]) > 1 and meta["dtype"] == "uint16"
    corpus = ShardedCorpus(folder)
    tokenizer = train_tokenizer(read_corpus(path))  # what write_shards trained, streaming
    assert corpus.tokenizer.vocab == tokenizer.vocab
    expected = [
        [tokenizer.convert_tokens_to_ids(tokenizer.tokenize(s)) for s in d] for d in read_corpus(path)
    ]
    found = []
    for shard in meta["shards"]:
        ids, sentences, documents = (
            np.load(folder / f"{shard['name']}.{part}.npy", mmap_mode="r")
            for part in ("ids", "sentences", "documents")
        )
        assert (
            isinstance(ids, np.memmap)
            and len(ids) == shard["tokens"]
            and len(sentences) == shard["sentences"] + 1
        )
        for d in range(shard["documents"]):
            found.append(
                [ids[sentences[i] : sentences[i + 1]].tolist() for i in range(documents[d], documents[d + 1])]
            )
        assert shard["tokens"] >= 40 or shard is meta["shards"][-1]
    assert found == expected
    assert meta["tokens"] == sum(len(s) for d in expected for s in d) and meta["documents"] == len(expected)


def test_a_small_last_part_joins_the_last_shard(tmp_path):
    """12 documents with shards of >= 1 token: each shard takes 2 documents, but a 13th, lone document cannot
    make NSP pairs alone, so it joins the last shard."""
    path = corpus_file(tmp_path, copies=3)
    with path.open("a", encoding="utf-8") as fh:
        fh.write("\na lone last document\nof two sentences\n")
    folder = write_shards(path, tmp_path / "shards", shard_tokens=1)
    meta = json.loads((folder / SHARDS_META).read_text(encoding="utf-8"))
    assert [s["documents"] for s in meta["shards"]] == [2] * 5 + [3]
    assert meta["documents"] == 13 and meta["sentences"] == 38


def test_batches_are_a_function_of_the_step_and_resume_exactly(tmp_path):
    corpus = ShardedCorpus(
        write_shards(corpus_file(tmp_path, copies=3), tmp_path / "shards", shard_tokens=40)
    )
    collator = PretrainingCollator(corpus.tokenizer)
    per_epoch = sum(corpus.batches_per_epoch(4))
    stream = corpus.batches(collator, 4, seed=1, max_length=32)
    batches = [next(stream) for _ in range(2 * per_epoch + 3)]  # over two epoch boundaries
    assert [s for s, _ in batches] == list(range(len(batches)))
    rows = sum(len(b["input_ids"]) for _, b in batches[:per_epoch])
    assert rows == sum(s["sentences"] for s in corpus.shards)  # an epoch: one NSP pair per sentence
    for start in (1, per_epoch - 1, per_epoch + 2):
        step, batch = next(corpus.batches(collator, 4, seed=1, max_length=32, start_step=start))
        assert step == start and all(torch.equal(batch[k], batches[start][1][k]) for k in batch)
    other = next(corpus.batches(collator, 4, seed=2, max_length=32))[1]
    assert not torch.equal(other["input_ids"], batches[0][1]["input_ids"])
    assert not torch.equal(batches[0][1]["input_ids"], batches[per_epoch][1]["input_ids"])  # epochs differ


@pytest.mark.slow
def test_streaming_memory_does_not_grow_with_the_corpus(tmp_path):
    """Python memory while streaming an epoch stays that of one shard (its pairs and batches) whether the
    corpus has a couple of shards of 1000 tokens or eight times as many (the ids stay on disk, mapped)."""

    def peak(copies: int) -> tuple[int, int]:
        folder = write_shards(
            corpus_file(tmp_path, copies, f"c{copies}.txt"), tmp_path / f"s{copies}", shard_tokens=1000
        )
        corpus = ShardedCorpus(folder)
        stream = corpus.batches(PretrainingCollator(corpus.tokenizer), 32, seed=0, max_length=32)
        steps = sum(corpus.batches_per_epoch(32))
        tracemalloc.start()
        for _ in range(steps):
            next(stream)
        peak_bytes = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return len(corpus.shards), peak_bytes

    (few, small), (many, large) = peak(24), peak(192)
    assert many >= 6 * few
    assert large < 1.5 * small, f"{few} shards: {small} bytes, {many} shards: {large} bytes"


@pytest.mark.slow
def test_pretrain_on_shards_resumes_bit_for_bit(tmp_path):
    folder = write_shards(corpus_file(tmp_path, copies=2), tmp_path / "shards", shard_tokens=40)
    from bertedu.core.config import PRESETS
    from bertedu.training.pretrain import PretrainingConfig

    assert "tiny" in PRESETS
    config = PretrainingConfig(
        corpus=str(folder),
        model_size="tiny",
        max_length=32,
        steps=6,
        batch_size=4,
        eval_every=0,
        num_threads=1,
    )
    whole = pretrain(config, progress=False)
    pretrain(config, tmp_path / "run", progress=False, stop_after=3)
    resumed = pretrain(config, tmp_path / "run", resume=True, progress=False)
    assert same_weights(whole.model, resumed.model) and whole.history == resumed.history
    assert whole.tokenizer.vocab == ShardedCorpus(folder).tokenizer.vocab


@pytest.mark.integration
def test_command_lines_write_shards_and_train_on_them(tmp_path):
    path = corpus_file(tmp_path, copies=2)
    made = subprocess.run(
        [
            sys.executable,
            "-m",
            "bertedu.training.shards",
            "--corpus",
            str(path),
            "--output",
            "shards",
            "--shard-tokens",
            "40",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert made.returncode == 0, made.stderr
    assert "shard(s) in" in made.stdout and is_shard_folder(tmp_path / "shards")
    args = ["--corpus", "shards", "--output", "run", "--preset", "tiny", "--steps", "3", "--batch-size", "4"]
    trained = subprocess.run(
        [
            sys.executable,
            "-m",
            "bertedu.cli",
            *args,
            "--max-length",
            "32",
            "--threads",
            "1",
            "--no-progress",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert trained.returncode == 0, trained.stderr
    assert "Training finished at step 3/3" in trained.stdout


def test_damaged_or_unusable_shards_are_refused_with_what_to_do(tmp_path):
    folder = write_shards(corpus_file(tmp_path), tmp_path / "shards", shard_tokens=40)
    (folder / "shard-00000.ids.npy").unlink()
    with pytest.raises(ValueError, match="not a complete shard folder.*python -m bertedu.training.shards"):
        ShardedCorpus(folder)
    (tmp_path / "one.txt").write_text("just one document\nof two sentences\n", encoding="utf-8")
    with pytest.raises(ValueError, match="NSP needs at least two documents"):
        write_shards(tmp_path / "one.txt", tmp_path / "bad")
    assert not (tmp_path / "bad").exists()  # nothing half-written is left
    with pytest.raises(FileNotFoundError, match="does not exist"):
        write_shards(tmp_path / "missing.txt", tmp_path / "bad")
    (tmp_path / "latin1.txt").write_bytes("the cat sits.\nthe café is open.\n".encode("latin-1"))
    with pytest.raises(
        ValueError, match=r"not valid UTF-8: line 2, byte 7 of that line .*Re-save it as UTF-8"
    ):
        write_shards(tmp_path / "latin1.txt", tmp_path / "bad")  # read_corpus's message: where, and the fix


def test_pretrain_refuses_a_vocab_size_the_shards_do_not_have(tmp_path):
    from bertedu.training.pretrain import PretrainingConfig

    folder = write_shards(corpus_file(tmp_path), tmp_path / "shards")
    config = PretrainingConfig(
        corpus=str(folder), model_size="tiny", max_length=32, steps=2, vocab_size=30522
    )
    with pytest.raises(ValueError, match="vocab_size=30522, but the shards .* leave vocab_size out"):
        pretrain(config, progress=False)
