"""The quiz in a real browser: JupyterLab 4 and Notebook 7 in Debian's Chromium, driven by Playwright.

Opens a notebook generated from the 00_welcome bank, runs every cell, then: picks a wrong answer and sees
its explanation, picks the right one and sees "Correct", ticks a multiple choice, fills numeric blanks and
sees them graded, flips a flashcard (by mouse and by keyboard), and switches one quiz to Chinese. Options with
maths (from notebooks 01 and 07) must show it typeset by MathJax, never as ``$q_i$`` or ``q_i`` (issue 29), and
their tooltips must be plain text (``q_i``), in English and, relabelled live, in Chinese.
Expected texts come from the bank itself, so rewording a question does not break the test.

No glyph may need an emoji font (issue 16): the page's rendered text is scanned for emoji and pictograph
code points, and every button icon must be drawn by the Font Awesome that JupyterLab bundles. A screenshot
of each test's end state is always saved (its path is printed; ``BERTEDU_BROWSER_SCREENSHOT`` copies the
JupyterLab one elsewhere). The Notebook 7 test restarts the kernel and checks that the quiz shows the saved
state instead of a blank form (issue 20). ``test_fill_in_on_a_busy_kernel`` types and clicks Check while another
cell keeps the kernel busy: one click grades what was typed (issue 43, the fill-in race).
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import nbformat
import pytest

from bertedu.teaching.quiz import load_bank
from bertedu.teaching.quiz.core import correct_answer, format_number
from bertedu.teaching.quiz.render import plain_text

pytestmark = [pytest.mark.browser, pytest.mark.integration]  # a JupyterLab server and Chromium

BANK = "00_welcome"
# Options with maths: a single choice whose every option has some, and a multiple choice with maths and code.
MATHS = (("01_self_attention_by_hand", "qkv-roles"), ("07_fine_tuning", "span-rules"))
MATH_SPAN = re.compile(r"\$[^$\n]+\$")

# Emoji and pictographs (no glyph without an emoji font) and the symbols deliberately kept (DejaVu Sans has them).
PICTOGRAPHS_JS = """() => {
    const kept = "\u2713\u2717\u2610";
    const bad = new Set();
    // the rendered text, plus the full text of every quiz widget (also parts scrolled out of view or hidden)
    const widgets = [...document.querySelectorAll(".bertedu-quiz, .bertedu-flashcards")];
    const text = document.body.innerText + "\\n" + widgets.map(w => w.textContent).join("\\n");
    for (const ch of text) {
        const c = ch.codePointAt(0);
        const pictograph = (c >= 0x1F000 && c <= 0x1FAFF) || (c >= 0x2600 && c <= 0x27BF) || c === 0xFE0F;
        if (pictograph && !kept.includes(ch)) bad.add("U+" + c.toString(16).toUpperCase());
    }
    return {bad: [...bad], text: text};
}"""
# Every icon in a quiz button must be drawn: its ::before content comes from the bundled Font Awesome CSS.
ICONS_JS = """() => [...document.querySelectorAll(".bertedu-quiz button i, .bertedu-flashcards button i")]
    .filter(i => i.className.includes("fa-"))
    .map(i => ({cls: i.className, content: getComputedStyle(i, "::before").content,
                font: getComputedStyle(i, "::before").fontFamily}))"""


def assert_no_missing_glyphs(page) -> str:
    """No emoji/pictograph in the rendered page text, and every button icon has a Font Awesome glyph."""
    found = page.evaluate(PICTOGRAPHS_JS)
    assert not found["bad"], f"code points that need an emoji font: {found['bad']}"
    icons = page.evaluate(ICONS_JS)
    assert icons, "no icon found in the quiz buttons"
    undrawn = [i for i in icons if i["content"] in ("none", "normal", "", '""') or "Awesome" not in i["font"]]
    assert not undrawn, f"icons without a Font Awesome glyph: {undrawn}"
    return found["text"]


def button(scope, name: str):
    """The button whose visible label is exactly ``name``. Its accessible name may start with the icon's
    Font Awesome glyph (CSS generated content, a private-use character), so that part is allowed."""
    return scope.get_by_role("button", name=re.compile(rf"^\W*{re.escape(name)}$"))


def save_screenshot(page, lab, name: str) -> Path:
    """Always keep a picture of the end state (printed), for humans checking the glyphs."""
    path = lab.root / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    print(f"\nScreenshot: {path}")
    return path


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
        nbformat.v4.new_code_cell("from bertedu.teaching import quiz"),
        *[nbformat.v4.new_code_cell(f'quiz.ask("{BANK}", "{q.id}")') for q in bank.questions],
        *[nbformat.v4.new_code_cell(f'quiz.ask("{name}", "{qid}")') for name, qid in MATHS],
        nbformat.v4.new_code_cell(f'quiz.flashcards("{BANK}")'),
    ]
    nbformat.write(nb, path)
    maths = [load_bank(name).question(qid) for name, qid in MATHS]
    return {"single": single, "multiple": multiple, "fill": fill, "cards": bank.flashcards, "maths": maths}


def snippet(text: str, n: int = 40) -> str:
    """The first words of a bank text as the browser shows them (markup and LaTeX removed)."""
    words = plain_text(text).split()
    out = ""
    for w in words:
        if len(out) + len(w) > n:
            break
        out = f"{out} {w}".strip()
    return out


def option_label(text: str) -> re.Pattern:
    """An option's label as a pattern: its words as written, its maths as the letters and digits that MathJax's
    assistive MathML reads out (``$q_i$``: "q i" or "qi"; ``$i \\le j$``: "i ≤ j")."""
    pattern = []
    for k, piece in enumerate(re.split(f"({MATH_SPAN.pattern})", text)):
        if k % 2:  # maths
            pattern.append(r"\W*".join(re.escape(c) for c in plain_text(piece) if c.isalnum()))
        elif piece.strip():
            pattern.append(r"\s+".join(re.escape(word) for word in plain_text(piece).split()))
    return re.compile(r"^\W*" + r"\W*".join(pattern) + r"\W*$")


# Per option label of a quiz: its MathJax containers and code spans, and its text without either (nor MathJax's
# hidden assistive copy of the maths).
LABELS_JS = """quiz => [...quiz.querySelectorAll("label.widget-label-basic")].map(label => {
    const copy = label.cloneNode(true);
    copy.querySelectorAll("mjx-container, code").forEach(m => m.remove());
    return {maths: label.querySelectorAll("mjx-container").length, code: label.querySelectorAll("code").length,
            text: copy.textContent};
})"""


def assert_options_typeset(quiz, question) -> None:
    """Every option shows its maths typeset (one MathJax container per ``$...$``) and its code as code: no raw
    TeX (``$q_i$``) and no plain-text maths (``q_i``) left in its label."""
    from playwright.sync_api import expect

    expected = sorted(
        (len(MATH_SPAN.findall(o.text["en"])), o.text["en"].count("`") // 2) for o in question.options
    )
    typeset = quiz.locator("label.widget-label-basic mjx-container")
    expect(typeset).to_have_count(sum(m for m, _ in expected))  # waits for MathJax
    labels = quiz.evaluate(LABELS_JS)
    shown = sorted((o["maths"], o["code"]) for o in labels)
    assert shown == expected, f"MathJax containers and code spans per option: {shown}, expected {expected}"
    raw = [o["text"] for o in labels if any(c in o["text"] for c in "$_^\\")]
    assert not raw, f"options showing raw TeX or plain-text maths: {raw}"


# Per option: the tooltip a reader gets when hovering each piece of its label (the title of the innermost element
# with one), and the checkbox's own title if it has one.
TOOLTIPS_JS = """quiz => [...quiz.querySelectorAll("label.widget-label-basic")].flatMap(label => {
    const titles = [];
    const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.textContent.trim()) continue;
        const owner = node.parentElement.closest("[title]");
        titles.push(owner ? owner.getAttribute("title") : "");
    }
    const box = label.querySelector("input");
    if (box.hasAttribute("title")) titles.push(box.getAttribute("title"));
    return titles;
})"""


def assert_plain_tooltips(quiz, timeout: float = 10) -> None:
    """Hovering an option (its words, its maths or its box) shows plain text: no TeX (``$q_i$``), no HTML.
    Retried for ``timeout`` seconds: after a relabelling the front end applies the kernel's messages in turn."""
    deadline = time.monotonic() + timeout
    while True:
        titles = quiz.evaluate(TOOLTIPS_JS)
        raw = [title for title in titles if re.search(r"[$\\<>]", title)]
        if titles and not raw:
            return
        assert time.monotonic() < deadline, f"option tooltips showing TeX or HTML: {raw or 'no label found'}"
        quiz.page.wait_for_timeout(200)


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
    run_all(page)


