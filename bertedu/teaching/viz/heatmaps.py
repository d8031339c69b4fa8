"""Attention heatmaps: one head, a grid of all layers x heads, and the mean over heads.

Rows are queries (the token that attends, "from"), columns are keys (the token attended to, "to"), so
every drawn row of a softmax attention matrix sums to 1. Introduced in notebooks 01 and 08.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bertedu.language import msg, translatable, translate

from ._core import (
    AttentionView,
    attention_matrix,
    check_index,
    finish,
    label_fontsize,
    literal_labels,
    make_view,
    new_figure,
    stack_attentions,
    to_numpy,
)

# Labels are English here and shown in the course's language (bertedu.language; Chinese in bertedu/language/zh.py).
QUERY_LABEL = translatable("query (attending from)")
KEY_LABEL = translatable("key (attended to)")
BOUNDARY_STYLE = dict(color="#ff3b3b", linewidth=1.5)  # red: visible on every viridis shade


def hidden_note(hide_keys: Sequence[str], renormalize: bool) -> str:
    """The title line that says which key columns are hidden and whether rows were renormalised."""
    if not hide_keys:
        return ""
    how = msg("rows renormalised to sum to 1") if renormalize else msg("weights not renormalised")
    return msg("{keys} columns hidden, {how}", keys="/".join(hide_keys), how=how)


def plot_attention(
    attn,
    tokens: Sequence[str],
    *,
    ax=None,
    title: str | None = None,
    attention_mask=None,
    hide_padding: bool = True,
    sep_boundary: bool = True,
    hide_keys: Sequence[str] = (),
    renormalize: bool = False,
    vmin: float | None = 0.0,
    vmax: float | None = None,
    annotate: bool = False,
    fmt: str = ".2f",
    cmap: str = "viridis",
    cbar: bool = True,
    check: bool = True,
    figsize: tuple[float, float] | None = None,
    pad_token: str = "[PAD]",
    sep_token: str = "[SEP]",
):
    """Seaborn heatmap of ONE attention head: a (T, T) matrix, rows = queries, columns = keys.

    attn: (T, T) tensor or array, e.g. ``out.attentions[layer][0, head]`` (or :func:`attention_matrix`).
    tokens: the T token strings (``tokenizer.convert_ids_to_tokens(ids)``), used on both axes.
    attention_mask: optional (T,) with 1 = real token; without it, ``[PAD]`` tokens are padding.
    hide_padding: leave padding rows and columns out of the plot (they carry no information).
    sep_boundary: draw a line after the first [SEP] when the input is a sentence pair.
    hide_keys: token strings whose key columns are left out, e.g. ``("[CLS]", "[SEP]")``; the title says so.
    renormalize: after hiding keys, rescale each row to sum to 1 again (default False: true weights).
    vmin, vmax: colour scale; ``vmax=None`` uses the largest drawn weight. Pass ``vmax=1.0`` (or any common
        value) to compare several plots on one scale.
    annotate: write each weight in its cell (readable up to ~15 tokens).
    check: raise a ValueError unless weights are >= 0, real rows sum to 1 and padding columns are 0.

    Returns the Figure if ``ax`` is None (already closed: it displays once as the cell's value), else ``ax``.
    The drawn matrix equals ``attn`` with padding (and ``hide_keys``) removed.
    """
    view = make_view(
        attn,
        tokens,
        attention_mask=attention_mask,
        hide_padding=hide_padding,
        hide_keys=tuple(hide_keys),
        renormalize=renormalize,
        check=check,
        pad_token=pad_token,
        sep_token=sep_token,
    )
    n_rows, n_cols = view.matrix.shape
    own = ax is None
    if own:
        side = float(np.clip(0.38 * max(n_rows, n_cols) + 2.0, 3.5, 10.0))
        fig, ax = new_figure(figsize or (side + 1.3, side), layout="constrained")
    else:
        fig = ax.figure
    _draw_heatmap(ax, view, cmap=cmap, vmin=vmin, vmax=vmax, cbar=cbar, annotate=annotate, fmt=fmt)
    if sep_boundary:
        draw_boundary(ax, view)
    lines = [line for line in (title, hidden_note(hide_keys, renormalize)) if line]
    if lines:
        ax.set_title("\n".join(lines), fontsize=10)
    return finish(fig, ax, own)


def _draw_heatmap(ax, view: AttentionView, *, cmap, vmin, vmax, cbar: bool, annotate: bool, fmt: str) -> None:
    """:func:`plot_attention`'s heatmap of ``view.matrix`` on ``ax``: keys across, queries down, token labels
    sized for the number of tokens."""
    import seaborn as sns  # here, not at the top: it imports SciPy, a second of every notebook's start

    n_rows, n_cols = view.matrix.shape
    sns.heatmap(
        view.matrix,
        ax=ax,
        cmap=cmap,
        vmin=vmin,
        vmax=vmax,
        square=True,
        cbar=cbar,
        cbar_kws={"label": msg("attention weight")},
        annot=annotate,
        fmt=fmt,
        annot_kws={"fontsize": label_fontsize(n_cols) * 0.8},
        xticklabels=literal_labels(view.col_tokens),
        yticklabels=literal_labels(view.row_tokens),
    )
    ax.tick_params(axis="x", labelrotation=90, labelsize=label_fontsize(n_cols))
    ax.tick_params(axis="y", labelrotation=0, labelsize=label_fontsize(n_rows))
    ax.set_xlabel(translate(KEY_LABEL))
    ax.set_ylabel(translate(QUERY_LABEL))


def draw_boundary(ax, view: AttentionView, linewidth: float = 1.5) -> None:
    """Mark where sentence B starts: a horizontal line between query rows, a vertical one between keys."""
    style = {**BOUNDARY_STYLE, "linewidth": linewidth}
    if view.row_boundary is not None:
        ax.axhline(view.row_boundary, **style)
    if view.col_boundary is not None:
        ax.axvline(view.col_boundary, **style)


def _draw_panel(ax, view: AttentionView, *, vmin, vmax, cmap, show_x: bool, show_y: bool, sep_boundary: bool):
    """One small heatmap of a grid (plain pcolormesh: seaborn redraws the whole figure on every call)."""
    n_rows, n_cols = view.matrix.shape
    mesh = ax.pcolormesh(view.matrix, cmap=cmap, vmin=vmin, vmax=vmax)
    ax.set(xlim=(0, n_cols), ylim=(0, n_rows), aspect="equal")
    ax.invert_yaxis()  # row 0 at the top, as in a matrix
    # no tick objects at all on unlabelled panels: 72 panels x 2T ticks make drawing slow
    ax.set_xticks(
        np.arange(n_cols) + 0.5 if show_x else [], literal_labels(view.col_tokens) if show_x else []
    )
    ax.set_yticks(
        np.arange(n_rows) + 0.5 if show_y else [], literal_labels(view.row_tokens) if show_y else []
    )
    ax.tick_params(axis="x", labelrotation=90, labelsize=label_fontsize(n_cols) * 0.8, length=0)
    ax.tick_params(axis="y", labelsize=label_fontsize(n_rows) * 0.8, length=0)
    if sep_boundary:
        draw_boundary(ax, view, linewidth=0.8)  # thinner: the panels are small
    return mesh


def _grid_figure(
    views: list[list[AttentionView]],
    row_names: list[str],
    col_names: list[str],
    *,
    vmin,
    vmax,
    cmap,
    show_labels,
    panel_size,
    title,
    sep_boundary,
):
    """Draw a grid of panels on one colour scale (the largest weight of all panels unless ``vmax`` is set).

    The layout is computed here in inches (a layout engine over ~70 panels takes seconds to draw).
    """
    n_rows, n_cols = len(views), len(views[0])
    n_tokens = max(views[0][0].matrix.shape)
    if show_labels is None:
        show_labels = n_tokens <= 16
    if panel_size is None:  # grow with T, but keep the whole grid within ~16 inches
        panel_size = min(float(np.clip(0.11 * n_tokens + 0.9, 1.2, 3.0)), max(0.9, 14.0 / n_cols))
    if vmax is None:
        vmax = max(float(v.matrix.max(initial=0.0)) for row in views for v in row) or 1.0
    left = 0.35 + (0.9 if show_labels else 0.0)  # inches: row name (+ token labels)
    bottom = 0.15 + (0.9 if show_labels else 0.0)
    top = 0.35 + (0.4 if title else 0.0)  # column names (+ title)
    right = 1.0  # colour bar
    gap = 0.12
    width = left + n_cols * panel_size + (n_cols - 1) * gap + right
    height = bottom + n_rows * panel_size + (n_rows - 1) * gap + top
    fig, axes = new_figure(
        (width, height),
        n_rows,
        n_cols,
        squeeze=False,
        gridspec_kw=dict(
            left=left / width,
            right=1 - right / width,
            bottom=bottom / height,
            top=1 - top / height,
            wspace=gap / panel_size,
            hspace=gap / panel_size,
        ),
    )
    mesh = None
    for r, row in enumerate(views):
        for c, view in enumerate(row):
            ax = axes[r, c]
            mesh = _draw_panel(
                ax,
                view,
                vmin=vmin,
                vmax=vmax,
                cmap=cmap,
                sep_boundary=sep_boundary,
                show_x=show_labels and r == n_rows - 1,
                show_y=show_labels and c == 0,
            )
            if r == 0:
                ax.set_title(col_names[c], fontsize=9)
            if c == 0:
                ax.set_ylabel(row_names[r], fontsize=9)
    bar_height = min(n_rows * panel_size, 4.0)
    cax = fig.add_axes(
        (
            (width - right + 0.2) / width,
            (bottom + (n_rows * panel_size - bar_height) / 2) / height,
            0.15 / width,
            bar_height / height,
        )
    )
    fig.colorbar(mesh, cax=cax, label=msg("attention weight"))
    if title:
        fig.suptitle(title, y=1 - 0.2 / height, va="top")
    return finish(fig, axes, True)


def _select(values, size: int, what: str) -> list[int]:
    """All indices (None) or the checked list of indices ``values``."""
    if values is None:
        return list(range(size))
    if isinstance(values, (int, np.integer)):
        values = [values]
    return [check_index(v, size, what) for v in values]


def _sequence_inputs(tokens, attention_mask, batch_index: int):
    """Pick one sequence's tokens (list of lists -> one list) and mask ((B, T) -> (T,))."""
    if len(tokens) and isinstance(tokens[0], (list, tuple)):
        tokens = tokens[batch_index]
    if attention_mask is not None:
        mask = to_numpy(attention_mask, "attention_mask")
        attention_mask = mask[batch_index] if mask.ndim == 2 else mask
    return tokens, attention_mask


def plot_attention_grid(
    attentions,
    tokens: Sequence[str],
    *,
    batch_index: int = 0,
    layers=None,
    heads=None,
    include_mean: bool = False,
    attention_mask=None,
    hide_padding: bool = True,
    sep_boundary: bool = True,
    vmin: float = 0.0,
    vmax: float | None = None,
    cmap: str = "viridis",
    show_labels: bool | None = None,
    panel_size: float | None = None,
    title: str | None = None,
    check: bool = True,
    pad_token: str = "[PAD]",
    sep_token: str = "[SEP]",
):
    """All layers x heads of one sequence in a grid of heatmaps on ONE shared colour scale.

    attentions: ``out.attentions`` (tuple of (B, heads, T, T), one per layer), or a (L, heads, T, T) or
        (L, B, heads, T, T) array; ``batch_index`` picks the sequence.
    tokens: the T token strings of that sequence (or a list of token lists, one per sequence).
    layers, heads: which rows/columns to draw (default all); ``include_mean`` adds a "mean" column with
        the mean over all heads of each layer.
    attention_mask: (T,) or (B, T); padding rows and columns are left out (``hide_padding``).
    vmax: top of the shared colour scale; None = the largest weight in the grid (one colour bar for all).
    show_labels: token labels on the left column and bottom row (default: only when T <= 16).

    Returns the Figure (closed; displays once as the cell's value).
    """
    arr = stack_attentions(attentions, batch_index)  # (L, heads, T, T)
    n_layers, n_heads, T, _ = arr.shape
    tokens, attention_mask = _sequence_inputs(tokens, attention_mask, batch_index)
    layer_ids, head_ids = _select(layers, n_layers, "layer"), _select(heads, n_heads, "head")
    if not layer_ids or (not head_ids and not include_mean):
        raise ValueError("nothing to draw: choose at least one layer and one head (or include_mean=True).")
    options = dict(
        attention_mask=attention_mask,
        hide_padding=hide_padding,
        check=check,
        pad_token=pad_token,
        sep_token=sep_token,
    )
    views = []
    for layer in layer_ids:
        row = [make_view(arr[layer, head], tokens, **options) for head in head_ids]
        if include_mean:
            row.append(make_view(arr[layer].mean(axis=0), tokens, **options))
        views.append(row)
    col_names = [msg("head {h}", h=h) for h in head_ids] + ([msg("mean")] if include_mean else [])
    return _grid_figure(
        views,
        [msg("layer {layer}", layer=layer) for layer in layer_ids],
        col_names,
        vmin=vmin,
        vmax=vmax,
        cmap=cmap,
        show_labels=show_labels,
        panel_size=panel_size,
        title=title,
        sep_boundary=sep_boundary,
    )


def plot_mean_attention(
    attentions,
    tokens: Sequence[str],
    *,
    layer: int | None = None,
    batch_index: int = 0,
    ax=None,
    attention_mask=None,
    title: str | None = None,
    **kwargs,
):
    """The mean over heads: one layer as a heatmap (``layer=k``), or one panel per layer (``layer=None``).

    Averaging the heads' (T, T) matrices keeps rows summing to 1. With ``layer`` set this is
    :func:`plot_attention` of the mean (same keyword options, ``ax`` allowed, Figure or Axes returned);
    with ``layer=None`` it draws every layer side by side on one shared colour scale and returns the
    Figure (keyword options as for :func:`plot_attention_grid`).
    """
    arr = stack_attentions(attentions, batch_index)  # (L, heads, T, T)
    tokens, attention_mask = _sequence_inputs(tokens, attention_mask, batch_index)
    if layer is not None:
        matrix = attention_matrix(arr, layer, "mean")  # (T, T)
        layer = check_index(layer, arr.shape[0], "layer")
        title = title or msg("layer {layer}: mean over {n} heads", layer=layer, n=arr.shape[1])
        return plot_attention(matrix, tokens, ax=ax, title=title, attention_mask=attention_mask, **kwargs)
    if ax is not None:
        raise ValueError(
            "plot_mean_attention draws one panel per layer when layer=None; pass layer=k to draw "
            "into your own Axes."
        )
    grid_options = {
        k: kwargs.pop(k)
        for k in ("vmin", "vmax", "cmap", "show_labels", "panel_size", "sep_boundary")
        if k in kwargs
    }
    view_options = dict(attention_mask=attention_mask, **kwargs)
    views = [[make_view(arr[layer].mean(axis=0), tokens, **view_options) for layer in range(arr.shape[0])]]
    grid_options = {
        "vmin": 0.0,
        "vmax": None,
        "cmap": "viridis",
        "show_labels": None,
        "panel_size": None,
        "sep_boundary": True,
        **grid_options,
    }
    return _grid_figure(
        views,
        [msg("mean over heads")],
        [msg("layer {layer}", layer=k) for k in range(arr.shape[0])],
        title=title,
        **grid_options,
    )
