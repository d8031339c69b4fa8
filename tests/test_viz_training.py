"""bertedu.teaching.viz training plots: loss curves (notebook 06) and masking statistics (notebook 03)."""

import re

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from bertedu.teaching import viz

plt.switch_backend("Agg")


def history():
    train = [
        {
            "step": s,
            "split": "train",
            "loss": 5.0 / s,
            "mlm_loss": 4.0 / s,
            "nsp_loss": 1.0 / s,
            "mlm_accuracy": 1 - 1.0 / s,
            "nsp_accuracy": 0.5,
            "lr": 1e-3,
        }
        for s in range(10, 110, 10)
    ]
    evals = [{"step": s, "split": "eval", "mlm_accuracy": 0.9 - 1.0 / s} for s in (50, 100)]
    return evals[:1] + train + evals[1:]  # out of order on purpose


def line(ax, label):
    (found,) = [ln for ln in ax.get_lines() if ln.get_label() == label]
    return found


@pytest.fixture(autouse=True)
def no_leaked_figures():
    before = plt.get_fignums()
    yield
    assert plt.get_fignums() == before


def test_loss_curves_draw_the_history():
    fig = viz.plot_loss_curves(history(), title="run")
    losses, accuracies = fig.axes
    train = line(losses, "loss (train)")
    np.testing.assert_array_equal(train.get_xdata(), np.arange(10, 110, 10))
    np.testing.assert_allclose(train.get_ydata(), 5.0 / np.arange(10, 110, 10))
    assert {ln.get_label() for ln in losses.get_lines()} == {
        "loss (train)",
        "mlm_loss (train)",
        "nsp_loss (train)",
    }
    evaluation = line(accuracies, "mlm_accuracy (eval)")
    np.testing.assert_array_equal(evaluation.get_xdata(), [50, 100])  # sorted by step
    assert (
        evaluation.get_linestyle() == "--" and line(accuracies, "mlm_accuracy (train)").get_linestyle() == "-"
    )
    assert accuracies.get_ylim() == (0, 1.02) and accuracies.get_ylabel() == "accuracy"
    assert not any(
        "lr" in ln.get_label() for ax in fig.axes for ln in ax.get_lines()
    )  # lr is not a default metric
    assert fig._suptitle.get_text() == "run"


def test_loss_curves_metrics_smoothing_and_given_axes():
    records = [{"step": s, "loss": float(v)} for s, v in enumerate([4.0, 2.0, 3.0, 1.0])]  # no split key
    fig = viz.plot_loss_curves(records, smooth=2, logy=True)
    (ax,) = fig.axes
    smoothed = line(ax, "loss, mean of 2")
    np.testing.assert_allclose(smoothed.get_ydata(), [4.0, 3.0, 2.5, 2.0])
    assert ax.get_yscale() == "log"
    fig, ax = plt.subplots()
    try:
        out = viz.plot_loss_curves(history(), metrics=["nsp_loss", "lr"], ax=ax)
        assert out is ax and {ln.get_label() for ln in ax.get_lines()} == {"nsp_loss (train)", "lr (train)"}
    finally:
        plt.close(fig)


@pytest.mark.parametrize(
    "bad, message",
    [
        ([], "empty"),
        ([{"loss": 1.0}], "no 'step' key"),
        ({"step": 1, "loss": 2.0}, "list of records"),
        ([{"step": 1, "lr": 0.1}], "no loss or accuracy"),
    ],
)
def test_loss_curves_bad_history(bad, message):
    with pytest.raises(ValueError, match=message):
        viz.plot_loss_curves(bad)
    with pytest.raises(ValueError, match="never appear"):
        viz.plot_loss_curves(history(), metrics=["perplexity"])
    with pytest.raises(ValueError, match="window"):
        viz.plot_loss_curves(history(), smooth=0)


