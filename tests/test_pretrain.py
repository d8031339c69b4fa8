"""The pretraining loop (bertedu.training.pretrain): settings, history, the NaN guard, determinism, resuming."""

import math
import signal
import warnings

import pytest
import torch
from support import CORPUS, assert_clipped_to, gradients_after_one_step, same_weights

import bertedu.training.pretrain as pretrain_module
from bertedu.core.model import BertForPreTraining
from bertedu.core.tokenizer import train_tokenizer
from bertedu.training.checkpoint import load_checkpoint
from bertedu.training.data import read_corpus
from bertedu.training.optim import TrainingDivergedError, TrainingDivergenceWarning, warn_if_diverged
from bertedu.training.pretrain import (
    PretrainingConfig,
    TrainingInterrupted,
    pretrain,
    pretraining_batches,
    train_step,
)


# --- settings ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "change, message",
    [
        ({"steps": 0}, "steps must be a positive integer"),
        ({"batch_size": -2}, "batch_size"),
        ({"learning_rate": 0.0}, "learning_rate"),
        ({"model_size": "huge"}, "model_size"),
        ({"max_length": 3}, "max_length"),
        ({"mlm_probability": 1.5}, "mlm_probability"),
        ({"attn_implementation": "flash"}, "attn_implementation"),
    ],
)
def test_config_rejects_bad_settings(change, message):
    with pytest.raises(ValueError, match=message):
        PretrainingConfig(**change)


def test_train_tokenizer_keeps_every_word_whole():
    docs = [[s for s in d.splitlines() if s] for d in CORPUS.split("\n\n")]
    tok = train_tokenizer(docs)
    words = {w for d in docs for s in d for w in s.split()}
    assert all(tok.tokenize(w) == [w] for w in words)
    assert tok.convert_ids_to_tokens([0, 1, 2, 3, 4]) == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


# --- the loop ------------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_pretrain_records_history_and_metrics(tiny_run):
    from bertedu.teaching.viz import plot_loss_curves

    run = pretrain(tiny_run(), progress=False)
    train = [r for r in run.history if r["split"] == "train"]
    evals = [r for r in run.history if r["split"] == "eval"]
    assert [r["step"] for r in train] == [2, 4, 6, 8] and [r["step"] for r in evals] == [4, 8]
    assert {"loss", "mlm_loss", "nsp_loss", "mlm_accuracy", "nsp_accuracy", "lr"} <= set(train[0])
    for r in train:
        assert r["loss"] == pytest.approx(r["mlm_loss"] + r["nsp_loss"], rel=1e-5)
        assert 0 <= r["mlm_accuracy"] <= 1 and 0 <= r["nsp_accuracy"] <= 1
    assert set(run.metrics) == {"mlm_accuracy", "mlm_top5_accuracy", "nsp_accuracy"}
    assert run.step == 8 and not run.interrupted and run.output_dir is None
    assert not run.model.training and run.model.config.attn_implementation == "eager"
    assert train[-1]["lr"] == 0.0  # decayed to zero at the last step
    fig = plot_loss_curves(run.history)
    assert len(fig.axes) == 2


@pytest.mark.slow
def test_pretrain_warms_up_then_decays_the_learning_rate(tiny_run, monkeypatch):
    """BERT's schedule: linear warm-up to the peak, then linear decay to 0 at the last step."""
    used = []  # the learning rate each optimizer step runs with

    def spy(model, batch, optimizer, *args, **kwargs):
        used.append(optimizer.param_groups[0]["lr"] / 5e-3)
        return train_step(model, batch, optimizer, *args, **kwargs)

    monkeypatch.setattr(pretrain_module, "train_step", spy)
    run = pretrain(tiny_run(warmup_steps=4, log_every=1, eval_every=0), progress=False)  # 8 steps, peak 5e-3
    # Step s (0-based) runs with (s + 1) / 4 of the peak while s < 4, then with (8 - s) / 4.
    assert used == pytest.approx([0.25, 0.5, 0.75, 1.0, 1.0, 0.75, 0.5, 0.25])
    # The history's lr after step s is the one step s + 1 will use: the schedule one step on, 0 at the end.
    logged = [r["lr"] / 5e-3 for r in run.history if r["split"] == "train"]
    assert logged == pytest.approx([0.5, 0.75, 1.0, 1.0, 0.75, 0.5, 0.25, 0.0])


