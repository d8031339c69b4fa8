"""The claims sweep: every training result a notebook asserts (``bertedu/course/claims.yaml``), measured over
several seeds and two CPU kernel sets, by running the training notebooks themselves.

A run = the notebooks that train (06, 07, 08, 10, 11) executed top to bottom with nbclient, in a fresh
process whose environment sets:

- ``BERTEDU_SEED_OFFSET=k``: every seed the course uses is shifted by k (pretraining, fine-tuning, side runs,
  notebook 10's reduced run), so run k is the course as it would be with other seeds;
- ``BERTEDU_CLAIMS_RECORD``: :func:`bertedu.course.claims.check` appends what it measured instead of raising,
  so one claim that misses does not hide the others;
- the CPU kernels: this machine's (*native*), or another CPU's (*other*: one level down, as ``tools/cpu_variant.py``
  picks them for ``make nbval``): another CPU rounds differently, which for a training run is another seed;
- its own course model folder (``BERTEDU_COURSE_MODEL``), runs folder (``BERTEDU_RUNS``: two runs at once never
  share a checkpoint) and quiz home, one torch thread.

A bare ``assert`` that fails (a training result asserted outside the ledger, or a structural check that is
not structural after all) is recorded too, with its notebook and cell: the sweep is the ledger test's
dynamic half. ``run_all.py --only-claims`` runs this section and writes RESULTS.md's claims table.

    python benchmarks/bench_claims.py [--offsets 0 1 2 3 4] [--kernels native other] [--jobs 2] [--notebooks 06 07]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from common import ROOT

sys.path.insert(0, str(ROOT / "tools"))
from cpu_variant import native_capability, variant_environment  # noqa: E402

#: The notebooks that assert training results, in the order they depend on each other (06 makes the model).
NOTEBOOKS = ("06_mini_pretraining", "07_fine_tuning", "08_attention_heatmaps", "10_ablations", "11_capstone")
OFFSETS = (0, 1, 2, 3, 4)
KERNELS = ("native", "other")
RUNS = ROOT / "runs" / "claims"

_EXECUTE = """
import json, sys, time
import nbformat
from nbclient import NotebookClient
path, out = sys.argv[1], sys.argv[2]
nb = nbformat.read(path, as_version=4)
client = NotebookClient(nb, timeout=1800, kernel_name="python3", allow_errors=True,
                        resources={"metadata": {"path": str(__import__("pathlib").Path(path).parent)}})
began = time.perf_counter()
client.execute()
errors = [{"cell": c.get("id"), "error": o.get("ename", "") + ": " + o.get("evalue", "")[:400]}
          for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.get("output_type") == "error"]
