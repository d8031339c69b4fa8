"""The Chinese edition cannot silently go stale (tools/translate.py, translations/zh/, notebooks/zh/).

Part 1 runs the sync check on a fixture notebook: an edited English cell is reported *stale* with its cell id
and a diff, a new cell *missing*, a deleted one *orphaned*; the build copies code verbatim. Part 2 holds the
committed catalogs and Chinese notebooks to the same rules: every catalog in sync with its English notebook,
every Chinese notebook exactly what the build makes from the current sources, executed cleanly, in Chinese,
with links that resolve.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

ROOT = Path(__file__).resolve().parents[1]

import translate  # noqa: E402

ABSOLUTE_PATH = re.compile(r"(?<![\w.])/(?:work|tmp|root|home)/")


# ----------------------------------------------------------------------------------------------------------
# Part 1: the machinery, on a fixture notebook


def fixture_notebook():
    cells = [
        new_markdown_cell("# 98 · A fixture\n\nIt has **three** Markdown cells.", id="title"),
        new_code_cell("import bertedu\n\nSEED = bertedu.set_seed(0)", id="setup"),
        new_markdown_cell(
            "## Masking\n\nBERT masks 15 % of the tokens.\nSee [notebook 99](99_next.ipynb).", id="masking"
        ),
        new_code_cell("print(0.15 * 200)  # 30 tokens", id="count", metadata={"tags": ["exercise"]}),
        new_markdown_cell(
            "**Next:** [99 · Next](99_next.ipynb), data in [the corpus](../data/x.txt).", id="next"
        ),
    ]
    cells[3].outputs = [new_output("stream", name="stdout", text="30.0\n")]
    cells[3].execution_count = 2
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


ZH = {
    "title": "# 98 · 一个测试用例\n\n它有**三个** Markdown 单元格。",
    "masking": "## 掩码\n\nBERT 会掩码 15% 的词元。\n见[笔记本 99](99_next.ipynb)。",
    "next": "**下一个：**[99 · 下一个](99_next.ipynb)，数据在[语料](../data/x.txt)里。",
}


def translated_catalog(nb) -> translate.Catalog:
    catalog = translate.Catalog("98_fixture")
    translate.stub(nb, catalog)
    for cell_id, text in ZH.items():
        catalog.entries[cell_id].zh = text
    return catalog


def kinds(problems) -> list[tuple[str, str]]:
    return [(p.kind, p.cell_id) for p in problems]


def test_an_up_to_date_catalog_has_no_problems():
    nb = fixture_notebook()
    assert translate.check(nb, translated_catalog(nb)) == []


def test_an_edited_english_cell_is_stale_with_its_id_and_a_diff():
    nb = fixture_notebook()
    catalog = translated_catalog(nb)
    edited = copy.deepcopy(nb)
    edited.cells[2].source = edited.cells[2].source.replace("15 %", "15 % (of the maskable ones)")
    problems = translate.check(edited, catalog)
    assert kinds(problems) == [("stale", "masking")]
    message = str(problems[0])
    assert "98_fixture: cell masking: stale" in message
    assert "cell 2 of the notebook" in message
    # a unified diff of the English: what the translator has to carry over
    assert "--- English when translated" in message and "+++ English now" in message
    assert "-BERT masks 15 % of the tokens." in message
    assert "+BERT masks 15 % (of the maskable ones) of the tokens." in message
    assert (
        f"hash {translate.source_hash(nb.cells[2].source)} -> {translate.source_hash(edited.cells[2].source)}"
        in (message)
    )


def test_a_whitespace_edit_is_stale_too():
    """The hash covers the exact English: even a reflowed line needs a translator's look (then `accept`)."""
    nb = fixture_notebook()
    catalog = translated_catalog(nb)
    nb.cells[0].source = nb.cells[0].source.replace("It has", "It  has")
    assert kinds(translate.check(nb, catalog)) == [("stale", "title")]


def test_an_added_cell_is_missing_with_its_english():
    nb = fixture_notebook()
    catalog = translated_catalog(nb)
    nb.cells.insert(4, new_markdown_cell("A new paragraph about NSP.", id="nsp"))
    problems = translate.check(nb, catalog)
    assert kinds(problems) == [("missing", "nsp")]
    assert "A new paragraph about NSP." in problems[0].message


