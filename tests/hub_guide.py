"""The JupyterHub section of docs/instructor_guide.md as tests/test_hub.py runs it: the shell blocks the guide marks
(``<!-- hub-test: NAME -->`` on the line before the fence, ``<!-- /hub-test -->`` on the line after), read from the
guide itself, with the test's own user names and folders put in for the guide's.

What is put in (:class:`Site`): the class list's names, ``teacher`` and the two groups (names of the test's own,
unique, removed after it); the folders and files of the machine the guide sets up (``/home/``,
``/srv/nbgrader/exchange``, ``/etc/jupyter``, ``/srv/jupyterhub``, ``/etc/login.defs``), in a scratch folder. Every
one of them must occur in the blocks: a guide that stops naming one fails here, rather than running unchanged.
Two commands are stood in for on ``PATH`` (:func:`write_commands`): ``passwd`` (the test's users log in with a
shared password; nothing to type), and ``useradd``, which makes the home under the scratch folder and reads the
scratch copy of ``/etc/login.defs`` (bound over the real one in a mount namespace of its own, or, where that is
not allowed, its ``HOME_MODE`` passed with ``-K``). Everything else runs as printed: groupadd, chmod, chown, cp,
sed.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "instructor_guide.md"
#: the blocks tests/test_hub.py runs, in this order: users and homes; then exchange, settings and course folder
BLOCKS = ("users", "course")
MARKED = re.compile(
    r"^[ \t]*<!-- hub-test: (?P<name>[\w-]+) -->\n[ \t]*```sh\n(?P<body>.*?)^[ \t]*```\n[ \t]*<!-- /hub-test -->",
    re.M | re.S,
)
CLASS_LINE = re.compile(r'^CLASS="(?P<names>[^"]*)"', re.M)
#: the guide's names that are not the class list's: the instructor and the two groups
INSTRUCTOR, GROUPS = "teacher", ("students", "instructors")
#: the guide's folders and files of the machine, each put in the scratch folder under this name
FOLDERS = {
    "/srv/nbgrader/exchange": "exchange",
    "/srv/jupyterhub": "state",
    "/etc/jupyter": "etc-jupyter",
    "/etc/login.defs": "login.defs",
    "/home/": "home/",
}


class GuideError(AssertionError):
    """The guide's hub section is not what the test can run: a marked block or a name is missing."""


def marked_blocks(text: str | None = None) -> dict[str, str]:
    """The guide's marked shell blocks by name (dedented); fails if one of :data:`BLOCKS` is missing or twice."""
    text = GUIDE.read_text(encoding="utf-8") if text is None else text
    found: dict[str, str] = {}
    for match in MARKED.finditer(text):
        if match["name"] in found:
            raise GuideError(f"the guide marks two blocks `hub-test: {match['name']}`")
        found[match["name"]] = textwrap.dedent(match["body"])
    missing = [name for name in BLOCKS if name not in found]
    if missing:
        raise GuideError(
            f"docs/instructor_guide.md has no shell block marked <!-- hub-test: {missing[0]} --> ... "
            "<!-- /hub-test --> (the marker on the line before the ```sh fence, its end on the line after)"
        )
    return found


def class_list(blocks: dict[str, str]) -> list[str]:
    """The guide's class list: the names of its ``CLASS="..."`` line (one, in the users block)."""
    lines = CLASS_LINE.findall(blocks["users"])
    if len(lines) != 1:
        raise GuideError(f'the users block must set the class list once, CLASS="name name ...": {lines}')
    return lines[0].split()


@dataclass
class Site:
    """The test's names and folders for the guide's. ``names``: guide name -> test name (students, the instructor,
    the groups); ``folders``: guide path -> scratch path. ``top``: the scratch folder."""

    top: Path
    names: dict[str, str]
    folders: dict[str, str] = field(default_factory=dict)

    def put_in(self, block: str) -> str:
        """``block`` with the test's names (whole words), then its folders (path prefixes)."""
        for guide, ours in self.names.items():
            block = re.sub(rf"(?<![\w-]){re.escape(guide)}(?![\w-])", ours, block)
        for guide, ours in sorted(self.folders.items(), key=lambda kv: -len(kv[0])):
            block = block.replace(guide, ours)
        return block

    def check_covers(self, blocks: dict[str, str]) -> None:
        """Every name and folder put in occurs in the blocks: the guide still sets up what the test stands in for."""
        text = "\n".join(blocks.values())
        for guide in [*self.folders, *self.names]:
            if guide not in text:
                raise GuideError(
                    f"the guide's marked blocks no longer name {guide!r}; tests/hub_guide.py puts it in"
                )

    def path(self, guide_path: str) -> Path:
        """Where the test keeps what the guide puts at ``guide_path`` (``/home/alice`` -> the scratch home)."""
        return Path(self.put_in(guide_path))

    @property
    def students(self) -> list[str]:
        return [ours for guide, ours in self.names.items() if guide not in (INSTRUCTOR, *GROUPS)]