@pytest.mark.slow
def test_train_step_clips_the_global_gradient_norm():
    """``max_grad_norm``: the gradient is scaled down to that global L2 norm before AdamW's step."""
    left, plain = gradients_after_one_step(lambda *args: train_step(*args, step=0), max_grad_norm=1e-3)
    assert_clipped_to(left, plain, 1e-3)
    left, plain = gradients_after_one_step(lambda *args: train_step(*args, step=0), max_grad_norm=0.0)
    assert all(torch.allclose(a, b, rtol=1e-4, atol=1e-7) for a, b in zip(left, plain))  # 0: no clipping


@pytest.mark.slow
def test_pretrain_is_deterministic_and_seed_dependent(tiny_run):
    a = pretrain(tiny_run(eval_every=0), progress=False)
    b = pretrain(tiny_run(eval_every=0), progress=False)
    c = pretrain(tiny_run(eval_every=0, seed=4), progress=False)
    assert same_weights(a.model, b.model) and not same_weights(a.model, c.model)
    assert a.history == b.history


@pytest.mark.slow
def test_eager_and_fused_attention_train_the_same_function(tiny_run):
    a = pretrain(tiny_run(attn_implementation="eager", dropout=0.0, eval_every=0), progress=False)
    b = pretrain(tiny_run(attn_implementation="sdpa", dropout=0.0, eval_every=0), progress=False)
    wa, wb = a.model.state_dict(), b.model.state_dict()
    assert all(torch.allclose(wa[k], wb[k], atol=1e-4) for k in wa)


def test_nan_loss_stops_with_advice(tiny_run, monkeypatch):
    original = BertForPreTraining.forward

    def poisoned(self, *args, **kwargs):
        out = original(self, *args, **kwargs)
        out.mlm_loss = out.mlm_loss * float("nan")  # the step adds up L = L_MLM + L_NSP from the parts
        return out

    monkeypatch.setattr(BertForPreTraining, "forward", poisoned)
    with pytest.raises(TrainingDivergedError, match="step 1.*lower learning rate.*check the data"):
        pretrain(tiny_run(), progress=False)


def test_infinite_gradient_norm_stops(tiny_run, monkeypatch):
    monkeypatch.setattr(
        torch.nn.utils, "clip_grad_norm_", lambda params, max_norm: torch.tensor(float("inf"))
    )
    with pytest.raises(TrainingDivergedError, match="gradient norm is not finite"):
        pretrain(tiny_run(), progress=False)


# --- interruptions and divergence (issues 14, 20) ------------------------------------------------------------------
def test_ctrl_c_saves_then_raises_instead_of_returning_as_if_finished(tiny_run, tmp_path, monkeypatch):
    """A kernel interrupt (nbval's cell time-out sends one) during pretrain() used to save and return
    normally, so the notebook ran on with a half-trained model. It now saves, then raises."""
    original = BertForPreTraining.forward
    calls = []

    def forward(self, *args, **kwargs):
        out = original(self, *args, **kwargs)
        calls.append(1)
        if len(calls) == 3:
            signal.raise_signal(signal.SIGINT)  # Ctrl-C during the third step
        return out

    monkeypatch.setattr(BertForPreTraining, "forward", forward)
    before = signal.getsignal(signal.SIGINT)
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt) as info:
        pretrain(tiny_run(eval_every=0, num_threads=1), out, progress=False)
    assert isinstance(info.value, TrainingInterrupted)
    message = str(info.value)
    assert "interrupted" in message and "at step 3/8" in message and "resume=True" in message
    assert info.value.step == 3 and info.value.run.step == 3 and info.value.signal == "SIGINT"
    assert load_checkpoint(out).step == 3
    assert signal.getsignal(signal.SIGINT) is before  # the handler is put back
    monkeypatch.setattr(BertForPreTraining, "forward", original)
    resumed = pretrain(tiny_run(eval_every=0, num_threads=1), out, resume=True, progress=False)
    assert resumed.step == 8 and not resumed.interrupted


def train_history(*losses: float, every: int = 10) -> list[dict]:
    """A pretraining history with these training losses, one record per ``every`` steps, and an eval record."""
    history = [{"step": every * (i + 1), "split": "train", "loss": loss} for i, loss in enumerate(losses)]
    return [*history, {"step": every * len(losses), "split": "eval", "mlm_accuracy": 0.1}]


