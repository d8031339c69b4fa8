"""The Chinese edition of the notebooks: built from the English ones plus translation catalogs.

    python tools/translate.py status [NB ...]    what is missing, stale or orphaned (exit 1 if anything)
    python tools/translate.py todo [NB ...]      the work list: new English text, diffs of changed English
    python tools/translate.py stub NB [NB ...]   add an empty entry for every untranslated Markdown cell
                                                 (creates the catalog of a notebook not yet translated)
    python tools/translate.py accept NB ID [ID ...] | --all
                                                 record that the zh of these stale entries is up to date
    python tools/translate.py prune NB [NB ...]  delete entries of cells the English no longer has
    python tools/translate.py build [--execute | --execute-all] [NB ...]
                                                 write notebooks/zh/NN_topic.ipynb (make zh)

NB is a notebook path, its stem (``03_masking_strategy``) or its number (``03``); without NB, every
notebook that has a catalog.

**One source.** ``notebooks/NN_topic.ipynb`` (English) is the only source of code. The catalog
``translations/zh/NN_topic.yaml`` holds one entry per Markdown cell, keyed by the cell's id: ``zh`` (the
translation), ``en`` (the English it translates) and ``hash`` (the first 16 hex digits of the SHA-256 of that
English). The build copies the notebook, puts each Markdown cell's ``zh`` in place of its English, copies
every code cell verbatim and inserts one generated code cell (id ``bertedu-zh-language``) after the first
code cell: ``language.set_language("zh")``, so quizzes, exercise messages, the doctor and plot labels speak
Chinese, and ``viz.use_cjk_fallback()``, so that every figure (the notebook's own too) draws them with a font that
has Chinese glyphs. Links are written in the catalog as in the English (relative to ``notebooks/``); the build points
them from ``notebooks/zh/``: to the Chinese notebook when it has a catalog, else to the English one, marked
（英文版）.

**Never silently stale.** An entry is *stale* when the English cell's hash differs from the entry's hash,
*missing* when a Markdown cell has no entry (or an empty ``zh``), *orphaned* when its cell is gone.
``tests/test_i18n_sync.py`` fails on any of them, and when ``notebooks/zh/`` differs from what the build
makes. The build itself never stops: a missing translation shows the English under a note, a stale one
keeps the old Chinese, and the test keeps failing until a translator catches up.

Outputs: a rebuilt notebook whose code cells did not change keeps the outputs of the committed one (only
prose changed); otherwise it is written without outputs and needs executing (``--execute`` runs
tools/execute_notebooks.py on exactly those; ``--execute-all`` on every built one, e.g. after a package
change that alters outputs). Workflow for translators: CONTRIBUTING.md, "Chinese edition".
"""

from __future__ import annotations

import argparse
import copy
import difflib
import hashlib
import posixpath
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import yaml

from bertedu.language import t

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
CATALOGS = ROOT / "translations"  # the notebooks' prose; the package's messages are in bertedu/language
LANG = "zh"
LANGUAGE_CELL_ID = f"bertedu-{LANG}-language"
LANGUAGE_CELL = """\
# 中文版：本单元格由 tools/translate.py 生成（英文版没有这一格）：测验、练习反馈、doctor 和图表都改用中文。
# 学生：这是你的笔记本，请放心在里面作答。（维护者注：本笔记本由 notebooks/{name} 和
# translations/zh/{stem}.yaml 生成；要改课程内容，请改这两个文件。）
from bertedu import language
from bertedu.teaching import viz

language.set_language("zh")
cjk_font = viz.use_cjk_fallback()  # 图表中的中文用一种有中文字形的字体（cjk_font）画出"""
UNTRANSLATED_NOTE = t("edition_untranslated", LANG)
ENGLISH_LINK_NOTE = t("edition_english_link", LANG)
HEADER = """\
# Simplified Chinese translation of notebooks/{name}: one entry per Markdown cell, by cell id.
# Translate `zh` only. `en` and `hash` record the English that `zh` translates; tools/translate.py writes them
# (stub, accept). Workflow: CONTRIBUTING.md, "Chinese edition". Terms: docs/glossary.md.
"""


class CatalogError(ValueError):
    """A catalog file that cannot be read or breaks the format (the message names the file and the entry)."""


