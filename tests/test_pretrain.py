"""The pretraining loop (bertedu.pretrain): settings, history, the NaN guard, determinism, resuming."""

import signal
import warnings

import pytest
import torch
from support import CORPUS, same_weights

import bertedu.pretrain as pretrain_module
from bertedu.checkpoint import load_checkpoint
from bertedu.model import BertForPreTraining
from bertedu.optim import TrainingDivergedError
from bertedu.pretrain import PretrainingConfig, TrainingDivergenceWarning, TrainingInterrupted, pretrain
from bertedu.tokenizer import train_tokenizer


# --- settings ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "change, message",
    [
        ({"steps": 0}, "steps must be a positive integer"),
        ({"batch_size": -2}, "batch_size"),
        ({"learning_rate": 0.0}, "learning_rate"),
        ({"model_size": "huge"}, "model_size"),
        ({"max_length": 3}, "max_length"),
        ({"mlm_probability": 0.0}, "mlm_probability"),
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
def test_pretrain_records_history_and_metrics(tiny_run):
    from bertedu.viz import plot_loss_curves

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


def test_pretrain_is_deterministic_and_seed_dependent(tiny_run):
    a = pretrain(tiny_run(eval_every=0), progress=False)
    b = pretrain(tiny_run(eval_every=0), progress=False)
    c = pretrain(tiny_run(eval_every=0, seed=4), progress=False)
    assert same_weights(a.model, b.model) and not same_weights(a.model, c.model)
    assert a.history == b.history


def test_eager_and_fused_attention_train_the_same_function(tiny_run):
    a = pretrain(tiny_run(attn_implementation="eager", dropout=0.0, eval_every=0), progress=False)
    b = pretrain(tiny_run(attn_implementation="sdpa", dropout=0.0, eval_every=0), progress=False)
    wa, wb = a.model.state_dict(), b.model.state_dict()
    assert all(torch.allclose(wa[k], wb[k], atol=1e-4) for k in wa)


def test_nan_loss_stops_with_advice(tiny_run, monkeypatch):
    original = BertForPreTraining.forward

    def poisoned(self, *args, **kwargs):
        out = original(self, *args, **kwargs)
        out.loss = out.loss * float("nan")
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


def test_a_diverged_run_warns_with_what_to_try(tiny_run):
    """The review's #8: lr 0.99 ended far above the loss of an untrained model, silently."""
    with pytest.warns(TrainingDivergenceWarning, match=r"Training diverged.*lower learning rate \(now 0.99"):
        pretrain(
            tiny_run(steps=30, learning_rate=0.99, warmup_steps=0, seed=1, eval_every=0, num_threads=1),
            progress=False,
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error", TrainingDivergenceWarning)  # a healthy run does not warn
        pretrain(tiny_run(steps=30, eval_every=0, seed=1, num_threads=1), progress=False)


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
