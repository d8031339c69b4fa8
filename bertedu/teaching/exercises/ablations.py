"""Exercises for notebook 10 (ablations): build one switch yourself, then design an ablation of your own.

- :data:`causal_mask`: write ``causal_mask(T)``, the ``(1, 1, T, T)`` boolean mask of the left-to-right variant,
  checked by what it is for: on random inputs, changing the tokens from a position on never changes the outputs
  before it, and every token still sees itself.
- :data:`own_ablation`: choose one setting of notebook 06's recipe to change; the check accepts a config that
  differs from ``ablation_config("bert")`` in exactly one setting of the model or the objective.

Each exercise wraps a plain checker ``check_xxx(answer) -> (passed, message)`` that the unit tests call; the
reference is the package's :func:`bertedu.core.attention.build_causal_mask`. Introduced in notebook 10.
"""

from __future__ import annotations

import dataclasses

import torch

from bertedu.core.attention import build_causal_mask, scaled_dot_product_attention
from bertedu.language import listing, msg, translatable, translate
from bertedu.teaching.exercises.core import Exercise, expects_function
from bertedu.training.pretrain import PretrainingConfig

__all__ = ["causal_mask", "check_causal_mask", "check_own_ablation", "own_ablation"]

_LENGTHS = (1, 2, 5, 9)  # the sizes the student's mask is built for


def _future_changes_the_past(mask: torch.Tensor, T: int) -> int | None:
    """The first position whose output changes when the tokens from ``T // 2`` on change (None: none does), for
    attention with ``mask`` over random queries, keys and values (2 heads of 4 features)."""
    g = torch.Generator().manual_seed(T)
    q, k, v = (torch.randn(1, 2, T, 4, generator=g) for _ in range(3))
    before, _ = scaled_dot_product_attention(q, k, v, mask)
    cut = T // 2
    k2, v2 = k.clone(), v.clone()
    k2[..., cut:, :] += torch.randn(k2[..., cut:, :].shape, generator=g)
    v2[..., cut:, :] += torch.randn(v2[..., cut:, :].shape, generator=g)
    after, _ = scaled_dot_product_attention(q, k2, v2, mask)
    changed = (before - after).abs().amax(dim=(0, 1, 3))[:cut] > 1e-6  # (cut,) positions before the change
    return int(changed.nonzero()[0]) if bool(changed.any()) else None


def _mask_problem(out, T: int) -> str | None:
    """What is wrong with ``out = causal_mask(T)`` as a value (type, shape, dtype), or None."""
    if not isinstance(out, torch.Tensor):
        return msg("`causal_mask({T})` returned {type}; return a torch tensor.", T=T, type=type(out).__name__)
    if tuple(out.shape) != (1, 1, T, T):
        return msg(
            "`causal_mask({T})` has shape {shape}; it must be (1, 1, {T}, {T}): one row per query, one column per "
            "key, and two leading axes of size 1 that broadcast over the batch and the heads.",
            T=T,
            shape=tuple(out.shape),
        )
    if out.dtype != torch.bool:
        return msg(
            "`causal_mask({T})` has dtype {dtype}; make it boolean (True = may attend), e.g. with `.bool()`. A "
            "0/1 mask of numbers is not a mask: attention would add it to the scores.",
            T=T,
            dtype=out.dtype,
        )
    return None


@expects_function("ex.causal_mask.check(causal_mask)")
def check_causal_mask(causal_mask) -> tuple[bool, str]:
    """The student's ``causal_mask(T)`` against :func:`build_causal_mask`, by its purpose (future-token invariance)."""
    for T in _LENGTHS:
        out = causal_mask(T)
        problem = _mask_problem(out, T)
        if problem:
            return False, problem
        if not bool(out.any(dim=-1).all()) or not bool(torch.diagonal(out[0, 0]).all()):
            return False, msg(
                "a token cannot attend to itself in your mask (its diagonal is False); the first token then "
                "attends to nothing and its weights are NaN. Keep the diagonal: query i may see keys j <= i."
            )
        leak = _future_changes_the_past(out, T)
        if leak is not None:
            upper = torch.equal(out, build_causal_mask(T).transpose(-1, -2))
            return False, msg(
                "with your mask, changing the tokens from position {cut} on changed the output at position "
                "{leak}: a token can see later tokens.{why}",
                cut=T // 2,
                leak=leak,
                why=msg(
                    " Your mask is upper-triangular: rows are queries and columns keys, so query i must see "
                    "the columns j <= i, the lower triangle (`tril`)."
                )
                if upper
                else "",
            )
        if not torch.equal(out, build_causal_mask(T)):
            return False, msg(
                "no token sees the future, but some token cannot see an earlier one: a left-to-right model "
                "reads everything before the token and the token itself (the whole lower triangle)."
            )
    return True, msg(
        "the lower triangle with its diagonal; changing later tokens never changed an earlier output "
        "(checked on random inputs), which is the whole point of the left-to-right variant."
    )


