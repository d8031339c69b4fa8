"""The speed table of benchmarks/bench_speedups.py: its rows, batches and report (no timing: `make bench` times)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import bench_speedups  # noqa: E402
import pytest
import torch
from common import Summary  # noqa: E402

from bertedu.core.model import BertForPreTraining  # noqa: E402
from bertedu.course import course_config  # noqa: E402
from bertedu.training.optim import make_optimizer  # noqa: E402
from bertedu.training.pretrain import model_config  # noqa: E402
from bertedu.utils import cpu_threads  # noqa: E402


@pytest.fixture(scope="module")
def small_batches():
    """The recipe's first 8 batches of 8 examples (one bucket) for every layout of the table."""
    config = bench_speedups.recipe().replace(batch_size=8)
    batches, vocab_size = bench_speedups.course_batches(config, 8)
    return config, batches, vocab_size


def fake_results(
    plain=(100.0, 120.0, 300.0), recipe=(40.0, 60.0, 50.0), loaded=(150.0, 180.0, 200.0)
) -> dict:
    rows = bench_speedups.rows()
    ms = [plain, (80.0, 80.0, 80.0), (70.0, 70.0, 70.0), (65.0, 65.0, 65.0), recipe, (60.0,) * 3, loaded]
    ms.append((60.0, 61.0, 62.0))
    return {
        "rows": [
            {
                "name": row.name,
                "why": row.why,
                "setting": dataclasses.asdict(row.setting),
                "threads": row.setting.num_threads or 2,
                "ms_per_step": Summary(list(values), "ms"),
                "load_average": Summary([2.5 if row.setting.loaded else 1.5], ""),
                "tokens_per_step": 4096.0 if row.setting.pad_to_max_length else 1400.0,
                "padding_share": 0.7 if row.setting.pad_to_max_length else 0.1,
            }
            for row, values in zip(rows, ms, strict=True)
        ],
        "default_threads": 2,
        "batch_size": 64,
        "max_length": 64,
        "warmup": 10,
        "steps": 60,
        "repeats": 3,
    }


def test_each_row_adds_one_optimisation_and_the_sixth_is_the_recipe():
    rows = bench_speedups.rows()
    settings = [dataclasses.asdict(r.setting) for r in rows]
    assert rows[0].name == "plain" and settings[0] == dataclasses.asdict(bench_speedups.Setting())
    assert settings[0]["pad_to_max_length"] and settings[0]["bucket_batches"] == 1
    assert not settings[0]["mlm_logits_at_labels_only"] and settings[0]["attn_implementation"] == "eager"
    for before, after in zip(settings[:6], settings[1:6]):
        changed = [key for key in before if before[key] != after[key]]
        assert len(changed) == 1, changed  # cumulative: one switch more than the row above
    recipe = course_config()
    assert settings[5] == {
        "pad_to_max_length": False,
        "bucket_batches": recipe.bucket_batches,
        "mlm_logits_at_labels_only": True,
        "attn_implementation": recipe.attn_implementation,
        "num_threads": recipe.num_threads,
        "loaded": False,
    }
    assert [r.setting for r in rows[6:]] == [
        dataclasses.replace(rows[4].setting, loaded=True),
        dataclasses.replace(rows[5].setting, loaded=True),
    ]
    assert len({r.name for r in rows}) == len(rows) and all(r.why for r in rows)


def test_speed_ups_are_ratios_of_medians():
    results = fake_results(plain=(100.0, 120.0, 300.0), recipe=(40.0, 60.0, 50.0))
    speedups = bench_speedups.speedups(results["rows"])
    assert speedups[0] == 1.0
    assert speedups[4] == pytest.approx(120.0 / 50.0)  # not the means' ratio (173.3 / 50) nor the minima's
    assert speedups[1] == pytest.approx(1.5)


