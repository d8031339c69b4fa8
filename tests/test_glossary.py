"""Chinese terminology follows docs/glossary.md: one English idea, one Chinese word.

The content review (2026-11-23) found 片段 used for the segment, the WordPiece piece and the answer span,
浏览器 (a web browser) for the attention explorer, and 一袋词 for "bag of words". These checks run over every
Chinese string a student reads: the quiz banks (prompts, options, explanations, hints, cards) and, once they
exist, the Chinese edition's translation catalogs (translations/zh/, the `zh` of every entry), the package's message
catalogs (bertedu/teaching/i18n/zh.py) and README.zh-CN.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from bertedu.teaching import i18n

ROOT = Path(__file__).resolve().parents[1]
BANKS = sorted((ROOT / "bertedu" / "teaching" / "quiz" / "banks").glob("*.yaml"))

# (pattern, what to write instead). A pattern matches a *wrong* use.
RULES = [
    (
        re.compile(r"(?<!答案)片段(?!抽取|边界|两端|内|（span）)"),
        "片段 means an answer span only (答案片段, 片段抽取); a segment is 句段, a WordPiece piece is 子词",
    ),
    (
        re.compile(r"(?<!真实)(?<!网页)浏览器"),
        "the attention explorer is 注意力查看器; 浏览器 means a web browser",
    ),
    (re.compile(r"一袋词"), "bag of words is 词袋"),
    (re.compile(r"切分器"), "a tokenizer is 分词器"),
]
# SpanBERT's "contiguous random spans" are spans too.
ALLOWED = [re.compile(r"随机片段|被遮住的片段")]


def chinese_strings(node, where=""):
    """Every zh string of a bank, with a path saying where it is."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "zh":
                for s in value if isinstance(value, list) else [value]:
                    if isinstance(s, str):
                        yield where, s
            else:
                yield from chinese_strings(value, f"{where}/{node.get('id', key)}")
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from chinese_strings(item, f"{where}[{i}]")


def violations(text: str) -> list[str]:
    cleaned = text
    for allowed in ALLOWED:
        cleaned = allowed.sub("", cleaned)
    return [f"{m.group(0)!r}: {advice}" for pattern, advice in RULES for m in pattern.finditer(cleaned)]


def other_chinese_texts():
    """(name, [(where, Chinese text)]) of the README, the notebook catalogs and the package's messages."""
    texts = []
    readme = ROOT / "README.zh-CN.md"
    if readme.exists():
        lines = readme.read_text(encoding="utf-8").splitlines()
        texts.append((readme.name, [(f"line {i}", line) for i, line in enumerate(lines, 1)]))
    for catalog in sorted((ROOT / "translations" / "zh").glob("*.yaml")):
        cells = (yaml.safe_load(catalog.read_text(encoding="utf-8")) or {}).get("cells") or {}
        texts.append(
            (
                f"translations/zh/{catalog.name}",
                [(f"cell {cid}", e.get("zh") or "") for cid, e in cells.items()],
            )
        )
    texts.append(
        (
            "bertedu/teaching/i18n (zh messages)",
            [(repr(en)[:50], zh) for en, zh in i18n.catalog("zh").items()],
        )
    )
    texts.append(
        (
            "bertedu/teaching/i18n (zh solutions)",
            [(f"ex.{name}", zh) for name, zh in i18n.solutions("zh").items()],
        )
    )
    return texts


@pytest.mark.parametrize("bank", BANKS, ids=lambda p: p.stem)
def test_banks_use_the_glossary_terms(bank):
    data = yaml.safe_load(bank.read_text(encoding="utf-8"))
    problems = [f"{where}: {v}" for where, s in chinese_strings(data) for v in violations(s)]
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_the_chinese_edition_is_scanned():
    names = [name for name, _ in other_chinese_texts()]
    expected = {"README.zh-CN.md", "translations/zh/00_welcome.yaml", "bertedu/teaching/i18n (zh messages)"}
    assert expected | {"bertedu/teaching/i18n (zh solutions)"} <= set(names), names


@pytest.mark.parametrize("name, texts", other_chinese_texts(), ids=[n for n, _ in other_chinese_texts()])
def test_chinese_edition_uses_the_glossary_terms(name, texts):
    problems = [f"{name}, {where}: {v}" for where, text in texts for v in violations(text)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "text, bad",
    [
        ("它的片段 id 是什么？", True),  # the segment
        ("后续片段带 `##`", True),  # the piece
        ("勾选了浏览器的选项", True),  # the explorer
        ("把句子当作一袋词", True),
        ("片段抽取：选出答案片段", False),
        ("在真实浏览器里测试", False),
        ("句段 0 和子词 `##ing`", False),
    ],
)
def test_the_rules_catch_the_reviewed_mistakes(text, bad):
    assert bool(violations(text)) is bad


def test_the_glossary_lists_every_term_the_rules_point_to():
    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    for term in (
        "句段",
        "子词",
        "答案片段",
        "片段抽取",
        "注意力查看器",
        "词袋",
        "分词器",
        "词元",
        "自注意力",
        "掩码语言模型",
        "下一句预测",
        "微调",
    ):
        assert term in glossary, term
