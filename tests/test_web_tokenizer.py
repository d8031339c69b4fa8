"""The mini-BERT page's tokenizer (web/minibert/tokenizer.js) cuts text exactly as bertedu's Python tokenizer.

Run through node (web/minibert/tokenize_cli.mjs): tokens and ids of every sentence of the evaluation files and of part of the
corpus, of generated awkward texts (accents, CJK, punctuation, special tokens typed in the text, control and
whitespace characters, long words), and the basic tokenizer's words around a sample of every assigned code point.
"""

from __future__ import annotations

import functools
import json
import random
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from bertedu.core.tokenizer import SPECIAL_TOKENS, BasicTokenizer, BertTokenizer
from bertedu.course import course_tokenizer

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")
pytestmark = [
    pytest.mark.integration,  # starts node
    pytest.mark.skipif(NODE is None, reason="node is not installed: the page's tokenizer cannot run"),
]
# Code points whose Unicode category changed after Python's Unicode version (14.0): node's tables are newer.
UNICODE_VERSION_CHANGES = {0x1171E}  # AHOM SIGN RA: Mn in 14.0, Mc from 15.0


def run_tokenizer(
    vocab_text: str, texts: list[str], settings: dict | None = None, words: bool = False
) -> dict:
    request = {"vocab": vocab_text, "texts": texts, "settings": settings or {}, "words": words}
    done = subprocess.run(
        [NODE, str(ROOT / "web" / "minibert" / "tokenize_cli.mjs")],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> tuple[BertTokenizer, str]:
    tokenizer = course_tokenizer()
    folder = tmp_path_factory.mktemp("vocab")
    tokenizer.save_pretrained(folder)
    return tokenizer, (folder / "vocab.txt").read_text(encoding="utf-8")


def data_sentences() -> list[str]:
    texts = []
    for name in (
        "mlm_eval.tsv",
        "nsp_eval.tsv",
        "probes.tsv",
        "mlm_eval_generalise.tsv",
        "nsp_eval_hard.tsv",
    ):
        for line in (ROOT / "data" / name).read_text(encoding="utf-8").splitlines()[1:]:
            texts += line.split("\t")[:2]
    corpus = (ROOT / "data" / "simple_sentences.txt").read_text(encoding="utf-8").splitlines()
    return texts + corpus[::10]


def awkward_texts(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    pool = list("the cat dog sits on mat , . ! ? ' \" - ( ) $ + < = > ^ ` | ~ é É ñ ü ß İ Σ 你好世界 ，。 #")
    pool += list("\t\n\r\x00\ufffd\x85\u200b\u3000\xa0\u0301")
    pool += [
        "[MASK]",
        "[mask]",
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MAS",
        "cats",
        "sleeping",
        "ﬁ",
        "ǅ",
        "\U00020001",
    ]
    texts = ["".join(rng.choice(pool) for _ in range(rng.randint(0, 15))) for _ in range(n)]
    return texts + ["a" * 100, "a" * 101, "cat" * 40, "", "   "]


def test_javascript_tokens_and_ids_equal_python_on_the_course_vocabulary(course):
    tokenizer, vocab = course
    texts = data_sentences() + awkward_texts(2000)
    reply = run_tokenizer(
        vocab, texts, {"doLowerCase": True, "stripAccents": None, "tokenizeChineseChars": True}
    )
    assert len(texts) > 2500
    bad = [
        (t, tokenizer.tokenize(t), js) for t, js in zip(texts, reply["tokens"]) if tokenizer.tokenize(t) != js
    ]
    assert not bad, f"{len(bad)} texts tokenised differently, e.g. {bad[:3]}"
    bad = [(t, js) for t, js in zip(texts, reply["ids"]) if tokenizer.encode(t)["input_ids"] != js]
    assert not bad, f"{len(bad)} texts encoded differently, e.g. {bad[:3]}"
    assert any(tokenizer.unk_token_id in ids for ids in reply["ids"]), "the texts should reach [UNK]"
    assert any(tokenizer.mask_token_id in ids for ids in reply["ids"])


@functools.cache
def assigned() -> list[str]:
    """Every code point assigned in Python's Unicode version (no surrogates)."""
    return [chr(i) for i in range(sys.maxunicode + 1) if unicodedata.category(chr(i)) not in ("Cn", "Cs")]


@pytest.mark.parametrize(
    "lower, accents, chinese, step",
    [(True, None, True, 7), (False, None, False, 41), (True, False, True, 43)],
)
def test_javascript_basic_tokenizer_equals_python_around_every_kind_of_character(
    lower, accents, chinese, step
):
    """The course's settings on every 7th assigned code point; the other settings on a sparser sample."""
    chars = [c for c in assigned()[::step] if ord(c) not in UNICODE_VERSION_CHANGES]
    texts = [f"Ab{c}Cd é" for c in chars]
    basic = BasicTokenizer(lower, SPECIAL_TOKENS, chinese, accents)
    settings = {"doLowerCase": lower, "stripAccents": accents, "tokenizeChineseChars": chinese}
    reply = run_tokenizer("\n".join(SPECIAL_TOKENS) + "\n", texts, settings, words=True)
    bad = [
        (hex(ord(c)), basic.tokenize(t), js)
        for c, t, js in zip(chars, texts, reply["words"])
        if basic.tokenize(t) != js
    ]
    assert not bad, f"{len(bad)} characters handled differently, e.g. {bad[:5]}"


def test_a_vocabulary_with_a_repeated_token_is_refused():
    done = subprocess.run(
        [NODE, str(ROOT / "web" / "minibert" / "tokenize_cli.mjs")],
        input=json.dumps({"vocab": "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\ncat\ncat\n", "texts": ["cat"]}),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0 and "appears twice" in done.stderr
