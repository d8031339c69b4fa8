"""Helpers for the "write the module" exercises: build the student's ``nn.Module`` class, give it the same
weights as the package's module (by Hugging Face's parameter names), and run both on the same inputs.

A checker built on these says what is wrong in the student's terms: a missing or misnamed parameter, a
module that is not an ``nn.Module``, an output of the wrong type or shape. The comparisons themselves (which
mistake gives which output) live in the topic modules next to each exercise.

Used by the exercises of notebooks 02 to 06 and the capstone (notebook 11).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torch
from torch import nn

from bertedu.language import listing, msg


class ModuleProblem(Exception):
    """Raised inside a checker to stop with one message for the student (caught by :func:`run_checks`)."""


def run_checks(steps: Callable[[], tuple[bool, str]]) -> tuple[bool, str]:
    """Run a checker body; a :class:`ModuleProblem` becomes ``(False, its message)``."""
    try:
        return steps()
    except ModuleProblem as problem:
        return False, str(problem)


def build(cls: Any, *args: Any, example: str) -> nn.Module:
    """``cls(*args)`` for the student's class, or a :class:`ModuleProblem` that says what to pass.

    ``example`` is the right call, e.g. ``"ex.multi_head_attention.check(MultiHeadSelfAttention)"``. A
    ``NotImplementedError`` from the stub propagates (``Exercise.check`` reports "not attempted yet").
    """
    if isinstance(cls, nn.Module):
        raise ModuleProblem(
            msg(
                "pass your class itself, e.g. `{example}`, not an instance of it (the checker builds its own "
                "with the test configuration).",
                example=example,
            )
        )
    if not inspect.isclass(cls):
        raise ModuleProblem(
            msg("pass your class, e.g. `{example}`, not a {type}.", example=example, type=type(cls).__name__)
        )
    module = cls(*args)
    if not isinstance(module, nn.Module):
        raise ModuleProblem(
            msg(
                "{name} must be an nn.Module: write `class {name}(nn.Module):` and call "
                "`super().__init__()` first in __init__.",
                name=cls.__name__,
            )
        )
    return module


def copy_weights(reference: nn.Module | dict, student: nn.Module, *, names_hint: str) -> None:
    """Load the reference's parameters into ``student`` by name (exact Hugging Face names), or raise a
    :class:`ModuleProblem` naming the missing, unexpected or wrongly shaped parameters.

    ``names_hint`` tells the student which names are expected, e.g. ``"query, key, value: nn.Linear(H, H)"``.
    """
    state = reference.state_dict() if isinstance(reference, nn.Module) else reference
    theirs = student.state_dict()
    missing = [k for k in state if k not in theirs]
    unexpected = [k for k in theirs if k not in state]
    if missing or unexpected:
        parts = []
        if missing:
            parts.append(
                msg(
                    "missing {names}{more}",
                    names=listing(missing[:6]),
                    more=" ..." if len(missing) > 6 else "",
                )
            )
        if unexpected:
            parts.append(
                msg(
                    "unexpected {names}{more}",
                    names=listing(unexpected[:6]),
                    more=" ..." if len(unexpected) > 6 else "",
                )
            )
        raise ModuleProblem(
            msg(
                "your module's parameters do not have Hugging Face's names ({problems}). "
                "Expected: {names_hint}. The names matter: they let a BERT checkpoint load into your module.",
                problems=msg("; ").join(parts),
                names_hint=names_hint,
            )
        )
    for key, value in state.items():
        if tuple(theirs[key].shape) != tuple(value.shape):
            raise ModuleProblem(
                msg(
                    "`{key}` has shape {shape}, expected {expected}. Expected: {names_hint}.",
                    key=key,
                    shape=tuple(theirs[key].shape),
                    expected=tuple(value.shape),
                    names_hint=names_hint,
                )
            )
    with torch.no_grad():
        student.load_state_dict({k: v.detach().clone() for k, v in state.items()}, strict=True)


def output_tensor(out: Any, what: str, shape: tuple[int, ...]) -> torch.Tensor:
    """Check that a forward returned one tensor of ``shape`` (else raise a :class:`ModuleProblem`)."""
    if out is None:
        raise ModuleProblem(
            msg("forward returned None: it must return {what}, shape {shape}.", what=what, shape=shape)
        )
    if isinstance(out, tuple):
        raise ModuleProblem(
            msg(
                "forward returned a tuple of {n_out}; return only {what} (one tensor of shape {shape}).",
                n_out=len(out),
                what=what,
                shape=shape,
            )
        )
    if not isinstance(out, torch.Tensor):
        raise ModuleProblem(
            msg(
                "forward must return a torch.Tensor ({what}), got {type}.", what=what, type=type(out).__name__
            )
        )
    if tuple(out.shape) != tuple(shape):
        raise ModuleProblem(
            msg(
                "forward returned shape {got}; {what} has shape {shape}.",
                got=tuple(out.shape),
                what=what,
                shape=shape,
            )
        )
    return out


def close(a: torch.Tensor, b: torch.Tensor, atol: float = 1e-5) -> bool:
    """Same shape and equal within ``atol`` (and 1e-4 relative), compared in float64."""
    return a.shape == b.shape and torch.allclose(a.double(), b.double(), atol=atol, rtol=1e-4)


@contextmanager
def seeded(seed: int) -> Iterator[None]:
    """Run the block with torch's global generator at ``seed`` (dropout draws from it), then put the
    notebook's random state back, so a check never changes what the student's later cells draw."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


def random_init(module: nn.Module, seed: int, std: float = 0.5) -> nn.Module:
    """Give every parameter of ``module`` random values (LayerNorm weights around 1), so that a forgotten
    bias or a wrong scale cannot hide behind zeros and ones. Returns the module."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, param in module.named_parameters():
            noise = torch.randn(param.shape, generator=gen, dtype=param.dtype)
            if "LayerNorm.weight" in name:
                param.copy_(1 + 0.2 * noise)
            else:
                param.copy_(std * noise)
    return module
