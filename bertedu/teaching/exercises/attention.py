"""Exercises for notebook 01 (self-attention by hand).

- :data:`attention_weights`: compute ``softmax(Q Kᵀ / √d_k)`` for a three-token example (:data:`Q`, :data:`K`).
- :data:`split_heads` (find the bug): a head split that reshapes without moving the head axis.
- :data:`key_mask` (find the bug): a padding mask applied to the queries instead of the keys.

Every exercise is backed by a plain checker function ``check_xxx(answer) -> (passed, message)``.

Introduced in notebook 01.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from bertedu.language import msg, translatable
from bertedu.teaching.exercises.core import (
    Diagnosis,
    Exercise,
    expects_function,
    rounded_decimals,
    rounded_message,
)

# ----------------------------------------------------------------------------------------------------------
# 1. Attention weights of a three-token example

#: Queries of three tokens, d_k = 4 (one row per token).
Q = np.array([[1.0, 0.0, 2.0, 0.0], [0.0, 2.0, 0.0, 0.0], [1.0, 1.0, 0.0, 1.0]])
#: Keys of the same three tokens, d_k = 4. Q Kᵀ is not symmetric, so a softmax over the wrong axis shows.
K = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 2.0, 1.0], [1.0, 0.0, 1.0, 1.0]])


def _softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    z = np.exp(x - x.max(axis=axis, keepdims=True))
    return z / z.sum(axis=axis, keepdims=True)


def _as_array(answer) -> np.ndarray | None:
    """A float64 numpy array from a list, numpy array or tensor; None if that is impossible."""
    if isinstance(answer, torch.Tensor):
        answer = answer.detach().cpu().double().numpy()
    try:
        array = np.asarray(answer, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return array


def reference_attention_weights() -> np.ndarray:
    """``softmax(Q Kᵀ / √d_k)`` over the keys (each row sums to 1), shape (3, 3)."""
    d_k = Q.shape[-1]
    return _softmax(Q @ K.T / math.sqrt(d_k), axis=-1)


def check_attention_weights(answer) -> tuple[bool, str]:
    """Check a (3, 3) matrix of attention weights for :data:`Q` and :data:`K`."""
    weights = _as_array(answer)
    if weights is None or weights.dtype == object:
        return False, msg(
            "expected a (3, 3) array or tensor of numbers, got {type}.", type=type(answer).__name__
        )
    if weights.shape != (3, 3):
        return False, msg(
            "expected shape (3, 3) (one row per query, one column per key), got {shape}. "
            "Q Kᵀ of three tokens is 3 × 3.",
            shape=weights.shape,
        )
    if not np.all(np.isfinite(weights)):
        return False, msg("your matrix contains NaN or inf; softmax of finite scores is always finite.")
    d_k = Q.shape[-1]
    scores = Q @ K.T
    reference = reference_attention_weights()
    close = lambda other: np.allclose(weights, other, atol=1e-3)
    if close(reference):
        return True, msg(
            "each row is one query's distribution over the three keys and sums to 1; "
            "token 0 puts {weight:.2f} of its attention on key {key}.",
            weight=reference[0].max(),
            key=int(reference[0].argmax()),
        )
    decimals = rounded_decimals(weights, reference, atol=1e-3)
    if decimals is not None:
        return False, rounded_message(decimals, atol=1e-3)
    if close(_softmax(scores / math.sqrt(d_k), axis=0)):
        return False, msg(
            "softmax over the wrong axis: your *columns* sum to 1. Each query (row) must "
            "distribute its attention over the keys: normalise along the last axis (axis=-1)."
        )
    if close(_softmax(scores, axis=-1)):
        return False, msg("you forgot the scaling: divide Q Kᵀ by √d_k = 2 before the softmax.")
    if close(_softmax(scores / d_k, axis=-1)):
        return False, msg(
            "you divided by d_k = {d_k}; the formula divides by √d_k = {sqrt_d_k:g}.",
            d_k=d_k,
            sqrt_d_k=math.sqrt(d_k),
        )
    if close(scores / math.sqrt(d_k)) or close(scores):
        return False, msg("these are scores, not weights: apply the softmax to every row.")
    if close(reference.T):
        return False, msg("your matrix is transposed: rows must be queries and columns keys.")
    if close(_softmax(K @ Q.T / math.sqrt(d_k), axis=-1)):
        return False, msg(
            "you computed K Qᵀ; the scores are Q Kᵀ (query i against key j in row i, column j)."
        )
    if np.allclose(weights.sum(axis=-1), 1.0, atol=1e-3):
        return False, msg(
            "your rows sum to 1, so the softmax is right, but the scores are not: "
            "compute Q @ K.T (use the exercise's Q and K), divide by √d_k, then the softmax."
        )
    return False, msg("not yet: compute Q @ K.T, divide by √d_k, then a softmax over each row (axis=-1).")


attention_weights = Exercise(
    name="attention_weights",
    # The library's function computes these weights too: notebook 01 shows its source after this exercise's check.
    answers=("bertedu.core.attention.scaled_dot_product_attention",),
    prompt=translatable(
        "Compute the attention weights softmax(Q Kᵀ / √d_k) for the three tokens whose queries and keys "
        "are `ex.Q` and `ex.K` (numpy arrays, d_k = 4). Answer with a (3, 3) array or tensor "
        "(not rounded, or rounded to at least 3 decimals)."
    ),
    checker=check_attention_weights,
    expected=lambda: reference_attention_weights(),
    hints=[
        translatable(
            "Three steps: `scores = Q @ K.T`, divide by `np.sqrt(d_k)` with `d_k = Q.shape[-1]`, then a softmax."
        ),
        translatable(
            "The softmax normalises each *row* (one query over all keys): `axis=-1`. "
            "`torch.softmax(torch.tensor(x), dim=-1)` works too."
        ),
        translatable(
            "Q Kᵀ here is not symmetric (unlike the 'one cat' example), so the wrong axis gives different numbers."
        ),
    ],
    solution_code="""
