"""npm packages pinned by a lock file, for the tools that vendor JavaScript: web/ (tools/vendor_web.py) and slides/
(tools/build_slides.py).

A package folder holds ``package.json`` and ``package-lock.json``. :func:`npm_ci` installs it exactly as the lock
pins it (``npm ci --ignore-scripts``: versions and integrity hashes from the lock, no install scripts) in a scratch
folder; :func:`lock_digest` is the SHA-256 the callers keep as a stamp, so nothing is downloaded again while the lock
is unchanged, and :func:`vendoring` lets one process at a time make a vendored folder; :func:`copy_path` and :func:`notice_line` copy the files a page loads and name their package, version
and licence in a ``NOTICE``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock

PIN_FILES = ("package.json", "package-lock.json")


def lock_digest(folder: Path) -> str:
    """SHA-256 of ``folder``'s package.json and package-lock.json: what the vendored files were made from."""
    digest = hashlib.sha256()
    for name in PIN_FILES:
        digest.update((folder / name).read_bytes())
    return digest.hexdigest()


@contextmanager
def vendoring(out: Path):
    """Hold the lock of the vendored folder ``out`` (a file beside it): one process at a time checks its stamp,
    runs ``npm ci`` in the shared scratch folder and copies. Two test workers building the slides at once on a fresh
    clone otherwise emptied each other's scratch folder (``Directory not empty``)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(out.parent / f".{out.name}.lock"):
        yield


def npm_ci(folder: Path, scratch: Path) -> Path:
    """``npm ci`` of ``folder``'s package-lock.json in ``scratch`` (no install scripts); returns its node_modules."""
    npm = shutil.which("npm")
    if npm is None:
        raise FileNotFoundError("npm is not installed: install Node.js (Debian: apt-get install nodejs npm).")
    scratch.mkdir(parents=True, exist_ok=True)
    for name in PIN_FILES:
        shutil.copy2(folder / name, scratch / name)
    done = subprocess.run(
        [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=scratch,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"npm ci failed in {scratch}:\n{done.stderr.strip()[-2000:]}")
    return scratch / "node_modules"


def copy_path(source: Path, dest: Path) -> None:
    """Copy a file or a whole folder to ``dest``, making its parent folders."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, dest)
    else:
        shutil.copy2(source, dest)


def notice_line(modules: Path, package: str, names: tuple[str, ...]) -> str:
    """The NOTICE line of one installed package: its name, version, licence and the files taken from it."""
    meta = json.loads((modules / package / "package.json").read_text(encoding="utf-8"))
    return f"{package} {meta['version']} ({meta.get('license', 'see its package')}): {', '.join(names)}"
