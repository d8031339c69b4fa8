"""Notebook 12's pretraining-step benchmark (benchmarks/bench_real_corpus.py): its batch, its count of the work, its
peak and its report (no timing: `make bench` times)."""

from __future__ import annotations

import bench_real_corpus  # noqa: E402
import pytest
import run_all  # noqa: E402
import torch
from bench_speed import twin_models  # noqa: E402
from common import Summary  # noqa: E402

from bertedu.core.config import BertConfig  # noqa: E402


@pytest.fixture(scope="module")
def small():
    config = BertConfig(
        vocab_size=200, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64
    )
    return config, bench_real_corpus.packed_batch(config, 4, 32)


def test_the_batch_is_packed_and_masked_without_an_nsp_label(small):
    _config, batch = small
    assert batch["attention_mask"].all(), "a packed row has no padding"
    assert "next_sentence_label" not in batch
    labelled = batch["labels"] != -100
    assert 0 < labelled.float().mean() < 0.3  # about 15 %
    assert (batch["input_ids"][:, 0] == 2).all() and (batch["input_ids"][:, -1] == 3).all()


def test_the_work_counts_the_vocabulary_projection_only_where_the_fast_path_computes_it(small):
    config, batch = small
    ours, theirs = twin_models(config)
    fast = bench_real_corpus.flops_per_step(ours, batch, ours=True, fast=True)
    everywhere = bench_real_corpus.flops_per_step(ours, batch, ours=True, fast=False)
    hf = bench_real_corpus.flops_per_step(theirs, batch, ours=False, fast=False)
    assert everywhere == hf, "the same maths must count the same work"
    # the MLM head: its H x H transform and the H x V projection, forward (2 H (H + V) a token) and backward
    # (twice that), at every position or at the labelled ones only
    rows, labelled = batch["input_ids"].numel(), int((batch["labels"] != -100).sum())
    head = 6 * config.hidden_size * (config.hidden_size + config.vocab_size)
    assert everywhere - fast == head * (rows - labelled)


def test_the_losses_are_the_same_on_both_sides(small):
    config, batch = small
    ours, theirs = twin_models(config)
    ours.eval(), theirs.eval()
    with torch.no_grad():
        a = bench_real_corpus.mlm_loss(ours, batch, ours=True, fast=True)
        b = bench_real_corpus.mlm_loss(theirs, batch, ours=False, fast=False)
    torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)


def test_the_peak_is_a_rate_of_a_matrix_product():
    peak = bench_real_corpus.peak_flops(n=128, repeats=2)
    assert 1e8 < peak < 1e13  # operations per second: a CPU core, not a unit slip


def test_the_section_reports_every_step_and_its_share_of_the_peak():
    rows = {
        k: {
            "tokens_per_s": Summary([1000.0, 1100.0, 1200.0], "tokens/s"),
            "gflop_per_step": 0.5,
            "share_of_peak": Summary([0.2, 0.25, 0.3], ""),
        }
        for k in bench_real_corpus.NAMES
    }
    result = {
        "config": "L=2 H=128 A=2 V=8000",
        "batch": "64 x 64",
        "peak_gflops": 90.0,
        "peak_size": 1024,
        "rows": rows,
        "ratio_fast": Summary([0.5, 0.6, 0.7], ""),
    }
    text = "\n".join(run_all.real_corpus_section(result))
    assert text.startswith(run_all.REAL_CORPUS_HEADING)
    assert text.count("| ours") == 3 and "| transformers" in text and "90.0 GFLOP/s" in text
    assert "0.60x transformers' time" in text
