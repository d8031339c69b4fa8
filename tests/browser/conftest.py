"""Fixtures for the real-browser quiz test: a JupyterLab server and Debian's Chromium driven by Playwright.

Nothing is installed or downloaded here. When ``/usr/bin/chromium`` (or Playwright) is missing the tests
skip with the reason, unless ``BERTEDU_REQUIRE_BROWSER=1`` (set by ``.ci/run``), in which case they fail.
The server runs on 127.0.0.1 with a random free port and a random token, in a temporary root folder with
its own BERTEDU_HOME, runtime, settings and workspace folders, and is shut down (kernels included) on
teardown. On failure a screenshot and the server log are left in that folder and their paths printed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lab_server import CHROMIUM, CHROMIUM_ARGS, LabServer, _start_lab, _stop_lab, _unavailable


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        _unavailable(f"{CHROMIUM} not found: install Debian's browser with `apt-get install chromium`")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _unavailable("the playwright Python package is not installed (pip install -e '.[dev]')")
    return CHROMIUM


@pytest.fixture(scope="module")
def lab(chromium_path, tmp_path_factory) -> LabServer:
    root = tmp_path_factory.mktemp("lab")
    server = _start_lab(root)
    try:
        yield server
    finally:
        _stop_lab(server)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.bertedu_failed = report.failed


@pytest.fixture
def page(request, lab, chromium_path):
    """A fresh Chromium profile and page; a screenshot is saved if the test fails."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(lab.root / "chromium-profile"),
            executable_path=str(chromium_path),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 1600},
            locale="en-US",
        )
        context.set_default_timeout(30_000)
        pg = context.new_page()
        try:
            yield pg
        finally:
            if getattr(request.node, "bertedu_failed", False):
                shot = lab.root / f"failure-{request.node.name}.png"
                try:
                    pg.screenshot(path=str(shot), full_page=True)
                    print(
                        f"\nScreenshot of the failure: {shot}\nServer log: {lab.log_path}\n{lab.log_tail(20)}"
                    )
                except Exception as err:  # the page may be gone
                    print(f"\nNo screenshot ({err}); server log: {lab.log_path}")
            context.close()
