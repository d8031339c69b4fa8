"""Build the course's web site: a static folder, English and 简体中文, that works offline (`make site` calls this).

    python tools/build_site.py [--out build/site] [--notebooks 01 03] [--random-model] [--languages en zh]

From the executed notebooks as committed (notebooks/*.ipynb, notebooks/zh/*.ipynb; nothing is executed) it writes:

- ``en/`` and ``zh/``: one Sphinx build per language (myst-nb, sphinx-book-theme; the configuration is ``site/``),
  with the same file names in both, so each page's language switch links to the same path in the other folder:
  the course map (``index.html``, from the README's course map), one page per notebook (prose, maths, code,
  outputs, figures), "run it yourself" (``run.html``, from the README), the mini-BERT (``minibert.html``) and search;
- ``quiz/``: web/quiz's renderer and every bank exported by tools/export_banks.py. Each quiz cell of a notebook
  (``quiz.ask``, ``quiz.flashcards``, ``quiz.progress``) becomes a placeholder that ``site/_static/bertedu-site.js``
  fills from the same bank files, in the page's language: questions are graded in the browser;
- ``minibert/``: web/minibert and notebook 06's model as ONNX (tools/export_onnx.py; ``--random-model`` for tests);
- ``vendor/``: MathJax 3 and onnxruntime-web, vendored from npm by tools/vendor_web.py (web/package-lock.json);
- ``index.html``: the choice of language; ``.nojekyll``, so that GitHub Pages serves ``_static/``.

Exercises show their task: solution regions become the student edition's stubs (tools/editions.py), cells
tagged ``solution`` or ``instructor`` and the ``hint()`` / ``solution()`` calls are left out, and each check says how
to run it in the lab. The build fails if a reference solution can be read on a page (:func:`page_leaks`), if a
page would load anything from the network (:func:`network_references`), or if the site is over 100 MB.
"""

from __future__ import annotations

import argparse
import ast
import copy
import html
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import editions  # noqa: E402
import export_banks  # noqa: E402
import vendor_web  # noqa: E402

from bertedu import language  # noqa: E402
from bertedu.language import t  # noqa: E402

DEFAULT_OUT = ROOT / "build" / "site"
SOURCES = ROOT / "build" / "site-src"  # the Sphinx source folders, one per language (never inside notebooks/)
CONFIG = ROOT / "site"  # conf.py, _templates/, _static/
NOTEBOOK_FOLDERS = {lang: ROOT / folder for lang, folder in language.NOTEBOOK_FOLDERS.items()}
LANGUAGES = language.LANGUAGES
MAX_SIZE_MB = 100
#: The attribute the site's script mounts the mini-BERT panel on (site/_static/bertedu-site.js). Not an id: Sphinx
#: makes a section's id from its heading, and the Chinese heading "4 · 对比博客中的单层 MiniBert" of notebook 06
#: became id="minibert", so the panel replaced that whole section (newcomer review, 2026-12-06).
MINIBERT_PANEL = "data-bertedu-panel"
QUIZ_FILES = ("grader.js", "markdown.js", "progress.js", "render.js", "shuffle.js", "quiz.css")
MINIBERT_FILES = ("page.js", "model.js", "tokenizer.js")
QUIZ_CALLS = {"ask", "flashcards", "progress"}
WIDGET_MIMES = ("application/vnd.jupyter.widget-view+json", "application/vnd.jupyter.widget-state+json")
COURSE_NOTEBOOK = re.compile(r"[0-9][0-9]_\w+")
MD_LINK = re.compile(r"(?<!!)\[(?P<text>[^\]\n]*)\]\((?P<target>[^)\s]+)\)")

# Every word of the site (titles, intros, the language switch, the README's sections it shows) is in the one
# table of UI words, bertedu/language/words.py (keys site_*), read with t().


# --- the notebooks, as the site shows them -----------------------------------------------------------------


