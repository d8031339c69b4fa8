"""Rendering of bank strings: HTML for the widgets, plain text for native control labels and the fallback.

Any string renders: the randomised tests below must finish and return a string."""

import html
import random
import re
import signal

import pytest

from bertedu.teaching.quiz.render import markdown_to_html, plain_text


@pytest.mark.parametrize(
    ("latex", "expected"),
    [
        (r"$x\,\Phi(x)$", "x Φ(x)"),
        (r"$\sqrt2$", "√2"),
        (r"$QK^\top/\sqrt{d_k}$", "QKᵀ/√d_k"),
        (r"$\sqrt{n p (1-p)}$", "√(n p (1-p))"),  # a longer root keeps its grouping
        (r"$\sqrt{2/\pi}$", "√(2/π)"),
        (r"$W_p\,T$", "W_p T"),
        (r"$a \in B, \infty$", "a ∈ B, ∞"),
        (r"$\tfrac{1}{2}$", "1/2"),
        (r"$\frac{a+b}{2}$", "(a+b)/2"),
        (r"$\lVert v \rVert$", "‖ v ‖"),
        (r"$\left(a \odot b\right)$", "(a ⊙ b)"),
        (r"$p(x \mid y) \sim \pi$", "p(x | y) ~ π"),
    ],
)
def test_latex_becomes_readable_text(latex, expected):
    assert plain_text(latex) == expected


def test_unknown_commands_are_kept_not_dropped():
    assert "Xi" in plain_text(r"$\Xi$")


# ------------------------------------------------------------------- any input: no hang, no crash
# The renderer sets code, math and blank markers aside behind placeholders; bank text that looked like a
# placeholder made it loop forever or raise IndexError (reliability report #10).
PLACEHOLDER_LIKE = [
    "`\x000\x00`",
    "\x000\x00",
    "\x005\x00",
    "`a` \x000\x00 `b`",
    "$x$ \x001\x00 `\x000\x00`",
    "\x00\x00\x00",
    "`\x00`",
]
ALPHABET = ["`", "$", "$$", "*", "**", "[", "]", "\x00", "\n", "\n\n", " ", "- ", "\\", "<", "&", "a", "空"]
ALPHABET += list("0123456789") + ["[blank 1]", "[空 2]", "\\sqrt{d}", "\\frac{a}{b}", "{", "}", "_", "^"]
OUR_TAGS = re.compile(r"</?(p|br|ul|li|strong|em|code)>|<span style=\"[^\"]*\">|</span>")


def _random_strings(n: int, seed: int = 0):
    rng = random.Random(seed)
    for _ in range(n):
        yield "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 40)))


@pytest.fixture
def deadline():
    """Fail (rather than hang the suite) if rendering loops: SIGALRM where the platform has it."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def timeout(_signum, _frame):
        raise AssertionError("markdown_to_html / plain_text did not finish within 60 s (an endless loop?)")

    old = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(60)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("text", PLACEHOLDER_LIKE)
def test_placeholder_lookalikes_render_literally(text, deadline):
    out = markdown_to_html(text)
    assert isinstance(out, str) and "\x00" not in out
    assert out.count("\ufffd") == text.count("\x00")  # each NUL is shown as U+FFFD, none is lost
    assert "\x00" not in plain_text(text)


def test_random_special_character_soup_always_renders(deadline):
    for text in _random_strings(3000):
        out = markdown_to_html(text)
        assert isinstance(out, str) and "\x00" not in out, repr(text)
        # every "<" in the output belongs to a tag the renderer wrote: the input is always escaped
        assert "<" not in OUR_TAGS.sub("", out), (text, out)
        label = plain_text(text)
        assert isinstance(label, str) and "\x00" not in label, repr(text)


def test_input_text_survives_rendering():
    """Plain words, digits and escaped specials come out (the placeholders never swallow text)."""
    for text in ["3 < 4 & 5", "a 0 b 1 c", "`code 0` then 1", "$x_0$ and `y_1` and 2"]:
        visible = html.unescape(re.sub(r"<[^>]+>", "", markdown_to_html(text)))
        assert visible.replace("`", "") == text.replace("`", ""), (text, visible)
