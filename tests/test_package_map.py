"""The package's architecture stays readable: the folders are the layers, stacked as floors (ground: language,
files, utils; then core, scaleout, training, teaching, course), the map in CONTRIBUTING.md matches the modules,
every import goes down a floor or stays on its own (no arrow runs up: the core imports no other layer, scale-out
only the core, the library never imports the course), and every module says which notebook introduces it. (The
size rule is on functions: tests/test_code_shape.py.)"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bertedu"
#: The layer folders of bertedu/, bottom floor first. A layer imports its own floor and the floors below it, never
#: one above. Every layer may also import the ground floor (``bertedu.language``, ``bertedu.files``,
#: ``bertedu.utils``, ``bertedu.__version__``), which imports nothing above it; the top-level programs (``cli``,
#: ``doctor``) may import anything, and nothing imports them.
FLOORS = (
    "core",  # BERT itself: a reader of the model sees nothing else
    "scaleout",  # several processes and devices (DDP): serves the loop, knows only the core
    "training",  # the data pipeline (shards included), the loop, checkpoints, fine-tuning
    "teaching",  # quizzes, exercises, plots: never the course
    "course",  # the recipes: the application layer
)
LAYERS = {layer: set(FLOORS[: i + 1]) for i, layer in enumerate(FLOORS)}
GROUND = {"language", "files", "utils", "__version__"}
GROUND_PACKAGES = {"language"}  # the ground floor's folder
PROGRAMS = {"cli", "doctor"}


def package_entries() -> set[str]:
    """The map's rows: top-level modules (``cli.py``), each layer's modules (``core/model.py``) and the
    subpackages inside a layer (``teaching/quiz/``), paths relative to bertedu/."""
    entries = {p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py")}
    entries |= {f"{name}/" for name in GROUND_PACKAGES}
    for layer in LAYERS:
        folder = PACKAGE / layer
        entries |= {f"{layer}/{p.name}" for p in folder.glob("*.py") if p.name != "__init__.py"}
        entries |= {f"{layer}/{p.name}/" for p in folder.iterdir() if (p / "__init__.py").exists()}
    return entries


def map_entries() -> set[str]:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("## Package map", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([\w/]+(?:\.py)?/?)` \|", section, flags=re.M))


def test_the_folders_are_the_layers():
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    expected = set(LAYERS) | GROUND_PACKAGES
    assert folders == expected, f"bertedu/'s folders {sorted(folders)} are not the layers {sorted(expected)}"
    loose = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"} - GROUND - PROGRAMS
    assert not loose, f"modules outside a layer folder: {sorted(loose)}; put each in its layer"


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


def layer_of(module: str) -> str | None:
    """``bertedu.core.model`` -> ``core``; ``bertedu.files`` -> ``files``; None outside bertedu."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "bertedu" else None


@pytest.mark.parametrize("path", modules(), ids=module_name)
def test_imports_go_one_way_between_the_layers(path):
    layer = layer_of(module_name(path))
    if layer in PROGRAMS or layer is None or layer == "__init__":
        return
    allowed = GROUND if layer in GROUND else LAYERS[layer] | GROUND
    for target, node in imported_modules(ast.parse(path.read_text(encoding="utf-8"))):
        other = layer_of(target)
        assert other is None or other in allowed, (
            f"{module_name(path)}:{node.lineno} imports {target}: the {layer} layer may import only "
            f"{sorted(allowed)}, its own floor and those below (the core is BERT alone; scale-out knows only the "
            "core; the library never imports the course or the programs)"
        )


def test_the_layer_rule_catches_a_wrong_import(tmp_path):
    tree = ast.parse("from bertedu.teaching.quiz import Quiz\nimport bertedu.course.ablations\n")
    bad = [t for t, _ in imported_modules(tree) if layer_of(t) not in LAYERS["core"] | GROUND]
    assert "bertedu.teaching.quiz" in bad and "bertedu.course.ablations" in bad
    # the arrow review 2026-12-06 found: scale-out's shards read training's data pipeline (now training/shards.py)
    tree = ast.parse(
        "from bertedu.training.data import PretrainingDataset\nfrom bertedu.core.model import M\n"
    )
    bad = [t for t, _ in imported_modules(tree) if layer_of(t) not in LAYERS["scaleout"] | GROUND]
    assert bad == ["bertedu.training.data", "bertedu.training.data.PretrainingDataset"]
    # the ground floor (the language) imports nothing above it: not the training layer's modules
    tree = ast.parse("from bertedu.training import messages\nfrom bertedu.language.words import UI\n")
    assert [t for t, _ in imported_modules(tree) if layer_of(t) not in GROUND] == [
        "bertedu.training",
        "bertedu.training.messages",
    ]


def floor_of(layer: str | None) -> int | None:
    """The floor of a layer: -1 for the ground, 0 for the core ... ; None for the programs and outside bertedu."""
    if layer in GROUND:
        return -1
    return FLOORS.index(layer) if layer in FLOORS else None


def arrows_up(paths: list[Path], root: Path = ROOT) -> list[str]:
    """Every import of a module of ``paths`` (under ``root``) whose target sits on a higher floor than the module."""
    found = []
    for path in paths:
        name = ".".join(path.relative_to(root).with_suffix("").parts)
        here = floor_of(layer_of(name))
        if here is None:
            continue
        for target, node in imported_modules(ast.parse(path.read_text(encoding="utf-8"))):
            there = floor_of(layer_of(target))
            if there is not None and there > here:
                found.append(f"{name}:{node.lineno} -> {target}")
    return found


def test_no_import_runs_up_a_floor():
    """The acceptance number of issue 41: imports that go up a layer, 0 (the review of 2026-12-06 counted 1,
    scaleout/shards.py -> training/data.py)."""
    assert arrows_up(modules()) == []


def test_an_import_up_a_floor_is_counted(tmp_path):
    folder = tmp_path / "bertedu" / "scaleout"
    folder.mkdir(parents=True)
    (folder / "shards.py").write_text("from bertedu.training.data import read_corpus\n", encoding="utf-8")
    (folder / "ok.py").write_text("from bertedu.core.model import BertModel\nimport bertedu.utils\n")
    assert arrows_up([folder / "shards.py", folder / "ok.py"], tmp_path) == [
        "bertedu.scaleout.shards:1 -> bertedu.training.data",
        "bertedu.scaleout.shards:1 -> bertedu.training.data.read_corpus",
    ]


def test_the_import_check_sees_every_form_of_import():
    tree = ast.parse(
        "import bertedu.training.shards\nfrom bertedu.teaching import viz\nfrom bertedu.teaching.quiz.store import x\n"
    )
    targets = {target for target, _ in imported_modules(tree)}
    assert {"bertedu.training.shards", "bertedu.teaching.viz", "bertedu.teaching.quiz.store"} <= targets


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
                allowed = path.name == "minilm.py" and node.module in (
                    "bertedu.core.model",
                    "bertedu.core.tokenizer",
                )
                assert allowed, (
                    f"{module_name(path)}:{node.lineno} imports {node.module} inside {func.name}()"
                )
