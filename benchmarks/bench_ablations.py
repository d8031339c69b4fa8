"""Notebook 10's ablations, full version: every variant of ``bertedu.course.ablations.VARIANTS`` pretrained with the
same budget (notebook 06's 1,000 steps of 64 pairs) and three seeds, then measured on the held-out files, on
notebook 07's four tasks (fine-tuned with the course recipe, seed = pretraining seed) and with the
frozen-feature probe; min / median / max over seeds, the trivial baselines, and the paper's numbers.

Each run is a separate process with one torch thread (``--jobs`` of them at a time), so the figures do not
depend on how many run side by side. ``run_all.py`` records the result in ``RESULTS.md`` / ``results.json``
(``python benchmarks/run_all.py --only-ablations`` runs this section alone); notebook 10 reads it back.

    python benchmarks/bench_ablations.py [--quick] [--jobs 2] [--cache runs.jsonl]   # print the section
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from common import ROOT

from bertedu.course import ablations
from bertedu.course.ablations import FULL, METRICS, TABLE_5, TABLE_8, VARIANTS

QUICK = {**FULL, "seeds": (0,), "steps": 200}
HELDOUT = ("mlm_top1", "mlm_top5", "gen_top1", "gen_top5", "nsp", "nsp_hard")
DOWNSTREAM = ("sentence", "order", "indirect", "pair", "tagging", "span", "probe")


def _run(job: tuple[str, int, int, int]) -> dict:
    """One (variant, seed) run in a worker process with one torch thread."""
    import torch

    torch.set_num_threads(1)
    name, seed, steps, batch_size = job
    return ablations.run_variant(
        name, seed=seed, steps=steps, batch_size=batch_size, model_dir=model_dir(name, seed, steps)
    )


def model_dir(name: str, seed: int, steps: int) -> Path:
    """Where the full run keeps a pretrained variant, per CPU kernel set (``runs/ablations/<kernels>/...``)."""
    kernels = os.environ.get("ATEN_CPU_CAPABILITY", "native")
    return ROOT / "runs" / "ablations" / kernels / f"{name}-seed{seed}-steps{steps}"


def measure(*, quick: bool = False, jobs: int = 2, cache: str | Path | None = None) -> dict:
    """Run every (variant, seed) of the full (or ``quick``) settings; returns ``{"settings", "records",
    "baselines", "seconds", "date", "jobs"}``. ``cache``: a JSON-lines file of finished runs, reused when
    their settings match (an interrupted run continues) and appended to as runs finish."""
    settings = QUICK if quick else FULL
    work = [
        (v, s, settings["steps"], settings["batch_size"])
        for s in settings["seeds"]
        for v in settings["variants"]
    ]
    done: dict[tuple, dict] = {}
    if cache is not None and Path(cache).is_file():
        for line in Path(cache).read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            done[(r["variant"], r["seed"], r["steps"], r["batch_size"])] = r
    todo = [job for job in work if job not in done]
    started = time.perf_counter()
    print(f"ablations: {len(work)} runs ({len(work) - len(todo)} cached), {jobs} at a time", flush=True)
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(_run, job): job for job in todo}
        for n, future in enumerate(as_completed(futures), start=1):
            record = future.result()
            done[futures[future]] = record
            if cache is not None:
                with open(cache, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(record) + "\n")
            print(f"  {n}/{len(todo)} {record['variant']} seed {record['seed']} done", flush=True)
    records = [done[job] for job in work]
    return {
        "settings": {k: list(v) if isinstance(v, tuple) else v for k, v in settings.items()},
        "records": records,
        "baselines": {k: list(v) for k, v in ablations.metric_baselines().items()},
        "seconds": time.perf_counter() - started,
        "run_seconds": sum(r["seconds"]["pretrain"] + r["seconds"]["measure"] for r in records),
        "cached": len(work) - len(todo),
        "load_average": os.getloadavg()[0],
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "jobs": jobs,
    }


def _cached_note(results: dict) -> str:
    if not results["cached"]:
        return f" ({results['seconds'] / 60:.0f} min wall-clock)"
    return f" ({results['cached']} runs reused from an interrupted invocation, so no single wall-clock time)"


def _cell(entry: dict | None, digits: int = 3) -> str:
    if entry is None:
        return "–"
    return f"{entry['min']:.{digits}f} / {entry['median']:.{digits}f} / {entry['max']:.{digits}f}"


def _table(summary: dict, metrics: tuple[str, ...], baselines: dict) -> list[str]:
    lines = [
        "| variant | " + " | ".join(METRICS[m][0] for m in metrics) + " |",
        "|---|" + "---|" * len(metrics),
    ]
    for name, scores in summary.items():
        lines.append(
            f"| {VARIANTS[name].label} | " + " | ".join(_cell(scores.get(m)) for m in metrics) + " |"
        )
    cells = [f"{baselines[m][0]:.3f} ({baselines[m][1]})" if m in baselines else "–" for m in metrics]
    return lines + ["| *trivial baseline* | " + " | ".join(cells) + " |", ""]


def section(results: dict) -> list[str]:
    """The Markdown section of RESULTS.md."""
    s = results["settings"]
    summary = ablations.summarise(results["records"])
    baselines = results["baselines"]
    lines = [
        "## 5. Ablations (notebook 10): the paper's Tables 5 and 8 in miniature",
        "",
        f"{len(s['variants'])} variants of notebook 06's recipe, each changed in one thing "
        "(`bertedu.course.ablations.VARIANTS`), pretrained with the same budget — "
        f"{s['steps']:,} steps of {s['batch_size']} sentence pairs, one torch thread per run — with seeds "
        f"{', '.join(map(str, s['seeds']))}; fine-tuning uses notebook 07's recipe with the pretraining seed. "
        f"Cells are min / median / max over the seeds. Measured {results['date']}: "
        f"{results['run_seconds'] / 60:.0f} min of run time summed over the runs, {results['jobs']} at a time"
        f"{_cached_note(results)}; load average {results['load_average']:.1f} on the 2 cores at the end "
        "(other work on the machine slows the runs down, not their results).",
        "",
        "Held-out files (masked words: top-1 and top-5 over whole words; a left-to-right model ranks each "
        "candidate by the likelihood of the whole sentence; NSP only for variants trained with it):",
        "",
        *_table(summary, HELDOUT, baselines),
        "Notebook 07's tasks, fine-tuned (test split; word order: the sentence model on the 24 minimal pairs of "
        "`word_order.tsv`), and the frozen-feature probe (linear classifier on the "
        "frozen outputs of both layers; macro-F1 over the 11 tags):",
        "",
        *_table(summary, DOWNSTREAM, baselines),
        "Next to the paper (difference to BERT in points; ours: median, min … max over seeds of the paired "
        "difference; a direction counts only if the paired mean difference exceeds two standard errors over the "
        "seeds and the test set's item noise, `ablations.metric_direction`; the paper's only if it is at least 0.5):",
        "",
        "| table | variant | paper column (our metric) | paper: BERT → variant | paper | ours | agree |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in ablations.paper_comparison(summary):
        lines.append(
            f"| {r['table']} | {VARIANTS[r['variant']].label} | {r['column']} ({METRICS[r['metric']][0]}) | "
            f"{r['paper_bert']} → {r['paper_variant']} ({r['paper_change']:+.1f}) | {r['paper_direction']} | "
            f"{r['ours_change']:+.1f} ({r['ours_min']:+.1f} … {r['ours_max']:+.1f}) {r['ours_direction']} | "
            f"{'yes' if r['agree'] else 'no'} |"
        )
    lines += ["", "Not in the BERT paper (directions from the literature, not numbers):", ""]
    lines += [f"- {VARIANTS[v].label}: {text}" for v, text in ablations.DIRECTIONS.items() if v in summary]
    lines += [
        "",
        f"Paper numbers: Devlin et al. (2019), Table 5 ({', '.join(TABLE_5['columns'])}) and Table 8 "
        f"({', '.join(TABLE_8['columns'])}), BERT-base dev sets.",
        "",
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="one seed, 200 steps (to check the script)")
    parser.add_argument("--jobs", type=int, default=2, help="runs at a time (each uses one thread)")
    parser.add_argument("--cache", help="JSON-lines file of finished runs (resume an interrupted run)")
    args = parser.parse_args(argv)
    print("\n".join(section(measure(quick=args.quick, jobs=args.jobs, cache=args.cache))))
    return 0


if __name__ == "__main__":
    sys.exit(main())


def measure_other_kernels(*, quick: bool = False, cache: str | Path | None = None) -> dict:
    """:func:`measure` with every run under another CPU's kernels (``tools/cpu_variant.py``: one level down): the
    worker processes start with those variables set, which torch reads when it loads."""
    sys.path.insert(0, str(ROOT / "tools"))
    from cpu_variant import native_capability, variant_environment

    saved = dict(os.environ)
    os.environ.update(variant_environment(native_capability()))
    try:
        return {**measure(quick=quick, cache=cache), "kernels": os.environ.get("ATEN_CPU_CAPABILITY", "")}
    finally:
        os.environ.clear()
        os.environ.update(saved)