def source_hash(text: str) -> str:
    """The hash that ties a translation to the English it translates: 16 hex digits of SHA-256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass
class Entry:
    """The translation of one Markdown cell."""

    hash: str
    en: str
    zh: str = ""


@dataclass
class Catalog:
    """Every entry of one notebook, in the order of the English notebook."""

    notebook: str  # the stem, e.g. "00_welcome"
    entries: dict[str, Entry] = field(default_factory=dict)


@dataclass(frozen=True)
class Problem:
    """Something a translator has to do. ``kind``: missing, stale, orphaned or corrupt."""

    kind: str
    notebook: str
    cell_id: str
    message: str

    def __str__(self) -> str:
        return f"{self.notebook}: cell {self.cell_id}: {self.kind}: {self.message}"


# ----------------------------------------------------------------------------------------------------------
# Paths


# The folders are read when used, so that tests can point them at a fixture (monkeypatch NOTEBOOKS, CATALOGS).
def english_path(stem: str) -> Path:
    return NOTEBOOKS / f"{stem}.ipynb"


def catalog_path(stem: str) -> Path:
    return CATALOGS / LANG / f"{stem}.yaml"


def edition_path(stem: str) -> Path:
    return NOTEBOOKS / LANG / f"{stem}.ipynb"


def translated_stems() -> list[str]:
    """The notebooks that have a catalog, hence a Chinese edition."""
    return sorted(p.stem for p in (CATALOGS / LANG).glob("[0-9][0-9]_*.yaml"))


def shown(path: Path) -> str:
    """``path`` relative to the repository when it is inside it (for messages)."""
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def resolve_stem(name: str) -> str:
    """``notebooks/03_x.ipynb``, ``03_x`` or ``03`` -> ``03_x`` (a clear error if there is no such notebook)."""
    stem = Path(name).stem
    if re.fullmatch(r"\d\d", stem):
        found = sorted(NOTEBOOKS.glob(f"{stem}_*.ipynb"))
        if len(found) != 1:
            raise SystemExit(
                f"error: no single English notebook numbered {stem} in notebooks/ (found {found})"
            )
        stem = found[0].stem
    if not english_path(stem).is_file():
        raise SystemExit(f"error: notebooks/{stem}.ipynb does not exist (give a path, a stem or a number)")
    return stem


# ----------------------------------------------------------------------------------------------------------
# Catalog files


class _UniqueKeyLoader(yaml.SafeLoader):
    """A YAML loader that refuses duplicate keys (PyYAML silently keeps the last one)."""


def _no_duplicates(loader, node, deep=False):
    keys = [loader.construct_object(k, deep=deep) for k, _ in node.value]
    duplicates = sorted({str(k) for k in keys if keys.count(k) > 1})
    if duplicates:
        raise yaml.constructor.ConstructorError(
            None, None, f"duplicate key(s) {', '.join(duplicates)}", node.start_mark
        )
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _no_duplicates)


def parse_catalog(text: str, where: str) -> Catalog:
    """Read a catalog from YAML text; ``where`` names it in error messages."""
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)
    except yaml.YAMLError as err:
        raise CatalogError(f"{where} is not valid YAML: {err}") from None
    if not isinstance(data, dict) or set(data) != {"notebook", "cells"}:
        raise CatalogError(f"{where}: expected exactly the keys `notebook` and `cells` at the top level")
    cells = data["cells"] or {}
    if not isinstance(cells, dict):
        raise CatalogError(f"{where}: `cells` must map cell ids to entries")
    catalog = Catalog(str(data["notebook"]))
    for cell_id, raw in cells.items():
        if not isinstance(raw, dict) or not {"hash", "en"} <= set(raw) or set(raw) - {"hash", "en", "zh"}:
            raise CatalogError(f"{where}: cell {cell_id}: an entry has the keys hash, en and zh")
        zh = raw.get("zh") or ""
        if not all(isinstance(v, str) for v in (raw["hash"], raw["en"], zh)):
            raise CatalogError(f"{where}: cell {cell_id}: hash, en and zh must be strings")
        catalog.entries[str(cell_id)] = Entry(raw["hash"], raw["en"], zh)
    return catalog


def load_catalog(path: Path) -> Catalog:
    if not path.is_file():
        raise CatalogError(
            f"{path} does not exist: start it with `python tools/translate.py stub {path.stem}`"
        )
    catalog = parse_catalog(path.read_text(encoding="utf-8"), str(path))
    if catalog.notebook != path.stem:
        raise CatalogError(f"{path}: `notebook: {catalog.notebook}` must equal the file name ({path.stem})")
    return catalog


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper, text: str):
    style = "|" if "\n" in text else None  # block scalars keep Markdown readable (PyYAML quotes if it must)
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _str)


def dump_catalog(catalog: Catalog) -> str:
    """The canonical YAML text of a catalog (what stub, accept and prune write)."""
    cells = {cid: {"hash": e.hash, "en": e.en, "zh": e.zh} for cid, e in catalog.entries.items()}
    body = yaml.dump(
        {"notebook": catalog.notebook, "cells": cells},
        Dumper=_Dumper,
        allow_unicode=True,
        sort_keys=False,
        width=1_000_000,
    )
    return HEADER.format(name=f"{catalog.notebook}.ipynb") + body


def save_catalog(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".yaml.tmp")
    tmp.write_text(dump_catalog(catalog), encoding="utf-8")
    tmp.replace(path)


# ----------------------------------------------------------------------------------------------------------
# Checking a catalog against its notebook


def markdown_cells(nb) -> list[tuple[int, nbformat.NotebookNode]]:
    """(index in the notebook, cell) of every Markdown cell: what gets translated."""
    return [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "markdown"]


def english_diff(old: str, new: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), "English when translated", "English now", lineterm=""
    )
    return "\n".join(lines)


def check(nb, catalog: Catalog) -> list[Problem]:
    """Every missing, stale, orphaned or corrupt entry of ``catalog`` for the English notebook ``nb``."""
    problems = []
    stem = catalog.notebook
    cells = markdown_cells(nb)
    for index, cell in cells:
        entry = catalog.entries.get(cell.id)
        where = f"(Markdown, cell {index} of the notebook)"
        if entry is None or not entry.zh.strip():
            what = "no translation" if entry is None else "an empty `zh`"
            problems.append(Problem("missing", stem, cell.id, f"{where} has {what}. English:\n{cell.source}"))
        elif entry.hash != source_hash(entry.en):
            problems.append(
                Problem(
                    "corrupt", stem, cell.id, f"{where}: its `hash` does not match its `en`; run `accept`"
                )
            )
        elif entry.hash != source_hash(cell.source):
            problems.append(
                Problem(
                    "stale",
                    stem,
                    cell.id,
                    f"{where}: the English changed since it was translated (hash {entry.hash} -> "
                    f"{source_hash(cell.source)}):\n{english_diff(entry.en, cell.source)}",
                )
            )
    ids = {cell.id for _, cell in cells}
    for cell_id, entry in catalog.entries.items():
        if cell_id not in ids:
            problems.append(
                Problem(
                    "orphaned",
                    stem,
                    cell_id,
                    "the English notebook has no Markdown cell with this id (deleted, or its id changed): "
                    f"reuse the translation for a new cell, then `prune`. Its English was:\n{entry.en}",
                )
            )
    return problems


def stub(nb, catalog: Catalog) -> int:
    """Add an empty entry for every Markdown cell without one, in notebook order; returns how many."""
    added = 0
    ordered: dict[str, Entry] = {}
    for _, cell in markdown_cells(nb):
        if cell.id in catalog.entries:
            ordered[cell.id] = catalog.entries[cell.id]
        else:
            ordered[cell.id] = Entry(source_hash(cell.source), cell.source, "")
            added += 1
    ordered.update((cid, e) for cid, e in catalog.entries.items() if cid not in ordered)  # orphans last
    catalog.entries = ordered
    return added


def accept(nb, catalog: Catalog, cell_ids: list[str]) -> None:
    """Record the current English of these cells as what their (already updated) ``zh`` translates."""
    cells = {cell.id: cell for _, cell in markdown_cells(nb)}
    for cell_id in cell_ids:
        if cell_id not in cells or cell_id not in catalog.entries:
            raise CatalogError(f"{catalog.notebook}: no Markdown cell {cell_id} with a catalog entry")
        entry = catalog.entries[cell_id]
        if not entry.zh.strip():
            raise CatalogError(
                f"{catalog.notebook}: cell {cell_id} has no translation yet: write its zh first"
            )
        entry.en, entry.hash = cells[cell_id].source, source_hash(cells[cell_id].source)


# ----------------------------------------------------------------------------------------------------------
# Building the Chinese notebook

_MD_LINK = re.compile(r"(?P<bang>!?)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)(?P<title>\s+\"[^\"]*\")?\)")
_HTML_LINK = re.compile(r"(?P<attr>\b(?:src|href))=\"(?P<target>[^\"]+)\"")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def retarget(target: str, available: set[str]) -> tuple[str, bool]:
    """A link written relative to notebooks/, as seen from notebooks/zh/. Returns (new target, True if it
    now points to an English notebook)."""
    if _SCHEME.match(target) or target.startswith(("#", "/")):
        return target, False
    cut = min((i for i in (target.find("#"), target.find("?")) if i >= 0), default=len(target))
    path, rest = target[:cut], target[cut:]
    if not path:
        return target, False
    resolved = posixpath.normpath(posixpath.join("notebooks", path))
    folder, name = posixpath.split(resolved)
    stem = name.removesuffix(".ipynb")
    if folder == "notebooks" and name.endswith(".ipynb") and stem in available:
        return name + rest, False
    english = folder == "notebooks" and name.endswith(".ipynb")
    return posixpath.relpath(resolved, f"notebooks/{LANG}") + rest, english


def rewrite_links(text: str, available: set[str]) -> str:
    """Point the relative links of a Markdown text (written for notebooks/) from notebooks/zh/."""

    def markdown(m: re.Match) -> str:
        target, english = retarget(m["target"], available)
        note = ENGLISH_LINK_NOTE if english and not m["bang"] else ""
        return f"{m['bang']}[{m['text']}]({target}{m['title'] or ''}){note}"

    def html(m: re.Match) -> str:
        return f'{m["attr"]}="{retarget(m["target"], available)[0]}"'

    return _HTML_LINK.sub(html, _MD_LINK.sub(markdown, text))


def language_cell(stem: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(LANGUAGE_CELL.format(name=f"{stem}.ipynb", stem=stem))
    cell.id = LANGUAGE_CELL_ID
    return cell


def build_notebook(nb, catalog: Catalog, available: set[str]) -> nbformat.NotebookNode:
    """The Chinese notebook: translated Markdown, code cells copied verbatim (without outputs), the
    language cell after the first code cell."""
    out = copy.deepcopy(nb)
    cells = []
    for cell in out.cells:
        if cell.cell_type == "markdown":
            entry = catalog.entries.get(cell.id)
            text = (
                entry.zh
                if entry is not None and entry.zh.strip()
                else f"{UNTRANSLATED_NOTE}\n\n{cell.source}"
            )
            cell.source = rewrite_links(text, available)
        elif cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        cells.append(cell)
        if cell.cell_type == "code" and not any(c.get("id") == LANGUAGE_CELL_ID for c in cells):
            cells.append(language_cell(catalog.notebook))
    out.cells = cells
    out.metadata["bertedu"] = {
        "language": LANG,
        "source": f"notebooks/{catalog.notebook}.ipynb",
        "catalog": f"translations/{LANG}/{catalog.notebook}.yaml",
    }
    return out


def same_code(a, b) -> bool:
    """True when two notebooks have the same code cells (ids and sources, in order): the same outputs.

    The comment lines of the generated language cell do not count (they name the source files; the cell
    prints nothing), so renaming a source keeps the outputs."""

    def code(nb):
        return [(c.get("id"), _code_of(c)) for c in nb.cells if c.cell_type == "code"]

    return code(a) == code(b)


def _code_of(cell) -> str:
    """A code cell's source; for the generated language cell, without its comment lines."""
    if cell.get("id") != LANGUAGE_CELL_ID:
        return cell.source
    return "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith("#"))


