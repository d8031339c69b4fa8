"""bertedu.teaching.viz: pictures of attention and of training. Introduced across notebooks 01-08.

=====================  =====================================================================  ========
what                   functions                                                              notebook
=====================  =====================================================================  ========
one head               ``plot_attention``, ``attention_matrix``                               01, 08
all heads / mean       ``plot_attention_grid``, ``plot_mean_attention``, ``stack_attentions``  08
interactive            ``AttentionExplorer``, ``compute_attentions``                          08
which head does what   ``head_statistics``, ``find_heads``                                    08
export                 ``save_figure``, ``save_attention_csv``, ``load_attention_csv``,       08
                       ``to_bertviz``
training               ``plot_masking_statistics`` (03), ``plot_loss_curves`` (06)            03, 06
=====================  =====================================================================  ========

Attention matrices are drawn with rows = queries (the token attending, "from") and columns = keys (the
token attended to, "to"); the model's ``out.attentions`` is a tuple of ``(B, heads, T, T)``, one per layer.

Figure convention (no leaked figures):

- Pass ``ax=`` and the function draws into your Axes and returns it; the figure stays yours.
- Without ``ax`` the function makes a new Figure, **closes it** (``plt.close(fig)``) and returns it.
  A closed figure is not shown again by the inline backend, so it appears exactly once: as the value of
  the cell (make the call the cell's last line), or wherever you ``display(fig)``. ``plt.get_fignums()``
  does not grow however often you call the functions. Save it with ``viz.save_figure(fig, "x.png")``.
- Grids (``plot_attention_grid``, ``plot_mean_attention(layer=None)``) always make their own Figure.
"""

from ._core import AttentionView, attention_matrix, stack_attentions, use_cjk_fallback
from .explorer import AttentionExplorer, compute_attentions
from .export import load_attention_csv, save_attention_csv, save_figure, to_bertviz
from .heatmaps import plot_attention, plot_attention_grid, plot_mean_attention
from .stats import find_heads, head_statistics
from .training import EXPECTED_MASKING, MASKING_CATEGORIES, plot_loss_curves, plot_masking_statistics

__all__ = [
    "EXPECTED_MASKING",
    "MASKING_CATEGORIES",
    "AttentionExplorer",
    "AttentionView",
    "attention_matrix",
    "compute_attentions",
    "find_heads",
    "head_statistics",
    "load_attention_csv",
    "plot_attention",
    "plot_attention_grid",
    "plot_loss_curves",
    "plot_masking_statistics",
    "plot_mean_attention",
    "save_attention_csv",
    "save_figure",
    "stack_attentions",
    "to_bertviz",
    "use_cjk_fallback",
]