def quiz_call(source: str) -> tuple[str, list, dict] | None:
    """``("ask", args, kwargs)`` if the cell is one ``quiz.ask/flashcards/progress(...)`` call with literal
    arguments (comments allowed), else None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    call = tree.body[0].value
    func = getattr(call, "func", None)
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "quiz"):
        return None
    if func.attr not in QUIZ_CALLS:
        return None
    try:
        args = [ast.literal_eval(a) for a in call.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    except ValueError:
        return None
    return func.attr, args, kwargs


def quiz_placeholder(kind: str, args: list, kwargs: dict) -> str:
    """The <div> that site/_static/bertedu-site.js fills with the quiz renderer (web/quiz)."""
    attrs = {"data-kind": kind}
    notebook = args[0] if args else kwargs.get("notebook")
    if kind != "progress" and notebook:
        attrs["data-notebook"] = notebook
    if kind == "ask":
        ids = args[1] if len(args) > 1 else kwargs.get("ids")
        if ids is not None:
            attrs["data-questions"] = json.dumps([ids] if isinstance(ids, str) else list(ids))
    deck = args[1] if kind == "flashcards" and len(args) > 1 else kwargs.get("deck")
    if kind == "flashcards" and deck:
        attrs["data-deck"] = deck
    if kwargs.get("language"):
        attrs["data-lang"] = kwargs["language"]
    rendered = " ".join(f'{k}="{html.escape(str(v), quote=True)}"' for k, v in attrs.items())
    return f'<div class="bertedu-site-quiz mathjax_process" {rendered}></div>'


def review_items(source: str) -> list[tuple[str, str]] | None:
    """The questions a ``quiz.review(n=..., seed=...)`` call in the cell draws, as ``(notebook, id)`` pairs: the
    same seeded draw as in the notebook, so the page shows the questions its executed output showed."""
    calls = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "review"
        and getattr(node.func.value, "id", None) == "quiz"
    ]
    if len(calls) != 1:
        return None
    try:
        args = [ast.literal_eval(a) for a in calls[0].args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in calls[0].keywords if k.arg != "language"}
    except ValueError:
        return None
    from bertedu.teaching import quiz

    return [(w.question.notebook, w.question.id) for w in quiz.review(*args, **kwargs).questions]


def _html_output(text: str, plain: str):
    return nbformat.v4.new_output("display_data", data={"text/html": text, "text/plain": plain})


def _relink(source: str, lang: str, built: set[str]) -> str:
    """Markdown links: a course notebook this build has → its page; other files of the repository → their text."""

    def relink(m: re.Match) -> str:
        target = m["target"]
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^#", target):
            return m[0]
        path, _, anchor = target.partition("#")
        stem = Path(path).stem
        if path.endswith(".ipynb") and COURSE_NOTEBOOK.fullmatch(stem) and stem in built:
            return f"[{m['text']}]({stem}.ipynb{'#' + anchor if anchor else ''})"
        return m["text"] if m["text"] else f"`{path}`"

    return MD_LINK.sub(relink, source)


def _tag(cell, tag: str) -> None:
    cell.metadata.setdefault("tags", [])
    if tag not in cell.metadata["tags"]:
        cell.metadata["tags"].append(tag)


def site_notebook(nb, name: str, lang: str, built: set[str]):
    """The notebook as its page shows it: quizzes as placeholders, exercises without solutions, no widgets."""
    answers = {a for call in editions.check_calls(nb) for a in call.arg_names}
    out = copy.deepcopy(nb)
    out.metadata.pop("widgets", None)
    cells = []
    for i, cell in enumerate(out.cells):
        if editions.tags(cell) & set(editions.DROPPED_TAGS):
            continue
        if cell.cell_type == "markdown":
            cell.source = _relink(cell.source, lang, built)
        if cell.cell_type != "code":
            cells.append(cell)
            continue
        source = editions.NBVAL_MARKER.sub("", cell.source)
        widgets = [o for o in cell.outputs if WIDGET_MIMES[0] in o.get("data", {})]
        for output in cell.outputs:
            for mime in WIDGET_MIMES:
                output.get("data", {}).pop(mime, None)
        if widgets and "quiz.review(" in source and (items := review_items(source)):
            div = f'<div class="bertedu-site-quiz mathjax_process" data-kind="ask" data-items="{html.escape(json.dumps(items))}"></div>'
            cell.outputs = [o for o in cell.outputs if o not in widgets] + [
                _html_output(div, "[review quiz]")
            ]
        if editions.HELP_CALL.search(source):
            continue  # hint() and solution() calls: the check's note says how to get a hint in the lab
        new_source, had_regions = editions.replace_regions(source, answers, f"{name}, cell {i}")
        if had_regions:
            cell.outputs = []  # what a solution printed
        cell.source = new_source
        if found := quiz_call(source):
            cell.outputs = [_html_output(quiz_placeholder(*found), "[quiz]")]
            _tag(cell, "remove-input")
        else:
            checks = list(editions.CHECK_CALL.finditer(source))
            if checks and not any("given=True" in m["args"] for m in checks):
                m = checks[-1]
                call = f"{m['alias']}.{m['name']}.check({m['args']})"
                hint = f"{m['alias']}.{m['name']}.hint()"
                note = t("site_check_note", lang, call=html.escape(call), hint=hint, run="run.html")
                cell.outputs = [_html_output(f'<div class="bertedu-lab-note">{note}</div>', call)]
        cells.append(cell)
    out.cells = cells
    if name in _course_model_producers():
        title = t("site_minibert_title", lang)
        note = nbformat.v4.new_markdown_cell(t("site_minibert_link", lang, title=title))
        note.id = "site-minibert-link"
        out.cells.insert(1, note)
    nbformat.validate(out)
    return out


def _course_model_producers() -> tuple[str, ...]:
    import notebook_order

    return notebook_order.COURSE_MODEL_PRODUCERS


# --- leaks and network references in the built pages -------------------------------------------------------


def _code_blocks(page_html: str) -> list[set[str]]:
    """The lines of every code block and output of a built page, normalised as tools/editions.py does."""
    blocks = re.findall(r"<pre[^>]*>(.*?)</pre>", page_html, flags=re.S)
    out = []
    for block in blocks:
        text = html.unescape(re.sub(r"<[^>]+>", "", block))
        out.append({re.sub(r"\s+", " ", line.split("#", 1)[0]).strip() for line in text.split("\n")})
    return out


def solution_sources(nb) -> list[tuple[str, str]]:
    """``(what, code)`` of every reference answer of an instructor notebook: solution regions, ``solution``
    cells and the reference solutions of the exercises it checks."""
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if editions.TAG_SOLUTION in editions.tags(cell):
            found.append((f"solution cell {i}", cell.source))
        lines = cell.source.split("\n")
        for region in editions.solution_regions(cell.source, f"cell {i}"):
            found.append((f"solution region of cell {i}", "\n".join(lines[region.begin + 1 : region.end])))
    for label, exercise in editions.exercises(nb).items():
        found.append((f"the reference solution of {label}", exercise.solution_code))
    return found


def page_leaks(instructor_nb, page_html: str) -> list[str]:
    """Every reference answer of ``instructor_nb`` whose significant lines all stand in one code block of the page."""
    blocks = _code_blocks(page_html)
    leaks = []
    for what, code in solution_sources(instructor_nb):
        wanted = editions.significant_lines(code)
        if wanted and any(all(w in block for w in wanted) for block in blocks):
            leaks.append(f"{what} ({wanted[0]!r} ...)")
    return leaks


FETCHING_TAG = re.compile(r"<(?:script|link|img|iframe|source|video|audio|embed|object|track)\b[^>]*>", re.I)
REMOTE = re.compile(r"""\b(?:src|href|data|srcset)\s*=\s*["']?\s*(?:https?:)?//""", re.I)
CSS_REMOTE = re.compile(r"""(?:url\(\s*["']?|@import\s+["'])\s*(?:https?:)?//""", re.I)


