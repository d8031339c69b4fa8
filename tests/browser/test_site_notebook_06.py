"""Notebook 06 on the web site, in Chinese: section 4 is there, not replaced by the mini-BERT panel.

Sphinx gives a section the id of its heading; the Chinese heading "4 · 对比博客中的单层 MiniBert" becomes
``<section id="minibert">``, and the site's script used to mount the mini-BERT panel on ``getElementById("minibert")``:
the whole section (4.1, 4.2 and its quiz) vanished under the panel (newcomer review, 2026-12-06). The panel now
mounts on its own attribute (tools/build_site.py, MINIBERT_PANEL). Builds notebook 06 in both languages with a
small random mini-BERT, serves it on 127.0.0.1 and opens it in Debian's Chromium with every non-local request
blocked: section 4 keeps its headings, text and quiz in both languages, no panel is drawn in it, and the mini-BERT
page still draws the panel. ``BERTEDU_SITE_SCREENSHOTS=docs/screenshots`` saves the Chinese section's screenshot.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("sphinx", reason="the site needs Sphinx (pip install -e '.[dev]')")
pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (pip install -e '.[dev]')")
import build_site  # noqa: E402
from lab_server import CHROMIUM_ARGS  # noqa: E402
from static_site import serve, watch  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]  # Chromium, Sphinx, a server

SHOTS = os.environ.get("BERTEDU_SITE_SCREENSHOTS")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site-06")
    build_site.build(out, wanted=["06"], random_model=True, sources=ROOT / "build" / "site-test-src-06")
    html = (out / "zh" / "06_mini_pretraining.html").read_text(encoding="utf-8")
    assert '<section id="minibert">' in html  # what Sphinx makes of the Chinese heading: the trap is there
    with serve(out) as url:
        yield url


def test_section_4_of_notebook_06_is_not_replaced_by_the_mini_bert_panel(chromium_path, site):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium_path), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            problems = watch(page, site)
            for lang in ("zh", "en"):
                page.goto(f"{site}/{lang}/06_mini_pretraining.html")
                page.wait_for_selector("body[data-site-ready='1']", timeout=60_000)
                heading = page.locator("h2", has_text=re.compile(r"^\s*4 · "))
                assert heading.count() == 1, f"{lang}: no heading of section 4"
                section = heading.locator("xpath=..")  # the <section> Sphinx wraps around heading and text
                assert section.evaluate("(e) => e.tagName") == "SECTION"
                subsections = section.locator("h3").all_inner_texts()
                assert [s.split()[0] for s in subsections[:2]] == ["4.1", "4.2"], subsections
                assert section.locator(".minibert-predict, #minibert-input").count() == 0  # no panel in it
                assert section.locator("section.bertedu-question").count() >= 2  # its quiz, drawn
                assert len(section.inner_text()) > 1500, section.inner_text()[:300]
                if lang == "zh" and SHOTS:
                    path = Path(SHOTS) / "site-zh-06-section4.png"
                    path.parent.mkdir(parents=True, exist_ok=True)
                    section.evaluate("(e) => e.scrollIntoView({block: 'start'})")
                    page.wait_for_timeout(300)
                    page.screenshot(path=str(path), full_page=False)
                    print(f"screenshot: {path}")
            page.goto(f"{site}/zh/minibert.html")
            page.wait_for_selector("body[data-site-ready='1']", timeout=60_000)
            assert page.locator("#minibert-input").count() == 1  # the panel still mounts where it belongs
        finally:
            browser.close()
    assert not any(problems.values()), problems