def test_an_empty_translation_counts_as_missing():
    nb = fixture_notebook()
    catalog = translated_catalog(nb)
    catalog.entries["next"].zh = "  \n"
    assert kinds(translate.check(nb, catalog)) == [("missing", "next")]


def test_a_deleted_cell_leaves_an_orphaned_entry():
    nb = fixture_notebook()
    catalog = translated_catalog(nb)
    del nb.cells[2]
    problems = translate.check(nb, catalog)
    assert kinds(problems) == [("orphaned", "masking")]
    assert "BERT masks 15 % of the tokens." in problems[0].message  # the old English, to find the new cell


def test_a_cell_turned_into_code_leaves_an_orphaned_entry():
    nb = fixture_notebook()
    catalog = translated_catalog(nb)
    nb.cells[4] = new_code_cell("print('next')", id="next")
    assert kinds(translate.check(nb, catalog)) == [("orphaned", "next")]


def test_a_hand_edited_english_in_the_catalog_is_reported():
    nb = fixture_notebook()
    catalog = translated_catalog(nb)
    catalog.entries["title"].en += " (edited by hand)"
    assert kinds(translate.check(nb, catalog)) == [("corrupt", "title")]


def test_accept_records_the_new_english_only_for_a_translated_entry():
    nb = fixture_notebook()
    catalog = translated_catalog(nb)
    nb.cells[2].source += "\nIt predicts them all."
    catalog.entries["masking"].zh += "\n它们全部都要预测。"
    translate.accept(nb, catalog, ["masking"])
    assert translate.check(nb, catalog) == []
    assert catalog.entries["masking"].en == nb.cells[2].source
    catalog.entries["title"].zh = ""
    with pytest.raises(translate.CatalogError, match="no translation yet"):
        translate.accept(nb, catalog, ["title"])
    with pytest.raises(translate.CatalogError, match="no Markdown cell setup"):
        translate.accept(nb, catalog, ["setup"])


def test_stub_adds_empty_entries_in_notebook_order_and_keeps_translations():
    nb = fixture_notebook()
    catalog = translated_catalog(nb)
    nb.cells.insert(1, new_markdown_cell("Inserted.", id="inserted"))
    nb.cells.insert(0, new_markdown_cell("First.", id="first"))
    assert translate.stub(nb, catalog) == 2
    assert list(catalog.entries) == ["first", "title", "inserted", "masking", "next"]
    assert catalog.entries["inserted"] == translate.Entry(translate.source_hash("Inserted."), "Inserted.", "")
    assert catalog.entries["title"].zh == ZH["title"]


@pytest.mark.parametrize(
    "text",
    [
        "one line",
        "two\nlines",
        "ends with a newline\n",
        "  leading spaces\nand: a colon",
        "trailing spaces  \nhard line break",
        "tab\tand # hash and 'quotes' and \"double\"",
        "| a | b |\n|---|---|\n| 中文 | `code` |\n",
        "",
        "- list\n  - nested\n\n```python\nx = {'a': 1}\n```",
    ],
)
def test_catalog_files_round_trip_exactly(text):
    catalog = translate.Catalog(
        "98_fixture", {"c1": translate.Entry(translate.source_hash(text), text, text)}
    )
    again = translate.parse_catalog(translate.dump_catalog(catalog), "test")
    assert again == catalog


def test_broken_catalog_files_get_clear_errors():
    good = translate.dump_catalog(translated_catalog(fixture_notebook()))
    twice = good.replace("cells:\n", "cells:\n  title:\n    hash: x\n    en: a\n    zh: b\n", 1)
    with pytest.raises(translate.CatalogError, match="duplicate key"):
        translate.parse_catalog(twice, "dup.yaml")
    with pytest.raises(translate.CatalogError, match="hash, en and zh"):
        translate.parse_catalog("notebook: x\ncells:\n  c1:\n    zh: only\n", "bad.yaml")
    with pytest.raises(translate.CatalogError, match="`notebook` and `cells`"):
        translate.parse_catalog("cells: {}\n", "bad.yaml")


