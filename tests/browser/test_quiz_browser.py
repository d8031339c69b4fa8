"""The quiz in a real browser: JupyterLab 4 and Notebook 7 in Debian's Chromium, driven by Playwright.

Opens a notebook generated from the 00_welcome bank, runs every cell, then: picks a wrong answer and sees
its explanation, picks the right one and sees "Correct", ticks a multiple choice, fills numeric blanks and
sees them graded, flips a flashcard (by mouse and by keyboard), and switches one quiz to Chinese.
Expected texts come from the bank itself, so rewording a question does not break the test.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import nbformat
import pytest

from bertedu.quiz import load_bank
from bertedu.quiz.core import correct_answer, format_number
from bertedu.quiz.render import plain_text

pytestmark = pytest.mark.browser

BANK = "00_welcome"


def make_quiz_notebook(path: Path) -> dict:
    """Write a notebook showing every question and the flashcards of the 00_welcome bank.

    Returns the questions and card the test plays with.
    """
    bank = load_bank(BANK)
    single = next(q for q in bank.questions if q.type == "single")
    multiple = next(q for q in bank.questions if q.type == "multiple")
    fill = next(q for q in bank.questions if q.type == "fill" and any(b.kind == "numeric" for b in q.blanks))
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Quiz browser test"),
        nbformat.v4.new_code_cell("from bertedu import quiz"),
        *[nbformat.v4.new_code_cell(f'quiz.ask("{BANK}", "{q.id}")') for q in bank.questions],
        nbformat.v4.new_code_cell(f'quiz.flashcards("{BANK}")'),
    ]
    nbformat.write(nb, path)
    return {"single": single, "multiple": multiple, "fill": fill, "cards": bank.flashcards}


def snippet(text: str, n: int = 40) -> str:
    """The first words of a bank text as the browser shows them (markup and LaTeX removed)."""
    words = plain_text(text).split()
    out = ""
    for w in words:
        if len(out) + len(w) > n:
            break
        out = f"{out} {w}".strip()
    return out


def open_and_run_all(page, lab, url_path: str) -> None:
    """Open a notebook (JupyterLab ``lab/tree/...`` or Notebook 7 ``notebooks/...``) and run all cells."""
    page.goto(lab.url(url_path))
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    # Wait for a live, idle kernel; accept the kernel dialog if the front end asks which kernel to use.
    kernel_name = page.locator(".jp-Toolbar-kernelName", has_text="Python 3")
    idle = page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")
    accept = page.locator(".jp-Dialog .jp-mod-accept")
    deadline = time.monotonic() + 60
    while not (kernel_name.count() and idle.count() and not accept.count()):
        if accept.count():
            accept.click()
        if time.monotonic() > deadline:
            raise AssertionError("The kernel did not become idle within 60 s.")
        page.wait_for_timeout(100)
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator("[data-command='runmenu:run-all']").click()


def test_quiz_in_jupyterlab(lab, page):
    from playwright.sync_api import expect

    items = make_quiz_notebook(lab.root / "quiz_browser.ipynb")
    open_and_run_all(page, lab, "lab/tree/quiz_browser.ipynb")
    deck = page.locator(".bertedu-flashcards")
    expect(deck).to_be_visible(timeout=60_000)  # the last cell rendered: every widget is live

    # --- single choice: a wrong answer shows its explanation, the right one says Correct ---------------
    single = items["single"]
    sq = page.locator(f".bertedu-quiz-{single.id}")
    wrong = next(o for o in single.options if not o.correct)
    right = next(o for o in single.options if o.correct)
    sq.get_by_label(plain_text(wrong.text["en"]), exact=True).check()
    sq.get_by_role("button", name="Check answer").click()
    expect(sq).to_contain_text("❌ Not quite")
    expect(sq).to_contain_text(snippet(wrong.explanation["en"]))
    sq.get_by_label(plain_text(right.text["en"]), exact=True).check()
    sq.get_by_role("button", name="Check answer").click()
    expect(sq).to_contain_text("✅ Correct")
    expect(sq).to_contain_text("attempt 2")

    # --- multiple choice: tick exactly the correct options --------------------------------------------
    multiple = items["multiple"]
    mq = page.locator(f".bertedu-quiz-{multiple.id}")
    mq.get_by_role("button", name="Check answer").click()
    expect(mq).to_contain_text("Please tick at least one option first")
    for i in correct_answer(multiple):
        mq.get_by_label(plain_text(multiple.options[i].text["en"]), exact=True).check()
    mq.get_by_role("button", name="Check answer").click()
    expect(mq).to_contain_text("✅ Correct")

    if os.environ.get("BERTEDU_BROWSER_SCREENSHOT"):  # a picture of the end state, for humans
        page.screenshot(path=os.environ["BERTEDU_BROWSER_SCREENSHOT"], full_page=True)

    # --- fill in numeric blanks: first a wrong number, then the right ones ----------------------------
    fill = items["fill"]
    fq = page.locator(f".bertedu-quiz-{fill.id}")
    boxes = fq.locator("input[type='text']")
    expect(boxes).to_have_count(len(fill.blanks))
    answers = [str(a) for a in correct_answer(fill)]
    boxes.nth(0).fill(format_number(fill.blanks[0].value + 1))
    for k in range(1, len(answers)):
        boxes.nth(k).fill(answers[k])
    fq.get_by_role("button", name="Check answer").click()
    expect(fq).to_contain_text("❌ Not quite")
    expect(fq).to_contain_text("is not right")
    boxes.nth(0).fill(answers[0])
    fq.get_by_role("button", name="Check answer").click()
    expect(fq).to_contain_text("✅ Correct")
    fq.get_by_role("button", name="📖 Show solution").click()
    expect(fq).to_contain_text(format_number(fill.blanks[0].value))

    # --- flashcards: flip with the mouse, then flip back and move on with the keyboard ----------------
    first, second = items["cards"][0], items["cards"][1]
    expect(deck).to_contain_text(snippet(first.front["en"]))
    flip = deck.get_by_role("button", name="🔄 Flip")
    flip.click()
    expect(deck).to_contain_text("Back (answer)")
    expect(deck).to_contain_text(snippet(first.back["en"]))
    flip.focus()
    page.keyboard.press("Enter")  # flip back
    expect(deck).to_contain_text("Front (question)")
    page.keyboard.press("Tab")  # focus moves to "Next"
    page.keyboard.press("Space")
    expect(deck).to_contain_text("Card 2 of 2")
    expect(deck).to_contain_text(snippet(second.front["en"]))

    # --- language toggle: this quiz switches to Chinese live, the others stay English ----------------
    sq.get_by_role("button", name="中文").click()
    expect(sq).to_contain_text("单选题")
    expect(sq).to_contain_text(plain_text(right.text["zh"]))
    expect(sq).to_contain_text("✅ 正确")
    expect(sq.get_by_role("button", name="检查答案")).to_be_visible()
    expect(mq).to_contain_text("✅ Correct")

    if os.environ.get("BERTEDU_BROWSER_SCREENSHOT"):  # a picture of the end state, for humans
        page.screenshot(path=os.environ["BERTEDU_BROWSER_SCREENSHOT"], full_page=True)


def test_quiz_in_notebook7(lab, page):
    """The same widgets in Notebook 7's single-document interface (plain ipywidgets, no custom JS)."""
    from playwright.sync_api import expect

    items = make_quiz_notebook(lab.root / "quiz_notebook7.ipynb")
    open_and_run_all(page, lab, "notebooks/quiz_notebook7.ipynb")
    deck = page.locator(".bertedu-flashcards")
    expect(deck).to_be_visible(timeout=60_000)
    single = items["single"]
    right = next(o for o in single.options if o.correct)
    sq = page.locator(f".bertedu-quiz-{single.id}")
    sq.get_by_label(plain_text(right.text["en"]), exact=True).check()
    sq.get_by_role("button", name="Check answer").click()
    expect(sq).to_contain_text("✅ Correct")
    deck.get_by_role("button", name="🔄 Flip").click()
    expect(deck).to_contain_text(snippet(items["cards"][0].back["en"]))
    deck.get_by_role("button", name="中文").click()
    expect(deck).to_contain_text(plain_text(items["cards"][0].back["zh"])[:10])
