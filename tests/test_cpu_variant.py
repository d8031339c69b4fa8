"""The CPU-variation run of ``make nbval`` (``tools/cpu_variant.py``) catches an output that depends on the
floating-point rounding of training, and lets through the same result printed robustly.

A fixture notebook trains a tiny BERT for a few steps. One cell prints the final loss with all its digits,
another prints it the way the course prints training results (as a bound, with the digits asserted with a
margin). Executed here with this machine's kernels, strict nbval passes on it under the same kernels; under
``tools/cpu_variant.py`` (another kernel set and thread count) it fails on the digits cell, and only there.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from unittest import mock

import nbformat
import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow]

nbclient = pytest.importorskip("nbclient")
pytest.importorskip("nbval")

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "cpu_variant.py"

import cpu_variant  # noqa: E402

TRAIN = """\
import torch
from bertedu.core.config import BertConfig
from bertedu.core.model import BertForPreTraining
torch.manual_seed(0)
config = BertConfig(vocab_size=300, hidden_size=128, num_hidden_layers=2, num_attention_heads=2,
                    intermediate_size=512, max_position_embeddings=64)
model = BertForPreTraining(config)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
ids = torch.randint(5, 300, (64, 21))
labels = torch.where(torch.rand(ids.shape) < 0.3, ids, -100)
mask = (torch.arange(21) < torch.randint(10, 22, (64, 1))).long()   # padded batches, as in pretraining
for _ in range(15):
    loss = model(ids, attention_mask=mask, labels=labels, next_sentence_label=torch.zeros(64, dtype=torch.long)).loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
final = loss.item()
"""
DIGITS = 'print(f"final loss {final!r}")'
ROBUST = 'print("final loss below the start:", final < 8.0)\nassert 0.5 < final < 8.0'


def make_notebook(path: Path, cells: list[str]) -> None:
    """Execute ``cells`` as a notebook at ``path`` in the environment nbval's same-kernel run gets (this
    machine's kernels, PyTorch's own thread count): executed with OMP_NUM_THREADS=1 and checked with two threads,
    the digits differed on the same CPU (a shell that set OMP_NUM_THREADS but not MKL_NUM_THREADS)."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    with mock.patch.dict(os.environ, native_environment(), clear=True):
        nbclient.NotebookClient(
            nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
        ).execute()
    nbformat.write(nb, path)


def native_environment() -> dict[str, str]:
    """This process's environment without a thread count or a kernel choice: the machine's own."""
    dropped = ("OMP_NUM_THREADS", *cpu_variant.OTHER_KERNELS["AVX512"])
    return {k: v for k, v in os.environ.items() if k not in dropped}


def nbval(path: Path, *, variant: bool) -> subprocess.CompletedProcess:
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--nbval",
        str(path),
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:xdist",
    ]
    if variant:
        command = [sys.executable, str(TOOL), "--", *command]
    return subprocess.run(
        command, cwd=path.parent, env=native_environment(), capture_output=True, text=True, timeout=600
    )


def test_variant_environment_changes_the_kernels_and_the_threads():
    assert cpu_variant.variant_environment("AVX512", cores=2) == {
        "ATEN_CPU_CAPABILITY": "avx2",
        "DNNL_MAX_CPU_ISA": "AVX2",
        "MKL_ENABLE_INSTRUCTIONS": "AVX2",
        "OMP_NUM_THREADS": "1",
    }
    assert cpu_variant.variant_environment("AVX2", cores=2)["ATEN_CPU_CAPABILITY"] == "default"
    assert cpu_variant.variant_environment("DEFAULT", cores=1) == {"OMP_NUM_THREADS": "2"}


def test_the_variation_run_catches_printed_digits_of_training_and_passes_robust_prints(tmp_path):
    if cpu_variant.native_capability().upper() not in cpu_variant.OTHER_KERNELS:
        pytest.skip("this CPU has no lower x86 kernel set to compare with")
    notebook = tmp_path / "fixture.ipynb"
    make_notebook(notebook, [TRAIN, DIGITS, ROBUST])

    same = nbval(notebook, variant=False)
    assert same.returncode == 0, same.stdout[-3000:]

    other = nbval(notebook, variant=True)
    assert "CPU variation: this machine's kernels are" in other.stdout
    assert other.returncode != 0, "the variation run did not notice digits that depend on the CPU's kernels"
    failed = [line for line in other.stdout.splitlines() if line.startswith("FAILED")]
    assert len(failed) == 1 and "fixture.ipynb::Cell 1 " in failed[0], other.stdout[
        -3000:
    ]  # the digits, only
