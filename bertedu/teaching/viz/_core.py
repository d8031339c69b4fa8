"""Shared helpers of :mod:`bertedu.teaching.viz`: converting attention to NumPy, checking it, the figure convention.

Nothing here is meant to be called from a notebook except :func:`stack_attentions` and
:func:`attention_matrix`, which are re-exported by :mod:`bertedu.teaching.viz`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import font_manager
from matplotlib.ft2font import FT2Font

from bertedu.language import writes_han

ROW_SUM_ATOL = 1e-3  # softmax rows in float32 sum to 1 within ~1e-6; 1e-3 also accepts float16/rounded data
PAD_ATOL = 1e-6  # attention on a padding key after masking is exactly 0 (exp of a huge negative number)


# -----------------------------------------------------------------------------------------------------------
# converting inputs


def to_numpy(x, name: str = "attention") -> np.ndarray:
    """A torch tensor, NumPy array or nested list as a float64 NumPy array (detached, on the CPU)."""
    if hasattr(x, "detach"):  # a torch tensor: no need to import torch here
        x = x.detach().cpu().double().numpy()  # float64 directly: a float64 tensor keeps its precision
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be a tensor or an array of numbers, got {type(x).__name__}.") from err
    if arr.size and not np.all(np.isfinite(arr)):
        raise ValueError(
            f"{name} contains NaN or inf values; check the model's output (a fully masked row?)."
        )
    return arr


def layers_array(attentions) -> np.ndarray:
    """All layers' attention as one array of shape (L, B, heads, T, T).

    Accepts the model's ``out.attentions`` (a tuple of ``(B, heads, T, T)`` tensors, one per layer), a
    ``(L, heads, T, T)`` array (one sequence, batch axis left out) or a ``(L, B, heads, T, T)`` array.
    """
    if isinstance(attentions, (tuple, list)):
        if len(attentions) == 0:
            raise ValueError(
                "attentions is empty: pass out.attentions from model(..., output_attentions=True)."
            )
        per_layer = [to_numpy(a, f"attentions[{i}]") for i, a in enumerate(attentions)]
        for i, a in enumerate(per_layer):
            if a.ndim != 4:
                raise ValueError(
                    f"attentions[{i}] has shape {a.shape}; each layer's attention must be (B, heads, T, T) "
                    "as returned by model(..., output_attentions=True)."
                )
            if a.shape != per_layer[0].shape:
                raise ValueError(
                    f"attentions[{i}] has shape {a.shape} but attentions[0] has {per_layer[0].shape}."
                )
        arr = np.stack(per_layer)  # (L, B, heads, T, T)
    else:
        arr = to_numpy(attentions, "attentions")
        if arr.ndim == 4:  # (L, heads, T, T): one sequence
            arr = arr[:, None]
        elif arr.ndim != 5:
            raise ValueError(
                f"attentions has shape {arr.shape}; expected a tuple of (B, heads, T, T) tensors (one per layer), "
                "a (L, heads, T, T) array or a (L, B, heads, T, T) array."
            )
    if arr.shape[-1] != arr.shape[-2]:
        raise ValueError(f"attention matrices must be square (T, T), got {arr.shape[-2:]}.")
    return arr


def stack_attentions(attentions, batch_index: int = 0) -> np.ndarray:
    """One sequence's attention from every layer and head as a NumPy array of shape (L, heads, T, T).

    ``attentions`` is ``out.attentions`` (tuple of ``(B, heads, T, T)``, one per layer), a ``(L, heads, T, T)``
    or a ``(L, B, heads, T, T)`` array; ``batch_index`` picks the sequence.
    """
    arr = layers_array(attentions)  # (L, B, heads, T, T)
    batch = arr.shape[1]
    if not isinstance(batch_index, (int, np.integer)) or not -batch <= batch_index < batch:
        raise ValueError(f"batch_index {batch_index!r} is out of range for a batch of {batch} sequence(s).")
    return arr[:, batch_index]


def check_index(index, size: int, what: str) -> int:
    """``index`` as a non-negative int, or a ValueError naming ``what`` and the valid range."""
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not -size <= index < size:
        raise ValueError(
            f"{what} {index!r} is out of range: this model has {size} {what}s (0 to {size - 1})."
        )
    return int(index) % size


def attention_matrix(attentions, layer: int, head: int | str = "mean", *, batch_index: int = 0) -> np.ndarray:
    """The (T, T) attention matrix of one head (or the mean over heads, ``head="mean"``) of one layer.

    Rows are queries (the token attending), columns keys (the token attended to).
    """
    arr = stack_attentions(attentions, batch_index)  # (L, heads, T, T)
    layer = check_index(layer, arr.shape[0], "layer")
    if isinstance(head, str):
        if head != "mean":
            raise ValueError(f"head must be an integer or 'mean', got {head!r}.")
        return arr[layer].mean(axis=0)  # (T, T)
    head = check_index(head, arr.shape[1], "head")
    return arr[layer, head]  # (T, T)


def check_tokens(tokens, length: int, name: str = "tokens") -> list[str]:
    """``tokens`` as a list of ``length`` strings, or a ValueError that says what is wrong."""
    if isinstance(tokens, str):
        raise ValueError(
            f"{name} must be a list of token strings (e.g. tokenizer.convert_ids_to_tokens(ids)), "
            "not one string."
        )
    tokens = [str(t) for t in tokens]
    if len(tokens) != length:
        raise ValueError(
            f"{name} has {len(tokens)} entries but the attention matrix covers {length} tokens; "
            "pass one label per position (including [CLS], [SEP] and [PAD])."
        )
    return tokens


def real_positions(tokens: Sequence[str], attention_mask=None, pad_token: str = "[PAD]") -> np.ndarray:
    """Boolean (T,) array: True for real tokens, False for padding (from the mask, else from [PAD] tokens)."""
    if attention_mask is None:
        return np.array([t != pad_token for t in tokens], dtype=bool)
    mask = to_numpy(attention_mask, "attention_mask")
    if mask.ndim == 2 and mask.shape[0] == 1:
        mask = mask[0]
    if mask.shape != (len(tokens),):
        raise ValueError(
            f"attention_mask has shape {mask.shape}; for one sequence it must be ({len(tokens)},) "
            "(use attention_mask[batch_index])."
        )
    return mask > 0.5


def check_rows(matrix: np.ndarray, real: np.ndarray, *, atol: float = ROW_SUM_ATOL) -> None:
    """Raise a ValueError unless ``matrix`` (T, T) is a valid attention matrix for the ``real`` positions.

    Every weight is >= 0, every real query row sums to 1 and every padding key column is 0.
    """
    if matrix.min(initial=0.0) < -PAD_ATOL:
        raise ValueError(
            f"attention weights must be >= 0 (found {matrix.min():.3g}); did you pass scores "
            "before the softmax? Pass check=False to plot an arbitrary matrix."
        )
    sums = matrix[real].sum(axis=-1)  # (T_real,)
    bad = np.flatnonzero(np.abs(sums - 1.0) > atol)
    if bad.size:
        row = int(np.flatnonzero(real)[bad[0]])
        raise ValueError(
            f"attention rows must sum to 1 (softmax over the keys, the last axis), but row {row} "
            f"sums to {sums[bad[0]]:.4f}. Was the softmax taken over the wrong axis? "
            "Pass check=False to plot an arbitrary matrix."
        )
    if (~real).any():
        leaked = matrix[:, ~real].max()
        if leaked > PAD_ATOL:
            raise ValueError(
                f"padding key columns carry attention (up to {leaked:.3g}) but must be 0: the "
                "attention mask must be applied to the keys (columns) before the softmax."
            )


# -----------------------------------------------------------------------------------------------------------
# what to show: padding left out, some key columns hidden, the sentence-pair boundary


@dataclass
class AttentionView:
    """The part of a (T, T) attention matrix that is drawn, with its labels.

    ``matrix`` is (rows, cols); ``row_tokens``/``col_tokens`` label it; ``row_index``/``col_index`` are
    the original positions; ``row_boundary``/``col_boundary`` are where segment B starts in the drawn
    matrix (None for a single sentence). Introduced in notebook 08.
    """

    matrix: np.ndarray
    row_tokens: list[str]
    col_tokens: list[str]
    row_index: np.ndarray
    col_index: np.ndarray
    row_boundary: int | None
    col_boundary: int | None


def sentence_b_start(tokens: Sequence[str], real: np.ndarray, sep_token: str = "[SEP]") -> int | None:
    """Position of segment B's first token (right after the first [SEP]), or None for one sentence."""
    for i, tok in enumerate(tokens):
        if tok == sep_token:
            after = np.flatnonzero(real[i + 1 :])
            return i + 1 if after.size else None
    return None


