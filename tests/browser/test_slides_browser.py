"""The lecture decks in a real browser, offline: tools/build_slides.py's output served from a local folder.

Builds notebook 01's decks (English and Chinese), serves them on 127.0.0.1 and opens them in Debian's Chromium with
every non-local request blocked. In each language: the deck starts, the maths is typeset by the vendored KaTeX (no
error boxes), the figure is drawn, every slide has its speaker notes, the arrow keys move through the slides and the
fragment of the question slide, the S key opens the speaker view with the current slide's notes, and the language
switch leads to the same deck in the other language. 0 failed requests, 0 console errors, nothing blocked.
Every slide fits on the screen (deck.js shrinks the text of a long slide; a slide that would still scroll fails).
``BERTEDU_SLIDES_SCREENSHOTS=docs/screenshots`` saves the screenshots committed as docs/screenshots/slides-*.png;
``BERTEDU_SLIDES_ALL=1`` runs the same checks on every deck (about a minute), after a change to many plans.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

import build_slides  # noqa: E402
from lab_server import CHROMIUM_ARGS  # noqa: E402
from static_site import serve, watch  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.integration]  # Chromium and a local server

DECK = "01_self_attention_by_hand"  # maths, a figure, code: the deck of the screenshots
DECKS = [p.stem for p in build_slides.plan_paths()] if os.environ.get("BERTEDU_SLIDES_ALL") else [DECK]
SHOTS = os.environ.get("BERTEDU_SLIDES_SCREENSHOTS")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("slides")
    build_slides.build(out, [name[:2] for name in DECKS])
    with serve(out) as url:
        yield url


def _slide_with(plan: dict, key: str) -> int:
    return next(i for i, s in enumerate(plan["slides"]) if key in s)


def _figure_slide(plan: dict) -> int:
    return next(
        i for i, s in enumerate(plan["slides"]) if any(r.endswith(":output") for r in s.get("cells", []))
    )


def _watch_new_pages(context, base_url: str) -> dict[str, list[str]]:
    """What :func:`static_site.watch` collects, for the pages the deck opens (the speaker view and its previews)."""
    found: dict[str, list[str]] = {"blocked": [], "failed": [], "errors": []}

    def route(r):
        if r.request.url.startswith(base_url) or r.request.url.startswith("about:"):
            r.continue_()
        else:
            found["blocked"].append(r.request.url)
            r.abort()

    def on_page(new_page):
        new_page.on("console", lambda m: found["errors"].append(m.text) if m.type == "error" else None)
        new_page.on("pageerror", lambda e: found["errors"].append(str(e)))
        new_page.on("requestfailed", lambda r: found["failed"].append(r.url))

    context.route("**/*", route)
    context.on("page", on_page)
    return found


def _open(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']", timeout=30_000)


@pytest.fixture(scope="module")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(chromium_path), headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.mark.parametrize("deck", DECKS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_deck_offline_with_maths_notes_and_language_switch(browser, site, lang, deck):
    plan = build_slides.load_plan(build_slides.PLANS / f"{deck}.yaml")
    n = len(plan["slides"])
    other = "zh" if lang == "en" else "en"
    context = browser.new_context(viewport={"width": 1000, "height": 600}, locale="en-US")
    try:
        page = context.new_page()
        problems = watch(page, site)
        speaker_problems = _watch_new_pages(context, site)
        _open(page, f"{site}/{lang}/{deck}.html")
        assert page.evaluate("Reveal.getTotalSlides()") == n
        assert page.locator(".reveal .slides > section > aside.notes").count() == n
        maths = page.locator(".reveal .slides > section > :not(aside) .math")
        assert maths.count() == page.locator(".reveal .math > .katex, .reveal .math > .katex-display").count()
        assert page.locator(".reveal .katex-error").count() == 0
        assert page.locator(".reveal pre code:not(.hljs)").count() == 0  # every code cell highlighted
        if deck == DECK:
            assert maths.count() > 10 and page.locator(".reveal pre code.hljs").count() >= 2

        for step in range(3):  # the arrow keys move through the deck
            page.keyboard.press("ArrowRight")
            assert page.evaluate("Reveal.getState().indexh") == step + 1
        too_tall = page.evaluate(  # deck.js shrinks a long slide's text; none may still need scrolling
            """n => { const tall = []; for (let i = 0; i < n; i++) { Reveal.slide(i); const s = Reveal.getCurrentSlide();
                      if (s.scrollHeight > s.clientHeight + 1) tall.push(i + 1); } return tall; }""",
            n,
        )
        assert too_tall == [], f"slides {too_tall} of {deck} ({lang}) do not fit: split them in the plan"

        figure = page.evaluate(  # the first slide with a figure (an image output of a code cell)
            "[...document.querySelectorAll('.reveal .slides > section')].findIndex(s => s.querySelector('img.figure'))"
        )
        assert figure >= 0 or deck != DECK
        if figure >= 0:
            page.evaluate(f"Reveal.slide({figure})")
            image = page.locator("section.present img.figure").first
            assert image.evaluate("img => img.complete && img.naturalWidth > 100")
            if SHOTS and deck == DECK:
                page.wait_for_timeout(600)  # the fade between slides
                page.screenshot(path=str(Path(SHOTS) / f"slides-{lang}.png"))

        question = _slide_with(plan, "answer")
        page.evaluate(f"Reveal.slide({question}, 0, -1)")  # no fragment shown yet
        answer = page.locator("section.present .answer.fragment")
        assert "visible" not in (answer.get_attribute("class") or "")
        page.keyboard.press("ArrowRight")  # the answer is a fragment: shown on the next key press
        assert "visible" in answer.get_attribute("class")
        assert page.evaluate("Reveal.getState().indexh") == question

        with context.expect_page() as speaker:  # S: the speaker view, with the current slide's notes
            page.keyboard.press("s")
        view = speaker.value
        view.wait_for_load_state()
        notes_text = plan["slides"][question]["notes"][lang].split()[0]
        view.wait_for_function(
            "text => document.body && document.body.innerText.includes(text)", arg=notes_text, timeout=15_000
        )
        view.close()

        page.locator(".deck-nav a.lang-switch").click()  # the same deck in the other language
        page.wait_for_url(f"**/{other}/{deck}.html**")
        page.wait_for_selector("body[data-ready='1']")
        assert page.evaluate("document.documentElement.lang") == ("zh-CN" if other == "zh" else "en")
        page.goto(f"{site}/{lang}/index.html")
        page.locator(f"a[href='{deck}.html']").click()
        page.wait_for_selector("body[data-ready='1']")
        assert problems == {"blocked": [], "failed": [], "errors": []}
        assert speaker_problems == {"blocked": [], "failed": [], "errors": []}
    finally:
        context.close()
