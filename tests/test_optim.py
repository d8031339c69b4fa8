"""The shared optimizer and learning-rate schedule (bertedu.training.optim)."""

import copy
import os
import subprocess
import sys
import warnings

import pytest
import torch

from bertedu.training.optim import (
    AdamW,
    TrainingDivergedError,
    TrainingDivergenceWarning,
    linear_schedule,
    make_optimizer,
    optimizer_step,
    warn_if_diverged,
    warn_if_loss_rose,
)


def test_linear_schedule_warms_up_then_decays_to_zero():
    f = linear_schedule(warmup_steps=4, total_steps=10)
    assert [round(f(s), 4) for s in range(11)] == [
        0.25,
        0.5,
        0.75,
        1.0,
        1.0,
        0.8333,
        0.6667,
        0.5,
        0.3333,
        0.1667,
        0.0,
    ]
    assert linear_schedule(0, 5)(0) == 1.0  # no warm-up: start at the peak
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, f)
    lrs = []
    for _ in range(10):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    assert (
        lrs[0] == pytest.approx(0.025)
        and max(lrs) == pytest.approx(0.1)
        and lrs[-1] == pytest.approx(0.1 / 6)
    )


def test_weight_decay_only_on_weight_matrices():
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.LayerNorm(4))
    optimizer, scheduler = make_optimizer(model, lr=0.1, weight_decay=0.01, warmup_steps=2, total_steps=10)
    decay, no_decay = optimizer.param_groups
    assert decay["weight_decay"] == 0.01 and [p.shape for p in decay["params"]] == [(4, 3)]
    assert no_decay["weight_decay"] == 0.0 and len(no_decay["params"]) == 3  # bias, LN weight, LN bias
    assert optimizer.defaults["eps"] == 1e-6 and optimizer.param_groups[0]["lr"] == pytest.approx(0.05)


def test_warn_if_loss_rose_is_the_one_divergence_rule():
    history = [
        {"split": "train", "loss": 2.0},
        {"split": "eval", "loss": 9.0},
        {"split": "train", "loss": 2.2},
    ]

    def fine_tune_like():  # the warning is attributed to the caller of the training function
        return warn_if_loss_rose(history, 2.0, lambda last: f"rose to {last['loss']:.1f}")

    with pytest.warns(TrainingDivergenceWarning, match=r"^rose to 2\.2$") as caught:
        assert fine_tune_like() is True
    assert caught[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error", TrainingDivergenceWarning)
        assert not warn_if_loss_rose(history, 2.01, str)  # 2.2 < 1.1 x 2.01
        assert not warn_if_loss_rose(history, None, str)  # start unknown
        assert not warn_if_loss_rose([{"split": "train", "loss": float("nan")}], 1.0, str)


def test_pretraining_divergence_warning_points_at_the_caller_of_the_loop():
    history = [{"split": "train", "step": 10, "loss": 3.0}, {"split": "train", "step": 20, "loss": 4.0}]

    def pretrain_like():
        warn_if_diverged(history, 50, learning_rate=1e-3, warmup_steps=5, max_grad_norm=1.0)

    with pytest.warns(TrainingDivergenceWarning) as caught:
        pretrain_like()
    assert caught[0].filename == __file__
    assert str(caught[0].message) == (
        "Training diverged: the loss ended at 4.000, 1.3 times where it started (3.000, the mean over the "
        "first 10 steps), so the model is worse than at the start. Try a lower learning rate (now 0.001; e.g. "
        "a tenth of it), a longer warm-up (now 5 steps); plot the loss curves of the run's history to see "
        "where it turned."
    )


@pytest.mark.parametrize("poison", ["loss", "gradient norm"])
def test_optimizer_step_stops_before_the_weights_change(poison):
    """The step both loops end with: a loss or gradient norm that is not finite stops it, untouched weights and
    schedule; otherwise it clips the gradients to max_grad_norm, then AdamW and the schedule take one step."""
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    params = list(model.parameters())
    optimizer, scheduler = make_optimizer(model, lr=0.1, weight_decay=0.01, warmup_steps=2, total_steps=4)
    before = [p.detach().clone() for p in params]
    loss = (model(torch.randn(4, 3)) ** 2).sum() * 100
    loss.backward()
    if poison == "gradient norm":
        params[0].grad[0, 0] = float("inf")
    value = float("nan") if poison == "loss" else loss.item()
    with pytest.raises(TrainingDivergedError, match=f"^{poison} is not finite"):
        optimizer_step(
            optimizer, scheduler, params, 1.0, value, lambda what, v: f"{what} is not finite ({v})"
        )
    assert all(torch.equal(a, p) for a, p in zip(before, params)) and scheduler.last_epoch == 0

    optimizer.zero_grad()
    loss = (model(torch.randn(4, 3)) ** 2).sum() * 100
    loss.backward()  # a gradient norm far above 1
    optimizer_step(optimizer, scheduler, params, 1.0, loss.item(), lambda what, v: "unused")
    assert torch.linalg.vector_norm(torch.cat([p.grad.flatten() for p in params])) == pytest.approx(1.0)
    assert not any(torch.equal(a, p) for a, p in zip(before, params)) and scheduler.last_epoch == 1


def test_a_warm_up_longer_than_the_run_reaches_the_peak_and_ends_at_zero():
    """Mutation review 2026-12-06, N19: PretrainingConfig's default warm-up (100) with --steps 50 would train at
    half the peak at most and end at half the peak, not at 0, if the warm-up were not clamped to the run."""
    f = linear_schedule(warmup_steps=100, total_steps=50)
    assert f(49) == pytest.approx(1.0) and f(50) == 0.0
    assert f(0) == pytest.approx(1 / 50)


def test_max_grad_norm_0_turns_clipping_off():
    """Mutation review 2026-12-06, N18 (caught only by a slow test): ``max_grad_norm=0`` means no clipping, not
    gradients clipped to zero; any other value clips the global norm to it."""
    weights = torch.nn.Parameter(torch.zeros(3))
    for max_grad_norm, expected in ((0.0, [3.0, 4.0, 12.0]), (1.0, [3 / 13, 4 / 13, 12 / 13])):
        weights.grad = torch.tensor([3.0, 4.0, 12.0])  # norm 13
        opt = torch.optim.SGD([weights], lr=0.0)  # lr 0: the step leaves the weights, we read the gradient
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1.0)
        optimizer_step(opt, sched, [weights], max_grad_norm, 1.0, lambda what, value: what)
        assert weights.grad.tolist() == pytest.approx(expected), max_grad_norm