def make_view(
    matrix,
    tokens,
    *,
    attention_mask=None,
    hide_padding: bool = True,
    hide_keys: Sequence[str] = (),
    renormalize: bool = False,
    check: bool = True,
    pad_token: str = "[PAD]",
    sep_token: str = "[SEP]",
) -> AttentionView:
    """Validate one head's (T, T) attention and cut out what should be drawn. See :func:`plot_attention`."""
    matrix = to_numpy(matrix)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        hint = ""
        if matrix.ndim == 4:
            hint = " For one head of out.attentions use out.attentions[layer][0, head] or viz.attention_matrix()."
        elif matrix.ndim == 3:
            hint = " This looks like (heads, T, T): pick one head, e.g. attn[head]."
        raise ValueError(
            f"expected ONE head's attention, a square (T, T) matrix, got shape {matrix.shape}.{hint}"
        )
    tokens = check_tokens(tokens, matrix.shape[0])
    real = real_positions(tokens, attention_mask, pad_token)
    if check:
        check_rows(matrix, real)
    rows = real if hide_padding else np.ones_like(real)
    hidden = np.array([t in set(hide_keys) for t in tokens], dtype=bool)
    cols = rows & ~hidden
    row_index, col_index = np.flatnonzero(rows), np.flatnonzero(cols)
    if row_index.size == 0 or col_index.size == 0:
        raise ValueError("nothing left to draw: every row or column is padding or hidden.")
    shown = matrix[np.ix_(row_index, col_index)]  # (rows, cols)
    if renormalize:
        sums = shown.sum(axis=-1, keepdims=True)
        shown = np.divide(shown, sums, out=np.zeros_like(shown), where=sums > 0)
    start = sentence_b_start(tokens, real, sep_token)

    def boundary(index: np.ndarray) -> int | None:
        if start is None:
            return None
        k = int((index < start).sum())  # shown positions that belong to [CLS] A [SEP]
        return k if 0 < k < len(index) else None

    return AttentionView(
        shown,
        [tokens[i] for i in row_index],
        [tokens[i] for i in col_index],
        row_index,
        col_index,
        boundary(row_index),
        boundary(col_index),
    )


