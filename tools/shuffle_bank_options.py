"""Name every option of the quiz banks and put the options in a fixed, answer-blind order.

    python tools/shuffle_bank_options.py [BANK.yaml ...]      # default: every bank

For each single- or multiple-choice question of ``bertedu/teaching/quiz/banks/*.yaml``:

1. an option without an ``id`` gets one: its position in the file's current order as a letter (``a``, ``b``,
   ``c`` ...), after the letters already taken. Before options had ids the progress file stored positions, so
   the first run named each option by its position at the time: a saved position ``i`` is option id letter ``i``
   (:func:`bertedu.teaching.quiz.banks.legacy_option_id`). Never rename an option id;
2. the options are sorted by the SHA-256 of ``notebook/question/option id``: an order that does not depend on
   which option is right, so a bank no longer lists the answer first (``tests/test_quiz_shuffle.py`` checks it
   statistically). Students do not see this order: each sees their own (:mod:`bertedu.teaching.quiz.shuffle`).

The file is edited as text: every option keeps its lines (text, ``correct``, explanation, both languages and
any comment inside it); nothing else moves. Running it again changes nothing (the order is a function of the
ids). Each result is reloaded and compared with the original: the same options, only named and reordered.
"""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bertedu.teaching.quiz.banks import bank_files, legacy_option_id, read_yaml  # noqa: E402

_QUESTION = re.compile(r"^(\s*)- id:\s*(\S+)\s*$")
_OPTIONS = re.compile(r"^(\s*)options:\s*$")


def order_key(notebook: str, question_id: str, option_id: str) -> str:
    """The sort key of an option in the bank file (not what a student sees)."""
    return hashlib.sha256(f"{notebook}/{question_id}/{option_id}".encode()).hexdigest()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _option_blocks(lines: list[str], start: int, indent: int) -> tuple[list[list[str]], int]:
    """The option items after ``options:`` at line ``start - 1``: their lines, and the index after the last."""
    blocks: list[list[str]] = []
    i = start
    while i < len(lines):
        line = lines[i]
        if line.strip() and _indent(line) <= indent:
            break
        if line.strip() and line.lstrip(" ").startswith("- ") and _indent(line) == indent + 2:
            blocks.append([line])
        elif blocks:
            blocks[-1].append(line)
        i += 1
    # blank lines after the last option belong to the gap before the next key, not to the option
    while blocks and not blocks[-1][-1].strip():
        blocks[-1].pop()
        i -= 1
    return blocks, i


def _block_id(block: list[str], indent: int) -> str | None:
    first = block[0].strip()
    match = re.match(r"^- id:\s*(\S+)\s*$", first)
    if match:
        return match.group(1)
    for line in block[1:]:
        match = re.match(rf"^ {{{indent + 4}}}id:\s*(\S+)\s*$", line)
        if match:
            return match.group(1)
    return None


def _named(block: list[str], indent: int, option_id: str) -> list[str]:
    """The block with ``id: option_id`` as its first key."""
    pad = " " * (indent + 4)
    first = block[0]
    rest = first[indent + 4 :]
    return [f"{' ' * (indent + 2)}- id: {option_id}\n", f"{pad}{rest}", *block[1:]]


def rewrite(text: str, notebook: str) -> str:
    """The bank text with every option named and the options of each question in :func:`order_key` order."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    question = None
    i = 0
    while i < len(lines):
        line = lines[i]
        match = _QUESTION.match(line)
        if match and _indent(line) == 2:
            question = match.group(2)
        options = _OPTIONS.match(line)
        if not options or question is None:
            out.append(line)
            i += 1
            continue
        indent = len(options.group(1))
        out.append(line)
        blocks, end = _option_blocks(lines, i + 1, indent)
        ids = [_block_id(b, indent) for b in blocks]
        taken = {x for x in ids if x}
        letters = (legacy_option_id(k) for k in range(10_000))
        named = []
        for block, option_id in zip(blocks, ids):
            if option_id is None:
                option_id = next(x for x in letters if x not in taken)
                taken.add(option_id)
                block = _named(block, indent, option_id)
            named.append((order_key(notebook, question, option_id), block))
        for _, block in sorted(named):
            if not block[-1].endswith("\n"):
                block = [*block[:-1], block[-1] + "\n"]
            out.extend(block)
        i = end
    return "".join(out)


def _same_options(before: dict, after: dict) -> bool:
    """Whether ``after`` has the same questions and, per question, the same options (ignoring order and ids)."""

    def key(o: dict) -> str:
        return repr(sorted((k, v) for k, v in o.items() if k != "id"))

    if [q.get("id") for q in before["questions"]] != [q.get("id") for q in after["questions"]]:
        return False
    for q0, q1 in zip(before["questions"], after["questions"]):
        if {k: v for k, v in q0.items() if k != "options"} != {k: v for k, v in q1.items() if k != "options"}:
            return False
        if sorted(map(key, q0.get("options") or [])) != sorted(map(key, q1.get("options") or [])):
            return False
    return before.get("flashcards") == after.get("flashcards") and before.get("title") == after.get("title")


def main(argv: list[str] | None = None) -> int:
    paths = [Path(p) for p in (argv if argv is not None else sys.argv[1:])] or bank_files()
    for path in paths:
        text = path.read_text(encoding="utf-8")
        data = read_yaml(text, path.name)
        new = rewrite(text, data["notebook"])
        if not _same_options(data, read_yaml(new, path.name)):
            print(f"error: {path.name}: the rewrite would change more than the options' order; left as is")
            return 1
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"{path.name}: options named and reordered")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