json.dump({"seconds": time.perf_counter() - began, "errors": errors}, open(out, "w"))
"""


def run_environment(offset: int, kernels: str, record: Path, home: Path) -> dict[str, str]:
    """The environment of one sweep run: seed offset, record file, kernel set, its own model folder and home."""
    env = {k: v for k, v in os.environ.items() if k not in ("MPLBACKEND", "BERTEDU_LANG")}
    env.update(
        BERTEDU_SEED_OFFSET=str(offset),
        BERTEDU_CLAIMS_RECORD=str(record),
        BERTEDU_HOME=str(home),
        BERTEDU_COURSE_MODEL=str(RUNS / kernels / f"mini-bert-seed{offset}"),
        # its own runs folder: two runs at once never share a saved checkpoint (notebook 07 saves and reloads one)
        BERTEDU_RUNS=str(RUNS / kernels / f"runs-seed{offset}"),
        PYTHONHASHSEED="0",
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
    )
    if kernels == "other":
        env.update(variant_environment(native_capability()))
        env["OMP_NUM_THREADS"] = "1"
        other_results = ROOT / "benchmarks" / "results-other-kernels.json"
        if other_results.is_file():  # notebook 10 reads the full ablation run made under these kernels
            env["BERTEDU_ABLATION_RESULTS"] = str(other_results)
    return env


def run_once(offset: int, kernels: str, notebooks=NOTEBOOKS) -> dict:
    """Execute ``notebooks`` in order with seed ``offset`` under ``kernels``; return the claims they recorded and
    every error a cell raised: ``{"offset", "kernels", "claims": [...], "errors": [...], "seconds": {...}}``."""
    RUNS.mkdir(parents=True, exist_ok=True)
    record = RUNS / f"{kernels}-seed{offset}.jsonl"
    record.unlink(missing_ok=True)
    errors, seconds = [], {}
    with tempfile.TemporaryDirectory(prefix="bertedu-claims-") as home:
        env = run_environment(offset, kernels, record, Path(home))
        for name in notebooks:
            out = Path(home) / f"{name}.json"
            path = ROOT / "notebooks" / f"{name}.ipynb"
            subprocess.run([sys.executable, "-c", _EXECUTE, str(path), str(out)], env=env, check=True)
            result = json.loads(out.read_text())
            seconds[name] = result["seconds"]
            errors += [{"notebook": name, **e} for e in result["errors"]]
            print(
                f"  claims sweep: {kernels} seed+{offset} {name}: {result['seconds']:.0f} s, "
                f"{len(result['errors'])} error(s)",
                flush=True,
            )
    claims = [json.loads(line) for line in record.read_text().splitlines()] if record.is_file() else []
    return {"offset": offset, "kernels": kernels, "claims": claims, "errors": errors, "seconds": seconds}


def measure(offsets=OFFSETS, kernels=KERNELS, notebooks=NOTEBOOKS, jobs: int = 2) -> dict:
    """Every (kernel set, offset) run, ``jobs`` at a time; returns ``{"runs", "summary", "date", "seconds"}``."""
    began = time.perf_counter()
    work = [(o, k) for k in kernels for o in offsets]
    with ThreadPoolExecutor(jobs) as pool:
        runs = list(pool.map(lambda job: run_once(*job, notebooks=notebooks), work))
    return {
        "runs": runs,
        "summary": summarise(runs),
        "capability": native_capability(),
        "notebooks": list(notebooks),
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "seconds": time.perf_counter() - began,
        "load_average": os.getloadavg()[0],
    }


def summarise(runs: list[dict]) -> dict[str, dict]:
    """Per claim id: how many runs measured it and how many it held on, its values, the paired difference to its
    reference (mean and standard error over the runs), its smallest slack, and the verdict."""
    from bertedu.course.claims import ledger
    from bertedu.course.stats import mean_and_se

    out = {}
    for claim_id, claim in ledger().items():
        measured = [c for run in runs for c in run["claims"] if c["id"] == claim_id]
        numbers = [c["value"] for c in measured if isinstance(c["value"], (int, float))]
        diffs = [c["value"] - c["reference"] for c in measured if c.get("reference") is not None]
        slacks = [c["slack"] for c in measured if c["slack"] is not None]
        held = sum(c["holds"] for c in measured)
        mean, se = mean_and_se(diffs) if diffs else (None, None)
        out[claim_id] = {
            "notebook": claim.notebook,
            "runs": len(measured),
            "held": held,
            "values": [min(numbers), statistics.median(numbers), max(numbers)] if numbers else None,
            "difference": None if mean is None else {"mean": mean, "se": se},
            "min_slack": min(slacks) if slacks else None,
            "verdict": "varies with the seed: shown, not asserted"
            if claim.compare == "varies" and measured
            else verdict(len(measured), held, len(runs)),
        }
    return out


def rejudge(result: dict) -> dict:
    """``result`` (a sweep's) judged again with the ledger as it is now: the same measurements, each claim's
    ``holds`` and ``slack`` recomputed from its recorded value with today's comparison and margin (a record of an
    entry the ledger no longer has is kept as it was, and the summary leaves it out). ``result["rejudged"]`` lists the claims whose verdict on some run changed:
    their margins were set after the sweep that measured them, which the next sweep confirms or not."""
    from bertedu.course.claims import ledger

    entries, changed = ledger(), set()
    runs = []
    for run in result["runs"]:
        claims = []
        for record in run["claims"]:
            claim = entries.get(record["id"])
            if claim is None:  # kept as measured (a later ledger may have it again); the summary skips it
                claims.append(record)
                continue
            value, reference = record["value"], record.get("reference")
            needs_reference = claim.compare in ("ahead", "behind", "level", "times")
            if claim.compare != "varies" and needs_reference != (reference is not None):
                claims.append(record)  # the entry's comparison changed shape: it needs a new measurement
                continue
            new = {**record, "holds": claim.holds(value, reference), "slack": claim.slack(value, reference)}
            if new["holds"] != record["holds"]:
                changed.add(record["id"])
            claims.append(new)
        runs.append({**run, "claims": claims})
    return {**result, "runs": runs, "summary": summarise(runs), "rejudged": sorted(changed)}


def verdict(measured: int, held: int, runs: int) -> str:
    if measured == 0:
        return "not measured"
    if held == measured == runs:
        return "holds on every run"
    if held == measured:
        return f"holds where measured ({measured} of {runs} runs)"
    return f"fails on {measured - held} of {measured} runs"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--offsets", type=int, nargs="+", default=list(OFFSETS))
    parser.add_argument("--kernels", nargs="+", default=list(KERNELS), choices=KERNELS)
    parser.add_argument(
        "--notebooks", nargs="+", default=None, help="numbers, e.g. 06 07 (default: all five)"
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="write the result as JSON here")
    args = parser.parse_args(argv)
    chosen = NOTEBOOKS if not args.notebooks else tuple(n for n in NOTEBOOKS if n[:2] in args.notebooks)
    result = measure(args.offsets, args.kernels, chosen, args.jobs)
    for claim_id, row in result["summary"].items():
        print(
            f"{claim_id}: {row['verdict']} (held {row['held']}/{row['runs']}, min slack {row['min_slack']})"
        )
    for run in result["runs"]:
        for error in run["errors"]:
            print(
                f"ERROR {run['kernels']} seed+{run['offset']} {error['notebook']} cell {error['cell']}: {error['error']}"
            )
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())


HEADING = "## 8. Claims: every training result the notebooks assert, over seeds and CPUs"


def section(result: dict) -> list[str]:
    """RESULTS.md's claims table: one row per ledger entry."""
    from bertedu.course.claims import ledger

    runs = result["runs"]
    offsets = sorted({r["offset"] for r in runs})
    kernels = sorted({r["kernels"] for r in runs})
    summary = result["summary"]
    entries = ledger()
    varies = [cid for cid in summary if cid in entries and entries[cid].compare == "varies"]
    failing = [
        cid
        for cid, row in summary.items()
        if cid not in varies and (row["held"] < row["runs"] or row["runs"] < len(runs))
    ]
    lines = [
        HEADING,
        "",
        f"The claims ledger (`bertedu/course/claims.yaml`, {len(summary)} entries) measured by running the training "
        f"notebooks ({', '.join(result['notebooks'])}) {len(runs)} times (`benchmarks/bench_claims.py`): seed offsets "
        f"{', '.join(map(str, offsets))} (every seed of the course shifted by the offset: pretraining, fine-tuning, "
        f"side runs) under {' and '.join(kernels)} CPU kernels (this machine's: {result['capability']}; *other*: one "
        "level down, as `tools/cpu_variant.py` picks them). Another CPU rounds differently, which for a training run "
        f"is another seed. Measured {result['date']}, {result['seconds'] / 60:.0f} min, load average "
        f"{result['load_average']:.1f} at the end.",
        "",
        f"**{len(summary) - len(failing) - len(varies)} of {len(summary) - len(varies)} asserted claims hold on every "
        f"run**; {len(varies)} entries vary with the seed (verdict *varies*: the notebook shows their spread and "
        "asserts nothing about them). *Value*: min / median / max over "
        "the runs; *difference*: value minus its reference, mean ± standard error over the runs (paired: the same "
        "run); *slack*: the smallest distance to the margin over the runs (negative: it missed).",
        "",
        "| claim | notebook | comparison | held | value | difference | slack | verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for cid, claim in ledger().items():
        row = summary.get(
            cid,
            {
                "runs": 0,
                "held": 0,
                "values": None,
                "difference": None,
                "min_slack": None,
                "verdict": "not measured",
            },
        )
        values = "–" if not row["values"] else " / ".join(f"{v:.3f}" for v in row["values"])
        diff = row["difference"]
        diff_text = "–" if diff is None else f"{diff['mean']:+.3f} ± {diff['se']:.3f}"
        slack = "–" if row["min_slack"] is None else f"{row['min_slack']:+.3f}"
        margin = claim.margin if not isinstance(claim.margin, float) else f"{claim.margin:g}"
        lines.append(
            f"| `{cid}`: {claim.statement} | {claim.notebook[:2]} | {claim.compare} {margin} | "
            f"{row['held']}/{row['runs']} | {values} | {diff_text} | {slack} | {row['verdict']} |"
        )
    if result.get("rejudged"):
        lines += [
            "",
            f"Judged with the ledger's current margins; {len(result['rejudged'])} claims missed on some run under "
            "the margins the notebooks had when this sweep ran, and were restated after it (a wider margin where "
            "the statement still holds, the notebook's words changed to match): "
            + ", ".join(f"`{c}`" for c in result["rejudged"])
            + ". Their margins come from this sweep, so only the next one tests them.",
        ]
    errors = [(run, e) for run in runs for e in run["errors"]]
    lines += [
        "",
        f"Cells that raised an error in a sweep run (a bare `assert` a seed broke, or a crash): {len(errors)}.",
    ]
    lines += [
        f"- {r['kernels']} seed+{r['offset']}, {e['notebook']} cell `{e['cell']}`: {e['error'][:200]}"
        for r, e in errors[:20]
    ]
    lines += [f"- Note: {note}" for note in result.get("notes", [])]
    return lines + [""]
