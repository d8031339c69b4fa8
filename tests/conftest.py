"""Fixtures shared by several test files: tiny tokenizers, and a tiny pretraining set-up. Plain helpers and
constants that test files import (``small_bert_config``, ``same_weights``, the tiny corpus) are in
``tests/support.py``: import them from there, never from ``conftest`` (pytest loads several conftest modules,
tests/browser has its own, and ``import conftest`` may find the wrong one).

Everything here is small enough to train in well under a second on a CPU, so the tests of the training
loop, checkpoints, the course helpers and the command line run real training, not mocks.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support import CORPUS, MLM_EVAL, NSP_EVAL, TEST_PRESET

from bertedu.config import PRESETS
from bertedu.pretrain import PretrainingConfig
from bertedu.tokenizer import SPECIAL_TOKENS, BertTokenizer

# `make unit` runs the tests in two processes (pytest-xdist, -n 2 --dist loadgroup). Each worker keeps its
# quiz progress in its own folder, so that no test sees another worker's answers.
if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("BERTEDU_HOME"):
    _home = Path(os.environ["BERTEDU_HOME"]) / os.environ["PYTEST_XDIST_WORKER"]
    _home.mkdir(parents=True, exist_ok=True)
    os.environ["BERTEDU_HOME"] = str(_home)


def pytest_collection_modifyitems(config, items):
    """Groups for pytest-xdist's ``--dist loadgroup``: the runs of the student editions of notebooks 06, 07
    and 08 share ``runs/mini-bert/`` (06 writes it, 07 and 08 read it), so they run one after the other, in
    order, on one worker; the real-browser tests share one worker too (each starts JupyterLab). Every other
    test goes to whichever worker is free."""
    for item in items:
        if "browser" in item.path.parts:
            item.add_marker(pytest.mark.xdist_group("browser"))
        elif item.path.name == "test_student_edition.py" and "runs_and_says" in item.name:
            if any(f"[{nb}" in item.name for nb in ("06_", "07_", "08_")):
                item.add_marker(pytest.mark.xdist_group("course-model"))


@pytest.fixture(scope="session")
def word_tokenizer():
    """``word_tokenizer(["the", "cat", ...])``: a tokenizer whose vocabulary is the special tokens + the words."""

    def make(words):
        return BertTokenizer([*SPECIAL_TOKENS, *words])

    return make


# ----------------------------------------------------------------------------------------------------------
# A tiny pretraining set-up: a 3-document corpus, held-out files and a 1-layer model size "test"


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