#: Cell metadata that execution changes (tools/execute_notebooks.py drops it): not part of what is built.
VOLATILE_METADATA = ("execution", "ExecuteTime", "collapsed", "scrolled")


def cell_texts(nb) -> list[tuple]:
    """What the build decides, outputs aside: type, id, source and metadata (tags!) of every cell."""
    return [
        (
            c.cell_type,
            c.get("id"),
            c.source,
            {k: v for k, v in c.metadata.items() if k not in VOLATILE_METADATA},
        )
        for c in nb.cells
    ]


def write_edition(stem: str, available: set[str]) -> str:
    """Build notebooks/zh/<stem>.ipynb. Returns "unchanged", "prose" (outputs kept) or "code" (needs executing)."""
    built = build_notebook(_read(stem), load_catalog(catalog_path(stem)), available)
    path = edition_path(stem)
    if path.exists():
        old = nbformat.read(path, as_version=4)
        if same_code(old, built):
            by_id = {c.get("id"): c for c in old.cells if c.cell_type == "code"}
            for cell in built.cells:
                if cell.cell_type == "code":
                    cell.outputs = by_id[cell.id].outputs
                    cell.execution_count = by_id[cell.id].execution_count
            if cell_texts(old) == cell_texts(built) and old.metadata == built.metadata:
                return "unchanged"
            status = "prose"
        else:
            status = "code"
    else:
        status = "code"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.validate(built)
    tmp = path.with_suffix(".ipynb.tmp")
    nbformat.write(built, tmp)
    tmp.replace(path)
    return status


