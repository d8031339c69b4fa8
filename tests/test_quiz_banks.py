"""Question banks: every shipped bank validates and is complete in both languages; malformed banks fail
with the file and the question id in the message; the UI strings are complete too."""

import copy
import re
import string
import unicodedata
from pathlib import Path

import pytest

from bertedu import language as i18n
from bertedu.teaching import quiz
from bertedu.teaching.quiz.banks import (
    BankError,
    _is_prose,
    bank_files,
    bank_from_data,
    bank_names,
    load_bank,
    load_bank_file,
    read_yaml,
    validate_bank_data,
    validate_bank_file,
)
from bertedu.teaching.quiz.core import correct_answer, grade
from bertedu.teaching.quiz.render import markdown_to_html, plain_text

ROOT = Path(__file__).resolve().parents[1]

BANK_FILES = bank_files()
CJK = re.compile(r"[\u3400-\u9fff]")


def test_banks_are_shipped():
    names = bank_names()
    assert "00_welcome" in names and "paper" in names
    assert [p.stem for p in BANK_FILES] == names


@pytest.mark.parametrize("path", BANK_FILES, ids=lambda p: p.name)
def test_bank_validates(path):
    assert validate_bank_file(path) == []
    bank = load_bank_file(path)
    assert bank.notebook == path.stem


def _strings(node, where="$"):
    """Every bilingual {en, zh} mapping in parsed YAML, with a path for messages."""
    if isinstance(node, dict):
        if set(node) & {"en", "zh"} and all(not isinstance(v, (dict, list)) for v in node.values()):
            yield where, node
        else:
            for k, v in node.items():
                yield from _strings(v, f"{where}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            label = v.get("id", i) if isinstance(v, dict) else i
            yield from _strings(v, f"{where}[{label}]")


@pytest.mark.parametrize("path", BANK_FILES, ids=lambda p: p.name)
def test_bank_is_bilingual(path):
    """Every human-readable string has non-empty English and Chinese, and the Chinese is Chinese."""
    data = read_yaml(path.read_text(encoding="utf-8"), path.name)
    missing = []
    for where, text in _strings(data):
        for lang in i18n.LANGUAGES:
            value = text.get(lang)
            if not isinstance(value, str) or not value.strip():
                missing.append(f"{path.name} {where}.{lang}")
        zh, en = text.get("zh"), text.get("en")
        if (
            isinstance(zh, str)
            and isinstance(en, str)
            and _is_prose(en)
            and len(en) > 25
            and not CJK.search(zh)
        ):
            missing.append(f"{path.name} {where}.zh looks untranslated: {zh!r}")
    assert not missing, "\n".join(missing)
    bank = load_bank_file(path)
    for q in bank.questions:
        assert q.prompt["en"] != q.prompt["zh"], q.id
        for o in q.options:
            assert o.explanation["en"] and o.explanation["zh"], q.id
    for c in bank.flashcards:
        assert CJK.search(c.front["zh"]) or CJK.search(c.back["zh"]), c.id


@pytest.mark.parametrize("path", BANK_FILES, ids=lambda p: p.name)
def test_every_question_is_answerable(path):
    """The reference answer scores 1, in both languages, and the texts render."""
    bank = load_bank_file(path)
    for q in bank.questions:
        for lang in i18n.LANGUAGES:
            r = grade(q, correct_answer(q), lang)
            assert r.is_correct and r.score == 1.0, (q.id, lang)
            assert markdown_to_html(q.prompt[lang]) and plain_text(q.prompt[lang])
        if q.type == "fill":
            n = len(re.findall(r"\[(?:blank|空)\s*\d+\]", q.prompt["en"]))
            assert n in (0, len(q.blanks)), f"{q.id}: prompt marks {n} blanks, bank has {len(q.blanks)}"


def test_paper_bank_covers_parts_a_to_f():
    bank = load_bank("paper")
    by_part = {p: [q for q in bank.questions if q.paper_part == p] for p in "ABCDEF"}
    assert len(bank.questions) >= 24
    for part, qs in by_part.items():
        assert len(qs) >= 4, part
    assert {q.type for q in bank.questions} == {"single", "multiple", "fill"}
    assert any(b.kind == "numeric" for q in bank.questions for b in q.blanks)
    decks = {d: [c for c in bank.flashcards if c.deck == d] for d in bank.decks()}
    for part in "abcdef":
        assert len(decks.get(f"part-{part}", [])) >= 4, part
    assert len(bank.flashcards) >= 24


def test_welcome_bank_has_each_type():
    bank = load_bank("00_welcome")
    assert 3 <= len(bank.questions) <= 4 and len(bank.flashcards) >= 2
    assert {"single", "multiple", "fill"} <= {q.type for q in bank.questions}
    assert any(b.kind == "numeric" for q in bank.questions for b in q.blanks)


def test_chinese_text_keeps_the_spaces_inside_code_spans():
    """YAML folding's spaces between Chinese characters are dropped, but a code span shows text exactly:
    the tokenizer's output `bert 很 好 用` must not read `bert 很好用` in the Chinese edition."""
    question = load_bank("02_tokens_and_embeddings").question("basic-tokenization")
    option = question.options[question.option_index("b")]
    assert "`bert 很 好 用`" in option.text["zh"], option.text["zh"]
    assert plain_text(option.text["zh"]) == plain_text(option.text["en"]) == "BERT 很好用 → bert 很 好 用"
    prompt = load_bank("02_tokens_and_embeddings").question("basic-tokenization").prompt["zh"]
    assert not re.search(r"[\u4e00-\u9fff] [\u4e00-\u9fff]", prompt.replace("`", "")), prompt


def only_maths_and_code(english: str) -> bool:
    """Whether an option's English is nothing but maths, code and punctuation (no word outside them)."""
    return not re.search(r"[A-Za-z]", re.sub(r"\$\$.+?\$\$|\$[^$]*\$|`[^`]*`", " ", english, flags=re.S))


def same_symbols(english: str, chinese: str) -> bool:
    """Equal once full-width punctuation is folded (``；`` is ``;``) and spaces are left out."""

    def fold(text: str) -> str:
        return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))

    return fold(english) == fold(chinese)


