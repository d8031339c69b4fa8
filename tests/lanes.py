"""The fast lane, ``make check``: what keeps a test that starts a process out of it.

``make check`` runs ``pytest -m "not integration and not slow and not browser"`` with ``BERTEDU_FAST_LANE=1``.
There, ``tests/conftest.py`` calls :func:`refuse_processes` before every test not marked integration, so that a
new test that starts a subprocess, a Jupyter kernel, a venv, ... fails with :data:`FAST_LANE_MESSAGE` instead
of slowing the fast lane down. ``make unit`` and ``make test`` run every test, with no such guard.
"""

from __future__ import annotations

import multiprocessing.process
import os
import subprocess
import venv

#: A test of the fast lane that takes longer than this (seconds) is named at the end of ``make check``.
SLOW_S = 2.0

FAST_LANE_MESSAGE = (
    "{what} in a test of the fast lane (make check): this test starts a process, so mark this test integration "
    "(@pytest.mark.integration on it, or pytestmark = pytest.mark.integration for the whole file)"
)


def in_fast_lane(config) -> bool:
    """True under ``make check``: BERTEDU_FAST_LANE=1, or a ``-m`` expression that leaves integration tests out."""
    return os.environ.get("BERTEDU_FAST_LANE") == "1" or "not integration" in (config.option.markexpr or "")


def refuse_processes(monkeypatch) -> list[str]:
    """Make every way a test starts a process raise ``RuntimeError(FAST_LANE_MESSAGE)`` until ``monkeypatch`` is
    undone: ``subprocess.Popen`` (so ``subprocess.run``, Jupyter kernels through nbclient and jupyter_client,
    asyncio subprocesses, torchrun's launcher), multiprocessing's ``Process.start``, ``os.system`` and venv
    creation. Returns the list to which each attempt is appended (what was tried), so that the caller can fail
    a test that caught the error."""
    attempts: list[str] = []

    def refuse(what: str):
        def refused(*args, **kwargs):
            attempts.append(what)
            raise RuntimeError(FAST_LANE_MESSAGE.format(what=what))

        return refused

    # _execute_child, not __init__: Popen then closes the pipes it opened, as when a program is not found
    monkeypatch.setattr(subprocess.Popen, "_execute_child", refuse("subprocess.Popen"))
    monkeypatch.setattr(
        multiprocessing.process.BaseProcess, "start", refuse("multiprocessing's Process.start")
    )
    monkeypatch.setattr(os, "system", refuse("os.system"))
    monkeypatch.setattr(venv.EnvBuilder, "create", refuse("venv creation"))
    return attempts
