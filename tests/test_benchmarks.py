"""The benchmark report logic (not the measurements: those are `make bench`'s job, never timed tests)."""

from __future__ import annotations

import bench_quality  # noqa: E402
import pytest
from common import Summary  # noqa: E402


def fake_pretraining(top1=(0.9, 0.91, 0.92)) -> dict:
    s = lambda values: Summary(list(values), "")  # noqa: E731
    held_out = {
        "mlm_eval.tsv": {"top1": s(top1), "top5": s((0.98, 0.99, 1.0))},
        "mlm_eval_generalise.tsv": {"top1": s((0.2, 0.25, 0.3)), "top5": s((0.5, 0.55, 0.6))},
        "nsp_eval.tsv": {"accuracy": s((0.9, 0.95, 0.96))},
        "nsp_eval_hard.tsv": {"accuracy": s((0.52, 0.57, 0.6))},
    }
    return {
        "scores": {
            "mlm_top1": held_out["mlm_eval.tsv"]["top1"],
            "mlm_top5": held_out["mlm_eval.tsv"]["top5"],
            "nsp_accuracy": held_out["nsp_eval.tsv"]["accuracy"],
        },
        "held_out": held_out,
        "minibert": {
            "mlm_eval.tsv": {"top1": s((0.77, 0.81, 0.82)), "top5": s((0.93, 0.95, 0.96))},
            "mlm_eval_generalise.tsv": {"top1": s((0.15, 0.2, 0.25)), "top5": s((0.45, 0.475, 0.5))},
        },
        "minibert_budget": {"steps": 3000, "learning_rate": 3e-3},
        "baselines": {
            "mlm_eval.tsv": {"top1": 0.785, "top5": 0.924},
            "mlm_eval_generalise.tsv": {"top1": 0.125, "top5": 0.25},
            "nsp_eval.tsv": {"accuracy": 0.9875},
            "nsp_eval_hard.tsv": {"accuracy": 0.5},
        },
        "train_seconds": Summary([30.0, 31.0, 32.0], "s"),
        "seeds": 3,
    }


