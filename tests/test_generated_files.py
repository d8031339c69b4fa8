"""The generated files are named once: CONTRIBUTING.md's list ("Generated files") and .gitattributes agree.

Every pattern is marked ``linguist-generated=true`` in .gitattributes (GitHub collapses their diffs), is listed
in CONTRIBUTING.md with the command that writes it, and matches at least one file of the repository.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Generated files (never edit by hand)"
SKIPPED = {".git", ".venv", "runs", "student", "student-zh", "assignments", "build", "dist", "__pycache__"}
SKIPPED |= {".ruff_cache", ".pytest_cache", ".cache", ".bertedu", "bertedu.egg-info"}


def contributing_patterns(text: str) -> list[str]:
    """The patterns of the list in CONTRIBUTING.md's "Generated files" section (``- `PATTERN`: ...`` lines)."""
    assert SECTION in text, f"CONTRIBUTING.md has no section {SECTION!r}"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^- `([^`]+)`:", section, flags=re.MULTILINE)


def gitattributes_patterns(text: str) -> list[str]:
    """The patterns .gitattributes marks ``linguist-generated=true``."""
    found = []
    for line in text.splitlines():
        words = line.split()
        if words and not words[0].startswith("#") and "linguist-generated=true" in words[1:]:
            found.append(words[0])
    return found


def matches(pattern: str, path: str) -> bool:
    """gitattributes matching of a pattern with a slash: ``*`` within one folder, ``**`` across folders."""
    regex = re.escape(pattern).replace(r"\*\*", ".+").replace(r"\*", "[^/]*")
    return re.fullmatch(regex, path) is not None


def repository_files() -> list[str]:
    """Every file under the repository root, as a posix path, without virtualenv, caches and run folders."""
    found = []
    for folder, subfolders, names in os.walk(ROOT):
        subfolders[:] = [d for d in subfolders if d not in SKIPPED]
        found += [(Path(folder) / name).relative_to(ROOT).as_posix() for name in names]
    return found


def test_contributing_and_gitattributes_list_the_same_generated_files():
    listed = contributing_patterns((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"))
    marked = gitattributes_patterns((ROOT / ".gitattributes").read_text(encoding="utf-8"))
    assert listed, "CONTRIBUTING.md's list of generated files is empty"
    assert sorted(listed) == sorted(marked), (
        f"only in CONTRIBUTING.md: {sorted(set(listed) - set(marked))}; "
        f"only in .gitattributes: {sorted(set(marked) - set(listed))}"
    )
    assert len(set(listed)) == len(listed), "a pattern is listed twice"


def test_every_generated_pattern_matches_a_file():
    files = repository_files()
    patterns = gitattributes_patterns((ROOT / ".gitattributes").read_text(encoding="utf-8"))
    unmatched = [p for p in patterns if not any(matches(p, f) for f in files)]
    assert not unmatched, f"no file matches {unmatched}: renamed? update .gitattributes and CONTRIBUTING.md"


def test_the_chinese_notebooks_are_marked_and_their_sources_are_not():
    patterns = gitattributes_patterns((ROOT / ".gitattributes").read_text(encoding="utf-8"))
    assert any(matches(p, "notebooks/zh/00_welcome.ipynb") for p in patterns)
    for source in ("notebooks/00_welcome.ipynb", "translations/zh/00_welcome.yaml", "data/make_eval_data.py"):
        assert not any(matches(p, source) for p in patterns), source


def test_the_readers_find_a_difference():
    text = f"intro\n\n{SECTION}\nWhy.\n\n- `a/*.txt`: `make a`;\n- `b/**`: `make b`.\n\n## Next\n- `c`: no\n"
    assert contributing_patterns(text) == ["a/*.txt", "b/**"]
    attributes = "# comment\na/*.txt linguist-generated=true\nc.txt -diff\nb/** linguist-generated=true\n"
    assert gitattributes_patterns(attributes) == ["a/*.txt", "b/**"]
    assert matches("b/**", "b/x/y.json") and not matches("a/*.txt", "a/x/y.txt")
