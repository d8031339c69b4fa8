"""`make html` (tools/export_html.py): pages that render maths offline and describe every figure.

One notebook is exported (notebook 01: formulas in Markdown, four figures); the page must load nothing from
the network, its MathJax must sit next to it, and every <img> must carry a real alt text (not nbconvert's
"No description has been provided" filler). The browser check that MathJax really typesets the formulas is
tests/browser/test_html_export_browser.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import nbformat
import pytest
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]

import export_html  # noqa: E402

NOTEBOOK = ROOT / "notebooks" / "01_self_attention_by_hand.ipynb"
NBCONVERT_FILLER = "No description has been provided for this image"


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[Path, BeautifulSoup]:
    out = tmp_path_factory.mktemp("html")
    page = export_html.export(NOTEBOOK, out)
    return page, BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")


def _image_outputs(path: Path) -> int:
    nb = nbformat.read(path, as_version=4)
    return sum(
        1
        for cell in nb.cells
        for output in cell.get("outputs", [])
        for mime in export_html.IMAGE_TYPES
        if mime in output.get("data", {})
    )


@pytest.mark.slow
def test_page_is_written_next_to_its_mathjax(exported):
    page, soup = exported
    assert page.name == "01_self_attention_by_hand.html"
    scripts = [s["src"] for s in soup.find_all("script", src=True)]
    mathjax = [src for src in scripts if "mathjax" in src.lower()]
    assert len(mathjax) == 1, scripts
    url = urlsplit(mathjax[0])
    assert not url.scheme and not url.netloc, f"MathJax must be loaded from a relative path, not {mathjax[0]}"
    assert (page.parent / url.path).is_file(), f"{url.path} is missing next to the page"
    # MathJax 3 with its own fonts (MathJax 2.7's STIX-Web drew \mathbb{R} as a plain R offline)
    fonts = page.parent / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2"
    assert (fonts / "MathJax_AMS-Regular.woff").is_file()


@pytest.mark.slow
def test_english_and_chinese_pages_of_a_notebook_do_not_overwrite_each_other(tmp_path):
    exporter = export_html.make_exporter()
    english = export_html.export(NOTEBOOK, tmp_path, exporter)
    chinese = export_html.export(NOTEBOOK.parent / "zh" / NOTEBOOK.name, tmp_path, exporter)
    assert english == tmp_path / NOTEBOOK.name.replace(".ipynb", ".html")
    assert chinese == tmp_path / "zh" / NOTEBOOK.name.replace(".ipynb", ".html")
    assert "手算自注意力" in chinese.read_text(encoding="utf-8")
    assert "手算自注意力" not in english.read_text(encoding="utf-8")
    for page in (english, chinese):
        src = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").find(
            "script", src=re.compile("mathjax")
        )
        assert (page.parent / src["src"]).resolve() == (tmp_path / "mathjax" / "tex-chtml.js").resolve()


@pytest.mark.slow
def test_page_loads_nothing_from_the_network(exported):
    _, soup = exported
    html = str(soup)
    assert "cdnjs" not in html and "unpkg" not in html and "cdn.jsdelivr" not in html
    for tag, attr in (("script", "src"), ("link", "href"), ("img", "src")):
        for element in soup.find_all(tag, **{attr: True}):
            assert "://" not in element[attr] or element[attr].startswith("data:"), (
                f"<{tag} {attr}={element[attr]}>"
            )
    # Scripts written into the page do not fetch anything from the web either (nbconvert's Mermaid loader does).
    for script in soup.find_all("script", src=False):
        assert not re.search(r"https?://", script.get_text()), script.get_text()[:200]


@pytest.mark.slow
def test_every_figure_has_a_real_alt_text(exported):
    _, soup = exported
    images = soup.find_all("img")
    assert len(images) == _image_outputs(NOTEBOOK) >= 1
    for img in images:
        alt = img.get("alt", "").strip()
        assert alt and alt != NBCONVERT_FILLER, f"an image without a description: {str(img)[:120]}"
        assert len(alt) >= 12 and "$" not in alt and "\\" not in alt, alt


@pytest.mark.slow
def test_maths_is_left_for_mathjax(exported):
    _, soup = exported
    markdown = " ".join(div.get_text() for div in soup.select(".jp-RenderedMarkdown"))
    assert "$\\sqrt{d_k}$" in markdown  # MathJax's tex2jax finds these delimiters in the browser
    assert "inlineMath: [ ['$','$']" in str(soup)


@pytest.mark.slow
def test_plain_nbconvert_would_use_a_cdn_and_fill_in_alt_texts():
    # What the exporter changes: without it the same notebook needs the network and has no descriptions.
    from nbconvert import HTMLExporter

    html, _ = HTMLExporter(template_name="lab").from_notebook_node(nbformat.read(NOTEBOOK, as_version=4))
    assert "cdnjs.cloudflare.com/ajax/libs/mathjax" in html
    assert NBCONVERT_FILLER in html


# --- where alt texts come from --------------------------------------------------------------------------


def _cell(source: str, **metadata) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata.update(metadata)
    return cell


def test_alt_from_metadata_then_comment_then_code_then_markdown():
    code = 'ax.set_title("loss per step")\nax.set_xlabel("step")\nax.plot(x, y, label="train")'
    assert export_html.figure_alt(_cell(code, alt="A falling curve.")) == "A falling curve."
    assert (
        export_html.figure_alt(_cell("# alt: Two heatmaps side by side\n" + code))
        == "Two heatmaps side by side"
    )
    # Short plot words ("loss per step", "step", "train") get the first sentence of the Markdown above.
    assert export_html.figure_alt(_cell(code)) == "Figure: loss per step. x axis: step. curves: train."
    assert export_html.figure_alt(_cell(code), "The loss falls. Then it stays.") == (
        "Figure: loss per step. x axis: step. curves: train. The loss falls."
    )
    above = "## 4 · A picture\n\nRows are queries, columns are keys. Each row sums to 1."
    assert export_html.figure_alt(_cell("show(A)"), above) == "Figure: Rows are queries, columns are keys."
    assert export_html.figure_alt(_cell("show(A)")) == "Figure drawn by the code show(A)"


def test_alt_of_a_title_built_at_run_time_adds_the_text_above():
    cell = _cell('plot(w, title=f"layer {layer}, head {head}")')
    alt = export_html.figure_alt(cell, "The heads that look one token back, drawn.")
    assert alt == "Figure: layer …, head … The heads that look one token back, drawn."


def test_alt_text_turns_latex_into_plain_text():
    cell = _cell(r'ax.plot(d, y, label=r"scaled $q\cdot k/\sqrt{d}$")' + "\n" + r'ax.set_title(r"$QK^\top$")')
    assert export_html.figure_alt(cell) == "Figure: QK^ᵀ. curves: scaled q·k/√d."


def test_alt_text_of_several_images_in_one_cell_is_numbered():
    nb = nbformat.v4.new_notebook()
    cell = _cell('fig.suptitle("attention weights of every head, in two views")')
    png = {"image/png": "iVBORw0KGgo="}
    cell.outputs = [nbformat.v4.new_output("display_data", data=png) for _ in range(2)]
    nb.cells = [nbformat.v4.new_markdown_cell("Two views."), cell]
    export_html.FigureAltText().preprocess(nb, {})
    alts = [o.metadata["image/png"]["alt"] for o in nb.cells[1].outputs]
    title = "Figure: attention weights of every head, in two views."
    assert alts == [f"{title} (image 1 of 2)", f"{title} (image 2 of 2)"]


def test_a_missing_notebook_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(SystemExit):
        export_html.main(["--output", str(tmp_path), "notebooks/99_missing.ipynb"])
    assert "no such notebook: notebooks/99_missing.ipynb" in capsys.readouterr().err
