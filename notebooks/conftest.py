"""nbval in two processes (``make nbval``: pytest-xdist, ``-n 2 --dist loadgroup``).

nbval runs a notebook's cells one after another in one kernel, so every cell of a notebook must go to the same
worker: each notebook is its own group. Notebooks 06, 07 and 08 of both editions share one group, in order,
because 06 trains ``runs/mini-bert/`` and 07 and 08 load it (they would train it again if it were missing).
The other notebooks fill the second worker. Most of the course trains on one CPU thread, so two notebooks at
a time use the two cores of a laptop without getting in each other's way.
"""

from __future__ import annotations

import pytest

COURSE_MODEL = {"06_mini_pretraining.ipynb", "07_fine_tuning.ipynb", "08_attention_heatmaps.ipynb"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        name = item.path.name
        group = "course-model" if name in COURSE_MODEL else str(item.path.relative_to(config.rootpath))
        item.add_marker(pytest.mark.xdist_group(group))
