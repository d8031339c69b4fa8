"""Question banks: load ``bertedu/teaching/quiz/banks/*.yaml``, validate them, and turn them into objects.

The schema is written down in CONTRIBUTING.md ("Question bank schema"); :func:`validate_bank_data` is
that schema as code. It returns one message per problem, each naming the file and the question or card
id, e.g. ``03_masking_strategy.yaml: question 'select-fraction': single-choice needs exactly one
correct option, found 2``. :func:`load_bank` raises :class:`BankError` (a ``ValueError``) with all of them.
Every text field is also checked for characters the quiz cannot show
(:func:`bertedu.teaching.quiz.render.unrenderable`: control characters such as NUL, invisible format characters,
emoji), naming the field, e.g. ``question 'x': 'prompt.en' contains U+0000 (a control character) ...``.

Compatible extensions of the written schema (all optional):
- ``explanation`` on single/multiple questions: a general comment shown once the question is answered;
- ``topic`` may be omitted (defaults to the notebook name);
- numeric blanks: ``unit`` (a short symbol shown after the box, e.g. ``"%"`` or ``"M"``; a value given in
  that unit is read as is, so with ``unit: "%"`` both ``15`` and ``15%`` mean 15);
- text blanks: ``answers`` may also be ``{en: [...], zh: [...]}`` (both lists are accepted in either
  language), and ``case_sensitive: true`` turns off case folding;
- blank ``label`` may be omitted (defaults to "Blank 1" / "空 1");
- options: ``id``, the option's name for good (lowercase letters, digits, dashes; unique in the question).
  Progress, the class report and each student's order name options by it, so never rename one. Without it an
  option is named by its position (``a``, ``b``, ...), which changes when options move: every shipped bank
  names all its options (``python tools/shuffle_bank_options.py`` adds ids and sorts the options into an
  order that does not depend on which is right; a test checks both).

Introduced in notebook 00.
"""

from __future__ import annotations

import functools
import importlib.resources
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from bertedu.language import DEFAULT_LANGUAGE, HAN, HAN_LANGUAGES, LANGUAGES, tidy_spacing
from bertedu.teaching.quiz.render import unrenderable

Text = Mapping[str, str]  # {"en": ..., "zh": ...}

QUESTION_TYPES = ("single", "multiple", "fill")
BLANK_KINDS = ("text", "numeric")
PAPER_PARTS = ("A", "B", "C", "D", "E", "F")
ID_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
NOTEBOOK_PATTERN = re.compile(r"^(?:\d\d_[a-z0-9_]+|[a-z][a-z0-9_]*)$")
#: How a bank writes a text and a list of answers in every language (for messages).
BILINGUAL = "{" + ", ".join(f"{lang}: ..." for lang in LANGUAGES) + "}"
BILINGUAL_ANSWERS = "{" + ", ".join(f"{lang}: [...]" for lang in LANGUAGES) + "}"

_TOP_KEYS = {"notebook", "title", "questions", "flashcards"}
_QUESTION_KEYS = {"id", "type", "topic", "paper_part", "prompt", "options", "blanks", "explanation", "hint"}
_OPTION_KEYS = {"id", "text", "correct", "explanation"}
_TEXT_BLANK_KEYS = {"kind", "answers", "label", "case_sensitive"}
_NUMERIC_BLANK_KEYS = {"kind", "value", "tolerance", "label", "unit"}
_CARD_KEYS = {"id", "deck", "front", "back"}


class BankError(ValueError):
    """A question bank that does not follow the schema; the message lists every problem found."""

    def __init__(self, messages: Sequence[str]):
        self.messages = list(messages)
        super().__init__("Invalid question bank:\n  - " + "\n  - ".join(self.messages))


@dataclass(frozen=True)
class Option:
    """One choice of a single/multiple question: its id, its text, whether it is correct, and why.

    ``id`` names the option for good (progress, the class report, each student's order): unique in its
    question, lowercase letters, digits and dashes, never renamed.
    """

    id: str
    text: Text
    correct: bool
    explanation: Text


