"""Exercises for notebook 08 (attention heatmaps): two head statistics written by hand.

- :data:`previous_token_share`: write the statistic that finds "previous-token heads", the mean of
  ``attn[i, i-1]`` over the query positions ``i >= 1`` of one head's (T, T) matrix.
- :data:`fix_head_entropy` (find the bug): a mean row entropy that sums ``a ln a`` down the columns instead
  of along the rows (the attention cousin of "softmax over the wrong axis").

Both are checked against the package's own statistics, :func:`bertedu.teaching.viz.head_statistics` (columns
``previous`` and ``entropy``), on hand-built and random matrices. In the notebook::

    from bertedu.teaching.exercises import attention_maps as ex
    ex.previous_token_share.check(previous_token_share)   # a function attn (T, T) -> one number
    ex.fix_head_entropy.check(head_entropy)               # a function (attn (T, T), attention_mask (T,)) -> number

The plain checkers (``check_previous_token_share``, ``check_fix_head_entropy``) return ``(passed, message)``,
never raise on a wrong answer, and are what the unit tests call.

Introduced in notebook 08.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np

from bertedu.language import msg, translatable, translate
from bertedu.teaching.exercises.core import Diagnosis, Exercise, expects_function
from bertedu.teaching.viz.stats import head_statistics

# ----------------------------------------------------------------------------------------------------------
# shared helpers


def _labels(T: int) -> list[str]:
    """Plain token labels for ``head_statistics`` (no [CLS]/[SEP]/[PAD]: only the matrix matters here)."""
    return [f"t{i}" for i in range(T)]


def _close(a: float, b: float) -> bool:
    return bool(np.isclose(a, b, rtol=1e-5, atol=1e-6))


def _call(fn: Callable, *args) -> tuple[object, str | None]:
    """``fn(*args)`` on copies of the arguments; (result, None) or (None, message naming the exception)."""
    copies = [np.array(a, copy=True) for a in args]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            out = fn(*copies)
    except NotImplementedError:  # the student edition's stub: Exercise.check says "not attempted yet"
        raise
    except Exception as exc:  # the student's code failed: report it, never propagate
        T = args[0].shape[-1]
        return None, msg(
            "your function raised {type}: {exc} when called on a ({T}, {T}) NumPy "
            "array of float64 (a NumPy array, not a torch tensor). Fix that error first, then check "
            "again.",
            type=type(exc).__name__,
            exc=exc,
            T=T,
        )
    if any(not np.array_equal(c, a) for c, a in zip(copies, args)):
        return None, msg(
            "your function changed its input in place; compute the statistic without writing into "
            "`attn` (a notebook would then show a different matrix than the model produced)."
        )
    return out, None


def _as_number(
    out, T: int, n_rows: int, what: str, nan_message: str | None = None
) -> tuple[float | None, str | None]:
    """The student's return value as a float, or a message saying why it is not one number."""
    if out is None:
        return None, msg("your function returned None: end it with `return ...` (one number).")
    if isinstance(out, (str, bytes, dict)):
        return None, msg(
            "your function must return one number ({what}), got {type}.", what=what, type=type(out).__name__
        )
    try:
        if hasattr(out, "detach"):  # a torch tensor
            out = out.detach().cpu().double().numpy()
        array = np.asarray(out, dtype=np.float64)
    except Exception:  # whatever the object is, it is not a number: say so, never raise
        return None, msg(
            "your function must return one number ({what}), got {type}.", what=what, type=type(out).__name__
        )
    if array.size != 1:
        if array.ndim == 1 and array.size in {n_rows, T}:
            return None, msg(
                "your function returned {size} numbers, one per row; {what} is their "
                "*mean*: add `.mean()` so that it returns one number.",
                size=array.size,
                what=what,
            )
        return None, msg(
            "your function must return one number ({what}), got an array of shape {shape}.",
            what=what,
            shape=array.shape,
        )
    value = float(array.reshape(()))
    if math.isnan(value) and nan_message:
        return None, nan_message
    if not math.isfinite(value):
        return None, msg("your function returned {value}, not a finite number.", value=value)
    return value, None


def _diagnose(values: list[float], variants: dict[str, tuple[list[float], str]]) -> str | None:
    """The message of the first mistake that reproduces the student's value on every test matrix."""
    for expected, message in variants.values():
        if all(_close(v, e) for v, e in zip(values, expected)):
            return message
    return None


