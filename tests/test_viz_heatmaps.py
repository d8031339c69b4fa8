"""bertedu.teaching.viz heatmaps: the drawn matrix is the attention, padding is left out, no figure leaks."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from bertedu.teaching import viz

plt.switch_backend("Agg")

PAIR = ["[CLS]", "the", "cat", "[SEP]", "it", "sat", "[SEP]", "[PAD]", "[PAD]"]  # T = 9, 2 padding


def softmax_attention(shape, n_pad=0, seed=0):
    """Random valid attention of ``shape`` (..., T, T): rows sum to 1, the last ``n_pad`` keys get 0."""
    scores = torch.randn(*shape, generator=torch.Generator().manual_seed(seed))
    if n_pad:
        scores[..., -n_pad:] = float("-inf")  # key mask, as the model applies it
    return torch.softmax(scores, dim=-1)


def drawn(ax):
    """The matrix drawn on ``ax`` (seaborn and pcolormesh both leave a QuadMesh), rows x cols."""
    (mesh,) = [c for c in ax.collections if hasattr(c, "get_array") and c.get_array() is not None][:1]
    return np.asarray(mesh.get_array(), dtype=np.float64)


def labels(ticks):
    return [t.get_text() for t in ticks]


@pytest.fixture(autouse=True)
def no_leaked_figures():
    before = plt.get_fignums()
    yield
    assert plt.get_fignums() == before, "a plotting function left a figure open"


def test_plotted_matrix_equals_the_attention_tensor_and_rows_sum_to_one():
    tokens = ["[CLS]", "the", "cat", "sat", "[SEP]"]
    attn = softmax_attention((5, 5))
    fig = viz.plot_attention(attn, tokens, title="one head")
    ax = fig.axes[0]
    m = drawn(ax)
    np.testing.assert_array_equal(m, attn.numpy().astype(np.float64))
    np.testing.assert_allclose(m.sum(axis=1), 1.0, atol=1e-6)
    assert labels(ax.get_xticklabels()) == tokens and labels(ax.get_yticklabels()) == tokens
    assert "query" in ax.get_ylabel() and "key" in ax.get_xlabel()
    assert ax.get_title() == "one head"


def test_dollar_signs_in_tokens_are_drawn_as_text():
    """A token "$$" used to reach Matplotlib's maths parser and fail; now every $ is drawn literally."""
    tokens = ["[CLS]", "$$", "$x$", "$", "[SEP]"]
    fig = viz.plot_attention(softmax_attention((5, 5)), tokens)
    fig.canvas.draw()  # the maths parser runs when the labels are drawn
    ax = fig.axes[0]
    assert labels(ax.get_xticklabels()) == ["[CLS]", r"\$\$", r"\$x\$", r"\$", "[SEP]"]
    plt.close(fig)


@pytest.mark.slow
def test_padding_rows_and_columns_are_left_out_and_padded_columns_are_zero():
    attn = softmax_attention((9, 9), n_pad=2, seed=1)
    assert torch.all(attn[:, -2:] == 0)  # what the model must produce: padded key columns are 0
    ax = viz.plot_attention(attn, PAIR).axes[0]
    np.testing.assert_array_equal(drawn(ax), attn[:7, :7].numpy())
    assert "[PAD]" not in labels(ax.get_xticklabels()) + labels(ax.get_yticklabels())
    # the same from an attention_mask, whatever the padding tokens are called
    ax = viz.plot_attention(
        attn, [t.replace("[PAD]", "<pad>") for t in PAIR], attention_mask=torch.tensor([[1] * 7 + [0] * 2])
    ).axes[0]
    assert drawn(ax).shape == (7, 7)
    # kept when asked: the padded columns are drawn, and they are zero
    ax = viz.plot_attention(attn, PAIR, hide_padding=False).axes[0]
    assert drawn(ax).shape == (9, 9) and np.all(drawn(ax)[:, -2:] == 0)


def test_attention_on_padding_keys_is_reported():
    scores = torch.randn(9, 9)
    scores[-2:, :] = float("-inf")  # the classic bug: the mask applied to the queries
    scores[-2:, 0] = 0.0
    attn = torch.softmax(scores, dim=-1)
    with pytest.raises(ValueError, match="padding key columns"):
        viz.plot_attention(attn, PAIR)
    viz.plot_attention(attn, PAIR, check=False)  # allowed when asked for


