"""The side runs of notebooks 06 and 07 (bertedu.course): the MiniBert trained to its plateau, the short ablation without
position embeddings, the run without the MLM loss, and the second process that trains them.

The runs here are a few steps long; what is tested is that each run is what the notebook says it is (the
recipe with exactly one change), that it is deterministic, and that the second process returns exactly what
the same run gives in the notebook's own process (and is trained there if the second process fails)."""

from __future__ import annotations

import concurrent.futures
from pathlib import Path

import pytest
import torch
from support import small_bert_config

from bertedu import course
from bertedu.core.model import BertForPreTraining
from bertedu.course import (
    MiniBertRun,
    SideRuns,
    background,
    course_config,
    learning_curve_run,
    minibert_plateau_run,
    minilm_run,
    no_positions_run,
    nsp_only_run,
    start_side_runs,
    train_course_minibert,
)
from bertedu.training.finetune import FineTuneResult
from bertedu.training.pretrain import PretrainingRun, pretrain

SMALL = {"nsp_only": {"steps": 20}, "minibert": {"steps": 20}, "no_positions": {"steps": 10}}


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """Each test starts with an empty cache of side runs (the second process inherits the variable)."""
    monkeypatch.setenv("BERTEDU_SIDE_RUNS", str(tmp_path / "side-runs"))
    return tmp_path / "side-runs"


