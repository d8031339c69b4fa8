"""The recipe-budget table of benchmarks/bench_recipe_budget.py: its checks, reading and report, on hand-made
results (no training: `make bench` trains)."""

from __future__ import annotations

import json

import bench_recipe_budget  # noqa: E402
import bench_speedups  # noqa: E402
import pytest
from common import Summary  # noqa: E402

from bertedu.course import course_config  # noqa: E402

TRIGRAM_TOP1 = 0.785
#: Notebook 06's margin over the better corpus rule (its ledger entry), and a top-1 just short of it.
OVER = bench_recipe_budget.MIN_TOP1_OVER_TRIGRAM
SHORT = round(TRIGRAM_TOP1 + OVER - 0.01, 3)
GOOD = {"top1": (0.90, 0.91, 0.92), "top5": (0.95, 0.96, 0.97), "nsp": (0.88, 0.89, 0.90)}


def fake_row(steps: int, seconds: tuple[float, ...], top1=GOOD["top1"], top5=GOOD["top5"], nsp=GOOD["nsp"]):
    """A row of :func:`bench_recipe_budget.measure` with seeds 0, 1, 2 (each tuple in seed order)."""
    return {
        "steps": steps,
        "warmup_steps": steps // 10,
        "seeds": [0, 1, 2],
        "train_seconds": Summary(list(seconds), "s"),
        "load_average": Summary([2.0, 2.5, 3.0], ""),
        "held_out": {
            "mlm_eval.tsv": {"top1": Summary(list(top1), ""), "top5": Summary(list(top5), "")},
            "mlm_eval_generalise.tsv": {"top1": Summary([0.5, 0.6, 0.7], ""), "top5": Summary([0.8] * 3, "")},
            "nsp_eval.tsv": {"accuracy": Summary(list(nsp), "")},
            "nsp_eval_hard.tsv": {"accuracy": Summary([0.5] * 3, "")},
        },
    }


def fake_results(rows: list[dict] | None = None) -> dict:
    rows = rows or [
        # top-1 median SHORT: above 0.75 but short of the margin over the trigram model; NSP median 0.80
        fake_row(600, (33.0, 34.0, 35.0), top1=(SHORT, 0.709, 0.84), nsp=(0.50, 0.80, 0.82)),
        fake_row(800, (44.0, 45.0, 47.0), top1=(0.86, 0.84, 0.85), nsp=(0.74, 0.85, 0.86)),
        fake_row(1000, (55.0, 56.0, 58.0)),
    ]
    return {
        "rows": rows,
        "baselines": {
            "mlm_eval.tsv": {"top1": TRIGRAM_TOP1, "top5": 0.924},
            "nsp_eval.tsv": {"accuracy": 0.99},
        },
        "recipe_steps": 1000,
    }


def test_the_claims_are_notebook_06s_assertions():
    """The budget table checks notebook 06's own claims: the margins of its ledger entries, which the notebook's
    cell asserts through claims.check."""
    from bertedu.course.claims import ledger

    b = bench_recipe_budget
    assert (b.MIN_TOP1, b.MIN_TOP5, b.MIN_NSP_ACCURACY) == tuple(
        ledger()[c].margin for c in ("06-mlm-top1", "06-mlm-top5", "06-nsp-accuracy")
    )
    assert b.MIN_TOP1_OVER_TRIGRAM == ledger()["06-mlm-beats-trigram"].margin[0]
    assert all(ledger()[c].cell == "fa0b28a5" for c in ("06-mlm-top1", "06-mlm-top5", "06-nsp-accuracy"))


def test_a_budget_keeps_the_recipes_ten_percent_warm_up_and_nothing_else_changes():
    config = bench_recipe_budget.budget_config(600, seed=2)
    recipe = course_config()
    assert recipe.warmup_steps == recipe.steps // 10  # the share the budgets keep
    assert (config.steps, config.warmup_steps, config.seed) == (600, 60, 2)
    assert config == recipe.replace(steps=600, warmup_steps=60, seed=2)
    with pytest.raises(ValueError, match="at least 10"):
        bench_recipe_budget.budget_config(5, seed=0)


def test_the_runs_side_by_side_mix_step_counts():
    order = bench_recipe_budget.schedule((600, 800, 1000), (0, 1, 2))
    assert sorted(order) == [(s, seed) for s in (600, 800, 1000) for seed in (0, 1, 2)]
    assert order[:3] == [(600, 0), (800, 0), (1000, 0)]  # not three 600-step runs first


def test_each_claim_is_checked_on_its_own():
    met = bench_recipe_budget.claims_met
    assert met(0.84, 0.92, 0.80, TRIGRAM_TOP1) == [True] * 4
    assert met(0.74, 0.92, 0.80, 0.6) == [False, True, True, True]
    assert met(0.90, 0.89, 0.80, TRIGRAM_TOP1) == [True, False, True, True]
    assert met(0.90, 0.92, 0.74, TRIGRAM_TOP1) == [True, True, False, True]
    assert met(SHORT, 0.92, 0.80, TRIGRAM_TOP1) == [True, True, True, False]  # short of the trigram + margin


