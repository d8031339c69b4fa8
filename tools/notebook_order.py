"""The one dependency between course notebooks: the course model in ``runs/mini-bert/``.

Notebook 06 trains it and saves it there; notebooks 07, 08 and 10 load it (``load_course_model()``, which trains it
again when it is missing or half-written). Whatever runs these notebooks side by side reads the two tuples
below, never its own copy of them:

- ``tests/conftest.py`` puts the runs of their student editions on one pytest-xdist worker, producers first;
- ``make nbval`` runs ``python tools/notebook_order.py`` first, which makes the course model, so that 07 and
  08 (and 10) load it while 06, on the other worker, may still be training its own copy.

``tests/test_test_lanes.py`` checks the tuples against the notebooks: a notebook that calls
``load_course_model`` or saves to ``runs/mini-bert`` must be named here.
"""

from __future__ import annotations

import sys

#: Notebooks that train the course model and save it to runs/mini-bert/ (file names without ".ipynb").
COURSE_MODEL_PRODUCERS = ("06_mini_pretraining",)
#: Notebooks that load it from there.
COURSE_MODEL_CONSUMERS = ("07_fine_tuning", "08_attention_heatmaps", "10_ablations")


def shares_course_model(notebook: str) -> bool:
    """True if ``notebook`` (a file name, with or without ``.ipynb``) makes or loads the course model."""
    stem = notebook.removesuffix(".ipynb")
    return stem in COURSE_MODEL_PRODUCERS or stem in COURSE_MODEL_CONSUMERS


def make_course_model() -> None:
    """Load the course model, or train it (about a minute) if ``runs/mini-bert/`` has no complete one."""
    from bertedu.course import load_course_model

    consumers, producers = ", ".join(COURSE_MODEL_CONSUMERS), ", ".join(COURSE_MODEL_PRODUCERS)
    print(
        f"The course model for {consumers}: loading it from runs/mini-bert/, or training it as {producers} does"
    )
    load_course_model()


if __name__ == "__main__":
    if sys.argv[1:]:
        sys.exit(
            "usage: python tools/notebook_order.py  (makes the course model that notebooks 07 and 08 load)"
        )
    make_course_model()
