"""The tokenizer's fast paths (issue 42: WordNet's 2 M words) give what the plain code gives: the ASCII regular
expression the character loop's words, the WordPiece cache the uncached pieces, the trainer's heap of pairs the
merges a scan of every pair picks, and the heap does not rescan every pair per merge."""

from __future__ import annotations

import random
import warnings
from collections import Counter

import pytest

import bertedu.core.tokenizer as tok
from bertedu.core.tokenizer import SPECIAL_TOKENS, BasicTokenizer, BertTokenizer, WordpieceTokenizer
from bertedu.training.data import read_corpus
from bertedu.utils import data_path


def random_ascii(rng: random.Random, n: int) -> str:
    """ASCII text with every kind of character BERT tells apart: controls, white space, punctuation, symbols."""
    alphabet = [chr(c) for c in range(128)] + list("aaaaeeeeiioouu    tnsrhl")
    return "".join(rng.choice(alphabet) for _ in range(n))


@pytest.mark.parametrize("lower", [True, False])
def test_the_ascii_path_gives_the_character_loops_words(lower):
    basic = BasicTokenizer(do_lower_case=lower, never_split=SPECIAL_TOKENS)
    rng = random.Random(0)
    texts = [random_ascii(rng, rng.randint(0, 60)) for _ in range(3000)]
    texts += ["Hello, WORLD! don't-stop (now) 3.14 $5 a_b", "tab\there\x0bvt\x1fus\x7fdel \r\n end"]
    for text in texts:
        assert basic._tokenize_ascii(text) == basic._tokenize_chars(text), repr(text)
    assert basic.tokenize("Héllo [MASK] wörld!") == [
        "hello" if lower else "Héllo",
        "[MASK]",
        *(["world", "!"] if lower else ["wörld", "!"]),
    ]


def test_the_wordpiece_cache_gives_the_uncached_pieces_and_cannot_be_spoiled():
    pieces = WordpieceTokenizer(["[UNK]", "un", "##want", "##ed", "runn", "##ing", "a"])
    words = ["unwanted", "running", "unwantedx", "a", "runn", "x" * 150]
    first = [pieces.tokenize_word(w) for w in words]
    assert first == [pieces._tokenize_word(w) for w in words]
    first[0].append("spoiled")  # a caller changing the list it got back
    assert pieces.tokenize_word("unwanted") == ["un", "##want", "##ed"]
    assert set(pieces._cache) == set(words)


def scan_merges(texts, vocab_size: int, score: str) -> list[str]:
    """train_wordpiece's merges, each found by a scan of every pair (:func:`tok._best_pair`, the rule) and counted
    again from scratch word by word (:func:`tok._count`): the slow reference the fast paths must reproduce."""
    basic = BasicTokenizer(True, SPECIAL_TOKENS)
    word_freq = tok._word_frequencies(texts, basic)
    chars = sorted({c for word in word_freq for c in word})
    inner = sorted("##" + c for c in chars if not tok._is_punctuation(c) and not tok._is_chinese_char(ord(c)))
    vocab = [*SPECIAL_TOKENS, *chars, *inner]
    words = list(word_freq)
    splits = [[w[0], *("##" + c for c in w[1:])] for w in words]
    piece_freq, pair_freq, pair_words = Counter(), Counter(), {}
    for i, split in enumerate(splits):
        tok._count(split, word_freq[words[i]], i, piece_freq, pair_freq, pair_words)
    while len(vocab) < vocab_size and pair_freq:
        first, second = best = tok._best_pair(pair_freq, piece_freq, score)
        merged = first + second[2:]
        if merged not in vocab:
            vocab.append(merged)
        for i in sorted(pair_words.pop(best)):
            tok._count(splits[i], -word_freq[words[i]], i, piece_freq, pair_freq, pair_words)
            splits[i] = tok._merge(splits[i], first, second, merged)
            tok._count(splits[i], word_freq[words[i]], i, piece_freq, pair_freq, pair_words)
    return vocab


def corpora():
    course = [s for doc in read_corpus(data_path("simple_sentences.txt")) for s in doc]
    rng = random.Random(0)  # few letters: many ties, long runs of one letter (the same piece twice in a pair)
    letters = [
        " ".join(
            "".join(rng.choice("aab") for _ in range(rng.randint(1, 9))) for _ in range(rng.randint(1, 6))
        )
        for _ in range(300)
    ]
    return {"course": course, "letters": letters}


@pytest.mark.parametrize("score", ["likelihood", "frequency"])
@pytest.mark.parametrize("name", ["course", "letters"])
def test_the_fast_trainer_merges_as_the_scan_does(name, score):
    texts = corpora()[name]
    for size in (60, 150, 400, 10**4):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "the corpus supports only ... tokens"
            assert tok.train_wordpiece(texts, size, score=score) == scan_merges(texts, size, score), size


def test_the_queue_does_not_rescan_every_pair(monkeypatch):
    """The heap computes a handful of keys per merge, a scan one per pair: on 300 words of 12 letters drawn from
    20, fewer key computations over all merges than a scan would make for a tenth of them."""
    rng = random.Random(1)
    texts = [" ".join("".join(rng.choice("abcdefghijklmnopqrst") for _ in range(12)) for _ in range(300))]
    keys = Counter()
    real_key = tok._pair_key

    def counted(pair, pair_freq, piece_freq, score):
        keys["n"] += 1
        keys["pairs"] = max(keys["pairs"], len(pair_freq))
        return real_key(pair, pair_freq, piece_freq, score)

    monkeypatch.setattr(tok, "_pair_key", counted)
    vocab = tok.train_wordpiece(texts, 1000, score="frequency")
    merges = len(vocab) - len(SPECIAL_TOKENS) - 40
    assert merges > 900 and keys["n"] < merges / 10 * keys["pairs"]


def test_ids_are_the_same_through_every_path():
    """A sentence of accented (non-ASCII) text and its ASCII twin after accent stripping give the same ids."""
    tokenizer = BertTokenizer(tok.train_wordpiece(corpora()["course"], 300))
    assert tokenizer("the café opens")["input_ids"] == tokenizer("the cafe opens")["input_ids"]
