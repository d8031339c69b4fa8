"""Lecture decks from the notebooks: one reveal.js deck per notebook, English and Chinese, offline (issue 30).

    python tools/build_slides.py [--out build/slides] [--notebooks 01 05]

Each deck follows a slide plan, ``slides/plans/NN_topic.yaml``: an ordered list of slides, each showing cells of
the notebook by their cell id, with speaker notes in both languages. The English deck takes the cells from
``notebooks/NN_topic.ipynb``, the Chinese deck the same ids from ``notebooks/zh/NN_topic.ipynb`` (its Markdown is
Chinese, its plots have Chinese labels). Nothing is written into the notebooks: the plans are the "tags".

A plan::

    notebook: 01_self_attention_by_hand
    slides:
      - cells: [intro-cell-id]                 # a Markdown cell, rendered to HTML at build time
      - title: {en: "Scores", zh: "分数"}       # optional heading above the cells
        cells: [code-id, "plot-id:output"]     # code and its outputs; ":code" the code alone, ":output" the outputs
        notes: {en: "Say ...", zh: "讲 ..."}    # speaker notes (Markdown), shown by the S key
      - title: {en: "Check yourself", zh: "自测"}
        text: {en: "Question ...", zh: "问题 ..."}      # Markdown written in the plan (a question slide)
        answer: {en: "Because ...", zh: "因为 ..."}     # shown on the next key press
        notes: {en: "...", zh: "..."}

Output: ``OUT/en/NN_topic.html``, ``OUT/zh/NN_topic.html``, an ``index.html`` per language (with a language
switch), ``OUT/index.html`` (to the English index) and ``OUT/vendor/``: reveal.js (its notes and highlight plugins)
and KaTeX, installed by npm exactly as ``slides/package-lock.json`` pins them and copied from a cache
(``build/slides-vendor/``, rebuilt when the lock changes). Figures are embedded as data URIs and the maths is
typeset by the local KaTeX, so a deck opens from ``file://`` or any static host and fetches nothing from the
network. reveal.js's own math plugin is not used: its loaders fetch KaTeX or MathJax from a CDN.
"""

from __future__ import annotations

import argparse
import base64
import html
import json
import re
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import nbformat
import yaml
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin
from npm_pins import copy_path, lock_digest, notice_line, npm_ci, vendoring

from bertedu import language
from bertedu.language import t

ROOT = Path(__file__).resolve().parents[1]
SLIDES = ROOT / "slides"
PLANS = SLIDES / "plans"
DEFAULT_OUT = ROOT / "build" / "slides"
VENDOR_CACHE = ROOT / "build" / "slides-vendor"
SCRATCH = ROOT / "build" / "slides-npm"
LANGUAGES = language.LANGUAGES
NOTEBOOK_DIRS = {lang: ROOT / folder for lang, folder in language.NOTEBOOK_FOLDERS.items()}
#: The folders of the other editions, as a link from a notebook of one edition to another writes them.
EDITION_PREFIX = "|".join(
    re.escape(Path(folder).name + "/")
    for lang, folder in language.NOTEBOOK_FOLDERS.items()
    if lang != language.DEFAULT_LANGUAGE
)
BILINGUAL = "{" + ", ".join(f"{lang}: ..." for lang in LANGUAGES) + "}"  # how a plan writes a text

#: package -> files or folders (relative to the package) that the decks load
VENDOR_FILES: dict[str, tuple[str, ...]] = {
    "reveal.js": (
        "LICENSE",
        "dist/reveal.js",
        "dist/reveal.css",
        "dist/reset.css",
        "dist/theme/white.css",  # its fonts are embedded (other themes @import Google Fonts)
        "dist/plugin/notes.js",
        "dist/plugin/highlight.js",
        "dist/plugin/highlight/monokai.css",
    ),
    "katex": ("LICENSE", "dist/katex.min.js", "dist/katex.min.css", "dist/fonts"),
}
#: files of slides/ copied next to the decks
OWN_FILES = ("deck.css", "deck.js")