def glossed_options(banks) -> list[str]:
    """Options whose English is only maths or code but whose Chinese adds words: a gloss (“（三行相加后归一化）”)
    or a prefix (“写法：”) the English lacks, which can give the answer away in one language only."""
    return [
        f"{bank.notebook}/{q.id} option {o.id}: {o.text['zh']!r}"
        for bank in banks
        for q in bank.questions
        for o in q.options
        if only_maths_and_code(o.text["en"]) and not same_symbols(o.text["en"], o.text["zh"])
    ]


def test_an_option_of_only_maths_or_code_is_the_same_in_chinese():
    banks = [load_bank(name) for name in bank_names()]
    assert sum(only_maths_and_code(o.text["en"]) for b in banks for q in b.questions for o in q.options) > 10
    bad = glossed_options(banks)
    assert not bad, "a Chinese option says more than the English (drop the gloss):\n" + "\n".join(bad)


def test_the_gloss_check_finds_a_gloss_and_a_prefix_and_allows_full_width_punctuation():
    data = copy.deepcopy(GOOD)
    data["questions"][0]["options"][0]["text"] = {"en": "$a + b$", "zh": "$a + b$（相加）"}
    data["questions"][0]["options"][1]["text"] = {"en": "`x.view(B, T)`", "zh": "写法：`x.view(B, T)`"}
    assert len(glossed_options([bank_from_data(data, "42_sample.yaml")])) == 2
    data["questions"][0]["options"][0]["text"] = {"en": "$a$; $b$", "zh": "$a$；$b$"}
    data["questions"][0]["options"][1]["text"] = {"en": "`x.view(B, T)`", "zh": "`x.view(B, T)`"}
    assert glossed_options([bank_from_data(data, "42_sample.yaml")]) == []


