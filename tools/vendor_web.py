"""Vendor the JavaScript packages of the course's web pages: only the few files a page loads, no CDN at view time.

    python tools/vendor_web.py [--out build/web/vendor]

installs ``web/package.json`` exactly as ``web/package-lock.json`` pins it (``npm ci --ignore-scripts``, tools/npm_pins.py:
versions and integrity hashes from the lock, no install scripts) in a scratch folder, ``build/web/npm``, and copies into the
output folder the files listed in :data:`FILES`, with a ``NOTICE`` naming each package, its version and licence.
Nothing is downloaded again while the lock file is unchanged (a stamp holds its SHA-256).

What is vendored, and why not committed: MathJax 3's TeX-to-HTML build with its fonts (about 7 MB; the site's maths,
so that ``\\mathbb{R}`` renders without a network), and onnxruntime-web's WebAssembly build (the mini-BERT page) is one ES module
of 50 kB (``ort.wasm.min.mjs``, the API), its 24 kB loader (``ort-wasm-simd-threaded.mjs``) and a 14 MB ``.wasm``
binary. The package itself is 136 MB of variants (WebGPU, WebGL, JSPI, asyncify, source maps) that a page never
loads. A 14 MB binary that changes with every release would bloat the repository's history, and the lock file
pins it byte for byte anyway, so it is built, not committed: ``build/`` is ignored by git, and the site build copies
the vendored folder next to the pages. Introduced for the course's web site.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from npm_pins import copy_path, lock_digest, notice_line, npm_ci, vendoring

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "web"
DEFAULT_OUT = ROOT / "build" / "web" / "vendor"
SCRATCH = ROOT / "build" / "web" / "npm"

#: package → the files (or folders) of its ``dist`` folder that the pages load (a 1-thread WebAssembly build: a plain
#: static host sends no cross-origin-isolation headers, so the browser has no shared memory for threads anyway).
FILES: dict[str, tuple[str, ...]] = {
    "onnxruntime-web": ("ort.wasm.min.mjs", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm"),
    # the site's maths (Sphinx's mathjax_path): TeX to HTML, its fonts, the TeX extensions it loads on demand
    # (\mathbb, \boldsymbol, ...), the menu's accessibility parts and their speech rules
    "mathjax": ("tex-chtml.js", "input/tex/extensions", "output/chtml/fonts/woff-v2", "a11y", "ui", "sre"),
}
#: the folder of each package that FILES names files in
DIST: dict[str, str] = {"onnxruntime-web": "dist", "mathjax": "es5"}


def vendor(out: Path = DEFAULT_OUT, scratch: Path = SCRATCH) -> list[Path]:
    """Copy :data:`FILES` into ``out/PACKAGE/`` (after ``npm ci`` when the lock changed; one process at a time);
    returns every file."""
    with vendoring(out):
        return _vendor(out, scratch)


def _vendor(out: Path, scratch: Path) -> list[Path]:
    stamp = out / ".lock-sha256"
    wanted = [out / package / name for package, names in FILES.items() for name in names]
    if stamp.is_file() and stamp.read_text().strip() == lock_digest(WEB) and all(p.exists() for p in wanted):
        return _files(wanted)
    modules = npm_ci(WEB, scratch)
    notices = []
    for package, names in FILES.items():
        target = out / package
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        for name in names:
            copy_path(modules / package / DIST[package] / name, target / name)
        notices.append(notice_line(modules, package, names))
    (out / "NOTICE").write_text(
        "Vendored by tools/vendor_web.py from web/package-lock.json; each package's licence applies to its files.\n"
        + "\n".join(notices)
        + "\n",
        encoding="utf-8",
    )
    stamp.write_text(lock_digest(WEB) + "\n")
    shutil.rmtree(modules)  # 136 MB of variants no page loads; npm ci starts from nothing anyway
    return _files(wanted)


def _files(paths: list[Path]) -> list[Path]:
    """The files of ``paths``, folders expanded."""
    return [
        f for p in paths for f in ([p] if p.is_file() else sorted(x for x in p.rglob("*") if x.is_file()))
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/vendor_web.py",
        description="Copy the files the web pages load from npm packages pinned by web/package-lock.json.",
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default: {DEFAULT_OUT})"
    )
    args = parser.parse_args(argv)
    try:
        files = vendor(args.out)
    except (FileNotFoundError, RuntimeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    total = sum(p.stat().st_size for p in files) / 1e6
    print(f"Vendored {len(files)} files ({total:.1f} MB) into {args.out}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
