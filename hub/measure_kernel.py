"""The memory of one student's kernel under the hub while it trains notebook 06's recipe, for sizing a server.

    python hub/measure_kernel.py [--steps 50]

Starts a real Jupyter kernel (ipykernel, as the hub's servers do) with the hub's environment (OMP_NUM_THREADS=1,
hub/jupyterhub_config.py), runs notebook 06's imports and the course recipe (``course_config``) for ``--steps``
steps into a scratch folder, and prints the kernel's peak resident memory (VmHWM). Then the same for a plain
Python process training the recipe, the size of the second process notebook 06 starts for its side runs
(``start_side_runs``). The notebook itself is not executed. docs/instructor_guide.md quotes the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from jupyter_client.manager import start_new_kernel

#: what a student's kernel does: notebook 06's imports, then the course recipe for a few dozen steps
TRAIN = """
import matplotlib.pyplot as plt, numpy as np, torch
import bertedu
from bertedu.course import course_config
from bertedu.training.pretrain import pretrain
run = pretrain(course_config(steps={steps}, eval_every=0), {out!r}, progress=False)
print(run.step, torch.get_num_threads())
"""


def peak_rss_mib(pid: int) -> float:
    """The peak resident memory of process ``pid`` (VmHWM), MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise ValueError(f"no VmHWM in /proc/{pid}/status (Linux only)")


def private_mib(pid: int) -> float:
    """The memory process ``pid`` holds alone now (private pages, no shared libraries), MiB: what each further
    kernel adds, while the libraries (torch's among them) are in memory once for all."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]
    )
    return sum(int(fields[k].split()[0]) for k in ("Private_Clean", "Private_Dirty")) / 1024


def kernel_peak(steps: int, env: dict[str, str]) -> tuple[float, float, str]:
    """Peak RSS and private memory after training (MiB) of an ipykernel that trains the recipe, and what it
    printed."""
    with tempfile.TemporaryDirectory() as out:
        manager, client = start_new_kernel(kernel_name="python3", env=env, cwd=out)
        try:
            printed = []
            reply = client.execute_interactive(
                TRAIN.format(steps=steps, out=f"{out}/run"),
                timeout=600,
                output_hook=lambda msg: printed.append(msg["content"].get("text", "")),
            )
            if reply["content"]["status"] != "ok":
                raise RuntimeError(f"the kernel failed: {reply['content']}")
            pid = manager.provisioner.process.pid
            return peak_rss_mib(pid), private_mib(pid), "".join(printed).strip()
        finally:
            client.stop_channels()
            manager.shutdown_kernel(now=True)


def process_peak(steps: int, env: dict[str, str]) -> float:
    """Peak RSS (MiB) of a plain Python process that trains the recipe (a side-run worker's size)."""
    with tempfile.TemporaryDirectory() as out:
        code = TRAIN.format(steps=steps, out=f"{out}/run") + (
            "\nimport resource; print('PEAK', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
        )
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=out
        )
        return int(done.stdout.split("PEAK")[1]) / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=50, help="training steps of the recipe (default 50)")
    args = parser.parse_args(argv)
    if args.steps < 1:
        raise ValueError(f"--steps must be at least 1, not {args.steps}")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    started = time.perf_counter()
    kernel, private, printed = kernel_peak(args.steps, env)
    took = time.perf_counter() - started
    worker = process_peak(args.steps, env)
    result = {"steps": args.steps, "kernel_peak_rss_mib": round(kernel), "kernel_private_mib": round(private)}
    result |= {"side_run_process_peak_rss_mib": round(worker), "printed": printed, "seconds": round(took, 1)}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
