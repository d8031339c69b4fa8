"""Fixtures shared by several test files: tiny tokenizers and configs, and a tiny pretraining set-up.

Everything here is small enough to train in well under a second on a CPU, so the tests of the training
loop, checkpoints, the course helpers and the command line run real training, not mocks.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bertedu.config import PRESETS, BertConfig
from bertedu.pretrain import PretrainingConfig
from bertedu.tokenizer import SPECIAL_TOKENS, BertTokenizer

# `make unit` runs the tests in two processes (pytest-xdist, -n 2 --dist loadgroup). Each worker keeps its
# quiz progress in its own folder, so that no test sees another worker's answers.
if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("BERTEDU_HOME"):
    _home = Path(os.environ["BERTEDU_HOME"]) / os.environ["PYTEST_XDIST_WORKER"]
    _home.mkdir(parents=True, exist_ok=True)
    os.environ["BERTEDU_HOME"] = str(_home)


def pytest_collection_modifyitems(config, items):
    """Groups for pytest-xdist's ``--dist loadgroup``: the tests that execute whole course notebooks share
    ``runs/mini-bert/`` (notebook 06 writes it, 07 and 08 read it), so they run one after the other, in
    order, on one worker; the real-browser tests share one worker too (each starts JupyterLab)."""
    for item in items:
        if "browser" in item.path.parts:
            item.add_marker(pytest.mark.xdist_group("browser"))
        elif item.path.name == "test_student_edition.py" and "runs_and_says" in item.name:
            item.add_marker(pytest.mark.xdist_group("course-notebooks"))


@pytest.fixture(scope="session")
def word_tokenizer():
    """``word_tokenizer(["the", "cat", ...])``: a tokenizer whose vocabulary is the special tokens + the words."""

    def make(words):
        return BertTokenizer([*SPECIAL_TOKENS, *words])

    return make


def small_bert_config(**overrides) -> BertConfig:
    """A 2-layer, H = 32, 4-head BERT config with 97 tokens and 40 positions (fast to build); ``overrides``
    change single fields. Test files import it: ``from conftest import small_bert_config``."""
    base = dict(
        vocab_size=97,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=48,
        max_position_embeddings=40,
    )
    return BertConfig(**{**base, **overrides})


# ----------------------------------------------------------------------------------------------------------
# A tiny pretraining set-up: a 3-document corpus, held-out files and a 1-layer model size "test"

CORPUS = """the cat sits on the mat
the cat drinks milk
then the cat sleeps by the fire

the dog runs in the park
the dog drinks water
the dog sleeps under the table

the sun rises in the east
the sun shines in the sky
the sun sets in the west

the man reads the book
the man drinks coffee
the woman drinks tea
"""
MLM_EVAL = "sentence\tanswers\nthe cat drinks [MASK]\tmilk\nthe [MASK] rises in the east\tsun\n"
NSP_EVAL = (
    "sentence_a\tsentence_b\tlabel\nthe cat sits on the mat\tthe cat drinks milk\tIsNext\n"
    "the cat sits on the mat\tthe sun sets in the west\tNotNext\n"
)
TEST_PRESET = {"num_hidden_layers": 1, "hidden_size": 16, "num_attention_heads": 2, "intermediate_size": 32}


@pytest.fixture
def corpus_files(tmp_path, monkeypatch):
    """A folder with ``corpus.txt``, ``mlm.tsv`` and ``nsp.tsv``; also registers the model size ``"test"``."""
    monkeypatch.setitem(PRESETS, "test", TEST_PRESET)
    folder = tmp_path / "inputs"
    folder.mkdir()
    (folder / "corpus.txt").write_text(CORPUS, encoding="utf-8")
    (folder / "mlm.tsv").write_text(MLM_EVAL, encoding="utf-8")
    (folder / "nsp.tsv").write_text(NSP_EVAL, encoding="utf-8")
    return folder


@pytest.fixture
def tiny_run(corpus_files):
    """``tiny_run(**changes)``: a ``PretrainingConfig`` of 8 steps of the "test" size on ``corpus_files``."""

    def make(**changes):
        base = dict(
            corpus=str(corpus_files / "corpus.txt"),
            model_size="test",
            max_length=32,
            steps=8,
            batch_size=4,
            learning_rate=5e-3,
            warmup_steps=2,
            log_every=2,
            eval_every=4,
            seed=3,
            mlm_eval_file=str(corpus_files / "mlm.tsv"),
            nsp_eval_file=str(corpus_files / "nsp.tsv"),
        )
        return PretrainingConfig(**{**base, **changes})

    return make


def same_weights(a, b) -> bool:
    """True if two models (or state dicts) hold exactly the same tensors."""
    sa = a.state_dict() if hasattr(a, "state_dict") else a
    sb = b.state_dict() if hasattr(b, "state_dict") else b
    return sa.keys() == sb.keys() and all(sa[k].equal(sb[k]) for k in sa)
