"""Head statistics: where does each head look on average? Finds positional and delimiter heads.

For every (layer, head), averaged over the real (non-padding) query rows of every sequence:

- ``cls``: share of the row's attention on [CLS] keys;  ``sep``: share on [SEP] keys;
- ``previous``: weight on the token just before the query (rows whose previous token is real);
- ``next``: weight on the token just after the query (rows whose next token is real);
- ``self``: weight on the query's own position;
- ``entropy``: row entropy ``-sum_j a_j ln a_j`` in nats (0 ln 0 = 0). A row that puts everything on one
  key has entropy 0; a uniform row over n real keys has ln(n), the maximum.

Introduced in notebook 08 (after Clark et al., 2019, "What Does BERT Look At?").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._core import layers_array, to_numpy

KINDS = ("cls", "sep", "previous", "next", "self")
COLUMNS = ("layer", "head", *KINDS, "entropy")


def _token_masks(
    shape_bt,
    tokens,
    input_ids,
    attention_mask,
    cls_token_id,
    sep_token_id,
    pad_token_id,
    tokenizer,
    cls_token,
    sep_token,
    pad_token,
):
    """Boolean (B, T) arrays: is [CLS], is [SEP], is a real (non-padding) token."""
    B, T = shape_bt
    if tokenizer is not None:
        cls_token_id = tokenizer.cls_token_id if cls_token_id is None else cls_token_id
        sep_token_id = tokenizer.sep_token_id if sep_token_id is None else sep_token_id
        pad_token_id = tokenizer.pad_token_id if pad_token_id is None else pad_token_id
    if tokens is not None:
        if isinstance(tokens, str):
            raise ValueError(
                "tokens must be a list of token strings (or a list of such lists), not a string."
            )
        batch = (
            [list(tokens)] if len(tokens) == 0 or isinstance(tokens[0], str) else [list(t) for t in tokens]
        )
        if len(batch) != B or any(len(t) != T for t in batch):
            raise ValueError(
                f"tokens must hold {B} sequence(s) of {T} tokens to match the attention, got "
                f"{len(batch)} of lengths {sorted({len(t) for t in batch})}."
            )
        tok = np.array(batch, dtype=object)  # (B, T)
        is_cls, is_sep, is_pad = tok == cls_token, tok == sep_token, tok == pad_token
    elif input_ids is not None:
        if cls_token_id is None or sep_token_id is None:
            raise ValueError(
                "with input_ids, also pass cls_token_id and sep_token_id (or tokenizer=...): "
                "special ids differ between vocabularies, never hard-code them."
            )
        ids = np.atleast_2d(to_numpy(input_ids, "input_ids")).astype(np.int64)  # (B, T)
        if ids.shape != (B, T):
            raise ValueError(
                f"input_ids must have shape ({B}, {T}) to match the attention, got {np.shape(input_ids)}."
            )
        is_cls, is_sep = ids == cls_token_id, ids == sep_token_id
        is_pad = ids == pad_token_id if pad_token_id is not None else np.zeros_like(is_cls)
    else:
        raise ValueError("head_statistics needs tokens (strings) or input_ids to find [CLS] and [SEP].")
    if attention_mask is not None:
        mask = np.atleast_2d(to_numpy(attention_mask, "attention_mask"))  # (B, T)
        if mask.shape != (B, T):
            raise ValueError(f"attention_mask must have shape ({B}, {T}), got {np.shape(attention_mask)}.")
        real = mask > 0.5
    else:
        real = ~is_pad
    return is_cls, is_sep, real


def _masked_mean(values: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Mean of ``values`` (L, B, heads, n) over the (B, n) positions where ``valid``; NaN if none."""
    w = valid[None, :, None, :].astype(np.float64)  # (1, B, 1, n)
    count = w.sum(axis=(1, 3))  # (1, 1)
    total = (values * w).sum(axis=(1, 3))  # (L, heads)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def head_statistics(
    attentions,
    tokens=None,
    *,
    input_ids=None,
    attention_mask=None,
    tokenizer=None,
    cls_token_id: int | None = None,
    sep_token_id: int | None = None,
    pad_token_id: int | None = None,
    cls_token: str = "[CLS]",
    sep_token: str = "[SEP]",
    pad_token: str = "[PAD]",
    as_frame: bool = False,
):
    """Per-head attention statistics (see the module docstring for the definitions).

    attentions: ``out.attentions`` (tuple of (B, heads, T, T)), or a (L, heads, T, T) / (L, B, heads, T, T)
        array. Statistics average over all sequences of the batch.
    tokens: the token strings, one list (B = 1) or one list per sequence; or instead
    input_ids: (B, T) ids with ``cls_token_id``/``sep_token_id``/``pad_token_id`` or ``tokenizer=tok``.
    attention_mask: (B, T), 1 = real; padding query rows are excluded (and padding is never a neighbour).
        Without it, [PAD] tokens (or ``pad_token_id``) mark padding.

    Returns a list of dicts, one per (layer, head) in layer-major order, with keys
    ``layer, head, cls, sep, previous, next, self, entropy`` (a pandas DataFrame if ``as_frame``).
    """
    att = layers_array(attentions)  # (L, B, heads, T, T)
    L, B, A, T, _ = att.shape
    is_cls, is_sep, real = _token_masks(
        (B, T),
        tokens,
        input_ids,
        attention_mask,
        cls_token_id,
        sep_token_id,
        pad_token_id,
        tokenizer,
        cls_token,
        sep_token,
        pad_token,
    )
    # share of each query row's attention on [CLS] / [SEP] keys
    to_cls = (att * is_cls[None, :, None, None, :]).sum(-1)  # (L, B, heads, T)
    to_sep = (att * is_sep[None, :, None, None, :]).sum(-1)  # (L, B, heads, T)
    # diagonals: query i -> key i-1 (offset -1), i+1 (offset +1), i (offset 0)
    prev = np.diagonal(att, offset=-1, axis1=-2, axis2=-1)  # (L, B, heads, T-1): query i+1 -> key i
    nxt = np.diagonal(att, offset=1, axis1=-2, axis2=-1)  # (L, B, heads, T-1): query i -> key i+1
    own = np.diagonal(att, offset=0, axis1=-2, axis2=-1)  # (L, B, heads, T)
    plogp = np.where(att > 0, att * np.log(np.where(att > 0, att, 1.0)), 0.0)
    entropy = -plogp.sum(-1)  # (L, B, heads, T), nats
    both_real = real[:, 1:] & real[:, :-1]  # (B, T-1): the pair (i, i+1) are both real tokens
    table = {
        "cls": _masked_mean(to_cls, real),
        "sep": _masked_mean(to_sep, real),
        "previous": _masked_mean(prev, both_real),
        "next": _masked_mean(nxt, both_real),
        "self": _masked_mean(own, real),
        "entropy": _masked_mean(entropy, real),
    }  # each (L, heads)
    rows = [
        {"layer": layer, "head": head, **{k: float(v[layer, head]) for k, v in table.items()}}
        for layer in range(L)
        for head in range(A)
    ]
    if as_frame:
        import pandas as pd

        return pd.DataFrame(rows, columns=list(COLUMNS))
    return rows


def find_heads(
    stats, kind: str = "previous", threshold: float = 0.5, *, top: int | None = None
) -> list[tuple[int, int]]:
    """The (layer, head) pairs whose ``kind`` share is at least ``threshold``, strongest first.

    stats: the output of :func:`head_statistics` (list of dicts or DataFrame).
    kind: "previous", "next", "self" (positional heads) or "cls", "sep" (delimiter heads).
    top: keep only the ``top`` strongest.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}.")
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold is a share of attention between 0 and 1, got {threshold}.")
    records: Sequence[dict] = stats.to_dict("records") if hasattr(stats, "to_dict") else list(stats)
    missing = [c for c in ("layer", "head", kind) if records and c not in records[0]]
    if missing:
        raise ValueError(f"stats lacks the column(s) {missing}; pass the output of head_statistics().")
    hits = [r for r in records if np.isfinite(r[kind]) and r[kind] >= threshold]
    hits.sort(key=lambda r: (-r[kind], r["layer"], r["head"]))
    pairs = [(int(r["layer"]), int(r["head"])) for r in hits]
    return pairs[:top] if top is not None else pairs
