"""The lecture decks (tools/build_slides.py, slides/plans/): plans that cannot rot, and a build that fetches nothing.

The fast tests check every plan against both editions of its notebook (a cell id that was renamed or deleted fails
here, naming the plan, the slide and the edition), the plan validation and the Markdown rendering. The integration
test builds two decks (``npm ci`` of slides/package-lock.json on the first run, cached in build/slides-vendor/) and
checks what an offline lecture needs: every slide, its speaker notes, embedded figures, the maths left for the local
KaTeX, a language switch, and no reference to anything outside the output folder.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

import build_slides  # noqa: E402
from test_glossary import violations  # noqa: E402  (docs/glossary.md's rules, as for every Chinese text)

NOTEBOOKS = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
CDN_HOSTS = ("jsdelivr", "unpkg.com", "cdnjs", "googleapis", "gstatic", "cloudflare", "bootstrapcdn")
#: a resource a page would load from elsewhere: <script src>, <img src>, <link href>, CSS url() and @import
REMOTE_RESOURCE = re.compile(
    r"""(?:<script[^>]*\ssrc|<img[^>]*\ssrc|<link[^>]*\shref|<iframe[^>]*\ssrc)\s*=\s*["']?(?:https?:)?//"""
    r"""|url\(\s*["']?(?:https?:)?//|@import\s+(?:url\()?\s*["']?(?:https?:)?//""",
    re.IGNORECASE,
)


def test_every_notebook_has_a_plan():
    assert [p.stem for p in build_slides.plan_paths()] == NOTEBOOKS


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_plan_names_cells_of_both_editions(name):
    plan = build_slides.load_plan(build_slides.PLANS / f"{name}.yaml")
    editions = {lang: build_slides.read_notebook(name, lang) for lang in build_slides.LANGUAGES}
    assert build_slides.check_cells(plan, editions) == []
    assert 8 <= len(plan["slides"]) <= 15, "a lecture's worth: 8 to 15 slides"
    assert any("answer" in slide for slide in plan["slides"]), "one question slide with its answer"
    for slide in plan["slides"]:
        assert re.search(r"[\u4e00-\u9fff]", slide["notes"]["zh"]), f"Chinese notes without Chinese: {slide}"


def test_chinese_texts_of_the_plans_use_the_glossary_terms():
    problems = [
        f"{path.name}, slide {i}, {key}: {v}"
        for path in build_slides.plan_paths()
        for i, slide in enumerate(build_slides.load_plan(path)["slides"], 1)
        for key in ("title", "text", "answer", "notes")
        if key in slide
        for v in violations(slide[key]["zh"])
    ]
    assert not problems, "\n".join(problems)


def test_check_cells_names_a_missing_id_in_each_edition():
    name = "01_self_attention_by_hand"
    plan = {"notebook": name, "slides": [{"cells": ["no-such-cell", "b996632d:output"], "notes": {}}]}
    editions = {lang: build_slides.read_notebook(name, lang) for lang in build_slides.LANGUAGES}
    problems = build_slides.check_cells(plan, editions)
    assert len(problems) == 4, problems
    assert sum("no cell with id 'no-such-cell'" in p for p in problems) == 2
    assert any("(zh), slide 1" in p and "markdown cell" in p for p in problems)