@pytest.mark.slow
def test_sentence_pair_boundary_is_drawn_after_the_first_sep():
    attn = softmax_attention((9, 9), n_pad=2)
    ax = viz.plot_attention(attn, PAIR).axes[0]
    positions = sorted((tuple(line.get_xdata()), tuple(line.get_ydata())) for line in ax.lines)
    assert ((0, 1), (4, 4)) in positions  # horizontal line between query rows 3 and 4
    assert ((4, 4), (0, 1)) in positions  # vertical line between key columns 3 and 4
    single = viz.plot_attention(softmax_attention((4, 4)), ["[CLS]", "a", "b", "[SEP]"]).axes[0]
    assert len(single.lines) == 0
    assert len(viz.plot_attention(attn, PAIR, sep_boundary=False).axes[0].lines) == 0


def test_hidden_key_columns_with_and_without_renormalisation():
    attn = softmax_attention((9, 9), n_pad=2, seed=2)
    keep = [1, 2, 4, 5]  # not [CLS], [SEP], [PAD]
    fig = viz.plot_attention(attn, PAIR, hide_keys=("[CLS]", "[SEP]"))
    ax = fig.axes[0]
    np.testing.assert_array_equal(drawn(ax), attn[:7][:, keep].numpy())
    assert labels(ax.get_xticklabels()) == ["the", "cat", "it", "sat"]
    assert "not renormalised" in ax.get_title()
    ax = viz.plot_attention(attn, PAIR, hide_keys=("[CLS]", "[SEP]"), renormalize=True).axes[0]
    expected = attn[:7][:, keep] / attn[:7][:, keep].sum(-1, keepdim=True)
    np.testing.assert_allclose(drawn(ax), expected.numpy(), rtol=1e-6)
    assert "renormalised to sum to 1" in ax.get_title()


def test_colour_scale_and_drawing_into_a_given_axes():
    attn = softmax_attention((4, 4))
    fig, axes = plt.subplots(1, 2)
    try:
        out = viz.plot_attention(attn, list("abcd"), ax=axes[0], vmax=1.0, annotate=True, check=False)
        assert out is axes[0]
        mesh = axes[0].collections[0]
        assert mesh.get_clim() == (0.0, 1.0)
        assert len(axes[0].texts) == 16  # one annotation per cell
        viz.plot_attention(attn, list("abcd"), ax=axes[1])
        assert axes[1].collections[0].get_clim()[1] == pytest.approx(float(attn.max()))
    finally:
        plt.close(fig)


@pytest.mark.slow
def test_repeated_calls_do_not_leak_figures():
    before = plt.get_fignums()
    att = softmax_attention((2, 1, 2, 9, 9), n_pad=2)
    for _ in range(2):
        viz.plot_attention(att[0, 0, 0], PAIR)
        viz.plot_attention_grid(att, PAIR, include_mean=True)
        viz.plot_mean_attention(att, PAIR)
        viz.plot_mean_attention(att, PAIR, layer=1)
    assert plt.get_fignums() == before


@pytest.mark.slow
def test_grid_draws_every_layer_and_head_on_one_colour_scale():
    layers = tuple(
        softmax_attention((2, 3, 9, 9), n_pad=2, seed=s) for s in range(2)
    )  # model output: L x (B, A, T, T)
    fig = viz.plot_attention_grid(layers, PAIR, batch_index=1, include_mean=True)
    grid = np.array(fig.axes[:8]).reshape(2, 4)  # 2 layers x (3 heads + mean); the colour bar comes last
    for layer in range(2):
        for head in range(3):
            np.testing.assert_array_equal(drawn(grid[layer, head]), layers[layer][1, head, :7, :7].numpy())
        np.testing.assert_allclose(
            drawn(grid[layer, 3]), layers[layer][1, :, :7, :7].mean(0).numpy(), rtol=1e-6
        )
    climits = {ax.collections[0].get_clim() for ax in grid.ravel()}
    top = max(float(layers[layer][1, :, :7, :7].max()) for layer in range(2))
    assert len(climits) == 1 and climits.pop() == (0.0, pytest.approx(top))
    assert [grid[0, c].get_title() for c in range(4)] == ["head 0", "head 1", "head 2", "mean"]
    assert [grid[r, 0].get_ylabel() for r in range(2)] == ["layer 0", "layer 1"]
    assert len(fig.axes) == 9  # 8 panels + one shared colour bar