PLAN_KEYS = {"notebook", "slides"}
SLIDE_KEYS = {"title", "cells", "text", "answer", "notes"}
PARTS = ("all", "code", "output")  # "id" = "id:all"
CELL_REF = re.compile(r"^(?P<id>[A-Za-z0-9_-]+)(?::(?P<part>code|output))?$")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
HIDDEN_CODE_LINE = re.compile(r"^\s*#\s*NBVAL_\w+\s*$")
WIDGET = "application/vnd.jupyter.widget-view+json"
# The decks' own words (index, switch, counts) are in the one table of UI words, bertedu/language/words.py
# (keys slides_*; the language switch shows language_name).


def other_language(lang: str) -> str:
    """The language a deck's switch leads to."""
    return next(code for code in LANGUAGES if code != lang)


# ----------------------------------------------------------------------------------------------------------------
# plans


def plan_paths(numbers: Sequence[str] = ()) -> list[Path]:
    """The plan files, all or those whose notebook number is in ``numbers`` ("01", "5" and "05_x" all work)."""
    paths = sorted(PLANS.glob("[0-9][0-9]_*.yaml"))
    if not numbers:
        return paths
    wanted = {str(n).split("_")[0].zfill(2) for n in numbers}
    chosen = [p for p in paths if p.name[:2] in wanted]
    missing = wanted - {p.name[:2] for p in chosen}
    if missing:
        raise ValueError(f"no slide plan for notebook(s) {', '.join(sorted(missing))} in {PLANS}")
    return chosen