# ----------------------------------------------------------------------------------------------------------
# 1. Write it: the previous-token share


def reference_previous_token_share(attn) -> float:
    """Mean of ``attn[i, i-1]`` over ``i = 1 .. T-1`` for one head's (T, T) matrix, computed by the package.

    It is ``viz.head_statistics``' ``previous`` column for one sequence without padding.
    """
    a = np.asarray(attn, dtype=np.float64)  # (T, T)
    return head_statistics(a[None, None], _labels(a.shape[-1]))[0]["previous"]


def previous_token_cases() -> list[tuple[str, np.ndarray]]:
    """The test matrices: (description, (T, T) attention with rows summing to 1)."""
    rng = np.random.default_rng(8)
    T = 6
    shift = np.zeros((T, T))
    shift[0, 0] = 1.0  # [CLS] has no previous token: it looks at itself
    shift[np.arange(1, T), np.arange(T - 1)] = 1.0  # query i -> key i-1
    T = 5
    nxt = np.zeros((T, T))
    nxt[np.arange(T - 1), np.arange(1, T)] = 1.0  # query i -> key i+1
    nxt[-1, -1] = 1.0
    T = 7
    noisy = 0.6 * np.eye(T, k=-1) + 0.4 * rng.dirichlet(np.ones(T), size=T)  # a noisy previous-token head
    noisy[0] = rng.dirichlet(np.ones(T))  # row 0 has no previous token
    random = rng.dirichlet(np.full(9, 0.5), size=9)  # (9, 9): no pattern at all
    return [
        (
            msg("a perfect previous-token head (row i puts all its weight on token i-1, row 0 on itself)"),
            shift,
        ),
        (msg("a perfect next-token head (row i puts all its weight on token i+1)"), nxt),
        (msg("a noisy previous-token head"), noisy),
        (msg("a random head"), random),
    ]


def _previous_token_mistakes(cases) -> dict[str, tuple[list[float], str]]:
    """The typical wrong answers of :func:`check_previous_token_share`: for each, its value on every test
    matrix of ``cases`` and the message that names the mistake."""
    below = [np.diagonal(a, offset=-1) for _, a in cases]  # attn[i, i-1], i = 1 .. T-1
    above = [np.diagonal(a, offset=1) for _, a in cases]  # attn[i-1, i]: what token i-1 pays to token i
    return {
        "transposed": (
            [d.mean() for d in above],
            msg(
                "transposed: you averaged attn[i-1, i], the entries just *above* the diagonal. That is what "
                "token i-1 pays to the token after it (the 'next' statistic). Rows are queries: the weight "
                "query i puts on its previous token is in row i, column i-1, just *below* the diagonal "
                "(np.diagonal(attn, offset=-1))."
            ),
        ),
        "row 0 wrapped": (
            [np.mean([a[i, i - 1] for i in range(a.shape[0])]) for _, a in cases],
            msg(
                "you included row 0: the first token has no previous token, and attn[0, -1] is (by Python's "
                "negative indexing) its weight on the *last* token. Average over the T-1 rows i = 1 … T-1 "
                "only."
            ),
        ),
        "row 0 counted": (
            [d.sum() / (d.size + 1) for d in below],
            msg(
                "you included row 0: you divided by T, but only the T-1 rows i = 1 … T-1 have a previous "
                "token. Average over those T-1 entries (.mean() of np.diagonal(attn, offset=-1))."
            ),
        ),
        "sum": (
            [d.sum() for d in below],
            msg(
                "right entries, but you summed them: average them instead (divide by T-1), so that the share lies "
                "between 0 and 1 and heads can be compared across sentences of different lengths."
            ),
        ),
        "transposed sum": (
            [d.sum() for d in above],
            msg(
                "two mistakes: you summed instead of averaging, and you took attn[i-1, i] (above the "
                "diagonal: what token i-1 pays to the next token, i.e. the transposed matrix). Average "
                "attn[i, i-1], the entries just below the diagonal."
            ),
        ),
        "self": (
            [np.diagonal(a).mean() for _, a in cases],
            msg(
                "that is the main diagonal attn[i, i]: what each token pays to itself (the 'self' statistic). The "
                "previous token is one column to the left: attn[i, i-1]."
            ),
        ),
    }


