"""Each quiz option says the same thing in English and in Chinese, and each distractor names its misconception.

An option is one item of a bank with a ``text: {en, zh}``, so both languages share its id and whether it is
correct by construction. What can drift is the text (issue 43: a translation that drops a qualifier, or an
option that only one language makes longer, is a cue in one language only). So, for every option of every
single- and multiple-choice question:

- the same numbers (``1.1 亿`` is ``110M``, ``33 亿`` is ``3.3 billion``) and the same formulas and code spans;
- a comparable length: Chinese is shorter than English by a ratio that varies from question to question, so
  each option's Chinese width is compared with the width the question's median ratio predicts from its
  English (Latin words both texts share, such as PyTorch or [CLS], do not count);
- and each wrong option's explanation names the misconception it stands for ("Misconception: …" /
  "误解：…"), so the distractor teaches something when it is picked.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import replace

import pytest
from quiz_cues import width

from bertedu.teaching.quiz.banks import load_all
from bertedu.teaching.quiz.render import plain_text

BANKS = load_all()
MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$", re.S)
CODE = re.compile(r"`[^`\n]+`")
NUMBER = re.compile(r"(\d+(?:[.,]\d+)*(?:e-?\d+)?)\s*(亿|万|billion|million|B\b|M\b|k\b)?")
SCALE = {"亿": 1e8, "万": 1e4, "billion": 1e9, "B": 1e9, "million": 1e6, "M": 1e6, "k": 1e3}
LATIN = re.compile(r"\[?[A-Za-z][\w.-]*\]?")
#: a Chinese option may differ from the width its English predicts by this share, and always by SLACK columns
TOLERANCE, SLACK = 0.5, 16
MISCONCEPTION = {"en": "Misconception:", "zh": "误解："}


def numbers(text: str) -> set[float]:
    """The numbers of ``text`` outside formulas and code, scaled by a unit word (亿, 万, M, B, k)."""
    text = CODE.sub(" ", MATH.sub(" ", text))
    found = set()
    for value, unit in NUMBER.findall(text):
        found.add(round(float(value.replace(",", "")) * SCALE.get(unit, 1), 6))
    return found


def formulas(text: str) -> list[str]:
    """The formulas and code spans of ``text``, sorted."""
    return sorted(MATH.findall(text) + CODE.findall(text))


def core_width(text: str, shared: set[str]) -> int:
    """The display width of ``text`` without its formulas, code, numbers and the Latin words in ``shared``."""
    text = plain_text(CODE.sub(" ", MATH.sub(" ", text)))
    text = LATIN.sub(lambda m: " " if m.group(0) in shared else m.group(0), NUMBER.sub(" ", text))
    return width(re.sub(r"\s+", " ", text).strip())


def pairing_problems(question) -> list[str]:
    """What differs between the English and the Chinese options of ``question``, one line per problem."""
    problems, widths = [], []
    for o in question.options:
        en, zh = o.text["en"], o.text["zh"]
        if numbers(en) != numbers(zh):
            problems.append(
                f"option {o.id}: numbers {sorted(numbers(en))} in English, {sorted(numbers(zh))} in Chinese"
            )
        if formulas(en) != formulas(zh):
            problems.append(
                f"option {o.id}: formulas or code {formulas(en)} in English, {formulas(zh)} in Chinese"
            )
        shared = set(LATIN.findall(plain_text(en))) & set(LATIN.findall(plain_text(zh)))
        widths.append((o.id, core_width(en, shared), core_width(zh, shared)))
    ratios = [z / e for _, e, z in widths if e]
    if len(ratios) < 2:
        return problems
    median = statistics.median(ratios)
    for option_id, e, z in widths:
        expected = median * e
        if abs(z - expected) > max(SLACK, TOLERANCE * expected):
            problems.append(
                f"option {option_id}: its Chinese is {z} columns wide where the other options' ratio predicts "
                f"about {expected:.0f}: does one language say more than the other?"
            )
    return problems


def misconception_problems(question) -> list[str]:
    """The wrong options of ``question`` whose explanation does not name a misconception, per language."""
    return [
        f"option {o.id} ({lang}): its explanation does not name the misconception ({MISCONCEPTION[lang]} …)"
        for o in question.options
        if not o.correct
        for lang in ("en", "zh")
        if MISCONCEPTION[lang] not in o.explanation[lang]
    ]


CHOICE = [(b.notebook, q) for b in BANKS for q in b.questions if q.type in ("single", "multiple")]


@pytest.mark.parametrize("bank", [b.notebook for b in BANKS])
def test_english_and_chinese_options_say_the_same(bank):
    problems = [f"{q.id}: {p}" for name, q in CHOICE if name == bank for p in pairing_problems(q)]
    assert not problems, f"{bank}.yaml:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("bank", [b.notebook for b in BANKS])
def test_every_distractor_names_its_misconception(bank):
    problems = [f"{q.id}: {p}" for name, q in CHOICE if name == bank for p in misconception_problems(q)]
    assert not problems, f"{bank}.yaml:\n  " + "\n  ".join(problems)


def _question(bank: str, qid: str):
    return next(q for name, q in CHOICE if name == bank and q.id == qid)


def _with_zh(question, option_id: str, zh: str):
    options = tuple(
        replace(o, text={**o.text, "zh": zh}) if o.id == option_id else o for o in question.options
    )
    return replace(question, options=options)


def test_numbers_match_across_units():
    assert numbers("110M and 340M") == numbers("1.1 亿和 3.4 亿（110M / 340M）")
    assert numbers("3.3 billion words") == numbers("33 亿词")
    assert numbers("0.1") != numbers("1") and numbers("$10^{-12}$") == set()


def test_a_translation_that_changes_an_option_is_found():
    q = _question("paper", "b-parameter-counts")
    assert pairing_problems(q) == []
    assert "numbers" in " ".join(pairing_problems(_with_zh(q, "a", "1.1 亿和 3.5 亿")))
    q = _question("01_self_attention_by_hand", "nn-linear")
    assert pairing_problems(q) == []
    assert "formulas" in " ".join(
        pairing_problems(_with_zh(q, "a", "$W^Q$ 的转置，形状为 $(d_k, d_\\text{model})$"))
    )
    q = _question("06_mini_pretraining", "why-warmup")
    assert pairing_problems(q) == []
    dropped = _with_zh(q, "a", "Adam 的更新不可靠")  # the post-LN model and the derailing are gone
    assert "columns wide" in " ".join(pairing_problems(dropped))


def test_a_distractor_without_its_misconception_is_found():
    q = _question("03_masking_strategy", "why-random")
    assert misconception_problems(q) == []
    wrong = next(o for o in q.options if not o.correct)
    bare = replace(
        wrong, explanation={"en": "No: the number of sequences is unchanged.", "zh": wrong.explanation["zh"]}
    )
    found = misconception_problems(replace(q, options=tuple(bare if o is wrong else o for o in q.options)))
    assert found == [
        f"option {wrong.id} (en): its explanation does not name the misconception (Misconception: …)"
    ]