causal_mask = Exercise(
    "causal_mask",
    translatable(
        "Write `causal_mask(T)`: the (1, 1, T, T) boolean mask of the left-to-right variant, True where "
        "query i may attend to key j."
    ),
    check_causal_mask,
    hints=[
        translatable(
            "Rows are queries, columns keys: query i may attend to keys 0, 1, ..., i (itself included)."
        ),
        translatable(
            "`torch.ones(T, T, dtype=torch.bool).tril()` is that lower triangle; add two leading axes."
        ),
    ],
    solution_code="""\
def causal_mask(T):
    mask = torch.ones(T, T, dtype=torch.bool).tril()   # (T, T): query i sees keys j <= i
    return mask[None, None]                               # (1, 1, T, T): broadcasts over batch and heads

ex.causal_mask.check(causal_mask)
""",
    answers=("bertedu.core.attention.build_causal_mask",),
)


# ------------------------------------------------------------------------------------------------------
# 2. An ablation of your own.
# ------------------------------------------------------------------------------------------------------
#: Settings that are not part of the design: the budget, the randomness and the bookkeeping.
_NOT_DESIGN = {
    "seed": translatable("a different seed is a second run of the same recipe, not an ablation"),
    "steps": translatable("the budget is shared by every variant, so that only the design differs"),
    "batch_size": translatable("the budget is shared by every variant, so that only the design differs"),
}


def check_own_ablation(config, reference) -> tuple[bool, str]:
    """A :class:`PretrainingConfig` that differs from ``reference`` (notebook 10 passes ``ablation_config("bert")``)
    in exactly one setting of the model or the objective."""
    if not isinstance(config, PretrainingConfig):
        return False, msg(
            'give a PretrainingConfig, e.g. `ablation_config("bert").replace(dropout=0.1)`, not {type}.',
            type=type(config).__name__,
        )
    if not isinstance(reference, PretrainingConfig):
        return False, msg(
            'pass the reference too: `ex.own_ablation.check(my_config, ablation_config("bert"))`.'
        )
    changed = [
        f.name
        for f in dataclasses.fields(PretrainingConfig)
        if getattr(config, f.name) != getattr(reference, f.name)
    ]
    if not changed:
        return False, msg("your config equals the reference: change one setting (and only one).")
    if len(changed) > 1:
        return False, msg(
            "your config changes {n} settings ({names}): an ablation changes one thing, so that whatever "
            "differs can be traced back to it. Keep one.",
            n=len(changed),
            names=listing(changed),
        )
    name = changed[0]
    if name in _NOT_DESIGN:
        return False, msg(
            "you changed `{name}`: {why}. Change the model or the objective instead.",
            name=name,
            why=translate(_NOT_DESIGN[name]),
        )
    return True, msg(
        "one setting changed, `{name}` = {value!r} (the reference: {before!r}). Write down your "
        "prediction before you run it.",
        name=name,
        value=getattr(config, name),
        before=getattr(reference, name),
    )


own_ablation = Exercise(
    "own_ablation",
    translatable(
        'Design an ablation of your own: `my_config = ablation_config("bert").replace(...)` with exactly one '
        "setting of the model or the objective changed."
    ),
    check_own_ablation,
    hints=[
        translatable(
            "`PretrainingConfig` lists the settings: e.g. `dropout`, `mlm_probability`, `mask_replace_prob`, "
            "`position_embedding_type`, `model_size`."
        ),
        translatable("The seed and the budget (`steps`, `batch_size`) stay: every variant shares them."),
    ],
    solution_code="""\
my_config = ablation_config("bert").replace(mlm_probability=0.2)   # one change: mask 20 % instead of 30 %

ex.own_ablation.check(my_config, ablation_config("bert"))
""",
)