# -----------------------------------------------------------------------------------------------------------
# the figure convention (see the module docstring of bertedu.teaching.viz)


def new_figure(figsize, nrows: int = 1, ncols: int = 1, **kwargs):
    """A new pyplot figure (closed again by :func:`finish`) and its Axes."""
    use_cjk_fallback()
    return plt.subplots(nrows, ncols, figsize=figsize, **kwargs)


def finish(fig, ax, own_figure: bool):
    """Return the Figure (closed, displayed once as the cell's value) or, if the caller gave an Axes, it."""
    if own_figure:
        plt.close(fig)
        return fig
    return ax


def label_fontsize(n: int) -> float:
    """A tick-label font size that stays readable for ``n`` labels."""
    return float(np.clip(260 / max(n, 1), 5, 10))


def literal_labels(tokens: list[str]) -> list[str]:
    """Tokens as Matplotlib shows them literally: a ``$`` is escaped, so that a token such as ``"$$"`` is
    drawn as text instead of being parsed as mathematics (which fails on an empty formula)."""
    return [token.replace("$", r"\$") for token in tokens]


# -----------------------------------------------------------------------------------------------------------
# Chinese text in figures: labels of the Chinese edition, and Chinese tokens in any language

#: Fonts with Chinese glyphs, in order of preference (Linux, then macOS and Windows names).
CJK_FONTS = (
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "Noto Sans SC",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "PingFang SC",
    "Hiragino Sans GB",
    "Heiti SC",
    "Microsoft YaHei",
    "SimHei",
    "Arial Unicode MS",
)
#: Parts of the file names of those fonts, to find them when matplotlib's font cache predates them.
CJK_FONT_FILES = (
    "notosanscjk",
    "sourcehansans",
    "notosanssc",
    "wqy",
    "pingfang",
    "hiragino",
    "stheiti",
    "msyh",
)
CJK_INSTALL_HINT = "Debian/Ubuntu: `sudo apt-get install fonts-noto-cjk`; macOS and Windows have one already"
_cjk_font: list[str | None] = []  # [] = not searched yet, [name or None] after the search
_warned_no_cjk = False