def test_the_build_copies_code_verbatim_and_inserts_the_language_cell():
    nb = fixture_notebook()
    built = translate.build_notebook(nb, translated_catalog(nb), available={"98_fixture", "99_next"})
    types = [(c.cell_type, c.id) for c in built.cells]
    assert types == [
        ("markdown", "title"),
        ("code", "setup"),
        ("code", translate.LANGUAGE_CELL_ID),
        ("markdown", "masking"),
        ("code", "count"),
        ("markdown", "next"),
    ]
    english_code = [(c.id, c.source, c.metadata) for c in nb.cells if c.cell_type == "code"]
    zh_code = [(c.id, c.source, c.metadata) for c in built.cells if c.cell_type == "code"]
    assert [c for c in zh_code if c[0] != translate.LANGUAGE_CELL_ID] == english_code
    assert all(c.outputs == [] and c.execution_count is None for c in built.cells if c.cell_type == "code")
    assert 'language.set_language("zh")' in built.cells[2].source
    assert built.cells[0].source == ZH["title"]
    assert built.metadata["bertedu"]["language"] == "zh"
    assert nb.cells[3].outputs, "the English notebook itself is not changed"


def test_the_build_shows_a_missing_translation_as_english_under_a_note():
    nb = fixture_notebook()
    catalog = translated_catalog(nb)
    del catalog.entries["masking"]
    built = translate.build_notebook(nb, catalog, available={"98_fixture"})
    source = built.cells[3].source
    assert source.startswith(translate.UNTRANSLATED_NOTE)
    assert "BERT masks 15 % of the tokens." in source


def test_links_are_pointed_from_the_chinese_folder():
    nb = fixture_notebook()
    built = translate.build_notebook(nb, translated_catalog(nb), available={"98_fixture", "99_next"})
    assert "[99 · 下一个](99_next.ipynb)，" in built.cells[5].source  # translated: the Chinese sibling
    assert "[语料](../../data/x.txt)" in built.cells[5].source
    alone = translate.build_notebook(nb, translated_catalog(nb), available={"98_fixture"})
    assert "[99 · 下一个](../99_next.ipynb)（英文版）" in alone.cells[5].source  # not translated: English


@pytest.mark.parametrize(
    "target, available, expected",
    [
        ("01_x.ipynb", {"01_x"}, ("01_x.ipynb", False)),
        ("01_x.ipynb#a-heading", set(), ("../01_x.ipynb#a-heading", True)),
        ("../README.md", set(), ("../../README.md", False)),
        ("../data/README.md#files", set(), ("../../data/README.md#files", False)),
        ("images/fig.png", set(), ("../images/fig.png", False)),
        ("https://arxiv.org/abs/1810.04805", set(), ("https://arxiv.org/abs/1810.04805", False)),
        ("#local-anchor", set(), ("#local-anchor", False)),
        ("mailto:someone@example.org", set(), ("mailto:someone@example.org", False)),
    ],
)
def test_retarget(target, available, expected):
    assert translate.retarget(target, available) == expected


def test_html_links_and_images_are_retargeted_without_a_note():
    text = '<img src="images/a.png" alt="x"> and ![fig](images/b.png) and <a href="02_y.ipynb">02</a>'
    out = translate.rewrite_links(text, available=set())
    assert (
        out
        == '<img src="../images/a.png" alt="x"> and ![fig](../images/b.png) and <a href="../02_y.ipynb">02</a>'
    )


@pytest.fixture
def fixture_repo(tmp_path, monkeypatch):
    """A repository with one English notebook and its (translated) catalog; tools/translate.py points at it."""
    notebooks, catalogs = tmp_path / "notebooks", tmp_path / "translations"
    notebooks.mkdir()
    nb = fixture_notebook()
    nbformat.write(nb, notebooks / "98_fixture.ipynb")
    monkeypatch.setattr(translate, "ROOT", tmp_path)
    monkeypatch.setattr(translate, "NOTEBOOKS", notebooks)
    monkeypatch.setattr(translate, "CATALOGS", catalogs)
    translate.save_catalog(translated_catalog(nb), translate.catalog_path("98_fixture"))
    return tmp_path


