"""bertedu.teaching.show: the package's real source, highlighted, under a path:line header that never shows this
machine's absolute paths."""

from __future__ import annotations

import inspect
import re

import pytest
import torch.nn.functional as F

from bertedu.core import attention
from bertedu.core.attention import BertSelfAttention, build_key_mask, scaled_dot_product_attention
from bertedu.core.config import BertConfig
from bertedu.core.embeddings import BertEmbeddings
from bertedu.teaching.show import SourceView, show, source_of

ABSOLUTE = re.compile(r"(?<![\w.])/(?:work|tmp|root|home|usr)/")


def test_function_source_with_relative_path_and_first_line():
    view = source_of(scaled_dot_product_attention)
    lines, first = inspect.getsourcelines(scaled_dot_product_attention)
    assert view.code == "".join(lines) and view.first_line == first
    assert view.path == "bertedu/core/attention.py"
    assert view.header == f"bertedu/core/attention.py:{first} · scaled_dot_product_attention"


@pytest.mark.parametrize(
    "obj, name",
    [
        (BertSelfAttention.forward, "BertSelfAttention.forward"),
        (
            BertSelfAttention(BertConfig(hidden_size=8, num_attention_heads=2)).split_heads,
            "BertSelfAttention.split_heads",
        ),
        (BertEmbeddings, "BertEmbeddings"),
        (attention, "bertedu.core.attention"),
        (F.softmax, "softmax"),
    ],
)
def test_methods_classes_modules_and_other_packages(obj, name):
    view = source_of(obj)
    assert view.name == name and not ABSOLUTE.search(view.header)
    assert view.code.strip()
    if obj is F.softmax:
        assert view.path == "torch/nn/functional.py"


def test_plain_text_is_numbered_and_html_is_highlighted():
    view = source_of(build_key_mask)
    text = repr(view)
    assert text.splitlines()[0] == f"# {view.header}"
    assert text.splitlines()[1].lstrip().startswith(f"{view.first_line}  def build_key_mask")
    html = view._repr_html_()
    assert view.header in html and "<span" in html and "style=" in html  # inline styles: survives export
    assert "build_key_mask" in html and not ABSOLUTE.search(html)


def test_show_prints_outside_jupyter(capsys):
    assert show(build_key_mask) is None
    out = capsys.readouterr().out
    assert out.startswith("# bertedu/core/attention.py:") and "def build_key_mask" in out


@pytest.mark.parametrize(
    "obj, words",
    [
        (3, "show(int)"),
        (len, "written in C"),
        (BertEmbeddings(BertConfig(hidden_size=8, num_attention_heads=2)), "show(BertEmbeddings)"),
    ],
)
def test_objects_without_source_get_advice(obj, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        source_of(obj)


def test_source_view_is_plain_data():
    view = SourceView("f", "pkg/mod.py", 10, "def f():\n    return 1\n")
    assert view.last_line == 11 and view.header == "pkg/mod.py:10 · f"


def test_the_docstrings_examples_name_the_lines_show_prints():
    """show.py's examples give real headers (the review of 2026-12-06 found attention.py:22 and :72 where the
    code was at :24 and :105)."""
    from bertedu.teaching import show as show_module

    text = inspect.getsource(show_module)
    documented = set(re.findall(r"bertedu/core/attention\.py:(\d+)", text))
    real = {
        str(source_of(scaled_dot_product_attention).first_line),
        str(source_of(BertSelfAttention.forward).first_line),
    }
    assert documented and documented <= real, (documented, real)
