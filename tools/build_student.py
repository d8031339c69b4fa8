"""Build the student edition of the course: ``make student`` (also the first step of ``make lab``).

Usage: python tools/build_student.py [--out student] [notebooks/01_x.ipynb ...]   (default: every notebook)
       python tools/build_student.py --hosted [--out hosted] [...]     the hosted edition (tools/hosted.py)

Writes ``student/NN_topic.ipynb`` from ``notebooks/NN_topic.ipynb`` with the conventions of tools/editions.py:
no reference solutions (stubs instead), no outputs, no widget state. Deterministic: the same sources give
byte-identical files. The Chinese edition, ``notebooks/zh/``, has its own in ``student-zh/`` (``make
student-zh``): a top-level folder, so that JupyterLab's listing of ``student/`` starts with the notebooks.
Relative links in the Markdown are re-pointed for the student edition's folder (EDITION_FOLDERS): a link to a
course notebook goes to its student copy, any other link to the same file as before.

A student's work is never overwritten. ``student/.manifest.json`` records the hash of every file this
script wrote. On a rebuild a notebook the student has not touched is replaced by the new version; a
notebook the student changed (or a file the script never wrote) is left exactly as it is, and when the
course's version changed, the new one is written next to it as ``NN_topic.new.ipynb`` with a message.
"""

from __future__ import annotations

import argparse
import json
import posixpath
import re
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import editions  # noqa: E402
import hosted  # noqa: E402

from bertedu import language  # noqa: E402
from bertedu.files import atomic_write_json, atomic_write_text  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ".manifest.json"
# Where the student edition of each folder of course notebooks lives (relative to the repository).
EDITION_FOLDERS = {
    language.NOTEBOOK_FOLDERS[lang]: language.STUDENT_FOLDERS[lang] for lang in language.LANGUAGES
}
# Where a translated student edition used to be: inside student/ (JupyterLab listed it first there).
OLD_EDITIONS = {
    language.STUDENT_FOLDERS[lang]: f"{language.STUDENT_FOLDERS[language.DEFAULT_LANGUAGE]}/{lang}"
    for lang in language.LANGUAGES
    if lang != language.DEFAULT_LANGUAGE
}
COURSE_NOTEBOOK = re.compile(r"[0-9][0-9]_\w+\.ipynb")
_MD_LINK = re.compile(r"(?P<head>!?\[[^\]]*\]\()(?P<target>[^)\s]+)")
_HTML_LINK = re.compile(r"(?P<head>\b(?:src|href)=\")(?P<target>[^\"]+)")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def repoint(target: str, folder: str) -> str:
    """A relative link of a notebook in ``folder`` (a key of EDITION_FOLDERS), as seen from that folder's
    student edition: a course notebook becomes its student copy, anything else stays the same file."""
    if _SCHEME.match(target) or target.startswith(("#", "/")):
        return target
    cut = min((i for i in (target.find("#"), target.find("?")) if i >= 0), default=len(target))
    path, rest = target[:cut], target[cut:]
    if not path:
        return target
    resolved = posixpath.normpath(posixpath.join(folder, path))
    where, name = posixpath.split(resolved)
    if where in EDITION_FOLDERS and COURSE_NOTEBOOK.fullmatch(name):
        resolved = posixpath.join(EDITION_FOLDERS[where], name)
    return posixpath.relpath(resolved, EDITION_FOLDERS[folder]) + rest


def repoint_links(nb, source: Path) -> None:
    """Re-point the relative links of ``nb``'s Markdown cells (``source``'s notebook) for its student edition.
    Sources outside the folders of EDITION_FOLDERS (e.g. a test's notebooks) are left as they are."""
    try:
        folder = source.resolve().parent.relative_to(ROOT).as_posix()
    except ValueError:
        return
    if folder not in EDITION_FOLDERS:
        return

    def relink(match: re.Match) -> str:
        return match["head"] + repoint(match["target"], folder)

    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = _HTML_LINK.sub(relink, _MD_LINK.sub(relink, cell.source))


def move_old_edition(out: Path) -> None:
    """A translated student edition used to be inside student/ (student/zh/): move it to its own folder ``out``
    (student-zh/), with the student's work in it, so that JupyterLab's listing of student/ starts with the
    notebooks. Nothing happens for another ``out``."""
    old_name = OLD_EDITIONS.get(out.name)
    old = ROOT / old_name if old_name else None
    if old is None or not old.is_dir():
        return
    if out.exists():
        print(
            f"note: {old_name}/ is where this student edition used to be; it is now in "
            f"{out.name}/. {old_name}/ was left as it is: copy what you need, then delete it.",
            file=sys.stderr,
        )
        return
    old.rename(out)
    print(f"The student edition moved from {old_name}/ to {out.name}/, your work with it.")


