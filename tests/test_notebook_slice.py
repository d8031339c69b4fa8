"""tests/notebook_slice.py: which cells of a student edition its test must run (test_student_edition.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from notebook_slice import EXERCISE_CALL, bound_names, read_names, student_slice

ROOT = Path(__file__).resolve().parents[1]

import build_student  # noqa: E402
import editions  # noqa: E402

STUB = 'def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError("your code here")'
CELLS = [
    "import torch\nfrom bertedu.teaching import exercises as ex",  # 0: read by the checks
    "model = torch.nn.Linear(2, 2)\nrun = train(model)",  # 1: expensive, nobody reads it
    "data = [1, 2, 3]",  # 2: read by the exercise's check
    STUB,  # 3: the student's cell
    "ex.thing.check(f, data)",  # 4
    "print(run)",  # 5: reads only what cell 1 made
    "y = [f(v) for v in data]",  # 6: uses the student's function: must run
    "z = y[0]",  # 7: reads what 6 made from the student's work: must run
    "def g(model):\n    return model",  # 8: `model` is its parameter, not cell 1's model
]


def test_the_slice_holds_the_student_work_what_it_reaches_and_what_those_read():
    assert student_slice(CELLS) == [0, 2, 3, 4, 6, 7]


@pytest.mark.parametrize(
    "source, reads, binds",
    [
        ("def g(model):\n    return model", set(), {"g"}),
        ("def g():\n    return model", {"model"}, {"g"}),
        ("x = 1\nprint(x)", set(), {"x"}),
        ("print(x)\nx = 1", {"x"}, {"x"}),
        ("for i in items:\n    total += i", {"items", "total"}, {"i", "total"}),
        ("ys = [v * k for v in xs]", {"xs", "k"}, {"ys"}),
        ("%matplotlib inline\nimport numpy as np", set(), {"np"}),
        ("with open(p) as fh:\n    text = fh.read()", {"p"}, {"fh", "text"}),
    ],
)
def test_names_read_and_bound(source, reads, binds):
    assert read_names(source) == reads and bound_names(source) == binds


def test_the_training_notebooks_slices_leave_out_their_training(tmp_path):
    """Notebook 06's slice has every exercise cell and not the pretraining run; the other cells are the reference's."""
    source = ROOT / "notebooks" / "06_mini_pretraining.ipynb"
    build_student.build([source], tmp_path, quiet=True)
    cells = [c for c in editions.read(tmp_path / source.name).cells if c.cell_type == "code"]
    reference = {c.id: editions.NBVAL_MARKER.sub("", c.source) for c in editions.read(source).cells}
    student = [c.source for c in cells]
    keep = student_slice(student)
    assert all(i in keep for i, s in enumerate(student) if "YOUR CODE HERE" in s or EXERCISE_CALL.search(s))
    assert not any("pretrain(config" in student[i] for i in keep)
    assert all(c.source == reference[c.id] for i, c in enumerate(cells) if i not in keep)
    assert len(keep) < len(student) / 2