def test_grid_selection_and_a_stacked_array():
    att = softmax_attention((3, 4, 5, 5)).numpy()  # (L, A, T, T)
    tokens = ["[CLS]", "a", "b", "c", "[SEP]"]
    fig = viz.plot_attention_grid(att, tokens, layers=[2], heads=[1, 3], vmax=1.0)
    np.testing.assert_array_equal(drawn(fig.axes[0]), att[2, 1])
    np.testing.assert_array_equal(drawn(fig.axes[1]), att[2, 3])
    assert fig.axes[0].collections[0].get_clim() == (0.0, 1.0)


def test_mean_attention_over_heads():
    att = softmax_attention((2, 1, 4, 6, 6), seed=3)  # (L, B, A, T, T)
    tokens = ["[CLS]", "a", "b", "[SEP]", "c", "[SEP]"]
    fig = viz.plot_mean_attention(att, tokens, layer=1)
    m = drawn(fig.axes[0])
    np.testing.assert_allclose(m, att[1, 0].mean(0).numpy(), rtol=1e-6)
    np.testing.assert_allclose(m.sum(1), 1.0, atol=1e-6)
    assert "mean over 4 heads" in fig.axes[0].get_title()
    fig = viz.plot_mean_attention(att, tokens)
    for layer in range(2):
        np.testing.assert_allclose(drawn(fig.axes[layer]), att[layer, 0].mean(0).numpy(), rtol=1e-6)
    np.testing.assert_allclose(viz.attention_matrix(att, 0, "mean"), att[0, 0].mean(0).numpy(), rtol=1e-6)
    np.testing.assert_array_equal(viz.attention_matrix(list(att), 1, 2), att[1, 0, 2].numpy())


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda a: viz.plot_attention(a, PAIR), "ONE head"),
        (lambda a: viz.plot_attention(a[0][0, 0], PAIR[:5]), "9 tokens"),
        (lambda a: viz.plot_attention(a[0][0, 0], "the cat sat"), "not one string"),
        (lambda a: viz.plot_attention(a[0][0, 0] * 2, PAIR), "sum to 1"),
        (lambda a: viz.plot_attention(a[0][0, 0] - 0.5, PAIR), ">= 0"),
        (lambda a: viz.plot_attention(a[0][0, 0], PAIR, attention_mask=torch.ones(5)), "attention_mask"),
        (lambda a: viz.plot_attention_grid(a, PAIR, heads=[3]), "head 3 is out of range"),
        (lambda a: viz.plot_attention_grid(a, PAIR, layers=[5]), "layer 5 is out of range"),
        (lambda a: viz.plot_attention_grid(a, PAIR, batch_index=2), "batch_index"),
        (lambda a: viz.plot_attention_grid(a[0][0], PAIR), "shape"),
        (lambda a: viz.plot_mean_attention(a, PAIR, layer=2), "layer 2 is out of range"),
        (lambda a: viz.attention_matrix(a, 0, "max"), "'mean'"),
        (lambda a: viz.plot_attention(torch.full((9, 9), float("nan")), PAIR), "NaN"),
    ],
)
def test_bad_input_gives_a_clear_value_error(call, message):
    att = tuple(softmax_attention((1, 3, 9, 9), n_pad=2, seed=s) for s in range(2))
    with pytest.raises(ValueError, match=message):
        call(att)


def test_to_numpy_keeps_float64_precision():
    import torch

    from bertedu.teaching.viz._core import to_numpy

    x = torch.tensor([1 / 3, 1e-12 + 1.0], dtype=torch.float64)
    assert to_numpy(x).tolist() == x.tolist()  # not rounded through float32
    assert to_numpy(x.half()).dtype == np.float64
