"""tools/lab.py, the one implementation of ``make lab`` / ``make lab-zh`` (and the way without make, README
"Without make"): it builds the student edition(s) and starts JupyterLab landing on notebook 00."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

import lab  # noqa: E402

START_TIMEOUT = 60  # seconds; JupyterLab starts in about 3 s on an idle laptop


@pytest.mark.parametrize("lang, folder", [("en", "student"), ("zh", "student-zh")])
def test_lab_command_has_the_makefile_flags(lang, folder, monkeypatch):
    zh = lang == "zh"
    monkeypatch.setattr(os, "geteuid", lambda: 0, raising=False)
    environ = {"MPLBACKEND": "Agg", "BERTEDU_LANG": "en", "PATH": "/nowhere"}
    argv, env = lab.lab_command(lang, ["--no-browser", "--port", "8888"], ROOT, environ)
    assert argv[:3] == [sys.executable, "-m", "jupyterlab"]
    assert f"--ServerApp.root_dir={ROOT}" in argv
    assert f"--LabApp.default_url=/lab/tree/{folder}/00_welcome.ipynb" in argv
    assert "--allow-root" in argv and argv[-3:] == ["--no-browser", "--port", "8888"]
    assert "MPLBACKEND" not in env and env["PATH"] == "/nowhere" and env["PYTHONHASHSEED"] == "0"
    assert env["BERTEDU_LANG"] == ("zh" if zh else "en")  # `BERTEDU_LANG=zh make lab` keeps working
    config = Path(env["JUPYTER_CONFIG_PATH"].split(os.pathsep)[0]) / "labconfig" / "page_config.json"
    disabled = json.loads(config.read_text(encoding="utf-8"))["disabledExtensions"]
    assert disabled == {
        "@jupyterlab/apputils-extension:announcements": True
    }  # no news toast over notebook 00
    environ["JUPYTER_CONFIG_PATH"] = "/theirs"  # a configuration path the student set is kept, after ours
    assert lab.lab_command(lang, [], ROOT, environ)[1]["JUPYTER_CONFIG_PATH"].endswith(f"{os.pathsep}/theirs")
    assert (ROOT / "notebooks" / ("zh" if zh else "") / lab.WELCOME).is_file()

    monkeypatch.setattr(os, "geteuid", lambda: 1000, raising=False)
    assert "--allow-root" not in lab.lab_command(lang, [], ROOT, environ)[0]


def test_makefile_lab_targets_run_tools_lab():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^lab: install\n\t\$\(PY\) tools/lab\.py -- \$\(LAB_ARGS\)$", makefile, re.MULTILINE)
    assert re.search(
        r"^lab-zh: install\n\t\$\(PY\) tools/lab\.py --zh -- \$\(LAB_ARGS\)$", makefile, re.MULTILINE
    )
    assert "jupyter lab" not in makefile, (
        "one implementation: the Makefile starts JupyterLab through tools/lab.py"
    )
    assert "student/zh" not in makefile


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, dict[str, str]]:
    """Status and headers of a GET, redirects not followed."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    try:
        with urllib.request.build_opener(NoRedirect).open(url, timeout=5) as response:
            return response.status, dict(response.headers)
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers)


@pytest.mark.integration
def test_lab_without_make_builds_the_editions_and_opens_notebook_00(tmp_path):
    """`python tools/lab.py --zh -- --no-browser --port N` with no make on PATH, in a copy of the course: the
    Chinese run, as it builds both editions (the English one's flags are checked above, without a server)."""
    course = tmp_path / "course"
    (course / "notebooks" / "zh").mkdir(parents=True)
    shutil.copytree(ROOT / "tools", course / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"):
        shutil.copy(path, course / "notebooks")
    for path in (ROOT / "notebooks" / "zh").glob("[0-9][0-9]_*.ipynb"):
        shutil.copy(path, course / "notebooks" / "zh")
    (course / "student" / "zh").mkdir(parents=True)
    (course / "student" / "zh" / "my_notes.txt").write_text("mine")
    state = tmp_path / "state"
    path = str(Path(sys.executable).parent)  # the course's venv: python, jupyter, no make
    assert shutil.which("make", path=path) is None
    env = {k: v for k, v in os.environ.items() if k not in ("BERTEDU_LANG", "MAKEFLAGS", "MAKELEVEL")}
    env.update(
        PATH=path,
        MPLBACKEND="Agg",
        BERTEDU_HOME=str(state / "bertedu-home"),
        JUPYTER_CONFIG_DIR=str(state / "jupyter-config"),
        JUPYTER_DATA_DIR=str(state / "jupyter-data"),
        JUPYTER_RUNTIME_DIR=str(state / "jupyter-runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(state / "lab-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(state / "lab-workspaces"),
    )
    port, token = _free_port(), secrets.token_hex(16)
    extra = ["--no-browser", "--ip=127.0.0.1", "--port", str(port), "--ServerApp.port_retries=0"]
    extra += [f"--IdentityProvider.token={token}", "--LabApp.extension_manager=readonly"]
    command = [sys.executable, str(course / "tools" / "lab.py"), "--zh", "--", *extra]
    log_path = tmp_path / "lab.log"
    base = f"http://127.0.0.1:{port}"
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(
            command, cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while _status(f"{base}/api/status?token={token}") != 200:
            assert proc.poll() is None, f"tools/lab.py exited:\n{log_path.read_text()}"
            assert time.monotonic() < deadline, f"JupyterLab did not answer:\n{log_path.read_text()}"
            time.sleep(0.2)

        folder = "student-zh"
        built = sorted(p.name for p in (course / folder).glob("*.ipynb"))
        assert built == sorted(p.name for p in (course / "notebooks" / "zh").glob("[0-9]*.ipynb"))
        assert (course / "student" / "00_welcome.ipynb").is_file()  # lab-zh builds the English one too
        manifest = json.loads((course / folder / ".manifest.json").read_text(encoding="utf-8"))
        assert set(manifest["files"]) == set(built)
        # The old place of the Chinese edition (listed first in student/) moved, with the student's work.
        assert not (course / "student" / "zh").exists()
        assert (course / folder / "my_notes.txt").read_text() == "mine"

        status, headers = _get(f"{base}/?token={token}")
        assert status in (301, 302), status
        assert headers["Location"].split("?")[0] == f"/lab/tree/{folder}/00_welcome.ipynb"
        status, _ = _get(f"{base}/api/contents/{folder}/00_welcome.ipynb?content=0&token={token}")
        assert status == 200, "the landing notebook is not under the server's root_dir"

        if Path(f"/proc/{proc.pid}/environ").exists():  # tools/lab.py execs JupyterLab: same process
            server_env = dict(
                item.split("=", 1)
                for item in Path(f"/proc/{proc.pid}/environ").read_text(errors="replace").split("\0")
                if "=" in item
            )
            assert "MPLBACKEND" not in server_env
            assert server_env.get("BERTEDU_LANG") == "zh"
            assert server_env["PYTHONHASHSEED"] == "0"
        # The page JupyterLab serves lists the announcements plugin (the news toast) as disabled.
        with urllib.request.urlopen(f"{base}/lab/tree/{folder}/00_welcome.ipynb?token={token}") as page:
            html = page.read().decode("utf-8")
        assert "@jupyterlab/apputils-extension:announcements" in html.split("disabledExtensions", 1)[1][:2000]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _status(url: str) -> int | None:
    try:
        return _get(url)[0]
    except (urllib.error.URLError, ConnectionError, OSError):
        return None
