"""Train the Chinese nbval run's side runs ahead of time, on CPU time nothing else uses.

``make nbval`` runs the Chinese edition under another CPU's kernels (tools/cpu_variant.py). There, notebooks 06 and
07 train their side runs (:mod:`bertedu.course.side_runs`) afresh: their cache key
(:func:`bertedu.course.background.run_key`) names the CPU kernels, so the English run's results do not count. This
script trains the same runs under the same kernels (it sets tools/cpu_variant.py's environment before torch
loads), at the lowest CPU priority (nice 19), and caches each one as it finishes. ``make test`` starts it beside
its unit tests and stops it when they end: it gets only the CPU time they leave idle, and the Chinese run later
collects from the cache what it finished instead of training it again. A cached result is the one the Chinese run
would compute (the same function, arguments, code, data, torch and kernels: what the key names), so its outputs
are compared exactly as before; a run not finished in time is trained by the notebook, as it was.

Not trained ahead: ``learning_curve``, which reads the course model in runs/mini-bert/ (the unit tests rewrite it,
and its weights are not part of the key).

    python tools/side_runs_ahead.py            # the runs of AHEAD, in that order; cached ones are skipped
    python tools/side_runs_ahead.py minibert   # only these
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cpu_variant  # noqa: E402  (tools/ is not a package; it imports no torch)

#: The side runs trained ahead, in order: notebook 06's three, then notebook 07's MiniLM run.
AHEAD = ("nsp_only", "no_positions", "minibert", "minilm")
#: Side runs that read runs/mini-bert/, which the unit tests write while this runs.
READS_COURSE_MODEL = ("learning_curve",)


def use_variant_kernels() -> None:
    """Select tools/cpu_variant.py's kernels and thread count in this process, as the Chinese nbval run has them.
    Before torch loads: it reads these variables once."""
    if "torch" in sys.modules:
        raise RuntimeError("torch is loaded already: its CPU kernels can no longer be chosen")
    os.environ.update(cpu_variant.variant_environment(cpu_variant.native_capability()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help=f"side runs to train (default: {' '.join(AHEAD)})")
    args = parser.parse_args(argv)
    names = args.names or list(AHEAD)
    if set(names) & set(READS_COURSE_MODEL):
        parser.error(f"{', '.join(READS_COURSE_MODEL)} reads the course model: it is not trained ahead")

    use_variant_kernels()
    os.environ["TQDM_DISABLE"] = "1"  # no progress bars in make test's output
    if hasattr(os, "nice"):
        os.nice(19)
    # make test stops it with SIGTERM: exit through the finally blocks, so no temporary file is left behind
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

    from bertedu.course.background import cached_bytes, cpu_kernels, run_bytes
    from bertedu.course.side_runs import SideRuns

    registry = SideRuns.registry
    unknown = [name for name in names if name not in registry.functions]
    if unknown:
        parser.error(f"no side run(s) {unknown}; the side runs are {list(registry.functions)}")
    kernels = cpu_kernels()[0]
    for name in names:
        if cached_bytes(registry, name, {}) is not None:
            continue
        started = time.monotonic()
        try:
            run_bytes(registry, name, {})
        except Exception as err:  # the notebook trains it then, as without this script
            print(f"side runs ahead: {name!r} failed ({type(err).__name__}: {err})", flush=True)
            continue
        took = time.monotonic() - started
        print(f"side runs ahead: {name!r} cached for the {kernels} kernels ({took:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
