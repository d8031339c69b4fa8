"""Answer cues of the quiz banks: how far a test-wise student gets without reading a question.

    python tools/quiz_cues.py [BANK.yaml ...]      # the per-bank tables, both languages (default: every bank)

A test-wise student who does not know the answer still has rules of thumb. This script measures each one over
every single- and multiple-choice question of ``bertedu/teaching/quiz/banks/*.yaml``, in English and in Chinese,
on the text a student sees (:func:`bertedu.teaching.quiz.render.plain_text` of each option):

- ``longest``: pick the longest option (length = display width: a Chinese character or full-width sign counts 2,
  anything else 1);
- ``shortest``: pick the shortest option;
- ``specific``: pick the most specific option, the one with the most *details*: numbers, ``$…$`` formulas,
  `` `code` `` spans and technical terms written in Latin letters (a word with two capitals or a capital and a
  digit, ``BERT``, ``[MASK]``, ``LayerNorm``, ``W1``; a lone capital other than English's ``A`` and ``I``, ``H``;
  a ``snake_case`` or ``dotted.name``), each counted once per occurrence;
- ``overlap``: pick the option that repeats the most of the prompt's words (distinct content words: English
  words without stop words and a plural ``s``; in Chinese, which has no spaces, every pair of neighbouring
  Chinese characters that holds no function character such as 的 or 是, and the Latin words);
- ``absolute``: rule out the options with an absolute word (``always``, ``never``, ``only``, ``all``, ``none``,
  ``every``, ``nothing``; ``总是``, ``从不``, ``从来``, ``永远``, ``一定``, ``所有``, ``全部``, ``只``, ``绝不``)
  and pick among the rest: the cue of absolute words on the distractors only.

Which options a cue *points at*: in a single-choice question the one option with the highest score (the lowest
for ``shortest``); when several options tie for it, or (for ``specific`` and ``overlap``) the highest score is 0,
the cue points at nothing. In a multiple-choice question the options scoring above the question's median (below
it for ``shortest``). ``absolute`` points at the options without an absolute word when some but not all
options have one.

Its rate: in each question the cue points into, the share of the options it points at that are correct
(single choice: 1 if it points at the answer, else 0), summed over those questions; *chance* is the same sum for
a student who picks at random: the share of correct options among all options of those questions (1 / number
of options for single choice). ``tests/test_quiz_cues.py`` holds the ratio rate / chance at most
:data:`MAX_RATIO` per language and question type, and at least :data:`MIN_RATIO` once chance expects
:data:`MIN_EXPECTED` hits or more: a cue that points away from the answer is a cue too (rule out the option it
points at).
"""

from __future__ import annotations

import functools
import re
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bertedu.language import LANGUAGES, writes_han  # noqa: E402
from bertedu.language.script import HAN_RUN, display_width  # noqa: E402
from bertedu.language.words import CUE_WORDS  # noqa: E402
from bertedu.teaching.quiz.banks import Question, load_all, load_bank_file  # noqa: E402
from bertedu.teaching.quiz.render import plain_text  # noqa: E402

KINDS = ("single", "multiple")
CUES = ("longest", "shortest", "specific", "overlap", "absolute")
MAX_RATIO = 1.5
MIN_RATIO = 0.5
MIN_EXPECTED = 2.0

#: Absolute words on an option ("always", "never"): a cue when only distractors carry them (language room's table).
ABSOLUTE = {lang: re.compile(CUE_WORDS["absolute"][lang], re.I) for lang in LANGUAGES}
_MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$", re.S)
_CODE = re.compile(r"`[^`\n]+`")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*(?:e-?\d+)?")
_TERM = re.compile(
    r"\[[A-Z]+\]"  # [MASK], [CLS]
    r"|\b[A-Za-z]*[A-Z][a-z]*[A-Z0-9][A-Za-z0-9]*\b"  # BERT, LayerNorm, W1, GeLU
    r"|\b(?![AI]\b)[A-Z]\b"  # H, V, T (English's A and I are words)
    r"|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b"  # snake_case
    r"|\b[a-z][a-z0-9]+(?:\.[a-z][a-z0-9]+)+\b"  # dotted.names (not e.g. or i.e.)
)
_STOP_EN = set(
    """the a an and or of to in on at by for with from as is are be was were been it its this that these those
    which what who how why when where than then so not no yes can could would should will may might do does did
    has have had there their they them his her our your you we one two only all any each more most less some
    such into over under about after before also just but if both either very same other""".split()
)
# function characters: a pair of characters that holds one of them is no content word (the language room's table)
_FUNCTION_CHARACTERS = {lang: set(CUE_WORDS["function_characters"][lang]) for lang in LANGUAGES}
_EN_WORD = re.compile(r"[a-z][a-z0-9'-]+")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'-]+")


def width(text: str) -> int:
    """Display width of ``text``: a wide (Chinese, full-width) character counts 2, any other 1."""
    return display_width(text)


def details(raw: str) -> int:
    """How specific an option reads: numbers, formulas, code spans and Latin technical terms, counted."""
    formulas = len(_MATH.findall(raw)) + len(_CODE.findall(raw))
    rest = _CODE.sub(" ", _MATH.sub(" ", raw))
    return formulas + len(_NUMBER.findall(rest)) + len(_TERM.findall(rest))


@functools.cache
def words(text: str, lang: str) -> frozenset[str]:
    """The distinct content words of ``text`` (plain text), for the overlap cue."""
    if not writes_han(lang):
        out = set()
        for w in _EN_WORD.findall(text.lower()):
            w = w.strip("'-")
            if len(w) >= 3 and w not in _STOP_EN:
                out.add(w[:-1] if w.endswith("s") and len(w) > 3 else w)
        return frozenset(out)
    out = {w.lower() for w in _LATIN_WORD.findall(text)}
    for run in HAN_RUN.findall(text):
        out.update(
            run[i : i + 2]
            for i in range(len(run) - 1)
            if not _FUNCTION_CHARACTERS[lang].intersection(run[i : i + 2])
        )
    return frozenset(out)


