"""The plumbing of the real-browser tests: Chromium's flags, and a JupyterLab server started in a folder of its
own and stopped with its kernels. The fixtures that use it are in ``conftest.py``; a test that needs a server of
its own imports it from here (``from lab_server import LabServer, ...``), never from ``conftest``.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

CHROMIUM = Path(os.environ.get("BERTEDU_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SERVER_START_TIMEOUT = 60  # seconds


def _unavailable(reason: str):
    if os.environ.get("BERTEDU_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason} (BERTEDU_REQUIRE_BROWSER=1, so this is an error, not a skip)", pytrace=False)
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _children(pid: int) -> list[int]:
    """Direct child processes of ``pid`` (kernels run in their own session, so killpg misses them)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z")


@dataclass
class LabServer:
    """A running JupyterLab: where it is, how to reach it, and where its files go."""

    root: Path
    port: int
    token: str
    proc: subprocess.Popen
    log_path: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return f"{self.base_url}/{path.lstrip('/')}?token={self.token}"

    def api(self, path: str, method: str = "GET"):
        req = urllib.request.Request(
            f"{self.base_url}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(req, timeout=5) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def log_tail(self, n: int = 40) -> str:
        lines = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        return "\n".join(lines[-n:])


def _start_lab(root: Path) -> LabServer:
    port, token = _free_port(), secrets.token_hex(24)
    env = dict(os.environ)
    env.pop("BERTEDU_LANG", None)
    env.update(
        BERTEDU_HOME=str(root / "bertedu-home"),
        JUPYTER_CONFIG_DIR=str(root / "jupyter-config"),  # ignore the user's Jupyter config
        JUPYTER_DATA_DIR=str(root / "jupyter-data"),
        JUPYTER_RUNTIME_DIR=str(root / "jupyter-runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(root / "lab-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(root / "lab-workspaces"),
        PYTHONHASHSEED="0",
    )
    # No news or update checks: the test must not touch the network.
    settings = root / "lab-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}), encoding="utf-8"
    )
    cmd = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--LabApp.extension_manager=readonly",
    ]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    log_path = root / "jupyterlab.log"
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(
            cmd,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    server = LabServer(root=root, port=port, token=token, proc=proc, log_path=log_path)
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"JupyterLab exited with code {proc.returncode}:\n{server.log_tail()}", pytrace=False)
        try:
            server.api("/api/status")
            return server
        except (urllib.error.URLError, ConnectionError, OSError):
            time.sleep(0.2)
    _stop_lab(server)
    pytest.fail(
        f"JupyterLab did not answer /api/status within {SERVER_START_TIMEOUT} s:\n{server.log_tail()}",
        pytrace=False,
    )


def _stop_lab(server: LabServer) -> None:
    """Shut the server down (it stops its kernels), then make sure no process of ours is left."""
    family = set(_children(server.proc.pid))
    for pid in list(family):
        family.update(_children(pid))
    if server.proc.poll() is None:
        try:
            server.api("/api/shutdown", method="POST")
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        try:
            server.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.proc.pid, signal.SIGTERM)
            try:
                server.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(server.proc.pid, signal.SIGKILL)
                server.proc.wait(timeout=5)
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in family) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in family:
        if _alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
