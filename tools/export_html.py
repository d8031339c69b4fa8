"""Export the course notebooks to HTML pages that work offline (`make html` calls this).

Usage: python tools/export_html.py [--output build/html] [notebooks/NN_x.ipynb ...]

Each notebook, as committed (with its outputs), becomes ``<output>/NN_x.html``; a Chinese notebook
(``notebooks/zh/NN_x.ipynb``) becomes ``<output>/zh/NN_x.html``, so the two editions of a notebook never overwrite
each other. Two things differ from a plain ``jupyter nbconvert --to html``:

- **Maths without a network.** nbconvert's pages load MathJax from a CDN, so offline every formula stays raw
  ``$\\sqrt{d_k}$``. Here MathJax 3, the copy tools/vendor_web.py vendors from npm for the course's web site
  (``make site``), is copied into ``<output>/mathjax/`` with its fonts, and the pages load it by a relative URL
  (MathJax 2.7 of ``jupyter-server-mathjax``, used before, drew ``\\mathbb{R}`` as a plain R offline). The pages
  load nothing else from the network (require.js, the Mermaid loader and the widget manager are left out: the
  course uses none of them, and widget state is not saved in the notebooks).
- **Alt text on every figure.** nbconvert's lab template writes no ``alt`` and then fills in "No description
  has been provided for this image". Here each figure gets one, in this order: the cell's metadata ``alt``;
  a ``# alt: ...`` comment in the cell; else what the cell's code says about the plot (titles, axis labels,
  legend labels); else the first sentence of the Markdown cell above it.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import sys
from pathlib import Path

import nbformat
from jinja2 import DictLoader
from nbconvert import HTMLExporter
from nbconvert.preprocessors import Preprocessor

from bertedu import language

ROOT = Path(__file__).resolve().parents[1]
IMAGE_TYPES = ("image/png", "image/jpeg")
MATHJAX_FOLDER = "mathjax"  # in the output folder, next to the English pages
MATHJAX_URL = f"{MATHJAX_FOLDER}/tex-chtml.js"  # from an English page; a Chinese page (in zh/) adds ../
ALT_COMMENT = re.compile(r"^\s*#\s*alt:\s*(.+?)\s*$", re.MULTILINE)
MAX_ALT = 300  # characters
MIN_LETTERS = 30  # plot words with fewer letters than this get the Markdown's first sentence as context

# The lab template, with an alt attribute on images, the local MathJax 3 (TeX with $...$, AMS numbering, its own
# fonts), and nothing loaded from a CDN.
TEMPLATE = r"""
{%- extends 'index.html.j2' -%}

{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}

{%- block html_head_js_mathjax -%}
<script>
window.MathJax = {
    tex: {
        inlineMath: [ ['$','$'], ["\\(","\\)"] ],
        displayMath: [ ['$$','$$'], ["\\[","\\]"] ],
        processEscapes: true,
        processEnvironments: true,
        tags: "ams"
    },
    options: {ignoreHtmlClass: "tex2jax_ignore", processHtmlClass: "tex2jax_process"}
};
</script>
<script defer src="{{ resources.mathjax_url }}"></script>
{%- endblock html_head_js_mathjax -%}

{% block data_png scoped %}
{{ super() | replace('<img ', '<img alt="' ~ (output | get_metadata('alt', 'image/png') | escape_html) ~ '" ', 1) }}
{% endblock data_png %}

{% block data_jpg scoped %}
{{ super() | replace('<img ', '<img alt="' ~ (output | get_metadata('alt', 'image/jpeg') | escape_html) ~ '" ', 1) }}
{% endblock data_jpg %}
"""
TEMPLATE_NAME = "bertedu_offline.html.j2"


def mathjax_source() -> Path:
    """MathJax 3 as tools/vendor_web.py vendors it (npm ci of web/package-lock.json the first time)."""
    import vendor_web

    try:
        vendor_web.vendor()
    except (FileNotFoundError, RuntimeError) as err:
        sys.exit(f"error: the offline MathJax could not be vendored: {err}")
    return vendor_web.DEFAULT_OUT / "mathjax"


def copy_mathjax(output: Path) -> Path:
    """Copy MathJax next to the pages (once; a later export leaves it as it is). Returns the folder."""
    target = output / MATHJAX_FOLDER
    if not (target / "tex-chtml.js").is_file():
        shutil.copytree(mathjax_source(), target, dirs_exist_ok=True)
    return target


# --- alt text -----------------------------------------------------------------------------------------


def _text(node: ast.AST) -> str | None:
    """A string literal's text; an f-string's with each {...} shown as "…"; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "…" for v in node.values)
    return None


