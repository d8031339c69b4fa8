"""tools/side_runs_ahead.py (make test): the side runs it caches are the ones the Chinese nbval run looks up."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools"
CACHE_PATH = (
    "from bertedu.course.background import _cache_path; from bertedu.course.side_runs import SideRuns; "
    "print(_cache_path(SideRuns.registry, 'minibert', {}).name)"
)

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def python(code: str, *, variant: bool) -> str:
    """Run ``code``: under tools/cpu_variant.py (as make nbval runs the Chinese edition), or plainly."""
    command = [sys.executable, "-c", code]
    if variant:
        command = [sys.executable, str(TOOLS / "cpu_variant.py"), "--", *command]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout.strip().splitlines()[-1]


def test_the_runs_it_caches_are_the_chinese_runs_and_not_the_english_ones():
    ahead = python(
        f"import sys; sys.path.insert(0, {str(TOOLS)!r}); import side_runs_ahead; "
        f"side_runs_ahead.use_variant_kernels(); {CACHE_PATH}",
        variant=False,
    )
    chinese, english = python(CACHE_PATH, variant=True), python(CACHE_PATH, variant=False)
    assert ahead == chinese, "tools/side_runs_ahead.py would cache runs the Chinese nbval run never looks up"
    import cpu_variant  # tests/conftest.py puts tools/ on sys.path

    if cpu_variant.native_capability().upper() in cpu_variant.OTHER_KERNELS:
        assert ahead != english  # another kernel set: another key


def test_it_refuses_runs_that_read_the_course_model_and_unknown_runs():
    for names, message in [(["learning_curve"], "reads the course model"), (["nope"], "no side run(s)")]:
        done = subprocess.run(
            [sys.executable, str(TOOLS / "side_runs_ahead.py"), *names],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 2 and message in done.stderr, done.stderr
