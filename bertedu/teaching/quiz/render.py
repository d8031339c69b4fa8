"""Turn bank text into HTML (a small Markdown subset plus LaTeX) and into plain text.

Bank strings may use: paragraphs (blank line), ``- `` bullet lists, ``**bold**``, ``*italic*``,
```code```, inline math ``$...$`` and display math ``$$...$$`` (rendered by the front end's MathJax
through ``ipywidgets.HTMLMath``), and blank markers ``[blank 1]`` / ``[空 1]`` in fill-in prompts.
Everything else is shown literally (HTML is escaped), so ``[CLS]`` or ``a < b`` are safe to write.

Where only text fits (``text/plain`` outputs, reports, the plain-text names of options),
:func:`plain_text` turns the same string into readable text (``$W T_i$`` → ``W T_i``, ``\\sqrt{d_k}`` → ``√d_k``).

Introduced in notebook 00.
"""

from __future__ import annotations

import html
import re
import unicodedata

from bertedu.language import UI, t
from bertedu.language.script import CJK_RANGES

_MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$", re.S)
_CODE = re.compile(r"`([^`\n]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)
# A letter or digit next to a `*` makes it literal (`2*3*4`, `snake*case*`), as in Markdown; Chinese, Japanese and
# Korean characters do not (Python's \w matches them, so `的*结构*，` would stay literal): CJK text has no spaces
# between words, and CommonMark lets `*` open and close between two such characters too.
_WORD = rf"[^\W{CJK_RANGES}]"  # \w, less CJK and full-width forms (bertedu/language/script.py)
_ITALIC = re.compile(rf"(?<!{_WORD})(?<!\*)\*(?!\s)([^*\n]+?)(?<!\s)\*(?!{_WORD})(?!\*)")
# [blank 1] / [空 1]: the marker word of every language (bertedu/language/words.py, blank_marker)
_BLANK = re.compile(
    rf"\[\s*(?:{'|'.join(map(re.escape, UI['blank_marker'].values()))})\s*([0-9]+)\s*\]", re.I
)

# Code spans, math and blank markers are set aside while the rest is escaped and formatted, and put back at
# the end. A set-aside fragment is marked in the text by a placeholder \x00N\x00. No input can forge one:
# _sanitize() first replaces every NUL of the input (bank validation rejects NUL anyway), so after it the
# only NULs in the text are the placeholders this module wrote.
_TOKEN = "\x00{}\x00"
_TOKEN_RE = re.compile("\x00([0-9]+)\x00")


def _sanitize(text: object) -> str:
    """The text with every NUL replaced by U+FFFD (so placeholders cannot collide with the input)."""
    return str(text).replace("\x00", "\ufffd")


def _restore(text: str, stash: list[str]) -> str:
    """Put the set-aside fragments back. Fragment ``i`` can only hold placeholders of earlier fragments
    (``j < i``, a code span inside math), so this recursion ends."""

    def put(m: re.Match, limit: int) -> str:
        i = int(m.group(1))
        return _TOKEN_RE.sub(lambda inner: put(inner, i), stash[i]) if i < limit else m.group(0)

    return _TOKEN_RE.sub(lambda m: put(m, len(stash)), text)


def emphasis(inner_html: str, lang: str | None = None) -> str:
    """``inner_html`` emphasised: ``<em>…</em>``, with the style of ``lang``'s emphasis (the UI word
    ``emphasis_style``: upright and bold in Chinese, whose fonts have no italic; a browser would slant the glyphs
    itself, which makes them hard to read). ``lang=None``: the plain ``<em>``. The web quiz does the same
    (web/quiz/render.js marks such text, web/quiz/quiz.css styles it)."""
    css = t("emphasis_style", lang) if lang is not None else ""
    style = f' style="{css}"' if css else ""
    return f"<em{style}>{inner_html}</em>"


def markdown_to_html(text: str, lang: str | None = None) -> str:
    """Render the Markdown subset described in the module docstring; math is passed through for MathJax.

    ``lang`` is the language of ``text``: Chinese shows ``*emphasis*`` upright and bold (:func:`emphasis`); the
    default writes plain ``<em>``, as web/quiz/markdown.js does. Any string is accepted (a NUL is shown as
    U+FFFD); the result is always HTML in which every character of the input is escaped or inside one of the
    tags this function writes.
    """
    stash: list[str] = []
    text = _inline(text, lang, stash)
    blocks = []
    for para in re.split(r"\n\s*\n", text.strip()):
        lines = [line.rstrip() for line in para.split("\n")]
        if lines and all(re.match(r"\s*[-*] ", line) for line in lines):
            items = "".join("<li>" + re.sub(r"^\s*[-*] ", "", line) + "</li>" for line in lines)
            blocks.append(f"<ul>{items}</ul>")
        else:
            blocks.append("<p>" + "<br>".join(lines) + "</p>")
    return _restore("".join(blocks), stash)


def inline_html(text: str, lang: str | None = None) -> str:
    """One line of the same Markdown subset as HTML without the paragraph around it (``**bold**``, ``*emphasis*``,
    ```code```; math passed through): the exercises' check messages. Every character of the input is escaped
    or inside a tag this function writes; quotes are escaped too (``&#x27;``), as those messages always were."""
    stash: list[str] = []
    return _restore(_inline(text, lang, stash, quote=True), stash)


def _inline(text: str, lang: str | None, stash: list[str], quote: bool = False) -> str:
    """``text`` escaped (``quote``: quotes too), with its spans formatted; code, math and blank markers set aside
    in ``stash``."""

    def keep(fragment: str) -> str:
        stash.append(fragment)
        return _TOKEN.format(len(stash) - 1)

    text = _sanitize(text)
    text = _CODE.sub(lambda m: keep(f"<code>{html.escape(m.group(1), quote=quote)}</code>"), text)
    text = _MATH.sub(lambda m: keep(html.escape(m.group(0), quote=quote)), text)
    text = html.escape(text, quote=quote)
    text = _BLANK.sub(lambda m: keep(blank_marker_html(int(m.group(1)))), text)
    text = _BOLD.sub(r"<strong>\1</strong>", text)
    return _ITALIC.sub(lambda m: emphasis(m.group(1), lang), text)


#: Symbols from the pictograph blocks that the quiz does use: plain-text (non-emoji) characters that DejaVu
#: Sans draws, so they never show as an empty box. ✓ U+2713 CHECK MARK, ✗ U+2717 BALLOT X, ☐ U+2610 BALLOT BOX.
KEPT_SYMBOLS = frozenset("\u2713\u2717\u2610")

# Emoji and pictographs: without an emoji font (a plain Debian Chromium, many lab machines) they are drawn
# as empty boxes. U+1F000-U+1FAFF (emoji, pictographs), U+2600-U+27BF (miscellaneous symbols, dingbats),
# U+2B00-U+2BFF (arrows and stars such as ⭐), U+FE0F (the variation selector that asks for emoji style).
_PICTOGRAPH_RANGES = ((0x1F000, 0x1FAFF), (0x2600, 0x27BF), (0x2B00, 0x2BFF), (0xFE0F, 0xFE0F))


def is_pictograph(char: str) -> bool:
    """Whether ``char`` is an emoji or pictograph (see ``_PICTOGRAPH_RANGES``) that the quiz must not show."""
    code = ord(char)
    return char not in KEPT_SYMBOLS and any(lo <= code <= hi for lo, hi in _PICTOGRAPH_RANGES)


def unrenderable(text: str) -> str | None:
    """Why ``text`` cannot be shown by the quiz (its first such character), or ``None`` when it can.

    Refused: control characters other than tab and newline (NUL included), format characters (zero-width
    spaces, bidirectional overrides, a BOM), private-use and surrogate code points, non-characters, and
    emoji / pictographs (:func:`is_pictograph`).
    """
    for pos, char in enumerate(text):
        code = f"U+{ord(char):04X}"
        category = unicodedata.category(char)
        if char in "\t\n":
            continue
        if category == "Cc":
            return f"{code} (a control character) at position {pos}"
        if category in ("Cf", "Co", "Cs") or (ord(char) & 0xFFFE) == 0xFFFE:
            return f"{code} (an invisible, private-use or invalid code point) at position {pos}"
        if is_pictograph(char):
            return (
                f"{code} {char} (an emoji or pictograph, drawn as an empty box where no emoji font is "
                f"installed) at position {pos}; write it in words, or use ✓ or ✗"
            )
    return None


def blank_marker_html(n: int) -> str:
    """How ``[blank n]`` appears inside a prompt: an underlined gap with its number."""
    return f'<span style="border-bottom:1px solid currentColor;padding:0 1.5em">({n})</span>'


_LATEX_SYMBOLS = {
    r"\cdot": "·",
    r"\times": "×",
    r"\in": "∈",
    r"\approx": "≈",
    r"\leq": "≤",
    r"\le": "≤",
    r"\geq": "≥",
    r"\ge": "≥",
    r"\neq": "≠",
    r"\to": "→",
    r"\rightarrow": "→",
    r"\leftarrow": "←",
    r"\ldots": "…",
    r"\dots": "…",
    r"\cdots": "…",
    r"\infty": "∞",
    r"\pm": "±",
    r"\sum": "Σ",
    r"\alpha": "α",
    r"\beta": "β",
    r"\gamma": "γ",
    r"\epsilon": "ε",
    r"\varepsilon": "ε",
    r"\lambda": "λ",
    r"\mu": "μ",
    r"\sigma": "σ",
    r"\theta": "θ",
    r"\mathbb{R}": "ℝ",
    r"\top": "ᵀ",
    r"\%": "%",
    r"\_": "_",
    r"\{": "{",
    r"\}": "}",
    r"\,": " ",
    r"\;": " ",
    r"\quad": " ",
    r"\log": "log",
    r"\exp": "exp",
    r"\max": "max",
    r"\min": "min",
    r"\tanh": "tanh",
    r"\Phi": "Φ",
    r"\phi": "φ",
    r"\pi": "π",
    r"\delta": "δ",
    r"\Delta": "Δ",
    r"\omega": "ω",
    r"\Omega": "Ω",
    r"\tau": "τ",
    r"\eta": "η",
    r"\rho": "ρ",
    r"\nabla": "∇",
    r"\partial": "∂",
    r"\mid": "|",
    r"\odot": "⊙",
    r"\otimes": "⊗",
    r"\oplus": "⊕",
    r"\sim": "~",
    r"\prod": "Π",
    r"\langle": "⟨",
    r"\rangle": "⟩",
    r"\ell": "ℓ",
    r"\lVert": "‖",
    r"\rVert": "‖",
    r"\Vert": "‖",
    r"\lvert": "|",
    r"\rvert": "|",
    r"\circ": "∘",
    r"\!": "",
    r"\:": " ",
    r"\softmax": "softmax",
    r"\mathrm{softmax}": "softmax",
}


def _group(term: str) -> str:
    """Parenthesise a fraction's numerator or denominator unless it is a single symbol or number."""
    term = term.strip()
    return term if re.fullmatch(r"[\w.\\]+", term) else f"({term})"


def plain_text(text: str) -> str:
    """A readable plain-text version of a bank string, for native control labels and ``text/plain``."""

    def math(m: re.Match) -> str:
        s = m.group(0).strip("$")
        s = re.sub(r"\\sqrt\{([^{}]*)\}", lambda m: "√" + _group(m[1]), s)  # √(n p (1-p)), √d_k
        s = re.sub(r"\\sqrt\s*([A-Za-z0-9])", r"√\1", s)
        s = re.sub(r"\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}", lambda m: f"{_group(m[1])}/{_group(m[2])}", s)
        s = re.sub(r"\^\{?\\top\}?", "ᵀ", s)
        for cmd, sym in sorted(_LATEX_SYMBOLS.items(), key=lambda kv: -len(kv[0])):
            # a command spelt with letters must not match the start of a longer one (\in vs \infty)
            guard = r"(?![A-Za-z])" if cmd[-1].isalpha() else ""
            s = re.sub(re.escape(cmd) + guard, lambda _m, sym=sym: sym, s)
        s = re.sub(r"\\(?:text|mathrm|mathbf|mathit|operatorname|boldsymbol)\{([^{}]*)\}", r"\1", s)
        s = re.sub(
            r"\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big|displaystyle|textstyle|limits)(?![A-Za-z])", "", s
        )
        s = re.sub(r"\\([A-Za-z]+)", r"\1", s)  # an unknown command: keep its name, never drop it silently
        return s.replace("{", "").replace("}", "")

    codes: list[str] = []
    text = _sanitize(text)
    text = _CODE.sub(lambda m: codes.append(m.group(1)) or _TOKEN.format(len(codes) - 1), text)
    text = _MATH.sub(math, text)
    text = _TOKEN_RE.sub(lambda m: codes[int(m.group(1))], text)
    text = _BOLD.sub(r"\1", text)
    text = _ITALIC.sub(r"\1", text)
    text = _BLANK.sub(lambda m: f"____({m.group(1)})", text)
    return re.sub(r"[ \t]+", " ", text).strip()