def legacy_option_id(position: int) -> str:
    """The id of the option that was at ``position`` (0-based) before options had ids: ``a``, ``b``, ... ``z``,
    then ``option-27`` ...

    Progress saved before then stored positions; ``tools/shuffle_bank_options.py`` named every option by its
    position at the time, so a saved position still finds its option after the banks were reordered.
    """
    if isinstance(position, bool) or not isinstance(position, int) or position < 0:
        raise ValueError(f"An option position is a whole number >= 0, got {position!r}.")
    return chr(ord("a") + position) if position < 26 else f"option-{position + 1}"


@dataclass(frozen=True)
class Blank:
    """One gap of a fill-in question: ``text`` (accepted answers) or ``numeric`` (value ± tolerance)."""

    kind: str
    label: Text | None = None
    answers: tuple[str, ...] = ()
    answers_by_language: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    case_sensitive: bool = False
    value: float | None = None
    tolerance: float | None = None
    unit: str | None = None


@dataclass(frozen=True)
class Question:
    """A quiz question as read from a bank (see the module docstring for the fields)."""

    id: str
    type: str
    notebook: str
    prompt: Text
    topic: str
    paper_part: str | None = None
    options: tuple[Option, ...] = ()
    blanks: tuple[Blank, ...] = ()
    explanation: Text | None = None
    hint: Text | None = None

    @property
    def correct_indices(self) -> tuple[int, ...]:
        """Indices of the correct options (empty for fill-in questions)."""
        return tuple(i for i, o in enumerate(self.options) if o.correct)

    @property
    def option_ids(self) -> tuple[str, ...]:
        """The options' ids, in bank order (empty for fill-in questions)."""
        return tuple(o.id for o in self.options)

    def option_index(self, option_id: str) -> int:
        """The bank position of the option named ``option_id``; a ``ValueError`` names the ids that exist."""
        try:
            return self.option_ids.index(option_id)
        except ValueError:
            raise ValueError(
                f"Question {self.id!r} has no option {option_id!r}; its options are {', '.join(self.option_ids)}."
            ) from None

    @property
    def key(self) -> str:
        """``notebook/id``: unique across the course."""
        return f"{self.notebook}/{self.id}"


@dataclass(frozen=True)
class Flashcard:
    """A card with a front (question) and a back (answer), filed in a deck."""

    id: str
    deck: str
    notebook: str
    front: Text
    back: Text


@dataclass(frozen=True)
class Bank:
    """All questions and flashcards of one notebook."""

    notebook: str
    title: Text
    questions: tuple[Question, ...]
    flashcards: tuple[Flashcard, ...]
    source: str = ""

    def question(self, qid: str) -> Question:
        """The question with id ``qid``; a ``ValueError`` lists the ids that exist if there is none."""
        for q in self.questions:
            if q.id == qid:
                return q
        ids = ", ".join(q.id for q in self.questions) or "(none)"
        raise ValueError(f"Bank {self.notebook!r} has no question {qid!r}. Its questions: {ids}.")

    def decks(self) -> list[str]:
        """Deck names in order of first appearance."""
        return list(dict.fromkeys(c.deck for c in self.flashcards))


# --------------------------------------------------------------------------------------------- loading