def test_chinese_typography_of_bank_text():
    """No space after full-width punctuation or around emphasis of Chinese words (YAML folding and habit leave
    them); a blank line stays a paragraph break, a space before a Latin word in emphasis stays, code is exact."""
    data = copy.deepcopy(GOOD)
    data["questions"][0]["prompt"] = {
        "en": "Which one is right?",
        "zh": "RoBERTa 推测， BERT 的\n*结构*。 one 分给 *cat*，按 **检查答案** 会评分。\n\n第二段 `a。 b`",
    }
    prompt = bank_from_data(data, "42_sample.yaml").questions[0].prompt["zh"]
    assert prompt == "RoBERTa 推测，BERT 的*结构*。one 分给 *cat*，按**检查答案**会评分。\n\n第二段 `a。 b`"


def test_paper_facts_spot_check():
    """A few numbers the course states elsewhere, checked against the bank's answers."""
    bank = load_bank("paper")
    sizes = [b.value for b in bank.question("b-sizes").blanks]
    assert sizes == [12, 768, 12, 1024]
    assert [b.value for b in bank.question("c-mask-rates").blanks] == [15, 80, 10, 10]
    assert [b.value for b in bank.question("c-corpus").blanks] == [800, 2500]
    nsp = bank.question("c-nsp-pairs")
    label_option = next(o for o in nsp.options if "label 1 means IsNext" in o.text["en"])
    assert not label_option.correct  # HF / bertedu: 0 = IsNext


# ------------------------------------------------------------------------------------- malformations
def T(en):
    return {"en": en, "zh": f"中文{en}"}


GOOD = {
    "notebook": "42_sample",
    "title": T("Sample"),
    "questions": [
        {
            "id": "pick-one",
            "type": "single",
            "topic": "t",
            "paper_part": "C",
            "prompt": T("Which?"),
            "options": [
                {"text": T("a"), "correct": True, "explanation": T("because")},
                {"text": T("b"), "correct": False, "explanation": T("because not")},
            ],
        },
        {
            "id": "fill-it",
            "type": "fill",
            "prompt": T("x = [blank 1]"),
            "explanation": T("x is 2"),
            "blanks": [{"kind": "numeric", "value": 2, "tolerance": 0.1, "label": T("x")}],
        },
    ],
    "flashcards": [{"id": "card-1", "deck": "sample", "front": T("front"), "back": T("back")}],
}


def test_good_sample_is_valid():
    assert validate_bank_data(copy.deepcopy(GOOD), "42_sample.yaml") == []


def _broken(edit):
    data = copy.deepcopy(GOOD)
    edit(data)
    return data


def _q(data, i=0):
    return data["questions"][i]


