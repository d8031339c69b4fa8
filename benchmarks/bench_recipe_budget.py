"""What a smaller recipe would cost: notebook 06's quality after fewer training steps.

Notebook 06 pretrains the course mini-BERT with :func:`bertedu.course.course_config` (1,000 steps, warm-up 100,
about a minute on one CPU thread). Fewer steps would make the notebook faster; this table shows what they would
cost in quality. For every step count of :data:`STEPS` and every seed of :data:`SEEDS` it pretrains
``course_config(steps=S, warmup_steps=S // 10, seed=seed)`` (the recipe's 10 % warm-up, everything else
unchanged), scores the model on notebook 06's held-out files (``bench_quality.held_out_scores``) and checks
notebook 06's own assertions (:data:`CLAIMS`) on the median over the seeds, and on each seed.

Every run is one training thread (the recipe's), in a fresh process of its own; :data:`WORKERS` of them run at
a time (the machine has 2 cores).

    python benchmarks/bench_recipe_budget.py [--quick]   # print the table only (run_all.py writes the reports)
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor

import bench_speedups
from bench_quality import held_out_baselines, held_out_scores
from common import Summary, run_json_subprocess, verdict

from bertedu.course import course_config
from bertedu.course.claims import ledger
from bertedu.training.pretrain import PretrainingConfig, pretrain

HEADING = "### What a smaller recipe costs (notebook 06's quality)"
STEPS = (600, 800, 1000)
SEEDS = (0, 1, 2)
QUICK = {"steps": (600, 1000), "seeds": (0,)}
WARMUP_SHARE = 0.1  # the recipe's warm-up: 100 of 1,000 steps
WORKERS = 2  # runs at a time, one thread each (2 cores)
RUN_TIMEOUT_S = 900

# Notebook 06's own claims on its model, read from the claims ledger (bertedu/course/claims.yaml), on
# data/mlm_eval.tsv and data/nsp_eval.tsv.
MIN_TOP1 = ledger()["06-mlm-top1"].margin
MIN_TOP5 = ledger()["06-mlm-top5"].margin
MIN_NSP_ACCURACY = ledger()["06-nsp-accuracy"].margin
MIN_TOP1_OVER_TRIGRAM = ledger()["06-mlm-beats-trigram"].margin[0]
#: The claims by name, as the report writes them.
CLAIMS = (
    f"top-1 ≥ {MIN_TOP1}",
    f"top-5 ≥ {MIN_TOP5}",
    f"NSP ≥ {MIN_NSP_ACCURACY}",
    f"top-1 ≥ trigram + {MIN_TOP1_OVER_TRIGRAM}",
)
MLM_FILE, NSP_FILE = "mlm_eval.tsv", "nsp_eval.tsv"


# ----------------------------------------------------------------------------------------------------------
# The runs


def budget_config(steps: int, seed: int) -> PretrainingConfig:
    """The recipe with ``steps`` training steps (and 10 % of them warm-up), everything else unchanged."""
    if steps < 10:
        raise ValueError(f"steps must be at least 10 (10 % of them warm up), got {steps}.")
    return course_config(steps=steps, warmup_steps=int(steps * WARMUP_SHARE), seed=seed)


def run_here(steps: int, seed: int) -> dict:
    """Pretrain one budget with one seed in this process: its training seconds, held-out scores, and the
    1-minute load average when training ended (how busy the machine was)."""
    run = pretrain(budget_config(steps, seed), None, progress=False)
    return {
        "steps": steps,
        "seed": seed,
        "train_seconds": run.train_seconds,
        "load_average": os.getloadavg()[0],
        "held_out": held_out_scores(run.model, run.tokenizer),
    }


def run_one(steps: int, seed: int) -> dict:
    """:func:`run_here` in a fresh process (nothing another run allocated or set disturbs it)."""
    code = (
        "import json, sys\n"
        "sys.path.insert(0, 'benchmarks')\n"
        "import bench_recipe_budget\n"
        f"print(json.dumps(bench_recipe_budget.run_here({steps}, {seed})))\n"
    )
    return run_json_subprocess(code, timeout=RUN_TIMEOUT_S)


def schedule(steps: tuple[int, ...], seeds: tuple[int, ...]) -> list[tuple[int, int]]:
    """The ``(steps, seed)`` runs in the order they start: seed by seed, every step count in turn, so the
    runs side by side mix step counts and a busier spell of the machine slows all rows alike."""
    return [(s, seed) for seed in seeds for s in steps]


def measure(quick: bool = False, workers: int = WORKERS) -> dict:
    """Every (steps, seed) run, ``workers`` at a time, summarised per step count (min / median / max over the
    seeds, each :class:`common.Summary`'s values in seed order), with the held-out files' trivial baselines."""
    steps, seeds = (QUICK["steps"], QUICK["seeds"]) if quick else (STEPS, SEEDS)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        runs = list(pool.map(lambda job: run_one(*job), schedule(steps, seeds)))
    rows = []
    for s in steps:
        mine = [r for r in runs if r["steps"] == s]  # in seed order
        held_out = {
            name: {metric: Summary([r["held_out"][name][metric] for r in mine], "") for metric in metrics}
            for name, metrics in mine[0]["held_out"].items()
        }
        rows.append(
            {
                "steps": s,
                "warmup_steps": int(s * WARMUP_SHARE),
                "seeds": [r["seed"] for r in mine],
                "train_seconds": Summary([r["train_seconds"] for r in mine], "s"),
                "load_average": Summary([r["load_average"] for r in mine], ""),
                "held_out": held_out,
            }
        )
    return {"rows": rows, "baselines": held_out_baselines(), "recipe_steps": course_config().steps}


# ----------------------------------------------------------------------------------------------------------
# The checks


def claims_met(top1: float, top5: float, nsp: float, trigram_top1: float) -> list[bool]:
    """Whether each of notebook 06's :data:`CLAIMS` holds for these scores (in that order)."""
    return [
        top1 >= MIN_TOP1,
        top5 >= MIN_TOP5,
        nsp >= MIN_NSP_ACCURACY,
        top1 - trigram_top1 >= MIN_TOP1_OVER_TRIGRAM,
    ]


def _scores(row: dict) -> tuple[Summary, Summary, Summary]:
    mlm, nsp = row["held_out"][MLM_FILE], row["held_out"][NSP_FILE]
    return mlm["top1"], mlm["top5"], nsp["accuracy"]


def row_meets(row: dict, trigram_top1: float) -> list[bool]:
    """:func:`claims_met` on the row's medians over the seeds."""
    top1, top5, nsp = _scores(row)
    return claims_met(top1.median, top5.median, nsp.median, trigram_top1)


def seeds_meeting(row: dict, trigram_top1: float) -> int:
    """How many of the row's seeds meet every claim on their own scores."""
    return sum(all(claims_met(*seed, trigram_top1)) for seed in zip(*(s.values for s in _scores(row))))


def fewest_steps(results: dict) -> dict | None:
    """The row with the fewest steps whose medians meet every claim (None if no row does)."""
    trigram = results["baselines"][MLM_FILE]["top1"]
    passing = [row for row in results["rows"] if all(row_meets(row, trigram))]
    return min(passing, key=lambda row: row["steps"]) if passing else None


def reading(results: dict) -> str:
    """One sentence: the fewest steps that keep notebook 06's claims, and the training time that saves (or
    costs) against the recipe's step count (the largest one measured if the recipe's is not)."""
    rows = results["rows"]
    recipe = next(
        (r for r in rows if r["steps"] == results["recipe_steps"]), max(rows, key=lambda r: r["steps"])
    )
    best = fewest_steps(results)
    if best is None:
        return (
            "No step count measured meets every claim of notebook 06 on its median, "
            f"not even {recipe['steps']:,} steps."
        )
    best_s, recipe_s = best["train_seconds"].median, recipe["train_seconds"].median
    text = (
        f"The fewest steps whose median meets every claim of notebook 06: **{best['steps']:,}** "
        f"({best_s:.1f} s of training per run, median)"
    )
    if best is recipe:
        return text + "; no smaller budget measured keeps them."
    saved = recipe_s - best_s
    return (
        text + f", {saved:.1f} s ({saved / recipe_s:.0%}) less than the {recipe['steps']:,}-step recipe's "
        f"{recipe_s:.1f} s, for {1 - best['steps'] / recipe['steps']:.0%} fewer steps."
    )


# ----------------------------------------------------------------------------------------------------------
# The report


def section(results: dict) -> list[str]:
    """The table's Markdown lines (a sub-section at the end of RESULTS.md's "Training speed")."""
    rows, baselines = results["rows"], results["baselines"]
    trigram = baselines[MLM_FILE]["top1"]
    seeds = rows[0]["seeds"]
    lines = [
        HEADING,
        "",
        "Notebook 06's recipe (`bertedu.course.course_config`, "
        f"{results['recipe_steps']:,} steps of batch 64) with fewer steps: "
        "`course_config(steps=S, warmup_steps=S // 10, seed=seed)`, so every budget keeps the recipe's 10 % "
        "warm-up and everything else (learning rate, batch, one thread) unchanged; the same seeds "
        f"({', '.join(map(str, seeds))}) for every step count, two runs at a time, each in its own process. "
        f"Scores on `{MLM_FILE}` (masked words) and `{NSP_FILE}` (next sentence), min / median / max over the "
        "seeds; the checks are notebook 06's own assertions "
        f"({'; '.join(CLAIMS)}), met by a row when its medians meet them. *Training seconds*: "
        "`PretrainingRun.train_seconds` (the loop with its periodic evaluation); two runs share the two cores, "
        "so a run takes longer than it would alone: compare the rows with each other.",
        "",
        "| steps | training seconds per run (min / median / max) | MLM top-1 | top-5 | NSP accuracy "
        "| trigram top-1 | seeds meeting notebook 06's claims | verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        top1, top5, nsp = _scores(row)
        met = row_meets(row, trigram)
        missed = [claim for claim, ok in zip(CLAIMS, met, strict=True) if not ok]
        lines.append(
            f"| {row['steps']:,} (warm-up {row['warmup_steps']}) | {row['train_seconds'].fmt(1)} | "
            f"{top1.fmt(3)} | {top5.fmt(3)} | {nsp.fmt(3)} | {trigram:.3f} | "
            f"{seeds_meeting(row, trigram)} of {len(row['seeds'])} | {verdict(all(met))}"
            + (f" ({', '.join(missed)})" if missed else "")
            + " |"
        )
    lines += ["", reading(results)]
    loads = [v for row in rows if "load_average" in row for v in row["load_average"].values]
    if loads:
        lines += [
            "",
            f"Load average (1 minute, read as each run finished): {Summary(loads, '').fmt(1)}. Two runs alone "
            "keep it near 2 on a 2-core machine; more means other programs ran too and every run took longer.",
        ]
    others = [name for name in rows[0]["held_out"] if name not in (MLM_FILE, NSP_FILE)]
    if others:
        medians = [
            f"{row['steps']:,} steps: "
            + ", ".join(
                f"`{name}` {' / '.join(row['held_out'][name])} "
                + " / ".join(f"{summary.median:.3f}" for summary in row["held_out"][name].values())
                for name in others
            )
            for row in rows
        ]
        lines += [
            "",
            "The other held-out files (medians, no claim in notebook 06): " + "; ".join(medians) + ".",
        ]
    return lines + [""]


def merge(report: str, lines: list[str]) -> str:
    """``report`` (RESULTS.md) with this sub-section replaced by ``lines``; without one, inserted at the end
    of the section "## 2. Training speed" (``bench_speedups.merge``)."""
    return bench_speedups.merge(report, lines, heading=HEADING)


if __name__ == "__main__":  # python benchmarks/bench_recipe_budget.py [--quick]: print the table only
    print("\n".join(section(measure(quick="--quick" in sys.argv))))
