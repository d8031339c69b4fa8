"""The package's architecture stays readable: the map in CONTRIBUTING.md matches the modules, imports go one
way (the library never imports the course; the core never imports the scale-out or the teaching machinery),
and every module says which notebook introduces it. (The size rule is on functions: tests/test_code_shape.py.)"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bertedu"
# Application layer: may import anything. Every other module is library code and must not import these.
APPLICATION = {"course", "cli", "ablations"}
# The core a student reads (the model, its data types, tokenizer and masking) ...
CORE = {
    "config",
    "validation",
    "attention",
    "embeddings",
    "encoder",
    "heads",
    "variants",
    "losses",
    "outputs",
    "model",
    "serialization",
    "tokenizer",
    "masking",
}
# ... never imports the scale-out (several processes, corpora larger than memory) or the teaching machinery.
SCALE_OUT = {"distributed", "shards"}
TEACHING = {"quiz", "exercises", "viz", "i18n", "show", "doctor"}


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


@pytest.mark.slow
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


@pytest.mark.parametrize("name", sorted(CORE))
def test_the_core_never_imports_scale_out_or_teaching_code(name):
    path = PACKAGE / f"{name}.py"
    assert path.exists(), f"CORE names bertedu.{name}, which is gone: update CORE"
    for target, node in imported_modules(ast.parse(path.read_text(encoding="utf-8"))):
        parts = target.split(".")
        assert not (
            len(parts) > 1 and parts[0] == "bertedu" and parts[1] in SCALE_OUT | TEACHING | APPLICATION
        ), (
            f"bertedu.{name}:{node.lineno} imports {target}: the core (model, data types, tokenizer, masking) must "
            "not depend on the scale-out (distributed, shards), the teaching machinery (quiz, exercises, viz, "
            "i18n, show, doctor) or the course"
        )


def test_the_import_check_sees_every_form_of_import():
    tree = ast.parse("import bertedu.shards\nfrom bertedu import viz\nfrom bertedu.quiz.store import x\n")
    targets = {target for target, _ in imported_modules(tree)}
    assert {"bertedu.shards", "bertedu.viz", "bertedu.quiz.store"} <= targets


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