class _UniqueKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """A safe YAML loader (libyaml's when available) that rejects a key written twice in one mapping."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _banks_dir():
    return importlib.resources.files("bertedu.teaching.quiz") / "banks"


def bank_names() -> list[str]:
    """Names of the banks shipped with the package (file names without ``.yaml``), sorted."""
    return sorted(p.name[: -len(".yaml")] for p in _banks_dir().iterdir() if p.name.endswith(".yaml"))


def bank_files() -> list[Path]:
    """Paths of every bank file shipped with the package (for the validation tests)."""
    return [Path(str(_banks_dir() / f"{name}.yaml")) for name in bank_names()]


def read_yaml(text: str, source: str) -> Any:
    """Parse YAML text; a syntax error or a repeated key becomes a :class:`BankError` naming ``source``."""
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a safe loader subclass
    except yaml.YAMLError as err:
        raise BankError([f"{source}: not valid YAML: {err}"]) from None


def validate_bank_file(path: str | Path) -> list[str]:
    """Every schema problem of the bank file at ``path`` (an empty list when it is valid)."""
    path = Path(path)
    try:
        data = read_yaml(path.read_text(encoding="utf-8"), path.name)
    except BankError as err:
        return err.messages
    return validate_bank_data(data, path.name)


def load_bank_file(path: str | Path) -> Bank:
    """Load and validate one bank file; raises :class:`BankError` listing every problem."""
    path = Path(path)
    data = read_yaml(path.read_text(encoding="utf-8"), path.name)
    return bank_from_data(data, path.name)


@functools.cache
def load_bank(notebook: str) -> Bank:
    """The bank of ``notebook`` (e.g. ``"03_masking_strategy"`` or ``"paper"``), validated and cached.

    Raises ``ValueError`` naming the banks that exist when there is no such bank.
    """
    if not isinstance(notebook, str) or not notebook:
        raise ValueError(f"A bank name is a string such as '00_welcome', got {notebook!r}.")
    name = notebook[:-5] if notebook.endswith(".yaml") else notebook
    name = name[:-6] if name.endswith(".ipynb") else name
    names = bank_names()
    if name not in names:
        raise ValueError(
            f"No question bank named {notebook!r}. Banks available: {', '.join(names) or '(none)'}."
        )
    resource = _banks_dir() / f"{name}.yaml"
    data = read_yaml(resource.read_text(encoding="utf-8"), f"{name}.yaml")
    return bank_from_data(data, f"{name}.yaml")


def load_all() -> list[Bank]:
    """Every shipped bank, in name order."""
    return [load_bank(name) for name in bank_names()]


def bank_from_data(data: Any, source: str) -> Bank:
    """Validate parsed YAML and build a :class:`Bank`; raises :class:`BankError` on any problem."""
    problems = validate_bank_data(data, source)
    if problems:
        raise BankError(problems)
    notebook = data["notebook"]
    questions = tuple(_question(q, notebook) for q in data.get("questions") or [])
    cards = tuple(
        Flashcard(
            id=c["id"], deck=c["deck"], notebook=notebook, front=_text(c["front"]), back=_text(c["back"])
        )
        for c in data.get("flashcards") or []
    )
    return Bank(
        notebook=notebook, title=_text(data["title"]), questions=questions, flashcards=cards, source=source
    )


def _text(value: Mapping[str, str] | None) -> Text | None:
    """Strip a bilingual string; drop the spaces its languages' typography does not have (Chinese: between two
    Chinese characters, after full-width punctuation, around emphasis of Chinese words; not in `code spans`):
    :func:`bertedu.language.tidy_spacing`."""
    if value is None:
        return None
    return {lang: tidy_spacing(value[lang].strip(), lang) for lang in LANGUAGES}


def _question(q: Mapping[str, Any], notebook: str) -> Question:
    options = tuple(
        Option(
            id=o.get("id") or legacy_option_id(k),
            text=_text(o["text"]),
            correct=bool(o.get("correct", False)),
            explanation=_text(o["explanation"]),
        )
        for k, o in enumerate(q.get("options") or [])
    )
    blanks = []
    for b in q.get("blanks") or []:
        if b["kind"] == "text":
            raw = b["answers"]
            if isinstance(raw, Mapping):
                by_lang = {lang: tuple(str(a) for a in raw.get(lang) or []) for lang in raw}
                answers = tuple(dict.fromkeys(a for lang in by_lang for a in by_lang[lang]))
            else:
                answers = tuple(str(a) for a in raw)
                by_lang = {}
            blanks.append(
                Blank(
                    kind="text",
                    label=_text(b.get("label")),
                    answers=answers,
                    answers_by_language=by_lang,
                    case_sensitive=bool(b.get("case_sensitive", False)),
                )
            )
        else:
            blanks.append(
                Blank(
                    kind="numeric",
                    label=_text(b.get("label")),
                    value=float(b["value"]),
                    tolerance=float(b["tolerance"]),
                    unit=b.get("unit"),
                )
            )
    return Question(
        id=q["id"],
        type=q["type"],
        notebook=notebook,
        prompt=_text(q["prompt"]),
        topic=str(q.get("topic") or notebook),
        paper_part=q.get("paper_part"),
        options=options,
        blanks=tuple(blanks),
        explanation=_text(q.get("explanation")),
        hint=_text(q.get("hint")),
    )


# ------------------------------------------------------------------------------------------ validation


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


def _is_prose(text: str) -> bool:
    """Whether an English text has words to translate once math and code are left out (3+ words)."""
    prose = re.sub(r"\$\$.+?\$\$|\$[^$]*\$|`[^`]*`", " ", text, flags=re.S)
    return len(re.findall(r"[A-Za-z]{2,}", prose)) >= 3


def _check_text(value: Any, where: str, field_name: str, out: list[str], *, sentence: bool = False) -> None:
    """A bilingual string: a mapping with non-empty ``en`` and ``zh`` strings and nothing else."""
    if not isinstance(value, Mapping):
        out.append(f"{where}: '{field_name}' must be a mapping {BILINGUAL}, got {type(value).__name__}")
        return
    for lang in LANGUAGES:
        text = value.get(lang)
        if lang not in value:
            out.append(f"{where}: '{field_name}' is missing its '{lang}' text")
        elif not isinstance(text, str):
            out.append(f"{where}: '{field_name}.{lang}' must be a string (quote it in YAML), got {text!r}")
        elif not text.strip():
            out.append(f"{where}: '{field_name}.{lang}' is empty")
        else:
            _check_chars(text, where, f"{field_name}.{lang}", out)
    extra = sorted(set(map(str, value)) - set(LANGUAGES))
    if extra:
        out.append(f"{where}: '{field_name}' has unknown language key(s) {extra}; use {list(LANGUAGES)}")
    english = value.get(DEFAULT_LANGUAGE)
    if not (sentence and isinstance(english, str) and _is_prose(english)):
        return
    for lang in HAN_LANGUAGES & set(LANGUAGES):
        text = value.get(lang)
        if isinstance(text, str) and text.strip() and not HAN.search(text):
            out.append(
                f"{where}: '{field_name}.{lang}' has no Chinese characters; is the translation missing?"
            )


def _check_chars(text: str, where: str, field_name: str, out: list[str]) -> None:
    """Refuse characters the quiz cannot show (control characters, emoji...; see ``render.unrenderable``)."""
    problem = unrenderable(text)
    if problem:
        out.append(f"{where}: '{field_name}' contains {problem}; the quiz cannot show it, remove it")


def _check_keys(item: Mapping, allowed: set[str], where: str, out: list[str]) -> None:
    extra = sorted(set(map(str, item)) - allowed)
    if extra:
        out.append(f"{where}: unknown key(s) {extra}; allowed keys are {sorted(allowed)}")


def validate_bank_data(data: Any, source: str) -> list[str]:
    """Check parsed bank data against the schema; one message per problem, naming ``source`` and ids.

    ``source`` is the file name (``03_masking_strategy.yaml``); ``notebook`` must equal its stem.
    """
    out: list[str] = []
    if not isinstance(data, Mapping):
        return [f"{source}: the file must hold a mapping with 'notebook', 'title' and 'questions'"]
    _check_keys(data, _TOP_KEYS, source, out)
    stem = Path(source).name.rsplit(".", 1)[0]
    notebook = data.get("notebook")
    if not isinstance(notebook, str) or not NOTEBOOK_PATTERN.match(notebook):
        out.append(
            f"{source}: 'notebook' must be the file name without .yaml (e.g. '03_masking_strategy'), got {notebook!r}"
        )
    elif notebook != stem:
        out.append(
            f"{source}: 'notebook' is {notebook!r} but must equal the file name without .yaml ({stem!r})"
        )
    if "title" not in data:
        out.append(f"{source}: 'title' is missing")
    else:
        _check_text(data["title"], source, "title", out)

    questions = data.get("questions", [])
    cards = data.get("flashcards", [])
    if questions is None:
        questions = []
    if cards is None:
        cards = []
    if not isinstance(questions, list):
        out.append(f"{source}: 'questions' must be a list")
        questions = []
    if not isinstance(cards, list):
        out.append(f"{source}: 'flashcards' must be a list")
        cards = []
    if not questions and not cards:
        out.append(f"{source}: the bank has neither questions nor flashcards")

    seen: set[str] = set()
    for n, q in enumerate(questions, 1):
        _validate_question(q, n, source, seen, out)
    seen_cards: set[str] = set()
    for n, c in enumerate(cards, 1):
        _validate_card(c, n, source, seen_cards, out)
    return out


def _item_id(item: Any, n: int, kind: str, source: str, seen: set[str], out: list[str]) -> str:
    """Check an item's id and return a label for messages: ``"file: question 'x'"``."""
    qid = item.get("id") if isinstance(item, Mapping) else None
    if not isinstance(qid, str) or not qid:
        where = f"{source}: {kind} #{n}"
        out.append(f"{where}: 'id' is missing (lowercase letters, digits and dashes)")
        return where
    where = f"{source}: {kind} '{qid}'"
    if not ID_PATTERN.match(qid):
        out.append(f"{where}: id must use lowercase letters, digits and single dashes only")
    if qid in seen:
        out.append(f"{where}: duplicate id (ids must be unique in a bank)")
    seen.add(qid)
    return where