def network_references(folder: Path) -> list[str]:
    """Every place in the site's HTML and CSS where a browser would fetch something from another host
    (``<a href>`` links are not fetched, so they are allowed)."""
    found = []
    for path in sorted(folder.rglob("*.html")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for tag in FETCHING_TAG.findall(text):
            if REMOTE.search(tag) and not re.search(r"""rel=["']?(?:canonical|alternate)""", tag):
                found.append(f"{path.relative_to(folder)}: {tag[:160]}")
    for path in sorted(folder.rglob("*.css")):
        if CSS_REMOTE.search(path.read_text(encoding="utf-8", errors="replace")):
            found.append(f"{path.relative_to(folder)}: a url() or @import from the network")
    return found


ICON_LINK = re.compile(r"""<link\b[^>]*\brel=["']?(?:shortcut )?icon["']?[^>]*>""", re.I)
HREF = re.compile(r"""\bhref=["']?([^"' >]+)""", re.I)


def icon_problems(folder: Path) -> list[str]:
    """Pages (the landing page and each language's pages) that name no icon, or one that is not in the site: the
    browser then asks for /favicon.ico and logs a 404 on every page (newcomer review, 2026-12-06)."""
    found = []
    for page in sorted([folder / "index.html", *folder.glob("*/*.html")]):
        if not page.is_file() or page.parent.name in ("minibert", "vendor"):
            continue
        links = ICON_LINK.findall(page.read_text(encoding="utf-8", errors="replace"))
        hrefs = [m.group(1) for link in links if (m := HREF.search(link))]
        if not hrefs:
            found.append(f"{page.relative_to(folder)} names no icon")
        elif not all((page.parent / href).is_file() for href in hrefs):
            found.append(f"{page.relative_to(folder)}: its icon {hrefs[0]} is not in the site")
    return found


def folder_size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


# --- the Sphinx source folders ---------------------------------------------------------------------------


def readme_section(text: str, heading: str) -> str:
    """The Markdown of the README section that starts with ``heading`` (up to the next heading of its level)."""
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith(heading)), None)
    if start is None:
        raise ValueError(
            f"README has no section {heading!r}: update site_readme_* in bertedu/language/words.py"
        )
    level = len(heading) - len(heading.lstrip("#"))
    in_code, end = False, len(lines)
    for j in range(start + 1, len(lines)):
        in_code ^= lines[j].startswith("```")
        hashes = len(lines[j]) - len(lines[j].lstrip("#"))
        if not in_code and 0 < hashes <= level and lines[j][hashes : hashes + 1] == " ":
            end = j
            break
    return "\n".join(lines[start + 1 : end]).strip()