Q, K = ex.Q, ex.K
d_k = Q.shape[-1]
scores = Q @ K.T / np.sqrt(d_k)                       # (3, 3): row = query, column = key
weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
weights = weights / weights.sum(axis=-1, keepdims=True)  # every row sums to 1
ex.attention_weights.check(weights)
""",
    points=1,
)


# ----------------------------------------------------------------------------------------------------------
# 2. Find the bug: splitting hidden vectors into heads


def reference_split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """(B, T, H) -> (B, heads, T, H/heads), as ``bertedu.core.attention.BertSelfAttention.split_heads``."""
    B, T, H = x.shape
    return x.view(B, T, num_heads, H // num_heads).transpose(1, 2)


# (B, T, H, heads): T differs from heads in every case, so a missing transpose changes the shape.
_SPLIT_CASES = [(2, 3, 8, 2), (1, 5, 6, 3), (3, 4, 12, 6)]


@expects_function("ex.split_heads.check(split_heads)")
def check_split_heads(fn) -> tuple[bool, str]:
    """Check a function ``fn(x, num_heads)`` that maps ``(B, T, H)`` to ``(B, heads, T, H / heads)``."""
    for B, T, H, A in _SPLIT_CASES:
        d = H // A
        x = torch.arange(B * T * H, dtype=torch.float32).view(B, T, H)
        original = x.clone()
        out = fn(x, A)
        if out is None:
            return False, msg("your function returned None: it must return the split tensor.")
        if not isinstance(out, torch.Tensor):
            return False, msg(
                "your function must return a torch.Tensor, got {type}.", type=type(out).__name__
            )
        if not torch.equal(x, original):
            return False, msg("your function changed its input in place; return a new view instead.")
        expected = reference_split_heads(x, A)
        where = msg("for x of shape {shape} and {A} heads", shape=(B, T, H), A=A)
        if tuple(out.shape) == (B, T, A, d):
            return False, msg(
                "{where} you return shape {shape}: the heads are split but the head axis "
                "was not moved. Attention would then mix the heads of one token instead of the "
                "tokens of one head. Add `.transpose(1, 2)` to get (B, heads, T, head_dim).",
                where=where,
                shape=(B, T, A, d),
            )
        if tuple(out.shape) != (B, A, T, d):
            return (
                False,
                msg(
                    "{where} expected shape (B, heads, T, head_dim) = {expected}, got {shape}.",
                    where=where,
                    expected=(B, A, T, d),
                    shape=tuple(out.shape),
                ),
            )
        if torch.equal(out, x.reshape(B, A, T, d)):
            return False, Diagnosis(
                msg(
                    "{where} the shape is right but the contents are not: 'head 0' holds all features of "
                    "token 0 and the first features of token 1, so the tokens are mixed up.",
                    where=where,
                ),
                msg(
                    "Reshaping (B, T, H) straight to (B, heads, T, head_dim) re-reads the numbers in memory "
                    "order. View as (B, T, heads, head_dim) first, then swap axes 1 and 2."
                ),
            )
        if not torch.equal(out, expected):
            for b in range(B):
                for h in range(A):
                    for t in range(T):
                        if not torch.equal(out[b, h, t], x[b, t, h * d : (h + 1) * d]):
                            return False, msg(
                                "{where} out[{b}, {h}, {t}] should be features {first}..{last} "
                                "of token {t}, i.e. x[{b}, {t}, {first}:{end}].",
                                where=where,
                                b=b,
                                h=h,
                                t=t,
                                first=h * d,
                                last=(h + 1) * d - 1,
                                end=(h + 1) * d,
                            )
    return True, msg(
        "head h of token t holds features h·d … (h+1)·d − 1 of that token, for every shape tested "
        "(the same as BertSelfAttention.split_heads)."
    )


split_heads = Exercise(
    name="split_heads",
    answers=("bertedu.core.attention.BertSelfAttention.split_heads",),
    prompt=(
        "Find the bug: `split_heads(x, num_heads)` must turn hidden vectors (B, T, H) into "
        "(B, heads, T, head_dim) so that head h of token t holds that token's features h·d … (h+1)·d − 1."
    ),
    checker=check_split_heads,
    hints=[
        translatable(
            "Print `x[0]` and `split_heads(x, 2)[0, 0]` for `x = torch.arange(18.).view(1, 3, 6)`. "
            "Does head 0 hold the first 3 features of every token?"
        ),
        translatable(
            "`reshape` never moves numbers: it re-reads them in memory order. The features of one token are "
            "contiguous, so the split must cut the *last* axis: view as (B, T, heads, head_dim)."
        ),
        translatable(
            "After the view, the head axis is at position 2; attention needs it before T: `.transpose(1, 2)`."
        ),
    ],
    solution_code="""
