"""Export every quiz bank, in both languages, to JSON for the course's web pages (quizzes without a kernel).

    python tools/export_banks.py [--out build/web/quiz]

writes into the output folder:

- ``banks/NN_topic.json``: one file per bank, the bank as :mod:`bertedu.teaching.quiz.banks` loads it (validated;
  every text an ``{en, zh}`` mapping, Chinese line-folding spaces removed): ``notebook``, ``title``,
  ``questions`` (``id``, ``type``, ``topic``, ``paper_part``, ``prompt``, ``options`` with ``id``, ``text``,
  ``correct``, ``explanation``; ``blanks`` with ``kind``, ``label``, ``answers``, ``answers_by_language``,
  ``case_sensitive``, ``value``, ``tolerance``, ``unit``; ``explanation``, ``hint``) and ``flashcards`` (``id``,
  ``deck``, ``front``, ``back``). ``web/quiz/grader.js`` grades these questions by the rules of the Python grader;
- ``ui.json``: the one table of UI words and the deck titles in both languages (``bertedu/language/words.py``),
  which the web pages show (``web/quiz/render.js``, ``web/minibert/page.js``, ``site/_static/bertedu-site.js``);
- ``index.json``: the banks in name order, with their titles and how many questions and cards each has.

The files are written atomically; running it twice gives the same bytes. Introduced for the course's web site.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path

from bertedu.files import atomic_write_text
from bertedu.language import LANGUAGES, UI
from bertedu.language.words import DECK_TITLES
from bertedu.teaching.quiz.banks import Bank, load_all

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "build" / "web" / "quiz"


def bank_json(bank: Bank) -> dict:
    """One bank as plain JSON data (the loaded form: what the Python grader grades)."""
    data = dataclasses.asdict(bank)
    data.pop("source", None)
    for q in data["questions"]:
        q.pop("notebook", None)
        for b in q["blanks"]:
            b["answers_by_language"] = {k: list(v) for k, v in b["answers_by_language"].items()}
    for c in data["flashcards"]:
        c.pop("notebook", None)
    return data


def _dump(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=1, sort_keys=False) + "\n"


def export(out: Path) -> list[Path]:
    """Write the banks, the UI strings and the index into ``out``; returns the paths written."""
    banks = load_all()
    written = []
    for bank in banks:
        written.append(atomic_write_text(out / "banks" / f"{bank.notebook}.json", _dump(bank_json(bank))))
    ui = {"languages": list(LANGUAGES), "ui": UI, "deck_titles": DECK_TITLES}
    written.append(atomic_write_text(out / "ui.json", _dump(ui)))
    index = [
        {
            "notebook": b.notebook,
            "title": dict(b.title),
            "questions": len(b.questions),
            "flashcards": len(b.flashcards),
            "file": f"banks/{b.notebook}.json",
        }
        for b in banks
    ]
    written.append(atomic_write_text(out / "index.json", _dump({"banks": index})))
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/export_banks.py",
        description="Export every quiz bank (English and Chinese) and the quiz's UI strings to JSON for the web pages.",
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default: {DEFAULT_OUT})"
    )
    args = parser.parse_args(argv)
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"{args.out} is a file; give a folder to write the JSON files into.")
    written = export(args.out)
    n_banks = len(written) - 2
    print(f"Wrote {n_banks} banks, ui.json and index.json to {args.out}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