@expects_function("ex.previous_token_share.check(previous_token_share)")
def check_previous_token_share(fn) -> tuple[bool, str]:
    """Check ``fn(attn) -> float``: the mean of ``attn[i, i-1]`` over the query positions ``i >= 1``."""
    cases = previous_token_cases()
    values = []
    for _, attn in cases:
        out, problem = _call(fn, attn)
        if problem:
            return False, problem
        T = attn.shape[-1]
        value, problem = _as_number(out, T, T - 1, msg("the previous-token share"))
        if problem:
            return False, problem
        values.append(value)
    expected = [reference_previous_token_share(attn) for _, attn in cases]
    if all(_close(v, e) for v, e in zip(values, expected)):
        return True, msg(
            "the mean of attn[i, i-1] over the query positions i = 1 … T-1 matches viz.head_statistics' "
            "'previous' on all {n_cases} test heads: {prev_share:.2f} for a perfect previous-token "
            "head, {next_share:.2f} for a perfect next-token head.",
            n_cases=len(cases),
            prev_share=expected[0],
            next_share=expected[1],
        )
    variants = _previous_token_mistakes(cases)
    message = _diagnose(values, variants)
    if message:
        return False, message
    for (name, attn), value, right in zip(cases, values, expected):
        if not _close(value, right):
            return False, msg(
                "for {name} (T = {T}) your function returns {value:.4f}, expected "
                "{right:.4f}: the mean of attn[1, 0], attn[2, 1], …, attn[T-1, T-2].",
                name=name,
                T=attn.shape[0],
                value=value,
                right=right,
            )
    return False, msg("not yet: return the mean of attn[i, i-1] over i = 1 … T-1.")  # not reached


previous_token_share = Exercise(
    name="previous_token_share",
    answers=("bertedu.teaching.viz.stats.head_statistics",),
    prompt=(
        "Write `previous_token_share(attn)`: `attn` is one head's attention matrix, a (T, T) NumPy array "
        "(rows = queries, each summing to 1; columns = keys). Return the mean over the query positions "
        "i = 1 … T-1 of attn[i, i-1], the weight each token puts on the token just before it. This is the "
        "'previous' column of `viz.head_statistics` for one sequence without padding (the package also skips "
        "pairs that involve a [PAD] token and pools the rows of a whole batch). Check the function itself: "
        "`ex.previous_token_share.check(previous_token_share)`."
    ),
    checker=check_previous_token_share,
    hints=[
        translatable(
            "Row i is query i. Its weight on the previous token sits in row i, column i-1: attn[1, 0], attn[2, 1], …, "
            "attn[T-1, T-2]. Row 0 has no previous token."
        ),
        translatable(
            "Those entries lie just *below* the main diagonal: `np.diagonal(attn, offset=-1)` returns all T-1 of them "
            "(offset=+1, above the diagonal, would be the next-token entries)."
        ),
        translatable("Average them with `.mean()` (not `.sum()`): a share between 0 and 1."),
    ],
    solution_code="""
def previous_token_share(attn):
    # attn: (T, T), rows = queries. attn[i, i-1] for i = 1 .. T-1 lies just below the diagonal
    return float(np.diagonal(attn, offset=-1).mean())

ex.previous_token_share.check(previous_token_share)
""",
    points=1,
)


# ----------------------------------------------------------------------------------------------------------
# 2. Find the bug: the mean row entropy


def _plogp(attn: np.ndarray) -> np.ndarray:
    """a ln a elementwise, with 0 ln 0 = 0."""
    return np.where(attn > 0, attn * np.log(np.where(attn > 0, attn, 1.0)), 0.0)


def reference_head_entropy(attn, attention_mask) -> float:
    """Mean row entropy in nats over the real query rows of one head's (T, T) matrix, computed by the package.

    attention_mask: (T,), 1 = real token, 0 = [PAD]. It is ``viz.head_statistics``' ``entropy`` column.
    """
    a = np.asarray(attn, dtype=np.float64)  # (T, T)
    mask = np.asarray(attention_mask)[None]  # (1, T)
    return head_statistics(a[None, None], _labels(a.shape[-1]), attention_mask=mask)[0]["entropy"]


