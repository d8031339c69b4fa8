"""The three places that name our dependencies must agree: pyproject.toml, environment.yml, the doctor."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib
import yaml

from bertedu.doctor import REQUIRED, parse_pin

ROOT = Path(__file__).resolve().parents[1]


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _pins(requirements: list[str]) -> dict[str, str]:
    pins = dict(parse_pin(r) for r in requirements)
    assert len(pins) == len(requirements), "a package is listed twice"
    return pins


def _environment_pins() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    pip_sections = [d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d]
    assert len(pip_sections) == 1, "environment.yml must have exactly one pip: section"
    return _pins(pip_sections[0])


def test_every_dependency_is_pinned_exactly():
    project = _pyproject()["project"]
    for req in project["dependencies"] + project["optional-dependencies"]["dev"]:
        parse_pin(req)  # raises for an unpinned or ranged requirement


def test_torch_is_the_cpu_pin():
    assert _pins(_pyproject()["project"]["dependencies"])["torch"] == "2.13.0"


def test_environment_yml_matches_pyproject():
    project = _pyproject()["project"]
    expected = _pins(project["dependencies"] + project["optional-dependencies"]["dev"])
    actual = _environment_pins()
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    differ = sorted(
        f"{k}: pyproject {expected[k]} vs environment.yml {actual[k]}"
        for k in set(expected) & set(actual)
        if expected[k] != actual[k]
    )
    assert not (missing or extra or differ), (
        f"environment.yml and pyproject.toml disagree. Missing from environment.yml: {missing}; "
        f"only in environment.yml: {extra}; different versions: {differ}"
    )


def test_doctor_checks_every_runtime_dependency():
    expected = _pins(_pyproject()["project"]["dependencies"])
    doctor = {dist: version for dist, _module, version in REQUIRED}
    assert doctor == expected


def test_environment_python_satisfies_requires_python():
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    python = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python="))
    major, minor = (int(x) for x in python.split("=")[1].split(".")[:2])
    assert _pyproject()["project"]["requires-python"] == ">=3.10"
    assert (major, minor) >= (3, 10)


@pytest.mark.parametrize("bad", ["torch", "torch>=2.0", "numpy~=2.4", "seaborn == "])
def test_parse_pin_rejects_unpinned(bad):
    with pytest.raises(ValueError, match="not pinned"):
        parse_pin(bad)
