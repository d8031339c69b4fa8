"""The course's web site in a real browser, offline: a representative part built by tools/build_site.py.

Builds notebooks 01, 03 and 06 in both languages, once for both tests (with a small random mini-BERT;
``BERTEDU_SITE_ALL=1``: every notebook, with notebook 06's model), serves the folder on 127.0.0.1 and
opens it in Debian's Chromium with every non-local request blocked. Every page of both languages loads (course map,
the two notebooks, run it yourself, the mini-BERT, search) and becomes interactive (within 2 s with
``BERTEDU_SITE_TIMING=1`` on an idle machine; otherwise only a hang fails); MathJax typesets
notebook 01's maths, ``\\mathbb{R}`` included; a quiz is answered wrong then right; an exercise says how to run its
check; the language switch leads to the same page in Chinese; the mini-BERT predicts in both languages; search
finds pages in both languages. 0 failed requests, 0 console errors.

Notebook 06's section 4 is there, not replaced by the mini-BERT panel. Sphinx gives a section the id of its heading;
the Chinese heading "4 · 对比博客中的单层 MiniBert" becomes ``<section id="minibert">``, and the site's script used to
mount the mini-BERT panel on ``getElementById("minibert")``: the whole section (4.1, 4.2 and its quiz) vanished under
the panel (newcomer review, 2026-12-06). The panel now mounts on its own attribute (tools/build_site.py,
MINIBERT_PANEL): section 4 keeps its headings, text and quiz in both languages, no panel is drawn in it, and the
mini-BERT page still draws the panel.

``BERTEDU_SITE_SCREENSHOTS=docs/screenshots`` also saves the screenshots committed under docs/screenshots/.
"""

from __future__ import annotations

import os
import re
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("sphinx", reason="the site needs Sphinx (pip install -e '.[dev]')")
pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (pip install -e '.[dev]')")
import build_site  # noqa: E402
from lab_server import CHROMIUM_ARGS  # noqa: E402
from static_site import serve, watch  # noqa: E402

from bertedu.language import t  # noqa: E402
from bertedu.teaching.quiz.banks import load_bank  # noqa: E402
from bertedu.teaching.quiz.core import correct_answer, grade  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]  # Chromium, Sphinx, a server

