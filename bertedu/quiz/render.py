"""Turn bank text into HTML (a small Markdown subset plus LaTeX) and into plain text for control labels.

Bank strings may use: paragraphs (blank line), ``- `` bullet lists, ``**bold**``, ``*italic*``,
```code```, inline math ``$...$`` and display math ``$$...$$`` (rendered by the front end's MathJax
through ``ipywidgets.HTMLMath``), and blank markers ``[blank 1]`` / ``[空 1]`` in fill-in prompts.
Everything else is shown literally (HTML is escaped), so ``[CLS]`` or ``a < b`` are safe to write.

Native radio buttons and checkboxes take plain-text labels, so :func:`plain_text` turns the same
string into readable text (``$W T_i$`` → ``W T_i``, ``\\sqrt{d_k}`` → ``√d_k``).

Introduced in notebook 00.
"""

from __future__ import annotations

import html
import re

_MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$", re.S)
_CODE = re.compile(r"`([^`\n]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)
_ITALIC = re.compile(r"(?<![\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])")
_BLANK = re.compile(r"\[\s*(?:blank|空)\s*(\d+)\s*\]", re.I)
_TOKEN = "\x00{}\x00"
_TOKEN_RE = re.compile("\x00(\\d+)\x00")


def markdown_to_html(text: str) -> str:
    """Render the Markdown subset described in the module docstring; math is passed through for MathJax."""
    stash: list[str] = []

    def keep(fragment: str) -> str:
        stash.append(fragment)
        return _TOKEN.format(len(stash) - 1)

    text = _CODE.sub(lambda m: keep(f"<code>{html.escape(m.group(1), quote=False)}</code>"), text)
    text = _MATH.sub(lambda m: keep(html.escape(m.group(0), quote=False)), text)
    text = html.escape(text, quote=False)
    text = _BLANK.sub(lambda m: keep(blank_marker_html(int(m.group(1)))), text)
    text = _BOLD.sub(r"<strong>\1</strong>", text)
    text = _ITALIC.sub(r"<em>\1</em>", text)

    blocks = []
    for para in re.split(r"\n\s*\n", text.strip()):
        lines = [line.rstrip() for line in para.split("\n")]
        if lines and all(re.match(r"\s*[-*] ", line) for line in lines):
            items = "".join("<li>" + re.sub(r"^\s*[-*] ", "", line) + "</li>" for line in lines)
            blocks.append(f"<ul>{items}</ul>")
        else:
            blocks.append("<p>" + "<br>".join(lines) + "</p>")
    out = "".join(blocks)
    while _TOKEN_RE.search(out):  # stashed fragments may nest (a code span inside nothing else)
        out = _TOKEN_RE.sub(lambda m: stash[int(m.group(1))], out)
    return out


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
        s = re.sub(r"\\sqrt\{([^{}]*)\}", r"√\1", s)
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
    text = _CODE.sub(lambda m: codes.append(m.group(1)) or f"\x00{len(codes) - 1}\x00", text)
    text = _MATH.sub(math, text)
    text = _TOKEN_RE.sub(lambda m: codes[int(m.group(1))], text)
    text = _BOLD.sub(r"\1", text)
    text = _ITALIC.sub(r"\1", text)
    text = _BLANK.sub(lambda m: f"____({m.group(1)})", text)
    return re.sub(r"[ \t]+", " ", text).strip()
