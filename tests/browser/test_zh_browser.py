"""The Chinese edition in a real browser: notebook 00 (zh) with a quiz and a figure, CJK text really drawn.

Runs a copy of ``notebooks/zh/00_welcome.ipynb`` in JupyterLab (Debian's Chromium via Playwright), with one
extra cell after the first quiz: a ``bertedu.teaching.viz`` figure with Chinese labels, whose every character the
kernel checks against the figure's fonts. In the page it answers the quiz in Chinese, then checks that every
CJK character on the page is drawn by a font that has it: each one is painted on a canvas in its element's
font and compared with what the same font paints for an unassigned code point (the "tofu" box every missing
glyph gets) and with the other characters (tofu boxes all look alike). A second test shows that this check
does report tofu when Chromium has no CJK font (a fontconfig limited to DejaVu). The screenshot of the quiz and
the figure (and the quiz's hint, opened) is always saved (``BERTEDU_ZH_SCREENSHOT`` copies it elsewhere).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell

from bertedu.teaching.quiz import load_bank
from bertedu.teaching.quiz.render import plain_text

pytestmark = [pytest.mark.browser, pytest.mark.integration]  # a JupyterLab server and Chromium

ROOT = Path(__file__).resolve().parents[2]
ZH_00 = ROOT / "notebooks" / "zh" / "00_welcome.ipynb"
FIRST_QUIZ = "show-solution"  # the question of notebook 00's first quiz cell
FIGURE_CELLS = [
    new_markdown_cell("## 图表\n\n下面的图表由 `bertedu.teaching.viz` 绘制，标题、坐标轴和图例都是中文。"),
    new_code_cell(
        "%matplotlib inline\n"  # the kernel inherits MPLBACKEND=Agg from `make unit`: show figures anyway
        "from bertedu.teaching import viz\n"
        "from bertedu.teaching.viz._core import missing_glyphs\n"
        "\n"
        'fig = viz.plot_masking_statistics({"[MASK]": 118, "random": 16, "unchanged": 14, "not selected": 852})\n'
        "fig"
    ),
    new_code_cell('assert missing_glyphs(fig) == {}, missing_glyphs(fig)\nprint("图表中的每个字符都有字形")'),
]

# Every CJK character under `root`, painted at 32 px in its element's font, compared with tofu.
TOFU_JS = r"""(root) => {
    const cjk = /[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff01-\uff5e]/u;
    const canvas = document.createElement("canvas");
    canvas.width = 80; canvas.height = 80;
    const ctx = canvas.getContext("2d", {willReadFrequently: true});
    const paint = (ch, font) => {
        ctx.clearRect(0, 0, 80, 80);
        ctx.font = font; ctx.textBaseline = "top"; ctx.fillStyle = "#000";
        ctx.fillText(ch, 8, 8);
        const d = ctx.getImageData(0, 0, 80, 80).data;
        let h = 0, ink = 0;
        for (let i = 3; i < d.length; i += 4) { h = (Math.imul(h, 31) + d[i]) | 0; ink += d[i] > 0; }
        return `${h}:${ink}:${ctx.measureText(ch).width.toFixed(1)}`;
    };
    const seen = new Map();  // font -> Map(char -> picture)
    for (const scope of document.querySelectorAll(root)) {
        const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
        while (walker.nextNode()) {
            const el = walker.currentNode.parentElement;
            if (!el || !el.getClientRects().length) continue;  // not rendered
            const st = getComputedStyle(el);
            const font = `${st.fontStyle} ${st.fontWeight} 32px ${st.fontFamily}`;
            if (!seen.has(font)) seen.set(font, new Map());
            for (const ch of walker.currentNode.textContent)
                if (cjk.test(ch) && !seen.get(font).has(ch)) seen.get(font).set(ch, paint(ch, font));
        }
    }
    const tofu = [], alike = [];
    let checked = 0;
    for (const [font, pictures] of seen) {
        const missing = [paint("\u0378", font), paint("\u{10FFFD}", font)];  // unassigned: always tofu
        const byPicture = new Map();
        for (const [ch, pic] of pictures) {
            checked += 1;
            if (missing.includes(pic)) tofu.push({ch, font});
            if (!/[\u3000-\u303f\uff01-\uff5e]/u.test(ch)) {  // punctuation may share a shape
                if (byPicture.has(pic)) alike.push([byPicture.get(pic), ch, font]);
                byPicture.set(pic, ch);
            }
        }
    }
    const chars = [...new Set([...seen.values()].flatMap(m => [...m.keys()]))].join("");
    return {checked, chars, tofu, alike};
}"""


def assert_cjk_drawn(page, root: str, at_least: int) -> dict:
    found = page.evaluate(TOFU_JS, root)
    assert not found["tofu"], f"CJK characters drawn as missing-glyph boxes: {found['tofu'][:10]}"
    assert not found["alike"], f"different CJK characters drawn identically (tofu?): {found['alike'][:10]}"
    assert len(found["chars"]) >= at_least, (
        f"only {len(found['chars'])} CJK characters found: {found['chars']}"
    )
    return found


def make_notebook(path: Path) -> None:
    """notebooks/zh/00_welcome.ipynb without outputs, plus the figure cells after its first quiz."""
    nb = nbformat.read(ZH_00, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    quiz = next(i for i, c in enumerate(nb.cells) if FIRST_QUIZ in c.source and c.cell_type == "code")
    nb.cells[quiz + 1 : quiz + 1] = [nbformat.from_dict(c) for c in FIGURE_CELLS]
    nbformat.write(nb, path)


def render_every_cell(lab) -> None:
    """JupyterLab draws only the cells in view by default; the glyph check needs all of them in the page."""
    folder = lab.root / "lab-settings" / "@jupyterlab" / "notebook-extension"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tracker.jupyterlab-settings").write_text(
        json.dumps({"windowingMode": "none"}), encoding="utf-8"
    )


def open_and_run_all(page, lab, url_path: str) -> None:
    page.goto(lab.url(url_path))
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    kernel_name = page.locator(".jp-Toolbar-kernelName", has_text="Python 3")
    idle = page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")
    accept = page.locator(".jp-Dialog .jp-mod-accept")
    deadline = time.monotonic() + 60
    while not (kernel_name.count() and idle.count() and not accept.count()):
        if accept.count():
            accept.click()
        assert time.monotonic() < deadline, "The kernel did not become idle within 60 s."
        page.wait_for_timeout(100)
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator("[data-command='runmenu:run-all']").click()


def test_chinese_notebook_00_with_a_quiz_and_a_figure(lab, page):
    from playwright.sync_api import expect

    render_every_cell(lab)
    make_notebook(lab.root / "zh_00_welcome.ipynb")
    open_and_run_all(page, lab, "lab/tree/zh_00_welcome.ipynb")
    deck = page.locator(".bertedu-flashcards")
    expect(deck).to_be_visible(timeout=120_000)  # the last cell rendered: every widget is live
    expect(deck).to_contain_text("第 1 张，共 2 张")
    expect(page.locator(".jp-Notebook")).to_contain_text("图表中的每个字符都有字形", timeout=60_000)
    figure = page.locator(".jp-OutputArea-output img").first
    expect(figure).to_be_visible()
    assert figure.evaluate("img => img.complete && img.naturalWidth > 300"), "the figure did not load"
    assert "missing from font" not in page.locator(".jp-Notebook").inner_text()  # matplotlib's glyph warning

    # the first quiz, in Chinese: a wrong answer, then the right one
    question = next(q for q in load_bank("00_welcome").questions if q.id == FIRST_QUIZ)
    box = page.locator(f".bertedu-quiz-{FIRST_QUIZ}")
    expect(box).to_contain_text("单选题")
    wrong = next(o for o in question.options if not o.correct)
    right = next(o for o in question.options if o.correct)
    box.get_by_label(plain_text(wrong.text["zh"]), exact=True).check()
    box.get_by_role("button", name="检查答案").click()
    expect(box).to_contain_text("✗ 还不对")
    box.get_by_label(plain_text(right.text["zh"]), exact=True).check()
    box.get_by_role("button", name="检查答案").click()
    expect(box).to_contain_text("✓ 正确")
    expect(box).to_contain_text("第 2 次作答")
    box.get_by_role("button", name="提示").click()  # the quiz's own hint, so the screenshot has all three
    expect(box).to_contain_text(plain_text(question.hint["zh"]))

    # the exercise feedback and the prose are Chinese too
    notebook = page.locator(".jp-Notebook")
    for text in ("课程是怎样组织的", "尚未作答", "提示 1/2", "参考答案", "✓ 正确：200 个词元的 15% 是 30"):
        expect(notebook).to_contain_text(text)

    found = assert_cjk_drawn(page, ".jp-Notebook", at_least=300)
    widgets = assert_cjk_drawn(page, ".bertedu-quiz, .bertedu-flashcards", at_least=30)
    assert set("检查答案正确翻面") <= set(widgets["chars"]), "the quiz's and cards' buttons were checked"
    print(f"\n{len(found['chars'])} distinct CJK characters checked, none drawn as tofu")

    box.scroll_into_view_if_needed()
    box.evaluate("el => el.scrollIntoView({block: 'start'})")  # the quiz at the top, the figure below it
    page.wait_for_timeout(300)
    shot = lab.root / "zh_00_quiz_and_figure.png"
    page.screenshot(path=str(shot))
    print(f"Screenshot: {shot}")
    if os.environ.get("BERTEDU_ZH_SCREENSHOT"):
        shutil.copyfile(shot, os.environ["BERTEDU_ZH_SCREENSHOT"])


SAMPLE = "检查答案 自注意力与掩码语言模型"
BROWSER_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
]
NO_CJK_FONTCONFIG = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>{fonts}</dir><cachedir>{cache}</cachedir></fontconfig>
"""