def run_all(page) -> None:
    """Run > Run All Cells."""
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
    expect(sq).to_contain_text("✗ Not quite")
    expect(sq).to_contain_text(snippet(wrong.explanation["en"]))
    sq.get_by_label(plain_text(right.text["en"]), exact=True).check()
    sq.get_by_role("button", name="Check answer").click()
    expect(sq).to_contain_text("✓ Correct")
    expect(sq).to_contain_text("attempt 2")

    # --- multiple choice: tick exactly the correct options --------------------------------------------
    multiple = items["multiple"]
    mq = page.locator(f".bertedu-quiz-{multiple.id}")
    mq.get_by_role("button", name="Check answer").click()
    expect(mq).to_contain_text("Please tick at least one option first")
    for i in correct_answer(multiple):
        mq.get_by_label(plain_text(multiple.options[i].text["en"]), exact=True).check()
    mq.get_by_role("button", name="Check answer").click()
    expect(mq).to_contain_text("✓ Correct")

    # --- hint and solution buttons, by their exact names ------------------------------------------------
    # --- options with maths show it typeset, and are still picked by their labels ------------------------
    for question in items["maths"]:
        xq = page.locator(f".bertedu-quiz-{question.id}")
        expect(xq).to_be_visible()
        assert_options_typeset(xq, question)
        if (
            question.type == "single"
        ):  # by keyboard: Space ticks, Tab moves on, ticking another clears the first
            boxes = xq.get_by_role("checkbox")
            boxes.nth(0).focus()
            page.keyboard.press("Space")
            expect(boxes.nth(0)).to_be_checked()
            page.keyboard.press("Tab")
            page.keyboard.press("Space")
            expect(boxes.nth(1)).to_be_checked()
            expect(boxes.nth(0)).not_to_be_checked()
        for i in correct_answer(question) if question.type == "multiple" else [correct_answer(question)]:
            xq.get_by_label(option_label(question.options[i].text["en"])).check()
        xq.get_by_role("button", name="Check answer").click()
        expect(xq).to_contain_text("✓ Correct")
        assert_plain_tooltips(xq)
        xq.get_by_role("button", name="中文").click()  # new labels: the front end copies them into the titles
        expect(xq).to_contain_text("✓ 正确")
        expect(xq.locator("label.widget-label-basic mjx-container")).to_have_count(
            sum(len(MATH_SPAN.findall(o.text["zh"])) for o in question.options)
        )
        assert_plain_tooltips(xq)
        shot = lab.root / f"quiz_maths_{question.id}.png"
        xq.screenshot(path=str(shot))  # for humans checking the typeset options
        print(f"\nScreenshot: {shot}")

    button(sq, "Hint").click()
    expect(sq).to_contain_text(snippet(single.hint["en"]))
    button(sq, "Show solution").click()
    expect(sq).to_contain_text("The full solution is already shown above")  # not the feedback a second time

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
    expect(fq).to_contain_text("✗ Not quite")
    expect(fq).to_contain_text("Blank 1")
    expect(fq).to_contain_text("is not right")
    boxes.nth(0).fill(answers[0])
    # One click: the values travel with it (bertedu/teaching/quiz/typed.py; test_fill_in_on_a_busy_kernel).
    fq.get_by_role("button", name="Check answer").click()
    expect(fq).to_contain_text("✓ Correct")
    fq.get_by_role("button", name="Show solution").click()
    expect(fq).to_contain_text(format_number(fill.blanks[0].value))

    # --- flashcards: flip with the mouse, then flip back and move on with the keyboard ----------------
    first, second = items["cards"][0], items["cards"][1]
    expect(deck).to_contain_text(snippet(first.front["en"]))
    flip = deck.get_by_role("button", name="Flip")
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
    button(deck, "I know it").click()
    expect(deck).to_contain_text("✓ marked as known")

    # --- language toggle: this quiz switches to Chinese live, the others stay English ----------------
    sq.get_by_role("button", name="中文").click()
    expect(sq).to_contain_text("单选题")
    expect(sq).to_contain_text(plain_text(right.text["zh"]))
    expect(sq).to_contain_text("✓ 正确")
    expect(sq.get_by_role("button", name="检查答案")).to_be_visible()
    expect(mq).to_contain_text("✓ Correct")

    text = assert_no_missing_glyphs(page)
    for shown in ("✓ Correct", "✓ 正确", "Check answer", "Hint", "I know it", "Not yet", "✓ marked as known"):
        assert shown in text, shown  # the scan really read the widgets
    shot = save_screenshot(page, lab, "quiz_jupyterlab")
    if os.environ.get("BERTEDU_BROWSER_SCREENSHOT"):  # a copy where the caller wants it
        shutil.copyfile(shot, os.environ["BERTEDU_BROWSER_SCREENSHOT"])


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
    expect(sq).to_contain_text("✓ Correct")
    deck.get_by_role("button", name="Flip").click()
    expect(deck).to_contain_text(snippet(items["cards"][0].back["en"]))
    button(deck, "Not yet").click()
    deck.get_by_role("button", name="中文").click()
    expect(deck).to_contain_text(plain_text(items["cards"][0].back["zh"])[:10])
    assert_no_missing_glyphs(page)

    # --- a kernel restart: the quizzes come back with the saved state, not as blank forms (issue 20) -----
    session = next(s for s in lab.api("/api/sessions") if s["path"].endswith("quiz_notebook7.ipynb"))
    kernel = f"/api/kernels/{session['kernel']['id']}"
    lab.api(f"{kernel}/restart", method="POST")
    deadline = time.monotonic() + 60
    while lab.api(kernel)["execution_state"] != "idle":
        assert time.monotonic() < deadline, "the restarted kernel did not become idle within 60 s"
        time.sleep(0.2)
    page.wait_for_timeout(1000)  # let the front end notice the restart
    run_all(page)
    sq = page.locator(f".bertedu-quiz-{single.id}")
    expect(sq).to_contain_text("Answered before · best score 1/1", timeout=60_000)
    expect(sq.get_by_label(plain_text(right.text["en"]), exact=True)).to_be_checked()  # last answer filled in
    expect(page.locator(".bertedu-flashcards")).to_contain_text("✗ not yet known (saved earlier)")
    assert_no_missing_glyphs(page)
    save_screenshot(page, lab, "quiz_notebook7_after_restart")


