"""Chinese bold and italics render: no Chinese Markdown string shows a literal ``*``.

CommonMark (and JupyterLab's renderer, marked, which follows it) only closes ``**…**`` when the closing
``**`` is *right-flanking*: ``**提示 1/2：**十五`` stays literal text, because ``：`` is punctuation and ``十`` is
not, so the colon goes outside (``**提示 1/2**：十五``). The quiz's own renderer
(:func:`bertedu.teaching.quiz.render.markdown_to_html`) once treated Chinese characters as word characters, so
``的*结构*，`` stayed literal there. This file renders every Chinese Markdown string a student sees with a
CommonMark parser (markdown-it-py) and, for the quiz banks and cards, with the quiz renderer too, and fails on a
``*`` left in the text (outside code and maths):

- the notebooks' Markdown, ``translations/zh/*.yaml``;
- the exercises' hints as ``ex.NAME.hint()`` shows them, and the other ``msg()`` templates that are shown as
  Markdown (the solution heading, the loss-curve diagnosis);
- every string of the quiz banks and flashcards;
- the other surfaces (review of 2026-12-06, F2: the site's Chinese page of notebook 06 showed
  ``**在网页浏览器中：**``): every UI word of ``bertedu/language/words.py`` (the web site's strings, which
  ``tools/build_site.py`` inserts as Markdown; the slides' index; the web pages, through ``ui.json``; the first
  cells of the student and hosted editions), every string of the slides' plans (``tools/build_slides.py`` renders
  them with CommonMark), and README.zh-CN.md (the site shows its sections).

It also checks the Chinese typography of all that prose: 80% and 层 0 在 (not 80 % and 层 0在).
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
import yaml
from markdown_it import MarkdownIt

from bertedu import language as i18n
from bertedu.language.words import DECK_TITLES
from bertedu.teaching.exercises.core import Exercise
from bertedu.teaching.quiz.banks import load_all
from bertedu.teaching.quiz.render import markdown_to_html

ZH_EMPHASIS_STYLE = i18n.t("emphasis_style", "zh")  # bertedu/language/words.py

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = sorted((ROOT / "translations" / "zh").glob("*.yaml"))
COMMONMARK = MarkdownIt("commonmark")
MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$", re.S)
CODE = re.compile(r"<code>.*?</code>|<pre>.*?</pre>", re.S)
TAG = re.compile(r"<[^>]+>")


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_language(None)


def literal_stars(rendered_html: str) -> list[str]:
    """The bits of text around each ``*`` left in ``rendered_html`` outside code (empty: every star rendered)."""
    text = TAG.sub("", CODE.sub("", rendered_html))
    return [text[max(0, m.start() - 12) : m.end() + 12] for m in re.finditer(r"\*", text)]


def commonmark_stars(markdown: str) -> list[str]:
    """Literal ``*`` of ``markdown`` rendered by CommonMark. Maths is set aside first, as Jupyter does, by a
    placeholder of punctuation (``@@0@@``), so ``的**$x$**`` fails here as it does in JupyterLab."""
    return literal_stars(COMMONMARK.render(MATH.sub("@@0@@", markdown)))


def quiz_stars(markdown: str) -> list[str]:
    """Literal ``*`` of ``markdown`` rendered by the quiz (maths, which MathJax typesets, left out)."""
    return literal_stars(MATH.sub("", markdown_to_html(markdown)))


def broken(strings: dict[str, str], *renderers) -> dict[str, list[str]]:
    """{where: the literal stars} of every string that some renderer leaves a ``*`` in."""
    out = {}
    for where, text in strings.items():
        stars = [s for render in renderers for s in render(text)]
        if stars:
            out[where] = stars
    return out


# ----------------------------------------------------------------------------------------------------------
# The check itself


def test_the_check_finds_a_bold_colon_and_an_italic_between_chinese_characters():
    assert len(commonmark_stars("**提示 1/2：**十五")) == 4  # the colon inside: both pairs stay literal
    assert commonmark_stars("**提示 1/2**：十五") == []
    assert commonmark_stars("ALBERT 用**句子顺序预测（SOP）**取代了它")  # `**` after `）`, before 取
    assert commonmark_stars("ALBERT 用**句子顺序预测**（SOP）取代了它") == []
    assert commonmark_stars("迷你 BERT 的**$H$**更大")  # maths is punctuation to Jupyter's Markdown
    assert commonmark_stars("`a * b` 与 $a*b*c$") == []  # code and maths are not Markdown
    assert quiz_stars("迷你 BERT 的*结构*，而不是预算") == []
    assert len(quiz_stars("2*3*4")) == 2


def test_the_quiz_renderer_italicises_between_chinese_characters_but_not_inside_words():
    assert markdown_to_html("对*值*的加权平均") == "<p>对<em>值</em>的加权平均</p>"
    assert markdown_to_html("起作用的是*结构*，而不是预算") == "<p>起作用的是<em>结构</em>，而不是预算</p>"
    assert markdown_to_html("**粗体**和*斜体*") == "<p><strong>粗体</strong>和<em>斜体</em></p>"
    assert markdown_to_html("a *b* c") == "<p>a <em>b</em> c</p>"
    for literal in ("2*3*4", "snake*case*x", "*a*b"):  # a letter or digit next to a star keeps it literal
        assert markdown_to_html(literal) == f"<p>{literal}</p>"


EM_TAG = re.compile(r"<em(?:\s[^>]*)?>")
UPRIGHT_EM = f'<em style="{ZH_EMPHASIS_STYLE}">'


def test_chinese_emphasis_is_upright_and_bold_and_english_stays_italic():
    """CJK fonts have no italic: a browser slants the glyphs itself, which reads badly. Under ``zh`` the quiz
    writes ``<em>`` upright and bold; English keeps its plain ``<em>`` (and equals web/quiz/markdown.js)."""
    assert "font-style:normal" in ZH_EMPHASIS_STYLE and "font-weight:bold" in ZH_EMPHASIS_STYLE
    assert markdown_to_html("对*值*的加权平均", "zh") == f"<p>对{UPRIGHT_EM}值</em>的加权平均</p>"
    assert markdown_to_html("a *b* c", "en") == markdown_to_html("a *b* c") == "<p>a <em>b</em> c</p>"
    assert markdown_to_html("**粗体** `*x*`", "zh") == "<p><strong>粗体</strong> <code>*x*</code></p>"


def test_every_emphasis_of_a_chinese_quiz_widget_is_upright(monkeypatch, tmp_path):
    """The live widget (prompt, feedback, solution) and its static fallback: every ``<em>`` under ``zh`` carries
    the upright style, every one under ``en`` is plain."""
    from bertedu.teaching import quiz

    monkeypatch.setenv("BERTEDU_HOME", str(tmp_path))
    w = quiz.ask("03_masking_strategy", "dynamic-masking", language="zh")
    w.options_box.value = 0
    w.submit.click()
    w.solution_button.click()
    deck = quiz.flashcards("03_masking_strategy", language="zh")
    zh = [w.prompt.value, w.feedback.value, w.solution.value, w.static_html(), deck.static_html()]
    assert "<em" in w.prompt.value and "<em" in w.static_html() and "<em" in deck.static_html()
    tags = [tag for html in zh for tag in EM_TAG.findall(html)]
    assert tags and set(tags) == {UPRIGHT_EM}
    w.language.value = "en"
    deck.language.value = "en"
    en = [w.prompt.value, w.feedback.value, w.solution.value, w.static_html(), deck.static_html()]
    tags = [tag for html in en for tag in EM_TAG.findall(html)]
    assert tags and set(tags) == {"<em>"}


def test_the_web_quiz_shows_chinese_emphasis_upright():
    """web/quiz: questions and cards carry their language (``lang``: the UI word html_lang) and, where the UI word
    emphasis_style is set (Chinese), ``data-upright-emphasis``; quiz.css sets ``em`` inside them upright and bold,
    with the declarations of emphasis_style, leaving English emphasis alone."""
    css = (ROOT / "web" / "quiz" / "quiz.css").read_text(encoding="utf-8")
    rules = {
        sel.strip(): body
        for sel, body in re.findall(r"([^{}]+)\{([^}]*)\}", re.sub(r"/\*.*?\*/", "", css, flags=re.S))
    }
    upright = [body for sel, body in rules.items() if re.fullmatch(r"\[data-upright-emphasis\] em", sel)]
    assert len(upright) == 1

    def declarations(text: str) -> dict[str, str]:
        return {k.strip(): v.strip() for k, v in (d.split(":", 1) for d in text.split(";") if d.strip())}

    assert (
        declarations(upright[0])
        == declarations(ZH_EMPHASIS_STYLE)
        == {
            "font-style": "normal",
            "font-weight": "bold",
        }
    )
    assert i18n.t("emphasis_style", "en") == ""  # English: the browser's italics
    assert not [
        sel for sel in rules if re.search(r"(^|[\s,>])em\b", sel) and "data-upright-emphasis" not in sel
    ]
    render = (ROOT / "web" / "quiz" / "render.js").read_text(encoding="utf-8")
    marked = 'lang: t(ui, "html_lang", lang), "data-upright-emphasis": Boolean(t(ui, "emphasis_style", lang))'
    assert render.count(marked) >= 2  # questions and flashcards


# ----------------------------------------------------------------------------------------------------------
# Every Chinese Markdown string


def catalog_cells() -> dict[str, str]:
    cells = {}
    for path in CATALOGS:
        for cell_id, entry in (yaml.safe_load(path.read_text(encoding="utf-8"))["cells"] or {}).items():
            if entry.get("zh"):
                cells[f"{path.name} {cell_id}"] = entry["zh"]
    return cells


def test_every_notebook_cell_of_the_chinese_edition_renders_its_emphasis():
    cells = catalog_cells()
    assert len(cells) > 100, "the catalogs were not found"
    bad = broken(cells, commonmark_stars)
    assert not bad, f"literal * in Chinese Markdown (put full-width punctuation outside **…**): {bad}"


def exercises() -> list[Exercise]:
    found = []
    for path in sorted((ROOT / "bertedu" / "teaching" / "exercises").glob("*.py")):
        module = importlib.import_module(f"bertedu.teaching.exercises.{path.stem}")
        found += [v for v in vars(module).values() if isinstance(v, Exercise)]
    return found


def test_every_chinese_hint_renders_its_emphasis():
    i18n.set_language("zh")
    hints = {
        f"{ex.name} hint {k}": ex.hint(k).text for ex in exercises() for k in range(1, len(ex.hints) + 1)
    }
    assert len(hints) > 50 and all(text.startswith("**提示 ") for text in hints.values())
    assert not broken(hints, commonmark_stars), broken(hints, commonmark_stars)


#: ``msg()`` templates that are shown as Markdown (``_repr_markdown_``), and how they are wrapped there.
MARKDOWN_TEMPLATES = {
    "**Solution:**": "{}\n\n```python\nx = 1\n```",
    "*check:* {check}": "- **`name`**: evidence<br>{}",
    "Your loss curves lie inside the reference band: no sign of a bug ({what}).": "**{}**",
    "{n} likely bug{_s} ({what}):": "**{}**\n",
    "There is no hint for this exercise; try `solution()` after an attempt.": "{}",
    "The reference solution opens after your first attempt: write your answer, run its check "
    "(`ex.{name}.check(...)`, a wrong answer counts), then ask again.": "{}",
}


@pytest.mark.parametrize("template", sorted(MARKDOWN_TEMPLATES))
def test_chinese_templates_shown_as_markdown_render_their_emphasis(template):
    zh = i18n.catalog("zh")[template]
    fields = {name: "中文" for name in re.findall(r"\{(\w+)", zh)}
    shown = MARKDOWN_TEMPLATES[template].format(zh.format(**fields))
    assert not commonmark_stars(shown), shown


def bank_strings() -> dict[str, str]:
    """{where: text} of every string of every bank and card, in both languages."""
    out = {}
    for bank in load_all():
        for q in bank.questions:
            fields = {"prompt": q.prompt, "explanation": q.explanation, "hint": q.hint}
            for o in q.options:
                fields[f"option {o.id}"], fields[f"option {o.id} explanation"] = o.text, o.explanation
            for k, blank in enumerate(q.blanks, 1):
                fields[f"blank {k} label"] = blank.label
            for name, text in fields.items():
                for lang, value in (text or {}).items():
                    out[f"{bank.notebook}/{q.id} {name} {lang}"] = value
        for card in bank.flashcards:
            for lang in ("en", "zh"):
                out[f"{bank.notebook}/card {card.id} front {lang}"] = card.front[lang]
                out[f"{bank.notebook}/card {card.id} back {lang}"] = card.back[lang]
    return out


def test_every_quiz_and_card_string_renders_its_emphasis_in_the_quiz_and_in_commonmark():
    strings = bank_strings()
    assert sum("*" in s for s in strings.values()) > 50, "no emphasis found: is this the shipped banks?"
    bad = broken(strings, quiz_stars, commonmark_stars)
    assert not bad, f"literal * in quiz text: {bad}"


# ----------------------------------------------------------------------------------------------------------
# Chinese typography of generated strings: 80% (not 80 %), no space after full-width punctuation, 、 in lists

FULL_WIDTH_THEN_SPACE = re.compile(r"[，。；：？！、）][ \t]")
SPACED_PERCENT = re.compile(r"[\d}] %")


def test_chinese_messages_write_percentages_and_punctuation_the_chinese_way():
    zh = i18n.catalog("zh")
    bad = {v for v in zh.values() if SPACED_PERCENT.search(v) or FULL_WIDTH_THEN_SPACE.search(v)}
    assert not bad, f"write 80% and no space after full-width punctuation: {sorted(bad)}"
    assert SPACED_PERCENT.search("BERT 选中的是 15 %。") and FULL_WIDTH_THEN_SPACE.search("推测， BERT")


def test_chinese_bank_text_has_no_space_after_full_width_punctuation():
    outside_code = {k: re.sub(r"`[^`]*`", "code", v) for k, v in bank_strings().items() if k.endswith(" zh")}
    bad = {k: v for k, v in outside_code.items() if FULL_WIDTH_THEN_SPACE.search(v)}
    assert not bad, bad


def test_listed_names_are_joined_with_the_enumeration_comma_in_chinese():
    assert i18n.listing(["[CLS]", "[PAD]", "[SEP]"], "en") == "[CLS], [PAD], [SEP]"
    assert i18n.listing(["[CLS]", "[PAD]", "[SEP]"], "zh") == "[CLS]、[PAD]、[SEP]"
    i18n.set_language("zh")
    assert i18n.listing(("a", "b")) == "a、b"


def test_the_masking_check_names_the_special_tokens_with_the_enumeration_comma():
    from bertedu.teaching.exercises import masking

    source = Path(masking.__file__).read_text(encoding="utf-8")
    assert "names=listing(names)" in source and '", ".join(names)' not in source


# ----------------------------------------------------------------------------------------------------------
# The other surfaces: the web site, the slides and the web pages (review of 2026-12-06, F2: the site's Chinese page
# of notebook 06 showed "**在网页浏览器中：**" with its stars)


#: UI words that are Python code (a code cell's source, a stub's lines), not Markdown.
CODE_WORDS = {"hosted_install_cell", "student_stub_comment", "student_stub_raise"}


def ui_words() -> dict[str, str]:
    """{where: text} of every UI word in every language: the site (``site_*``, inserted as Markdown cells and
    pages that myst-nb renders with CommonMark), the slides' index, the web pages (``ui.json``), the student and
    hosted editions' first cells and the Chinese edition's notes (Markdown cells), the deck titles."""
    out = {
        f"UI[{key!r}] {lang}": text
        for key, entry in i18n.UI.items()
        if key not in CODE_WORDS
        for lang, text in entry.items()
    }
    out |= {
        f"DECK_TITLES[{k!r}] {lang}": text for k, entry in DECK_TITLES.items() for lang, text in entry.items()
    }
    return out


def slide_strings() -> dict[str, str]:
    """{where: text} of every string of the slides' plans, in both languages: tools/build_slides.py renders titles,
    texts, answers and notes with CommonMark (markdown-it-py)."""
    out = {}

    def walk(node, where):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("en", "zh") and isinstance(value, str):
                    out[f"{where} {key}"] = value
                else:
                    walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for k, item in enumerate(node):
                walk(item, f"{where}/{k}")

    for plan in sorted((ROOT / "slides" / "plans").glob("*.yaml")):
        walk(yaml.safe_load(plan.read_text(encoding="utf-8")), plan.name)
    return out


def test_the_site_link_of_notebook_06_renders_its_emphasis():
    """The string the review found, as build_site.py inserts it: the colon outside the stars."""
    link = i18n.t("site_minibert_link", "zh", title=i18n.t("site_minibert_title", "zh"))
    assert "**在网页浏览器中**：" in link and commonmark_stars(link) == []
    assert commonmark_stars(
        link.replace("**在网页浏览器中**：", "**在网页浏览器中：**")
    )  # the review's case fails


def test_every_ui_word_renders_its_emphasis():
    words = ui_words()
    assert len(words) > 200 and sum("**" in w for w in words.values()) >= 4, "the UI words were not found"
    bad = broken(words, commonmark_stars)
    assert not bad, (
        f"literal * in UI words (bertedu/language/words.py; put full-width punctuation outside **…**): {bad}"
    )


def test_every_slide_string_renders_its_emphasis():
    strings = slide_strings()
    assert len(strings) > 300 and any(k.endswith(" zh") for k in strings), "the slides' plans were not found"
    bad = broken(strings, commonmark_stars)
    assert not bad, f"literal * in slides/plans (put full-width punctuation outside **…**): {bad}"


def test_the_chinese_readme_renders_its_emphasis():
    """The site shows README.zh-CN.md's course map and run sections (myst-nb, CommonMark)."""
    readme = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
    sections = {f"README.zh-CN.md §{k}": part for k, part in enumerate(re.split(r"\n(?=#)", readme))}
    assert len(sections) > 5 and "**" in readme
    bad = broken(sections, commonmark_stars)
    assert not bad, f"literal * in README.zh-CN.md: {bad}"