# BERTEDU_SITE_ALL=1: the whole site, every notebook (as `make site` builds it; a few minutes), not just a part
ALL = os.environ.get("BERTEDU_SITE_ALL") == "1"
NOTEBOOKS = tuple(p.stem for p in build_site.select_notebooks("en", [] if ALL else ["01", "03"]))
PAGES = ("index", *NOTEBOOKS, "run", "minibert")
#: Built as well: notebook 06, for the section its Chinese heading once lost (its pages are opened by that test only)
SECTION_4 = "06_mini_pretraining"
QUIZ_NOTEBOOK = "03_masking_strategy"
#: The target (issue 30): a page is interactive within 2 s from a local server. A timed assertion in a unit test
#: fails on a busy machine (CI shares 2 cores between two test workers), so by default the test only guards
#: against a page that hangs (10x the target) and prints the times; BERTEDU_SITE_TIMING=1 asserts the target
#: itself, on an otherwise idle machine (how the figure in web/README.md was measured).
TARGET_INTERACTIVE_MS = 2000
MAX_INTERACTIVE_MS = (
    TARGET_INTERACTIVE_MS if os.environ.get("BERTEDU_SITE_TIMING") == "1" else 10 * TARGET_INTERACTIVE_MS
)
SHOTS = os.environ.get("BERTEDU_SITE_SCREENSHOTS")
SEARCH = {"en": "attention", "zh": "注意力"}
SCROLL_THROUGH = """async () => {
    for (let y = 0; y < document.body.scrollHeight; y += window.innerHeight / 2) {
        window.scrollTo(0, y);
        await new Promise((done) => setTimeout(done, 30));
    }
}"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    start = time.perf_counter()
    # build/site-test-src keeps Sphinx's work between runs (a rebuild only redoes what changed)
    real_model = (
        bool(SHOTS) and (ROOT / "runs" / "mini-bert" / "config.json").is_file()
    )  # screenshots: notebook 06's
    built = build_site.build(
        out,
        wanted=sorted({n[:2] for n in (*NOTEBOOKS, SECTION_4)}),
        random_model=not (real_model or ALL),
        sources=ROOT / "build" / "site-test-src",
    )
    print(f"\nBuilt {built['pages']} in {time.perf_counter() - start:.1f} s, {built['size_mb']:.1f} MB")
    assert built["size_mb"] <= build_site.MAX_SIZE_MB
    with serve(out) as url:
        yield url


def _shot(page, name: str, locator=None) -> None:
    if not SHOTS:
        return
    path = Path(SHOTS) / f"site-{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    (locator or page).screenshot(path=str(path))
    print(f"screenshot: {path}")


def _open(page, url: str) -> float:
    """Go to ``url``; wait until the site's script has drawn the page (quizzes, the mini-BERT's model loaded);
    return that time in ms since the navigation started."""
    _settle(page)
    page.goto(url)
    page.wait_for_selector("body[data-site-ready='1']", timeout=30_000)
    return page.evaluate("() => window.berteduReadyMs")


def _settle(page) -> None:
    """Let the current page finish loading the fonts MathJax asked for (leaving would cut those requests off)."""
    page.evaluate("() => document.fonts.ready.then(() => true)")


def _interactive_ms(page, url: str) -> float:
    """The page's interactive time; a page over the limit is opened once more (the 2-core machine may be busy
    with other tests), and the faster time counts."""
    first = _open(page, url)
    return first if first <= MAX_INTERACTIVE_MS else min(first, _open(page, url))


def _answer_wrong_then_right(page, lang: str) -> None:
    bank = load_bank(QUIZ_NOTEBOOK)
    shown = page.locator("section.bertedu-question").evaluate_all(
        "(els) => els.map((e) => e.dataset.question)"
    )
    single = next(q for q in bank.questions if q.type == "single" and q.id in shown)
    wrong = next(i for i, o in enumerate(single.options) if not o.correct)
    q = page.locator(f"section[data-question='{single.id}']")
    assert q.locator("button.bertedu-check").inner_text() == t("check", lang)
    q.locator(f"input[value='{wrong}']").check()
    q.locator("button.bertedu-check").click()
    assert q.locator(".bertedu-verdict").inner_text() == grade(single, wrong, language=lang).message
    q.scroll_into_view_if_needed()
    _shot(page, f"quiz-wrong-{lang}", q)
    q.locator(f"input[value='{correct_answer(single)}']").check()
    q.locator("button.bertedu-check").click()
    assert q.locator(".bertedu-verdict").inner_text() == t("correct", lang)
    _shot(page, f"quiz-right-{lang}", q)


def test_site_offline_in_both_languages(chromium_path, site):
    from playwright.sync_api import sync_playwright

    times = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium_path), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 1200})
            problems = watch(page, site)
            page.goto(f"{site}/index.html")
            assert page.locator("a[href='zh/index.html']").count() == 1
            for lang in ("en", "zh"):
                for name in PAGES:
                    times[f"{lang}/{name}"] = _interactive_ms(page, f"{site}/{lang}/{name}.html")
                    switch = page.locator("a.bertedu-lang-switch").first
                    other = "zh" if lang == "en" else "en"
                    assert switch.get_attribute("href").endswith(f"../{other}/{name}.html")

                # maths: notebook 01's formulas typeset by the vendored MathJax (as they scroll into view),
                # \mathbb{R} as a double-struck R
                _open(page, f"{site}/{lang}/01_self_attention_by_hand.html")
                page.set_viewport_size({"width": 1000, "height": 900})
                page.wait_for_selector("mjx-container mjx-math", state="attached", timeout=10_000)
                _shot(page, f"notebook-{lang}")
                page.set_viewport_size({"width": 1000, "height": 1200})
                page.evaluate(SCROLL_THROUGH)
                assert page.locator("mjx-container").count() > 20
                page.wait_for_selector("mjx-container mi[mathvariant='double-struck']", state="attached")
                assert "\\mathbb" not in page.locator("main").inner_text()
                # an exercise: the task and how to run its check in the lab, no solution
                note = page.locator(".bertedu-lab-note").first
                assert "ex.attention_weights.check(weights)" in note.inner_text()
                assert "### BEGIN SOLUTION" not in page.content()

                _open(page, f"{site}/{lang}/{QUIZ_NOTEBOOK}.html")
                _answer_wrong_then_right(page, lang)

                _open(page, f"{site}/{lang}/minibert.html")
                page.locator("#minibert-input").fill("the black cat drinks [MASK]")
                page.locator("button.minibert-predict").click()
                page.wait_for_selector(".minibert-top5", timeout=30_000)
                assert page.locator(".minibert-top5 td.minibert-word").count() == 5
                _shot(page, f"minibert-{lang}")

                _settle(page)
                page.goto(f"{site}/{lang}/search.html?q={SEARCH[lang]}")
                page.wait_for_selector("#search-results ul.search li", timeout=30_000)
                page.wait_for_load_state(
                    "networkidle"
                )  # the result pages it reads for summaries, not cut off

            # the language switch: English page 03 → the same page in Chinese
            _open(page, f"{site}/en/{QUIZ_NOTEBOOK}.html")
            page.locator("a.bertedu-lang-switch").first.click()
            page.wait_for_selector("body[data-site-ready='1']", timeout=30_000)
            assert page.url.endswith(f"/zh/{QUIZ_NOTEBOOK}.html")
            assert page.locator("html").get_attribute("lang").startswith("zh")
            assert page.locator("button.bertedu-check").first.inner_text() == t("check", "zh")
        finally:
            browser.close()
    print("interactive (ms):", {k: round(v) for k, v in times.items()})
    assert not any(problems.values()), problems
    slow = {k: v for k, v in times.items() if v > MAX_INTERACTIVE_MS}
    assert not slow, f"pages not interactive within {MAX_INTERACTIVE_MS} ms: {slow}"


def test_section_4_of_notebook_06_is_not_replaced_by_the_mini_bert_panel(chromium_path, site):
    from playwright.sync_api import sync_playwright

    with urllib.request.urlopen(f"{site}/zh/{SECTION_4}.html") as response:
        html = response.read().decode("utf-8")
    assert '<section id="minibert">' in html  # what Sphinx makes of the Chinese heading: the trap is there
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium_path), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            problems = watch(page, site)
            for lang in ("zh", "en"):
                page.goto(f"{site}/{lang}/{SECTION_4}.html")
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