def _write(path: Path, text: str) -> None:
    """Write ``text`` unless the file already holds it (Sphinx then rebuilds only what changed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def index_page(lang: str, stems: list[str]) -> str:
    readme = (ROOT / language.READMES[lang]).read_text(encoding="utf-8")
    course_map = _relink(readme_section(readme, t("site_readme_map", lang)), lang, set(stems))
    toctree = "\n".join([*stems, "run", "minibert"])
    return (
        f"# {t('site_project', lang)}\n\n{t('site_intro', lang)}\n\n## {t('site_map', lang)}\n\n{course_map}\n\n"
        f"```{{toctree}}\n:hidden:\n:maxdepth: 1\n\n{toctree}\n```\n"
    )


def run_page(lang: str) -> str:
    readme = (ROOT / language.READMES[lang]).read_text(encoding="utf-8")
    parts = []
    for heading in t("site_readme_run", lang).split("\n"):  # one heading per line
        full = next(line for line in readme.split("\n") if line.startswith(heading))
        body = readme_section(readme, heading)
        parts.append(f"## {full.lstrip('#').strip()}\n\n{body}")
    text = _relink("\n\n".join(parts), lang, set())
    return f"# {t('site_run_title', lang)}\n\n{t('site_run_intro', lang)}\n\n{text}\n"


def minibert_page(lang: str, stems: list[str]) -> str:
    intro = _relink(t("site_minibert_intro", lang), lang, set(stems))
    return (
        f"# {t('site_minibert_title', lang)}\n\n"
        f'<div class="bertedu-minibert" {MINIBERT_PANEL}="minibert"><p>…</p></div>\n\n'
        f"{intro}\n"
    )


def write_sources(lang: str, notebooks: list[Path], src: Path) -> None:
    """Sphinx's source folder for one language: configuration, pages and the notebooks as the site shows them."""
    stems = [p.stem for p in notebooks]
    for name in ("conf.py",):
        _write(src / name, (CONFIG / name).read_text(encoding="utf-8"))
    for sub in ("_templates", "_static"):
        for f in (CONFIG / sub).iterdir():
            _write(src / sub / f.name, f.read_text(encoding="utf-8"))
    other = next(code for code in LANGUAGES if code != lang)  # the language the switch leads to
    settings = {
        "lang": lang,
        "other": other,
        "sphinx_language": t("html_lang", lang).replace("-", "_"),  # zh-CN -> Sphinx's zh_CN
        "project": t("site_project", lang),
        "title": t("site_title", lang),
        "other_label": t("language_name", other),
        "other_html_lang": t("html_lang", other),
    }
    _write(src / "site.json", json.dumps(settings, ensure_ascii=False, indent=1) + "\n")
    _write(src / "index.md", index_page(lang, stems))
    _write(src / "run.md", run_page(lang))
    _write(src / "minibert.md", minibert_page(lang, stems))
    keep = {"conf.py", "site.json", "index.md", "run.md", "minibert.md", "_templates", "_static"}
    for path in notebooks:
        nb = site_notebook(editions.read(path), path.stem, lang, set(stems))
        _write(src / path.name, editions.notebook_text(nb))
        keep.add(path.name)
    for stale in src.iterdir():  # notebooks of an earlier, larger build
        if stale.name not in keep:
            shutil.rmtree(stale) if stale.is_dir() else stale.unlink()


