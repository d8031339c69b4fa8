"""Code shape: no function in bertedu/ is longer than MAX_FUNCTION_LINES lines (issue 26).

A function that long does several jobs (``_pretrain`` had grown to 174 lines of setup around a 40-line
loop); a limit on functions measures design where a limit on files only decided where code lives. A
function's length is counted from its ``def`` line to its last line, docstring and comments included.
The functions that were longer when the rule came are listed in KNOWN_LONG_FUNCTIONS with their length
then: each may only get shorter, and leaves the list once it fits.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bertedu"
MAX_FUNCTION_LINES = 80

#: "path:Class.function" -> its length in lines when the rule came (2026-11-27). Shorten, never add.
KNOWN_LONG_FUNCTIONS = {
    "bertedu/teaching/exercises/attention_maps.py:check_previous_token_share": 87,
    "bertedu/teaching/exercises/attention_maps.py:check_fix_head_entropy": 89,
    "bertedu/teaching/exercises/encoder.py:_mha_steps": 86,
    "bertedu/teaching/exercises/losses.py:check_mlm_by_hand": 81,
    "bertedu/teaching/exercises/masking.py:check_fix_masking": 103,
    "bertedu/training/finetune.py:fine_tune": 135,
    "bertedu/core/masking.py:mask_tokens_with_details": 93,
    "bertedu/core/tokenizer.py:train_wordpiece": 95,
    "bertedu/teaching/viz/explorer.py:AttentionExplorer.__init__": 82,
    "bertedu/teaching/viz/heatmaps.py:plot_attention": 83,
}


def function_lengths(path: Path, root: Path = ROOT) -> dict[str, tuple[int, int]]:
    """``{"path:Class.function": (first line, length in lines)}`` for every function and method in ``path``
    (``path`` relative to ``root``; a nested function counts inside its parent, and on its own)."""
    rel = path.relative_to(root).as_posix()
    found = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    found[f"{rel}:{name}"] = (child.lineno, child.end_lineno - child.lineno + 1)
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(path.read_text(encoding="utf-8")), "")
    return found


def all_function_lengths() -> dict[str, tuple[int, int]]:
    lengths = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "__pycache__" not in path.parts:
            lengths.update(function_lengths(path))
    return lengths


def test_no_function_is_longer_than_the_limit():
    too_long = [
        f"{name.split(':')[0]}:{line} {name.split(':')[1]}() has {length} lines"
        for name, (line, length) in all_function_lengths().items()
        if length > KNOWN_LONG_FUNCTIONS.get(name, MAX_FUNCTION_LINES)
    ]
    assert not too_long, (
        f"functions longer than {MAX_FUNCTION_LINES} lines (or than their entry in KNOWN_LONG_FUNCTIONS); "
        "split them by job:\n" + "\n".join(too_long)
    )


def test_the_known_long_functions_only_get_shorter():
    """An entry holds its function's current length: a function made shorter lowers its entry, and leaves the
    list once it fits (or is renamed or removed), so the allowance can never grow back."""
    lengths = all_function_lengths()
    stale = [
        f"{name}: now {lengths[name][1] if name in lengths else 'gone'}, listed {allowed}"
        for name, allowed in KNOWN_LONG_FUNCTIONS.items()
        if name not in lengths or lengths[name][1] != allowed or allowed <= MAX_FUNCTION_LINES
    ]
    assert not stale, (
        "update KNOWN_LONG_FUNCTIONS (lower the length, or remove the entry if the function fits in "
        f"{MAX_FUNCTION_LINES} lines):\n" + "\n".join(stale)
    )


def test_a_length_counts_from_def_to_the_last_line(tmp_path):
    """The measure itself: a method from its ``def`` to its last line, a nested function also on its own."""
    source = "class A:\n    def f(self):\n        def g():\n            return 1\n\n        return g\n"
    (tmp_path / "probe.py").write_text(source, encoding="utf-8")
    assert function_lengths(tmp_path / "probe.py", tmp_path) == {
        "probe.py:A.f": (2, 5),
        "probe.py:A.f.g": (3, 2),
    }