def scores(question: Question, lang: str) -> dict[str, list[float]]:
    """Each cue's score of each option (higher = the cue favours it; ``absolute``: 1 = has an absolute word)."""
    raws = [o.text[lang] for o in question.options]
    plains = [plain_text(r) for r in raws]
    prompt = words(plain_text(question.prompt[lang]), lang)
    return {
        "longest": [width(p) for p in plains],
        "shortest": [-width(p) for p in plains],
        "specific": [details(r) for r in raws],
        "overlap": [len(words(p, lang) & prompt) for p in plains],
        "absolute": [1 if ABSOLUTE[lang].search(p) else 0 for p in plains],
    }


def pointed(cue: str, values: list[float], kind: str) -> list[int]:
    """The options ``cue`` points at, by its scores ``values`` (see the module docstring); [] for none."""
    if cue == "absolute":
        if 0 < sum(values) < len(values):
            return [i for i, v in enumerate(values) if not v]
        return []
    top = max(values)
    if kind == "single":
        best = [i for i, v in enumerate(values) if v == top]
        if len(best) > 1 or (cue in ("specific", "overlap") and top <= 0):
            return []
        return best
    median = statistics.median(values)
    return [i for i, v in enumerate(values) if v > median]


@dataclass
class Tally:
    """One cue over a set of questions: the questions it points into, its rate and chance summed."""

    questions: int = 0
    rate: float = 0.0
    chance: float = 0.0

    def add(self, share: float, base: float) -> None:
        self.questions += 1
        self.rate += share
        self.chance += base

    @property
    def ratio(self) -> float:
        return self.rate / self.chance if self.chance else 0.0

    def cell(self) -> str:
        if not self.questions:
            return "-"
        return f"{self.rate:.1f}/{self.chance:.1f}={self.ratio:.2f}"


def measure(questions: list[Question], lang: str) -> dict[str, Tally]:
    """Each cue's tally over ``questions`` (all of one kind) in language ``lang``."""
    out = {cue: Tally() for cue in CUES}
    for q in questions:
        correct = {i for i, o in enumerate(q.options) if o.correct}
        base = len(correct) / len(q.options)
        for cue, values in scores(q, lang).items():
            picks = pointed(cue, values, q.type)
            if picks:
                out[cue].add(len(correct.intersection(picks)) / len(picks), base)
    return out


def choice_questions(banks=None) -> dict[str, dict[str, list[Question]]]:
    """{kind: {bank name: [questions]}} of every choice question of ``banks`` (default: the shipped banks)."""
    out: dict[str, dict[str, list[Question]]] = {kind: {} for kind in KINDS}
    for bank in banks if banks is not None else load_all():
        for kind in KINDS:
            qs = [q for q in bank.questions if q.type == kind]
            if qs:
                out[kind][bank.notebook] = qs
    return out


def table(by_bank: dict[str, list[Question]], lang: str, kind: str) -> tuple[str, dict[str, Tally]]:
    """The per-bank table of one language and kind (each cell: hits/chance=ratio) and the totals."""
    rows = [f"{kind} choice, {lang}: hits/expected by chance=ratio (between {MIN_RATIO} and {MAX_RATIO})"]
    rows.append(f"{'bank':<28}{'n':>4}" + "".join(f"{c:>18}" for c in CUES))
    everything: list[Question] = []
    for name, qs in by_bank.items():
        everything += qs
        tallies = measure(qs, lang)
        rows.append(f"{name:<28}{len(qs):>4}" + "".join(f"{tallies[c].cell():>18}" for c in CUES))
    total = measure(everything, lang)
    rows.append(f"{'all banks':<28}{len(everything):>4}" + "".join(f"{total[c].cell():>18}" for c in CUES))
    return "\n".join(rows), total


def strictly_longest_correct(questions: dict[str, list[Question]], lang: str) -> tuple[int, int]:
    """The issue's count: in how many single-choice questions the answer is strictly the longest (characters)."""
    qs = [q for qs in questions.values() for q in qs]
    hits = 0
    for q in qs:
        lengths = [len(plain_text(o.text[lang])) for o in q.options]
        top = max(lengths)
        if lengths.count(top) == 1 and q.options[lengths.index(top)].correct:
            hits += 1
    return hits, len(qs)


def out_of_band(tallies: dict[str, Tally]) -> list[str]:
    """The cues of ``tallies`` whose ratio is above :data:`MAX_RATIO`, or below :data:`MIN_RATIO` with enough
    questions for chance to expect :data:`MIN_EXPECTED` hits."""
    bad = []
    for cue, t in tallies.items():
        if t.questions and (t.ratio > MAX_RATIO or (t.chance >= MIN_EXPECTED and t.ratio < MIN_RATIO)):
            bad.append(f"{cue} {t.cell()}")
    return bad


def main(argv: list[str] | None = None) -> int:
    paths = argv if argv is not None else sys.argv[1:]
    banks = [load_bank_file(p) for p in paths] if paths else None
    questions = choice_questions(banks)
    for lang in LANGUAGES:
        hits, n = strictly_longest_correct(questions["single"], lang)
        print(
            f"{lang}: the answer is strictly the longest (characters) in {hits} of {n} single-choice questions\n"
        )
        for kind in KINDS:
            print(table(questions[kind], lang, kind)[0], "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