@pytest.mark.parametrize("cjk_fonts", [True, False], ids=["system-fonts", "dejavu-only"])
def test_the_glyph_check_reports_tofu_without_a_cjk_font(chromium_path, tmp_path, cjk_fonts):
    """The same check on a static page: silent with the system's fonts, all tofu with DejaVu alone."""
    from playwright.sync_api import sync_playwright

    env = dict(os.environ)
    if not cjk_fonts:
        dejavu = Path("/usr/share/fonts/truetype/dejavu")
        if not dejavu.is_dir():
            pytest.skip(f"{dejavu} not found (Debian's fonts-dejavu-core)")
        config = tmp_path / "fonts.conf"
        config.write_text(
            NO_CJK_FONTCONFIG.format(fonts=dejavu, cache=tmp_path / "fc-cache"), encoding="utf-8"
        )
        env["FONTCONFIG_FILE"] = str(config)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(chromium_path), headless=True, args=BROWSER_ARGS, env=env
        )
        try:
            page = browser.new_page()
            page.set_content(f"<p style='font-family: sans-serif'>{SAMPLE}</p>")
            found = page.evaluate(TOFU_JS, "p")
        finally:
            browser.close()
    assert set(found["chars"]) == set(SAMPLE) - {" "}
    if cjk_fonts:
        assert found["tofu"] == [] and found["alike"] == []
    else:
        assert {t["ch"] for t in found["tofu"]} == set(SAMPLE) - {" "}
