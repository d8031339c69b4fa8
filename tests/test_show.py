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
    assert show(BertConfig) is None  # no exercise asks for it: shown at once
    out = capsys.readouterr().out
    assert out.startswith("# bertedu/core/config.py:") and "class BertConfig" in out


# ------------------------------------------------------------- an exercise's library answer: after an attempt


@pytest.fixture
def fresh_kernel(monkeypatch):
    """No exercise attempted yet, as in a new kernel (other tests of this process may have checked some)."""
    from bertedu.teaching.exercises import attention, library_answers, tokens  # noqa: F401 (registers them)

    for exercise in list(library_answers._EXERCISES):
        monkeypatch.setattr(exercise, "_attempted", False)


@pytest.fixture
def key_mask(monkeypatch, fresh_kernel):
    """Notebook 01's key-mask exercise, not yet attempted in this process; English messages."""
    from bertedu import language as i18n
    from bertedu.teaching.exercises import attention as ex

    monkeypatch.delenv("BERTEDU_LANG", raising=False)
    i18n.set_language("en")
    yield ex.key_mask
    i18n.set_language(None)


def test_the_library_answer_of_an_exercise_is_shown_after_its_first_attempt(key_mask, capsys):
    """show(build_key_mask), the library's version of what ex.key_mask asks for, prints one sentence until the
    exercise's check has seen an attempt (a wrong one counts, a stub does not), then the code."""
    show(build_key_mask)
    out = capsys.readouterr().out
    assert (
        "def build_key_mask" not in out and "shown after your first attempt" in out and "ex.key_mask" in out
    )
    key_mask.check(...)  # the stub of the student edition: no attempt
    show(build_key_mask)
    assert "def build_key_mask" not in capsys.readouterr().out
    assert not key_mask.check(lambda m: m[:, None, :, None].bool())  # a wrong attempt
    show(build_key_mask)
    assert "def build_key_mask" in capsys.readouterr().out


def test_a_method_of_a_class_answer_waits_too_and_speaks_chinese(fresh_kernel, capsys):
    from bertedu import language as i18n

    i18n.set_language("zh")
    try:
        show(
            BertEmbeddings.forward
        )  # embeddings_layer's answer is the class BertEmbeddings: its methods wait
    finally:
        i18n.set_language(None)
    out = capsys.readouterr().out
    assert "def forward" not in out and "第一次尝试之后" in out and "ex.embeddings_layer" in out


def test_the_graded_build_never_shows_a_library_answer(key_mask, monkeypatch, capsys):
    from bertedu.teaching.exercises import core

    monkeypatch.setattr(core, "GRADED_BUILD", True)
    monkeypatch.setattr(key_mask, "_attempted", True)
    show(build_key_mask)
    out = capsys.readouterr().out
    assert "def build_key_mask" not in out and "graded build" in out


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
