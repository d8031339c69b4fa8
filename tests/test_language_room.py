"""The course's language has one room, on the ground floor: ``bertedu/language`` (the setting, ``msg``, the
catalogs, the one table of UI words). Issue 41, from the architecture review of 2026-12-06 (§6): 29 source files
outside the catalogs knew the language, through two ``msg`` runtimes joined by a hook filled at import.

- Few files outside the room know the language (:data:`KNOWN`, at most 5), counted by one rule, :func:`knows`:
  a source file (Python, JavaScript, HTML scripts, CSS; not tests, not the catalogs' data) whose code (not its
  comments or docstrings) holds Chinese text or punctuation (a character of :data:`CJK`: Han, CJK punctuation
  such as 。，、「」, full-width forms, kana, Hangul), a ``\\u`` escape of such a character or of a range's end
  (``r"[\\u4e00-\\u9fff]"``, ``"\\uff0c"``), or names the language code ``zh`` (``"zh"``, ``zh-CN``, ``notebooks/zh``,
  ``zh_total``, ``--zh``). The CJK knowledge itself (which characters are Han, the IME's punctuation, the
  ranges, display width) lives in ``bertedu/language/script.py``.
  Scope: the rule counts what the code knows of the script and the language code, not what it depends on: a
  font's name (``"Noto Sans CJK SC"`` in ``bertedu/teaching/viz/_core.py`` and ``slides/deck.css``, chosen
  through ``language.writes_han``) is not counted, and neither is U+3000, the ideographic space, which Unicode's
  list of whitespace holds (``web/minibert/tokenizer.js`` copies Python's ``str.isspace``).
- The training layer speaks the student's language whatever was imported first (no hook, no second ``msg``).
- Every UI word the code asks for is in the table, in every language.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bertedu import language
from bertedu.language.words import UI

ROOT = Path(__file__).resolve().parents[1]
SOURCE_SUFFIXES = (".py", ".js", ".mjs", ".html", ".css")
#: Not scanned: the room itself, the tests, the notebooks (generated or data), JavaScript's own tests.
NOT_SCANNED = ("bertedu/language/", "tests/", "notebooks/")
#: The characters of CJK text (U+3000, the ideographic space, left out: it is whitespace): CJK radicals to unified
#: ideographs (with 。，、「」 and kana), Hangul, compatibility ideographs, vertical and small forms, full-width forms.
CJK_RANGES = (
    (0x2E80, 0x2FFF),
    (0x3001, 0x9FFF),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
    (0xFE10, 0xFE6F),
    (0xFF00, 0xFFEF),
)
CJK = re.compile("[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in CJK_RANGES) + "]")
#: A \\u escape written in the code (JavaScript, a raw Python string): \\uXXXX, \\u{XXXX}, \\x{XXXX}.
ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\u\{([0-9a-fA-F]{4,5})\}|\\x\{([0-9a-fA-F]{4})\}")


def cjk_text(text: str) -> bool:
    """Whether ``text`` holds a CJK character (:data:`CJK`) or the ``\\u`` escape of one (a range's ends too)."""
    escaped = (int("".join(digits), 16) for digits in ESCAPE.findall(text))
    return bool(CJK.search(text)) or any(lo <= c <= hi for c in escaped for lo, hi in CJK_RANGES)


ZH = re.compile(r"(?<![A-Za-z])zh(?![A-Za-z])")

#: The files outside bertedu/language that know the language, and why (the goal of issue 41: at most 5).
KNOWN = {
    "tools/translate.py": "builds the Chinese edition of the notebooks from translations/zh/ (the prose catalogs' tool)",
    "web/quiz/grader.js": "the JavaScript port of the quiz's grader: Chinese number words (万, 约, 个), kept equal "
    "to bertedu/language/words.py by tests/test_web_quiz.py's parity cases",
    "web/quiz/markdown.js": "the JavaScript port of the quiz's Markdown: the [空 1] blank marker",
    # TEMPORARY (issue 39 rewrites benchmarks/): the course-time benchmark times the Chinese edition too
    "benchmarks/bench_course.py": "times the notebooks of notebooks/zh",
    "benchmarks/run_all.py": "reports the Chinese edition's times (中文版)",
}


def _python_texts(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string literal that is not a docstring, and of every name, of Python ``source``."""
    tree = ast.parse(source)
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            out.append((node.lineno, node.value))
        elif isinstance(node, ast.Name):
            out.append((node.lineno, node.id))
        elif isinstance(node, ast.Attribute):
            out.append((node.lineno, node.attr))
        elif isinstance(node, (ast.arg, ast.keyword)) and node.arg:
            out.append((node.lineno, node.arg))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append((node.lineno, node.name))
    return out


def _script_texts(source: str, suffix: str) -> list[tuple[int, str]]:
    """(line, text) of the code of JavaScript, CSS or an HTML page's scripts: comments removed (block comments
    and ``//`` comments that start a line or follow a space; an HTML page's prose is documentation)."""
    if suffix == ".html":
        kept = [
            "\n" * part.count("\n") for part in re.split(r"<script\b[^>]*>.*?</script>", source, flags=re.S)
        ]
        scripts = [m.group(0) for m in re.finditer(r"<script\b[^>]*>.*?</script>", source, flags=re.S)]
        source = "".join(k + (scripts[i] if i < len(scripts) else "") for i, k in enumerate(kept))
    source = re.sub(r"(^|[ \t])/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), source, flags=re.S | re.M)
    source = re.sub(r"(^|[ \t])//.*$", "", source, flags=re.M)
    return list(enumerate(source.split("\n"), start=1))


def knows(path: Path) -> list[str]:
    """Where the code of ``path`` holds Chinese text or the language code ``zh`` (``"line: text"``)."""
    source = path.read_text(encoding="utf-8")
    texts = _python_texts(source) if path.suffix == ".py" else _script_texts(source, path.suffix)
    return [f"{line}: {text.strip()[:60]}" for line, text in texts if cjk_text(text) or ZH.search(text)]


#: The folders of source files (the rest of the repository is data, documentation, tests or generated).
SOURCE_FOLDERS = ("bertedu", "tools", "benchmarks", "web", "site", "hub", "data", "slides")
SKIPPED_PARTS = {"__pycache__", "node_modules", "_build", ".ipynb_checkpoints"}


def scanned_files(root: Path = ROOT) -> list[Path]:
    """The repository's source files outside the language room."""
    return [
        path
        for folder in SOURCE_FOLDERS
        for path in sorted((root / folder).rglob("*"))
        if path.suffix in SOURCE_SUFFIXES
        and path.is_file()
        and not SKIPPED_PARTS & set(path.parts)
        and not path.relative_to(root).as_posix().startswith(NOT_SCANNED)
        and not path.name.endswith(".test.mjs")
    ]


def test_few_files_outside_the_language_room_know_the_language():
    found = {path.relative_to(ROOT).as_posix(): knows(path) for path in scanned_files()}
    found = {name: where for name, where in found.items() if where}
    unexpected = {name: where[:3] for name, where in found.items() if name not in KNOWN}
    assert not unexpected, (
        "these files know the language: move their words into bertedu/language (the catalogs, words.py) and "
        f"read them from there:\n{json.dumps(unexpected, ensure_ascii=False, indent=1)}"
    )
    assert sorted(found) == sorted(KNOWN), (
        f"no longer knows the language (remove it from KNOWN): {set(KNOWN) - set(found)}"
    )
    assert len(KNOWN) <= 5


@pytest.mark.parametrize(
    "suffix, source, expected",
    [
        (".py", 'x = "中文"\n', ["1: 中文"]),
        (".py", 'if lang == "zh":\n    pass\n', ["1: zh"]),
        (".py", 'FOLDER = "notebooks/zh"\nzh_total = 1\n', ["1: notebooks/zh", "2: zh_total"]),
        (".py", '"""中文 in a docstring, zh too."""\n# 中文 in a comment\nzhong = "zhe"\n', []),
        (".py", 'END = "x。，、"\nIME = re.compile(r"(?<=\\d)。")\n', ["1: x。，、", "2: (?<=\\d)。"]),
        (".py", 'RUN = r"[\\u4e00-\\u9fff]+"\nWIDE = "\\uff0c"\n', ["1: [\\u4e00-\\u9fff]+", "2: ，"]),
        (".py", 'SPACE = r"\\u3000\\u2028"\nDASH = "\\u2014"\nFONT = "Noto Sans CJK SC"\n', []),
        (
            ".js",
            'const CJK = "\\\\u2e80-\\\\u9fff";\nconst s = /\\u{ff0c}/u;\n',
            ['1: const CJK = "\\\\u2e80-\\\\u9fff";', "2: const s = /\\u{ff0c}/u;"],
        ),
        (
            ".js",
            'const a = "中文"; // 中文\n/* zh */\nconst b = lang === "zh";\n',
            ['1: const a = "中文";', '3: const b = lang === "zh";'],
        ),
        (
            ".html",
            "<p>?lang=zh starts in Chinese</p>\n<script>\nconst l = 'zh';\n</script>\n",
            ["3: const l = 'zh';"],
        ),
        (
            ".css",
            "/* Chinese: zh */\n:lang(zh) em { font-style: normal; }\n",
            ["2: :lang(zh) em { font-style: normal; }"],
        ),
    ],
)
def test_the_rule_sees_chinese_text_and_the_language_code_in_code_only(tmp_path, suffix, source, expected):
    path = tmp_path / f"probe{suffix}"
    path.write_text(source, encoding="utf-8")
    assert knows(path) == expected


# ----------------------------------------------------------------------------------------------------------
# One runtime: the training layer speaks the language, whatever was imported first


def test_there_is_one_msg_and_the_training_layer_uses_it():
    from bertedu.training import diagnose, finetune, pretrain

    assert diagnose.msg is pretrain.msg is finetune.msg is language.msg
    defined = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in sorted((ROOT / "bertedu").rglob("*.py"))
        if "language" not in path.relative_to(ROOT / "bertedu").parts[:1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef) and node.name in ("msg", "install_translation")
    ]
    assert defined == [], f"a second msg or translation hook: {defined}"


IMPORT_ORDER_PROBE = """
import sys
from bertedu.training.pretrain import pretrain, msg
from bertedu.training.diagnose import Diagnosis
from bertedu.language import set_language
{switch}
loaded = sorted(m for m in sys.modules if m.startswith(("bertedu.teaching", "bertedu.course")))
print(repr(loaded))
print(msg("pretraining"))
print(str(Diagnosis([], compared=4, every=10)))
"""


@pytest.mark.integration
@pytest.mark.parametrize("how", ["set_language", "BERTEDU_LANG"])
def test_the_training_layer_alone_speaks_chinese(how):
    """A script that imports only the training layer and asks for Chinese gets Chinese (the review: under
    BERTEDU_LANG=zh, ``from bertedu.training.pretrain import pretrain`` showed an English progress bar, because
    the translation hook was filled only once bertedu.teaching.i18n had been imported)."""
    env = {k: v for k, v in os.environ.items() if k != "BERTEDU_LANG"}
    if how == "BERTEDU_LANG":
        env["BERTEDU_LANG"] = "zh"
    switch = 'set_language("zh")' if how == "set_language" else ""
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_ORDER_PROBE.format(switch=switch)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    loaded, bar, report = done.stdout.strip().split("\n")
    assert loaded == "[]", f"the training layer imported the teaching layer or the course: {loaded}"
    assert bar == "预训练"
    assert report.startswith("你的损失曲线都在参考带之内") and "第 1-40 步" in report, report


# ----------------------------------------------------------------------------------------------------------
# One table of UI words


def test_the_language_names_are_declared_for_every_language():
    for key in ("language_name", "language_label", "html_lang"):
        assert set(UI[key]) == set(language.LANGUAGES) and all(UI[key].values()), key
    assert language.t("html_lang", "zh") == "zh-CN" and language.t("language_label", "en") == "EN"


def used_python_words(root: Path = ROOT) -> dict[str, str]:
    """{key: where} of every ``t("key", ...)`` call with a literal key in bertedu/ and tools/."""
    found = {}
    for path in sorted([*(root / "bertedu").rglob("*.py"), *(root / "tools").glob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", getattr(node.func, "attr", None)) == "t"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                found.setdefault(node.args[0].value, f"{path.relative_to(root)}:{node.lineno}")
    return found


def used_script_words(root: Path = ROOT) -> dict[str, str]:
    """{key: where} of the UI words the web pages' scripts ask for: ``t(ui, "key"``, ``ui.key`` of the table,
    and the mini-BERT page's ``say("key"`` (its words are ``minibert_key``)."""
    found = {}
    for path in [*(root / "web").rglob("*.js"), root / "site" / "_static" / "bertedu-site.js"]:
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(root).as_posix()
        for key in re.findall(r"""\bt\(\s*(?:ui|uiData\.ui|opts\.ui)\s*,\s*["']([\w-]+)["']""", text):
            found.setdefault(key, where)
        for key in re.findall(r"""\bui\.(\w+)\[""", text):
            found.setdefault(key, where)
        for key in re.findall(r"""\bsay\(\s*["'](\w+)["']""", text):
            found.setdefault(f"minibert_{key}", where)
    return found


def test_every_ui_word_the_code_asks_for_is_in_the_table():
    python, scripts = used_python_words(), used_script_words()
    assert {"site_project", "slides_index", "student_note", "lab_starting", "emphasis_style"} <= set(python)
    assert {"quiz_export", "language_label", "html_lang", "minibert_intro", "check"} <= set(scripts)
    missing = {key: where for key, where in {**python, **scripts}.items() if key not in UI}
    assert not missing, f"not in bertedu/language/words.py's UI: {missing}"


def test_the_web_pages_get_the_whole_table(tmp_path):
    """tools/export_banks.py writes the one table (and the languages) to ui.json, which every web page reads."""
    import export_banks

    export_banks.export(tmp_path)
    data = json.loads((tmp_path / "ui.json").read_text(encoding="utf-8"))
    assert data["ui"] == UI and data["languages"] == list(language.LANGUAGES)


def test_no_web_page_keeps_a_word_table_of_its_own():
    """The tables the review found beside the quiz's (render.js PAGE_WORDS, page.js WORDS, build_site.WORDS,
    build_slides.UI) are gone: their words are in bertedu/language/words.py."""
    sources = {
        "web/quiz/render.js": "PAGE_WORDS",
        "web/minibert/page.js": "const WORDS",
        "tools/build_site.py": "WORDS = {",
        "tools/build_slides.py": "UI = {",
    }
    kept = [
        f"{name}: {what}"
        for name, what in sources.items()
        if what in (ROOT / name).read_text(encoding="utf-8")
    ]
    assert not kept, kept


def test_errors_and_warnings_stay_english():
    """CONTRIBUTING, "Which messages are translated": errors and warnings are English (they name code; a search
    finds them). No ``raise`` or ``warnings.warn`` outside the exercise checkers (whose feedback a checker may
    raise internally) builds its text with msg or translate."""
    translated = []
    for path in sorted((ROOT / "bertedu").rglob("*.py")):
        if path.parent.name == "exercises":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            raised = isinstance(node, ast.Raise) and node.exc is not None
            warned = isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "warn"
            if raised or warned:
                inner = ast.walk(node.exc if raised else node)
                if any(
                    isinstance(n, ast.Call) and getattr(n.func, "id", None) in ("msg", "translate")
                    for n in inner
                ):
                    translated.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert translated == [], translated
