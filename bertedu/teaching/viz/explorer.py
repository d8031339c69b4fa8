"""An interactive attention explorer (ipywidgets): type a sentence, pick a layer and a head.

Runs offline: it uses only ipywidgets' built-in controls (served by the installed JupyterLab extension,
no CDN) and sends the heatmap as a PNG into an Output widget of fixed height, replacing the previous
picture in one step (no flicker, no jumping page). Introduced in notebook 08.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Callable, Sequence

import matplotlib.pyplot as plt
import numpy as np

from bertedu.language import msg

from ._core import check_index, check_tokens, make_view, stack_attentions
from .heatmaps import plot_attention

MODEL_INPUTS = ("input_ids", "token_type_ids", "attention_mask")


def compute_attentions(
    model, tokenizer, text: str, text_pair: str | None = None
) -> tuple[list[str], np.ndarray]:
    """Run ``model`` on one sentence (or sentence pair) and return ``(tokens, attentions)``.

    ``attentions`` is a NumPy array (L, heads, T, T); ``tokens`` the T token strings, [CLS] and [SEP]
    included. The model is put in eval mode (no dropout) for the call and restored afterwards; gradients
    are off. Works with bertedu's models and tokenizers (and Hugging Face's: load those with
    ``attn_implementation="eager"`` so they return attention weights).
    """
    import torch

    if not isinstance(text, str) or not text.strip():
        raise ValueError("type a sentence first: the text is empty.")
    if text_pair is not None and not text_pair.strip():
        text_pair = None
    enc = tokenizer(text, text_pair=text_pair, return_tensors="pt")
    inputs = {k: enc[k] for k in MODEL_INPUTS if k in enc}  # input_ids, token_type_ids, attention_mask
    if inputs["input_ids"].dim() == 1:
        inputs = {k: v.unsqueeze(0) for k, v in inputs.items()}  # (T,) -> (1, T)
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            out = model(**inputs, output_attentions=True)
    finally:
        model.train(was_training)
    attentions = getattr(out, "attentions", None)
    if attentions is None:
        raise ValueError(
            "the model returned no attentions: call it with output_attentions=True support "
            "(Hugging Face models: load with attn_implementation='eager')."
        )
    tokens = list(tokenizer.convert_ids_to_tokens(inputs["input_ids"][0].tolist()))
    return tokens, stack_attentions(attentions, 0)  # list of T, (L, heads, T, T)


class AttentionExplorer:
    """Widget to explore a model's attention: sentence (and optional second sentence), layer, head.

    ``AttentionExplorer(model, tokenizer, text="the cat sat on the mat")``, or with any function
    ``attention_fn(text, text_pair) -> (tokens, attentions)`` instead of a model (attentions as
    ``out.attentions`` or (L, heads, T, T)). Show it by making it the last expression of a cell.

    Controls (all ipywidgets, drivable from Python by setting ``.value``): ``text_box``, ``pair_box``,
    ``layer_slider``, ``head_dropdown`` ("mean" or a head number), ``hide_special`` (checkbox).

    Hiding [CLS]/[SEP] leaves their key columns out. By default the remaining weights are NOT renormalised:
    every number drawn is a weight the model really used (a row now sums to less than 1 and the colour
    scale adapts to the remaining weights). ``renormalize=True`` rescales each row to sum to 1 instead
    ("where does the head look among the ordinary tokens?"). The figure title states which one is shown.

    Readable from Python: ``.selection`` (dict: layer, head, text, text_pair, hide_special, renormalize),
    ``.tokens``, ``.attentions`` (L, heads, T, T), ``.current_matrix`` (what is drawn, rows x columns),
    ``.row_tokens``/``.col_tokens``, ``.draw_count``, ``.error`` (last message, or None), and
    ``.figure()`` for a static, closed Figure of the current view (to save or display).
    Introduced in notebook 08.
    """

    def __init__(
        self,
        model=None,
        tokenizer=None,
        text: str = "The cat sat on the mat.",
        text_pair: str | None = None,
        *,
        attention_fn: Callable[[str, str | None], tuple[Sequence[str], object]] | None = None,
        layer: int = 0,
        head: int | str = "mean",
        hide_special: bool = False,
        renormalize: bool = False,
        special_tokens: Sequence[str] = ("[CLS]", "[SEP]"),
        height: int = 520,
        dpi: int = 100,
        cmap: str = "viridis",
    ):
        if attention_fn is None:
            if model is None or tokenizer is None:
                raise ValueError(
                    "pass a model and its tokenizer, or attention_fn(text, text_pair) -> "
                    "(tokens, attentions)."
                )
            attention_fn = lambda t, p: compute_attentions(model, tokenizer, t, p)
        if not isinstance(height, int) or height < 200:
            raise ValueError(f"height is the output height in pixels (an integer >= 200), got {height!r}.")
        self.attention_fn = attention_fn
        self.renormalize = bool(renormalize)
        self.special_tokens = tuple(special_tokens)
        self.height, self.dpi, self.cmap = height, dpi, cmap
        self.tokens: list[str] = []
        self.attentions: np.ndarray | None = None  # (L, heads, T, T)
        self.current_matrix: np.ndarray | None = None  # (rows, cols) as drawn
        self.row_tokens: list[str] = []
        self.col_tokens: list[str] = []
        self.draw_count = 0
        self.error: str | None = None
        self._text, self._text_pair = "", None  # the sentence(s) whose attention is shown
        self._quiet = False  # True while select() sets several widgets (one redraw at the end)

        self._build_widgets(text, text_pair, hide_special)

        if text.strip():
            self._compute(raise_errors=True)
            self.layer_slider.value = check_index(layer, self.attentions.shape[0], "layer")
            self.head_dropdown.value = (
                head if head == "mean" else check_index(head, self.attentions.shape[1], "head")
            )
            self._redraw()
        for control in (self.text_box, self.pair_box):
            control.observe(self._on_text, names="value")
        for control in (self.layer_slider, self.head_dropdown, self.hide_special):
            control.observe(self._on_view, names="value")

    def _build_widgets(self, text: str, text_pair: str | None, hide_special: bool) -> None:
        """The controls (sentence, pair, layer, head, hide-special), the status line and the plot's output area,
        stacked in ``self.widget``."""
        import ipywidgets as widgets

        wide = widgets.Layout(width="48%")
        # the labels follow the course's language (bertedu.language); the values ("mean", ints) do not
        self.text_box = widgets.Text(
            value=text, description=msg("sentence"), continuous_update=False, layout=wide
        )
        self.pair_box = widgets.Text(
            value=text_pair or "",
            description=msg("pair"),
            continuous_update=False,
            placeholder=msg("optional second sentence"),
            layout=wide,
        )
        self.layer_slider = widgets.IntSlider(
            value=0, min=0, max=0, description=msg("layer"), continuous_update=False
        )
        self.head_dropdown = widgets.Dropdown(
            options=[(msg("mean"), "mean")], value="mean", description=msg("head")
        )
        self.hide_special = widgets.Checkbox(
            value=bool(hide_special),
            indent=False,
            description=msg("hide {tokens} columns", tokens="/".join(self.special_tokens)),
        )
        self.status = widgets.HTML(layout=widgets.Layout(min_height="1.5em"))
        self.output = widgets.Output(layout=widgets.Layout(height=f"{self.height}px", overflow="hidden"))
        self.widget = widgets.VBox(
            [
                widgets.HBox([self.text_box, self.pair_box]),
                widgets.HBox([self.layer_slider, self.head_dropdown, self.hide_special]),
                self.status,
                self.output,
            ]
        )

    # --- what is selected ----------------------------------------------------------------------------------
    @property
    def selection(self) -> dict:
        """The current choice: layer, head (int or "mean"), text, text_pair, hide_special, renormalize."""
        return {
            "layer": self.layer_slider.value,
            "head": self.head_dropdown.value,
            "text": self._text,
            "text_pair": self._text_pair,
            "hide_special": self.hide_special.value,
            "renormalize": self.renormalize,
        }

    def select(
        self,
        *,
        layer: int | None = None,
        head: int | str | None = None,
        text: str | None = None,
        text_pair: str | None = None,
        hide_special: bool | None = None,
    ) -> dict:
        """Set several controls at once (one recomputation/redraw) and return the new selection."""
        self._quiet = True
        try:
            if text is not None:
                self.text_box.value = text
            if text_pair is not None:
                self.pair_box.value = text_pair
            if text is not None or text_pair is not None:
                self._compute(raise_errors=True)
            if layer is not None:
                self.layer_slider.value = check_index(layer, self.attentions.shape[0], "layer")
            if head is not None:
                self.head_dropdown.value = (
                    head if head == "mean" else check_index(head, self.attentions.shape[1], "head")
                )
            if hide_special is not None:
                self.hide_special.value = bool(hide_special)
        finally:
            self._quiet = False
        self._redraw()
        return self.selection

    # --- computing and drawing -----------------------------------------------------------------------------
    def _compute(self, raise_errors: bool = False) -> bool:
        """Run attention_fn on the text boxes; update the slider and dropdown to the model's shape."""
        text, pair = self.text_box.value, self.pair_box.value.strip() or None
        try:
            tokens, attentions = self.attention_fn(text, pair)
            attentions = stack_attentions(attentions, 0)  # (L, heads, T, T)
            tokens = check_tokens(tokens, attentions.shape[-1])
        except Exception as err:  # noqa: BLE001 - shown under the controls, a callback's traceback is invisible
            if raise_errors:
                raise
            self._report(err)
            return False
        self.tokens, self.attentions, self._text, self._text_pair = tokens, attentions, text, pair
        n_layers, n_heads = attentions.shape[:2]
        quiet, self._quiet = self._quiet, True
        self.layer_slider.max = n_layers - 1  # clamps .value if the new model is smaller
        options = [(msg("mean"), "mean")] + [(str(h), h) for h in range(n_heads)]
        if list(self.head_dropdown.options) != options:
            keep = self.head_dropdown.value
            self.head_dropdown.options = options
            self.head_dropdown.value = keep if keep == "mean" or keep < n_heads else "mean"
        self._quiet = quiet
        return True

    def _title(self) -> str:
        layer, head = self.layer_slider.value, self.head_dropdown.value
        which = (
            msg("mean of {n} heads", n=self.attentions.shape[1])
            if head == "mean"
            else msg("head {h}", h=head)
        )
        return msg("layer {layer}, {which}", layer=layer, which=which)

    def _matrix(self) -> np.ndarray:
        """The selected head's full (T, T) matrix (or the mean over heads)."""
        layer, head = self.layer_slider.value, self.head_dropdown.value
        per_head = self.attentions[layer]  # (heads, T, T)
        return per_head.mean(axis=0) if head == "mean" else per_head[head]

    def _view_options(self) -> dict:
        hide = self.special_tokens if self.hide_special.value else ()
        return dict(hide_keys=hide, renormalize=self.renormalize and bool(hide))

    def figure(self):
        """A static Figure of the current view (closed: display it or pass it to save_figure)."""
        if self.attentions is None:
            raise ValueError("nothing to draw yet: type a sentence first.")
        fig, ax = plt.subplots(
            figsize=(self.height / self.dpi * 1.15, (self.height - 8) / self.dpi),
            dpi=self.dpi,
            layout="constrained",
        )
        plot_attention(
            self._matrix(), self.tokens, ax=ax, title=self._title(), cmap=self.cmap, **self._view_options()
        )
        plt.close(fig)
        return fig

    def _redraw(self) -> None:
        """Draw the current selection and swap it into the output in one step."""
        if self._quiet or self.attentions is None:
            return
        try:
            view = make_view(self._matrix(), self.tokens, **self._view_options())
            fig = self.figure()
        except ValueError as err:
            self._report(err)
            return
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=self.dpi)
        png = base64.b64encode(buf.getvalue()).decode("ascii")
        data = {"image/png": png, "text/plain": msg("<attention heatmap: {title}>", title=self._title())}
        # replacing the whole tuple = clear_output(wait=True) + display, without an empty frame in between
        self.output.outputs = ({"output_type": "display_data", "data": data, "metadata": {}},)
        self.current_matrix, self.row_tokens, self.col_tokens = view.matrix, view.row_tokens, view.col_tokens
        self.draw_count += 1
        self.error = None
        self.status.value = ""

    def _report(self, err: Exception) -> None:
        """Show an error under the controls (exceptions in widget callbacks are otherwise invisible)."""
        self.error = str(err) if isinstance(err, ValueError) else f"{type(err).__name__}: {err}"
        self.status.value = f"<span style='color:#b00020'>{html.escape(self.error)}</span>"

    def _on_text(self, change) -> None:
        if not self._quiet and self._compute():
            self._redraw()

    def _on_view(self, change) -> None:
        self._redraw()

    # --- display -------------------------------------------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    def close(self) -> None:
        """Close every widget (frees the front-end views)."""
        for control in (
            self.text_box,
            self.pair_box,
            self.layer_slider,
            self.head_dropdown,
            self.hide_special,
            self.status,
            self.output,
            *self.widget.children,
            self.widget,
        ):
            control.close()