def test_the_command_line_lists_the_work_and_builds(fixture_repo, capsys):
    assert translate.main(["status"]) == 0
    assert "98_fixture: 3 of 3 Markdown cells translated and current; up to date" in capsys.readouterr().out

    english = fixture_repo / "notebooks" / "98_fixture.ipynb"
    nb = nbformat.read(english, as_version=4)
    nb.cells[2].source = nb.cells[2].source.replace("15 %", "fifteen per cent")
    nb.cells.append(new_markdown_cell("A closing remark.", id="closing"))
    nbformat.write(nb, english)
    assert translate.main(["status", "98"]) == 1
    assert "missing 1, stale 1" in capsys.readouterr().out
    translate.main(["todo"])
    todo = capsys.readouterr().out
    assert (
        "=== 98_fixture · masking · stale" in todo and "+BERT masks fifteen per cent of the tokens." in todo
    )
    assert "--- current zh:\n## 掩码" in todo
    assert "=== 98_fixture · closing · missing" in todo and "A closing remark." in todo

    assert translate.main(["stub", "98_fixture"]) == 0
    catalog = translate.load_catalog(translate.catalog_path("98_fixture"))
    assert catalog.entries["closing"].zh == ""
    catalog.entries["closing"].zh = "结语。"
    catalog.entries["masking"].zh = ZH["masking"].replace("15%", "百分之十五")
    translate.save_catalog(catalog, translate.catalog_path("98_fixture"))
    assert translate.main(["accept", "98", "masking"]) == 0
    capsys.readouterr()
    assert translate.main(["status"]) == 0

    # build: written without outputs ("code": it needs executing); then unchanged; a prose edit keeps outputs
    assert translate.main(["build"]) == 0
    assert "notebooks/zh/98_fixture.ipynb: code" in capsys.readouterr().out
    built_path = translate.edition_path("98_fixture")
    built = nbformat.read(built_path, as_version=4)
    count = next(c for c in built.cells if c.id == "count")
    count.outputs = [new_output("stream", name="stdout", text="30.0\n")]  # as if executed
    nbformat.write(built, built_path)
    translate.main(["build"])
    assert ": unchanged" in capsys.readouterr().out
    catalog.entries["closing"].zh = "结束语。"
    translate.save_catalog(catalog, translate.catalog_path("98_fixture"))
    translate.main(["build"])
    assert ": prose" in capsys.readouterr().out
    rebuilt = nbformat.read(built_path, as_version=4)
    assert rebuilt.cells[-1].source == "结束语。"
    assert next(c for c in rebuilt.cells if c.id == "count").outputs[0].text == "30.0\n"

    # a tag added to an English code cell reaches the Chinese notebook (the student edition drops `solution`)
    nb = nbformat.read(english, as_version=4)
    next(c for c in nb.cells if c.id == "count").metadata["tags"] = ["solution"]
    nbformat.write(nb, english)
    translate.main(["build"])
    assert ": prose" in capsys.readouterr().out
    rebuilt = nbformat.read(built_path, as_version=4)
    assert next(c for c in rebuilt.cells if c.id == "count").metadata["tags"] == ["solution"]
    assert next(c for c in rebuilt.cells if c.id == "count").outputs[0].text == "30.0\n"


def test_renaming_a_source_in_the_language_cell_comment_keeps_the_outputs(fixture_repo, capsys):
    """The generated cell's comment names the catalog file; when that name changes (the catalogs moved from
    i18n/zh/ to translations/zh/) the rebuild is "prose": outputs kept. A change to its code is "code"."""
    translate.main(["build"])
    path = translate.edition_path("98_fixture")
    nb = nbformat.read(path, as_version=4)
    next(c for c in nb.cells if c.id == "count").outputs = [
        new_output("stream", name="stdout", text="30.0\n")
    ]
    language = next(c for c in nb.cells if c.id == translate.LANGUAGE_CELL_ID)
    assert "translations/zh/98_fixture.yaml" in language.source
    language.source = language.source.replace("translations/zh/", "i18n/zh/")  # as built before the move
    nbformat.write(nb, path)
    capsys.readouterr()
    translate.main(["build"])
    assert ": prose" in capsys.readouterr().out
    rebuilt = nbformat.read(path, as_version=4)
    assert next(c for c in rebuilt.cells if c.id == "count").outputs[0].text == "30.0\n"
    assert "translations/zh/98_fixture.yaml" in rebuilt.cells[2].source

    old = copy.deepcopy(rebuilt)
    next(c for c in old.cells if c.id == translate.LANGUAGE_CELL_ID).source += "\nprint('hi')"
    assert not translate.same_code(old, rebuilt)


