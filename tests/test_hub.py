"""A class on a JupyterHub, end to end: hub/jupyterhub_config.py serves three students, nbgrader's exchange on the
same machine carries an assignment out and back (docs/instructor_guide.md, "Running a class on a JupyterHub").

The hub starts with the shipped configuration and hub/test_config.py on top (a shared-password authenticator instead
of PAM: the test's users have no system password), its proxy from npm (hub/package-lock.json, ``npm ci`` on the
first run), a LocalProcessSpawner and the exchange in a scratch folder. Students and the instructor are real Unix
users, made for the test and removed after it, so file permissions are the operating system's. Each student logs
in through the hub's login page, starts a server through the hub's REST API and, through that server (nbgrader's
Assignments extension and Jupyter's contents API), lists and fetches notebook 01's assignment, answers it (all
right, all right but the first, nothing), submits it and later fetches the feedback. The instructor, in a course
folder in a home only they read, releases, collects, autogrades, releases feedback and exports the grades
(3, 2 and 0 points). As each student, reading another's submission, the gradebook or the instructor's sources
fails. Needs root (useradd, a spawner that changes user). Skipped unless ``BERTEDU_HUB_TEST=1`` (``.ci/run`` sets it;
``make test`` alone does not, since it needs root); asked for, it fails if it cannot run. Where
the course's Python interpreter sits in a folder only root reads (built under /root), the users run the same files
hard-linked into the scratch folder (``course_python``).
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
from test_nbgrader import ASSIGNMENT, SOURCE, solved  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HUB = ROOT / "hub"
PROXY = HUB / "node_modules" / ".bin" / "configurable-http-proxy"
COURSE_ID = "bertedu"
NOTEBOOK = SOURCE.name
WRONG = ("softmax(scores_3, axis=-1)", "softmax(scores_3, axis=0)")  # the partly right student's mistake
#: the three students: how much of the assignment each answers, and the points that earns (of 3)
ANSWERS = {"right": 3, "partly": 2, "none": 0}


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
    """Unix users made for the test (unique names), removed with their processes afterwards."""

    def __init__(self, homes: Path):
        self.homes, self.tag, self.made = homes, secrets.token_hex(3), []

    def add(self, role: str) -> str:
        name = f"bh{self.tag}{role}"[:32]
        home = self.homes / name
        subprocess.run(["useradd", "-m", "-d", str(home), "-s", "/bin/sh", name], check=True)
        self.made.append(name)
        home.chmod(0o700)  # a home only its user reads (Debian's useradd defaults to 0755)
        return name

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
        for name in self.made:
            for pid in self.processes(name):  # what the hub left running as this user (it should be nothing)
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            subprocess.run(["userdel", name], check=False, capture_output=True)


def as_user(user: str, home: Path, *command: str, cwd: Path | None = None, python: Python) -> str:
    """Run ``command`` as Unix user ``user`` (runuser), in a login-like environment with the course's venv."""
    env = [
        f"HOME={home}",
        f"USER={user}",
        f"PATH={python.bin}:/usr/bin:/bin",
        "PYTHONHASHSEED=0",
        "OMP_NUM_THREADS=1",
        *(f"{k}={v}" for k, v in python.env.items()),
    ]
    done = subprocess.run(
        ["runuser", "-u", user, "--", "env", "-i", *env, *command],
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

    def __init__(self, state: Path, students: list[str], python: Python):
        self.port, self.token, self.password = free_port(), secrets.token_hex(16), secrets.token_hex(8)
        self.url = f"http://127.0.0.1:{self.port}"
        settings = {
            "password": self.password,
            "students": students,
            "port": self.port,
            "hub_port": free_port(),
            "proxy_api_port": free_port(),
            "state": str(state),
            "token": self.token,
            "environment": python.env,
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


def start_server(hub: Hub, name: str) -> requests.Session:
    """Log ``name`` in, then start their server with a token of their own; returns a session for the server."""
    refused = log_in(hub, name, hub.password + "x")
    assert "jupyterhub-hub-login" not in refused.cookies, "a wrong password logged in"
    session = log_in(hub, name, hub.password)
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


def assignment_action(server, action: str) -> list[dict]:
    """nbgrader's Assignments extension in the student's server: fetch, submit or fetch_feedback."""
    data = {"course_id": COURSE_ID, "assignment_id": ASSIGNMENT}
    reply = server.post(f"{server.base}/assignments/{action}", data=data, timeout=120)
    reply.raise_for_status()
    listed = reply.json()
    assert not (isinstance(listed, dict) and not listed.get("success", True)), listed
    return listed["value"] if isinstance(listed, dict) else listed


def listed(server) -> list[dict]:
    reply = server.get(f"{server.base}/assignments", params={"course_id": COURSE_ID}, timeout=60)
    reply.raise_for_status()
    body = reply.json()
    assert body["success"], body
    return [a for a in body["value"] if a["assignment_id"] == ASSIGNMENT]


def answer(server, how: str, source) -> None:
    """Edit the fetched notebook through the server's contents API: all right, all but the first, or nothing."""
    if how == "none":
        return
    url = f"{server.base}/api/contents/{ASSIGNMENT}/{NOTEBOOK}"
    got = server.get(url, params={"content": 1}, timeout=60)
    got.raise_for_status()
    nb = solved(nbformat.from_dict(got.json()["content"]), source)
    if how == "partly":
        first = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "answer-1")
        assert WRONG[0] in first.source
        first.source = first.source.replace(*WRONG)
    put = server.put(url, json={"type": "notebook", "format": "json", "content": nb}, timeout=60)
    assert put.status_code == 200, put.text


#: run as each student: what they must not read (exit status 0 only if every attempt was refused)
PROBE = """
import glob, json, os, sys
paths = json.loads(sys.argv[1])
refused, allowed = [], []
for what, path in paths["forbidden"].items():
    try:
        if os.path.isdir(path) or what.endswith("listing"):
            os.listdir(path)
        else:
            open(path, "rb").read(1)
        allowed.append(what)
    except (PermissionError, FileNotFoundError) as err:
        refused.append([what, type(err).__name__])
own = open(paths["own"], "rb").read(1)
guessed = glob.glob(paths["guess"])
print(json.dumps({"refused": refused, "allowed": allowed, "own": len(own), "guessed": guessed}))
"""


#: run as the instructor in the course folder: nbgrader's steps through its Python API (what the formgrader calls),
#: in one process instead of one per command; the config as the nbgrader command reads it (./nbgrader_config.py
#: and hub/nbgrader_config.py from the Jupyter config path). argv: the assignment, then the steps.
INSTRUCTOR = """
import sys
from nbgrader.api import Gradebook
from nbgrader.apps import NbGraderAPI
from nbgrader.apps.baseapp import NbGrader
from nbgrader.plugins import CsvExportPlugin

app = NbGrader()
app.load_config_file()  # ./nbgrader_config.py, then those of the Jupyter config path
api = NbGraderAPI(config=app.config)
assignment, steps = sys.argv[1], sys.argv[2:]
students = lambda: sorted(api.get_submitted_students(assignment))
for step in steps:
    if step == "export":
        with Gradebook(api.coursedir.db_url) as gradebook:
            CsvExportPlugin(config=app.config).export(gradebook)
        continue
    if step in ("autograde", "generate_feedback"):
        results = [getattr(api, step)(assignment, student) for student in students()]
    else:
        results = [getattr(api, step)(assignment)]
    for result in results:
        if not result["success"]:
            sys.exit(f"{step} failed: {result.get('error')}\\n{result.get('log')}")
    print(step, "done", len(results))
"""


def probe(user: str, home: Path, python: Python, forbidden: dict[str, str], own: Path, guess: str) -> dict:
    paths = json.dumps({"forbidden": forbidden, "own": str(own), "guess": guess})
    out = as_user(user, home, str(python.bin / "python"), "-I", "-c", PROBE, paths, python=python)
    return json.loads(out.strip().splitlines()[-1])


def nothing_readable(inbound: Path, course: Path, students: dict[str, str], home, python: Python) -> None:
    """As each student: the exchange's inbound cannot be listed, a classmate's submission cannot be named without
    its random part, nor found; the classmates' homes, the gradebook and the instructor's sources cannot be read."""
    submissions = sorted(p.name for p in inbound.iterdir())
    assert len(submissions) == len(students), submissions
    for how, name in students.items():
        other = next(n for n in students.values() if n != name)
        theirs = next(s for s in submissions if s.startswith(f"{other}+"))
        stamp = theirs.split("+")[2]
        forbidden = {
            "inbound listing": str(inbound),
            "classmate's submission without its random part": str(
                inbound / f"{other}+{ASSIGNMENT}+{stamp}" / NOTEBOOK
            ),
            "classmate's home listing": str(home(other)),
            "classmate's fetched notebook": str(home(other) / ASSIGNMENT / NOTEBOOK),
            "gradebook": str(course / "gradebook.db"),
            "instructor's source listing": str(course / "source"),
            "instructor's source notebook": str(course / "source" / ASSIGNMENT / NOTEBOOK),
        }
        for what, path in forbidden.items():  # there, so a refusal is the permissions' doing
            assert Path(path).exists() == ("random part" not in what), path
        own = home(name) / ASSIGNMENT / NOTEBOOK
        seen = probe(name, home(name), python, forbidden, own, str(inbound / f"{other}+*"))
        assert not seen["allowed"] and seen["own"] == 1 and seen["guessed"] == [], (how, seen)
        assert dict(seen["refused"])["gradebook"] == "PermissionError"


def check_feedback(home: Path, how: str, uid: int) -> None:
    """The student fetched one feedback page, theirs, that names a failed check per point missed."""
    pages = list((home / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html"))
    assert len(pages) == 1, (how, pages)
    assert pages[0].stat().st_uid == uid
    text = html.unescape(re.sub(r"<[^>]+>", "", pages[0].read_text(encoding="utf-8")))
    failed = re.findall(r"AssertionError: ([^\n]*)", text)
    assert len(failed) == 3 - ANSWERS[how], (how, failed)  # one point per exercise
    assert how != "partly" or "wrong axis" in failed[0], failed


@pytest.fixture
def machine():
    """A scratch folder readable by the test's users (pytest's tmp_path is root's alone), users in it; removed."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        needs("the hub test makes Unix users and spawns servers as them: run it as root (CI does)")
    for program in ("useradd", "userdel", "runuser"):
        if shutil.which(program) is None:
            needs(f"{program} is not installed")
    top = Path(tempfile.mkdtemp(prefix="bertedu-hub-"))
    top.chmod(0o755)
    (top / "home").mkdir(mode=0o755)
    users = Users(top / "home")
    try:
        yield top, users
    finally:
        users.remove()
        shutil.rmtree(top, ignore_errors=True)


def test_the_guide_installs_the_pinned_hub():
    """The guide's hub section installs the versions pyproject.toml and hub/package.json pin, and the shipped
    configuration names the proxy npm installs."""
    guide = (ROOT / "docs" / "instructor_guide.md").read_text(encoding="utf-8")
    section = re.search(r"^## Running a class on a JupyterHub\n.*?(?=^## |\Z)", guide, re.M | re.S).group()
    dev = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["dev"]
    pins = {name: f"{name}=={version}" for name, version in (p.split("==") for p in dev)}
    assert pins["jupyterhub"] in section and pins["nbgrader"] in section
    proxy_version = json.loads((HUB / "package.json").read_text())["dependencies"]["configurable-http-proxy"]
    assert f"`configurable-http-proxy` {proxy_version}" in section
    assert '"node_modules" / ".bin" / "configurable-http-proxy"' in (HUB / "jupyterhub_config.py").read_text()


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
    instructor = users.add("in")
    students = {how: users.add(f"s{i}") for i, how in enumerate(ANSWERS)}
    home = lambda name: top / "home" / name  # noqa: E731

    # nbgrader's settings for everyone (hub/nbgrader_config.py, as /etc/jupyter/ would hold it), the exchange
    # as nbgrader documents it, and the instructor's course folder, built as `make assignments` does
    config = top / "etc-jupyter"
    config.mkdir(mode=0o755)
    shipped = (HUB / "nbgrader_config.py").read_text()
    assert shipped.count('"/srv/nbgrader/exchange"') == 1
    exchange = top / "exchange"
    (config / "nbgrader_config.py").write_text(shipped.replace("/srv/nbgrader/exchange", str(exchange)))
    exchange.mkdir()
    exchange.chmod(0o777)
    python = course_python(top)
    python.env["JUPYTER_CONFIG_PATH"] = str(config)  # where /etc/jupyter/nbgrader_config.py would be
    course = home(instructor) / "course"
    build_assignments.build([SOURCE], course, package=False)
    subprocess.run(["chown", "-R", f"{instructor}:{instructor}", str(course)], check=True)

    def nbgrader(*steps: str) -> str:
        driver = (str(python.bin / "python"), "-c", INSTRUCTOR, ASSIGNMENT, *steps)
        return as_user(instructor, home(instructor), *driver, cwd=course, python=python)

    lap("set-up")
    (top / "state").mkdir()
    with ThreadPoolExecutor(1) as instructor_side:  # the instructor releases while the hub and servers start
        released = instructor_side.submit(nbgrader, "generate_assignment", "release_assignment")
        hub = Hub(top / "state", list(students.values()), python)
        try:
            with ThreadPoolExecutor(len(students)) as pool:
                started_servers = pool.map(lambda name: start_server(hub, name), students.values())
                servers = dict(zip(students, started_servers))
            released.result()
        except BaseException:
            hub.stop()
            raise
    lap("release; hub start, log in, servers")
    source = nbformat.read(course / "source" / ASSIGNMENT / NOTEBOOK, as_version=4)
    try:
        # the kernels of each student's server train on one torch thread: the server runs as the student with
        # the hub's environment, which its kernels inherit
        for name in students.values():
            pids = users.processes(name)
            environ = [Path(f"/proc/{pid}/environ").read_bytes().split(b"\0") for pid in pids]
            assert environ and all(b"OMP_NUM_THREADS=1" in e for e in environ), name
        server_mib = max(sum(rss_mib(pid) for pid in users.processes(name)) for name in students.values())

        def work(how: str) -> None:
            server = servers[how]
            assert [a["status"] for a in listed(server)] == ["released"]
            assert [
                a["status"] for a in assignment_action(server, "fetch") if a["assignment_id"] == ASSIGNMENT
            ]
            assert (home(students[how]) / ASSIGNMENT / NOTEBOOK).is_file()
            answer(server, how, source)
            assignment_action(server, "submit")

        with ThreadPoolExecutor(len(students)) as pool:
            list(pool.map(work, students))
        lap("fetch, answer, submit")

        # as each student: the classmates' submissions, the gradebook and the sources cannot be read
        nothing_readable(exchange / COURSE_ID / "inbound", course, students, home, python)
        lap("permissions")
        nbgrader("collect", "autograde")
        lap("collect, autograde")
        nbgrader("generate_feedback", "release_feedback", "export")
        lap("feedback, export")

        with ThreadPoolExecutor(len(students)) as pool:
            list(pool.map(lambda how: assignment_action(servers[how], "fetch_feedback"), students))
        for how, name in students.items():
            check_feedback(home(name), how, users.uid(name))
        with (course / "grades.csv").open() as f:
            grades = {row["student_id"]: float(row["score"]) for row in csv.DictReader(f)}
        assert grades == {name: float(ANSWERS[how]) for how, name in students.items()}
    finally:
        hub.stop()
    for name in students.values():  # the hub stopped every student's server with it
        assert not users.processes(name), name
    lap("hub stop")
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = cpu.ru_utime + cpu.ru_stime - cpu_before
    print("hub test:", ", ".join(f"{what} {seconds:.1f} s" for what, seconds in took.items()))
    print(
        f"a student's server, no kernel: {server_mib:.0f} MiB resident; CPU time of the processes: {cpu:.0f} s"
    )