def _bilingual(value, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or set(value) != set(LANGUAGES):
        raise ValueError(f"{where}: expected {BILINGUAL}, got {value!r}")
    for lang in LANGUAGES:
        if not isinstance(value[lang], str) or not value[lang].strip():
            raise ValueError(f"{where}: the {lang} text is empty")
    return value


def load_plan(path: Path) -> dict:
    """Read and validate one plan file (shape only; :func:`check_cells` checks the ids against the notebooks)."""
    try:
        # BaseLoader: every scalar is a string, so a cell id such as 10311194 or 1e5 stays an id
        plan = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    except yaml.YAMLError as err:
        raise ValueError(
            f"{path.name} is not valid YAML (quote a text with ': ' or use a | block): {err}"
        ) from None
    if not isinstance(plan, dict) or set(plan) != PLAN_KEYS:
        raise ValueError(f"{path.name}: a plan has exactly the keys {sorted(PLAN_KEYS)}")
    if plan["notebook"] != path.stem:
        raise ValueError(
            f"{path.name}: notebook is {plan['notebook']!r}, expected the file's name {path.stem!r}"
        )
    if not isinstance(plan["slides"], list) or not plan["slides"]:
        raise ValueError(f"{path.name}: slides must be a non-empty list")
    for i, slide in enumerate(plan["slides"], 1):
        where = f"{path.name}, slide {i}"
        if not isinstance(slide, dict) or not slide.keys() <= SLIDE_KEYS:
            raise ValueError(
                f"{where}: unknown keys {sorted(set(slide) - SLIDE_KEYS)}; allowed {sorted(SLIDE_KEYS)}"
            )
        if not isinstance(slide.get("cells", []), list):
            raise ValueError(f'{where}: cells is a list of cell ids, e.g. [b996632d, "2f79498a:output"]')
        if not (slide.get("cells") or slide.get("text")):
            raise ValueError(f"{where}: a slide shows cells or text (or both)")
        for key in ("title", "text", "answer", "notes"):
            if key in slide:
                _bilingual(slide[key], f"{where}, {key}")
        if "notes" not in slide:
            raise ValueError(f"{where}: every slide has speaker notes (notes: {BILINGUAL})")
        if "answer" in slide and "text" not in slide:
            raise ValueError(f"{where}: an answer belongs to a question written in text")
        for ref in slide.get("cells", []):
            if not isinstance(ref, str) or not CELL_REF.match(ref):
                raise ValueError(f"{where}: {ref!r} is not a cell id (optionally with :code or :output)")
    return plan


def parse_ref(ref: str) -> tuple[str, str]:
    """``"abc:output"`` -> ``("abc", "output")``; a bare id shows the whole cell (``"all"``)."""
    match = CELL_REF.match(ref)
    return match["id"], match["part"] or "all"


def read_notebook(name: str, lang: str) -> nbformat.NotebookNode:
    path = NOTEBOOK_DIRS[lang] / f"{name}.ipynb"
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: the {lang} edition of {name} is needed for its deck")
    nb = json.loads(
        path.read_text(encoding="utf-8")
    )  # not nbformat.read: its validation is slow on big notebooks
    for cell in nb["cells"]:  # multi-line strings are stored as lists of lines
        cell["source"] = _joined(cell["source"])
        for out in cell.get("outputs", []):
            if "text" in out:
                out["text"] = _joined(out["text"])
            out["data"] = {mime: _joined(value) for mime, value in out.get("data", {}).items()}
    return nbformat.from_dict(nb)


def _joined(value):
    return "".join(value) if isinstance(value, list) else value


def check_cells(plan: dict, notebooks: dict[str, nbformat.NotebookNode]) -> list[str]:
    """Every problem of a plan's cell references in each edition: ids that do not exist, or parts the cell lacks."""
    problems = []
    for lang, nb in notebooks.items():
        cells = {c.get("id"): c for c in nb.cells}
        for i, slide in enumerate(plan["slides"], 1):
            for ref in slide.get("cells", []):
                cell_id, part = parse_ref(ref)
                cell = cells.get(cell_id)
                where = f"{plan['notebook']} ({lang}), slide {i}"
                if cell is None:
                    problems.append(f"{where}: no cell with id {cell_id!r}")
                elif part != "all" and cell.cell_type != "code":
                    problems.append(f"{where}: {ref!r} asks for the {part} of a {cell.cell_type} cell")
                elif part == "output" and not _outputs_html(cell):
                    problems.append(f"{where}: {ref!r} has no output to show")
    return problems


# ----------------------------------------------------------------------------------------------------------------
# rendering


def _math(content: str, options: dict) -> str:
    return html.escape(content, quote=False)  # deck.js typesets each .math element with KaTeX


MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough")
MARKDOWN.use(dollarmath_plugin, double_inline=True, renderer=_math)


def markdown(text: str) -> str:
    """Markdown (with $maths$) to HTML; links to a notebook point to its deck, other relative links become text."""
    out = MARKDOWN.render(text)

    def link(match: re.Match) -> str:
        href = html.unescape(match["href"])
        if re.match(r"^(https?:|mailto:|#)", href):
            return match[0]
        notebook = re.match(rf"^(?:\.\./|{EDITION_PREFIX})*(\d\d_[A-Za-z0-9_]+)\.ipynb(#.*)?$", href)
        if notebook:
            return f'<a href="{notebook[1]}.html">'
        return '<a class="local-file">'  # docs/, data/ ...: not part of the decks

    out = re.sub(r'<a href="(?P<href>[^"]*)"[^>]*>', link, out)
    return out


def _image(mime: str, data: str, alt: str) -> str:
    if mime == "image/svg+xml":
        data = base64.b64encode(data.encode("utf-8")).decode("ascii")
    else:
        data = "".join(data.split())
    return f'<img class="figure" alt="{html.escape(alt)}" src="data:{mime};base64,{data}">'


def _outputs_html(cell, alt: str = "") -> str:
    """A code cell's outputs: figures embedded, tables kept, text as preformatted; widgets and errors left out."""
    parts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            if out.name == "stdout" and out.text.strip():
                parts.append(f'<pre class="output">{html.escape(ANSI.sub("", out.text.rstrip()))}</pre>')
            continue
        if out.output_type not in ("display_data", "execute_result"):
            continue  # errors never appear in executed notebooks; warnings (stderr) are not lecture material
        data = out.get("data", {})
        if WIDGET in data:
            continue  # a quiz or slider: needs a kernel
        image = next((m for m in ("image/png", "image/jpeg", "image/svg+xml") if m in data), None)
        if image:
            parts.append(_image(image, data[image], alt))
        elif "text/html" in data and "<script" not in data["text/html"].lower():
            parts.append(f'<div class="output html">{data["text/html"]}</div>')
        elif "text/markdown" in data:
            parts.append(f'<div class="output">{markdown(data["text/markdown"])}</div>')
        elif "text/plain" in data:
            parts.append(f'<pre class="output">{html.escape(ANSI.sub("", data["text/plain"]))}</pre>')
    return "\n".join(parts)


def _code_html(source: str) -> str:
    lines = [line for line in source.splitlines() if not HIDDEN_CODE_LINE.match(line)]
    code = html.escape("\n".join(lines).strip("\n"), quote=False)
    return f'<pre class="code"><code class="language-python" data-trim>{code}</code></pre>'


def render_cell(cell, part: str, alt: str) -> str:
    """One cell on a slide: Markdown as HTML; code highlighted by reveal.js, with or without its outputs."""
    if cell.cell_type == "markdown":
        return f'<div class="cell markdown">{markdown(cell.source)}</div>'
    if cell.cell_type != "code":
        return ""
    shown = []
    if part in ("all", "code"):
        shown.append(_code_html(cell.source))
    if part in ("all", "output"):
        shown.append(_outputs_html(cell, alt))
    return f'<div class="cell code-cell">{"".join(shown)}</div>'


def deck_title(nb: nbformat.NotebookNode, fallback: str) -> str:
    """The notebook's first Markdown heading, without Markdown."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("#"):
                    return re.sub(r"[*_`$]", "", line.lstrip("#").strip())
    return fallback


def render_slide(slide: dict, cells: dict, lang: str, name: str) -> str:
    parts = []
    if "title" in slide:
        parts.append(f"<h2>{html.escape(slide['title'][lang])}</h2>")
    for ref in slide.get("cells", []):
        cell_id, part = parse_ref(ref)
        alt = f"{slide['title'][lang]} ({name})" if "title" in slide else f"Figure of {name}"
        parts.append(render_cell(cells[cell_id], part, alt))
    if "text" in slide:
        parts.append(f'<div class="text">{markdown(slide["text"][lang])}</div>')
    if "answer" in slide:
        parts.append(f'<div class="answer fragment">{markdown(slide["answer"][lang])}</div>')
    parts.append(f'<aside class="notes">{markdown(slide["notes"][lang])}</aside>')
    ids = " ".join(parse_ref(r)[0] for r in slide.get("cells", []))
    return f'<section data-cells="{ids}">\n' + "\n".join(parts) + "\n</section>"


PAGE = """<!doctype html>
<html lang="{html_lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="../vendor/reveal.js/dist/reset.css">
<link rel="stylesheet" href="../vendor/reveal.js/dist/reveal.css">
<link rel="stylesheet" href="../vendor/reveal.js/dist/theme/white.css">
<link rel="stylesheet" href="../vendor/reveal.js/dist/plugin/highlight/monokai.css">
<link rel="stylesheet" href="../vendor/katex/dist/katex.min.css">
<link rel="stylesheet" href="../deck.css">
</head>
<body>
<nav class="deck-nav"><a href="index.html">{back}</a> · <a class="lang-switch" href="../{other}/{file}">{switch}</a></nav>
<div class="reveal"><div class="slides">
{slides}
</div></div>
<script src="../vendor/katex/dist/katex.min.js"></script>
<script src="../vendor/reveal.js/dist/reveal.js"></script>
<script src="../vendor/reveal.js/dist/plugin/notes.js"></script>
<script src="../vendor/reveal.js/dist/plugin/highlight.js"></script>
<script src="../deck.js"></script>
</body>
</html>
"""


def render_deck(plan: dict, nb: nbformat.NotebookNode, lang: str) -> str:
    """The HTML of one deck in one language."""
    cells = {c.get("id"): c for c in nb.cells}
    name = plan["notebook"]
    slides = "\n".join(render_slide(s, cells, lang, name) for s in plan["slides"])
    return PAGE.format(
        html_lang=t("html_lang", lang),
        title=html.escape(deck_title(nb, name)),
        back=t("slides_back", lang),
        other=other_language(lang),
        file=f"{name}.html",
        switch=t("language_name", other_language(lang)),
        slides=slides,
    )


INDEX = """<!doctype html>
<html lang="{html_lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="../deck.css">
</head>
<body class="deck-index">
<p class="lang-switch"><a href="../{other}/index.html">{switch}</a></p>
<h1>{title}</h1>
<p>{intro}</p>
<ol>
{items}
</ol>
</body>
</html>
"""


def render_index(decks: list[tuple[str, str, int]], lang: str) -> str:
    """A language's list of decks: (file stem, title, number of slides) each."""
    items = "\n".join(
        f'<li value="{int(name[:2])}"><a href="{name}.html">{html.escape(title)}</a> '
        f'<span class="count">({count} {t("slides_slides", lang)})</span></li>'
        for name, title, count in decks
    )
    return INDEX.format(
        html_lang=t("html_lang", lang),
        title=t("slides_index", lang),
        other=other_language(lang),
        switch=t("language_name", other_language(lang)),
        intro=t("slides_intro", lang),
        items=items,
    )


# ----------------------------------------------------------------------------------------------------------------
# vendoring


def vendor(cache: Path = VENDOR_CACHE, scratch: Path = SCRATCH) -> Path:
    """The folder of :data:`VENDOR_FILES` (``cache``), made by ``npm ci`` when the lock file changed (one process at
    a time)."""
    with vendoring(cache):
        return _vendor(cache, scratch)


def _vendor(cache: Path, scratch: Path) -> Path:
    stamp = cache / ".lock-sha256"
    if stamp.is_file() and stamp.read_text().strip() == lock_digest(SLIDES):
        return cache
    modules = npm_ci(SLIDES, scratch)
    if cache.exists():
        shutil.rmtree(cache)
    notices = []
    for package, names in VENDOR_FILES.items():
        for name in names:
            copy_path(modules / package / name, cache / package / name)
        notices.append(notice_line(modules, package, names))
    (cache / "NOTICE").write_text(
        "Vendored by tools/build_slides.py from slides/package-lock.json; each package's licence applies to its "
        "files.\n" + "\n".join(notices) + "\n",
        encoding="utf-8",
    )
    stamp.write_text(lock_digest(SLIDES) + "\n")
    shutil.rmtree(scratch)
    return cache


# ----------------------------------------------------------------------------------------------------------------
# the build


def build(out: Path = DEFAULT_OUT, numbers: Sequence[str] = (), cache: Path = VENDOR_CACHE) -> list[Path]:
    """Write the decks of the chosen plans (all by default) in both languages; returns the deck files."""
    plans = [load_plan(p) for p in plan_paths(numbers)]
    editions = {
        p["notebook"]: {lang: read_notebook(p["notebook"], lang) for lang in LANGUAGES} for p in plans
    }
    problems = [msg for p in plans for msg in check_cells(p, editions[p["notebook"]])]
    if problems:
        raise ValueError("slide plans name cells the notebooks do not have:\n  " + "\n  ".join(problems))
    source = vendor(cache)
    if (out / "vendor").exists():
        shutil.rmtree(out / "vendor")
    shutil.copytree(source, out / "vendor", ignore=shutil.ignore_patterns(".lock-sha256"))
    for name in OWN_FILES:
        shutil.copy2(SLIDES / name, out / name)
    written = []
    for lang in LANGUAGES:
        folder = out / lang
        folder.mkdir(parents=True, exist_ok=True)
        index = []
        for plan in plans:
            nb = editions[plan["notebook"]][lang]
            path = folder / f"{plan['notebook']}.html"
            path.write_text(render_deck(plan, nb, lang), encoding="utf-8")
            written.append(path)
        # the index lists every deck in the folder, so that building a part keeps the others listed
        for path in sorted(folder.glob("[0-9][0-9]_*.html")):
            text = path.read_text(encoding="utf-8")
            title = html.unescape(re.search(r"<title>(.*?)</title>", text, re.S)[1])
            index.append((path.stem, title, text.count("<section ")))
        (folder / "index.html").write_text(render_index(index, lang), encoding="utf-8")
    links = " · ".join(f'<a href="{lang}/index.html">{t("language_name", lang)}</a>' for lang in LANGUAGES)
    (out / "index.html").write_text(
        f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0; url={LANGUAGES[0]}/index.html">'
        f'<link rel="icon" href="data:,"><title>Slides</title>{links}\n',
        encoding="utf-8",
    )
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/build_slides.py",
        description="Build reveal.js lecture decks (English and Chinese) from slides/plans/ and the notebooks.",
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default: {DEFAULT_OUT})"
    )
    parser.add_argument("--notebooks", nargs="*", default=[], help="notebook numbers to build (default: all)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        decks = build(args.out, args.notebooks)
    except (FileNotFoundError, RuntimeError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    size = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file()) / 1e6
    print(
        f"Wrote {len(decks)} decks ({size:.1f} MB with the vendored files) into {args.out} "
        f"in {time.perf_counter() - start:.1f} s: open {args.out / 'en' / 'index.html'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