# ----------------------------------------------------------------------------------------------------------
# Command line


def _stems(names: list[str]) -> list[str]:
    return [resolve_stem(n) for n in names] if names else translated_stems()


def _read(stem: str):
    return nbformat.read(english_path(stem), as_version=4)


def cmd_status(args) -> int:
    total = 0
    for stem in _stems(args.notebooks):
        nb = _read(stem)
        problems = check(nb, load_catalog(catalog_path(stem)))
        counts = {k: sum(p.kind == k for p in problems) for k in ("missing", "stale", "orphaned", "corrupt")}
        n = len(markdown_cells(nb))
        done = n - counts["missing"] - counts["stale"] - counts["corrupt"]
        summary = ", ".join(f"{k} {v}" for k, v in counts.items() if v) or "up to date"
        print(f"{stem}: {done} of {n} Markdown cells translated and current; {summary}")
        total += len(problems)
    return 1 if total else 0


def cmd_todo(args) -> int:
    total = 0
    for stem in _stems(args.notebooks):
        catalog = load_catalog(catalog_path(stem))
        for problem in check(_read(stem), catalog):
            total += 1
            print(f"=== {problem.notebook} · {problem.cell_id} · {problem.kind}")
            print(problem.message)
            entry = catalog.entries.get(problem.cell_id)
            if problem.kind in ("stale", "orphaned") and entry is not None:
                print(f"--- current zh:\n{entry.zh}")
            print()
    if total:
        print(
            f"{total} item(s). Missing: `stub`, then write zh in translations/{LANG}/NN_topic.yaml. Stale: update zh, then "
            "`accept NB ID`. Orphaned: `prune NB`. Then `make zh`."
        )
    else:
        print("Nothing to translate: every catalog is up to date.")
    return 0


