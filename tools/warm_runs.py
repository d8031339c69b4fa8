"""Train the notebooks' side runs into the cache they read (``runs/side-runs/``), one after the other, before the
notebooks ask for them: what a notebook finds there it collects instead of training.

``make test`` runs it twice. ``make warm`` trains notebook 06's run without positions on the core the course model
leaves free. Beside the unit tests it trains the rest at the lowest priority (``nice -n 19``): the unit tests leave
a core idle about a tenth of the time (they wait for servers, browsers and kernels), which is what it gets; it is
stopped when they end, and a run it did not finish is trained by its notebook under strict nbval, as without it.

    python tools/warm_runs.py              every side run of notebooks 07, 06 and 10, the longest first
    python tools/warm_runs.py NAME ...     only these (e.g. no_positions)

Each run is the one its notebook starts, with the same keyword arguments, so it has the same cache key
(``bertedu.course.background.run_key``: code, data, CPU kernels, seed offset) and the same result (one thread).
"""

from __future__ import annotations

import sys

from bertedu.course.ablations import VariantRuns, reduced_background_runs
from bertedu.course.background import run_bytes
from bertedu.course.side_runs import FINETUNING_SIDE_RUNS, PRETRAINING_SIDE_RUNS, SideRuns


def planned_runs() -> list[tuple[object, str, dict]]:
    """``(registry, name, keyword arguments)`` of every run the notebooks start in a second process: notebook 07's
    (``start_side_runs({name: {} ...})``, the most training), 06's (``start_side_runs()``), 10's reduced run's."""
    runs = [(SideRuns.registry, name, {}) for name in FINETUNING_SIDE_RUNS + PRETRAINING_SIDE_RUNS]
    runs += [(VariantRuns.registry, name, kw) for name, kw in reduced_background_runs().items()]
    return runs


def main(names: list[str]) -> None:
    runs = planned_runs()
    unknown = set(names) - {name for _, name, _ in runs}
    if unknown:
        sys.exit(f"No side run {sorted(unknown)}; the side runs are {[name for _, name, _ in runs]}.")
    for registry, name, kwargs in runs:
        if not names or name in names:
            run_bytes(registry, name, kwargs)  # from the cache if it is there already


if __name__ == "__main__":
    main(sys.argv[1:])