def test_the_section_has_a_row_per_setting_and_the_loaded_to_idle_ratios():
    text = "\n".join(bench_speedups.section(fake_results()))
    assert text.startswith(bench_speedups.HEADING)
    for i, row in enumerate(bench_speedups.rows(), start=1):
        assert text.count(f"| {i}. {row.name} |") == 1
    assert "| 1. plain | 2 | 100.0 / 120.0 / 300.0 ms | 4096 | 70% | 1.00× |" in text
    assert "| 5. + fused attention (sdpa) | 2 | 40.0 / 50.0 / 60.0 ms | 1400 | 10% | 2.40× |" in text
    # row 7 is row 5 beside a busy core (180 / 50), row 8 the recipe (61 / 60)
    assert "3.60× its idle time with 2 thread(s); 1.02× its idle time with 1 thread(s)" in text
    assert "1.5 after the idle rows, 2.5 after the loaded ones" in text


def test_the_table_goes_into_the_training_speed_section_and_replaces_itself():
    report = "# Benchmarks\n\n## 2. Training speed: x\n\n| a |\n\n## 3. Inference\n\nrest\n"
    first = bench_speedups.merge(report, bench_speedups.section(fake_results()))
    assert (
        first.index("## 2. Training") < first.index(bench_speedups.HEADING) < first.index("## 3. Inference")
    )
    assert "| a |" in first and first.endswith("## 3. Inference\n\nrest\n")
    again = bench_speedups.merge(first, bench_speedups.section(fake_results(plain=(200.0, 240.0, 600.0))))
    assert again.count(bench_speedups.HEADING) == 1
    assert "200.0 / 240.0 / 600.0 ms" in again and "100.0 / 120.0 / 300.0 ms" not in again
    assert again.replace("200.0 / 240.0 / 600.0", "100.0 / 120.0 / 300.0").replace("2.40×", "4.80×") != first
    assert bench_speedups.merge(first, bench_speedups.section(fake_results())) == first
    assert bench_speedups.merge("# Benchmarks\n", ["### x"]) != "# Benchmarks\n"  # no section 2: appended


def test_the_padding_share_falls_row_by_row_on_real_batches(small_batches):
    config, batches, _ = small_batches
    plain, longest, buckets = (
        bench_speedups.padding_stats(batches[key]) for key in ((True, 1), (False, 1), (False, 8))
    )
    assert plain[0] == config.batch_size * config.max_length  # every batch is B x max_length
    assert plain[1] > longest[1] >= buckets[1] > 0
    assert plain[0] > longest[0] >= buckets[0]
    # the same examples, the very same masks: row 1's batches are row 2's with padding columns
    for wide, narrow in zip(batches[True, 1], batches[False, 1], strict=True):
        T = narrow["input_ids"].size(1)
        assert all(torch.equal(wide[k][:, :T], narrow[k]) for k in narrow if k != "next_sentence_label")
        assert int(wide["attention_mask"][:, T:].sum()) == 0 and (wide["labels"][:, T:] == -100).all()


def test_pad_to_refuses_a_batch_wider_than_the_length(small_batches):
    _, batches, _ = small_batches
    with pytest.raises(ValueError, match="more than length=5"):
        bench_speedups.pad_to(batches[False, 1][0], 5, 0)


def test_every_optimisation_keeps_the_loss_and_the_step(small_batches):
    """Rows 1-2 on their (same) batches, rows 3-5 on theirs (row 3 regroups the examples): the same loss, and
    the same (clipped) gradients of one step, up to float rounding."""
    config, batches, vocab_size = small_batches
    rows = bench_speedups.rows(config)
    for group in ((rows[0], rows[1]), (rows[2], rows[3], rows[4])):
        with cpu_threads(1):  # fast beside a busy core too
            results = [_one_step(row.setting, batches, config, vocab_size) for row in group]
        for loss, grads in results[1:]:
            assert loss == pytest.approx(results[0][0], abs=1e-5)
            assert torch.allclose(grads, results[0][1], atol=1e-6)
        assert results[0][1].abs().max() > 1e-3  # the gradients are not all zero


