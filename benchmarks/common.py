"""Shared helpers for the benchmarks: repeated timing, summaries, machine description, peak memory."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "benchmarks" / ".cache"
#: The CPU hog of the "loaded" measurements: one process that keeps a core busy.
HOG = "while True: pass"
#: Issue 20: beside one busy process, the course takes at most twice its idle time.
LOADED_LIMIT = 2.0


@dataclass
class Summary:
    """min / median / max of repeated measurements, in the unit given."""

    values: list[float]
    unit: str

    @property
    def min(self) -> float:
        return min(self.values)

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def max(self) -> float:
        return max(self.values)

    def fmt(self, digits: int = 2) -> str:
        return (
            f"{self.min:.{digits}f} / {self.median:.{digits}f} / {self.max:.{digits}f} {self.unit}".rstrip()
        )

    def to_dict(self) -> dict:
        return {
            "unit": self.unit,
            "values": self.values,
            "min": self.min,
            "median": self.median,
            "max": self.max,
        }


def repeat(fn: Callable[[], object], repeats: int, warmup: int = 1) -> list[float]:
    """Wall-clock seconds of ``repeats`` calls of ``fn`` after ``warmup`` untimed calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def machine() -> dict:
    """Where and with what the figures were measured."""
    import torch

    try:
        import transformers

        tf_version = transformers.__version__
    except ImportError:  # pragma: no cover - the dev extra installs it
        tf_version = "not installed"
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": tf_version,
        "platform": platform.platform(),
    }


def run_json_subprocess(code: str, timeout: int = 900) -> dict:
    """Run ``code`` in a fresh Python and parse the JSON object it prints on its last line.

    Used where a measurement must not be disturbed by what the parent process already allocated
    (peak memory) or imported.
    """
    env = dict(os.environ, PYTHONHASHSEED="0", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env
    )
    if result.returncode != 0:
        raise RuntimeError(f"benchmark subprocess failed:\n{result.stdout}\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def verdict(ok: bool) -> str:
    return "✅ met" if ok else "❌ missed"