def load_manifest(out: Path) -> dict[str, str]:
    path = out / MANIFEST
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return dict(data.get("files", {}))
    except (ValueError, AttributeError):
        print(f"warning: {path} is damaged; every existing notebook is treated as your work", file=sys.stderr)
        return {}


def write_unless_changed(path: Path, text: str, manifest: dict[str, str]) -> str:
    """Write ``text`` to ``path`` unless the file there is the student's. Returns what happened:
    "new", "updated", "unchanged" or "kept" (the file holds the student's work and was not touched)."""
    digest = editions.sha256(text)
    if not path.exists():
        atomic_write_text(path, text)
        manifest[path.name] = digest
        return "new"
    current = editions.sha256(path.read_bytes())
    if manifest.get(path.name) != current:
        return "kept"
    if current == digest:
        return "unchanged"
    atomic_write_text(path, text)
    manifest[path.name] = digest
    return "updated"


def course_pins() -> tuple[str, str]:
    """The course's version and its torch requirement, from pyproject.toml (the hosted edition's pins)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    torch_pin = next(r for r in project["dependencies"] if re.match(r"torch\b", r))
    return project["version"], torch_pin


def edition_of(source: Path, *, hosted_edition: bool = False):
    """The student edition of the notebook at ``source`` (with ``hosted_edition``, the hosted edition)."""
    student_nb = editions.student_notebook(editions.read(source), source.name)
    repoint_links(student_nb, source)
    if hosted_edition:
        return hosted.hosted_notebook(student_nb, source.name, *course_pins())
    return student_nb


def build(
    sources: list[Path], out: Path, *, quiet: bool = False, hosted_edition: bool = False
) -> dict[str, str]:
    """Build the student edition of ``sources`` into ``out`` (with ``hosted_edition``, the hosted edition);
    returns ``{file name: what happened}``."""
    out.mkdir(parents=True, exist_ok=True)
    manifest = load_manifest(out)
    report: dict[str, str] = {}
    counts: dict[str, int] = {}  # what happened ("new", "updated", "unchanged", "kept") -> how many notebooks
    say = (lambda *a: None) if quiet else print
    for source in sources:
        text = editions.notebook_text(edition_of(source, hosted_edition=hosted_edition))
        target = out / source.name
        kind = status = write_unless_changed(target, text, manifest)
        if kind == "kept":
            ours = manifest.get(source.name)
            if ours is not None and ours == editions.sha256(text):
                status = "kept (no newer version)"
            else:
                newer = target.with_name(f"{target.stem}.new.ipynb")
                done = write_unless_changed(newer, text, manifest)
                status = (
                    f"kept; new version in {newer.name}" if done != "kept" else "kept (and your .new copy)"
                )
                say(
                    f"{out.name}/{target.name} holds your own work, so it was left as it is. The course's new "
                    f"version is {out.name}/{newer.name}"
                    + ("" if done != "kept" else " (which you changed too, so it was not refreshed either)")
                    + f": open both and copy what you need, or delete {target.name} and run `make student` again."
                )
        report[source.name] = status
        counts[kind] = counts.get(kind, 0) + 1
    atomic_write_json(out / MANIFEST, {"format": 1, "files": dict(sorted(manifest.items()))})
    say(
        f"{'hosted' if hosted_edition else 'student'} edition in {out}/: "
        + ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    )
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: notebooks/[0-9][0-9]_*.ipynb")
    parser.add_argument("--out", type=Path, help="default: student/ (hosted/ with --hosted)")
    parser.add_argument("--lint", action="store_true", help="only list convention problems (exit 1 if any)")
    parser.add_argument(
        "--hosted",
        action="store_true",
        help="the hosted edition (Colab, ...): a first cell installs the course",
    )
    args = parser.parse_args(argv)
    args.out = args.out or ROOT / ("hosted" if args.hosted else "student")
    sources = args.notebooks or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    missing = [str(p) for p in sources if not p.is_file()]
    if missing:
        print(f"error: not a notebook file: {', '.join(missing)}", file=sys.stderr)
        return 2
    if args.lint:
        problems = [p for s in sources for p in editions.lint(editions.read(s), s.name)]
        print("\n".join(problems) or "no problems")
        return 1 if problems else 0
    if args.out.resolve().parent == ROOT.resolve():
        move_old_edition(args.out)
    try:
        build(sources, args.out, hosted_edition=args.hosted)
    except editions.EditionError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
