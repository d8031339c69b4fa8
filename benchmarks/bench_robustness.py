"""Robustness of the course's pretraining run (issue 20): beside a busy core, and over seeds and thread counts.

Under load: notebook 06's run (``bertedu.course.course_config``) is timed in a fresh process on the machine as
it is ("idle") and beside one ``while True: pass`` process (a CPU hog), with the recipe's one thread (the full
run) and with two threads (its first steps: two threads beside a hog are many times slower). The target: the
course run beside a hog takes at most twice its idle time.

Spread: the recipe pretrained with seeds 0..n-1, with one and with two threads (the exact weights depend on
the thread count, as they depend on the CPU); held-out masked-word top-1 / top-5 and NSP accuracy of every
run, and a threshold for each proposed well inside the spread (for the asserts of notebook 06).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

from common import HOG, LOADED_LIMIT, Summary, run_json_subprocess, verdict

from bertedu.course import course_config
from bertedu.course.claims import ledger
from bertedu.training.pretrain import pretrain

HEADING = "## 6. Robustness: beside a busy core, and over seeds and thread counts"
METRICS = {"mlm_top1": "masked-word top-1", "mlm_top5": "masked-word top-5", "nsp_accuracy": "NSP accuracy"}
# What notebook 06 asserts (its cell "fa0b28a5"; tests/test_bench_robustness.py keeps the two equal).
#: What notebook 06 claims of its model: the margins of the claims ledger (bertedu/course/claims.yaml).
CURRENT_ASSERTS = {
    metric: ledger()[claim].margin
    for metric, claim in (
        ("mlm_top1", "06-mlm-top1"),
        ("mlm_top5", "06-mlm-top5"),
        ("nsp_accuracy", "06-nsp-accuracy"),
    )
}
MARGIN = 0.05  # a proposed threshold lies at least this far below the lowest score measured


def _timed_run(threads: int, steps: int | None) -> dict:
    """Seconds of the course pretraining run (``steps`` of it; ``None``: all) in a fresh process."""
    override = f", steps={steps}" if steps else ""
    code = (
        "import json, time\n"
        "from bertedu.course import course_config\n"
        "from bertedu.training.pretrain import pretrain\n"
        f"config = course_config(num_threads={threads}{override})\n"
        "start = time.perf_counter()\n"
        "run = pretrain(config, progress=False)\n"
        "print(json.dumps({'seconds': time.perf_counter() - start, 'steps': run.step}))\n"
    )
    return run_json_subprocess(code, timeout=3600)


def under_load(*, repeats: int, short_steps: int) -> dict:
    """Idle and loaded seconds per thread count: the full run with the recipe's threads, ``short_steps``
    steps with the other count. Each repeat measures idle, then loaded, in fresh processes."""
    recipe_threads = course_config().num_threads
    plan = {recipe_threads: None, 2 if recipe_threads == 1 else 1: short_steps}
    out = {}
    for threads, steps in plan.items():
        idle, loaded, loads, idle_loads = [], [], [], []
        for _ in range(repeats):
            idle.append(_timed_run(threads, steps))
            idle_loads.append(os.getloadavg()[0])
            hog = subprocess.Popen([sys.executable, "-c", HOG])
            try:
                time.sleep(1.0)  # let the hog take its core
                loaded.append(_timed_run(threads, steps))
                loads.append(os.getloadavg()[0])
            finally:
                hog.kill()
                hog.wait()
        out[threads] = {
            "steps": idle[0]["steps"],
            "course_run": steps is None,
            "idle": Summary([r["seconds"] for r in idle], "s"),
            "loaded": Summary([r["seconds"] for r in loaded], "s"),
            "ratio": Summary([b["seconds"] / a["seconds"] for a, b in zip(idle, loaded, strict=True)], ""),
            "load_average": Summary(loads, ""),
            "idle_load_average": Summary(idle_loads, ""),
        }
    return out


def score_spread(*, seeds: int, threads: tuple[int, ...] = (1, 2), cache: str | None = None) -> dict:
    """Held-out scores of the course recipe for every (seed, thread count), and proposed thresholds.

    ``cache``: a JSON-lines file of finished runs, reused when the recipe, the CPU and torch are the same
    (the scores are deterministic for them) and appended to, so an interrupted measurement resumes.
    """
    done = {}
    if cache and Path(cache).is_file():
        for line in Path(cache).read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            done[record["key"]] = record
    runs = []
    for seed in range(seeds):
        for n in threads:
            config = course_config(seed=seed, num_threads=n)
            key = json.dumps({"config": config.to_dict(), **_platform()}, sort_keys=True)
            if key not in done:
                run = pretrain(config, progress=False)  # no checkpoint
                done[key] = {
                    "key": key,
                    **evaluate_course_model_of(run, config),
                    "train_seconds": run.train_seconds,
                }
                if cache:
                    with open(cache, "a", encoding="utf-8") as fh:
                        fh.write(json.dumps(done[key]) + "\n")
            runs.append({"seed": seed, "threads": n, **{k: v for k, v in done[key].items() if k != "key"}})
    summary = {name: Summary([r[name] for r in runs], "") for name in METRICS}
    return {
        "runs": runs,
        "summary": summary,
        "proposed": {name: propose_threshold(s.values) for name, s in summary.items()},
        "seeds": seeds,
        "threads": list(threads),
    }


def _platform() -> dict:
    """What the exact weights depend on besides the recipe: the CPU and the torch build."""
    import torch
    from common import machine

    info = machine()
    return {"cpu": info["cpu"], "torch": torch.__version__}


def evaluate_course_model_of(run, config) -> dict:
    """The held-out scores of a finished run (the files of the course recipe)."""
    from bertedu.training.pretrain import load_eval_items
    from bertedu.training.probes import evaluate_pretraining

    mlm_items, nsp_items = load_eval_items(config)
    scores = evaluate_pretraining(
        run.model, run.tokenizer, mlm_items=mlm_items, nsp_items=nsp_items, max_length=config.max_length
    )
    return {name: float(scores[name]) for name in METRICS}


def propose_threshold(values: list[float], margin: float = MARGIN) -> float:
    """The largest multiple of 0.05 at least ``margin`` below the lowest value measured."""
    return math.floor(round((min(values) - margin) * 20, 6)) / 20


def measure(*, quick: bool, cache: str | None = None) -> dict:
    """``cache``: see :func:`score_spread`."""
    return {
        "load": under_load(repeats=1 if quick else 2, short_steps=100 if quick else 200),
        "spread": score_spread(seeds=2 if quick else 5, cache=cache),
    }


def section(results: dict) -> list[str]:
    lines = [
        HEADING,
        "",
        "### Training beside a busy core",
        "",
        "Notebook 06's pretraining run (`course_config`, fresh process, no checkpoint), on the machine as it is "
        "(*idle*) and beside one `while True: pass` process (*loaded*). The recipe's thread count runs the "
        "whole course run; the other count runs its first steps only. Target: the course run loaded takes at "
        f"most {LOADED_LIMIT:g}× its idle time. The load averages (1 minute, medians, read after each run) say "
        "how busy the machine was: on an otherwise idle 2-core machine they are about 1 (idle) and 2 (loaded); "
        "more means other programs were running too.",
        "",
        "| threads | steps | idle | loaded | loaded / idle | per 100 steps, idle → loaded | load average, "
        "idle / loaded | target |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for threads, r in sorted(results["load"].items()):
        idle_load = r.get("idle_load_average", Summary([float("nan")], ""))
        target = (
            f"≤ {LOADED_LIMIT:g}×: {verdict(r['ratio'].median <= LOADED_LIMIT)}"
            if r["course_run"]
            else "(comparison)"
        )
        lines.append(
            f"| {threads}{' (the recipe)' if r['course_run'] else ''} | {r['steps']} | {r['idle'].fmt(1)} | "
            f"{r['loaded'].fmt(1)} | {r['ratio'].fmt(2)} | {100 * r['idle'].median / r['steps']:.1f} s → "
            f"{100 * r['loaded'].median / r['steps']:.1f} s | {idle_load.median:.1f} / {r['load_average'].median:.1f} | "
            f"{target} |"
        )
    spread = results["spread"]
    lines += [
        "",
        f"### Held-out scores over {spread['seeds']} pretraining seeds and {len(spread['threads'])} thread counts",
        "",
        "The exact weights depend on the seed, the thread count and the CPU; the notebook's asserts must hold "
        f"for all of them. A proposed threshold is the largest multiple of 0.05 at least {MARGIN} below the "
        "lowest score measured.",
        "",
        "| seed | threads | " + " | ".join(METRICS.values()) + " |",
        "|---|---|" + "---|" * len(METRICS),
    ]
    for r in spread["runs"]:
        scores = " | ".join(f"{r[name]:.3f}" for name in METRICS)
        lines.append(f"| {r['seed']} | {r['threads']} | {scores} |")
    lines += [
        "",
        "| metric | min / median / max | current assert | inside the spread? | proposed threshold |",
        "|---|---|---|---|---|",
    ]
    for name, label in METRICS.items():
        summary, current = spread["summary"][name], CURRENT_ASSERTS[name]
        inside = current <= summary.min - MARGIN
        lines.append(
            f"| {label} | {summary.fmt(3)} | ≥ {current} | "
            f"{'yes' if inside else f'no: {summary.min - current:+.3f} from the lowest run'} | "
            f"≥ {spread['proposed'][name]:.2f} |"
        )
    return lines + [""]


def merge(report: str, lines: list[str]) -> str:
    """``report`` (RESULTS.md) with this section replaced by ``lines`` (appended if it has none)."""
    before, found, rest = report.partition(HEADING)
    after = "\n## " + rest.split("\n## ", 1)[1] if found and "\n## " in rest else ""
    return before.rstrip("\n") + "\n\n" + "\n".join(lines).rstrip("\n") + "\n" + after


def missed(results: dict) -> list[str]:
    """The robustness targets missed (``make bench`` fails if there is any)."""
    out = []
    for threads, r in results["load"].items():
        if r["course_run"] and r["ratio"].median > LOADED_LIMIT:
            out.append(
                f"the course run beside a busy core took {r['ratio'].median:.1f}x its idle time with {threads} "
                f"thread(s) (limit {LOADED_LIMIT:g}x)"
            )
    return out


if __name__ == "__main__":  # python benchmarks/bench_robustness.py [--quick]: print the section only
    print("\n".join(section(measure(quick="--quick" in sys.argv))))