def start_sphinx(sources: dict[str, Path], work: Path) -> dict[str, tuple[subprocess.Popen, Path]]:
    """Start the languages' Sphinx builds side by side (one process each), each into its own folder under ``work``
    (myst-nb writes its scratch files next to the output folder); :func:`finish_sphinx` waits for them."""
    procs = {}
    for lang, src in sources.items():
        html_dir, log = work / lang / "html", work / f"{lang}.log"
        pages = sorted(p.name for p in src.iterdir())
        listing = work / lang / "sources.json"
        if listing.is_file() and json.loads(listing.read_text(encoding="utf-8")) != pages:
            shutil.rmtree(work / lang)  # Sphinx keeps the pages of removed sources: start afresh
        _write(listing, json.dumps(pages) + "\n")
        html_dir.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-d", str(work / lang / "doctrees")]
        command += [str(src), str(html_dir)]
        procs[lang] = (subprocess.Popen(command, stdout=log.open("w"), stderr=subprocess.STDOUT), log)
    return procs


def finish_sphinx(procs: dict[str, tuple[subprocess.Popen, Path]], out: Path) -> None:
    """Wait for the Sphinx builds, then copy each language's pages to ``out/LANG``; raise with the log of a failure."""
    failed = []
    for lang, (proc, log) in procs.items():
        if proc.wait() != 0:
            failed.append(f"Sphinx failed for {lang} ({log}):\n{log.read_text(encoding='utf-8')[-3000:]}")
    if failed:
        raise RuntimeError("\n".join(failed))
    for lang, (_, log) in procs.items():
        if (out / lang).exists():
            shutil.rmtree(out / lang)
        shutil.copytree(
            log.parent / lang / "html", out / lang, ignore=shutil.ignore_patterns(".buildinfo", "_sources")
        )
        fix_chinese_stemmer(out / lang / "_static" / "language_data.js")