def test_masking_statistics_bars_and_labels():
    counts = {"[MASK]": 118, "random": 16, "unchanged": 14, "not selected": 852}
    fig = viz.plot_masking_statistics(counts)
    (ax,) = fig.axes
    observed, expected = ax.containers
    np.testing.assert_allclose([b.get_height() for b in observed], [0.118, 0.016, 0.014, 0.852])
    np.testing.assert_allclose([b.get_height() for b in expected], [0.12, 0.015, 0.015, 0.85])
    texts = [t.get_text() for t in ax.texts]
    assert texts == ["11.8%", "1.6%", "1.4%", "85.2%", "12.0%", "1.5%", "1.5%", "85.0%"]
    assert [t.get_text() for t in ax.get_xticklabels()] == list(viz.MASKING_CATEGORIES)
    assert "n = 1,000" in ax.get_title()


def test_masking_statistics_key_spellings_tensors_custom_expected_and_axes():
    counts = {"mask": torch.tensor(40), "random": 5, "UNCHANGED": 5, "not_selected": 50}
    expected = {"[MASK]": 0.4, "random": 0.05, "unchanged": 0.05, "not selected": 0.5}
    fig, ax = plt.subplots()
    try:
        out = viz.plot_masking_statistics(counts, expected, ax=ax, title="p = 0.5")
        assert out is ax and ax.get_title() == "p = 0.5"
        np.testing.assert_allclose([b.get_height() for b in ax.containers[1]], [0.4, 0.05, 0.05, 0.5])
    finally:
        plt.close(fig)
    only = viz.plot_masking_statistics(counts, show_expected=False)
    assert len(only.axes[0].containers) == 1


@pytest.mark.parametrize(
    "counts, message",
    [
        ({"[MASK]": 1, "random": 1, "unchanged": 1}, "missing"),
        ({"[MASK]": 1, "random": 1, "unchanged": 1, "not selected": 1, "other": 2}, "unknown"),
        ({"[MASK]": -1, "random": 1, "unchanged": 1, "not selected": 1}, "non-negative"),
        ({"[MASK]": 0, "random": 0, "unchanged": 0, "not selected": 0}, "all zero"),
        ([0.12, 0.015, 0.015, 0.85], "mapping"),
    ],
)
def test_masking_statistics_bad_counts(counts, message):
    with pytest.raises(ValueError, match=message):
        viz.plot_masking_statistics(counts)


def test_masking_statistics_accepts_a_masking_result_and_its_fractions():
    import torch

    from bertedu.core.masking import mask_tokens_with_details

    ids = torch.randint(5, 100, (64, 40), generator=torch.Generator().manual_seed(0))
    result = mask_tokens_with_details(
        ids,
        mask_token_id=4,
        vocab_size=100,
        special_token_ids=(0, 1, 2, 3, 4),
        generator=torch.Generator().manual_seed(1),
    )
    counts = result.counts()
    assert sum(counts.values()) == ids.numel()
    assert counts["[MASK]"] == int(result.masked.sum())
    for source in (result, result.fractions(), counts):
        fig = viz.plot_masking_statistics(source)
        heights = [b.get_height() for b in fig.axes[0].containers[0]]
        assert heights == pytest.approx(
            [counts[k] / ids.numel() for k in ("[MASK]", "random", "unchanged", "not selected")]
        )


def test_loss_curve_legends_name_the_metrics_in_chinese():
    """The Chinese edition's legends said "mlm_accuracy（评估）" (review of 2026-12-06, F5): the metric keys of a
    history are shown by name in Chinese, by key in English (what `metrics=` takes)."""
    from bertedu import language

    language.set_language("zh")
    try:
        fig = viz.plot_loss_curves(history(), smooth=2)
        labels = {
            ln.get_label() for ax in fig.axes for ln in ax.get_lines() if not ln.get_label().startswith("_")
        }
    finally:
        language.set_language(None)
    assert {"损失（训练），2 点滑动平均", "MLM 损失（训练），2 点滑动平均", "MLM 准确率（评估）"} <= labels, (
        labels
    )
    assert not [label for label in labels if re.search(r"[a-z]+_[a-z]+", label)], labels