def head_entropy_cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """The test heads: (description, attention (T, T), attention_mask (T,) of 1/0 ints).

    As in a real model, [PAD] key columns are exactly 0 and [PAD] query rows are distributions over the real
    keys (the mask only touches keys).
    """
    rng = np.random.default_rng(80)
    T, n = 8, 5  # 5 real tokens + 3 [PAD]
    padded = np.zeros((T, T))
    padded[:n, :n] = rng.dirichlet(np.full(n, 0.3), size=n)  # real rows: peaked
    padded[n:, :n] = rng.dirichlet(np.full(n, 20.0), size=T - n)  # [PAD] rows: almost uniform
    mask_padded = np.array([1] * n + [0] * (T - n))
    T = 6
    prev = 0.8 * np.eye(T, k=-1) + 0.2 * rng.dirichlet(
        np.ones(T), size=T
    )  # a previous-token head, no padding
    prev[0] = rng.dirichlet(np.ones(T))
    T, n = 7, 5
    sink = np.zeros((T, T))
    sink[:, 0] = 1.0  # a [CLS] sink: rows 0, 1, 2 put everything on key 0 ...
    sink[3:, :n] = rng.dirichlet(np.full(n, 1.0), size=T - 3)  # ... the others spread over the real keys
    mask_sink = np.array([1] * n + [0] * (T - n))
    return [
        (msg("a padded head (5 real tokens + 3 [PAD])"), padded, mask_padded),
        (msg("a previous-token head without padding"), prev, np.ones(6, dtype=int)),
        (msg("a padded [CLS]-sink head"), sink, mask_sink),
    ]


_NAN = translatable(
    "your function returns nan: the [PAD] columns (and other weights) are exactly 0, and in floating point "
    "0 * ln 0 = 0 * (-inf) = nan. Entropy uses the convention 0 ln 0 = 0: compute a ln a only where a > 0 "
    "(np.where(attn > 0, ...), as the starter did)."
)


def _head_entropy_mistakes(cases, expected: list[float]) -> dict[str, tuple[list[float], str]]:
    """The typical wrong answers of :func:`check_fix_head_entropy`: for each, its value on every test head of
    ``cases`` (``expected``: the right values) and the message that names the mistake."""
    rows = [-_plogp(a).sum(axis=-1) for _, a, _ in cases]  # (T,) entropy of each query row
    cols = [-_plogp(a).sum(axis=0) for _, a, _ in cases]  # (T,) 'entropy' of each key column
    real = [m > 0 for _, _, m in cases]
    return {
        "columns": (
            [c[r].mean() for c, r in zip(cols, real)],
            Diagnosis(
                msg(
                    "your function gives the right number for the previous-token head without padding, but not "
                    "for the two padded heads."
                ),
                msg(
                    "Wrong axis: you summed a ln a down each *column* (axis=0). A column collects what every query "
                    "pays to one key; it need not sum to 1, so its 'entropy' means nothing. The distribution is "
                    "each query's *row* (the softmax ran over the keys): sum over the last axis (axis=-1) to get "
                    "one entropy per query, then average over the real query rows. Why the bug hides on a sentence "
                    "without padding: averaged over *all* positions, columns and rows give the same number (both "
                    "are the total of -a ln a divided by T); it shows as soon as [PAD] positions are left out."
                ),
            ),
        ),
        "all positions": (
            [e.mean() for e in rows],
            msg(
                "you averaged over every position, including the [PAD] query rows. Those rows are computed "
                "(the mask only touches keys) but must be ignored: sum a ln a along each row (axis=-1) and "
                "average only over the rows where attention_mask is 1, as viz.head_statistics does. (Summing "
                "down the columns, axis=0, and averaging over all of them gives exactly this wrong number "
                "too: both are the total of -a ln a divided by T.)"
            ),
        ),
        "bits": (
            [x / math.log(2) for x in expected],
            msg(
                "those are bits (log base 2); viz.head_statistics measures entropy in nats: use the natural log "
                "np.log, so that a row spread evenly over n keys has entropy ln n."
            ),
        ),
        "sum": (
            [e[r].sum() for e, r in zip(rows, real)],
            msg(
                "you summed the real rows' entropies; average them (.mean()) so that sentences of different lengths "
                "compare."
            ),
        ),
        "sign": (
            [-x for x in expected],
            msg(
                "the sign is wrong: entropy is -Σ_j a_j ln a_j, which is never negative (ln a ≤ 0 for a ≤ 1)."
            ),
        ),
        "mean over keys": (
            [(-_plogp(a).mean(axis=-1))[r].mean() for (_, a, _), r in zip(cases, real)],
            msg(
                "you averaged a ln a over the keys; the entropy of a row is the *sum* over its keys, "
                "-Σ_j a_j ln a_j. Only the final step averages (over the real query rows)."
            ),
        ),
    }


