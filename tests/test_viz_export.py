"""bertedu.teaching.viz exports: figures (PNG/SVG), a matrix to CSV and back, bertviz's format."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from bertedu.teaching import viz

plt.switch_backend("Agg")

PAIR = ["[CLS]", "the", "cat", "[SEP]", "it", "sat", "[SEP]", "[PAD]"]  # T = 8, one padding


def attentions(n_layers=2, batch=2, heads=3, t=8, n_pad=1):
    gen = torch.Generator().manual_seed(0)
    out = []
    for _ in range(n_layers):
        scores = torch.randn(batch, heads, t, t, generator=gen)
        scores[..., t - n_pad :] = float("-inf")
        out.append(torch.softmax(scores, dim=-1))
    return tuple(out)  # L x (B, heads, T, T), like model(..., output_attentions=True).attentions


@pytest.mark.slow
def test_save_figure_png_and_svg(tmp_path):
    fig = viz.plot_attention(attentions()[0][0, 0], PAIR)
    png = viz.save_figure(fig, tmp_path / "head.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = viz.save_figure(fig.axes[0], tmp_path / "sub" / "head.svg")  # an Axes works too; folders are made
    text = svg.read_text(encoding="utf-8")
    assert "<svg" in text and "[CLS]" in text
    again = viz.save_figure(fig, tmp_path / "again.svg")
    assert again.read_text(encoding="utf-8") == text  # no timestamp: re-saving gives the same file
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["again.svg", "head.png", "head.svg"]
    with pytest.raises(ValueError, match=r"\.png"):
        viz.save_figure(fig, tmp_path / "head.jpeg")
    with pytest.raises(ValueError, match="Figure or Axes"):
        viz.save_figure("not a figure", tmp_path / "x.png")


def test_csv_round_trip_is_exact_with_duplicate_and_awkward_tokens(tmp_path):
    tokens = ["[CLS]", "the", "cat", "the", 'a,"b"', "[SEP]"]
    matrix = torch.softmax(torch.randn(6, 6), dim=-1)  # float32, as the model returns it
    path = viz.save_attention_csv(matrix, tokens, tmp_path / "attn.csv")
    back, rows, cols = viz.load_attention_csv(path)
    np.testing.assert_array_equal(back, matrix.numpy().astype(np.float64))
    assert rows == tokens and cols == tokens
    header = path.read_text(encoding="utf-8").splitlines()[0]
    assert header.startswith("query \\ key,[CLS],the,cat,the,")
    # a view with hidden key columns: different column labels
    keep = [1, 2, 3, 4]
    path = viz.save_attention_csv(
        matrix[:, keep], tokens, tmp_path / "hidden.csv", key_tokens=[tokens[i] for i in keep]
    )
    back, rows, cols = viz.load_attention_csv(path)
    np.testing.assert_array_equal(back, matrix[:, keep].numpy())
    assert cols == ["the", "cat", "the", 'a,"b"']


def test_csv_bad_input(tmp_path):
    with pytest.raises(ValueError, match="one \\(T, T\\) matrix"):
        viz.save_attention_csv(torch.ones(2, 3, 3), ["a", "b", "c"], tmp_path / "x.csv")
    with pytest.raises(ValueError, match="3 tokens"):
        viz.save_attention_csv(torch.ones(3, 3), ["a", "b"], tmp_path / "x.csv")
    (tmp_path / "other.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not an attention CSV"):
        viz.load_attention_csv(tmp_path / "other.csv")


def test_bertviz_format():
    att = attentions()
    out = viz.to_bertviz(att, [PAIR, PAIR], batch_index=1)
    assert set(out) == {"attention", "tokens", "sentence_b_start"}
    assert isinstance(out["attention"], tuple) and len(out["attention"]) == 2
    for layer, tensor in enumerate(out["attention"]):
        assert isinstance(tensor, torch.Tensor) and tensor.shape == (1, 3, 7, 7)  # padding cut off
        torch.testing.assert_close(tensor[0], att[layer][1, :, :7, :7])
        torch.testing.assert_close(tensor.sum(-1), torch.ones(1, 3, 7))
    assert out["tokens"] == PAIR[:7]
    assert out["sentence_b_start"] == 4 and out["tokens"][4] == "it"
    single = viz.to_bertviz(att, ["[CLS]", "a", "b", "c", "d", "e", "[SEP]", "[PAD]"])
    assert single["sentence_b_start"] is None
    kept = viz.to_bertviz(att, PAIR, hide_padding=False, attention_mask=torch.ones(2, 8))
    assert kept["attention"][0].shape == (1, 3, 8, 8) and len(kept["tokens"]) == 8
    with pytest.raises(ValueError, match="8 tokens"):
        viz.to_bertviz(att, PAIR[:3])
