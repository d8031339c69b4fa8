"""`make html` in a real browser: MathJax typesets the formulas of an exported page with no network.

Exports notebook 01 with tools/export_html.py, opens the page from disk (file://) in Debian's Chromium, waits
for MathJax 3 to finish, and checks that the formulas became MathJax output (no raw `$...$` left in the text,
``\\mathbb{R}`` drawn double-struck), that no request left the machine, and that MathJax reported no error. A
screenshot is saved (path printed).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

import export_html  # noqa: E402
from lab_server import CHROMIUM_ARGS  # noqa: E402  (no background requests: the machine has no network)

pytestmark = [pytest.mark.browser, pytest.mark.integration]  # a JupyterLab server and Chromium

NOTEBOOK = ROOT / "notebooks" / "01_self_attention_by_hand.ipynb"
DONE_JS = """() => window.MathJax !== undefined && MathJax.startup !== undefined && MathJax.startup.promise !== undefined
    && MathJax.startup.promise.then(() => true)"""
STATE_JS = """() => ({
    rendered: document.querySelectorAll(".jp-RenderedMarkdown mjx-container").length,
    doubleStruck: document.querySelectorAll(".jp-RenderedMarkdown mjx-container mi[mathvariant='double-struck']").length,
    errors: document.querySelectorAll(".jp-RenderedMarkdown mjx-merror, .jp-RenderedMarkdown merror").length,
    text: [...document.querySelectorAll(".jp-RenderedMarkdown")].map(e => e.innerText).join("\\n"),
})"""
# notebook 01's Markdown has this many formulas at least ($...$ and $$...$$), \mathbb{R} among them
MIN_FORMULAS = 10


def test_exported_page_renders_its_maths_offline(chromium_path, tmp_path):
    from playwright.sync_api import sync_playwright

    page_path = export_html.export(NOTEBOOK, tmp_path / "html")
    remote = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium_path), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1400})
            page.on(
                "request",
                lambda r: (
                    remote.append(r.url) if not r.url.startswith(("file:", "data:", "about:")) else None
                ),
            )
            page.goto(page_path.as_uri())
            page.wait_for_function(DONE_JS, timeout=60_000)
            state = page.evaluate(STATE_JS)
            page.locator("mjx-container[display='true']").first.scroll_into_view_if_needed()
            shot = tmp_path / "html-export-maths.png"
            page.screenshot(path=str(shot))
            print(f"\nScreenshot of the exported page: {shot}")
        finally:
            browser.close()
    assert not remote, f"the page asked the network for {remote}"
    # The formulas of the Markdown cells became MathJax output; \mathbb{R} is a double-struck R, not a plain one.
    assert state["rendered"] >= MIN_FORMULAS and state["doubleStruck"] > 0, {
        k: state[k] for k in ("rendered", "doubleStruck")
    }
    assert state["errors"] == 0, state["errors"]
    raw = re.findall(r"\$[^$\n]{1,60}\$", state["text"])
    assert not raw, f"formulas left as raw TeX: {raw[:5]}"