def test_a_loss_ending_1_1_times_above_its_start_warns_with_what_to_try():
    """The review's #8: lr 0.99 ended far above the loss of an untrained model, silently. The start is the
    lower of the first logged loss and ln V + ln 2 (an untrained model guessing uniformly)."""
    chance = math.log(50) + math.log(2)  # 4.605 for a vocabulary of 50 words
    settings = dict(learning_rate=0.99, warmup_steps=0, max_grad_norm=0.0)
    with pytest.warns(TrainingDivergenceWarning) as caught:
        warn_if_diverged(train_history(9.0, 3.0, 1.12 * chance), 50, **settings)
    message = str(caught[0].message)
    assert (
        "Training diverged: the loss ended at 5.158, 1.1 times where it started (4.605, the loss of an "
        in message
    )
    assert "lower learning rate (now 0.99" in message and "longer warm-up (now 0 steps)" in message
    assert "gradient clipping (max_grad_norm=1.0, now 0)" in message
    with pytest.warns(TrainingDivergenceWarning, match=r"\(4.000, the mean over the first 10 steps\)"):
        warn_if_diverged(train_history(4.0, 4.5), 50, **settings)  # a first loss below chance is the start
    with pytest.warns(TrainingDivergenceWarning) as caught:
        warn_if_diverged(train_history(4.0, 4.5), 50, learning_rate=1e-3, warmup_steps=100, max_grad_norm=1.0)
    assert "gradient clipping" not in str(caught[0].message)  # clipped as BERT already: nothing to suggest
    with warnings.catch_warnings():
        warnings.simplefilter("error", TrainingDivergenceWarning)
        warn_if_diverged(train_history(9.0, 1.09 * chance), 50, **settings)  # below 1.1 times the start
        warn_if_diverged(train_history(4.0, 4.39), 50, **settings)
        warn_if_diverged(train_history(6.0, 2.0), 50, **settings)  # a healthy run
        warn_if_diverged(
            [{"step": 10, "split": "eval", "mlm_accuracy": 0.1}], 50, **settings
        )  # nothing to judge


def test_pretrain_checks_its_history_for_divergence(tiny_run, monkeypatch):
    """pretrain() hands its history and settings to warn_if_diverged; a healthy run (its loss ends near 0.8
    times its start, far from the 1.1 that warns) does not warn."""
    calls = []

    def spy(history, vocab_size, **settings):
        calls.append((list(history), vocab_size, settings))
        return warn_if_diverged(history, vocab_size, **settings)

    monkeypatch.setattr(pretrain_module, "warn_if_diverged", spy)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TrainingDivergenceWarning)
        run = pretrain(tiny_run(steps=30, eval_every=0, seed=1, num_threads=1), progress=False)
    settings = dict(learning_rate=5e-3, warmup_steps=2, max_grad_norm=1.0)
    assert calls == [(run.history, run.tokenizer.vocab_size, settings)]


