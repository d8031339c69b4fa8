"""The test lanes stay true as tests are added: a test that starts a process is marked integration (so that
``make check``, the fast lane, leaves it out), the fast-lane guard refuses processes, and the one notebook
dependency (``tools/notebook_order.py``) names the notebooks that really make and load the course model.

The static scan reads every test file's syntax tree: a test "starts a process" if its body, a fixture it
requests or a helper function it calls (in the same file, a conftest.py or a helper module of tests/) uses
``subprocess``, ``multiprocessing``, ``venv``, nbclient's ``NotebookClient``, nbconvert's
``ExecutePreprocessor``, ``jupyter_client`` or Playwright. What it cannot see (a process started inside
bertedu or tools/) the guard of ``make check`` catches at run time (``tests/lanes.py``).
"""

from __future__ import annotations

import ast
import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import lanes
import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
import notebook_order  # noqa: E402

#: Modules whose use starts a process (a child Python, a Jupyter kernel, a browser, a venv's pip).
PROCESS_MODULES = (
    "subprocess",
    "multiprocessing",
    "torch.multiprocessing",
    "venv",
    "nbclient",
    "jupyter_client",
    "playwright",
    "nbconvert.preprocessors",
    "torch.distributed.run",
    "torch.distributed.elastic",
)
#: Names that start a process whatever module they were imported from.
PROCESS_NAMES = {
    "Popen",
    "NotebookClient",
    "ExecutePreprocessor",
    "sync_playwright",
    "EnvBuilder",
    "KernelManager",
}


def is_process_module(name: str) -> bool:
    return any(name == m or name.startswith(m + ".") for m in PROCESS_MODULES)


class Scan:
    """The functions of one file that start a process, directly or through another function of the file."""

    def __init__(self, path: Path, helpers: dict[str, set[str]]):
        self.tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        self.functions: dict[str, ast.FunctionDef] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions.setdefault(node.name, node)
        self.process_names = set(PROCESS_NAMES)
        for node in self.tree.body:  # module-level imports and `x = pytest.importorskip("nbclient")`
            self.process_names |= bound_process_names(node, helpers)
        direct = {name for name, f in self.functions.items() if self.starts_directly(f, helpers)}
        self.starting = closure(direct, {name: self.references(f) for name, f in self.functions.items()})

    def starts_directly(self, function, helpers) -> bool:
        for node in ast.walk(function):
            if isinstance(node, ast.Name) and node.id in self.process_names:
                return True
            if isinstance(node, ast.Import | ast.ImportFrom | ast.Assign) and bound_process_names(
                node, helpers
            ):
                return True
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "system"
                and getattr(node.value, "id", "") == "os"
            ):
                return True
        return False

    def references(self, function) -> set[str]:
        """Names of functions of this file that ``function`` calls or requests as fixtures."""
        names = {node.id for node in ast.walk(function) if isinstance(node, ast.Name)}
        names |= {a.arg for a in function.args.args}
        return names & self.functions.keys()


def bound_process_names(node, helpers: dict[str, set[str]]) -> set[str]:
    """Names that ``node`` (an import or an assignment) binds to something that starts a process."""
    if isinstance(node, ast.Import):
        return {a.asname or a.name.split(".")[0] for a in node.names if is_process_module(a.name)}
    if isinstance(node, ast.ImportFrom) and node.module:
        if is_process_module(node.module):
            return {a.asname or a.name for a in node.names}
        return {a.asname or a.name for a in node.names if a.name in helpers.get(node.module, ())}
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.value.args:
        call, arg = node.value, node.value.args[0]
        if ast.unparse(call.func).endswith("importorskip") and isinstance(arg, ast.Constant):
            if is_process_module(str(arg.value)):
                return {t.id for t in node.targets if isinstance(t, ast.Name)}
    return set()


def closure(start: set[str], edges: dict[str, set[str]]) -> set[str]:
    """Every name that reaches a name of ``start`` through ``edges``."""
    found = set(start)
    changed = True
    while changed:
        changed = False
        for name, targets in edges.items():
            if name not in found and targets & found:
                found.add(name)
                changed = True
    return found


@functools.cache
def helper_modules() -> dict[str, set[str]]:
    """For each helper module of tests/ (not a test file, not a conftest): its functions that start a process."""
    helpers: dict[str, set[str]] = {}
    for path in sorted(TESTS.rglob("*.py")):
        if not path.name.startswith("test_") and path.name != "conftest.py":
            helpers[path.stem] = Scan(path, {}).starting
    return helpers


@functools.cache
def conftest_fixtures(path: Path) -> set[str]:
    """The fixtures (and helpers) of a conftest.py that start a process."""
    return Scan(path, helper_modules()).starting


def marks_text(decorators) -> str:
    return " ".join(ast.unparse(d) for d in decorators)