def same_weights(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


def same_result(a, b) -> bool:
    if isinstance(a, list):
        return a == b
    return type(a) is type(b) and a.history == b.history and same_weights(a.model, b.model)


@pytest.mark.slow
def test_nsp_only_is_the_recipe_through_pretrains_one_step_with_the_mlm_labels_blanked():
    """No third loop (architecture review 2026-12-06, §2): nsp_only_run is pretrain() with objective="nsp", so
    its losses are the full recipe's step with the MLM labels at -100: L = L_NSP, the same held-out NSP score
    every 100 steps, and no MLM figures in its records."""
    history = nsp_only_run(20)
    train = [r for r in history if r["split"] == "train"]
    assert [r["step"] for r in train] == [10, 20]
    assert all(r["loss"] == pytest.approx(r["nsp_loss"]) for r in train)  # L = L_NSP: no MLM loss at all
    assert all("mlm_loss" not in r and "mlm_accuracy" not in r for r in history)
    config = course_config(objective="nsp", mlm_eval_file=None)
    assert pretrain(config, None, progress=False, stop_after=20).history == history
    with_mlm = pretrain(course_config(), None, progress=False, stop_after=20).history
    assert all(r["loss"] > r["nsp_loss"] + 1 for r in with_mlm if r["split"] == "train")  # the full recipe
    assert nsp_only_run(20) == history


@pytest.mark.slow
def test_minibert_plateau_run_is_deterministic_and_leaves_the_callers_random_state_alone():
    torch.manual_seed(123)
    before = torch.get_rng_state()
    threads = torch.get_num_threads()
    run = minibert_plateau_run(30, learning_rate=3e-3)
    assert torch.equal(torch.get_rng_state(), before) and torch.get_num_threads() == threads
    assert isinstance(run, MiniBertRun) and (run.steps, run.learning_rate) == (30, 3e-3)
    assert [r["step"] for r in run.history] == [10, 20, 30] and not run.model.training
    assert same_weights(run.model, minibert_plateau_run(30, learning_rate=3e-3).model)
    assert not same_weights(run.model, minibert_plateau_run(30, learning_rate=1e-3).model)
    model, tokenizer = train_course_minibert(steps=30, learning_rate=3e-3, seed=0)
    assert same_weights(model, run.model) and tokenizer.get_vocab() == run.tokenizer.get_vocab()


def test_the_plateau_budget_is_the_one_notebook_06_states():
    assert (course.MINIBERT_PLATEAU_STEPS, course.MINIBERT_LEARNING_RATE) == (3000, 3e-3)
    assert course.MINIBERT_LEARNING_RATE == course_config().learning_rate  # the mini-BERT's peak rate
    assert (course.NO_POSITIONS_STEPS, course.NSP_ONLY_STEPS) == (300, 600)


@pytest.mark.slow
def test_no_positions_run_is_the_recipe_with_one_switch_changed():
    run = no_positions_run(10)
    changed = {k: v for k, v in run.config.to_dict().items() if course_config().to_dict()[k] != v}
    assert changed == {"position_embedding_type": "none"}
    assert run.step == 10 and run.interrupted and run.model.bert.embeddings.position_embeddings is None


@pytest.mark.integration
def test_side_runs_in_a_second_process_equal_the_same_runs_here():
    side = start_side_runs(SMALL)
    assert side.in_background
    results = {name: side.result(name) for name in SMALL}  # collected in the notebook's order
    assert isinstance(results["minibert"], MiniBertRun) and isinstance(
        results["no_positions"], PretrainingRun
    )
    assert same_result(results["nsp_only"], nsp_only_run(**SMALL["nsp_only"]))
    assert same_result(results["minibert"], minibert_plateau_run(**SMALL["minibert"]))
    here = no_positions_run(**SMALL["no_positions"])
    assert same_result(results["no_positions"], here)
    assert results["no_positions"].config == here.config and results["no_positions"].step == here.step
    assert side.result("minibert") is results["minibert"]  # fetched once


@pytest.mark.slow
def test_a_failed_second_process_is_replaced_by_training_here(caplog):
    failed = concurrent.futures.Future()
    failed.set_exception(RuntimeError("the worker died"))
    side = SideRuns({"nsp_only": {"steps": 20}}, futures={"nsp_only": failed})
    with caplog.at_level("WARNING", logger="bertedu.course"):
        history = side.result("nsp_only")
    assert history == nsp_only_run(20)
    assert "the second process stopped (RuntimeError: the worker died)" in caplog.text


@pytest.mark.slow
def test_one_core_trains_the_side_runs_when_asked(monkeypatch):
    monkeypatch.setattr(background.os, "cpu_count", lambda: 1)
    side = start_side_runs({"minibert": {"steps": 20}})
    assert not side.in_background
    assert same_result(side.result("minibert"), minibert_plateau_run(20))


def test_side_run_names_are_checked():
    with pytest.raises(ValueError, match="No side run"):
        start_side_runs({"no_such_run": {}})
    side = SideRuns({"nsp_only": {"steps": 20}})
    with pytest.raises(ValueError, match="was started"):
        side.result("minibert")


# ------------------------------------------------------------------------------ notebook 07's side runs
@pytest.mark.integration
def test_notebook_07s_learning_curve_in_a_second_process_equals_the_same_call_here(tmp_path):
    tokenizer = course.course_tokenizer()
    torch.manual_seed(0)
    model = BertForPreTraining(small_bert_config(vocab_size=tokenizer.vocab_size, max_position_embeddings=64))
    model.save_pretrained(tmp_path / "tiny", tokenizer=tokenizer)
    small = {
        "model_dir": str(tmp_path / "tiny"),
        "fractions": (0.1,),
        "seeds": (0,),
        "encoders": ("mini-bert",),
    }
    side = start_side_runs({"learning_curve": small})
    assert side.in_background
    result = side.result("learning_curve")
    assert result == learning_curve_run(**small)
    records = result["records"]
    assert (
        sorted(r["encoder"] for r in records) == ["bag of words", "mini-bert"] and result["control"] is None
    )
    assert all(r["fraction"] == 0.1 and r["n_train"] == 42 for r in records)
    assert [r["n_dev"] for r in records] == [0, 90]  # the model's epoch was picked on the 90 dev labels


def test_notebook_07s_minilm_run_keeps_its_scores_through_the_second_process(monkeypatch):
    result = FineTuneResult(
        model=None,
        history=[{"step": 14, "epoch": 1, "split": "eval", "loss": 0.5, "accuracy": 0.8, "lr": 1e-4}],
        best_epoch=2,
        best_metrics={"loss": 0.4, "accuracy": 0.85},
        epochs_run=2,
        stopped_early=False,
        steps=28,
    )
    test = {"loss": 0.35, "accuracy": 0.87, "macro_f1": 0.86}
    monkeypatch.setattr(course.side_runs, "run_minilm", lambda progress=False, **kw: (result, test))
    payload = background.run_bytes(SideRuns.registry, "minilm", {})  # what the second process sends back
    assert (
        background.result_from_bytes(SideRuns.registry, "minilm", payload)
        == minilm_run()
        == {
            "epochs_run": 2,
            "steps": 28,
            "best_epoch": 2,
            "best_metrics": {"loss": 0.4, "accuracy": 0.85},
            "history": result.history,
            "test": test,
        }
    )


def test_notebook_07s_curve_settings_are_the_notebooks():
    assert (course.CURVE_FRACTIONS, course.CURVE_SEEDS) == ((0.1, 0.5), (0, 1, 2))
    assert course.PRETRAINING_SIDE_RUNS == ("nsp_only", "minibert", "no_positions")
    assert set(course.SIDE_RUNS) == {*course.PRETRAINING_SIDE_RUNS, *course.FINETUNING_SIDE_RUNS}
    assert course.FINETUNING_SIDE_RUNS == (
        "learning_curve", "scratch_pair", "scratch_tagging", "scratch_spans", "minilm"
    )  # fmt: skip
    notebook = (Path(__file__).resolve().parents[1] / "notebooks" / "07_fine_tuning.ipynb").read_text("utf-8")
    assert "course.start_side_runs({name: {} for name in course.FINETUNING_SIDE_RUNS})" in notebook


# ------------------------------------------------------------------------------ the cache of finished runs
@pytest.mark.integration
def test_a_finished_run_is_collected_from_the_cache_next_time(own_cache):
    first = start_side_runs({"nsp_only": {"steps": 20}})
    assert first.in_background
    history = first.result("nsp_only")
    assert [p.name.split("-")[0] for p in own_cache.iterdir()] == ["nsp_only"]
    again = start_side_runs({"nsp_only": {"steps": 20}})
    assert not again.in_background  # nothing to train: no second process
    assert again.result("nsp_only") == history == nsp_only_run(20)
    assert start_side_runs({"nsp_only": {"steps": 30}}).in_background  # other settings: trained


def test_the_cache_key_follows_settings_code_data_and_cpu_kernels(monkeypatch):
    monkeypatch.delenv("DNNL_MAX_CPU_ISA", raising=False)
    key = lambda name, kwargs: background.run_key(SideRuns.registry, name, kwargs)  # noqa: E731
    key_before_kernels = key("nsp_only", {"steps": 20})
    assert key("nsp_only", {"steps": 20}) == key("nsp_only", {"steps": 20, "progress": True})
    assert key("nsp_only", {"steps": 20}) != key("nsp_only", {"steps": 30}) != key("minibert", {"steps": 30})
    before = key("minibert", {})
    monkeypatch.setattr(background, "_code_and_data_digest", lambda: "a line of code changed")
    assert key("minibert", {}) != before
    monkeypatch.setenv(
        "DNNL_MAX_CPU_ISA", "SSE41"
    )  # another CPU kernel set: other last digits, trained again
    assert key("nsp_only", {"steps": 20}) != key_before_kernels
    # make nbval's Chinese run names the English run's kernels: under its own, it reuses what those trained
    monkeypatch.delenv("DNNL_MAX_CPU_ISA")
    native_key, native = key("nsp_only", {"steps": 20}), "|".join(background.cpu_kernels())
    monkeypatch.setenv("DNNL_MAX_CPU_ISA", "SSE41")
    assert key("nsp_only", {"steps": 20}) != native_key
    monkeypatch.setenv("BERTEDU_SIDE_RUN_KERNELS", native)
    assert key("nsp_only", {"steps": 20}) == native_key


@pytest.mark.integration
def test_a_damaged_cache_file_is_trained_again(own_cache):
    start_side_runs({"minibert": {"steps": 20}}).result("minibert")
    (path,) = own_cache.iterdir()
    path.write_bytes(b"not a torch file")
    side = start_side_runs({"minibert": {"steps": 20}})
    assert side.in_background  # the damaged file does not count as a result
    assert same_result(side.result("minibert"), minibert_plateau_run(20))
    assert path.read_bytes() != b"not a torch file"