def _twin_models():
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(5, 7), torch.nn.GELU(), torch.nn.LayerNorm(7), torch.nn.Linear(7, 3)
    )
    unused = torch.nn.Linear(2, 2)  # never gets a gradient: no state, no step
    return (model, unused), copy.deepcopy((model, unused))


def _groups(model, unused, weight_decay):
    weights = [p for p in model.parameters() if p.dim() == 2]
    others = [p for p in model.parameters() if p.dim() < 2] + list(unused.parameters())
    return [{"params": weights, "weight_decay": weight_decay}, {"params": others, "weight_decay": 0.0}]


def _train(optimizer, model, steps, seed):
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, linear_schedule(2, steps))
    gen = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        x, y = torch.randn(8, 5, generator=gen), torch.randint(0, 3, (8,), generator=gen)
        optimizer.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer_step(optimizer, scheduler, model.parameters(), 1.0, 0.0, lambda what, value: "")


@pytest.mark.parametrize("weight_decay, torch_class", [(0.01, torch.optim.AdamW), (0.0, torch.optim.Adam)])
def test_adamw_is_pytorchs_to_the_last_bit_and_shares_its_state(weight_decay, torch_class):
    (ours_model, ours_unused), (theirs_model, theirs_unused) = _twin_models()
    ours = AdamW(_groups(ours_model, ours_unused, weight_decay), lr=3e-2, eps=1e-6)
    theirs = torch_class(_groups(theirs_model, theirs_unused, weight_decay), lr=3e-2, eps=1e-6)
    _train(ours, ours_model, 6, seed=1)
    _train(theirs, theirs_model, 6, seed=1)
    for a, b in zip(ours_model.parameters(), theirs_model.parameters()):
        assert torch.equal(a, b), "AdamW's update differs from PyTorch's in its last bits"
    mine, pytorchs = ours.state_dict(), theirs.state_dict()
    assert mine["state"].keys() == pytorchs["state"].keys()  # the unused layer has no state in either
    for key, state in mine["state"].items():
        assert state.keys() == pytorchs["state"][key].keys()
        assert all(torch.equal(state[k], pytorchs["state"][key][k]) for k in state)
        assert state["step"].dtype == pytorchs["state"][key]["step"].dtype
    # each resumes from the other's state_dict, and the two runs stay equal
    ours.load_state_dict(pytorchs)
    theirs.load_state_dict(mine)
    _train(ours, ours_model, 3, seed=2)
    _train(theirs, theirs_model, 3, seed=2)
    assert all(torch.equal(a, b) for a, b in zip(ours_model.parameters(), theirs_model.parameters()))


@pytest.mark.integration
def test_a_process_that_seeds_pretrains_resumes_and_fine_tunes_never_imports_the_compiler(tmp_path):
    """What AdamW and use_deterministic_algorithms are for: PyTorch's optimizers and its
    use_deterministic_algorithms import torch._dynamo (about 1.5 CPU-seconds) in every process that trains or
    seeds; the course's seeding, loops, checkpoints and resume never do, and the compiler, when something loads it,
    is deterministic all the same."""
    code = f"""
import sys
import bertedu, torch
bertedu.set_seed(0)
assert torch.are_deterministic_algorithms_enabled()
from bertedu.course.finetuning import run_course_task
from bertedu.course.pretraining import course_config
from bertedu.training.finetune_data import SEQUENCE_CLASSIFICATION, make_task_datasets
from bertedu.training.pretrain import pretrain

config = course_config(steps=4, checkpoint_every=2, eval_every=0, mlm_eval_file=None, nsp_eval_file=None)
pretrain(config, {str(tmp_path)!r}, progress=False, stop_after=2)
run = pretrain(config, {str(tmp_path)!r}, progress=False, resume=True)
datasets = make_task_datasets(SEQUENCE_CLASSIFICATION, run.tokenizer)
run_course_task(SEQUENCE_CLASSIFICATION, "scratch", run.model, datasets, epochs=1)
print(run.step, "torch._dynamo" in sys.modules)
import torch._inductor.config  # loaded later, the compiler is deterministic too
print(torch._inductor.config.deterministic)
"""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["4", "False", "True"], done.stdout


def test_adamw_refuses_pytorch_options_it_does_not_implement():
    (model, unused), _ = _twin_models()
    theirs = torch.optim.AdamW(model.parameters(), lr=1e-2, amsgrad=True)
    ours = AdamW(model.parameters(), lr=1e-2)
    ours.load_state_dict(theirs.state_dict())  # a checkpoint of PyTorch's AdamW made with amsgrad
    model(torch.randn(2, 5)).sum().backward()
    with pytest.raises(ValueError, match=r"does not implement \['amsgrad'\].*torch.optim.AdamW"):
        ours.step()