def split_heads(x, num_heads):
    B, T, H = x.shape
    return x.view(B, T, num_heads, H // num_heads).transpose(1, 2)   # (B, heads, T, head_dim)

ex.split_heads.check(split_heads)
""",
    points=1,
)


# ----------------------------------------------------------------------------------------------------------
# 3. Find the bug: the padding mask


def reference_key_mask(attention_mask: torch.Tensor) -> torch.Tensor:
    """(B, T) 1/0 -> (B, 1, 1, T) boolean, True = may attend: ``bertedu.core.attention.build_key_mask``."""
    return attention_mask[:, None, None, :].bool()


def _non_boolean_mask_message(out: torch.Tensor, attention_mask: torch.Tensor) -> str:
    """What to say about a numeric mask: additive 0 / -10000 masks are the other valid convention (Google's BERT
    uses them); a 0/1 mask of numbers would be *added* to the scores and mask nothing."""
    B, T = attention_mask.shape
    if out.is_floating_point() and out.numel() and bool((out <= 0).all()) and float(out.min()) <= -1e4:
        allowed = out == 0
        try:
            right_axis = torch.equal(
                allowed.expand(B, 2, T, T), reference_key_mask(attention_mask).expand(B, 2, T, T)
            )
        except RuntimeError:
            right_axis = False
        where = (
            msg("and it hides exactly the [PAD] keys")
            if right_axis
            else msg("but check its axes: it must hide the [PAD] *keys* (last axis)")
        )
        return msg(
            "that is an additive mask (0 = attend, {masked:.4g} = masked, added to the scores), "
            "{where}. Additive masks are the other valid convention (Google's BERT and older Hugging Face "
            "code add -10000 to the scores), but this exercise asks for the boolean convention of "
            "F.scaled_dot_product_attention and bertedu (True = may attend): return a bool tensor.",
            masked=float(out.min()),
            where=where,
        )
    return msg(
        "the mask must be boolean (True = may attend), got {dtype}. A 0/1 mask of numbers would be "
        "*added* to the scores by F.scaled_dot_product_attention (+1 for real tokens), masking nothing; "
        "convert with `.bool()`.",
        dtype=out.dtype,
    )


@expects_function("ex.key_mask.check(padding_mask)")
def check_key_mask(fn) -> tuple[bool, str]:
    """Check ``fn(attention_mask)``: (B, T) with 1 = real, 0 = [PAD] -> boolean mask over the keys."""
    attention_mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 1, 0, 0, 0]])
    B, T = attention_mask.shape
    heads = 2
    out = fn(attention_mask.clone())
    if out is None:
        return False, msg("your function returned None: it must return the boolean mask.")
    if not isinstance(out, torch.Tensor):
        return False, msg("your function must return a torch.Tensor, got {type}.", type=type(out).__name__)
    if out.dtype != torch.bool:
        return False, _non_boolean_mask_message(out, attention_mask)
    try:
        full = out.expand(B, heads, T, T)  # (B, heads, T_q, T_k)
    except RuntimeError:
        return False, msg(
            "your mask of shape {shape} does not broadcast to the scores' shape "
            "(B, heads, T_q, T_k) = {scores_shape}. Use singleton axes, e.g. (B, 1, 1, T).",
            shape=tuple(out.shape),
            scores_shape=(B, heads, T, T),
        )
    real = attention_mask.bool()
    keys = real[:, None, None, :].expand(B, heads, T, T)
    queries = real[:, None, :, None].expand(B, heads, T, T)
    if torch.equal(full, keys):
        return True, msg(
            "every query may attend to every real key and to no [PAD] key: padding columns get "
            "weight exactly 0 (the same mask as bertedu.core.attention.build_key_mask)."
        )
    if torch.equal(full, queries):
        return False, Diagnosis(
            msg(
                "your mask blocks the [PAD] *rows* (queries) and leaves the [PAD] *columns* (keys) open: real "
                "tokens still attend to [PAD], so their outputs change when padding is added."
            ),
            msg("The mask must cover the keys: put the T axis last, (B, 1, 1, T)."),
        )
    if torch.equal(full, ~keys):
        return False, msg(
            "the mask is inverted: True must mean 'may attend' (real tokens), False the [PAD] keys."
        )
    if torch.equal(full, keys & queries):
        return False, msg(
            "real tokens are right, but you also masked the [PAD] queries: their rows have no "
            "allowed key at all (with -inf scores that row becomes NaN). Mask the keys only; "
            "outputs at [PAD] positions are simply ignored later."
        )
    return False, msg(
        "not yet: entry [b, h, i, j] must be True exactly when token j of sequence b is real "
        "(attention_mask[b, j] == 1), whatever the query i and head h."
    )


key_mask = Exercise(
    name="key_mask",
    answers=("bertedu.core.attention.build_key_mask",),
    prompt=(
        "Find the bug: `padding_mask(attention_mask)` turns a (B, T) padding mask (1 = real token, "
        "0 = [PAD]) into a boolean mask for scores of shape (B, heads, T_q, T_k). No real token may "
        "attend to a [PAD] token."
    ),
    checker=check_key_mask,
    hints=[
        translatable(
            "In the scores (B, heads, T_q, T_k), which axis indexes the [PAD] *keys* that must get weight 0?"
        ),
        translatable(
            "The mask's T axis must line up with the last axis of the scores: shape (B, 1, 1, T), "
            "not (B, 1, T, 1)."
        ),
    ],
    solution_code="""
def padding_mask(attention_mask):
    return attention_mask[:, None, None, :].bool()   # (B, 1, 1, T_k): broadcast over heads and queries

ex.key_mask.check(padding_mask)
""",
    points=1,
)

__all__ = [
    "K",
    "Q",
    "attention_weights",
    "check_attention_weights",
    "check_key_mask",
    "check_split_heads",
    "key_mask",
    "reference_attention_weights",
    "reference_key_mask",
    "reference_split_heads",
    "split_heads",
]