REFERENCE_COMMA = re.compile(r"\(\d{4}[a-z]?\)，\*")
CJK_BESIDE_LATIN = re.compile(r"层 \d+(?:–\d+)?[\u4e00-\u9fff]|[\u4e00-\u9fff]\d|\d[\u4e00-\u9fff]")


def chinese_prose() -> dict[str, str]:
    """{where: text} of every Chinese text a student reads as prose: the notebooks' Markdown (the catalogs), the
    banks, the slides' plans and the UI words; code spans, maths and code blocks set aside."""
    strings = {k: v for k, v in catalog_cells().items()}
    strings |= {k: v for k, v in bank_strings().items() if k.endswith(" zh")}
    strings |= {k: v for k, v in slide_strings().items() if k.endswith(" zh")}
    strings |= {k: v for k, v in ui_words().items() if k.endswith(" zh")}
    code = re.compile(r"```.*?```|`[^`\n]*`", re.S)
    return {k: MATH.sub(" ", code.sub(" ", v)) for k, v in strings.items()}


def test_chinese_prose_writes_percentages_and_layer_numbers_the_chinese_way():
    """80% (not 80 %), and a number set off from the Chinese around it: 层 0 在, not 层 0在 (the review of
    2026-12-06, F9, found both in the catalogs of notebooks 08 and 11)."""
    prose = chinese_prose()
    assert len(prose) > 1000
    bad = {k: v for k, v in prose.items() if SPACED_PERCENT.search(v) or CJK_BESIDE_LATIN.search(v)}
    assert not bad, {
        k: (SPACED_PERCENT.search(v) or CJK_BESIDE_LATIN.search(v)).group(0) for k, v in bad.items()
    }
    assert SPACED_PERCENT.search("80 % 变成") and CJK_BESIDE_LATIN.search("说的是层 0在构建")
    assert not CJK_BESIDE_LATIN.search("层 0 在构建，第 2 节，80% 的词元")
    # a reference list writes its English entries one way: "Devlin, Chang, Lee & Toutanova (2019), *BERT*"
    references = {k for k, v in prose.items() if REFERENCE_COMMA.search(v)}
    assert not references, (
        f"write (2019), *Title* in a reference list, as the other notebooks do: {references}"
    )
    assert REFERENCE_COMMA.search("Devlin et al. (2019)，*BERT*")