def plot_words(source: str) -> dict[str, list[str]]:
    """Titles, axis labels and legend labels written as literals in a cell's code, in source order."""
    found: dict[str, list[str]] = {"title": [], "x": [], "y": [], "label": []}
    keyword_kinds = {"title": "title", "xlabel": "x", "ylabel": "y", "label": "label"}
    method_kinds = {"set_title": "title", "suptitle": "title", "title": "title", "set_xlabel": "x"}
    method_kinds |= {"set_ylabel": "y", "xlabel": "x", "ylabel": "y"}
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython magics, or code that does not parse: nothing to learn from it
        return found
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name in method_kinds and node.args and (text := _text(node.args[0])):
            found[method_kinds[name]].append(text)
        for keyword in node.keywords:
            if keyword.arg in keyword_kinds and (text := _text(keyword.value)):
                found[keyword_kinds[keyword.arg]].append(text)
    # ast.walk is breadth-first: put the words back in the order they are written.
    return {kind: sorted(dict.fromkeys(words), key=source.find) for kind, words in found.items()}


TEX_SYMBOLS = {"cdot": "·", "times": "×", "top": "ᵀ", "to": "→", "approx": "≈", "le": "≤", "ge": "≥"}


def tex_to_text(text: str) -> str:
    """Inline LaTeX as readable plain text: $q\\cdot k/\\sqrt{d}$ -> q·k/√d (for alt text)."""
    text = re.sub(r"\\sqrt\{([^{}]*)\}", lambda m: "√" + (m[1] if len(m[1]) == 1 else f"({m[1]})"), text)
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"\1/\2", text)
    text = re.sub(r"\\(?:mathrm|text|texttt|mathbf|operatorname)\{([^{}]*)\}", r"\1", text)
    text = re.sub(r"\\xrightarrow\{([^{}]*)\}", r"→ \1 →", text)
    text = re.sub(r"\\[,;:! ]|\\q?quad\b", " ", text)  # spacing commands
    text = re.sub(r"\\([A-Za-z]+)\s?", lambda m: TEX_SYMBOLS.get(m[1], m[1]), text)
    return text.replace("$", "").replace("{", "").replace("}", "")


def _plain(markdown: str) -> str:
    """Markdown (with $maths$) as one line of plain text."""
    text = re.sub(r"^\s*(#+|>|[-*]\s)\s*", "", markdown, flags=re.MULTILINE)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: keep their text
    text = re.sub(r"[*`]|(?<!\w)_|_(?!\w)", "", text)  # emphasis and code marks (not snake_case)
    return re.sub(r"\s+", " ", tex_to_text(text)).strip()


