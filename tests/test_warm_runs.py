"""tools/warm_runs.py trains, before the notebooks ask, exactly the side runs they start: the same names and keyword
arguments, hence the same cache keys, so that what it finished a notebook collects instead of training it."""

import json
from pathlib import Path

import warm_runs

from bertedu.course import ablations
from bertedu.course.ablations import REDUCED
from bertedu.course.side_runs import FINETUNING_SIDE_RUNS, PRETRAINING_SIDE_RUNS, SideRuns

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def _code(stem: str) -> str:
    nb = json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")


def test_the_side_runs_are_those_notebooks_06_and_07_start():
    planned = [
        (registry, name, kw)
        for registry, name, kw in warm_runs.planned_runs()
        if registry is SideRuns.registry
    ]
    assert [name for _, name, _ in planned] == list(FINETUNING_SIDE_RUNS + PRETRAINING_SIDE_RUNS)
    assert all(kw == {} for _, _, kw in planned)
    assert "side_runs = start_side_runs()" in _code(
        "06_mini_pretraining"
    )  # its default: PRETRAINING_SIDE_RUNS, {}
    assert "course.start_side_runs({name: {} for name in course.FINETUNING_SIDE_RUNS})" in _code(
        "07_fine_tuning"
    )


def test_the_variant_runs_are_those_notebook_10s_reduced_run_starts(monkeypatch):
    started = {}

    def start(runs):
        started.update(runs)
        return type("Done", (), {"result": lambda self, name: {"variant": name}})()

    monkeypatch.setattr(ablations.VariantRuns, "start", staticmethod(start))
    monkeypatch.setattr(ablations, "run_variant", lambda name, **kw: {"variant": name})
    ablations.run_ablations(**REDUCED)  # as notebook 10 calls it
    assert "reduced = run_ablations(**REDUCED)" in _code("10_ablations")
    planned = {
        name: kw
        for registry, name, kw in warm_runs.planned_runs()
        if registry is ablations.VariantRuns.registry
    }
    assert planned == started and set(started) == {"ltr"}


def test_an_unknown_name_is_refused_with_the_names(capsys):
    import pytest

    with pytest.raises(SystemExit, match="no_positions"):
        warm_runs.main(["no-such-run"])