def cjk_font() -> str | None:
    """The name of an installed font with Chinese glyphs that matplotlib can use, or None (searched once).

    matplotlib keeps a cache of the system's fonts; a font installed after the cache was made is missing
    from it, so system font files with a known CJK name are added to the font list when needed.
    """
    if not _cjk_font:
        names = {f.name for f in font_manager.fontManager.ttflist}
        if not names.intersection(CJK_FONTS):
            known = {f.fname for f in font_manager.fontManager.ttflist}
            for path in font_manager.findSystemFonts():
                if path not in known and any(k in Path(path).name.lower() for k in CJK_FONT_FILES):
                    try:
                        font_manager.fontManager.addfont(path)
                    except (OSError, RuntimeError, ValueError):  # an unreadable font file: skip it
                        continue
            names = {f.name for f in font_manager.fontManager.ttflist}
        _cjk_font.append(next((name for name in CJK_FONTS if name in names), None))
    return _cjk_font[0]


def use_cjk_fallback() -> str | None:
    """Let figures draw Chinese: add a Chinese font *after* the fonts in ``rcParams["font.family"]``.

    matplotlib draws each character with the first listed font that has it, so Latin text keeps its font
    (DejaVu Sans) and Chinese labels and tokens are not empty boxes. Returns the font added (None if this
    machine has none: a warning says so once when the course speaks Chinese).
    """
    global _warned_no_cjk
    font = cjk_font()
    if font is None:
        if writes_han() and not _warned_no_cjk:
            _warned_no_cjk = True
            warnings.warn(
                f"No font with Chinese characters was found for matplotlib, so Chinese plot labels show as "
                f"empty boxes. Install one ({CJK_INSTALL_HINT}), then restart the kernel.",
                stacklevel=3,
            )
        return None
    family = list(plt.rcParams["font.family"])
    if font not in family:
        plt.rcParams["font.family"] = [*family, font]
    return font


def missing_glyphs(fig) -> dict[str, str]:
    """Characters of a figure's texts that none of their fonts can draw: {character: the text it is in}.

    Draws the figure first (tick labels exist only then). Used by the tests of the Chinese edition.
    """
    fig.canvas.draw()
    missing: dict[str, str] = {}
    charmaps: dict[str, set[int]] = {}
    for text in fig.findobj(lambda a: hasattr(a, "get_text") and hasattr(a, "get_fontproperties")):
        content = text.get_text()
        if not content or not text.get_visible():
            continue
        paths = [str(p) for p in font_manager.fontManager._find_fonts_by_props(text.get_fontproperties())]
        for path in paths:
            if path not in charmaps:
                charmaps[path] = set(FT2Font(path).get_charmap())
        for ch in content:
            if not ch.isspace() and not any(ord(ch) in charmaps[p] for p in paths):
                missing.setdefault(ch, content)
    return missing


# At import, so that Axes made later (the explorer's, a student's own) can draw Chinese too; new_figure() repeats
# it in case a style (seaborn's set_theme, say) has reset the font list since.
use_cjk_fallback()