def unmarked_process_tests(path: Path, helpers: dict[str, set[str]], top: Path = TESTS) -> list[str]:
    """The tests of ``path`` (in ``top`` or below it) that start a process but carry no integration mark."""
    scan = Scan(path, helpers)
    fixtures: set[str] = set()  # fixtures of the conftest.py files that apply to ``path``
    for folder in [path.parent, *path.parent.parents]:
        if (folder / "conftest.py").is_file():
            fixtures |= conftest_fixtures(folder / "conftest.py")
        if folder == top:
            break
    module_marks = " ".join(
        ast.unparse(node.value)
        for node in scan.tree.body
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in node.targets)
    )
    if "integration" in module_marks:
        return []
    unmarked = []
    scopes = [(scan.tree.body, "")]
    scopes += [(c.body, marks_text(c.decorator_list)) for c in scan.tree.body if isinstance(c, ast.ClassDef)]
    for body, class_marks in scopes:
        for node in body:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or not node.name.startswith(
                "test"
            ):
                continue
            requested = {a.arg for a in node.args.args}
            if node.name in scan.starting or requested & fixtures:
                if "integration" not in class_marks + marks_text(node.decorator_list):
                    unmarked.append(f"{path.relative_to(top)}::{node.name}")
    return unmarked


TEST_FILES = sorted(TESTS.rglob("test_*.py"))


@pytest.mark.parametrize("path", TEST_FILES, ids=[str(p.relative_to(TESTS)) for p in TEST_FILES])
def test_a_test_that_starts_a_process_is_marked_integration(path):
    unmarked = unmarked_process_tests(path, helper_modules())
    assert not unmarked, (
        "these tests start a process (subprocess, multiprocessing, a kernel, a venv, a browser) but are not "
        "marked integration, so `make check` would run them: add @pytest.mark.integration (or a module-level "
        "pytestmark = pytest.mark.integration):\n  " + "\n  ".join(unmarked)
    )


SAMPLE = """
import subprocess
import pytest
from nbclient import NotebookClient

def run_it(args):
    return subprocess.run(args)

@pytest.fixture
def kernel():
    return NotebookClient

def test_pure():
    assert 1

def test_through_a_helper():
    run_it(["true"])

def test_through_a_fixture(kernel):
    pass

@pytest.mark.integration
def test_marked():
    run_it(["true"])

def test_local_import():
    import multiprocessing as mp
    mp.get_context("spawn")
"""


def test_the_scan_finds_unmarked_process_tests_and_accepts_marked_ones(tmp_path):
    sample = tmp_path / "test_sample.py"
    sample.write_text(SAMPLE, encoding="utf-8")
    assert set(unmarked_process_tests(sample, {}, top=tmp_path)) == {
        "test_sample.py::test_through_a_helper",
        "test_sample.py::test_through_a_fixture",
        "test_sample.py::test_local_import",
    }
    sample.write_text("import pytest\npytestmark = [pytest.mark.integration]\n" + SAMPLE, encoding="utf-8")
    assert unmarked_process_tests(sample, {}, top=tmp_path) == []


# ----------------------------------------------------------------------------------------------------------
# The guard of the fast lane


@pytest.mark.integration  # if the guard were broken, it would start processes
def test_the_fast_lane_guard_refuses_processes_with_what_to_do(monkeypatch):
    attempts = lanes.refuse_processes(monkeypatch)
    with pytest.raises(RuntimeError, match="mark this test integration"):
        subprocess.run([sys.executable, "-c", "pass"])
    import multiprocessing
    import os
    import venv

    with pytest.raises(RuntimeError, match="mark this test integration"):
        multiprocessing.get_context("spawn").Process(target=print).start()
    with pytest.raises(RuntimeError, match="mark this test integration"):
        os.system("true")
    with pytest.raises(RuntimeError, match="mark this test integration"):
        venv.create(Path("never-made"))
    assert attempts == ["subprocess.Popen", "multiprocessing's Process.start", "os.system", "venv creation"]
    monkeypatch.undo()
    assert subprocess.run([sys.executable, "-c", "pass"]).returncode == 0  # only while the guard is on


@pytest.mark.parametrize(
    ("markexpr", "env", "expected"),
    [
        ("not integration and not slow and not browser", None, True),
        ("", "1", True),
        ("", None, False),
        ("slow", None, False),
    ],
)
def test_the_fast_lane_is_recognised(monkeypatch, markexpr, env, expected):
    class Config:
        class option:
            pass

    Config.option.markexpr = markexpr
    if env is None:
        monkeypatch.delenv("BERTEDU_FAST_LANE", raising=False)
    else:
        monkeypatch.setenv("BERTEDU_FAST_LANE", env)
    assert lanes.in_fast_lane(Config) is expected


# ----------------------------------------------------------------------------------------------------------
# The notebook dependency, defined once in tools/notebook_order.py