#: Sphinx 9's Chinese search ships the English stemmer but calls it ``ChineseStemmer``: a ReferenceError on every
#: page of the Chinese site. Fixed in the copy the site serves (Sphinx rewrites its own on each build).
_STEMMER_BUG = ("window.Stemmer = ChineseStemmer;", "window.Stemmer = EnglishStemmer;")


def fix_chinese_stemmer(language_data: Path) -> None:
    """Name the stemmer Sphinx's Chinese search ships, in a built site's ``_static/language_data.js``."""
    if language_data.is_file():
        text = language_data.read_text(encoding="utf-8")
        if _STEMMER_BUG[0] in text and "var ChineseStemmer" not in text:
            language_data.write_text(text.replace(*_STEMMER_BUG), encoding="utf-8")


# --- the shared folders and the build ----------------------------------------------------------------------


def copy_assets(out: Path, random_model: bool, model_dir: Path | None) -> None:
    """quiz/ (renderer + banks), minibert/ (panel + ONNX model), vendor/ (MathJax, onnxruntime-web)."""
    import export_onnx

    for name in QUIZ_FILES:
        _copy(ROOT / "web" / "quiz" / name, out / "quiz" / name)
    export_banks.export(out / "quiz" / "data")
    for name in MINIBERT_FILES:
        _copy(ROOT / "web" / "minibert" / name, out / "minibert" / name)
    vendored = vendor_web.vendor()
    shutil.copytree(
        vendor_web.DEFAULT_OUT, out / "vendor", dirs_exist_ok=True, ignore=shutil.ignore_patterns(".*")
    )
    del vendored
    args = ["--out", str(out / "minibert" / "model"), "--no-check"]
    args += ["--random"] if random_model else (["--model", str(model_dir)] if model_dir else [])
    if export_onnx.main(args) != 0:
        raise RuntimeError("tools/export_onnx.py failed: see its message above")


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)


def landing_page() -> str:
    links = "\n".join(
        f'<p><a href="{lang}/index.html" lang="{t("html_lang", lang)}">{t("site_choose", lang)}</a></p>'
        for lang in LANGUAGES
    )
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<link rel="icon" href="{language.DEFAULT_LANGUAGE}/_static/favicon.svg">\n'
        f"<title>{t('site_project', language.DEFAULT_LANGUAGE)}</title>\n"
        "<style>body{font-family:sans-serif;max-width:40em;margin:3em auto;padding:0 1em;font-size:1.2em}</style>\n"
        f"</head>\n<body>\n<h1>bertedu</h1>\n<p>{' · '.join(t('site_project', lang) for lang in LANGUAGES)}</p>\n"
        f"{links}\n</body>\n</html>\n"
    )


def select_notebooks(lang: str, wanted: Sequence[str]) -> list[Path]:
    """The language's notebooks, all or those whose name starts with one of ``wanted`` (``01``, ``03_mask``)."""
    found = sorted(NOTEBOOK_FOLDERS[lang].glob("[0-9][0-9]_*.ipynb"))
    if wanted:
        found = [p for p in found if any(p.stem.startswith(w) for w in wanted)]
        missing = [w for w in wanted if not any(p.stem.startswith(w) for p in found)]
        if missing:
            raise ValueError(
                f"no {lang} notebook starts with {', '.join(missing)} (see {NOTEBOOK_FOLDERS[lang]})"
            )
    return found


def panel_problems(out: Path) -> list[str]:
    """Pages of a built site where the mini-BERT panel would mount, other than each language's minibert.html
    (which must hold it once): the script mounts it on the element carrying MINIBERT_PANEL."""
    problems = []
    for page in sorted(out.glob("*/*.html")):
        found = page.read_text(encoding="utf-8").count(f'{MINIBERT_PANEL}="minibert"')
        wanted = 1 if page.name == "minibert.html" else 0
        if found != wanted:
            problems.append(f"{page.relative_to(out)} holds {found} mini-BERT panels, not {wanted}")
    return problems


