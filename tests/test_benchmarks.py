"""The benchmark report logic (not the measurements: those are `make bench`'s job, never timed tests)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_quality  # noqa: E402
from common import Summary  # noqa: E402


def fake_results(top1=(0.9, 0.91, 0.92), gap=(0.08, 0.09, 0.1), span_f1=(0.6, 0.61, 0.62), minilm_s=20.0):
    s = lambda values: Summary(list(values), "")  # noqa: E731
    return {
        "pretraining": {
            "scores": {
                "mlm_top1": s(top1),
                "mlm_top5": s((0.98, 0.99, 1.0)),
                "nsp_accuracy": s((0.9, 0.95, 0.96)),
            },
            "baseline": {"mlm_top1": s((0.3, 0.38, 0.4)), "mlm_top5": s((0.7, 0.77, 0.8))},
            "train_seconds": Summary([30.0, 31.0, 32.0], "s"),
            "seeds": 3,
        },
        "finetuning": {
            "tasks": {
                "sentence_classification": {
                    "metric": "accuracy",
                    "threshold": 0.85,
                    "mini-bert": s((0.88, 0.9, 0.91)),
                    "scratch": s((0.7, 0.78, 0.8)),
                },
                "span_extraction": {
                    "metric": "f1",
                    "threshold": 0.4,
                    "mini-bert": s(span_f1),
                    "scratch": s((0.3, 0.33, 0.35)),
                },
            },
            "smallest_budget_gap": s(gap),
            "seeds": 3,
            "minilm": {
                "accuracy": 0.889,
                "macro_f1": 0.888,
                "seconds": minilm_s,
                "train_seconds": minilm_s - 2,
            },
        },
    }


def test_summary_reports_min_median_max():
    summary = Summary([3.0, 1.0, 2.0], "s")
    assert (summary.min, summary.median, summary.max) == (1.0, 2.0, 3.0)
    assert summary.fmt(1) == "1.0 / 2.0 / 3.0 s"
    assert Summary([0.5], "").fmt(2) == "0.50 / 0.50 / 0.50"


def test_nothing_is_missed_when_every_median_meets_its_target():
    assert bench_quality.missed(fake_results()) == []
    text = "\n".join(bench_quality.section(fake_results()))
    assert "❌" not in text and text.count("✅ met") == 7
    assert "0.380" in text  # the seed-002 baseline is reported next to the mini-BERT


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"top1": (0.5, 0.55, 0.7)}, "pre-training mlm_top1 below 0.6"),
        ({"gap": (0.0, 0.01, 0.2)}, "gap at 10% of the labels below 0.05"),
        ({"span_f1": (0.2, 0.3, 0.5)}, "fine-tuning span_extraction f1 below 0.4"),
        ({"minilm_s": 150.0}, "all-MiniLM-L6-v2 fine-tuning took 150 s"),
    ],
)
def test_a_missed_target_is_named_and_marked(changes, expected):
    results = fake_results(**changes)
    failures = bench_quality.missed(results)
    assert len(failures) == 1 and expected in failures[0]
    assert "❌ missed" in "\n".join(bench_quality.section(results))


def test_readme_quotes_the_committed_results():
    import json

    import run_all

    results = run_all.deserialise(json.loads(run_all.RESULTS_JSON.read_text(encoding="utf-8")))
    readme = run_all.README.read_text(encoding="utf-8")
    block = readme.split(run_all.README_START, 1)[1].split(run_all.README_END, 1)[0]
    assert block.strip() == "\n".join(run_all.headline(results)).strip(), (
        "run: python benchmarks/run_all.py --readme-only"
    )
    assert "(benchmarks/RESULTS.md)" in block and "ratio" in block