def cmd_stub(args) -> int:
    for stem in _stems(args.notebooks):
        path = catalog_path(stem)
        catalog = load_catalog(path) if path.exists() else Catalog(stem)
        added = stub(_read(stem), catalog)
        save_catalog(catalog, path)
        print(f"{shown(path)}: {added} new empty entr{'y' if added == 1 else 'ies'}")
    return 0


def cmd_accept(args) -> int:
    stem = resolve_stem(args.notebook)
    path = catalog_path(stem)
    catalog = load_catalog(path)
    nb = _read(stem)
    ids = args.cell_ids
    if args.all:
        ids = [p.cell_id for p in check(nb, catalog) if p.kind in ("stale", "corrupt")]
    if not ids:
        print("nothing to accept: give cell ids, or --all for every stale entry", file=sys.stderr)
        return 2
    accept(nb, catalog, ids)
    save_catalog(catalog, path)
    print(f"{shown(path)}: accepted {', '.join(ids)}")
    return 0


def cmd_prune(args) -> int:
    for stem in _stems(args.notebooks):
        path = catalog_path(stem)
        catalog = load_catalog(path)
        orphans = [p.cell_id for p in check(_read(stem), catalog) if p.kind == "orphaned"]
        for cell_id in orphans:
            del catalog.entries[cell_id]
        save_catalog(catalog, path)
        print(f"{shown(path)}: removed {len(orphans)} orphaned entr{'y' if len(orphans) == 1 else 'ies'}")
    return 0


def cmd_build(args) -> int:
    available = set(translated_stems())
    stems = _stems(args.notebooks)
    to_execute = []
    for stem in stems:
        status = write_edition(stem, available)
        print(f"notebooks/{LANG}/{stem}.ipynb: {status}")
        if status == "code" or args.execute_all:
            to_execute.append(edition_path(stem))
        problems = check(_read(stem), load_catalog(catalog_path(stem)))
        if problems:
            kinds = sorted({p.kind for p in problems})
            print(
                f"  warning: {len(problems)} translation problem(s) ({', '.join(kinds)}): see `todo {stem}`"
            )
    if to_execute and (args.execute or args.execute_all):
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import execute_notebooks

        return execute_notebooks.main([str(p) for p in to_execute])
    if to_execute:
        print("needs executing: " + " ".join(shown(p) for p in to_execute))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, func in (("status", cmd_status), ("todo", cmd_todo), ("stub", cmd_stub), ("prune", cmd_prune)):
        p = sub.add_parser(name)
        p.add_argument("notebooks", nargs="*")
        p.set_defaults(func=func)
    p = sub.add_parser("accept")
    p.add_argument("notebook")
    p.add_argument("cell_ids", nargs="*")
    p.add_argument("--all", action="store_true", help="every stale entry of the notebook")
    p.set_defaults(func=cmd_accept)
    p = sub.add_parser("build")
    p.add_argument("notebooks", nargs="*")
    p.add_argument("--execute", action="store_true", help="execute the notebooks whose code changed")
    p.add_argument("--execute-all", action="store_true", help="execute every built notebook")
    p.set_defaults(func=cmd_build)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except CatalogError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