def test_fill_in_on_a_busy_kernel(lab, page):
    """The fill-in race (issue 43): the student types and clicks Check while the kernel is busy running another cell.
    ipywidgets sends a box's first change at once and holds the next ones back until the kernel has dealt with it,
    while a click is sent at once: the click reached the kernel before the typed values, and the quiz graded what
    the boxes held before (a second click used to be needed). Each box here gets a wrong value first, as a student
    correcting a typo does, so that the right one is held back; the click must still grade the right ones."""
    from playwright.sync_api import expect

    fill = make_quiz_notebook(lab.root / "quiz_busy.ipynb")["fill"]
    release = lab.root / "quiz_busy.release"
    release.unlink(missing_ok=True)
    nb = nbformat.read(lab.root / "quiz_busy.ipynb", as_version=4)
    nb.cells = [
        nb.cells[1],
        nbformat.v4.new_code_cell(f'quiz.ask("{BANK}", "{fill.id}")'),
        # the kernel is busy until the test has clicked (at most 60 s): no fixed sleep to wait out
        nbformat.v4.new_code_cell(
            "import pathlib, time\n"
            f"release = pathlib.Path({str(release)!r})\n"
            "for _ in range(600):\n"
            "    if release.exists():\n"
            "        break\n"
            "    time.sleep(0.1)"
        ),
    ]
    nbformat.write(nb, lab.root / "quiz_busy.ipynb")
    open_and_run_all(page, lab, "lab/workspaces/busy/tree/quiz_busy.ipynb")  # a workspace of its own: one tab
    shown = page.locator(
        ".jp-NotebookPanel:not(.lm-mod-hidden)"
    )  # the workspace may keep earlier tests' tabs
    fq = shown.locator(f".bertedu-quiz-{fill.id}")
    expect(fq).to_be_visible(timeout=60_000)
    busy = shown.locator(".jp-Notebook-ExecutionIndicator[data-status='busy']")
    expect(busy).to_have_count(1, timeout=20_000)  # the busy cell has started
    boxes = fq.locator("input[type='text']")
    answers = [str(a) for a in correct_answer(fill)]
    for k, answer in enumerate(answers):
        boxes.nth(k).fill(format_number(fill.blanks[k].value + 1))  # sent at once: the kernel holds it
        boxes.nth(k).fill(answer)  # held back by the front end until the kernel has dealt with the first
    fq.get_by_role("button", name="Check answer").click()
    assert busy.count() == 1, "the kernel finished before the click: nothing was tested"
    page.wait_for_timeout(
        1000
    )  # the click's message is on its way to the kernel, queued behind the busy cell
    release.touch()  # the busy cell ends; the kernel then handles the click, with the held-back values after it
    expect(fq).to_contain_text("✓ Correct", timeout=60_000)
    save_screenshot(page, lab, "quiz_busy_kernel")
