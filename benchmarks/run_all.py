"""Run every benchmark and rewrite benchmarks/RESULTS.md (and results.json). `make bench` calls this.

    python benchmarks/run_all.py            # the full set (20-30 minutes on a 2-core CPU + the ablations)
    python benchmarks/run_all.py --quick    # fewer repeats, for checking the scripts (about 10 minutes)
    python benchmarks/run_all.py --only-ablations   # notebook 10's ablations alone, merged into the reports
    python benchmarks/run_all.py --only-robustness  # training under load and the score spread, merged likewise
    python benchmarks/run_all.py --only-speed-table # what each optimisation of notebook 06's step buys, likewise
    python benchmarks/run_all.py --only-recipe-budget  # notebook 06's quality with fewer steps, likewise
    python benchmarks/run_all.py --only-course      # the course run time (idle, Chinese, loaded), likewise
    python benchmarks/run_all.py --only-claims      # the claims sweep (training notebooks, 5 seeds x 2 CPUs), likewise
    python benchmarks/run_all.py --only-real-corpus # notebook 12's pretraining step on one core (WordNet), likewise
    python benchmarks/run_all.py --only-ablations --kernels other   # the ablations under another CPU's kernels

Every figure is reported as min / median / max over repeated runs. Speed and memory are measured as
ratios against Hugging Face transformers in the same run (never as absolute timed tests).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_ablations  # noqa: E402
import bench_claims  # noqa: E402
import bench_course  # noqa: E402
import bench_quality  # noqa: E402
import bench_real_corpus  # noqa: E402
import bench_recipe_budget  # noqa: E402
import bench_robustness  # noqa: E402
import bench_speed  # noqa: E402
import bench_speedups  # noqa: E402
import torch  # noqa: E402
from common import LOADED_LIMIT, ROOT, Summary, machine, verdict  # noqa: E402

from bertedu.core.config import BertConfig  # noqa: E402

RESULTS = ROOT / "benchmarks" / "RESULTS.md"
RESULTS_JSON = ROOT / "benchmarks" / "results.json"
#: The full ablation run under another CPU's kernels (``--only-ablations --kernels other``), for the claims sweep.
OTHER_KERNELS_JSON = ROOT / "benchmarks" / "results-other-kernels.json"
README = ROOT / "README.md"
README_START = "<!-- headline figures: written by make bench -->"
README_END = "<!-- end of headline figures -->"

# Targets from issue 10 (and the quality targets of issues 7 and 8).
COURSE_TOTAL_S = 300
# Issue 15: notebooks 00-09 together stay at or under the 170 s they took before its additions.
COURSE_CORE_S = 170
CONCEPT_NOTEBOOK_S = 30
NOTEBOOK_LIMIT_S = {"06_mini_pretraining.ipynb": 60, "07_fine_tuning.ipynb": 180, "10_ablations.ipynb": 90}
TRAIN_RATIO = 1.0
INFERENCE_RATIO = 1.05
MEMORY_RATIO = 1.1


def serialise(obj):
    if isinstance(obj, Summary):
        return obj.to_dict()
    if isinstance(obj, dict):
        return {k: serialise(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [serialise(v) for v in obj]
    return obj


def deserialise(obj):
    """The inverse of :func:`serialise` for results.json: summaries become :class:`Summary` again."""
    if isinstance(obj, dict):
        if set(obj) >= {"values", "unit", "median"}:
            return Summary(obj["values"], obj["unit"])
        return {k: deserialise(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [deserialise(v) for v in obj]
    return obj


def headline(results: dict) -> list[str]:
    """The README's summary of RESULTS.md: medians of the figures the targets are about."""
    lines = [
        f"Measured on {results['machine']['cpu']} ({results['machine']['cores']} cores) on "
        f"{results['machine']['date'][:10]}; medians, with every figure and its min / max in "
        "[benchmarks/RESULTS.md](benchmarks/RESULTS.md). Ratios are ours / transformers in the same run "
        "(lower is better).",
        "",
    ]
    if "course" in results:
        course = results["course"]
        line = f"- Whole course (00–11): {course['total'].median:.0f} s (target < {COURSE_TOTAL_S} s)"
        if "zh_total" in course:
            line += f"; 中文版 {course['zh_total'].median:.0f} s"
        ratio = bench_course.loaded_ratio(course)
        if ratio is not None:
            line += f"; beside a busy core {ratio:.2f}× the idle time (target ≤ {LOADED_LIMIT:g}×)"
        lines.append(line + ".")
    if "speed_table" in results:
        lines.append("- " + bench_speedups.headline(results["speed_table"]))
    for r in results["training"]:
        lines.append(
            f"- Training step time ratio, {r['name']}: {r['ratio_fast'].median:.2f} (fast path), "
            f"{r['ratio_teaching'].median:.2f} (teaching path); target ≤ {TRAIN_RATIO}."
        )
    inf = results["inference"]
    lines.append(
        f"- all-MiniLM-L6-v2 inference latency ratio: {inf['eager']['latency_ratio'].median:.2f} (eager), "
        f"{inf['sdpa']['latency_ratio'].median:.2f} (sdpa), target ≤ {INFERENCE_RATIO}; peak memory "
        f"ratio {inf['eager']['memory_ratio']:.2f} (eager), {inf['sdpa']['memory_ratio']:.2f} (sdpa), "
        f"target ≤ {MEMORY_RATIO}."
    )
    for r in results.get("processes", []):
        lines.append(
            f"- Pretraining {r['name']} in 2 processes: {r['ratio_2_processes'].median:.2f}x the tokens/s of "
            f"1 process ({r['tokens_per_s']['1 process'].median:.0f} tokens/s); 2 cores cap the gain at 2x."
        )
    if "quality" in results:
        pre = results["quality"]["pretraining"]["scores"]
        lines.append(
            f"- Notebook 06 model on held-out data: masked-word top-1 {pre['mlm_top1'].median:.2f}, top-5 "
            f"{pre['mlm_top5'].median:.2f}, NSP {pre['nsp_accuracy'].median:.2f} (targets 0.6 / 0.9 / 0.85)."
        )
        ft = results["quality"]["finetuning"]
        parts = [
            f"{task.replace('_', ' ')} {r['metric'].replace('_', ' ')} {r['mini-bert'].median:.2f} "
            f"(scratch {r['scratch'].median:.2f})"
            for task, r in ft["tasks"].items()
        ]
        line = "- Notebook 07, pretrained mini-BERT on the test splits: " + "; ".join(parts)
        if (
            "claims" in results
        ):  # measured with the rest of make bench; the notebooks' data may have moved since
            date, sweep = ft.get("date", results["machine"]["date"]), results["claims"]["date"]
            later = (
                "the sweep is the later measurement" if sweep > date else "this run is the later measurement"
            )
            line += (
                f" (the quality run of {date[:10]}; where the claims sweep of {sweep[:10]}, RESULTS.md §8, "
                f"differs, {later})"
            )
        lines.append(line + ".")
    if "claims" in results:
        summary, runs = results["claims"]["summary"], results["claims"]["runs"]
        varies = [row for row in summary.values() if row["verdict"].startswith("varies")]
        asserted = [row for row in summary.values() if not row["verdict"].startswith("varies")]
        everywhere = sum(row["held"] == row["runs"] == len(runs) for row in asserted)
        where_measured = sum(0 < row["runs"] < len(runs) and row["held"] == row["runs"] for row in asserted)
        offsets, kernels = {r["offset"] for r in runs}, {r["kernels"] for r in runs}
        lines.append(
            f"- Claims ledger: {everywhere} of {len(asserted)} training results the notebooks assert hold on every "
            f"one of {len(runs)} runs ({len(offsets)} seed offsets x {len(kernels)} CPU kernel sets)"
            + (f", {where_measured} on every run that measured them" if where_measured else "")
            + f"; {len(varies)} more vary with the seed and are shown, not asserted (RESULTS.md §8)."
        )
    return lines


