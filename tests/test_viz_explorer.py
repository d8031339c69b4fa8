"""bertedu.teaching.viz.AttentionExplorer driven headless: set widget values, check selection, matrix and output."""

import base64

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from bertedu.teaching import viz

plt.switch_backend("Agg")

SPECIAL = ("[CLS]", "[SEP]")


class FakeAttention:
    """attention_fn(text, text_pair) -> (tokens, (L, heads, T, T)); every (layer, head) differs."""

    def __init__(self, n_layers=3, n_heads=2):
        self.n_layers, self.n_heads, self.calls = n_layers, n_heads, []

    def __call__(self, text, text_pair):
        self.calls.append((text, text_pair))
        if not text.strip():
            raise ValueError("type a sentence first")
        tokens = ["[CLS]", *text.split(), "[SEP]"] + ([*text_pair.split(), "[SEP]"] if text_pair else [])
        t = len(tokens)
        gen = torch.Generator().manual_seed(t)
        att = torch.softmax(3 * torch.randn(self.n_layers, self.n_heads, t, t, generator=gen), dim=-1)
        return tokens, att.numpy()


def png(explorer):
    (output,) = explorer.output.outputs
    assert output["output_type"] == "display_data"
    return base64.b64decode(output["data"]["image/png"])


@pytest.fixture(autouse=True)
def no_leaked_figures():
    before = plt.get_fignums()
    yield
    assert plt.get_fignums() == before


def test_initial_view_is_drawn_into_a_fixed_height_output():
    fn = FakeAttention()
    ex = viz.AttentionExplorer(text="the cat sat", attention_fn=fn)
    assert fn.calls == [("the cat sat", None)]
    assert ex.selection == {
        "layer": 0,
        "head": "mean",
        "text": "the cat sat",
        "text_pair": None,
        "hide_special": False,
        "renormalize": False,
    }
    assert ex.tokens == ["[CLS]", "the", "cat", "sat", "[SEP]"]
    _, att = fn("the cat sat", None)
    np.testing.assert_allclose(ex.current_matrix, att[0].mean(0), rtol=1e-6)
    assert ex.draw_count == 1 and png(ex)[:8] == b"\x89PNG\r\n\x1a\n"
    assert ex.output.layout.height == "520px"
    assert ex.layer_slider.max == 2 and [v for _, v in ex.head_dropdown.options] == ["mean", 0, 1]
    assert "application/vnd.jupyter.widget-view+json" in ex._repr_mimebundle_()


@pytest.mark.slow
def test_slider_and_dropdown_update_the_selection_matrix_and_figure():
    fn = FakeAttention()
    ex = viz.AttentionExplorer(text="the cat sat on the mat", attention_fn=fn)
    _, att = fn("the cat sat on the mat", None)
    first = png(ex)
    ex.layer_slider.value = 2
    assert ex.selection["layer"] == 2 and ex.draw_count == 2
    np.testing.assert_allclose(ex.current_matrix, att[2].mean(0), rtol=1e-6)
    second = png(ex)
    assert second != first
    ex.head_dropdown.value = 1
    assert ex.selection["head"] == 1 and ex.draw_count == 3
    np.testing.assert_array_equal(ex.current_matrix, att[2, 1])
    np.testing.assert_allclose(ex.current_matrix.sum(1), 1.0, atol=1e-6)
    assert png(ex) not in (first, second)
    assert len(ex.output.outputs) == 1  # replaced, never appended
    assert ex.figure().axes[0].get_title() == "layer 2, head 1"
    assert len(fn.calls) == 2  # the model ran once (+ once here for the reference): no recomputation


@pytest.mark.slow
def test_hide_special_toggle():
    fn = FakeAttention()
    ex = viz.AttentionExplorer(text="the cat", text_pair="it sat", attention_fn=fn, layer=1, head=0)
    _, att = fn("the cat", "it sat")
    ex.hide_special.value = True
    keep = [i for i, t in enumerate(ex.tokens) if t not in SPECIAL]
    assert ex.selection["hide_special"] is True
    np.testing.assert_array_equal(ex.current_matrix, att[1, 0][:, keep])
    assert ex.col_tokens == ["the", "cat", "it", "sat"] and ex.row_tokens == ex.tokens
    assert "not renormalised" in ex.figure().axes[0].get_title()
    ex.hide_special.value = False
    np.testing.assert_array_equal(ex.current_matrix, att[1, 0])
    assert ex.draw_count == 3

    renorm = viz.AttentionExplorer(
        text="the cat", text_pair="it sat", attention_fn=fn, hide_special=True, renormalize=True
    )
    np.testing.assert_allclose(renorm.current_matrix.sum(1), 1.0, atol=1e-6)
    assert "renormalised to sum to 1" in renorm.figure().axes[0].get_title()