def _validate_question(q: Any, n: int, source: str, seen: set[str], out: list[str]) -> None:
    if not isinstance(q, Mapping):
        out.append(f"{source}: question #{n} must be a mapping, got {type(q).__name__}")
        return
    where = _item_id(q, n, "question", source, seen, out)
    _check_keys(q, _QUESTION_KEYS, where, out)
    qtype = q.get("type")
    if qtype not in QUESTION_TYPES:
        out.append(f"{where}: 'type' must be one of {list(QUESTION_TYPES)}, got {qtype!r}")
    if "topic" in q and (not isinstance(q["topic"], str) or not q["topic"].strip()):
        out.append(f"{where}: 'topic' must be a non-empty string")
    if "paper_part" in q and q["paper_part"] not in PAPER_PARTS:
        out.append(f"{where}: 'paper_part' must be one of {'/'.join(PAPER_PARTS)}, got {q['paper_part']!r}")
    if "prompt" not in q:
        out.append(f"{where}: 'prompt' is missing")
    else:
        _check_text(q["prompt"], where, "prompt", out, sentence=True)
    if "hint" in q:
        _check_text(q["hint"], where, "hint", out, sentence=True)
    if "explanation" in q:
        _check_text(q["explanation"], where, "explanation", out, sentence=True)

    if qtype in ("single", "multiple"):
        if "blanks" in q:
            out.append(f"{where}: a {qtype}-choice question has 'options', not 'blanks'")
        options = q.get("options")
        if not isinstance(options, list) or len(options) < 2:
            out.append(f"{where}: a {qtype}-choice question needs a list of at least 2 'options'")
            return
        n_correct = 0
        option_ids: set[str] = set()
        for k, o in enumerate(options, 1):
            ow = f"{where}: option {k}"
            if not isinstance(o, Mapping):
                out.append(f"{ow} must be a mapping with 'id', 'text', 'correct' and 'explanation'")
                continue
            _check_keys(o, _OPTION_KEYS, ow, out)
            _check_option_id(o.get("id", legacy_option_id(k - 1)), ow, option_ids, out)
            if "text" not in o:
                out.append(f"{ow}: 'text' is missing")
            else:
                _check_text(o["text"], ow, "text", out)
            if "correct" in o and not isinstance(o["correct"], bool):
                out.append(f"{ow}: 'correct' must be true or false, got {o['correct']!r}")
            n_correct += o.get("correct") is True
            if "explanation" not in o:
                out.append(f"{ow}: 'explanation' is missing (every option explains why it is right or wrong)")
            else:
                _check_text(o["explanation"], ow, "explanation", out, sentence=True)
        texts = [
            o["text"].get("en")
            for o in options
            if isinstance(o, Mapping) and isinstance(o.get("text"), Mapping)
        ]
        if len(texts) != len(set(texts)):
            out.append(f"{where}: two options have the same English text")
        if qtype == "single" and n_correct != 1:
            out.append(f"{where}: single-choice needs exactly one correct option, found {n_correct}")
        if qtype == "multiple" and n_correct < 1:
            out.append(f"{where}: multiple-choice needs at least one correct option, found 0")
    elif qtype == "fill":
        if "options" in q:
            out.append(f"{where}: a fill question has 'blanks', not 'options'")
        if "explanation" not in q:
            out.append(f"{where}: 'explanation' is missing (required for fill questions)")
        blanks = q.get("blanks")
        if not isinstance(blanks, list) or not blanks:
            out.append(f"{where}: a fill question needs a non-empty list of 'blanks'")
            return
        for k, b in enumerate(blanks, 1):
            _validate_blank(b, f"{where}: blank {k}", out)


