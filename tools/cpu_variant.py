"""Run a command under *another CPU's* floating-point kernels and another torch thread count.

Training results differ in their last digits from one CPU to another: PyTorch picks its vector kernels
(ATen), oneDNN and MKL pick theirs, by the instruction set the processor has (AVX-512 on an Intel Xeon, AVX2
on many AMD EPYCs and laptops), and a different number of threads splits the sums differently. A notebook
output that prints such digits passes strict nbval on the machine that executed it and fails on a student's.

``make nbval`` therefore checks the Chinese edition (the same code cells as the English one) under a kernel
set that is not this machine's own, so an output that depends on the rounding of training cannot land,
whichever CPU the committed outputs came from and whichever CPU runs CI:

    python tools/cpu_variant.py -- python -m pytest --nbval notebooks/zh ...
    python tools/cpu_variant.py --show        # only print the settings it would use

The three environment variables are the libraries' own switches (read once, when torch loads):
``ATEN_CPU_CAPABILITY`` (PyTorch's kernels: avx512, avx2, default), ``DNNL_MAX_CPU_ISA`` (oneDNN) and
``MKL_ENABLE_INSTRUCTIONS`` (MKL). ``OMP_NUM_THREADS`` sets torch's default thread count.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

#: The kernel set to use, by the one torch picks on this machine: always one level down (a CPU with AVX-512
#: runs AVX2's kernels; a CPU with AVX2 runs the plain, unvectorised ones and SSE4.1 in oneDNN and MKL).
OTHER_KERNELS = {
    "AVX512": {"ATEN_CPU_CAPABILITY": "avx2", "DNNL_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2"},
    "AVX2": {
        "ATEN_CPU_CAPABILITY": "default",
        "DNNL_MAX_CPU_ISA": "SSE41",
        "MKL_ENABLE_INSTRUCTIONS": "SSE4_2",
    },
}


def native_capability() -> str:
    """The kernel set torch picks on this machine without any override ("AVX512", "AVX2", "DEFAULT", ...)."""
    env = {k: v for k, v in os.environ.items() if k not in OTHER_KERNELS["AVX512"]}
    code = "import torch; print(torch.backends.cpu.get_cpu_capability())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def variant_environment(capability: str, cores: int | None = None) -> dict[str, str]:
    """The environment variables that select a kernel set other than ``capability`` and a torch thread count
    other than the default one (which is the number of cores)."""
    cores = cores or os.cpu_count() or 1
    # A machine without AVX2 (an ARM laptop, an old CPU) has no lower x86 kernel set: the thread count alone varies.
    env = dict(OTHER_KERNELS.get(capability.upper(), {}))
    env["OMP_NUM_THREADS"] = "1" if cores > 1 else "2"
    return env


def describe(capability: str, env: dict[str, str]) -> str:
    settings = " ".join(f"{k}={v}" for k, v in env.items())
    return f"CPU variation: this machine's kernels are {capability}; running with {settings}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="print the settings and exit")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    capability = native_capability()
    env = variant_environment(capability)
    print(describe(capability, env), flush=True)
    if args.show:
        return 0
    if not command:
        parser.error("give the command to run after --, e.g. tools/cpu_variant.py -- python -m pytest ...")
    return subprocess.call(command, env={**os.environ, **env})


if __name__ == "__main__":
    sys.exit(main())