def test_the_command_line_refuses_unknown_notebooks(fixture_repo):
    with pytest.raises(SystemExit, match="notebooks/97_none.ipynb does not exist"):
        translate.main(["status", "97_none"])


# ----------------------------------------------------------------------------------------------------------
# Part 2: the committed Chinese edition

STEMS = translate.translated_stems()
EDITIONS = sorted((ROOT / "notebooks" / translate.LANG).glob("[0-9][0-9]_*.ipynb"))


def test_the_chinese_edition_exists():
    assert "00_welcome" in STEMS, "notebook 00 is the first one translated (translations/zh/00_welcome.yaml)"
    assert [p.stem for p in EDITIONS] == STEMS, (
        "every catalog has its Chinese notebook and the other way round"
    )


@pytest.mark.parametrize("stem", STEMS)
def test_the_catalog_is_in_sync_with_the_english_notebook(stem):
    nb = nbformat.read(translate.english_path(stem), as_version=4)
    problems = translate.check(nb, translate.load_catalog(translate.catalog_path(stem)))
    assert not problems, (
        f"translations/zh/{stem}.yaml is out of date with notebooks/{stem}.ipynb; `python tools/translate.py todo {stem}` "
        "lists the work (CONTRIBUTING.md, 'Chinese edition'):\n\n" + "\n\n".join(map(str, problems))
    )


@pytest.mark.parametrize("stem", STEMS)
def test_the_chinese_notebook_is_built_from_the_current_sources(stem):
    nb = nbformat.read(translate.english_path(stem), as_version=4)
    expected = translate.build_notebook(
        nb, translate.load_catalog(translate.catalog_path(stem)), available=set(STEMS)
    )
    committed = nbformat.read(translate.edition_path(stem), as_version=4)
    assert translate.cell_texts(committed) == translate.cell_texts(expected), (
        f"notebooks/zh/{stem}.ipynb is not what the English notebook and translations/zh/{stem}.yaml give: run "
        f"`make zh ZH_NB={stem[:2]}` (build, then execute if code changed)"
    )
    assert committed.metadata.get("bertedu") == expected.metadata["bertedu"]


@pytest.mark.parametrize("path", EDITIONS, ids=lambda p: p.stem)
def test_the_chinese_notebook_runs_the_english_code(path):
    english = nbformat.read(ROOT / "notebooks" / path.name, as_version=4)
    zh = nbformat.read(path, as_version=4)
    code = [
        (c.id, c.source) for c in zh.cells if c.cell_type == "code" and c.id != translate.LANGUAGE_CELL_ID
    ]
    assert code == [(c.id, c.source) for c in english.cells if c.cell_type == "code"]


@pytest.mark.parametrize("path", EDITIONS, ids=lambda p: p.stem)
def test_the_chinese_notebook_is_executed_cleanly(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    counts = [c.execution_count for c in code]
    assert counts == list(range(1, len(code) + 1)), f"{path.name}: execute it (make zh)"
    assert not [o for c in code for o in c.outputs if o.output_type == "error"], f"{path.name}: a cell failed"
    assert "widgets" not in nb.metadata
    assert nb.metadata.kernelspec.name == "python3"
    texts = [str(o.get("text", "")) + str(o.get("data", {})) for c in code for o in c.outputs]
    assert not [t for t in texts if ABSOLUTE_PATH.search(t)], f"{path.name}: outputs show absolute paths"


@pytest.mark.parametrize("path", EDITIONS, ids=lambda p: p.stem)
def test_the_chinese_notebook_speaks_chinese(path):
    """The language cell took effect: no English exercise label or quiz fallback text in any output."""
    nb = nbformat.read(path, as_version=4)
    outputs = "\n".join(
        str(o.get("text", "")) + str(o.get("data", {}).get("text/html", ""))
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
    )
    for english in ("✓ Correct", "✗ Not yet", "○ Not attempted yet", "Interactive quiz: open", "**Hint "):
        assert english not in outputs, f"{path.name}: an output is in English ({english!r})"
    markdown = "".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert len(re.findall(r"[\u4e00-\u9fff]", markdown)) > 100, f"{path.name}: its prose is not Chinese"


@pytest.mark.parametrize("path", EDITIONS, ids=lambda p: p.stem)
def test_the_chinese_notebook_links_resolve(path):
    nb = nbformat.read(path, as_version=4)
    broken = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for m in re.finditer(r"\]\(([^)\s]+)\)|\b(?:src|href)=\"([^\"]+)\"", cell.source):
            target = (m.group(1) or m.group(2)).split("#")[0]
            if target and not re.match(r"^[a-zA-Z][\w+.-]*:", target) and not (path.parent / target).exists():
                broken.append((cell.id, target))
    assert not broken, f"{path.name}: links to nothing: {broken}"


def course_map_notebooks(readme: Path, heading: str) -> list[str]:
    """The notebook links (paths from the repository root) of a README's course map table."""
    section = readme.read_text(encoding="utf-8").split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| \[[^\]]+\]\((notebooks/[^)]+\.ipynb)\)", section, flags=re.M)


