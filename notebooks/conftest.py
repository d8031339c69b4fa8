"""pytest settings for strict nbval over the notebooks (``make nbval``).

nbval waits at most 5 seconds for each output message of a cell once the cell has finished. On a busy
machine a training cell's last progress-bar messages can take longer than that to arrive, and nbval then
fails the cell ("Timeout of 5 seconds exceeded waiting for output") although it ran correctly. Waiting
longer changes nothing else: a cell that really hangs is still stopped by ``--nbval-cell-timeout``.
"""

from __future__ import annotations

OUTPUT_TIMEOUT = 120  # seconds nbval waits for the next output message of a finished cell (nbval's own: 5)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if hasattr(item, "output_timeout"):  # an nbval cell
            item.output_timeout = OUTPUT_TIMEOUT