@expects_function("ex.fix_head_entropy.check(head_entropy)")
def check_fix_head_entropy(fn) -> tuple[bool, str]:
    """Check ``fn(attn (T, T), attention_mask (T,)) -> float``: the mean row entropy in nats over real queries."""
    cases = head_entropy_cases()
    values = []
    for _, attn, mask in cases:
        out, problem = _call(fn, attn, mask)
        if problem:
            return False, problem
        T = attn.shape[-1]
        value, problem = _as_number(
            out, T, int(mask.sum()), msg("the mean row entropy"), nan_message=translate(_NAN)
        )
        if problem:
            return False, problem
        values.append(value)
    expected = [reference_head_entropy(attn, mask) for _, attn, mask in cases]
    if all(_close(v, e) for v, e in zip(values, expected)):
        return True, msg(
            "one entropy per query row (the row is the distribution: the softmax ran over the keys), "
            "natural log with 0 ln 0 = 0, averaged over the real query rows only: it matches "
            "viz.head_statistics' 'entropy' on all {n_cases} test heads.",
            n_cases=len(cases),
        )
    variants = _head_entropy_mistakes(cases, expected)
    message = _diagnose(values, variants)
    if message:
        return False, message
    for (name, _attn, _), value, right in zip(cases, values, expected):
        if not _close(value, right):
            return False, msg(
                "for {name} your function returns {value:.4f} nats, expected {right:.4f}: the mean "
                "over the real query rows of -Σ_j a_ij ln a_ij.",
                name=name,
                value=value,
                right=right,
            )
    return False, msg("not yet: average -Σ_j a_ij ln a_ij over the real query rows i.")  # not reached


fix_head_entropy = Exercise(
    name="fix_head_entropy",
    answers=("bertedu.teaching.viz.stats.head_statistics",),
    prompt=(
        "Find the bug: `head_entropy(attn, attention_mask)` should return the mean row entropy "
        "-Σ_j a_ij ln a_ij (in nats, 0 ln 0 = 0) of one head's (T, T) attention `attn` (rows = queries, "
        "columns = keys), averaged over the real query rows (attention_mask (T,): 1 = real, 0 = [PAD]). "
        "That is the 'entropy' column of `viz.head_statistics`. [PAD] key columns are exactly 0, so they add "
        "nothing to a row's entropy. The function runs and returns a plausible number, but it is wrong."
    ),
    checker=check_fix_head_entropy,
    hints=[
        translatable(
            "Which axis did the softmax normalise? For a matrix from the model, compare `attn.sum(axis=-1)` with "
            "`attn.sum(axis=0)`: only one of them is all ones, and only that axis holds probability distributions."
        ),
        translatable(
            "An entropy belongs to a distribution: one per query *row*. Sum a ln a over the keys (`axis=-1`); the "
            "rest of the function (0 ln 0 = 0, averaging over the real rows) is already right."
        ),
    ],
    solution_code="""
def head_entropy(attn, attention_mask):
    attn = np.asarray(attn, dtype=np.float64)                                  # (T, T) rows = queries
    real = np.asarray(attention_mask) > 0                                      # (T,) True = real token
    plogp = np.where(attn > 0, attn * np.log(np.where(attn > 0, attn, 1.0)), 0.0)   # a ln a, 0 ln 0 = 0
    entropy = -plogp.sum(axis=-1)                                              # (T,) one entropy per query row
    return float(entropy[real].mean())                                         # real query rows only

ex.fix_head_entropy.check(head_entropy)
""",
    points=1,
)

__all__ = [
    "check_fix_head_entropy",
    "check_previous_token_share",
    "fix_head_entropy",
    "head_entropy_cases",
    "previous_token_cases",
    "previous_token_share",
    "reference_head_entropy",
    "reference_previous_token_share",
]