def fake_results(top1=(0.9, 0.91, 0.92), gap=(0.08, 0.09, 0.1), span_f1=(0.6, 0.61, 0.62), minilm_s=20.0):
    s = lambda values: Summary(list(values), "")  # noqa: E731
    return {
        "pretraining": fake_pretraining(top1),
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
                    "threshold": 0.2,
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
    assert "0.770 / 0.810 / 0.820" in text  # the one-layer MiniBert is reported next to the mini-BERT


def test_every_held_out_file_is_reported_next_to_its_trivial_baseline():
    text = "\n".join(bench_quality.section(fake_results()))
    rows = {
        tuple(cell.strip(" `") for cell in line.split("|")[1:3]): line
        for line in text.splitlines()
        if line.startswith("| `")
    }
    assert {name for name, _ in rows} == set(bench_quality.HELD_OUT) and len(rows) == 6
    assert "0.988 (word overlap)" in rows["nsp_eval.tsv", "accuracy"]
    assert "0.500 (word overlap)" in rows["nsp_eval_hard.tsv", "accuracy"]
    assert "0.125 (trigram model)" in rows["mlm_eval_generalise.tsv", "top1"]
    assert "0.150 / 0.200 / 0.250" in rows["mlm_eval_generalise.tsv", "top1"]  # the MiniBert
    hard = rows["nsp_eval_hard.tsv", "accuracy"]
    assert "(no NSP head)" in hard and "0.520 / 0.570 / 0.600" in hard and "✅" not in hard  # no target there
    assert "≥ 0.85 | ✅ met" in rows["nsp_eval.tsv", "accuracy"]


def test_the_baselines_of_the_held_out_files_are_the_documented_ones():
    baselines = bench_quality.held_out_baselines()
    assert baselines["mlm_eval.tsv"] == {"top1": 62 / 79, "top5": 73 / 79}  # data/README.md
    assert baselines["mlm_eval_generalise.tsv"] == {"top1": 5 / 40, "top5": 10 / 40}
    assert baselines["nsp_eval.tsv"] == {"accuracy": 79 / 80} and baselines["nsp_eval_hard.tsv"] == {
        "accuracy": 0.5
    }


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"top1": (0.5, 0.55, 0.7)}, "pre-training mlm_top1 below 0.6"),
        ({"gap": (0.0, 0.01, 0.2)}, "gap at 10% of the labels below 0.05"),
        ({"span_f1": (0.1, 0.15, 0.5)}, "fine-tuning span_extraction f1 below 0.2"),
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
    assert run_all.render_readme(readme, results) == readme, (
        "the course map's times differ from benchmarks/results.json: run python benchmarks/run_all.py --readme-only"
    )
    assert "TBD" not in readme, "a course-map time is still a placeholder: run make bench"
    timed = set(results["course"]["notebooks"])
    assert timed == {p.name for p in (run_all.ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")}, (
        "benchmarks/results.json does not time every notebook: run make bench"
    )


def test_the_course_map_times_come_from_the_results():
    import run_all

    readme = run_all.README.read_text(encoding="utf-8")
    results = {
        "machine": {"cpu": "Some CPU", "cores": 2},
        "course": {
            "notebooks": {
                p.name: Summary([10.0 + int(p.name[:2])], "s")
                for p in sorted((run_all.ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
            },
            "total": Summary([321.0], "s"),
        },
    }
    text = run_all.course_map_times(readme, results)
    assert "| ~16 s |" in text.split("06_mini_pretraining.ipynb)", 1)[1].split("\n", 1)[0]
    assert "on Some CPU (2 cores, PyTorch's CPU build)" in text and "took 321 s there" in text


def test_trivial_baselines_are_reported_next_to_the_model_and_a_thin_margin_is_named():
    results = fake_results()
    tasks = results["finetuning"]["tasks"]
    tasks["sentence_classification"]["baselines"] = {"majority": 0.5, "bag_of_words": 0.722}
    tasks["sentence_pair_classification"] = {
        "metric": "accuracy",
        "threshold": 0.8,
        "mini-bert": Summary([0.93, 0.94, 0.96], ""),
        "scratch": Summary([0.5, 0.5, 0.5], ""),
        "baselines": {"majority": 0.5, "overlap": 0.514, "hypothesis_only": 0.5},
    }
    results["finetuning"]["smallest_budget_bag_of_words"] = Summary([0.61, 0.66, 0.68], "")
    text = "\n".join(bench_quality.section(results))
    assert "0.722 (bag of words)" in text and "0.514 (overlap)" in text and "hypothesis only 0.500" in text
    assert "a bag of words trained on the same 10%: 0.610 / 0.660 / 0.680" in text
    assert "| — | — |" in text  # span extraction has no trivial baseline
    assert bench_quality.missed(results) == [] and "❌" not in text
    assert "(no target)" in text.split("| sentence_pair_classification |", 1)[1].split("\n", 1)[0]
    tasks["sentence_classification"]["baselines"]["bag_of_words"] = 0.85  # a shortcut: 0.90 < 0.85 + 0.10
    failures = bench_quality.missed(results)
    assert len(failures) == 1 and "less than 0.1 above the bag of words baseline (0.850)" in failures[0]
    assert "❌ missed" in "\n".join(bench_quality.section(results))


def test_scaling_guide_quotes_the_committed_tokens_per_second():
    """docs/scaling.md's table of tokens/s is the committed benchmark's (within rounding to 3 figures)."""
    import json
    import re

    import run_all

    results = json.loads(run_all.RESULTS_JSON.read_text(encoding="utf-8"))
    text = (run_all.ROOT / "docs" / "scaling.md").read_text(encoding="utf-8")
    rows = [
        line
        for line in text.splitlines()
        if line.startswith("| notebook 06's model") or "BERT-mini 4/256, batch" in line
    ]
    assert len(rows) == 2, rows
    for row, measured in zip(rows, results["processes"], strict=True):
        quoted = [float(n.replace(",", "")) for n in re.findall(r"≈ ([\d,]+) tokens/s", row)]
        for value, key in zip(quoted, ["1 process", "2 processes", "1 process, 2 threads"], strict=True):
            median = measured["tokens_per_s"][key]["median"]
            assert abs(value - median) <= 0.01 * median, (row, key, median)


def test_only_course_replaces_section_one_and_keeps_the_others(tmp_path, monkeypatch):
    import json

    import bench_course
    import run_all

    report = "# B\n\n## 1. Course run time\n\nold table\n\n## 2. Training speed\n\nkept\n"
    (tmp_path / "RESULTS.md").write_text(report, encoding="utf-8")
    (tmp_path / "results.json").write_text(json.dumps({"inference": {"kept": 1}}), encoding="utf-8")
    monkeypatch.setattr(run_all, "RESULTS", tmp_path / "RESULTS.md")
    monkeypatch.setattr(run_all, "RESULTS_JSON", tmp_path / "results.json")
    monkeypatch.setattr(run_all, "ROOT", tmp_path)
    updated = []
    monkeypatch.setattr(run_all, "update_readme", lambda results: updated.append(results))
    names = ["00_welcome.ipynb", "06_mini_pretraining.ipynb"]
    course = {
        "notebooks": {n: Summary([9.0, 10.0, 11.0], "s") for n in names},
        "total": Summary([19.0, 20.0, 21.0], "s"),
        "loaded_total": Summary([30.0], "s"),
    }
    monkeypatch.setattr(bench_course, "measure", lambda repeats: course)
    assert run_all.main(["--only-course"]) == 0
    text = (tmp_path / "RESULTS.md").read_text(encoding="utf-8")
    assert "old table" not in text and "## 2. Training speed\n\nkept" in text
    assert "| **whole course** | 19.0 / 20.0 / 21.0 s |" in text and "Measured 20" in text
    saved = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert saved["inference"] == {"kept": 1} and saved["course"]["total"]["median"] == 20.0
    assert updated and updated[0]["course"]["loaded_total"].median == 30.0
    (tmp_path / "RESULTS.md").write_text("# B\n\n## 2. Training speed\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="no section"):
        run_all.main(["--only-course"])


def test_the_readme_dates_notebook_07s_line_by_its_own_quality_run():
    """--only-finetuning-quality re-measures notebook 07 on a later day than the full run: the README's line says
    when (it quoted the full run's date for a re-measured table)."""
    import json

    import run_all

    results = run_all.deserialise(json.loads(run_all.RESULTS_JSON.read_text(encoding="utf-8")))
    results["machine"]["date"] = "2026-01-01T00:00:00"
    results["quality"]["finetuning"]["date"] = "2026-02-02T00:00:00"
    line = next(x for x in run_all.headline(results) if x.startswith("- Notebook 07"))
    assert "the quality run of 2026-02-02" in line
    del results["quality"]["finetuning"]["date"]
    line = next(x for x in run_all.headline(results) if x.startswith("- Notebook 07"))
    assert "the quality run of 2026-01-01" in line
    results["claims"]["date"] = "2026-03-03T00:00:00"
    line = next(x for x in run_all.headline(results) if x.startswith("- Notebook 07"))
    assert "the sweep is the later measurement" in line
    results["quality"]["finetuning"]["date"] = "2026-04-04T00:00:00"
    line = next(x for x in run_all.headline(results) if x.startswith("- Notebook 07"))
    assert "this run is the later measurement" in line