def test_the_chinese_readme_maps_every_notebook_of_the_english_one():
    english = course_map_notebooks(ROOT / "README.md", "Course map")
    chinese = course_map_notebooks(ROOT / "README.zh-CN.md", "课程地图")
    assert english, "README.md's course map lists the notebooks"
    expected = [f"notebooks/{translate.LANG}/{Path(p).name}" if Path(p).stem in STEMS else p for p in english]
    assert chinese == expected, (
        "README.zh-CN.md's course map must list the notebooks of README.md's, linking the Chinese edition where "
        "it exists (notebooks/zh/) and the English one, marked （英文版）, where it does not"
    )


def test_the_readmes_link_to_each_other_and_their_links_resolve():
    english, chinese = (
        (ROOT / "README.md").read_text(encoding="utf-8"),
        (ROOT / "README.zh-CN.md").read_text(encoding="utf-8"),
    )
    assert "(README.zh-CN.md)" in "\n".join(english.splitlines()[:5]), (
        "README.md's first lines link the Chinese one"
    )
    assert "[English](README.md)" in chinese
    targets = [t.split("#")[0] for t in re.findall(r"\]\(([^)\s]+)\)", chinese)]
    broken = [t for t in targets if t and not re.match(r"^[a-z]+:", t) and not (ROOT / t).exists()]
    assert not broken, f"README.zh-CN.md links to nothing: {broken}"
    for line in chinese.splitlines():
        if line.startswith("| [") and "](notebooks/" in line and "/zh/" not in line:
            assert "（英文版）" in line, f"mark a link to an English notebook: {line[:60]}"


def readme_pointers(text: str) -> dict[str, set[str]]:
    """What a README points its reader to: the repository files it links (notebooks aside: the course map test
    pairs those), the make targets and the ``python -m`` programs it names."""
    return {
        "files": {
            t.split("#")[0]
            for t in re.findall(r"\]\(([^)\s]+)\)", text)
            if t.split("#")[0] and not re.match(r"^[a-z]+:", t) and not t.startswith("notebooks/")
        }
        - {"README.md", "README.zh-CN.md"},
        "make targets": set(re.findall(r"(?:`|^)make ([a-z][a-z-]*)", text, flags=re.M)),
        "programs": set(re.findall(r"-m (bertedu[\w.]*)", text)),
    }


def test_the_chinese_readme_points_to_everything_the_english_one_does():
    """The review of 2026-12-06 (F7) found README.zh-CN.md silently without the instructor guide, nbgrader, the
    scaling guide, `make html` and the pretraining command line: every file README.md links, every make target
    it names and every ``python -m`` program must be named in the Chinese README as well, where it says what they
    are (the Chinese README may add its own: ``make lab-zh``)."""
    english = readme_pointers((ROOT / "README.md").read_text(encoding="utf-8"))
    chinese = readme_pointers((ROOT / "README.zh-CN.md").read_text(encoding="utf-8"))
    assert {"docs/instructor_guide.md", "docs/scaling.md"} <= english["files"], (
        "the check reads README.md's links"
    )
    assert {"lab", "test", "assignments", "html"} <= english["make targets"] and "bertedu.cli" in english[
        "programs"
    ]
    missing = {kind: sorted(english[kind] - chinese[kind]) for kind in english}
    assert not any(missing.values()), f"README.zh-CN.md does not point to what README.md does: {missing}"
