"""The quiz without a kernel in a real browser: web/quiz/demo.html served from a local folder, no network.

Exports the banks with tools/export_banks.py next to a copy of web/quiz, serves that folder on 127.0.0.1, opens
notebook 03's quiz in Debian's Chromium with every non-local request blocked, answers a single-choice question
wrong then right and a fill-in question right, flips and marks a flashcard, switches to Chinese (where emphasis is
upright and bold, not slanted), and hands the browser's saved progress to the class report. 0 failed requests,
0 console errors. A screenshot is saved.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

import export_banks  # noqa: E402
from lab_server import CHROMIUM_ARGS  # noqa: E402
from static_site import serve, watch  # noqa: E402

from bertedu.language import t  # noqa: E402
from bertedu.teaching.quiz.banks import load_bank  # noqa: E402
from bertedu.teaching.quiz.core import correct_answer, grade  # noqa: E402
from bertedu.teaching.quiz.render import markdown_to_html  # noqa: E402
from bertedu.teaching.quiz.report import class_report, read_exports  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.integration]  # Chromium and a local server

NOTEBOOK = "03_masking_strategy"
SITE_FILES = ("grader.js", "markdown.js", "progress.js", "render.js", "shuffle.js", "quiz.css", "demo.html")


@pytest.fixture
def site(tmp_path):
    """A static folder with the quiz page and the exported banks, served on a free local port."""
    quiz = tmp_path / "site" / "quiz"
    quiz.mkdir(parents=True)
    for name in SITE_FILES:
        shutil.copy(ROOT / "web" / "quiz" / name, quiz / name)
    export_banks.main(["--out", str(quiz / "data")])
    with serve(tmp_path / "site") as url:
        yield url


def emphasis_style(page, question_id: str) -> tuple[str, bool]:
    """The computed font style of the first emphasis in a question's prompt, and whether it is not bold.
    Returned as (style, True) for italic-not-bold or upright-and-bold, the two looks the quiz uses."""
    style, weight = page.evaluate(
        """id => { const em = document.querySelector(`section[data-question='${id}'] .bertedu-prompt em`);
                   const s = getComputedStyle(em); return [s.fontStyle, Number(s.fontWeight)]; }""",
        question_id,
    )
    return style, (weight >= 600) == (style == "normal")


def test_quiz_page_grades_saves_and_switches_language(chromium_path, site, tmp_path):
    from playwright.sync_api import sync_playwright

    bank = load_bank(NOTEBOOK)
    single = next(q for q in bank.questions if q.type == "single")
    fill = next(q for q in bank.questions if q.type == "fill")
    wrong = next(i for i, o in enumerate(single.options) if not o.correct)
    right = correct_answer(single)
    emphasised = next(
        q for q in bank.questions if all("<em>" in markdown_to_html(q.prompt[lang]) for lang in ("en", "zh"))
    )
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium_path), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 1400}, locale="en-US")
            problems = watch(page, site)
            page.goto(f"{site}/quiz/demo.html?notebook={NOTEBOOK}&lang=en")
            page.wait_for_selector("body[data-ready='1']", timeout=30_000)

            q = page.locator(f"section[data-question='{single.id}']")
            q.locator(f"input[value='{wrong}']").check()
            q.locator("button.bertedu-check").click()
            wrong_result = grade(single, wrong, language="en")
            assert q.locator(".bertedu-verdict").inner_text() == wrong_result.message
            assert "✗" in q.locator(".bertedu-option-feedback").inner_text()
            q.locator(f"input[value='{right}']").check()
            q.locator("button.bertedu-check").click()
            assert q.locator(".bertedu-verdict").inner_text() == t("correct", "en")
            q.locator("button.bertedu-solution-button").click()
            assert q.locator(".bertedu-solution li").count() == len(single.options)

            f = page.locator(f"section[data-question='{fill.id}']")
            for box, value in zip(f.locator("input").all(), correct_answer(fill)):
                box.fill(f"  {value} ")
            f.locator("button.bertedu-check").click()
            assert f.locator(".bertedu-verdict").inner_text() == t("correct", "en")

            assert emphasis_style(page, emphasised.id) == ("italic", True)  # English emphasis is italic

            deck = page.locator(".bertedu-flashcards")
            deck.locator("button.bertedu-flip").click()
            assert t("back", "en") in deck.locator(".bertedu-card").inner_text()
            deck.locator("button.bertedu-known").click()
            shot = tmp_path / "web-quiz.png"
            q.scroll_into_view_if_needed()
            page.screenshot(path=str(shot))
            print(f"\nScreenshot of the quiz page: {shot}")

            page.get_by_role("button", name="中文").click()
            q = page.locator(f"section[data-question='{single.id}']")
            assert q.locator("button.bertedu-check").inner_text() == t("check", "zh")
            assert "之前已作答" in q.locator(".bertedu-saved").inner_text()
            assert emphasis_style(page, emphasised.id) == ("normal", True)  # CJK upright (no synthetic slant)
            saved = page.evaluate("() => localStorage.getItem('bertedu-progress')")
        finally:
            browser.close()
    assert not any(problems.values()), problems
    exports = tmp_path / "exports"
    exports.mkdir()
    (exports / "browser.json").write_text(saved, encoding="utf-8")
    found, skipped = read_exports(exports)
    assert not skipped
    rows, _ = class_report(found)
    stats = {r.question_id: r for r in rows}
    assert (stats[single.id].attempts, stats[single.id].first_try_correct) == (2, 0)
    assert (stats[fill.id].attempts, stats[fill.id].first_try_correct) == (1, 1)
    answers = json.loads(saved)["notebooks"][NOTEBOOK]["questions"][single.id]["answers"]
    assert [a["answer"] for a in answers] == [[single.options[wrong].id], [single.options[right].id]]  # by id
    cards = json.loads(saved)["notebooks"][NOTEBOOK]["cards"]
    assert cards == {
        bank.flashcards[0].id: {"known": True, "updated": cards[bank.flashcards[0].id]["updated"]}
    }


def test_options_in_the_students_order_solution_after_an_attempt_export_named_by_the_id(
    chromium_path, site, tmp_path
):
    """The page is as fair as the notebook: each browser's student id (localStorage) orders the options as
    Python's option_order does, another id another order; "Show solution" stays locked until a graded attempt
    (a Check with nothing chosen is none); the export is named by the id and carries it."""
    from playwright.sync_api import sync_playwright

    from bertedu.teaching.quiz.shuffle import option_order

    bank = load_bank(NOTEBOOK)
    choice = [q for q in bank.questions if q.options]
    single = next(q for q in choice if q.type == "single")
    shown_js = "(els) => els.map((e) => e.dataset.option)"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium_path), headless=True, args=CHROMIUM_ARGS)
        try:
            seen = {}
            for student in ("alice", "bob"):
                context = browser.new_context(viewport={"width": 1100, "height": 1400}, accept_downloads=True)
                context.add_init_script(f"localStorage.setItem('bertedu-student-id', '{student}')")
                page = context.new_page()
                problems = watch(page, site)
                page.goto(f"{site}/quiz/demo.html?notebook={NOTEBOOK}&lang=en")
                page.wait_for_selector("body[data-ready='1']", timeout=30_000)
                seen[student] = {}
                for q in choice:
                    section = page.locator(f"section[data-question='{q.id}']")
                    seen[student][q.id] = section.locator("input").evaluate_all(shown_js)
                    assert seen[student][q.id] == [q.options[i].id for i in option_order(q, student)], q.id
                if student == "alice":
                    q = page.locator(f"section[data-question='{single.id}']")
                    button = q.locator("button.bertedu-solution-button")
                    assert button.is_disabled()  # no attempt yet
                    q.locator("button.bertedu-check").click()  # nothing chosen: not an attempt
                    assert button.is_disabled() and q.locator(".bertedu-need").count() == 1
                    q.locator("input").nth(0).check()
                    q.locator("button.bertedu-check").click()
                    assert button.is_enabled()
                    button.click()
                    shown = q.locator(".bertedu-solution li").all_inner_texts()
                    assert len(shown) == len(single.options)
                    page.reload()
                    page.wait_for_selector("body[data-ready='1']", timeout=30_000)
                    q = page.locator(f"section[data-question='{single.id}']")
                    assert q.locator("button.bertedu-solution-button").is_enabled()  # attempted before
                    with page.expect_download() as download:
                        page.locator("button.bertedu-export").click()
                    assert download.value.suggested_filename == "bertedu-progress-alice.json"
                    path = tmp_path / download.value.suggested_filename
                    download.value.save_as(path)
                    exported = json.loads(path.read_text(encoding="utf-8"))
                    assert (
                        exported["student"] == "alice"
                        and single.id in exported["notebooks"][NOTEBOOK]["questions"]
                    )
                assert not any(problems.values()), problems
                context.close()
        finally:
            browser.close()
    differ = [qid for qid in seen["alice"] if seen["alice"][qid] != seen["bob"][qid]]
    assert len(differ) > len(choice) / 3, (
        f"only {len(differ)} of {len(choice)} questions differ between two students"
    )
