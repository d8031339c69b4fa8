"""No quiz text needs an emoji font (issue 16: without one, Chromium drew the markers on Hint, Show solution
and the result lines as empty boxes).

Every string of bertedu/teaching/quiz (the i18n tables, every string literal of its modules, and the text of live
widgets driven through their states in both languages) is scanned for code points in the emoji and
pictograph blocks. The few symbols kept on purpose are checked against the fonts the course relies on:
DejaVu Sans (shipped inside matplotlib, and Debian's default) and, for Chinese, Noto Sans CJK when installed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import ipywidgets as widgets
import pytest

from bertedu import language as i18n
from bertedu.language.words import DECK_TITLES
from bertedu.teaching import quiz
from bertedu.teaching.quiz.store import ProgressStore

QUIZ_DIR = Path(i18n.__file__).parent
# Defined here independently of bertedu.teaching.quiz.render, so a wrong range there cannot hide a pictograph.
FORBIDDEN = [(0x1F000, 0x1FAFF), (0x2600, 0x27BF), (0xFE0F, 0xFE0F)]
KEPT = {"\u2713": "CHECK MARK", "\u2717": "BALLOT X", "\u2610": "BALLOT BOX"}  # not emoji; DejaVu draws them
DEJAVU = Path(__import__("matplotlib").get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
NOTO_CJK = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")


def pictographs(text: str) -> list[str]:
    """The forbidden code points in ``text``, as ``U+XXXX``."""
    return [
        f"U+{ord(c):04X} {c!r}"
        for c in text
        if c not in KEPT and any(lo <= ord(c) <= hi for lo, hi in FORBIDDEN)
    ]


def ui_tables() -> dict[str, str]:
    out = {}
    for key, entry in i18n.UI.items():
        for lang, text in entry.items():
            out[f"UI[{key!r}][{lang!r}]"] = text
    for key, entry in DECK_TITLES.items():
        for lang, text in entry.items():
            out[f"DECK_TITLES[{key!r}][{lang!r}]"] = text
    return out


def module_literals() -> dict[str, str]:
    """Every string literal in bertedu/teaching/quiz/*.py (labels built in code, f-string parts, docstrings)."""
    out = {}
    for path in sorted(QUIZ_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                out[f"{path.name}:{node.lineno}"] = node.value
    return out


def test_scanner_catches_what_it_should():
    assert (
        pictographs("\U0001f4a1 Show hint") and pictographs("\u2705 Correct") and pictographs("\u2714\ufe0f")
    )
    assert pictographs("\u2714 I know it") and pictographs("\U0001f504 Flip")
    assert not pictographs("✓ Correct · ✗ Not quite · ☐ option · “quoted” · 中文")


def test_no_pictographs_in_ui_tables():
    found = {where: pictographs(text) for where, text in ui_tables().items() if pictographs(text)}
    assert not found, found


def test_no_pictographs_in_any_string_literal_of_the_quiz_package():
    literals = module_literals()
    assert len(literals) > 200  # the scan really read the modules
    found = {where: pictographs(text) for where, text in literals.items() if pictographs(text)}
    assert not found, found


# ------------------------------------------------------------------------------------- live widgets
def widget_texts(widget, out: list[str]) -> list[str]:
    """Every text a widget shows: descriptions, values, tooltips, placeholders, option labels, children."""
    for name in ("description", "value", "tooltip", "placeholder"):
        value = getattr(widget, name, None)
        if isinstance(value, str):
            out.append(value)
    for name in ("options", "_options_labels", "tooltips"):
        for item in getattr(widget, name, None) or ():
            out.extend(x for x in (item if isinstance(item, tuple) else (item,)) if isinstance(x, str))
    for child in getattr(widget, "children", ()):
        if isinstance(child, widgets.Widget):
            widget_texts(child, out)
    return out


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("BERTEDU_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("BERTEDU_LANG", raising=False)
    quiz.set_language(None)
    yield tmp_path / "home"
    quiz.set_language(None)


def _drive_every_state(lang: str) -> list:
    """Widgets of every kind, pushed through their states (wrong, hint, solution, right, saved)."""
    shown = []
    bank = quiz.load_bank("00_welcome")
    for q in bank.questions:
        w = quiz.ask("00_welcome", q.id, language=lang)
        w.hint_button.click()
        if q.type == "single":
            w.options_box.value = next(i for i, o in enumerate(q.options) if not o.correct)
        elif q.type == "multiple":
            w.checkboxes[next(i for i, o in enumerate(q.options) if not o.correct)].value = True
        else:
            for box in w.blanks:
                box.value = "not a number"
        w.submit.click()
        w.solution_button.click()
        shown.append(widget_texts(w, []))
        w.solution_button.click()
        from bertedu.teaching.quiz.core import correct_answer

        answer = correct_answer(q)
        if q.type == "single":
            w.options_box.value = answer
        elif q.type == "multiple":
            for i, box in enumerate(w.checkboxes):
                box.value = i in answer
        else:
            for box, value in zip(w.blanks, answer):
                box.value = str(value)
        w.submit.click()
        w.solution_button.click()
        shown.append(widget_texts(w, []))
        shown.append(widget_texts(quiz.ask("00_welcome", q.id, language=lang), []))  # "answered before"
    deck = quiz.flashcards("00_welcome", language=lang)
    for step in (deck.flip, deck.known, deck.next, deck.unknown, deck.previous):
        step.click()
        shown.append(widget_texts(deck, []))
    shown.append(widget_texts(quiz.flashcards(deck="part-a", language=lang), []))
    shown.append(widget_texts(quiz.section("00_welcome", language=lang), []))
    shown.append(widget_texts(quiz.progress(language=lang), []))
    reset = quiz.reset_progress()
    reset.set_language(lang)
    shown.append(widget_texts(reset, []))
    reset.cancel.click()
    shown.append(widget_texts(reset, []))
    for w in (quiz.ask("00_welcome", "show-solution", language=lang), deck):
        data = w._repr_mimebundle_()
        shown.append([data["text/plain"], data["text/html"]])
    return shown


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_pictographs_in_live_widgets(home, lang):
    ProgressStore().mark_card("paper", "a-two-strategies", True)
    texts = [t for group in _drive_every_state(lang) for t in group]
    assert len(texts) > 300
    joined = "\n".join(texts)
    assert "✓" in joined and "✗" in joined  # the markers are there, as plain symbols
    assert not pictographs(joined), sorted(set(pictographs(joined)))


# ------------------------------------------------------------------------------------------- fonts
def _cmap(path: Path) -> set[int]:
    fontTools = pytest.importorskip("fontTools.ttLib")
    if path.suffix == ".ttc":
        fonts = fontTools.TTCollection(str(path)).fonts
    else:
        fonts = [fontTools.TTFont(str(path))]
    return {code for font in fonts for code in font.getBestCmap()}


def test_kept_symbols_are_in_dejavu_sans():
    cmap = _cmap(DEJAVU)
    missing = {c: name for c, name in KEPT.items() if ord(c) not in cmap}
    assert not missing, f"not in {DEJAVU.name}: {missing}"


def test_every_ui_character_has_a_glyph():
    """Each character of the English UI is in DejaVu Sans; each Chinese one in DejaVu Sans or Noto CJK."""
    dejavu = _cmap(DEJAVU)
    texts = ui_tables()
    english = {c for where, text in texts.items() if "'zh'" not in where for c in text}
    assert not {c for c in english if ord(c) not in dejavu and not c.isspace()}
    if not NOTO_CJK.is_file():
        pytest.skip(f"{NOTO_CJK} not installed (apt-get install fonts-noto-cjk) for the Chinese check")
    cjk = _cmap(NOTO_CJK) | dejavu
    chinese = {c for text in texts.values() for c in text}
    missing = sorted(f"U+{ord(c):04X} {c}" for c in chinese if ord(c) not in cjk and not c.isspace())
    assert not missing, missing
