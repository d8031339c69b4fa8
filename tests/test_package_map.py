"""The package's architecture stays readable: the map in CONTRIBUTING.md matches the modules, imports go one
way, no module grows into several jobs, and every module says which notebook introduces it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bertedu"
# Application layer: may import anything. Every other module is library code and must not import these.
APPLICATION = {"course", "cli", "ablations"}
# Modules allowed above ~600 lines, each with the reason in its docstring: a library module that is still one
# concept ("one concept"), or an exercise module that holds one notebook's exercises ("one notebook's
# exercises": a checker, its feedback and the reference solution per exercise). Even these stay under 950.
LONG_MODULES = {"bertedu.tokenizer", "bertedu.exercises.losses", "bertedu.exercises.encoder"}
MAX_LINES = 620
MAX_LONG_LINES = 950


def package_entries() -> set[str]:
    """Top-level modules (``name.py``) and subpackages (``name/``) of bertedu, as written in the map."""
    entries = {p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py" and p.name != "__main__.py"}
    entries |= {p.name + "/" for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    return entries


def map_entries() -> set[str]:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("## Package map", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([\w/]+(?:\.py)?/?)` \|", section, flags=re.M))


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def test_contributing_map_lists_exactly_the_modules():
    assert map_entries() == package_entries(), (
        "CONTRIBUTING.md's package map and bertedu/ disagree: "
        f"missing from the map {sorted(package_entries() - map_entries())}, "
        f"not in the package {sorted(map_entries() - package_entries())}"
    )


def test_every_module_has_a_docstring_naming_its_notebook():
    for path in modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        doc = ast.get_docstring(tree) or ""
        assert doc, f"{module_name(path)} has no module docstring"
        if path.name != "__init__.py":
            assert re.search(r"notebooks? \d\d|every notebook|notebook\b", doc, flags=re.I), (
                f"{module_name(path)}'s docstring does not say which notebook introduces it"
            )


def imported_modules(tree: ast.AST) -> list[tuple[str, ast.AST]]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.append((node.module, node))
            out.extend((f"{node.module}.{a.name}", node) for a in node.names)
        elif isinstance(node, ast.Import):
            out.extend((a.name, node) for a in node.names)
    return out


@pytest.mark.parametrize("path", modules(), ids=module_name)
def test_library_modules_never_import_course_code(path):
    name = module_name(path)
    if name.split(".")[1] in APPLICATION:
        return
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for target, node in imported_modules(tree):
        if node_in_main_guard(tree, node):
            continue  # `python -m bertedu.pretrain` hands over to bertedu.cli
        parts = target.split(".")
        assert not (len(parts) > 1 and parts[0] == "bertedu" and parts[1] in APPLICATION), (
            f"{name} imports {target}: library modules must not depend on the course's recipes or the CLI"
        )


def node_in_main_guard(tree: ast.Module, node: ast.AST) -> bool:
    for stmt in tree.body:
        if (
            isinstance(stmt, ast.If)
            and isinstance(stmt.test, ast.Compare)
            and getattr(stmt.test.left, "id", "") == "__name__"
        ):
            if any(node is n for n in ast.walk(stmt)):
                return True
    return False


@pytest.mark.parametrize("path", modules(), ids=module_name)
def test_no_function_local_imports_of_bertedu_modules(path):
    """A function-local ``from bertedu... import`` usually hides an import cycle; only minilm.py may (it must
    import without PyTorch, for the doctor), and only of the model and tokenizer."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(func):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bertedu"):
                allowed = path.name == "minilm.py" and node.module in ("bertedu.model", "bertedu.tokenizer")
                assert allowed, (
                    f"{module_name(path)}:{node.lineno} imports {node.module} inside {func.name}()"
                )


@pytest.mark.parametrize("path", modules(), ids=module_name)
def test_modules_stay_one_screenful_of_concepts(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    if module_name(path) in LONG_MODULES:
        doc = " ".join((ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "").lower().split())
        assert "one concept" in doc or "one notebook's exercises" in doc, (
            f"{module_name(path)} is long: its docstring must say why"
        )
        assert lines <= MAX_LONG_LINES, f"{module_name(path)} has {lines} lines; split it by concept"
        return
    assert lines <= MAX_LINES, f"{module_name(path)} has {lines} lines; split it by concept"