def check_site(out: Path, notebooks: dict[str, list[Path]]) -> list[str]:
    """What is wrong with a built site: solution leaks, network references, size over the limit, a mini-BERT
    panel in the wrong place."""
    problems = panel_problems(out)
    for lang, paths in notebooks.items():
        for path in paths:
            page = out / lang / f"{path.stem}.html"
            if not page.is_file():
                problems.append(f"{page} was not written")
                continue
            leaks = page_leaks(editions.read(path), page.read_text(encoding="utf-8"))
            problems += [f"{page.relative_to(out)} shows {leak}" for leak in leaks]
    problems += [f"loads from the network: {ref}" for ref in network_references(out)]
    problems += icon_problems(out)
    for data in sorted(out.glob("*/_static/language_data.js")):
        text = data.read_text(encoding="utf-8")
        if _STEMMER_BUG[0] in text and "var ChineseStemmer" not in text:
            problems.append(f"{data.relative_to(out)} calls a stemmer it does not define (ChineseStemmer)")
    size = folder_size_mb(out)
    if size > MAX_SIZE_MB:
        problems.append(f"the site is {size:.1f} MB, over the {MAX_SIZE_MB} MB limit")
    return problems


def build(
    out: Path = DEFAULT_OUT,
    wanted: Sequence[str] = (),
    languages: Sequence[str] = LANGUAGES,
    random_model: bool = False,
    model_dir: Path | None = None,
    sources: Path = SOURCES,
) -> dict:
    """Build the site into ``out``; returns what was built (pages, size in MB, seconds)."""
    start = time.perf_counter()
    notebooks = {lang: select_notebooks(lang, wanted) for lang in languages}
    out.mkdir(parents=True, exist_ok=True)
    srcs = {}
    for lang in languages:
        srcs[lang] = sources / lang
        write_sources(lang, notebooks[lang], srcs[lang])
    procs = start_sphinx(srcs, sources / ".work")
    try:
        copy_assets(out, random_model, model_dir)  # while Sphinx works
    finally:
        finish_sphinx(procs, out)
    _write(out / "index.html", landing_page())
    _write(out / ".nojekyll", "")
    problems = check_site(out, notebooks)
    if problems:
        raise RuntimeError("the site is not right:\n  " + "\n  ".join(problems))
    return {
        "pages": {lang: [p.stem for p in paths] for lang, paths in notebooks.items()},
        "size_mb": folder_size_mb(out),
        "seconds": time.perf_counter() - start,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/build_site.py", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default: {DEFAULT_OUT})"
    )
    parser.add_argument(
        "--notebooks", nargs="*", default=[], help="only these notebooks (01 03_mask ...): a part"
    )
    parser.add_argument("--languages", nargs="*", default=list(LANGUAGES), choices=LANGUAGES)
    parser.add_argument(
        "--model", type=Path, default=None, help="notebook 06's model folder (default: runs/mini-bert)"
    )
    parser.add_argument("--random-model", action="store_true", help="a small random mini-BERT (tests)")
    args = parser.parse_args(argv)
    os.environ.setdefault("PYTHONHASHSEED", "0")
    try:
        built = build(args.out, args.notebooks, args.languages, args.random_model, args.model)
    except (ValueError, FileNotFoundError, RuntimeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    pages = sum(len(v) for v in built["pages"].values())
    print(
        f"Built {pages} notebook pages ({', '.join(built['pages'])}) into {args.out}: "
        f"{built['size_mb']:.1f} MB in {built['seconds']:.0f} s."
    )
    print(f"Serve it: .venv/bin/python -m http.server -d {args.out} 8765, then open http://localhost:8765/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
