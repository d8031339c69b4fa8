"""The shared optimizer and learning-rate schedule (bertedu.training.optim)."""

import warnings

import pytest
import torch

from bertedu.training.optim import (
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