def course_map_times(text: str, results: dict) -> str:
    """``text`` (the README) with the course map's time column and the sentence under the map's heading set
    from ``results["course"]``: each notebook's median, and the machine and whole-course time."""
    if "course" not in results:
        return text
    course = results["course"]
    for name, summary in course["notebooks"].items():
        number, link = name[:2], f"(notebooks/{name})"
        row = re.compile(rf"^(\| \[{number} · [^\n]*?{re.escape(link)}[^\n]*\| )~[^|\n]*( \|)$", re.MULTILINE)
        text, found = row.subn(lambda m, s=summary: f"{m[1]}~{s.median:.0f} s{m[2]}", text)
        if not found:
            raise SystemExit(f"README.md's course map has no row for {name} ending in a '~N s' cell.")
    machine = results["machine"]
    sentence = (
        f"measured by `make bench` on {machine['cpu']} ({machine['cores']} cores, PyTorch's CPU build), kernel "
        f"start included; see [benchmarks/RESULTS.md](benchmarks/RESULTS.md). The whole course, 00–11, took "
        f"{course['total'].median:.0f} s there"
    )
    pattern = re.compile(r"measured by `make bench` on .*? took [^;]*? there", re.DOTALL)
    if not pattern.search(text):
        raise SystemExit("README.md's course map lacks the sentence 'measured by `make bench` on ... there'.")
    return pattern.sub(lambda _m: sentence, text, count=1)


