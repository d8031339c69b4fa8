"""Packed pretraining examples (NSPPairSampler's max_tokens, PretrainingDataset's and PretrainingConfig's packing):
A and B are consecutive sentences that fill the row, IsNext B continues A, NotNext B comes from another document,
an epoch holds every token about once, and the sharded corpus packs exactly as the corpus in memory does."""

from __future__ import annotations

import random

import pytest
import torch
from support import CORPUS

from bertedu.training.data import (
    IS_NEXT,
    NSPPairSampler,
    PretrainingCollator,
    PretrainingDataset,
    bucketed_batches,
    packed_pairs,
    read_corpus,
)
from bertedu.training.pretrain import PretrainingConfig
from bertedu.training.shards import ShardedCorpus, write_shards
from bertedu.utils import stable_seed

MAX_TOKENS = 20


@pytest.fixture
def tokenizer(word_tokenizer):
    return word_tokenizer(sorted({w for w in CORPUS.split()}))


def token_documents(seed: int = 0, docs: int = 12) -> list[list[list[int]]]:
    """Documents of 2-15 sentences of 1-9 tokens (token ids tell document and sentence apart)."""
    rng = random.Random(seed)
    return [[[100 * d + s] * rng.randint(1, 9) for s in range(rng.randint(2, 15))] for d in range(docs)]


def tokens(documents, span) -> int:
    return sum(len(s) for s in documents[span.doc][span.start : span.stop])


def test_packed_pairs_are_consecutive_sentences_that_fill_the_row():
    documents = token_documents()
    sampler = NSPPairSampler(documents, max_tokens=MAX_TOKENS)
    rng = random.Random(1)
    pairs = [sampler.sample(rng) for _ in range(2000)]
    for pair in pairs:
        a, b = pair.a, pair.b
        assert 0 <= a.start < a.stop and b.start < b.stop <= len(documents[b.doc]) and a.stop >= 1
        if pair.is_next:
            assert (b.doc, b.start) == (a.doc, a.stop)  # B is A's continuation
        else:
            assert b.doc != a.doc and b.start >= 1  # from another document, never its first sentence
        n_a, n_b = tokens(documents, a), tokens(documents, b)
        # the row is full, unless A reached its document's start and B its document's end
        assert n_a + n_b >= MAX_TOKENS or (a.start == 0 and b.stop == len(documents[b.doc]))
        # no sentence more than needed: without B's last one the pair would not be full (unless B is one sentence,
        # or its document ended and A then reached further back)
        last = len(documents[b.doc][b.stop - 1])
        ended = b.stop == len(documents[b.doc])
        assert b.stop - b.start == 1 or ended or n_a + n_b - last < MAX_TOKENS
    share = sum(p.next_sentence_label == IS_NEXT for p in pairs) / len(pairs)
    assert 0.45 < share < 0.55
    full = sum(tokens(documents, p.a) + tokens(documents, p.b) >= MAX_TOKENS for p in pairs) / len(pairs)
    assert full > 0.9


def test_without_max_tokens_a_and_b_stay_one_or_two_sentences():
    documents = token_documents()
    sampler = NSPPairSampler(documents)
    rng = random.Random(1)
    for _ in range(500):
        pair = sampler.sample(rng)
        assert 1 <= pair.a.stop - pair.a.start <= 2 and 1 <= pair.b.stop - pair.b.start <= 2


def test_a_packed_dataset_fills_its_rows_and_an_epoch_holds_every_token_once(tokenizer):
    documents = read_corpus_documents()
    packed = PretrainingDataset(documents, tokenizer, max_length=16, packing=True, seed=3)
    plain = PretrainingDataset(documents, tokenizer, max_length=16, seed=3)
    total = sum(len(s) for doc in packed.token_documents for s in doc)
    assert len(packed) == packed_pairs(total, 16) == -(-total // 13) and len(plain) == 12
    lengths = [len(packed[i]["input_ids"]) for i in range(len(packed))]
    assert max(lengths) <= 16 and sum(lengths) / len(lengths) > sum(
        len(plain[i]["input_ids"]) for i in range(len(plain))
    ) / len(plain)
    for i in range(len(packed)):  # [CLS] A [SEP] B [SEP], segment ids 0 then 1
        ids, types = packed[i]["input_ids"], packed[i]["token_type_ids"]
        sep = tokenizer.sep_token_id
        assert ids[0] == tokenizer.cls_token_id and ids.count(sep) == 2 and ids[-1] == sep
        assert types == [0] * (ids.index(sep) + 1) + [1] * (len(ids) - ids.index(sep) - 1)


def read_corpus_documents() -> list[list[str]]:
    return [doc.splitlines() for doc in CORPUS.strip().split("\n\n")]


def test_the_sharded_corpus_packs_as_the_corpus_in_memory(tmp_path, tokenizer):
    path = tmp_path / "corpus.txt"
    path.write_text(CORPUS.strip() + "\n", encoding="utf-8")
    corpus = ShardedCorpus(write_shards(path, tmp_path / "shards", tokenizer))
    assert corpus.pairs_per_epoch(packing=True, max_length=16) == [
        packed_pairs(corpus.shards[0]["tokens"], 16)
    ]
    collator = PretrainingCollator(tokenizer)
    sharded = corpus.batches(collator, 4, seed=5, max_length=16, packing=True)
    dataset = PretrainingDataset(
        read_corpus(path), tokenizer, max_length=16, packing=True, seed=stable_seed(5, "shard", 0)
    )
    in_memory = bucketed_batches(dataset, collator, 4)
    for _ in range(6):
        (_, a), (_, b) = next(sharded), next(in_memory)
        assert all(torch.equal(a[k], b[k]) for k in a)


def test_wrong_packing_settings_say_what_to_fix(tokenizer):
    with pytest.raises(ValueError, match="tokenized documents"):
        NSPPairSampler(read_corpus_documents(), max_tokens=10)
    with pytest.raises(ValueError, match="packing must be True or False"):
        PretrainingDataset(read_corpus_documents(), tokenizer, packing="yes")
    with pytest.raises(ValueError, match="packing must be one of"):
        PretrainingConfig(packing=1)
    assert PretrainingConfig(packing=True).to_dict()["packing"] is True
