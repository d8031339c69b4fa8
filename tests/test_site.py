"""`make site` (tools/build_site.py): the notebooks as the web site shows them, without Sphinx or a browser.

Quiz cells become placeholders for web/quiz's renderer (same bank ids), exercises show their task and how to run
the check in the lab but no solution, widget views keep only their HTML fallback, and the checks the build runs on
its pages (a reference solution readable in a code block, anything fetched from another host) find what they look
for. The real build in a browser is tests/browser/test_site_browser.py.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

import build_site  # noqa: E402
import editions  # noqa: E402

from bertedu.teaching.quiz.banks import load_bank  # noqa: E402

NOTEBOOK = "01_self_attention_by_hand"
PLACEHOLDER = re.compile(r'<div class="bertedu-site-quiz[^"]*"([^>]*)></div>')


def _attrs(placeholder: str) -> dict[str, str]:
    return {k: html.unescape(v) for k, v in re.findall(r'(data-[\w-]+)="([^"]*)"', placeholder)}


def _as_page(nb) -> str:
    """The code and text outputs of a notebook as the <pre> blocks of a page (what page_leaks reads)."""
    blocks = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        blocks.append(cell.source)
        for output in cell.outputs:
            blocks.append(output.get("text", "") + output.get("data", {}).get("text/plain", ""))
    return "".join(f"<pre>{html.escape(b)}</pre>" for b in blocks)


def test_quiz_calls_are_recognised_with_their_arguments():
    assert build_site.quiz_call('quiz.ask("03_x", ["a", "b"])') == ("ask", ["03_x", ["a", "b"]], {})
    assert build_site.quiz_call("# NBVAL_IGNORE_OUTPUT\nquiz.progress()") == ("progress", [], {})
    assert build_site.quiz_call('quiz.ask("00_w", "q", language="zh")') == (
        "ask",
        ["00_w", "q"],
        {"language": "zh"},
    )
    assert build_site.quiz_call('quiz.flashcards(deck="part-a")') == ("flashcards", [], {"deck": "part-a"})
    for not_one in (
        'x = quiz.ask("03_x")',
        "quiz.review(n=12, seed=0)",
        "quiz.ask(name)",
        "print(1)",
        "quiz.ask(",
    ):
        assert build_site.quiz_call(not_one) is None, not_one


def test_a_placeholder_names_the_bank_the_questions_and_the_language():
    div = build_site.quiz_placeholder("ask", ["03_x", ["a", 'b"c']], {"language": "zh"})
    attrs = _attrs(div)
    assert attrs["data-kind"] == "ask" and attrs["data-notebook"] == "03_x" and attrs["data-lang"] == "zh"
    assert json.loads(attrs["data-questions"]) == ["a", 'b"c']
    assert json.loads(_attrs(build_site.quiz_placeholder("ask", ["03_x", "one"], {}))["data-questions"]) == [
        "one"
    ]
    deck = _attrs(build_site.quiz_placeholder("flashcards", [], {"deck": "part-b"}))
    assert deck == {"data-kind": "flashcards", "data-deck": "part-b"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_notebook_01_as_the_site_shows_it(lang):
    path = build_site.NOTEBOOK_FOLDERS[lang] / f"{NOTEBOOK}.ipynb"
    instructor = editions.read(path)
    nb = build_site.site_notebook(instructor, NOTEBOOK, lang, {NOTEBOOK})
    bank = load_bank(NOTEBOOK)
    asked = [c for c in instructor.cells if c.cell_type == "code" and build_site.quiz_call(c.source)]
    placeholders = [
        (cell, m[0])
        for cell in nb.cells
        if cell.cell_type == "code"
        for o in cell.outputs
        for m in [PLACEHOLDER.search(o.get("data", {}).get("text/html", ""))]
        if m
    ]
    assert len(placeholders) == len(asked) > 3
    for cell, div in placeholders:
        assert "remove-input" in cell.metadata["tags"] and len(cell.outputs) == 1
        for qid in json.loads(_attrs(div).get("data-questions", "[]")):
            assert any(q.id == qid for q in bank.questions), qid
    text = editions.notebook_text(nb)
    assert (
        editions.BEGIN_SOLUTION not in text
        and "widget-view+json" not in text
        and "widgets" not in nb.metadata
    )
    assert not [c for c in nb.cells if editions.tags(c) & set(editions.DROPPED_TAGS)]
    assert not [c for c in nb.cells if c.cell_type == "code" and editions.HELP_CALL.search(c.source)]
    notes = [c for c in nb.cells if "bertedu-lab-note" in json.dumps(c.get("outputs", []))]
    assert notes and all(editions.CHECK_CALL.search(c.source) for c in notes)
    assert "ex.attention_weights.check(weights)" in json.dumps([c.outputs for c in notes])
    assert "make lab-zh" in json.dumps([c.outputs for c in notes]) if lang == "zh" else True
    # the starter code keeps its stub; the given buggy code and its check's message stay (they are the task)
    assert "NotImplementedError" in text and "given=True" in text


def test_page_leaks_sees_a_reference_solution_and_nothing_on_the_site_page():
    instructor = editions.read(build_site.NOTEBOOK_FOLDERS["en"] / f"{NOTEBOOK}.ipynb")
    assert build_site.page_leaks(instructor, _as_page(instructor))  # the instructor edition shows them all
    site = build_site.site_notebook(instructor, NOTEBOOK, "en", {NOTEBOOK})
    assert build_site.page_leaks(instructor, _as_page(site)) == []


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_notebook_shows_a_solution_on_the_site(lang):
    paths = build_site.select_notebooks(lang, [])
    leaks = {}
    for path in paths:
        instructor = editions.read(path)
        site = build_site.site_notebook(instructor, path.stem, lang, {p.stem for p in paths})
        if found := build_site.page_leaks(instructor, _as_page(site)):
            leaks[path.name] = found
    assert not leaks


def test_network_references_are_found_and_links_are_not(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "page.html").write_text(
        '<script src="https://cdn.example.org/x.js"></script><link rel="stylesheet" href="//fonts.example.org/c">'
        '<img alt="" src="local.png"><a href="https://arxiv.org/abs/1810.04805">paper</a>',
        encoding="utf-8",
    )
    (tmp_path / "style.css").write_text("@font-face { src: url('https://fonts.example.org/f.woff2') }")
    found = build_site.network_references(tmp_path)
    assert len(found) == 3, found
    assert not any("arxiv" in f for f in found)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_course_map_and_run_it_yourself_come_from_the_readme(lang):
    index = build_site.index_page(lang, [NOTEBOOK])
    assert f"({NOTEBOOK}.ipynb)" in index and "notebooks/" not in index
    assert re.search(r"```\{toctree\}.*\n01_self_attention_by_hand\nrun\nminibert\n```", index, re.S)
    run = build_site.run_page(lang)
    assert ("make lab-zh" if lang == "zh" else "make lab") in run
    assert ("tools/lab.py --zh" if lang == "zh" else "tools/lab.py") in run and "pip install -e ." in run


def test_both_languages_have_the_same_pages_and_a_part_can_be_chosen():
    stems = {lang: [p.stem for p in build_site.select_notebooks(lang, [])] for lang in build_site.LANGUAGES}
    assert stems["en"] == stems["zh"] and len(stems["en"]) >= 12
    assert [p.stem for p in build_site.select_notebooks("zh", ["01", "03"])] == [
        "01_self_attention_by_hand",
        "03_masking_strategy",
    ]
    with pytest.raises(ValueError, match="99"):
        build_site.select_notebooks("en", ["99"])


def test_notebook_06_links_to_the_mini_bert_page():
    nb = build_site.site_notebook(
        editions.read(build_site.NOTEBOOK_FOLDERS["zh"] / "06_mini_pretraining.ipynb"),
        "06_mini_pretraining",
        "zh",
        set(),
    )
    assert "(minibert.md)" in nb.cells[1].source and "迷你 BERT" in nb.cells[1].source


@pytest.mark.slow
def test_every_question_and_card_of_the_banks_is_on_the_site():
    from bertedu.teaching.quiz.banks import load_all

    shown, cards = set(), set()
    stems = {p.stem for p in build_site.select_notebooks("en", [])}
    for path in build_site.select_notebooks("en", []):
        nb = build_site.site_notebook(editions.read(path), path.stem, "en", stems)
        for cell in nb.cells:
            for output in cell.get("outputs", []):
                for m in PLACEHOLDER.finditer(output.get("data", {}).get("text/html", "")):
                    attrs = _attrs(m[0])
                    if "data-items" in attrs:  # the review's draw
                        shown |= {tuple(item) for item in json.loads(attrs["data-items"])}
                    elif attrs["data-kind"] == "ask":
                        shown |= {
                            (attrs["data-notebook"], q)
                            for q in json.loads(attrs.get("data-questions", '["*"]'))
                        }
                    elif attrs["data-kind"] == "flashcards":
                        cards.add((attrs.get("data-notebook"), attrs.get("data-deck")))
    for bank in load_all():
        missing = [
            q.id for q in bank.questions if {(bank.notebook, q.id), (bank.notebook, "*")}.isdisjoint(shown)
        ]
        assert not missing, f"{bank.notebook}: questions no page shows: {missing}"
        for card in bank.flashcards:
            assert {(bank.notebook, None), (None, card.deck)} & cards, (
                f"{bank.notebook}: card {card.id} is on no page"
            )


def test_the_review_shows_the_questions_its_notebook_drew():
    path = build_site.NOTEBOOK_FOLDERS["en"] / "09_review.ipynb"
    instructor = editions.read(path)
    (cell,) = [c for c in instructor.cells if c.cell_type == "code" and "quiz.review(" in c.source]
    executed = "".join(o.get("data", {}).get("text/html", "") for o in cell.outputs)
    items = build_site.review_items(cell.source)
    assert len(items) == 12
    first = next(q for q in load_bank(items[0][0]).questions if q.id == items[0][1])
    assert html.escape(first.prompt["en"].split("\n")[0][:40], quote=False) in executed  # the same draw
    site = build_site.site_notebook(instructor, "09_review", "en", set())
    (shown,) = [c for c in site.cells if c.cell_type == "code" and "quiz.review(" in c.source]
    (div,) = [m[0] for o in shown.outputs for m in [PLACEHOLDER.search(o.data.get("text/html", ""))] if m]
    assert json.loads(_attrs(div)["data-items"]) == [list(i) for i in items]


def test_the_mini_bert_panel_mounts_on_its_own_attribute_never_on_a_section_id(tmp_path):
    """Sphinx gives a section the id of its heading: notebook 06's Chinese "4 · 对比博客中的单层 MiniBert" became
    id="minibert", and the script, which mounted the panel on getElementById("minibert"), replaced the whole
    section. The panel now has an attribute of its own, which only the mini-BERT page holds."""
    script = (ROOT / "site" / "_static" / "bertedu-site.js").read_text(encoding="utf-8")
    assert f'[{build_site.MINIBERT_PANEL}="minibert"]' in script.replace("'", '"')
    assert 'getElementById("minibert")' not in script
    for lang in build_site.LANGUAGES:
        page = build_site.minibert_page(lang, [])
        assert f'{build_site.MINIBERT_PANEL}="minibert"' in page and 'id="minibert"' not in page
    # a built site: notebook 06's section with Sphinx's id is fine; a second panel is not
    (tmp_path / "zh").mkdir()
    (tmp_path / "zh" / "minibert.html").write_text(build_site.minibert_page("zh", []), encoding="utf-8")
    section = '<section id="minibert"><h2>4 · 对比博客中的单层 MiniBert</h2></section>'
    (tmp_path / "zh" / "06_mini_pretraining.html").write_text(section, encoding="utf-8")
    assert build_site.panel_problems(tmp_path) == []
    (tmp_path / "zh" / "06_mini_pretraining.html").write_text(
        section + build_site.minibert_page("zh", []), encoding="utf-8"
    )
    assert build_site.panel_problems(tmp_path) == [
        "zh/06_mini_pretraining.html holds 1 mini-BERT panels, not 0"
    ]


def test_the_chinese_search_gets_the_stemmer_sphinx_ships(tmp_path):
    """Sphinx 9's Chinese search calls ``ChineseStemmer``, which it does not ship: the copy the site serves names
    the English stemmer it does ship, and check_site reports a copy that was not fixed."""
    data = tmp_path / "zh" / "_static" / "language_data.js"
    data.parent.mkdir(parents=True)
    broken = "var EnglishStemmer = function() {};\nwindow.Stemmer = ChineseStemmer;\n"
    data.write_text(broken, encoding="utf-8")
    assert any("ChineseStemmer" in p for p in build_site.check_site(tmp_path, {}))
    build_site.fix_chinese_stemmer(data)
    assert data.read_text(encoding="utf-8") == broken.replace("= ChineseStemmer;", "= EnglishStemmer;")
    assert not any("ChineseStemmer" in p for p in build_site.check_site(tmp_path, {}))
    build_site.fix_chinese_stemmer(tmp_path / "en" / "_static" / "language_data.js")  # no file: nothing to do


def test_every_page_names_an_icon_the_site_holds(tmp_path):
    """Without an icon link the browser asks for /favicon.ico, a 404 in every page's console (newcomer review,
    2026-12-06): the landing page and each language's pages name the site's icon, and check_site says which do
    not."""
    (tmp_path / "en" / "_static").mkdir(parents=True)
    (tmp_path / "en" / "_static" / "favicon.svg").write_text(
        (ROOT / "site" / "_static" / "favicon.svg").read_text()
    )
    (tmp_path / "index.html").write_text(build_site.landing_page(), encoding="utf-8")
    (tmp_path / "en" / "01.html").write_text('<head><link rel="icon" href="_static/favicon.svg"/></head>')
    assert build_site.icon_problems(tmp_path) == []
    (tmp_path / "en" / "02.html").write_text("<head></head>")
    (tmp_path / "en" / "03.html").write_text('<head><link rel="icon" href="_static/nothing.ico"></head>')
    assert build_site.icon_problems(tmp_path) == [
        "en/02.html names no icon",
        "en/03.html: its icon _static/nothing.ico is not in the site",
    ]
    assert "en/02.html names no icon" in build_site.check_site(tmp_path, {})
    assert 'html_favicon = "_static/favicon.svg"' in (ROOT / "site" / "conf.py").read_text(encoding="utf-8")
