"""The shared optimizer and learning-rate schedule (bertedu.optim)."""

import pytest
import torch

from bertedu.optim import linear_schedule, make_optimizer


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