def _check_option_id(option_id: Any, ow: str, seen: set[str], out: list[str]) -> None:
    """An option's ``id`` (its letter by position when it has none): lowercase letters, digits and dashes,
    unique in its question."""
    if not isinstance(option_id, str) or not option_id:
        out.append(f"{ow}: 'id' must be a short name such as 'e' (unique in the question), got {option_id!r}")
        return
    if not ID_PATTERN.match(option_id):
        out.append(f"{ow}: 'id' must use lowercase letters, digits and single dashes only, got {option_id!r}")
    if option_id in seen:
        out.append(f"{ow}: duplicate option id {option_id!r} (option ids must be unique in a question)")
    seen.add(option_id)


def _validate_blank(b: Any, bw: str, out: list[str]) -> None:
    if not isinstance(b, Mapping):
        out.append(f"{bw} must be a mapping with 'kind' text or numeric")
        return
    kind = b.get("kind")
    if "label" in b:
        _check_text(b["label"], bw, "label", out)
    if kind == "text":
        _check_keys(b, _TEXT_BLANK_KEYS, bw, out)
        answers = b.get("answers")
        lists = list(answers.values()) if isinstance(answers, Mapping) else [answers]
        if isinstance(answers, Mapping) and set(map(str, answers)) - set(LANGUAGES):
            out.append(f"{bw}: 'answers' by language may only use the keys {list(LANGUAGES)}")
        ok = bool(lists) and all(
            isinstance(lst, list)
            and lst
            and all(isinstance(a, (str, int, float)) and str(a).strip() for a in lst)
            for lst in lists
        )
        if not ok:
            out.append(
                f"{bw}: 'answers' must be a non-empty list of non-empty strings (or {BILINGUAL_ANSWERS})"
            )
        else:
            for lst in lists:
                for a in lst:
                    _check_chars(str(a), bw, "answers", out)
        if "case_sensitive" in b and not isinstance(b["case_sensitive"], bool):
            out.append(f"{bw}: 'case_sensitive' must be true or false")
    elif kind == "numeric":
        _check_keys(b, _NUMERIC_BLANK_KEYS, bw, out)
        if not _is_number(b.get("value")):
            out.append(f"{bw}: a numeric blank needs a number 'value', got {b.get('value')!r}")
        tol = b.get("tolerance")
        if not _is_number(tol) or tol < 0:
            out.append(f"{bw}: a numeric blank needs a 'tolerance' >= 0 (e.g. 0.005), got {tol!r}")
        if "unit" in b and (not isinstance(b["unit"], str) or not b["unit"].strip() or len(b["unit"]) > 12):
            out.append(f"{bw}: 'unit' must be a short string such as '%' or 'M'")
        elif "unit" in b:
            _check_chars(b["unit"], bw, "unit", out)
    else:
        out.append(f"{bw}: 'kind' must be one of {', '.join(BLANK_KINDS)}, got {kind!r}")


def _validate_card(c: Any, n: int, source: str, seen: set[str], out: list[str]) -> None:
    if not isinstance(c, Mapping):
        out.append(f"{source}: flashcard #{n} must be a mapping with 'id', 'deck', 'front' and 'back'")
        return
    where = _item_id(c, n, "flashcard", source, seen, out)
    _check_keys(c, _CARD_KEYS, where, out)
    deck = c.get("deck")
    if not isinstance(deck, str) or not ID_PATTERN.match(deck):
        out.append(f"{where}: 'deck' must be a name like 'masking' or 'part-a', got {deck!r}")
    for side in ("front", "back"):
        if side not in c:
            out.append(f"{where}: '{side}' is missing")
        else:
            _check_text(c[side], where, side, out)