def render_readme(text: str, results: dict) -> str:
    """``text`` (the README) with the headline block (:func:`headline`) and the course map's times set."""
    if README_START not in text or README_END not in text:
        raise SystemExit(
            f"README.md lacks the markers {README_START!r} ... {README_END!r}; add them where the "
            "benchmark summary belongs."
        )
    before, rest = text.split(README_START, 1)
    after = rest.split(README_END, 1)[1]
    block = "\n".join([README_START, *headline(results), README_END])
    return course_map_times(before + block + after, results)


def update_readme(results: dict) -> None:
    """Rewrite the README's benchmark figures from ``results`` (:func:`render_readme`)."""
    README.write_text(render_readme(README.read_text(encoding="utf-8"), results), encoding="utf-8")


def course_section(course: dict) -> list[str]:
    zh = course.get("zh_notebooks", {})
    busy = course.get("loaded_notebooks", {})
    lines = [
        "## 1. Course run time",
        "",
        "Every notebook executed headless with nbclient (a fresh kernel each, as `make test` does). *Idle*: "
        "the machine as it is, repeated; *中文*: the Chinese edition (`notebooks/zh/`), once; *loaded*: once "
        "more beside one `while True: pass` process (a busy core), with the loaded / idle ratio (target for "
        f"the whole course: at most {LOADED_LIMIT:g}×)."
        + (f" Measured {course['date']}." if "date" in course else ""),
        "",
        "| notebook | idle: seconds (min / median / max) | target | | 中文 (s) | loaded (s) | loaded / idle |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, summary in course["notebooks"].items():
        number = int(name[:2])
        limit = NOTEBOOK_LIMIT_S.get(name, CONCEPT_NOTEBOOK_S if 1 <= number <= 5 else 60)
        zh_s = f"{zh[name].median:.1f}" if name in zh else "–"
        busy_s, ratio = (
            (f"{busy[name].median:.1f}", f"{busy[name].median / summary.median:.2f}")
            if name in busy
            else ("–", "–")
        )
        lines.append(
            f"| `{name}` | {summary.fmt(1)} | < {limit} s | {verdict(summary.median < limit)} | {zh_s} | "
            f"{busy_s} | {ratio} |"
        )
    total = course["total"]
    zh_total = f"{course['zh_total'].median:.1f}" if "zh_total" in course else "–"
    ratio = bench_course.loaded_ratio(course)
    busy_total = (
        f"{course['loaded_total'].median:.1f} | {ratio:.2f} {verdict(ratio <= LOADED_LIMIT)}"
        if ratio is not None
        else "– | –"
    )
    lines.append(
        f"| **whole course** | {total.fmt(1)} | < {COURSE_TOTAL_S} s | "
        f"{verdict(total.median < COURSE_TOTAL_S)} | {zh_total} | {busy_total} |"
    )
    course_only = sum(s.median for n, s in course["notebooks"].items() if int(n[:2]) <= 9)
    lines += [
        "",
        f"The course proper (notebooks 00–09, medians): {course_only:.1f} s; target ≤ {COURSE_CORE_S} s "
        f"{verdict(course_only <= COURSE_CORE_S)}. Notebooks 10 (ablations) and 11 (capstone) come after it.",
    ]
    return lines + [""]


def training_section(results: list[dict]) -> list[str]:
    lines = [
        "## 2. Training speed: `BertForPreTraining`, ours vs transformers",
        "",
        "Identical weights, the same batch (15 % masked, a quarter of the rows padded), AdamW, gradient "
        "clipping, eager attention on both sides. *Ours (fast)* computes MLM logits only at the masked "
        "positions (`mlm_logits_at_labels_only=True`), the default in `bertedu.training.pretrain`; *ours "
        "(teaching)* is the explicit path the notebooks show. Ratio = our step time / theirs, per repeat "
        "(lower is better).",
        "",
        "| config | batch | ours fast (steps/s) | ours teaching (steps/s) | transformers (steps/s) "
        "| ratio fast | ratio teaching | target ≤ 1.0 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        sps = r["steps_per_s"]
        lines.append(
            f"| {r['name']}: {r['config']} | {r['batch']} | {sps['ours_fast'].fmt(2)} | "
            f"{sps['ours_teaching'].fmt(2)} | {sps['transformers'].fmt(2)} | {r['ratio_fast'].fmt(3)} | "
            f"{r['ratio_teaching'].fmt(3)} | {verdict(r['ratio_fast'].median <= TRAIN_RATIO)} |"
        )
    return lines + [""]


def inference_section(inf: dict) -> list[str]:
    lines = [
        "## 3. Inference on the real all-MiniLM-L6-v2 weights",
        "",
        f"`BertModel` forward, batch {inf['batch']}, `torch.no_grad()`. Latency: 2 warm-up calls then "
        "timed calls, in fresh processes, alternating sides. Memory: peak resident memory during the "
        "first forward pass above the resident memory just before it (fresh process each; "
        "`/proc/self/clear_refs` resets the peak).",
        "",
        "| attention | ours (ms) | transformers (ms) | latency ratio | target ≤ 1.05 | ours peak (MiB) "
        "| transformers peak (MiB) | memory ratio | target ≤ 1.1 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for attn in ("eager", "sdpa"):
        r = inf[attn]
        lines.append(
            f"| {attn} | {r['latency_ms']['ours'].fmt(0)} | {r['latency_ms']['transformers'].fmt(0)} | "
            f"{r['latency_ratio'].fmt(3)} | {verdict(r['latency_ratio'].median <= INFERENCE_RATIO)} | "
            f"{r['forward_peak_mib']['ours'].fmt(0)} | {r['forward_peak_mib']['transformers'].fmt(0)} | "
            f"{r['memory_ratio']:.3f} | {verdict(r['memory_ratio'] <= MEMORY_RATIO)} |"
        )
    return lines + [""]


def processes_configs(quick: bool = False) -> list:
    """``(name, PretrainingConfig)`` pairs timed in 1 vs 2 processes: notebook 06's model and BERT-mini, on
    the course corpus, without evaluation (only the training loop is timed)."""
    from bertedu.course import course_config

    base = course_config(eval_every=0, mlm_eval_file=None, nsp_eval_file=None)
    return [
        ("notebook 06 mini-BERT", base.replace(steps=30 if quick else 60)),
        (
            "BERT-mini 4/256",
            base.replace(model_size="mini", max_length=128, batch_size=32, steps=10 if quick else 20),
        ),
    ]


def processes_section(results: list[dict]) -> list[str]:
    lines = [
        "## 7. Several processes: `torchrun`, 1 vs 2 processes (issue 18)",
        "",
        "`bertedu.training.pretrain` in 1 process (1 thread), in 2 processes of 1 thread each (DistributedDataParallel "
        "over gloo, the same global batch, so the same result) and in 1 process with 2 threads, alternating in "
        "every repeat. Tokens/s counts real (non-padding) tokens of the training loop (start-up excluded). "
        "Gain = tokens/s against the 1-process peer of the same repeat. **This machine has 2 cores, which "
        "caps the gain at 2x** (less: the processes also build every global batch, wait for each other, and "
        "share the cores with everything else); on a GPU per process the same code scales with the number "
        "of GPUs. docs/scaling.md turns these figures into an estimate for a real corpus.",
        "",
        "| model | run | 1 process (tokens/s) | 2 processes (tokens/s) | 1 process, 2 threads (tokens/s) "
        "| gain, 2 processes | gain, 2 threads |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        tps = r["tokens_per_s"]
        lines.append(
            f"| {r['name']} | {r['config']} | {tps['1 process'].fmt(0)} | {tps['2 processes'].fmt(0)} | "
            f"{tps['1 process, 2 threads'].fmt(0)} | {r['ratio_2_processes'].fmt(2)} | "
            f"{r['ratio_2_threads'].fmt(2)} |"
        )
    return lines + [""]


ABLATIONS_HEADING = "## 5. Ablations"


def merge_ablations(report: str, lines: list[str]) -> str:
    """``report`` (RESULTS.md) with its ablation section replaced by ``lines`` (appended if it has none)."""
    before, found, rest = report.partition(ABLATIONS_HEADING)
    after = ""
    if found and "\n## " in rest:
        after = "\n## " + rest.split("\n## ", 1)[1]
    return before.rstrip("\n") + "\n\n" + "\n".join(lines).rstrip("\n") + "\n" + after


def only_ablations(quick: bool = False, cache: str | None = None, kernels: str = "native") -> int:
    """Run notebook 10's ablations alone and merge them into RESULTS.md and results.json (the other sections
    are left as the last full run wrote them). ``cache``: see ``bench_ablations.measure``. ``kernels="other"``:
    under another CPU's kernels, written to ``results-other-kernels.json`` only (the claims sweep's notebook 10
    reads it there; RESULTS.md keeps this machine's run)."""
    if kernels == "other":
        other = bench_ablations.measure_other_kernels(quick=quick, cache=cache)
        OTHER_KERNELS_JSON.write_text(json.dumps({"ablations": other}, indent=1) + "\n")
        print(f"wrote {OTHER_KERNELS_JSON.relative_to(ROOT)}")
        return 0
    results = json.loads(RESULTS_JSON.read_text(encoding="utf-8")) if RESULTS_JSON.is_file() else {}
    results["ablations"] = bench_ablations.measure(quick=quick, cache=cache)
    report = RESULTS.read_text(encoding="utf-8") if RESULTS.is_file() else "# Benchmarks\n"
    RESULTS.write_text(
        merge_ablations(report, bench_ablations.section(results["ablations"])), encoding="utf-8"
    )
    RESULTS_JSON.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote the ablation section of {RESULTS.relative_to(ROOT)} and {RESULTS_JSON.relative_to(ROOT)}")
    return 0


QUALITY_HEADING = "## 4. Quality"
COURSE_HEADING = "## 1. Course run time"
REAL_CORPUS_HEADING = "## 9. Real English (WordNet)"


def replace_section(report: str, heading: str, lines: list[str]) -> str:
    """``report`` (RESULTS.md) with the numbered section that starts with ``heading`` replaced by ``lines``."""
    before, found, rest = report.partition(heading)
    if not found or "\n## " not in rest:
        raise SystemExit(f"{RESULTS.relative_to(ROOT)} has no section {heading!r} to replace: run make bench")
    after = "\n## " + rest.split("\n## ", 1)[1]
    return before.rstrip("\n") + "\n\n" + "\n".join(lines).rstrip("\n") + "\n" + after


def only_course(quick: bool = False) -> int:
    """Re-measure the course run time alone (section 1: idle, Chinese, beside a busy core) and merge it into
    RESULTS.md, results.json and the README; the other sections stay as their last runs wrote them."""
    results = deserialise(json.loads(RESULTS_JSON.read_text(encoding="utf-8")))
    results["course"] = bench_course.measure(repeats=1 if quick else 3)
    results["course"]["date"] = machine()["date"]
    RESULTS.write_text(
        replace_section(
            RESULTS.read_text(encoding="utf-8"), COURSE_HEADING, course_section(results["course"])
        ),
        encoding="utf-8",
    )
    RESULTS_JSON.write_text(json.dumps(serialise(results), indent=1) + "\n")
    update_readme(results)
    print(f"wrote the course run time of {RESULTS.relative_to(ROOT)} and {RESULTS_JSON.relative_to(ROOT)}")
    return 0


def only_finetuning_quality(quick: bool = False) -> int:
    """Re-measure notebook 07's fine-tuning quality alone (the seed-0 course model, ``runs/mini-bert/``) and merge
    it into RESULTS.md's quality section and results.json; the pre-training half is kept as the last full run
    wrote it (for a change of the fine-tuning data, issue 27)."""
    results = deserialise(json.loads(RESULTS_JSON.read_text(encoding="utf-8")))
    results["quality"]["finetuning"] = bench_quality.finetuning_quality(seeds=1 if quick else 3)
    results["quality"]["finetuning"]["date"] = machine()["date"]
    RESULTS.write_text(
        replace_section(
            RESULTS.read_text(encoding="utf-8"), QUALITY_HEADING, bench_quality.section(results["quality"])
        ),
        encoding="utf-8",
    )
    RESULTS_JSON.write_text(json.dumps(serialise(results), indent=1) + "\n")
    update_readme(results)
    print(
        f"wrote the fine-tuning quality of {RESULTS.relative_to(ROOT)} and {RESULTS_JSON.relative_to(ROOT)}"
    )
    failures = bench_quality.missed(results["quality"])
    for failure in failures:
        print(f"quality target missed: {failure}", file=sys.stderr)
    return 1 if failures else 0


def real_corpus_section(result: dict) -> list[str]:
    """Section 9: what notebook 12's real-English pretraining costs (issue 42; the notebook is not written yet)."""
    return [
        f"{REAL_CORPUS_HEADING}: notebook 12's corpus",
        "",
        "WordNet 3.1's definitions and examples (data/wordnet/README.md: 2.5 M WordPiece tokens with an 8,000-token "
        "vocabulary). What a pretraining run reaches there (the recipes tried, their CPU minutes, masked-word "
        "scores on the dev items beside the unigram and Kneser-Ney rules, supersense fine-tuning beside its "
        "baselines) is measured by `tools/wordnet_feasibility.py` and tabled in data/wordnet/README.md: those runs "
        "take 25 CPU-minutes and more each, beyond a `make bench`. Here, what every run of them is made of.",
        "",
        *bench_real_corpus.section(result),
    ]


def only_real_corpus(quick: bool = False) -> int:
    """Measure notebook 12's pretraining step alone and merge section 9 into RESULTS.md and results.json."""
    results = json.loads(RESULTS_JSON.read_text(encoding="utf-8")) if RESULTS_JSON.is_file() else {}
    measured = bench_real_corpus.measure(quick=quick)
    results["real_corpus"] = serialise(measured)
    report = RESULTS.read_text(encoding="utf-8") if RESULTS.is_file() else "# Benchmarks\n"
    RESULTS.write_text(
        merge_section(report, REAL_CORPUS_HEADING, real_corpus_section(measured)), encoding="utf-8"
    )
    RESULTS_JSON.write_text(json.dumps(results, indent=1) + "\n")
    print(
        f"wrote the real-corpus section of {RESULTS.relative_to(ROOT)} and {RESULTS_JSON.relative_to(ROOT)}"
    )
    return 0


def only_robustness(quick: bool = False, cache: str | None = None) -> int:
    """Run the robustness measurements alone and merge them into RESULTS.md and results.json (the other
    sections are left as the last full run wrote them)."""
    results = json.loads(RESULTS_JSON.read_text(encoding="utf-8")) if RESULTS_JSON.is_file() else {}
    measured = bench_robustness.measure(quick=quick, cache=cache)
    results["robustness"] = serialise(measured)
    report = RESULTS.read_text(encoding="utf-8") if RESULTS.is_file() else "# Benchmarks\n"
    RESULTS.write_text(bench_robustness.merge(report, bench_robustness.section(measured)), encoding="utf-8")
    RESULTS_JSON.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote the robustness section of {RESULTS.relative_to(ROOT)} and {RESULTS_JSON.relative_to(ROOT)}")
    failures = bench_robustness.missed(measured)
    for failure in failures:
        print(f"robustness target missed: {failure}", file=sys.stderr)
    return 1 if failures else 0


def only_speed_table(quick: bool = False) -> int:
    """Measure the speed table alone (what each optimisation of notebook 06's step buys) and merge it into
    RESULTS.md's training-speed section and results.json (the other sections are left as the last full run
    wrote them)."""
    results = json.loads(RESULTS_JSON.read_text(encoding="utf-8")) if RESULTS_JSON.is_file() else {}
    measured = bench_speedups.measure(quick=quick)
    results["speed_table"] = serialise(measured)
    report = RESULTS.read_text(encoding="utf-8") if RESULTS.is_file() else "# Benchmarks\n"
    RESULTS.write_text(bench_speedups.merge(report, bench_speedups.section(measured)), encoding="utf-8")
    RESULTS_JSON.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote the speed table of {RESULTS.relative_to(ROOT)} and {RESULTS_JSON.relative_to(ROOT)}")
    return 0


def only_recipe_budget(quick: bool = False) -> int:
    """Measure what a smaller recipe costs (notebook 06's quality after fewer steps) alone and merge it into
    RESULTS.md's training-speed section and results.json (the other sections are left as they were)."""
    results = json.loads(RESULTS_JSON.read_text(encoding="utf-8")) if RESULTS_JSON.is_file() else {}
    measured = bench_recipe_budget.measure(quick=quick)
    results["recipe_budget"] = serialise(measured)
    report = RESULTS.read_text(encoding="utf-8") if RESULTS.is_file() else "# Benchmarks\n"
    RESULTS.write_text(
        bench_recipe_budget.merge(report, bench_recipe_budget.section(measured)), encoding="utf-8"
    )
    RESULTS_JSON.write_text(json.dumps(results, indent=1) + "\n")
    print(
        f"wrote the recipe-budget table of {RESULTS.relative_to(ROOT)} and {RESULTS_JSON.relative_to(ROOT)}"
    )
    return 0


def only_claims(quick: bool = False, rejudge: bool = False) -> int:
    """Run the claims sweep alone (the training notebooks over seed offsets and two CPU kernel sets) and merge it
    into RESULTS.md and results.json. Exit status 1 if a claim missed on some run: the ledger's margin, or the
    notebook's claim, must change. ``rejudge``: measure nothing; judge the last sweep's measurements again with
    the ledger as it is now (``bench_claims.rejudge``), after a claim was restated."""
    results = json.loads(RESULTS_JSON.read_text(encoding="utf-8")) if RESULTS_JSON.is_file() else {}
    if rejudge:
        measured = bench_claims.rejudge(results["claims"])
    else:
        measured = bench_claims.measure(offsets=(0, 1) if quick else bench_claims.OFFSETS)
    results["claims"] = measured
    report = RESULTS.read_text(encoding="utf-8") if RESULTS.is_file() else "# Benchmarks\n"
    RESULTS.write_text(
        merge_section(report, bench_claims.HEADING, bench_claims.section(measured)), encoding="utf-8"
    )
    RESULTS_JSON.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote the claims table of {RESULTS.relative_to(ROOT)} and {RESULTS_JSON.relative_to(ROOT)}")
    missed = [cid for cid, row in measured["summary"].items() if row["held"] < row["runs"]]
    for cid in missed:
        print(f"claim missed on some run: {cid}", file=sys.stderr)
    return 1 if missed else 0


def merge_section(report: str, heading: str, lines: list[str]) -> str:
    """``report`` with the section that starts with ``heading`` replaced by ``lines`` (appended if it has none)."""
    before, found, rest = report.partition(heading)
    after = "\n## " + rest.split("\n## ", 1)[1] if found and "\n## " in rest else ""
    return before.rstrip("\n") + "\n\n" + "\n".join(lines).rstrip("\n") + "\n" + after


#: ``--only NAME``: one section measured alone and merged into the reports (the others stay as they were).
ONLY = {
    "ablations": lambda args: only_ablations(
        quick=args.quick, cache=args.ablations_cache, kernels=args.kernels
    ),
    "robustness": lambda args: only_robustness(quick=args.quick, cache=args.robustness_cache),
    "finetuning-quality": lambda args: only_finetuning_quality(quick=args.quick),
    "speed-table": lambda args: only_speed_table(quick=args.quick),
    "recipe-budget": lambda args: only_recipe_budget(quick=args.quick),
    "course": lambda args: only_course(quick=args.quick),
    "claims": lambda args: only_claims(quick=args.quick, rejudge=args.rejudge),
    "real-corpus": lambda args: only_real_corpus(quick=args.quick),
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer repeats (to check the scripts)")
    for name, what in (
        ("course", "execute the notebooks"),
        ("quality", "train the quality models"),
        ("robustness", "time training under load or measure the spread"),
        ("ablations", "run the ablations (notebook 10 reads the last ones)"),
        ("claims", "run the claims sweep"),
    ):
        parser.add_argument(f"--skip-{name}", action="store_true", help=f"do not {what}")
    for name in ONLY:  # --only-ablations, --only-claims, ...
        parser.add_argument(
            f"--only-{name}", action="store_true", help=f"measure only the {name} section and merge it"
        )
    parser.add_argument(
        "--kernels",
        choices=("native", "other"),
        default="native",
        help="with --only-ablations: this machine's CPU kernels, or another CPU's (for the claims sweep)",
    )
    parser.add_argument(
        "--robustness-cache", help="JSON-lines file of finished score-spread runs, reused and appended to"
    )
    parser.add_argument(
        "--ablations-cache", help="JSON-lines file of finished ablation runs, reused and appended to"
    )
    parser.add_argument(
        "--rejudge",
        action="store_true",
        help="with --only-claims: judge the last sweep's measurements again with the current ledger",
    )
    parser.add_argument(
        "--readme-only", action="store_true", help="only rewrite the README's summary from results.json"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.readme_only:
        update_readme(deserialise(json.loads(RESULTS_JSON.read_text(encoding="utf-8"))))
        print(f"updated the benchmark summary in {README.relative_to(ROOT)}")
        return 0
    for name, run in ONLY.items():
        if getattr(args, "only_" + name.replace("-", "_")):
            return run(args)
    return full_run(args)


def full_run(args: argparse.Namespace) -> int:
    """Every section in order; RESULTS.md, results.json and the README's summary rewritten."""
    started, info = time.time(), machine()
    print(f"benchmarking on {info['cpu']} ({info['cores']} cores, torch {info['torch']})", flush=True)
    results: dict = {"machine": info}
    previous = (
        deserialise(json.loads(RESULTS_JSON.read_text(encoding="utf-8"))) if RESULTS_JSON.is_file() else {}
    )
    sections: list[str] = []
    for step in (
        course_step,
        speed_step,
        inference_step,
        quality_step,
        ablations_step,
        robustness_step,
        processes_step,
        claims_step,
        real_corpus_step,
    ):
        sections += step(args, results, previous)
    header = [
        "# Benchmarks",
        "",
        "Written by `make bench` (`benchmarks/run_all.py`); do not edit by hand. Figures are "
        "min / median / max over repeated runs; a target is met when the median meets it.",
        "",
        f"- date: {info['date']}",
        f"- machine: {info['cpu']}, {info['cores']} cores, torch threads {info['torch_threads']}",
        f"- software: Python {info['python']}, torch {info['torch']}, transformers {info['transformers']}",
        f"- platform: {info['platform']}",
        f"- mode: {'quick' if args.quick else 'full'}; total benchmark time {time.time() - started:.0f} s",
        "",
    ]
    RESULTS.write_text("\n".join(header + sections), encoding="utf-8")
    RESULTS_JSON.write_text(json.dumps(serialise(results), indent=1) + "\n")
    update_readme(results)
    print(f"wrote {RESULTS.relative_to(ROOT)} and the summary in {README.relative_to(ROOT)}")
    failures = full_run_failures(results)
    for failure in failures:
        print(f"target missed: {failure}", file=sys.stderr)
    return 1 if failures else 0


def full_run_failures(results: dict) -> list[str]:
    failures = bench_quality.missed(results["quality"]) if "quality" in results else []
    failures += bench_robustness.missed(results["robustness"]) if "robustness" in results else []
    ratio = bench_course.loaded_ratio(results["course"]) if "course" in results else None
    if ratio is not None and ratio > LOADED_LIMIT:
        failures.append(f"the whole course beside a busy core took {ratio:.2f}x its idle time")
    if "claims" in results:
        failures += [
            f"claim {cid} missed on some run"
            for cid, row in results["claims"]["summary"].items()
            if row["held"] < row["runs"]
        ]
    return failures


def course_step(args, results, previous) -> list[str]:
    if args.skip_course:
        return []
    print("1/5 course run time ...", flush=True)
    results["course"] = bench_course.measure(repeats=1 if args.quick else 3)
    return course_section(results["course"])


def speed_step(args, results, previous) -> list[str]:
    print("2/5 training speed ...", flush=True)
    repeats = 2 if args.quick else 5
    configs = [
        ("notebook 06 mini-BERT", bench_quality.course_model_config(), 32, 64),
        ("BERT-mini 4/256", BertConfig.from_preset("mini", vocab_size=30522), 16, 128),
    ]
    results["training"] = [
        bench_speed.training_speed(
            name, cfg, batch_size=b, seq_len=t, repeats=repeats, steps=3 if args.quick else 5
        )
        for name, cfg, b, t in configs
    ]
    lines = training_section(results["training"])
    print("2/5 training speed: what each optimisation of notebook 06's step buys ...", flush=True)
    results["speed_table"] = bench_speedups.measure(quick=args.quick)
    lines += bench_speedups.section(results["speed_table"])
    if not args.skip_quality:  # it trains models: skipped with the quality section, the last table kept
        print("2/5 training speed: what a smaller recipe costs (notebook 06's quality) ...", flush=True)
        results["recipe_budget"] = bench_recipe_budget.measure(quick=args.quick)
    elif "recipe_budget" in previous:
        results["recipe_budget"] = previous["recipe_budget"]
    if "recipe_budget" in results:
        lines += bench_recipe_budget.section(results["recipe_budget"])
    return lines


def inference_step(args, results, previous) -> list[str]:
    print("3/5 inference ...", flush=True)
    results["inference"] = bench_speed.inference(
        batch_size=16, seq_len=128, repeats=3 if args.quick else 5, memory_repeats=2 if args.quick else 3
    )
    return inference_section(results["inference"])


def quality_step(args, results, previous) -> list[str]:
    if args.skip_quality:
        return []
    print("4/5 quality ...", flush=True)
    results["quality"] = bench_quality.measure(seeds=1 if args.quick else 3)
    return bench_quality.section(results["quality"])


def ablations_step(args, results, previous) -> list[str]:
    if not args.skip_ablations:
        print("ablations (notebook 10) ...", flush=True)
        results["ablations"] = bench_ablations.measure(quick=args.quick, cache=args.ablations_cache)
        print(
            "ablations under another CPU's kernels (the claims sweep's notebook 10 reads them) ...",
            flush=True,
        )
        other = bench_ablations.measure_other_kernels(quick=args.quick)
        OTHER_KERNELS_JSON.write_text(json.dumps({"ablations": other}, indent=1) + "\n")
    elif "ablations" in previous:  # notebook 10 reads them: keep the last full run
        results["ablations"] = previous["ablations"]
    return bench_ablations.section(results["ablations"]) if "ablations" in results else []


def robustness_step(args, results, previous) -> list[str]:
    if args.skip_robustness:
        return []
    print("robustness: under load, and over seeds and thread counts (issue 20) ...", flush=True)
    results["robustness"] = bench_robustness.measure(quick=args.quick, cache=args.robustness_cache)
    return bench_robustness.section(results["robustness"])


def processes_step(args, results, previous) -> list[str]:
    print("several processes: 1 vs 2 (torchrun, issue 18) ...", flush=True)
    results["processes"] = [
        bench_speed.processes_speed(name, config, repeats=2 if args.quick else 3)
        for name, config in processes_configs(args.quick)
    ]
    return processes_section(results["processes"])


def claims_step(args, results, previous) -> list[str]:
    if not args.skip_claims:  # after the ablations: notebook 10's claims read them
        print("claims: the training notebooks over seeds and CPU kernel sets ...", flush=True)
        results["claims"] = bench_claims.measure(offsets=(0, 1) if args.quick else bench_claims.OFFSETS)
    elif "claims" in previous:
        results["claims"] = previous["claims"]
    return bench_claims.section(results["claims"]) if "claims" in results else []


def real_corpus_step(args, results, previous) -> list[str]:
    print("real English: notebook 12's pretraining step on one core ...", flush=True)
    results["real_corpus"] = bench_real_corpus.measure(quick=args.quick)
    return real_corpus_section(results["real_corpus"])


if __name__ == "__main__":
    torch.set_num_threads(torch.get_num_threads())
    sys.exit(main())
