"""Fixtures shared by several test files: tiny tokenizers, and a tiny pretraining set-up. Plain helpers and
constants that test files import (``small_bert_config``, ``same_weights``, the tiny corpus) are in
``tests/support.py``: import them from there, never from ``conftest`` (pytest loads several conftest modules,
tests/browser has its own, and ``import conftest`` may find the wrong one).

Everything here is small enough to train in well under a second on a CPU, so the tests of the training
loop, checkpoints, the course helpers and the command line run real training, not mocks.
"""

from __future__ import annotations

import os
from pathlib import Path

import lanes
import pytest
from support import CORPUS, MLM_EVAL, NSP_EVAL, TEST_PRESET

from bertedu.core.config import PRESETS
from bertedu.core.tokenizer import SPECIAL_TOKENS, BertTokenizer
from bertedu.training.pretrain import PretrainingConfig
from bertedu.utils import cpu_threads

# `make unit` runs the tests in two processes (pytest-xdist, -n 2 --dist loadgroup). Each worker keeps its
# quiz progress in its own folder, so that no test sees another worker's answers.
if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("BERTEDU_HOME"):
    _home = Path(os.environ["BERTEDU_HOME"]) / os.environ["PYTEST_XDIST_WORKER"]
    _home.mkdir(parents=True, exist_ok=True)
    os.environ["BERTEDU_HOME"] = str(_home)


from notebook_order import shares_course_model  # noqa: E402  (tools/ is not a package)


def _uses_a_file_fixture(item) -> bool:
    """True if ``item`` uses a fixture of module (or class) scope: one made for several tests."""
    fixtures = getattr(item, "_fixtureinfo", None)
    return fixtures is not None and any(
        d.scope in ("module", "class") for defs in fixtures.name2fixturedefs.values() for d in defs
    )


def pytest_collection_modifyitems(config, items):
    """Groups for pytest-xdist's ``--dist loadgroup``: the runs of the student editions of the notebooks that
    make or load the course model (``tools/notebook_order.py``: 06 writes ``runs/mini-bert/``, 07 and 08 read
    it) run one after the other, in order, on one worker; the real-browser tests share one worker too (each
    starts JupyterLab), and so do the tests of a file that share a fixture of the file's scope (made once). Every
    other test goes to whichever worker is free."""
    for item in items:
        if "browser" in item.path.parts:
            item.add_marker(pytest.mark.xdist_group("browser"))
        elif item.path.name == "test_student_edition.py" and "runs_and_says" in item.name:
            if shares_course_model(item.callspec.id):
                item.add_marker(pytest.mark.xdist_group("course-model"))
        if not item.get_closest_marker("xdist_group") and _uses_a_file_fixture(item):
            item.add_marker(pytest.mark.xdist_group(item.path.stem))  # its fixture made once, on one worker
    # xdist hands out the groups first (most tests first), then single tests in this order: the files that start
    # processes (a test marked integration or slow: seconds to a minute each) before the many quick ones, so that
    # the run does not end with one worker on a minute-long test while the other waits. A file's tests stay
    # together, in their order: a fixture of a file's scope (a site build, a JupyterLab server, a venv) is made
    # once per worker, not again each time another file's tests come between them.
    starts_processes = {
        item.path
        for item in items
        if item.get_closest_marker("integration") or item.get_closest_marker("slow")
    }
    items.sort(key=lambda item: 0 if item.path in starts_processes else 1)


# ----------------------------------------------------------------------------------------------------------
# The fast lane, `make check`: `-m "not integration and not slow and not browser"` with BERTEDU_FAST_LANE=1.
# Tests are marked where they are written (the markers are described in pyproject.toml): a module-level
# `pytestmark = pytest.mark.integration` when every test of a file starts a process, `@pytest.mark.integration`
# or `@pytest.mark.slow` on single tests otherwise. So that a new test that starts a process cannot land in the
# fast lane unmarked, starting one there fails the test (tests/lanes.py); tests/test_test_lanes.py also checks
# the marks statically.


@pytest.fixture
def one_torch_thread():
    """The test runs on one torch thread (quick, and robust beside the other worker); the setting is put back.
    A test file that trains asks for it with ``pytestmark = pytest.mark.usefixtures("one_torch_thread")``."""
    with cpu_threads(1):
        yield


@pytest.fixture(autouse=True)
def no_process_in_the_fast_lane(request, monkeypatch):
    """In the fast lane, a test not marked integration may start no process (``lanes.refuse_processes``); it
    fails even if it caught the error."""
    if not lanes.in_fast_lane(request.config) or request.node.get_closest_marker("integration"):
        yield
        return
    attempts = lanes.refuse_processes(monkeypatch)
    yield
    if attempts:
        pytest.fail(lanes.FAST_LANE_MESSAGE.format(what=" and ".join(dict.fromkeys(attempts))), pytrace=False)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """In the fast lane, name the tests that took more than ``lanes.SLOW_S`` seconds (a hint, not a failure:
    timings vary with the machine's load), so that a slow new test gets its ``@pytest.mark.slow``."""
    if not lanes.in_fast_lane(config):
        return
    took: dict[str, float] = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) in ("setup", "call", "teardown"):
                took[report.nodeid] = took.get(report.nodeid, 0.0) + report.duration
    slow = sorted(
        ((seconds, nodeid) for nodeid, seconds in took.items() if seconds > lanes.SLOW_S), reverse=True
    )
    if slow:
        terminalreporter.section("slow tests in the fast lane")
        terminalreporter.write_line(
            f"these took more than {lanes.SLOW_S:g} s: mark them @pytest.mark.slow if they do so again"
        )
        for seconds, nodeid in slow:
            terminalreporter.write_line(f"  {seconds:5.1f} s  {nodeid}")


@pytest.fixture(scope="session")
def word_tokenizer():
    """``word_tokenizer(["the", "cat", ...])``: a tokenizer whose vocabulary is the special tokens + the words."""

    def make(words):
        return BertTokenizer([*SPECIAL_TOKENS, *words])

    return make


# ----------------------------------------------------------------------------------------------------------
# A tiny pretraining set-up: a 3-document corpus, held-out files and a 1-layer model size "test"


@pytest.fixture
def corpus_files(tmp_path, monkeypatch):
    """A folder with ``corpus.txt``, ``mlm.tsv`` and ``nsp.tsv``; also registers the model size ``"test"``."""
    monkeypatch.setitem(PRESETS, "test", TEST_PRESET)
    folder = tmp_path / "inputs"
    folder.mkdir()
    (folder / "corpus.txt").write_text(CORPUS, encoding="utf-8")
    (folder / "mlm.tsv").write_text(MLM_EVAL, encoding="utf-8")
    (folder / "nsp.tsv").write_text(NSP_EVAL, encoding="utf-8")
    return folder


@pytest.fixture
def tiny_run(corpus_files):
    """``tiny_run(**changes)``: a ``PretrainingConfig`` of 8 steps of the "test" size on ``corpus_files``."""

    def make(**changes):
        base = dict(
            corpus=str(corpus_files / "corpus.txt"),
            model_size="test",
            max_length=32,
            steps=8,
            batch_size=4,
            learning_rate=5e-3,
            warmup_steps=2,
            log_every=2,
            eval_every=4,
            seed=3,
            mlm_eval_file=str(corpus_files / "mlm.tsv"),
            nsp_eval_file=str(corpus_files / "nsp.tsv"),
        )
        return PretrainingConfig(**{**base, **changes})

    return make
