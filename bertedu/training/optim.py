"""The optimizer both training loops use: AdamW with BERT's settings and a linear warm-up / linear decay.

BERT (Devlin et al. 2019, Appendix A.2) trains with Adam, β₁ = 0.9, β₂ = 0.999, L2 weight decay 0.01,
a learning rate warmed up linearly over the first steps and then decayed linearly to 0. Google's code uses
decoupled weight decay (AdamW) on weight matrices only, ε = 1e-6 — as here. Pretraining
(:mod:`bertedu.training.pretrain`, notebook 06) and fine-tuning (:mod:`bertedu.training.finetune`, notebook 07) share it, and
the end of every step (:func:`optimizer_step`: clipping, the check that loss and gradients are numbers, AdamW
and schedule step) and what both say when training goes wrong: :class:`TrainingDivergedError` (a loss or
gradient that is not a number) and :class:`TrainingDivergenceWarning` (a finished run whose loss ended far
above its start, one rule: :func:`warn_if_loss_rose`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import torch


class TrainingDivergedError(FloatingPointError):
    """The loss or the gradients became NaN or infinite, so training stopped (both loops raise it).

    Introduced in notebook 06.
    """


class TrainingDivergenceWarning(RuntimeWarning):
    """A finished run's loss ended far above where it started (pretraining or fine-tuning): the weights are
    worse than at the start, usually because the learning rate is too high. Introduced in notebook 06."""


#: A finished run whose last logged training loss is this many times where it started (or more) has diverged.
DIVERGENCE_RATIO = 1.1


def divergence_message(step: int, what: str, out) -> str:
    """Why a pretraining step stopped: ``what`` (the loss, the gradient norm) is not finite at step ``step + 1``;
    ``out`` has the step's ``mlm_loss`` and ``nsp_loss`` (numbers, tensors or ``None``; a loss whose
    ``mlm_total``/``nsp_total`` is 0 was not trained and is left out). For :func:`optimizer_step`:
    ``lambda what, value: divergence_message(step, what, out)``."""
    parts = ", ".join(
        f"{name}={float(getattr(out, name)):.4g}"
        for name in ("mlm_loss", "nsp_loss")
        if getattr(out, name) is not None and getattr(out, name.replace("_loss", "_total"), None) != 0
    )
    return (
        f"Training diverged at step {step + 1}: the {what} is not finite ({parts}). Stopped before updating "
        "the weights. Try a lower learning rate (e.g. half of it), a longer warm-up, gradient clipping "
        "(max_grad_norm=1.0), and check the data (empty or very long lines, a tokenizer that turns "
        "everything into [UNK])."
    )


def warn_if_diverged(
    history: list[dict], vocab_size: int, *, learning_rate: float, warmup_steps: int, max_grad_norm: float
) -> None:
    """Warn (:class:`TrainingDivergenceWarning`, attributed to the caller of the caller) if the last training
    loss of a pretraining ``history`` is ``DIVERGENCE_RATIO`` times where the run started or more: the lower of
    the first logged loss and ``ln V + ln 2``, the loss of an untrained BERT (it guesses uniformly)."""
    train = [r for r in history if r.get("split", "train") == "train"]
    if not train:
        return
    chance = math.log(vocab_size) + math.log(2)
    first = train[0]["loss"]
    start = min(first, chance)
    where = (
        f"{chance:.3f}, the loss of an untrained model, which guesses uniformly"
        if start == chance
        else f"{first:.3f}, the mean over the first {train[0]['step']} steps"
    )
    clipping = (
        f" and gradient clipping (max_grad_norm=1.0, now {max_grad_norm:g})"
        if not 0 < max_grad_norm <= 1.0
        else ""  # already clipped as BERT does: nothing to suggest there
    )
    warn_if_loss_rose(
        history,
        start,
        lambda last: (
            f"Training diverged: the loss ended at {last['loss']:.3f}, {last['loss'] / start:.1f} times "
            f"where it started ({where}), so the model is worse than at the start. Try a lower learning rate "
            f"(now {learning_rate:g}; e.g. a tenth of it), a longer warm-up (now {warmup_steps} steps)"
            f"{clipping}; plot the loss curves of the run's history to see where it turned."
        ),
        stacklevel=4,
    )


def warn_if_fine_tuning_diverged(
    history: list[dict],
    first_loss: float | None,
    *,
    learning_rate: float,
    warmup_ratio: float,
    max_grad_norm: float,
    best_epoch: int | None,
) -> None:
    """Warn (:class:`TrainingDivergenceWarning`, attributed to the caller of the caller) if the last training
    loss of a fine-tuning ``history`` is ``DIVERGENCE_RATIO`` times ``first_loss`` (the loss before any update)
    or more: the learning rate is too high. ``best_epoch``: the dev epoch whose weights were kept, if any.
    """
    kept = f" The weights of the best dev epoch ({best_epoch}) were kept." if best_epoch else ""
    warn_if_loss_rose(
        history,
        first_loss,
        lambda last: (
            f"Fine-tuning diverged: the training loss ended at {last['loss']:.3f} (epoch {last['epoch']}), "
            f"above the {first_loss:.3f} it started from, so the model got worse.{kept} Try a lower learning "
            f"rate (now {learning_rate:g}; the paper uses 2e-5 to 5e-5 for BERT-base), a warm-up (warmup_ratio, "
            f"now {warmup_ratio:g}) and gradient clipping (max_grad_norm=1.0, now {max_grad_norm:g})."
        ),
        stacklevel=4,
    )


def warn_if_loss_rose(
    history: list[dict], start: float | None, message: Callable[[dict], str], *, stacklevel: int = 3
) -> bool:
    """The one divergence rule of both loops: if the last training record of ``history`` has a loss of
    ``DIVERGENCE_RATIO`` times ``start`` or more, warn :class:`TrainingDivergenceWarning` with
    ``message(last record)`` (attributed ``stacklevel`` frames up) and return ``True``. ``start`` is where
    the run began (``None``: unknown, no warning)."""
    train = [r for r in history if r.get("split", "train") == "train"]
    if start is None or not train or not train[-1]["loss"] >= DIVERGENCE_RATIO * start:
        return False
    warnings.warn(message(train[-1]), TrainingDivergenceWarning, stacklevel=stacklevel)
    return True


def optimizer_step(
    optimizer: torch.optim.Optimizer,
    scheduler,
    params,
    max_grad_norm: float,
    loss: float,
    diverged: Callable[[str, float], str],
) -> None:
    """The end of every training step of both loops, after the backward pass: clip the gradients of ``params``
    to ``max_grad_norm`` (0: no clipping), then the AdamW step and the learning-rate schedule step.

    Before the weights change it raises ``TrainingDivergedError(diverged(what, value))`` if ``loss`` (the
    step's loss, a float) or the gradient norm is not finite (``what``: ``"loss"`` or ``"gradient norm"``).
    """
    if not math.isfinite(loss):
        raise TrainingDivergedError(diverged("loss", loss))
    if max_grad_norm > 0:
        norm = torch.nn.utils.clip_grad_norm_(params, max_grad_norm)
        if not torch.isfinite(norm):
            raise TrainingDivergedError(diverged("gradient norm", float(norm)))
    optimizer.step()
    scheduler.step()


def linear_schedule(warmup_steps: int, total_steps: int) -> Callable[[int], float]:
    """The learning-rate factor of step ``s``: ``(s + 1) / warmup`` while warming up, then a straight line
    down to 0 at ``total_steps``. For ``torch.optim.lr_scheduler.LambdaLR``.

    (The ``+ 1`` makes the very first step use a small non-zero learning rate instead of wasting a batch.)
    """
    warmup_steps = min(warmup_steps, total_steps)

    def factor(step: int) -> float:
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        return max(0.0, (total_steps - step) / max(1, total_steps - warmup_steps))

    return factor


def _plain(method):
    """``method`` without the wrapper PyTorch puts around some of its optimizers' methods, which imports
    ``torch._dynamo`` on the first call (see :class:`AdamW`)."""
    return getattr(method, "__wrapped__", method)


class AdamW(torch.optim.AdamW):
    """``torch.optim.AdamW``, with the update written out here: the same settings, state and ``state_dict``
    (each loads the other's), and the same weights to the last bit, because the operations are PyTorch's own
    (``torch/optim/adam.py``), in its order. Weight decay 0 makes it Adam.

    Why not PyTorch's class itself: the first time a process builds or steps one of PyTorch's optimizers,
    PyTorch imports its compiler (``torch._dynamo``, with sympy: about 1.5 CPU-seconds) only to mark where the
    step begins and ends for ``torch.compile``. Every process that trains paid it: each notebook kernel, side run,
    command line and test. This class never imports it. Introduced in notebook 06.
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay=1e-2):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)

    add_param_group = _plain(torch.optim.Optimizer.add_param_group)
    zero_grad = _plain(torch.optim.Optimizer.zero_grad)
    state_dict = _plain(torch.optim.Optimizer.state_dict)
    load_state_dict = _plain(torch.optim.Optimizer.load_state_dict)

    @torch.no_grad()
    def step(self, closure=None):
        """One AdamW update of every parameter that has a gradient; ``closure`` as in PyTorch."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if not params:
                continue
            unsupported = [
                k for k in ("amsgrad", "maximize", "capturable", "differentiable", "fused") if group.get(k)
            ]
            if unsupported:  # e.g. from a state_dict of PyTorch's AdamW made with them
                raise ValueError(
                    f"bertedu's AdamW does not implement {unsupported}: use torch.optim.AdamW for that optimizer."
                )
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            states = [self._state(p) for p in params]
            grads = [p.grad for p in params]
            m, v = [s["exp_avg"] for s in states], [s["exp_avg_sq"] for s in states]
            steps = [s["step"] for s in states]
            torch._foreach_add_(steps, 1)
            if group["weight_decay"] != 0:
                torch._foreach_mul_(params, 1 - lr * group["weight_decay"])  # decoupled: w <- w - lr*λ*w
            torch._foreach_lerp_(m, grads, 1 - beta1)  # m <- β1 m + (1 - β1) g
            torch._foreach_mul_(v, beta2)  # v <- β2 v + (1 - β2) g²
            torch._foreach_addcmul_(v, grads, grads, 1 - beta2)
            t = [s.item() for s in steps]
            step_sizes = [-(lr / (1 - beta1**n)) for n in t]  # lr / (1 - β1^t): m's bias correction
            denom = torch._foreach_sqrt(v)  # √(v / (1 - β2^t)) + ε
            torch._foreach_div_(denom, [(1 - beta2**n) ** 0.5 for n in t])
            torch._foreach_add_(denom, eps)
            torch._foreach_addcdiv_(params, m, denom, step_sizes)  # w <- w - step_size * m / denom
        return loss

    def _state(self, p: torch.Tensor) -> dict:
        """``p``'s state, started as PyTorch starts it: the step count a tensor on the CPU (float64 only if that is
        the default dtype), the two moving averages zeros shaped like ``p``."""
        state = self.state[p]
        if not state:
            dtype = torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32
            state["step"] = torch.tensor(0.0, dtype=dtype)
            state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        return state


def make_optimizer(
    model: torch.nn.Module, *, lr: float, weight_decay: float, warmup_steps: int, total_steps: int
) -> tuple[torch.optim.Optimizer, torch.optim.lr_scheduler.LambdaLR]:
    """:class:`AdamW` (β = 0.9, 0.999; ε = 1e-6 as BERT) with weight decay on weight matrices only (not on
    biases and LayerNorm weights), and :func:`linear_schedule`. Returns ``(optimizer, scheduler)``.
    """
    decay, no_decay = [], []
    for name, param in model.named_parameters():  # a tied Parameter appears once
        if param.requires_grad:
            (no_decay if param.dim() < 2 or "LayerNorm" in name else decay).append(param)
    groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    optimizer = AdamW(groups, lr=lr, betas=(0.9, 0.999), eps=1e-6)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, linear_schedule(warmup_steps, total_steps))
    return optimizer, scheduler