def test_a_row_whose_median_misses_one_claim_is_missed_and_seeds_are_counted_one_by_one():
    rows = fake_results()["rows"]
    # 600: medians top-1 SHORT (< 0.785 + margin), NSP 0.80; seed 2 alone (0.84, NSP 0.82) meets all four
    assert bench_recipe_budget.row_meets(rows[0], TRIGRAM_TOP1) == [True, True, True, False]
    assert bench_recipe_budget.seeds_meeting(rows[0], TRIGRAM_TOP1) == 1
    # 800: medians meet every claim, but seed 0's NSP is 0.74: 2 of 3 seeds
    assert all(bench_recipe_budget.row_meets(rows[1], TRIGRAM_TOP1))
    assert bench_recipe_budget.seeds_meeting(rows[1], TRIGRAM_TOP1) == 2
    assert bench_recipe_budget.seeds_meeting(rows[2], TRIGRAM_TOP1) == 3
    text = "\n".join(bench_recipe_budget.section(fake_results()))
    assert f"| 600 (warm-up 60) | 33.0 / 34.0 / 35.0 s | 0.709 / {SHORT:.3f} / 0.840 |" in text
    assert f"| 1 of 3 | ❌ missed (top-1 ≥ trigram + {OVER}) |" in text
    assert "| 800 (warm-up 80) |" in text and "| 2 of 3 | ✅ met |" in text
    assert "| 3 of 3 | ✅ met |" in text and text.count("| 0.785 |") == 3
    assert "Load average (1 minute, read as each run finished): 2.0 / 2.5 / 3.0." in text


def test_the_reading_names_the_fewest_steps_that_keep_the_claims_and_the_seconds_saved():
    text = bench_recipe_budget.reading(fake_results())
    assert (
        "**800** (45.0 s of training per run, median), 11.0 s (20%) less than the 1,000-step recipe's 56.0 s, for 20% fewer steps."
        in (text)
    )
    slow = fake_results()
    slow["rows"][1] = fake_row(800, (44.0, 45.0, 47.0), top5=(0.85, 0.89, 0.95))  # top-5 median below 0.9
    assert bench_recipe_budget.fewest_steps(slow)["steps"] == 1000
    assert "**1,000**" in bench_recipe_budget.reading(
        slow
    ) and "no smaller budget" in bench_recipe_budget.reading(slow)
    none = fake_results([fake_row(600, (30.0, 31.0, 32.0), nsp=(0.5, 0.6, 0.7))])
    assert bench_recipe_budget.fewest_steps(none) is None
    assert bench_recipe_budget.reading(none).startswith("No step count measured meets every claim")
    assert bench_recipe_budget.reading(fake_results()) in bench_recipe_budget.section(fake_results())


def test_the_table_goes_after_the_speed_table_and_replaces_itself():
    report = (
        "# Benchmarks\n\n## 2. Training speed: x\n\n| a |\n\n"
        f"{bench_speedups.HEADING}\n\nspeed\n\n## 3. Inference\n\nrest\n"
    )
    first = bench_recipe_budget.merge(report, bench_recipe_budget.section(fake_results()))
    assert (
        first.index(bench_speedups.HEADING) < first.index(bench_recipe_budget.HEADING) < first.index("## 3.")
    )
    assert "speed" in first and first.endswith("## 3. Inference\n\nrest\n")
    again = bench_recipe_budget.merge(first, bench_recipe_budget.section(fake_results()))
    assert again == first and again.count(bench_recipe_budget.HEADING) == 1
    changed = fake_results()
    changed["rows"][0]["train_seconds"] = Summary([20.0, 21.0, 22.0], "s")
    third = bench_recipe_budget.merge(first, bench_recipe_budget.section(changed))
    assert third.count(bench_recipe_budget.HEADING) == 1
    assert "20.0 / 21.0 / 22.0 s" in third and "33.0 / 34.0 / 35.0 s" not in third
    # the speed table's own merge stops at this sub-section
    speed = bench_speedups.merge(third, [bench_speedups.HEADING, "", "new speed", ""])
    assert "new speed" in speed and "20.0 / 21.0 / 22.0 s" in speed and "\nspeed\n" not in speed


def test_only_recipe_budget_merges_into_the_reports(tmp_path, monkeypatch):
    import run_all

    monkeypatch.setattr(run_all, "RESULTS", tmp_path / "RESULTS.md")
    monkeypatch.setattr(run_all, "RESULTS_JSON", tmp_path / "results.json")
    monkeypatch.setattr(run_all, "ROOT", tmp_path)
    (tmp_path / "RESULTS.md").write_text(
        "# B\n\n## 2. Training speed\n\nold\n\n## 3. Inference\n", encoding="utf-8"
    )
    (tmp_path / "results.json").write_text(json.dumps({"inference": {"kept": 1}}), encoding="utf-8")
    monkeypatch.setattr(bench_recipe_budget, "measure", lambda quick=False: fake_results())
    for _ in range(2):
        assert run_all.main(["--only-recipe-budget"]) == 0
    saved = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert set(saved) == {"inference", "recipe_budget"} and saved["inference"] == {"kept": 1}
    report = (tmp_path / "RESULTS.md").read_text(encoding="utf-8")
    assert report.count(bench_recipe_budget.HEADING) == 1
    assert "old" in report and report.index(bench_recipe_budget.HEADING) < report.index("## 3. Inference")
    table = run_all.deserialise(saved)["recipe_budget"]
    assert bench_recipe_budget.section(table) == bench_recipe_budget.section(fake_results())  # re-renders
