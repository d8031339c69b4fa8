"""The report logic of benchmarks/bench_robustness.py (the measurements are `make bench`'s job)."""

from __future__ import annotations

from pathlib import Path

import bench_robustness  # noqa: E402
import pytest
from common import Summary  # noqa: E402


def fake(ratio=1.1):
    runs = [
        {
            "seed": s,
            "threads": t,
            "mlm_top1": 0.9 - 0.01 * s,
            "mlm_top5": 0.99,
            "nsp_accuracy": 0.95 - 0.05 * t,
        }
        for s in range(2)
        for t in (1, 2)
    ]
    for r in runs:
        r["train_seconds"] = 40.0
    summary = {name: Summary([r[name] for r in runs], "") for name in bench_robustness.METRICS}
    return {
        "load": {
            1: {
                "steps": 1000,
                "course_run": True,
                "idle": Summary([40.0, 42.0], "s"),
                "loaded": Summary([40.0 * ratio, 42.0 * ratio], "s"),
                "ratio": Summary([ratio, ratio], ""),
                "load_average": Summary([2.0, 2.1], ""),
                "idle_load_average": Summary([1.0, 1.1], ""),
            },
            2: {
                "steps": 200,
                "course_run": False,
                "idle": Summary([6.0], "s"),
                "loaded": Summary([40.0], "s"),
                "ratio": Summary([6.7], ""),
                "load_average": Summary([3.0], ""),
                "idle_load_average": Summary([1.0], ""),
            },
        },
        "spread": {
            "runs": runs,
            "summary": summary,
            "proposed": {k: bench_robustness.propose_threshold(v.values) for k, v in summary.items()},
            "seeds": 2,
            "threads": [1, 2],
        },
    }


@pytest.mark.parametrize(
    ("values", "expected"), [([0.85, 0.95], 0.8), ([0.835, 0.9], 0.75), ([0.962, 1.0], 0.9), ([0.9], 0.85)]
)
def test_a_proposed_threshold_lies_well_below_the_lowest_run(values, expected):
    assert bench_robustness.propose_threshold(values) == pytest.approx(expected)


def test_the_section_reports_every_run_and_flags_an_assert_at_the_edge(monkeypatch):
    text = "\n".join(bench_robustness.section(fake()))
    assert text.startswith(bench_robustness.HEADING)
    assert text.count("| 0 | 1 |") == 1 and text.count("| 1 | 2 |") == 1  # one row per seed and thread
    assert "| NSP accuracy | 0.850 / 0.875 / 0.900 | ≥ 0.75 | yes | ≥ 0.80 |" in text
    assert "| 1 (the recipe) | 1000 |" in text and "✅ met" in text
    assert bench_robustness.missed(fake()) == []
    monkeypatch.setitem(bench_robustness.CURRENT_ASSERTS, "nsp_accuracy", 0.85)  # an assert at the lowest run
    text = "\n".join(bench_robustness.section(fake()))
    assert (
        "| NSP accuracy | 0.850 / 0.875 / 0.900 | ≥ 0.85 | no: +0.000 from the lowest run | ≥ 0.80 |" in text
    )


def test_a_slow_loaded_run_is_a_missed_target():
    assert "❌ missed" in "\n".join(bench_robustness.section(fake(ratio=3.0)))
    assert bench_robustness.missed(fake(ratio=3.0)) == [
        "the course run beside a busy core took 3.0x its idle time with 1 thread(s) (limit 2x)"
    ]


def test_merge_replaces_only_its_own_section():
    report = "# Benchmarks\n\n## 5. Ablations\n\nold ablations\n"
    merged = bench_robustness.merge(report, ["## 6. Robustness: x", "", "first"])
    assert merged.endswith("## 6. Robustness: x\n\nfirst\n") and "old ablations" in merged
    report = merged.replace("## 6. Robustness: x", bench_robustness.HEADING) + "\n## 7. Later\n\nkept\n"
    merged = bench_robustness.merge(report, [bench_robustness.HEADING, "", "second"])
    assert "second" in merged and "first" not in merged and "## 7. Later\n\nkept" in merged


def test_current_asserts_are_notebook_06s():
    """The report compares the measured spread with what notebook 06 really claims: its ledger entries, which the
    notebook's cell checks."""
    import json

    from bertedu.course.claims import CHECK_CALL, ledger

    nb = json.loads(
        (Path(__file__).resolve().parents[1] / "notebooks" / "06_mini_pretraining.ipynb").read_text()
    )
    cell = next(c for c in nb["cells"] if c.get("id") == "fa0b28a5")
    checked = set(CHECK_CALL.findall("".join(cell["source"])))
    ids = {"mlm_top1": "06-mlm-top1", "mlm_top5": "06-mlm-top5", "nsp_accuracy": "06-nsp-accuracy"}
    assert set(ids.values()) <= checked
    assert {
        metric: ledger()[claim].margin for metric, claim in ids.items()
    } == bench_robustness.CURRENT_ASSERTS
