"""What the code knows of the Chinese script (and its CJK neighbours), in one place: which characters are
Han, which are written wide, the sentence punctuation a Chinese IME types, and the Unicode ranges that regular
expressions elsewhere use. Code outside ``bertedu/language`` imports these names instead of writing the
characters or their ``\\u`` ranges itself (``tests/test_language_room.py`` counts the files that do).

Standard library only. Introduced in notebook 00 (the quiz's grader and Markdown).
"""

from __future__ import annotations

import re
import unicodedata

#: A regular-expression class of one Han character (CJK unified ideographs, extension A, compatibility forms).
HAN_CHARACTER = r"[\u3400-\u9fff\uf900-\ufaff]"
#: Runs of Han characters (Chinese text has no spaces between words: a run holds several words).
HAN_RUN = re.compile(HAN_CHARACTER + "+")

#: The ranges (for inside a regular-expression class) of the scripts written without spaces between words and
#: of the full-width forms: CJK radicals to unified ideographs, Hangul syllables, compatibility ideographs,
#: half- and full-width forms. Markdown's emphasis treats them as punctuation, not as letters.
CJK_RANGES = r"\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"

#: The sentence punctuation of Chinese text (full-width comma, enumeration comma, full stop, corner brackets,
#: title marks, ...): a typed answer is stripped of it at both ends, as of ``.,;:!?``.
SENTENCE_PUNCTUATION = "。，、；：！？「」『』《》〈〉"
#: ``0。67``: a Chinese IME's full stop typed between digits, where a decimal point was meant.
IME_DECIMAL_POINT = re.compile(r"(?<=\d)。(?=\d)")
#: Every dash a keyboard or an IME types for a hyphen or a minus (hyphen, non-breaking hyphen, figure dash, en
#: and em dashes, minus sign, small and full-width hyphen-minus).
DASHES = re.compile(r"[\u2010\u2011\u2012\u2013\u2014\u2212\ufe63\uff0d]")


def is_cjk(char: str) -> bool:
    """Whether the one character ``char`` is in :data:`CJK_RANGES` (Han, kana, Hangul, full-width forms)."""
    return re.fullmatch(f"[{CJK_RANGES}]", char) is not None


def display_width(text: str) -> int:
    """Display width of ``text`` in a monospaced font: a wide (Chinese, full-width) character counts 2, any
    other 1."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def break_after_last_comma(text: str) -> str:
    """``text`` on two lines, broken after its last comma, ASCII or full-width (a long axis label of notebook 10);
    unchanged without a comma."""
    return re.sub(r"([,，])\s*(?=[^,，]*$)", "\\1\n", text, count=1)