def test_notebook_order_names_every_notebook_that_makes_or_loads_the_course_model():
    notebooks = {  # the code a notebook runs, not its outputs (notebook 00's doctor prints where the model is)
        p.stem: "\n".join(
            "".join(cell["source"])
            for cell in json.loads(p.read_text(encoding="utf-8"))["cells"]
            if cell["cell_type"] == "code"
        )
        for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")
    }
    named = set(notebook_order.COURSE_MODEL_PRODUCERS) | set(notebook_order.COURSE_MODEL_CONSUMERS)
    assert named <= notebooks.keys(), (
        f"tools/notebook_order.py names missing notebooks: {named - notebooks.keys()}"
    )
    using = {stem for stem, text in notebooks.items() if re.search(r"load_course_model|runs/mini-bert", text)}
    assert using == named, "tools/notebook_order.py must name exactly the notebooks that use runs/mini-bert/"
    assert not set(notebook_order.COURSE_MODEL_PRODUCERS) & set(notebook_order.COURSE_MODEL_CONSUMERS)
    assert max(notebook_order.COURSE_MODEL_PRODUCERS) < min(notebook_order.COURSE_MODEL_CONSUMERS)
    assert notebook_order.shares_course_model("07_fine_tuning.ipynb")
    assert not notebook_order.shares_course_model("09_review")


def _planned(target: str) -> str:
    """What ``make -n target`` would run, as a reader's shell runs it (without CI's INSTALLER or make's own)."""
    drop = (
        "MAKEFLAGS",
        "MFLAGS",
        "MAKELEVEL",
        "INSTALLER",
        "COURSE_MODEL_MADE",
        "WARM_BESIDE",
        "BEFORE_UNIT",
    )
    env = {k: v for k, v in os.environ.items() if k not in drop}
    done = subprocess.run(
        ["make", "-n", target], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout


@pytest.mark.integration  # make -n
def test_the_makefile_makes_the_course_model_through_notebook_order():
    for target in ("unit", "nbval"):  # alone, each makes it before its first pytest
        plan = _planned(target)
        assert "tools/notebook_order.py" in plan, target
        assert plan.index("tools/notebook_order.py") < plan.index("-m pytest"), target
    plan = _planned(
        "test"
    )  # once, before the unit tests; then neither the unit tests nor nbval load it again
    assert plan.count("tools/notebook_order.py") == 1, plan
    assert plan.index("tools/notebook_order.py") < plan.index("-m pytest tests -n"), plan
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "load_course_model" not in makefile, "the dependency is defined once, in tools/notebook_order.py"


@pytest.mark.integration  # make -n
def test_make_test_uses_the_free_core_for_bytecode_and_one_of_notebook_06s_side_runs():
    from bertedu.course.side_runs import PRETRAINING_SIDE_RUNS

    plan = _planned("test")
    unit = plan.index("-m pytest tests -n")
    # the bytecode, written before the unit tests even where PYTHONDONTWRITEBYTECODE=1 (these machines)
    written = plan.index("export PYTHONDONTWRITEBYTECODE=;")
    assert written < plan.index("-m compileall") < plan.index("--collect-only") < unit, plan
    # a side run as notebook 06's start_side_runs() asks for it (tools/warm_runs.py), into the cache it reads
    trained = re.search(r"tools/warm_runs\.py (\w+)", plan)
    assert trained and trained.group(1) in PRETRAINING_SIDE_RUNS, plan
    assert trained.start() < unit
    # the others beside the unit tests, at the lowest priority, stopped when the tests end
    beside = plan.index("nice -n 19")
    assert beside < unit and "tools/warm_runs.py >/dev/null" in plan[beside:unit], plan
    assert "kill $warmer" in plan[unit:], plan
    assert "nice -n 19" not in _planned("unit")  # make unit alone runs the tests alone


_ORDER_PLUGIN = """
import json, os, pytest

@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    rows = []
    for item in items:
        mark = item.get_closest_marker("xdist_group")
        fixtures = item._fixtureinfo.name2fixturedefs.values()
        rows.append({"file": str(item.path), "group": (mark.args or [mark.kwargs.get("name")])[0] if mark else None,
                     "file_fixture": any(d.scope in ("module", "class") for defs in fixtures for d in defs)})
    with open(os.environ["ORDER_OUT"], "w") as f:
        json.dump(rows, f)
"""


@pytest.mark.integration  # pytest --collect-only in a process of its own
def test_the_test_order_keeps_files_together_and_shares_file_fixtures_on_one_worker(tmp_path):
    """conftest.py's order for xdist: each file's tests stay together (a fixture of a file's scope is made once per
    worker, not again when another file's tests come between), files that start processes first, and the tests
    of a file that share such a fixture run on one worker (an xdist group)."""
    (tmp_path / "order_plugin.py").write_text(_ORDER_PLUGIN, encoding="utf-8")
    env = dict(os.environ, ORDER_OUT=str(tmp_path / "order.json"), PYTHONPATH=str(tmp_path))
    env.pop("BERTEDU_FAST_LANE", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "tests", "--collect-only", "-q", "-p", "order_plugin", "-p", "no:cacheprovider"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    rows = json.loads((tmp_path / "order.json").read_text(encoding="utf-8"))
    files = [r["file"] for r in rows]
    runs = [f for i, f in enumerate(files) if i == 0 or files[i - 1] != f]
    assert len(runs) == len(set(runs)), "a file's tests are split apart"
    assert all(r["group"] for r in rows if r["file_fixture"]), "a test sharing a file's fixture has no group"
    site = [r for r in rows if r["file"].endswith("test_site_browser.py")]
    assert site and {r["group"] for r in site} == {"browser"}