def _one_step(setting, batches, config, vocab_size) -> tuple[float, torch.Tensor]:
    """The loss on the setting's first batch, and the gradients of one :func:`bench_speedups.switchable_step` on it."""
    torch.manual_seed(config.seed)
    model = BertForPreTraining(
        model_config(config, vocab_size).replace(attn_implementation=setting.attn_implementation)
    )
    optimizer, scheduler = make_optimizer(model, lr=1e-3, weight_decay=0.01, warmup_steps=0, total_steps=10)
    batch = batches[bench_speedups.layout(setting)][0]
    loss = model(**batch, mlm_logits_at_labels_only=setting.mlm_logits_at_labels_only).loss.item()
    params = list(model.parameters())
    bench_speedups.switchable_step(model, batch, optimizer, scheduler, params, config, setting)
    return loss, torch.cat([p.grad.flatten() for p in params])


def test_only_speed_table_merges_into_the_reports(tmp_path, monkeypatch):
    import run_all

    monkeypatch.setattr(run_all, "RESULTS", tmp_path / "RESULTS.md")
    monkeypatch.setattr(run_all, "RESULTS_JSON", tmp_path / "results.json")
    (tmp_path / "RESULTS.md").write_text(
        "# B\n\n## 2. Training speed\n\nold\n\n## 3. Inference\n", encoding="utf-8"
    )
    (tmp_path / "results.json").write_text(json.dumps({"inference": {"kept": 1}}), encoding="utf-8")
    monkeypatch.setattr(run_all, "ROOT", tmp_path)
    monkeypatch.setattr(bench_speedups, "measure", lambda quick=False: fake_results())
    assert run_all.main(["--only-speed-table"]) == 0
    saved = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert saved["inference"] == {"kept": 1}
    assert saved["speed_table"]["rows"][0]["ms_per_step"]["median"] == 120.0
    report = (tmp_path / "RESULTS.md").read_text(encoding="utf-8")
    assert "old" in report and report.index(bench_speedups.HEADING) < report.index("## 3. Inference")
    table = run_all.deserialise(saved)["speed_table"]
    assert bench_speedups.section(table) == bench_speedups.section(
        fake_results()
    )  # results.json re-renders it


def test_the_reading_names_rows_that_bought_nothing_or_cost_time():
    # fake_results' idle medians: 120, 80, 70, 65, 50, 60 (rows 1-6)
    text = bench_speedups.step_gains(fake_results()["rows"])
    assert "row 2: 1.50×, row 3: 1.14×, row 4: 1.08×, row 5: 1.30×, row 6: 0.83×" in text
    assert "Slower than the row above on an idle machine: row(s) 6." in text
    assert "Within 10% of the row above, so nothing this run can tell from noise: row(s) 4." in text
    flat = fake_results(recipe=(60.0, 64.0, 66.0))  # row 5: 65 -> 64, row 6: 64 -> 60, within 10 % too
    assert "Within 10% of the row above, so nothing this run can tell from noise: row(s) 4, 5, 6." in (
        bench_speedups.step_gains(flat["rows"])
    )


def test_the_readme_line_compares_the_recipe_with_the_plain_step_idle_and_loaded():
    line = bench_speedups.headline(fake_results())  # recipe row 6: 60 ms; plain 120 ms; loaded 61 ms
    assert line.startswith("Notebook 06's training step: 60 ms, 2.00× faster than a plain step")
    assert "70% padding" in line and "1.02× its idle time" in line


def test_one_function_is_named_train_step():
    """The package's step is ``bertedu.training.pretrain.train_step``; the speed table's own step has a name
    that says what it is (the architecture review of 2026-12-06 found two ``train_step``)."""
    import ast

    root = Path(__file__).resolve().parents[1]
    defined = [
        path.relative_to(root).as_posix()
        for folder in ("bertedu", "tools", "benchmarks")
        for path in sorted((root / folder).rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "train_step"
    ]
    assert defined == ["bertedu/training/pretrain.py"]
    assert callable(bench_speedups.switchable_step)