def first_sentence(markdown: str) -> str:
    """The first sentence of a Markdown cell, skipping a heading line."""
    lines = [ln for ln in markdown.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    text = _plain("\n".join(lines))
    match = re.match(r"(.+?[.!?])(\s|$)", text)
    return match.group(1) if match else text


def _shorten(text: str) -> str:
    text = re.sub(r"\s+", " ", tex_to_text(text)).strip()
    return text if len(text) <= MAX_ALT else text[: MAX_ALT - 1].rstrip() + "…"


def figure_alt(cell: nbformat.NotebookNode, markdown_above: str = "") -> str:
    """A description of the figure(s) a code cell draws (see the module docstring for the order)."""
    if isinstance(cell.metadata.get("alt"), str) and cell.metadata["alt"].strip():
        return _shorten(cell.metadata["alt"].strip())
    if match := ALT_COMMENT.search(cell.source):
        return _shorten(match.group(1))
    words = plot_words(cell.source)
    parts = []
    if words["title"]:
        parts.append("; ".join(words["title"][:4]))
    axes = [f"{axis} axis: {', '.join(words[axis][:2])}" for axis in ("x", "y") if words[axis]]
    if axes:
        parts.append("; ".join(axes))
    if words["label"]:
        parts.append("curves: " + ", ".join(words["label"][:6]))
    context = first_sentence(markdown_above) if markdown_above.strip() else ""
    if parts:
        text = "Figure: " + ". ".join(parts)
        text += "" if text.endswith((".", "…", "?", "!")) else "."
        # Titles built at run time ("p = …", "layer …, head …") say little: add what the text above says.
        words = " ".join(words["title"] + words["x"] + words["y"] + words["label"])
        if context and sum(ch.isalpha() for ch in words) < MIN_LETTERS:
            text += f" {context}"
        return _shorten(text)
    if context:
        return _shorten(f"Figure: {context}")
    code = next(
        (ln.strip() for ln in cell.source.splitlines() if ln.strip() and not ln.lstrip().startswith("#")), ""
    )
    return _shorten(f"Figure drawn by the code {code}")


class FigureAltText(Preprocessor):
    """Puts an ``alt`` into the metadata of every image output (read by the template above)."""

    def preprocess(self, nb, resources):
        markdown_above = ""
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                markdown_above = cell.source
                continue
            images = [
                (output, mime)
                for output in cell.get("outputs", [])
                for mime in IMAGE_TYPES
                if mime in output.get("data", {})
            ]
            alt = figure_alt(cell, markdown_above) if images else ""
            for k, (output, mime) in enumerate(images, start=1):
                text = alt if len(images) == 1 else f"{alt} (image {k} of {len(images)})"
                output.setdefault("metadata", {}).setdefault(mime, {})["alt"] = text
        nb.metadata.pop(
            "widgets", None
        )  # widget views show their text fallback; no widget manager from a CDN
        return nb, resources


# --- export --------------------------------------------------------------------------------------------


def make_exporter() -> HTMLExporter:
    exporter = HTMLExporter(
        template_name="lab",
        extra_loaders=[DictLoader({TEMPLATE_NAME: TEMPLATE})],
        mathjax_url=MATHJAX_URL,
    )
    exporter.template_file = TEMPLATE_NAME
    exporter.register_preprocessor(FigureAltText(), enabled=True)
    return exporter


def page_path(notebook: Path, output: Path) -> Path:
    """Where a notebook's page goes: ``output/NN_x.html``, or ``output/zh/NN_x.html`` for a Chinese notebook (a
    translated edition's pages in a folder named after its language)."""
    lang = language.edition_language(notebook)
    return (output if lang == language.DEFAULT_LANGUAGE else output / lang) / f"{notebook.stem}.html"


def export(notebook: Path, output: Path, exporter: HTMLExporter | None = None) -> Path:
    """Write the notebook's page (see :func:`page_path`; MathJax in ``output/mathjax``); returns its path."""
    page = page_path(notebook, output)
    page.parent.mkdir(parents=True, exist_ok=True)
    copy_mathjax(output)
    exporter = exporter or make_exporter()
    exporter.mathjax_url = "../" * (page.parent != output) + MATHJAX_URL
    nb = nbformat.read(notebook, as_version=4)
    if any(c.cell_type == "markdown" and "```mermaid" in c.source for c in nb.cells):
        sys.exit(f"error: {notebook} has a Mermaid diagram, which these offline pages cannot draw.")
    html, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": notebook.stem}})
    tmp = page.with_suffix(".html.tmp")
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(page)
    return page


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebooks/NN_*.ipynb")
    parser.add_argument("--output", type=Path, default=ROOT / "build" / "html", help="default: build/html")
    args = parser.parse_args(argv)
    notebooks = args.notebooks or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    missing = [str(nb) for nb in notebooks if not nb.is_file()]
    if missing:
        parser.error(f"no such notebook: {', '.join(missing)}")
    exporter = make_exporter()
    for notebook in notebooks:
        page = export(notebook, args.output, exporter)
        print(f"wrote {page}")
    print(f"Open {page_path(notebooks[0], args.output)} in a browser; it needs no network.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