def test_a_kernel_shutdown_does_not_cut_the_final_save_short(tiny_run, tmp_path, monkeypatch):
    """A Jupyter kernel shutdown or restart sends SIGINT, then SIGTERM 2.5 s later (then SIGKILL): the
    second signal must not abort the checkpoint the first one asked for."""
    original_forward, original_save = BertForPreTraining.forward, pretrain_module.save_checkpoint
    calls = []

    def forward(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            signal.raise_signal(signal.SIGINT)
        return original_forward(self, *args, **kwargs)

    def save_checkpoint(*args, **kwargs):
        signal.raise_signal(signal.SIGTERM)  # arrives while the checkpoint is written
        return original_save(*args, **kwargs)

    monkeypatch.setattr(BertForPreTraining, "forward", forward)
    monkeypatch.setattr(pretrain_module, "save_checkpoint", save_checkpoint)
    with pytest.raises(TrainingInterrupted, match="at step 3/8"):
        pretrain(tiny_run(eval_every=0, num_threads=1), tmp_path / "run", progress=False)
    assert load_checkpoint(tmp_path / "run").step == 3


# --- one batch pipeline, one step (issue 26) ---------------------------------------------------------------------
def test_pretraining_batches_mask_with_the_configs_shares(tiny_run):
    """The 80/10/10 shares come from the config (three call sites used to leave them at the defaults)."""
    config = tiny_run(mlm_probability=0.5)
    documents = read_corpus(config.corpus)
    tokenizer = train_tokenizer(documents, None)
    for shares, expect in [((1.0, 0.0), "mask"), ((0.0, 0.0), "kept")]:
        changed = config.replace(mask_replace_prob=shares[0], random_replace_prob=shares[1])
        _, batch = next(pretraining_batches(changed, documents, tokenizer))
        selected = batch["labels"] != -100
        assert selected.sum() > 10 and batch["input_ids"].size(0) == config.batch_size
        inputs = batch["input_ids"][selected]
        if expect == "mask":
            assert (inputs == tokenizer.mask_token_id).all()
        else:
            assert torch.equal(inputs, batch["labels"][selected])


@pytest.mark.slow
def test_pretrain_trains_on_pretraining_batches_and_the_step_reports_the_whole_batch(tiny_run, monkeypatch):
    config = tiny_run(steps=3, eval_every=0)
    seen = []

    def spy(model, batch, *args, **kwargs):
        stats = train_step(model, batch, *args, **kwargs)
        seen.append((batch, stats))
        return stats

    monkeypatch.setattr(pretrain_module, "train_step", spy)
    run = pretrain(config, progress=False)
    documents = read_corpus(config.corpus)
    expected = pretraining_batches(config, documents, train_tokenizer(documents, None))
    for (batch, stats), (_, want) in zip(seen, expected):
        assert batch.keys() == want.keys() and all(torch.equal(batch[k], want[k]) for k in batch)
        assert stats.mlm_total == int((batch["labels"] != -100).sum()) and stats.nsp_total == len(
            batch["labels"]
        )
        assert stats.loss == pytest.approx(stats.mlm_loss + stats.nsp_loss, rel=1e-6)
        assert 0 <= stats.mlm_correct <= stats.mlm_total and 0 <= stats.nsp_correct <= stats.nsp_total
    assert len(seen) == 3 and run.step == 3


# --- each setting validated once, at the door (issue 41) ------------------------------------------------------
PROBES = [-0.1, 0.0, 0.15, 0.999, 1.0, 1.5, float("nan"), True]


def accepts(make) -> bool:
    try:
        make()
    except (ValueError, SystemExit):
        return False
    return True


@pytest.mark.parametrize("value", PROBES, ids=repr)
def test_every_door_of_mlm_probability_accepts_the_same_values(value, capsys):
    """The command line, PretrainingConfig, the pretraining collator and mask_tokens check one definition,
    bertedu.core.masking.MASKING_RANGES (the review of 2026-12-06 found [0, 1), > 0 and [0, 1] in five places:
    PretrainingConfig(mlm_probability=1.0) was refused while mask_tokens accepted it). The command line checks
    by building the config (``_settings``)."""
    from bertedu.cli import _settings, build_parser
    from bertedu.core.masking import MASKING_RANGES, mask_tokens
    from bertedu.training.data import PretrainingCollator

    tokenizer = train_tokenizer([[s for s in d.splitlines() if s] for d in CORPUS.split("\n\n")])
    ids = torch.tensor([[2, 5, 6, 7, 3]])
    doors = {
        "config": accepts(lambda: PretrainingConfig(mlm_probability=value)),
        "collator": accepts(lambda: PretrainingCollator(tokenizer, mlm_probability=value)),
        "mask_tokens": accepts(lambda: mask_tokens(ids, tokenizer=tokenizer, mlm_probability=value)),
    }
    if not isinstance(value, bool):  # the command line reads text
        parser = build_parser()
        doors["cli"] = accepts(
            lambda: _settings(parser, parser.parse_args(["--output", "o", "--mlm-probability", str(value)]))
        )
    capsys.readouterr()
    assert set(doors.values()) == {value in MASKING_RANGES["mlm_probability"]}, doors


def test_every_float_flag_parses_with_its_own_fields_range(capsys):
    """The command line's float options take their range from their field (``bounds``): --lr is not parsed as
    a probability, --dropout refuses 1 (its range is [0, 1)) while --mlm-probability takes it."""
    import dataclasses

    from bertedu.cli import _settings, build_parser

    floats = [f for f in dataclasses.fields(PretrainingConfig) if isinstance(f.default, float)]
    assert floats and all("bounds" in f.metadata for f in floats), [f.name for f in floats]
    parser = build_parser()
    ok = lambda *args: accepts(lambda: _settings(parser, parser.parse_args(["--output", "o", *args])))  # noqa: E731
    assert ok("--lr", "0.5") and not ok("--lr", "0") and not ok("--lr", "1")
    assert ok("--mlm-probability", "1") and not ok("--dropout", "1") and ok("--dropout", "0")
    capsys.readouterr()


def test_a_pretraining_config_is_checked_once_and_cannot_change_after():
    import dataclasses

    config = PretrainingConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.steps = 0  # a changed copy goes through the check again: config.replace(steps=...)
    with pytest.raises(ValueError, match="steps must be a positive integer"):
        config.replace(steps=0)


# --- one step for every objective (issue 41) -------------------------------------------------------------------
def test_step_stats_hold_numbers_only():
    """No None for "no NSP" travels through the step's figures, the log window or the DDP wrapper: a step
    without NSP labels counts 0 NSP predictions."""
    import typing

    hints = typing.get_type_hints(pretrain_module.StepStats)
    assert set(hints.values()) <= {float, int}, hints
    window = pretrain_module._Window()
    window.add(pretrain_module.StepStats(loss=2.0, mlm_loss=2.0, mlm_correct=1, mlm_total=4))
    record = window.record(1, 1e-3)
    assert "nsp_loss" not in record and "nsp_accuracy" not in record and record["mlm_accuracy"] == 0.25
    nsp_only = pretrain_module._Window()
    nsp_only.add(pretrain_module.StepStats(loss=0.7, nsp_loss=0.7, nsp_correct=3, nsp_total=4))
    assert set(nsp_only.record(1, 1e-3)) == {"step", "split", "loss", "nsp_loss", "nsp_accuracy", "lr"}


def test_the_log_window_resumes_from_a_checkpoint_of_either_layout():
    """A checkpoint keeps the window as flat sums (older ones wrote ``nsp_loss: None`` for a run without NSP)."""
    window = pretrain_module._Window()
    window.add(pretrain_module.StepStats(1.0, 0.5, 0.5, 1, 2, 1, 2))
    assert pretrain_module._Window.from_state(window.state()).record(2, 0.1) == window.record(2, 0.1)
    old = {"steps": 1, "loss": 1.0, "mlm_loss": 1.0, "nsp_loss": None, "mlm_correct": 1, "mlm_total": 2}
    assert pretrain_module._Window.from_state(old | {"nsp_correct": 0, "nsp_total": 0}).record(1, 0.1) == {
        "step": 1,
        "split": "train",
        "loss": 1.0,
        "mlm_loss": 1.0,
        "mlm_accuracy": 0.5,
        "lr": 0.1,
    }


def test_the_nsp_objective_blanks_the_mlm_labels_and_keeps_the_masked_inputs():
    from bertedu.core.losses import IGNORE_INDEX

    batch = {
        "input_ids": torch.tensor([[2, 4, 7, 3]]),
        "labels": torch.tensor([[-100, 6, -100, -100]]),
        "next_sentence_label": torch.tensor([1]),
    }
    config = PretrainingConfig(objective="nsp", mlm_eval_file=None)
    out = pretrain_module.objective_batch(batch, config)
    assert torch.equal(out["input_ids"], batch["input_ids"]) and (out["labels"] == IGNORE_INDEX).all()
    assert torch.equal(out["next_sentence_label"], batch["next_sentence_label"])
    assert pretrain_module.objective_batch(batch, PretrainingConfig()) is batch  # BERT's batch as it is
    with pytest.raises(ValueError, match="keep next_sentence_prediction"):
        PretrainingConfig(objective="nsp", next_sentence_prediction=False)


def test_a_run_without_nsp_freezes_the_heads_it_never_trains():
    """DDP needs no find_unused_parameters: the parts the objective never trains are frozen (the optimizer keeps
    them, so a checkpoint's layout does not change; a frozen parameter gets no gradient, so AdamW leaves it)."""
    from bertedu.core.config import BertConfig

    model = BertForPreTraining(
        BertConfig(
            vocab_size=20, hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16
        )
    )
    no_nsp = PretrainingConfig(next_sentence_prediction=False)
    parts = pretrain_module.untrained_parts(model, no_nsp)
    assert parts == [model.bert.pooler, model.cls.seq_relationship]
    assert pretrain_module.untrained_parts(model, PretrainingConfig()) == []
    assert (
        pretrain_module.untrained_parts(model, PretrainingConfig(objective="nsp", mlm_eval_file=None)) == []
    )


def test_the_step_notebook_06_shows_knows_no_objective():
    """train_step (show()n in notebook 06) is the same for every objective: the objective changes the batch
    (objective_batch) and the frozen parts, never the step (as core/variants.py does for the forwards)."""
    from bertedu.teaching.show import source_of

    code = source_of(train_step).code.lower()
    words = ("objective", "next_sentence_prediction", "next_sentence_label", "ltr", "ablation", "notebook 10")
    found = [w for w in words if w in code]
    assert not found, found


def test_resume_refuses_a_corpus_that_changed(tiny_run, tmp_path):
    """Mutation review 2026-12-06, N20: a resumed run would silently mix two corpora."""
    from pathlib import Path

    config = tiny_run(steps=4, eval_every=0, mlm_eval_file=None, nsp_eval_file=None)
    pretrain(config, tmp_path / "run", progress=False, stop_after=2)
    corpus = Path(config.corpus)
    corpus.write_text(corpus.read_text(encoding="utf-8").replace("cat", "dog"), encoding="utf-8")
    with pytest.raises(ValueError, match=r"The corpus .* changed since"):
        pretrain(config, tmp_path / "run", resume=True, progress=False)
