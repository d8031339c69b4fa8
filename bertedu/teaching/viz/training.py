"""Plots for training: loss/accuracy curves (notebook 06) and masking statistics (notebook 03)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from bertedu.language import msg, translatable, translate

from ._core import finish, new_figure

# BERT's masking: 15 % of maskable tokens are selected; of those 80 % -> [MASK], 10 % random, 10 % unchanged.
MASKING_CATEGORIES = ("[MASK]", "random", "unchanged", "not selected")
EXPECTED_MASKING = {"[MASK]": 0.12, "random": 0.015, "unchanged": 0.015, "not selected": 0.85}
# What the plots show for the category and split names (translated when drawn: bertedu.language).
SHOWN_NAMES = {
    "random": translatable("random"),
    "unchanged": translatable("unchanged"),
    "not selected": translatable("not selected"),
    "train": translatable("train"),
    "eval": translatable("eval"),
}
# What the legends show for the metric keys of a pretraining or fine-tuning history: the key itself in English (it
# is what `metrics=` takes), a name in other languages ("MLM 损失", not "mlm_loss"). Other keys are shown as they are.
METRIC_NAMES = {
    "loss": translatable("loss"),
    "mlm_loss": translatable("mlm_loss"),
    "nsp_loss": translatable("nsp_loss"),
    "accuracy": translatable("accuracy"),
    "mlm_accuracy": translatable("mlm_accuracy"),
    "nsp_accuracy": translatable("nsp_accuracy"),
    "mlm_top5_accuracy": translatable("mlm_top5_accuracy"),
    "token_accuracy": translatable("token_accuracy"),
    "exact_match": translatable("exact_match"),
}
SPLIT_STYLE = {"train": dict(linestyle="-"), "eval": dict(linestyle="--", marker="o", markersize=4)}
NOT_METRICS = ("step", "split", "epoch")


def _is_accuracy(name: str) -> bool:
    return "acc" in name.lower()


def _moving_average(y: np.ndarray, window: int) -> np.ndarray:
    """Trailing mean over the last ``window`` points (fewer at the start); (n,) -> (n,)."""
    csum = np.cumsum(np.insert(y, 0, 0.0))
    lo = np.maximum(np.arange(1, len(y) + 1) - window, 0)
    return (csum[1:] - csum[lo]) / (np.arange(1, len(y) + 1) - lo)


def _history_records(history) -> list[dict]:
    """``history`` (list of dicts, or a DataFrame) as a checked list of dicts that all have a step."""
    if hasattr(history, "to_dict"):
        history = history.to_dict("records")
    if isinstance(history, Mapping) or isinstance(history, str):
        raise ValueError(
            "history must be a list of records such as {'step': 10, 'loss': 2.3}, one per log line."
        )
    records = list(history)
    if not records:
        raise ValueError(
            "history is empty: log at least one record {'step': ..., 'loss': ...} before plotting."
        )
    for i, rec in enumerate(records):
        if not isinstance(rec, Mapping) or "step" not in rec:
            raise ValueError(f"history[{i}] = {rec!r} has no 'step' key; every record needs one.")
    return records


def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.number)) and not isinstance(v, bool) and np.isfinite(v)


def plot_loss_curves(
    history,
    *,
    metrics: Sequence[str] | None = None,
    ax=None,
    smooth: int = 1,
    logy: bool = False,
    title: str | None = None,
):
    """Training curves from a list of log records: losses in one panel, accuracies in another.

    history: records like ``{"step": 100, "loss": 2.1, "mlm_loss": 1.9, "nsp_loss": 0.2, "mlm_accuracy": 0.4,
        "split": "eval"}``; ``split`` ("train" or "eval") is optional and defaults to "train". Eval curves
        are dashed with markers. A DataFrame with those columns works too.
    metrics: which keys to draw (default: every key containing "loss" or "acc").
    smooth: trailing moving-average window for train curves (the raw curve stays, faint).
    logy: log scale for the loss panel. ax: draw every metric into this one Axes instead.

    Returns the Figure (closed; displays once as the cell's value) or ``ax``.
    """
    records = _history_records(history)
    if not isinstance(smooth, int) or smooth < 1:
        raise ValueError(f"smooth is a window length (an integer >= 1), got {smooth!r}.")
    seen = [k for rec in records for k in rec if k not in NOT_METRICS]
    available = list(dict.fromkeys(seen))
    if metrics is None:
        metrics = [k for k in available if "loss" in k.lower() or _is_accuracy(k)]
        if not metrics:
            raise ValueError(f"no loss or accuracy keys in history (found {available}); pass metrics=[...].")
    else:
        metrics = [metrics] if isinstance(metrics, str) else list(metrics)
        unknown = [m for m in metrics if m not in available]
        if unknown:
            raise ValueError(f"metric(s) {unknown} never appear in history; available: {available}.")
    groups = [[m for m in metrics if not _is_accuracy(m)], [m for m in metrics if _is_accuracy(m)]]
    groups = [g for g in groups if g]
    own = ax is None
    if own:
        fig, axes = new_figure((5.5 * len(groups), 3.8), 1, len(groups), squeeze=False, layout="constrained")
        panels = {m: axes[0, i] for i, g in enumerate(groups) for m in g}
    else:
        fig, panels = ax.figure, dict.fromkeys(metrics, ax)
    splits = list(dict.fromkeys(str(rec.get("split", "train")) for rec in records))
    colors = {m: f"C{i}" for i, m in enumerate(metrics)}
    for metric in metrics:
        for split in splits:
            points = sorted(
                (rec["step"], rec[metric])
                for rec in records
                if str(rec.get("split", "train")) == split and _is_number(rec.get(metric))
            )
            if not points:
                continue
            steps, values = (np.array(v, dtype=np.float64) for v in zip(*points))
            style = SPLIT_STYLE.get(split, dict(linestyle=":", marker="s", markersize=4))
            shown_split = translate(SHOWN_NAMES.get(split, split))
            shown = translate(METRIC_NAMES.get(metric, metric))
            label = msg("{metric} ({split})", metric=shown, split=shown_split) if len(splits) > 1 else shown
            target = panels[metric]
            if smooth > 1 and split == "train" and len(values) > 1:
                target.plot(steps, values, color=colors[metric], alpha=0.25, linewidth=1)
                values = _moving_average(values, smooth)
                label += msg(", mean of {n}", n=smooth)
            target.plot(steps, values, color=colors[metric], label=label, **style)
    for target in dict.fromkeys(panels.values()):
        names = [m for m in metrics if panels[m] is target]
        accuracy_only = all(_is_accuracy(m) for m in names)
        target.set_xlabel(msg("step"))
        target.set_ylabel(msg("accuracy") if accuracy_only else msg("loss") if own else msg("value"))
        if accuracy_only:
            target.set_ylim(0, 1.02)
        elif logy:
            target.set_yscale("log")
        target.grid(alpha=0.3)
        target.legend(fontsize=8)
    if title and own:
        fig.suptitle(title)
    elif title:
        ax.set_title(title)
    return finish(fig, ax, own)


# the names bertedu.core.masking.MaskingResult.fractions() uses for the same categories
_ALIASES = {"mask": "[MASK]", "kept": "unchanged", "untouched": "not selected"}


def _normalise_key(key: str) -> str:
    """ "[MASK]", "mask", "MASK" -> "[MASK]"; "not_selected"/"untouched" -> "not selected"; "kept" -> "unchanged"."""
    k = str(key).strip().lower().strip("[]").replace("_", " ").replace("-", " ")
    return _ALIASES.get(k, k)


def _as_mapping(counts):
    """Accept a mapping, or a ``MaskingResult`` (anything with a ``counts()`` method)."""
    if callable(getattr(counts, "counts", None)):
        return counts.counts()
    if isinstance(counts, Mapping):
        # "selected" (= [MASK] + random + unchanged) is redundant: drop it so fractions() can be passed as is
        return {k: v for k, v in counts.items() if _normalise_key(k) != "selected"}
    return counts


def _fractions(counts: Mapping, what: str) -> dict[str, float]:
    counts = _as_mapping(counts)
    if not isinstance(counts, Mapping):
        raise ValueError(
            f"{what} must be a mapping like {{'[MASK]': 120, 'random': 15, 'unchanged': 15, "
            "'not selected': 850}."
        )
    values = {_normalise_key(k): v for k, v in counts.items()}
    unknown = sorted(set(values) - set(MASKING_CATEGORIES))
    missing = [c for c in MASKING_CATEGORIES if c not in values]
    if unknown or missing:
        raise ValueError(
            f"{what} must have exactly the keys {list(MASKING_CATEGORIES)}; "
            f"unknown: {unknown}, missing: {missing}."
        )
    numbers = {k: float(v.item() if hasattr(v, "item") else v) for k, v in values.items()}
    if any(v < 0 or not np.isfinite(v) for v in numbers.values()):
        raise ValueError(f"{what} must be non-negative numbers, got {numbers}.")
    total = sum(numbers.values())
    if total <= 0:
        raise ValueError(f"{what} are all zero: there is nothing to plot.")
    return {k: numbers[k] / total for k in MASKING_CATEGORIES}


def plot_masking_statistics(
    counts: Mapping,
    expected: Mapping | None = None,
    *,
    ax=None,
    title: str | None = None,
    show_expected: bool = True,
):
    """Bar chart of observed vs expected fractions of "[MASK]", "random", "unchanged", "not selected".

    counts: how many maskable tokens fell in each category (counts or fractions; they are normalised to
        sum to 1). Keys are case-insensitive ("mask", "not_selected" work too), and the names of
        ``MaskingResult.fractions()`` ("kept", "untouched", "selected") are understood; a
        ``bertedu.core.masking.MaskingResult`` can be passed directly.
    expected: the fractions to compare with; default BERT's 0.12 / 0.015 / 0.015 / 0.85.
    Each bar is annotated with its percentage. Returns the Figure (closed) or ``ax``.
    """
    counts = _as_mapping(counts)
    observed = _fractions(counts, "counts")
    expected = _fractions(EXPECTED_MASKING if expected is None else expected, "expected")
    total = sum(float(v.item() if hasattr(v, "item") else v) for v in counts.values())
    own = ax is None
    if own:
        fig, ax = new_figure((7.0, 4.2), layout="constrained")
    else:
        fig = ax.figure
    x = np.arange(len(MASKING_CATEGORIES))
    series = [(msg("observed"), observed, "C0")] + (
        [(msg("expected"), expected, "C7")] if show_expected else []
    )
    width = 0.8 / len(series)
    for i, (name, fractions, color) in enumerate(series):
        heights = [fractions[c] for c in MASKING_CATEGORIES]
        bars = ax.bar(x + (i - (len(series) - 1) / 2) * width, heights, width, label=name, color=color)
        ax.bar_label(bars, labels=[f"{h:.1%}" for h in heights], fontsize=8, padding=2)
    ax.set_xticks(x, [translate(SHOWN_NAMES.get(c, c)) for c in MASKING_CATEGORIES])
    ax.set_ylabel(msg("fraction of maskable tokens"))
    ax.set_ylim(0, 1.08)
    ax.legend()
    n = msg(" (n = {total:,.0f} tokens)", total=total) if total > 1.5 and float(total).is_integer() else ""
    ax.set_title(title or msg("BERT masking: observed vs expected{n}", n=n), fontsize=10)
    return finish(fig, ax, own)
