"""Exporting attention: figures to PNG/SVG/PDF, a matrix to CSV, all layers to bertviz's format.

Every file is written atomically (a crash leaves the old file, never half a file). Introduced in notebook 08.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from bertedu.files import atomic_write, atomic_write_text

from ._core import check_tokens, real_positions, sentence_b_start, stack_attentions, to_numpy

FIGURE_FORMATS = ("png", "svg", "pdf")
CSV_CORNER = "query \\ key"


def save_figure(fig, path: str | os.PathLike, *, dpi: int = 150, **savefig_kwargs) -> Path:
    """Save a Figure (or the figure of an Axes) to ``path``; the suffix picks PNG, SVG or PDF.

    Works on the closed figures that the plotting functions return. Written atomically, with no
    timestamp in SVG/PDF metadata, so re-saving an unchanged figure gives an identical file.
    Returns the path.
    """
    if not hasattr(fig, "savefig") and hasattr(getattr(fig, "figure", None), "savefig"):
        fig = fig.figure  # an Axes: save its figure
    if not hasattr(fig, "savefig"):
        raise ValueError(f"save_figure expects a matplotlib Figure or Axes, got {type(fig).__name__}.")
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FIGURE_FORMATS:
        raise ValueError(
            f"cannot tell the format from {path.name!r}: end the file name in "
            f"{', '.join('.' + f for f in FIGURE_FORMATS)}."
        )
    if fmt in ("svg", "pdf"):
        savefig_kwargs.setdefault(
            "metadata", {"Date": None, "CreationDate": None} if fmt == "pdf" else {"Date": None}
        )
    savefig_kwargs.setdefault("bbox_inches", "tight")
    fig.draw_without_rendering()  # settles the layout engine, so the first save equals later ones

    def write(tmp: Path) -> None:
        with plt.rc_context({"svg.hashsalt": "bertedu"}):  # fixed SVG element ids instead of random ones
            fig.savefig(tmp, format=fmt, dpi=dpi, **savefig_kwargs)

    return atomic_write(path, write)


def save_attention_csv(
    matrix, tokens: Sequence[str], path: str | os.PathLike, *, key_tokens: Sequence[str] | None = None
) -> Path:
    """Write one attention matrix (rows = queries, columns = keys) to CSV with token labels.

    The first row holds the key tokens, the first column the query tokens; numbers are written with full
    precision, so :func:`load_attention_csv` gives the matrix back exactly. ``key_tokens`` labels the
    columns when they differ from the rows (e.g. after hiding [CLS]/[SEP]).
    """
    matrix = to_numpy(matrix, "matrix")
    if matrix.ndim != 2:
        raise ValueError(f"save_attention_csv writes one (T, T) matrix, got shape {matrix.shape}.")
    rows = check_tokens(tokens, matrix.shape[0])
    cols = check_tokens(tokens if key_tokens is None else key_tokens, matrix.shape[1], "key_tokens")
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([CSV_CORNER, *cols])
    for token, values in zip(rows, matrix):
        writer.writerow([token, *(repr(float(v)) for v in values)])
    return atomic_write_text(path, buf.getvalue())


def load_attention_csv(path: str | os.PathLike) -> tuple[np.ndarray, list[str], list[str]]:
    """Read a CSV written by :func:`save_attention_csv`: ``(matrix, query_tokens, key_tokens)``.

    Duplicate tokens (two "the") are kept as they are, unlike ``pandas.read_csv``.
    """
    with open(path, newline="", encoding="utf-8") as fh:
        table = list(csv.reader(fh))
    if not table or not table[0] or table[0][0] != CSV_CORNER:
        raise ValueError(f"{path} is not an attention CSV written by save_attention_csv.")
    key_tokens = table[0][1:]
    query_tokens = [row[0] for row in table[1:]]
    matrix = np.array([[float(v) for v in row[1:]] for row in table[1:]], dtype=np.float64)
    return matrix.reshape(len(query_tokens), len(key_tokens)), query_tokens, key_tokens


def to_bertviz(
    attentions,
    tokens: Sequence[str],
    *,
    batch_index: int = 0,
    attention_mask=None,
    hide_padding: bool = True,
    pad_token: str = "[PAD]",
    sep_token: str = "[SEP]",
) -> dict:
    """All layers of one sequence in the format of ``bertviz.head_view`` / ``model_view``.

    Returns ``{"attention": (tensor (1, heads, T, T), ...) one per layer, "tokens": [...],
    "sentence_b_start": int or None}``, so ``bertviz.head_view(**viz.to_bertviz(out.attentions, tokens))``
    works for users who installed bertviz (the course does not need it). Padding is cut off unless
    ``hide_padding=False``.
    """
    import torch

    arr = stack_attentions(attentions, batch_index)  # (L, heads, T, T)
    if len(tokens) and isinstance(tokens[0], (list, tuple)):
        tokens = tokens[batch_index]
    tokens = check_tokens(tokens, arr.shape[-1])
    if attention_mask is not None:
        mask = to_numpy(attention_mask, "attention_mask")
        attention_mask = mask[batch_index] if mask.ndim == 2 else mask
    real = real_positions(tokens, attention_mask, pad_token)
    keep = np.flatnonzero(real) if hide_padding else np.arange(len(tokens))
    arr = arr[:, :, keep][:, :, :, keep]  # (L, heads, T', T')
    kept_tokens = [tokens[i] for i in keep]
    layers = tuple(torch.tensor(a[None], dtype=torch.float32) for a in arr)  # L x (1, heads, T', T')
    start = sentence_b_start(kept_tokens, np.ones(len(kept_tokens), dtype=bool), sep_token)
    return {"attention": layers, "tokens": kept_tokens, "sentence_b_start": start}