MALFORMED = [
    (
        "two correct in single",
        lambda d: _q(d)["options"][1].update(correct=True),
        "question 'pick-one'",
        "exactly one correct option, found 2",
    ),
    (
        "no correct in multiple",
        lambda d: _q(d).update(type="multiple") or _q(d)["options"][0].update(correct=False),
        "question 'pick-one'",
        "at least one correct option",
    ),
    (
        "missing option explanation",
        lambda d: _q(d)["options"][0].pop("explanation"),
        "question 'pick-one': option 1",
        "'explanation' is missing",
    ),
    (
        "missing Chinese prompt",
        lambda d: _q(d)["prompt"].pop("zh"),
        "question 'pick-one'",
        "'prompt' is missing its 'zh' text",
    ),
    (
        "empty English option",
        lambda d: _q(d)["options"][1]["text"].update(en="  "),
        "question 'pick-one': option 2",
        "'text.en' is empty",
    ),
    (
        "untranslated explanation",
        lambda d: _q(d)["options"][0]["explanation"].update(en="because it is so", zh="because it is so"),
        "question 'pick-one': option 1",
        "no Chinese characters",
    ),
    ("duplicate id", lambda d: _q(d, 1).update(id="pick-one"), "question 'pick-one'", "duplicate id"),
    ("bad id", lambda d: _q(d).update(id="Pick_One"), "question 'Pick_One'", "lowercase letters"),
    ("unknown type", lambda d: _q(d).update(type="essay"), "question 'pick-one'", "'type' must be one of"),
    (
        "bad paper part",
        lambda d: _q(d).update(paper_part="G"),
        "question 'pick-one'",
        "'paper_part' must be one of",
    ),
    (
        "typo in a key",
        lambda d: _q(d).update(explaination=T("oops")),
        "question 'pick-one'",
        "unknown key(s) ['explaination']",
    ),
    (
        "fill without blanks",
        lambda d: _q(d, 1).update(blanks=[]),
        "question 'fill-it'",
        "non-empty list of 'blanks'",
    ),
    (
        "fill without explanation",
        lambda d: _q(d, 1).pop("explanation"),
        "question 'fill-it'",
        "required for fill questions",
    ),
    (
        "numeric without tolerance",
        lambda d: _q(d, 1)["blanks"][0].pop("tolerance"),
        "question 'fill-it': blank 1",
        "'tolerance' >= 0",
    ),
    (
        "numeric value as text",
        lambda d: _q(d, 1)["blanks"][0].update(value="two"),
        "question 'fill-it': blank 1",
        "number 'value'",
    ),
    (
        "text blank without answers",
        lambda d: _q(d, 1)["blanks"].append({"kind": "text", "answers": []}),
        "question 'fill-it': blank 2",
        "'answers' must be a non-empty list",
    ),
    (
        "unknown blank kind",
        lambda d: _q(d, 1)["blanks"][0].update(kind="date"),
        "question 'fill-it': blank 1",
        "'kind' must be one of text, numeric",
    ),
    (
        "one option only",
        lambda d: _q(d).update(options=_q(d)["options"][:1]),
        "question 'pick-one'",
        "at least 2 'options'",
    ),
    (
        "correct is a string",
        lambda d: _q(d)["options"][0].update(correct="yes"),
        "question 'pick-one': option 1",
        "'correct' must be true or false",
    ),
    (
        "card without back",
        lambda d: d["flashcards"][0].pop("back"),
        "flashcard 'card-1'",
        "'back' is missing",
    ),
    (
        "card without deck",
        lambda d: d["flashcards"][0].pop("deck"),
        "flashcard 'card-1'",
        "'deck' must be a name",
    ),
    ("question without id", lambda d: _q(d).pop("id"), "question #1", "'id' is missing"),
    (
        "notebook differs from file",
        lambda d: d.update(notebook="43_other"),
        "42_sample.yaml",
        "must equal the file name",
    ),
    # text the quiz renderer cannot show (reliability report #10; the glyph boxes of issue 16)
    (
        "NUL in a prompt",
        lambda d: _q(d)["prompt"].update(en="Which `\x000\x00` one?"),
        "question 'pick-one'",
        "'prompt.en' contains U+0000 (a control character)",
    ),
    (
        "bell character in an explanation",
        lambda d: _q(d)["options"][0]["explanation"].update(zh="因为\x07"),
        "question 'pick-one': option 1",
        "'explanation.zh' contains U+0007",
    ),
    (
        "zero-width space in the title",
        lambda d: d["title"].update(en="Sam\u200bple"),
        "42_sample.yaml",
        "'title.en' contains U+200B",
    ),
    (
        "emoji on a flashcard",
        lambda d: d["flashcards"][0]["back"].update(en="\U0001f4a1 back"),
        "flashcard 'card-1'",
        "'back.en' contains U+1F4A1",
    ),
    (
        "emoji variation selector in an option",
        lambda d: _q(d)["options"][1]["text"].update(en="b\u2714\ufe0f"),
        "question 'pick-one': option 2",
        "'text.en' contains U+2714",
    ),
    (
        "NUL in a blank's answer",
        lambda d: _q(d, 1)["blanks"].append({"kind": "text", "answers": ["ok", "x\x00"]}),
        "question 'fill-it': blank 2",
        "'answers' contains U+0000",
    ),
    (
        "control character in a blank's unit",
        lambda d: _q(d, 1)["blanks"][0].update(unit="%\x1b"),
        "question 'fill-it': blank 1",
        "'unit' contains U+001B",
    ),
    (
        "YAML turned text into a boolean",
        lambda d: _q(d)["options"][0]["text"].update(en=False),
        "question 'pick-one': option 1",
        "must be a string (quote it in YAML)",
    ),
]