def _write_plan(folder: Path, text: str) -> Path:
    path = folder / "01_self_attention_by_hand.yaml"
    path.write_text("notebook: 01_self_attention_by_hand\n" + text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("slides", "message"),
    [
        ("slides: []\n", "non-empty list"),
        ("slides:\n  - cells: [b996632d]\n", "speaker notes"),
        ("slides:\n  - cells: [b996632d]\n    notes: {en: Say this.}\n", "expected {en: ..., zh: ...}"),
        ("slides:\n  - cells: [b996632d]\n    notes: {en: Say this., zh: ''}\n", "the zh text is empty"),
        ("slides:\n  - cells: ['b99 x']\n    notes: {en: a, zh: 讲}\n", "is not a cell id"),
        (
            "slides:\n  - cells: [b996632d]\n    colour: red\n    notes: {en: a, zh: 讲}\n",
            "unknown keys ['colour']",
        ),
        ("slides:\n  - notes: {en: a, zh: 讲}\n", "cells or text"),
        ("slides:\n  - cells: b996632d\n    notes: {en: a, zh: 讲}\n", "cells is a list"),
        ("slides:\n  - cells: [a]\n    notes: {en: a: b, zh: 讲}\n", "not valid YAML"),
    ],
)
def test_load_plan_rejects_bad_plans(tmp_path, slides, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        build_slides.load_plan(_write_plan(tmp_path, slides))


def test_load_plan_keeps_numeric_ids_as_text(tmp_path):
    text = "slides:\n  - cells: [10311194, 1e5]\n    notes: {en: Say this., zh: 讲这个。}\n"
    plan = build_slides.load_plan(_write_plan(tmp_path, text))
    assert plan["slides"][0]["cells"] == ["10311194", "1e5"]


def test_markdown_keeps_maths_for_katex_and_repoints_links():
    out = build_slides.markdown(
        "Scores $QK^\\top/\\sqrt{d_k}$ and $a<b$; see [02](02_tokens_and_embeddings.ipynb#x), "
        "[the guide](../docs/instructor_guide.md) and [the paper](https://arxiv.org/abs/1810.04805).\n\n$$x^2$$\n"
    )
    assert '<span class="math inline">QK^\\top/\\sqrt{d_k}</span>' in out
    assert '<span class="math inline">a&lt;b</span>' in out
    assert '<div class="math block">\nx^2\n</div>' in out
    assert '<a href="02_tokens_and_embeddings.html">02</a>' in out
    assert '<a class="local-file">the guide</a>' in out
    assert 'href="https://arxiv.org/abs/1810.04805"' in out


@pytest.mark.integration  # npm ci on the first run (then the cache in build/slides-vendor/)
def test_build_two_decks_offline(tmp_path):
    out = tmp_path / "slides"
    decks = build_slides.build(out, ["01", "05"])
    assert sorted(p.relative_to(out).as_posix() for p in decks) == [
        "en/01_self_attention_by_hand.html",
        "en/05_transformer_encoder.html",
        "zh/01_self_attention_by_hand.html",
        "zh/05_transformer_encoder.html",
    ]
    for deck in decks:
        html = deck.read_text(encoding="utf-8")
        plan = build_slides.load_plan(build_slides.PLANS / f"{deck.stem}.yaml")
        n = len(plan["slides"])
        assert html.count("<section ") == html.count('<aside class="notes">') == n
        assert html.count('class="answer fragment"') == sum("answer" in s for s in plan["slides"])
        assert 'src="data:image/png;base64,' in html
        assert '<span class="math inline">' in html
        other = "zh" if deck.parent.name == "en" else "en"
        assert f'href="../{other}/{deck.name}"' in html
        for ref in re.findall(r'(?:src|href)="(\.\./[^"#]+)"', html):
            assert (deck.parent / ref).resolve().is_file(), (
                f"{deck.name} loads {ref}, which is not in the output"
            )
    zh = (out / "zh" / "01_self_attention_by_hand.html").read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in zh and "自注意力" in zh
    for lang in ("en", "zh"):
        index = (out / lang / "index.html").read_text(encoding="utf-8")
        assert index.count("<li ") == 2 and "05_transformer_encoder.html" in index
    assert (out / "vendor" / "NOTICE").read_text().count("reveal.js 6.0.2") == 1
    offending = []
    for path in out.rglob("*"):
        if path.is_file() and path.suffix in (".html", ".css", ".js"):
            text = path.read_text(encoding="utf-8", errors="replace")
            offending += [f"{path.name}: {host}" for host in CDN_HOSTS if host in text.lower()]
            if path.suffix != ".js":
                offending += [f"{path.name}: {m[0]}" for m in REMOTE_RESOURCE.finditer(text)]
    assert offending == [], "the decks would load from the network"


def test_remote_resource_pattern_catches_what_it_must():
    for text in (
        '<script src="https://cdn.example/x.js">',
        "<link rel=stylesheet href='//fonts.example/a.css'>",
        "@import url(https://fonts.example/css);",
        "a { background: url( 'http://x/y.png') }",
    ):
        assert REMOTE_RESOURCE.search(text), text
    assert not REMOTE_RESOURCE.search('<a href="https://arxiv.org/abs/1810.04805">the paper</a>')


def test_two_processes_vendoring_at_once_take_turns(tmp_path, monkeypatch):
    """On a fresh clone, two test workers built the slides at once: each ran ``npm ci`` in the one scratch folder
    and one emptied it under the other (``Directory not empty``). ``vendor`` now holds a lock: the second waits,
    finds the stamp and copies nothing."""
    import threading
    import time

    installs = []

    def slow_npm_ci(folder, scratch):
        installs.append(folder)
        modules = scratch / "node_modules"
        for package, names in build_slides.VENDOR_FILES.items():
            (modules / package).mkdir(parents=True, exist_ok=True)
            (modules / package / "package.json").write_text('{"version": "1.0.0", "license": "MIT"}')
            for name in names:
                (modules / package / name).parent.mkdir(parents=True, exist_ok=True)
                (modules / package / name).write_text(name)
                time.sleep(0.002)  # slow enough that an unlocked second caller interleaves
        return modules

    monkeypatch.setattr(build_slides, "npm_ci", slow_npm_ci)
    cache, scratch = tmp_path / "vendor", tmp_path / "npm"
    results, errors = [], []

    def run():
        try:
            results.append(build_slides.vendor(cache, scratch))
        except Exception as exc:  # what the unlocked version raised in one of the two
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and results == [cache, cache]
    assert len(installs) == 1, "the second caller must find the first one's stamp, not install again"
    assert (cache / ".lock-sha256").is_file() and not scratch.exists()