@pytest.mark.slow
def test_typing_a_new_sentence_recomputes():
    fn = FakeAttention()
    ex = viz.AttentionExplorer(text="the cat", attention_fn=fn)
    ex.text_box.value = "a dog ran home"
    assert fn.calls[-1] == ("a dog ran home", None)
    assert ex.tokens == ["[CLS]", "a", "dog", "ran", "home", "[SEP]"] and ex.current_matrix.shape == (6, 6)
    ex.pair_box.value = "it slept"
    assert fn.calls[-1] == ("a dog ran home", "it slept")
    assert ex.selection["text_pair"] == "it slept" and ex.current_matrix.shape == (9, 9)
    assert ex.draw_count == 3


@pytest.mark.slow
def test_errors_are_shown_under_the_controls_and_the_last_picture_stays():
    fn = FakeAttention()
    ex = viz.AttentionExplorer(text="the cat", attention_fn=fn)
    before = ex.current_matrix.copy()
    ex.text_box.value = "   "
    assert ex.error == "type a sentence first" and "type a sentence first" in ex.status.value
    assert ex.selection["text"] == "the cat" and ex.draw_count == 1
    np.testing.assert_array_equal(ex.current_matrix, before)
    ex.text_box.value = "the dog"
    assert ex.error is None and ex.status.value == "" and ex.draw_count == 2


@pytest.mark.slow
def test_select_sets_several_controls_with_one_redraw_and_checks_ranges():
    fn = FakeAttention(n_layers=2, n_heads=4)
    ex = viz.AttentionExplorer(text="the cat", attention_fn=fn)
    selection = ex.select(text="a b c", layer=1, head=3, hide_special=True)
    assert selection["layer"] == 1 and selection["head"] == 3 and selection["text"] == "a b c"
    assert ex.draw_count == 2
    with pytest.raises(ValueError, match="head 4 is out of range"):
        ex.select(head=4)
    with pytest.raises(ValueError, match="layer 2 is out of range"):
        viz.AttentionExplorer(text="x", attention_fn=fn, layer=2)
    with pytest.raises(ValueError, match="model and its tokenizer"):
        viz.AttentionExplorer(text="x")


@pytest.mark.slow
def test_many_redraws_do_not_leak_figures():
    before = plt.get_fignums()
    ex = viz.AttentionExplorer(text="the cat sat", attention_fn=FakeAttention())
    for layer, head in [(1, 1), (2, 0), (0, 1)]:
        ex.layer_slider.value = layer
        ex.head_dropdown.value = head
    assert plt.get_fignums() == before and ex.draw_count == 7


TINY_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", "it", "slept"]


def bertedu_model():
    from bertedu.core.config import BertConfig
    from bertedu.core.model import BertModel
    from bertedu.core.tokenizer import BertTokenizer

    config = BertConfig(
        vocab_size=len(TINY_VOCAB),
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
    )
    return BertModel(config), BertTokenizer(TINY_VOCAB)


def transformers_model(tmp_path):
    transformers = pytest.importorskip("transformers")
    (tmp_path / "vocab.txt").write_text("\n".join(TINY_VOCAB) + "\n", encoding="utf-8")
    config = transformers.BertConfig(
        vocab_size=len(TINY_VOCAB),
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
        attn_implementation="eager",
    )
    return transformers.BertModel(config), transformers.BertTokenizer(str(tmp_path / "vocab.txt"))


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["bertedu", "transformers"])
def test_with_a_tiny_real_model(backend, tmp_path):
    torch.manual_seed(0)
    model, tok = bertedu_model() if backend == "bertedu" else transformers_model(tmp_path)
    model.train()
    ex = viz.AttentionExplorer(model, tok, text="the cat sat on the mat", text_pair="it slept", head=1)
    assert model.training  # the explorer switched to eval mode only for its own forward pass
    assert ex.tokens == ["[CLS]", "the", "cat", "sat", "on", "the", "mat", "[SEP]", "it", "slept", "[SEP]"]
    enc = tok("the cat sat on the mat", text_pair="it slept", return_tensors="pt")
    model.eval()
    with torch.no_grad():
        out = model(
            **{k: enc[k] for k in ("input_ids", "token_type_ids", "attention_mask")}, output_attentions=True
        )
    np.testing.assert_allclose(ex.current_matrix, out.attentions[0][0, 1].numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(ex.current_matrix.sum(1), 1.0, atol=1e-5)
    ex.layer_slider.value = 1
    np.testing.assert_allclose(ex.current_matrix, out.attentions[1][0, 1].numpy(), rtol=1e-5, atol=1e-7)
    tokens, att = viz.compute_attentions(model, tok, "the cat")
    assert tokens == ["[CLS]", "the", "cat", "[SEP]"] and att.shape == (2, 2, 4, 4)
    with pytest.raises(ValueError, match="empty"):
        viz.compute_attentions(model, tok, "")