def make_site(top: Path, tag: str, blocks: dict[str, str]) -> Site:
    """The test's site in ``top``: names made unique with ``tag``, the folders under ``top``, a copy of this
    machine's /etc/login.defs (an empty file where it has none)."""
    names = {guide: f"bh{tag}s{i}" for i, guide in enumerate(class_list(blocks))}
    names[INSTRUCTOR] = f"bh{tag}in"
    names |= {group: f"bh{tag}{group[:3]}" for group in GROUPS}
    site = Site(top, names, {guide: f"{top}/{ours}" for guide, ours in FOLDERS.items()})
    site.check_covers(blocks)
    (top / "home").mkdir(mode=0o755, exist_ok=True)
    defs = Path("/etc/login.defs")
    (top / "login.defs").write_text(defs.read_text() if defs.is_file() else "")
    return site


USERADD = """#!/bin/sh
# useradd as the guide types it, for tests/test_hub.py: the home under the scratch folder, and /etc/login.defs
# read from the scratch copy the guide's sed edits
DEFS={defs}
if unshare -m true 2>/dev/null; then
    exec unshare -m sh -c 'mount --bind "$0" /etc/login.defs && exec {useradd} "$@"' "$DEFS" -b {base} "$@"
fi
mode=$(sed -n 's/^HOME_MODE[[:space:]]*//p' "$DEFS" | tail -n 1)
exec {useradd} ${{mode:+-K HOME_MODE=$mode}} -b {base} "$@"
"""
PASSWD = """#!/bin/sh
# passwd for tests/test_hub.py: the test's users log in with the hub's shared password
echo "$@" >> {log}
"""


def write_commands(site: Path | Site, useradd: str | None = None) -> Path:
    """The stand-ins for ``passwd`` and ``useradd`` in ``site.top/bin`` (put first on PATH by :func:`run_block`);
    ``useradd``: the script to use instead of the real one's wrapper (tests without root)."""
    site = site if isinstance(site, Site) else Site(site, {})
    bin_dir = site.top / "bin"
    bin_dir.mkdir(exist_ok=True)
    real = shutil.which("useradd", path="/usr/sbin:/sbin:/usr/bin:/bin") or "/usr/sbin/useradd"
    script = useradd or USERADD.format(defs=site.top / "login.defs", base=site.top / "home", useradd=real)
    (bin_dir / "useradd").write_text(script)
    (bin_dir / "passwd").write_text(PASSWD.format(log=site.top / "passwd.log"))
    for name in ("useradd", "passwd"):
        (bin_dir / name).chmod(0o755)
    return bin_dir


def run_block(block: str, site: Site, cwd: Path) -> str:
    """Run a marked block with the test's names and folders, as root pastes it into a shell (``sh -e``), in
    ``cwd``; returns what it printed, and fails with it if a command failed."""
    env = {**os.environ, "PATH": f"{site.top / 'bin'}:/usr/sbin:/usr/bin:/sbin:/bin"}
    done = subprocess.run(
        ["sh", "-e", "-c", site.put_in(block)], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    if done.returncode != 0:
        raise AssertionError(f"the guide's block failed:\n{site.put_in(block)}\n{done.stdout}\n{done.stderr}")
    return done.stdout + done.stderr


def open_homes(site: Site) -> dict[str, str]:
    """The homes of the site's users that another user can enter or list: {home: its mode}."""
    found = {}
    for name in [*site.students, site.names[INSTRUCTOR]]:
        home = site.top / "home" / name
        mode = stat.S_IMODE(home.stat().st_mode)
        if mode & 0o077:
            found[str(home)] = oct(mode)
    return found