@pytest.mark.parametrize("name, edit, where, what", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_bank_is_reported_with_file_and_id(name, edit, where, what):
    messages = validate_bank_data(_broken(edit), "42_sample.yaml")
    hits = [m for m in messages if m.startswith("42_sample.yaml") and where in m and what in m]
    assert hits, f"{name}: expected a message naming {where!r} and {what!r}, got {messages}"
    with pytest.raises(BankError) as err:
        bank_from_data(_broken(edit), "42_sample.yaml")
    assert where in str(err.value) and isinstance(err.value, ValueError)


def test_bank_file_errors(tmp_path: Path):
    bad = tmp_path / "42_sample.yaml"
    bad.write_text(
        "notebook: 42_sample\ntitle: {en: a, zh: 中}\nquestions:\n  - id: x\n    id: y\n", encoding="utf-8"
    )
    messages = validate_bank_file(bad)
    assert len(messages) == 1 and "42_sample.yaml" in messages[0] and "duplicate key 'id'" in messages[0]
    bad.write_text("questions: [unclosed", encoding="utf-8")
    assert "not valid YAML" in validate_bank_file(bad)[0]
    with pytest.raises(BankError, match="42_sample.yaml"):
        load_bank_file(bad)
    data = read_yaml("notebook: 42_sample\ntitle: {en: a, zh: 中}\n", "42_sample.yaml")
    with pytest.raises(BankError, match="neither questions nor flashcards"):
        bank_from_data(data, "42_sample.yaml")


def test_unknown_bank_and_question():
    with pytest.raises(ValueError, match="Banks available: .*00_welcome"):
        load_bank("03_no_such_bank")
    with pytest.raises(ValueError, match="no question 'nope'"):
        load_bank("00_welcome").question("nope")


# ---------------------------------------------------------------------------------------- UI strings
def test_ui_strings_complete_in_both_languages():
    problems = []
    for key, entry in i18n.UI.items():
        for lang in i18n.LANGUAGES:
            if key == "emphasis_style" and entry.get(lang) == "":  # a style; "": the browser's own
                continue
            if not isinstance(entry.get(lang), str) or not entry[lang].strip():
                problems.append(f"{key}.{lang} missing or empty")
        assert set(entry) == set(i18n.LANGUAGES), key
        fields = [{f for _, f, _, _ in string.Formatter().parse(entry[lang]) if f} for lang in i18n.LANGUAGES]
        if fields[0] != fields[1]:
            problems.append(f"{key}: placeholders differ between languages {fields}")
        if entry["en"] == entry["zh"] and re.search("[A-Za-z]{3}", entry["en"]):
            problems.append(f"{key}: Chinese is a copy of the English")
    assert not problems, "\n".join(problems)


def test_ui_strings_used_by_the_code_exist():
    src = "".join(
        p.read_text(encoding="utf-8") for p in (ROOT / "bertedu" / "teaching" / "quiz").glob("*.py")
    )
    used = set(re.findall(r"""\bt\(\s*["']([a-z_]+)["']""", src))
    used |= set(re.findall(r"""["']((?:need|kind|chose|blank|hint|solution|marked|col)_[a-z_]+)["']""", src))
    used -= {name for name in used if name.endswith("_class")}  # typed.py's CSS-class traits, not UI words
    assert used, "no t('...') calls found"
    assert used <= set(i18n.UI), sorted(used - set(i18n.UI))


def test_language_selection(monkeypatch):
    monkeypatch.delenv("BERTEDU_LANG", raising=False)
    i18n.set_language(None)
    assert i18n.get_language() == "en"
    monkeypatch.setenv("BERTEDU_LANG", "zh_CN")
    assert i18n.get_language() == "zh"
    assert quiz.set_language("EN") == "en" and i18n.get_language() == "en"
    i18n.set_language(None)
    monkeypatch.setenv("BERTEDU_LANG", "klingon")
    with pytest.warns(UserWarning, match="BERTEDU_LANG"):
        assert i18n.get_language() == "en"
    with pytest.raises(ValueError, match="Unknown language 'fr'"):
        i18n.set_language("fr")
    assert i18n.normalize_language("中文") == "zh"
    assert i18n.t("card_position", "zh", i=1, n=3) == "第 1 张，共 3 张"
    with pytest.raises(ValueError, match="No UI string"):
        i18n.t("no_such_key")


def test_markdown_subset_and_plain_text():
    html = markdown_to_html("**Bold** and *it* and `a<b` and $a_i < b_j$ [CLS]\n\n- one\n- two")
    assert "<strong>Bold</strong>" in html and "<em>it</em>" in html and "<code>a&lt;b</code>" in html
    assert "$a_i &lt; b_j$" in html and "[CLS]" in html and "<ul><li>one</li><li>two</li></ul>" in html
    assert markdown_to_html("logits = [blank 1] · T").count("(1)") == 1
    assert markdown_to_html("<script>x</script>").startswith("<p>&lt;script&gt;")
    assert (
        plain_text(r"softmax$(C W^\top)$, $\sqrt{d_k}$, $W \in \mathbb{R}^{K \times H}$")
        == "softmax(C Wᵀ), √d_k, W ∈ ℝ^K × H"
    )
    assert plain_text("**x** `y` [空 2]") == "x y ____(2)"
    # code spans are literal, even when they hold dollar signs
    assert "<code>$HOME</code> or <code>$BERTEDU_HOME</code>" in markdown_to_html(
        "`$HOME` or `$BERTEDU_HOME`"
    )
    assert plain_text("`$HOME` or `$BERTEDU_HOME`") == "$HOME or $BERTEDU_HOME"


def test_kept_symbols_are_accepted_in_banks():
    """✓ ✗ ☐ (drawn by DejaVu Sans, not emoji) may appear in bank text; tabs and newlines too."""
    data = copy.deepcopy(GOOD)
    _q(data)["prompt"].update(en="Which ✓ or ✗ or ☐?\tNext\nline")
    assert validate_bank_data(data, "42_sample.yaml") == []


QUESTION_WORD = re.compile(r"什么|怎|哪|多少|吗|如何|几|是否|谁|为何|呢")


def telegraphic_fronts(banks) -> list[str]:
    """Chinese card fronts that end in ？ without asking anything (“静态掩码与动态掩码？”, “RoBERTa？”): a noun
    phrase with a question mark reads as a heading with a stray ？ in Chinese."""
    return [
        f"{bank.notebook}/{card.id}: {card.front['zh']}"
        for bank in banks
        for card in bank.flashcards
        if card.front["zh"].rstrip().endswith("？") and not QUESTION_WORD.search(card.front["zh"])
    ]


def test_chinese_card_fronts_are_real_questions():
    banks = [load_bank(name) for name in bank_names()]
    bad = telegraphic_fronts(banks)
    assert not bad, "ask a question (“…有什么区别？”, “…是什么？”):\n" + "\n".join(bad)
    data = copy.deepcopy(GOOD)
    data["flashcards"][0]["front"] = {"en": "RoBERTa?", "zh": "RoBERTa？"}
    assert len(telegraphic_fronts([bank_from_data(data, "42_sample.yaml")])) == 1
    data["flashcards"][0]["front"] = {"en": "RoBERTa?", "zh": "RoBERTa 对 BERT 的训练做了哪些改动？"}
    assert telegraphic_fronts([bank_from_data(data, "42_sample.yaml")]) == []
