"""Reading differences between training runs: paired differences over seeds, their standard errors, the test
set's own noise, and the rule notebook 10 uses to call a difference a direction.

Two kinds of noise sit under every score of the course:

- **seed noise**: another seed (or another CPU) trains other weights. Runs of two variants with the same seed
  share their data order and fine-tuning, so the course compares them *paired*: the difference per seed, then
  the mean of the differences and its standard error over the seeds (:func:`mean_and_se`);
- **item noise**: a test set of n items measures an accuracy p only to about ``sqrt(p (1 - p) / n)``
  (:func:`item_noise`), and less well when items are not independent: notebook 07's 72 test sentence pairs
  render 12 facts, and counted over the 32 pairs of facts they render (:func:`cluster_se`) their standard
  error is about twice the one of 72 independent pairs.

:func:`direction` calls a paired difference "up" or "down" only if its mean exceeds 2 standard errors over the
seeds *and* the test set's item noise; :func:`false_positive_rate` says how often that rule fires when there is
no difference at all, which is what a reader needs when a notebook makes a hundred comparisons.

Introduced in notebook 10 (and used by the claims sweep, ``benchmarks/bench_claims.py``).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Hashable, Sequence

#: A direction needs the mean paired difference to exceed this many standard errors over the seeds.
SE_MULTIPLE = 2.0


def mean_and_se(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` and its standard error ``s / sqrt(n)`` (``s`` with n - 1); ``nan`` for one value."""
    values = [float(v) for v in values]
    if not values:
        raise ValueError("mean_and_se needs at least one value.")
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.nan
    return mean, statistics.stdev(values) / math.sqrt(len(values))


def item_noise(p: float, units: int) -> float:
    """The standard error of an accuracy ``p`` measured on ``units`` independent test items (or facts)."""
    if units < 1:
        raise ValueError(f"item_noise needs at least one unit, got {units}.")
    p = min(max(float(p), 0.0), 1.0)
    return math.sqrt(p * (1 - p) / units)


def cluster_se(
    a: Sequence[float], b: Sequence[float], clusters: Sequence[Hashable]
) -> tuple[float, float, int]:
    """Paired per-item scores ``a`` and ``b`` (e.g. 1/0 correct) of two systems on the same test items, and the
    cluster of each item (the fact it renders): ``(mean difference, its cluster-robust standard error, number of
    clusters)``. Items of one cluster count together, as one unit: the error grows when they agree."""
    if not (len(a) == len(b) == len(clusters)) or not a:
        raise ValueError("cluster_se needs equally long, non-empty a, b and clusters.")
    d = [float(x) - float(y) for x, y in zip(a, b)]
    n, mean = len(d), statistics.fmean(d)
    sums: dict[Hashable, float] = defaultdict(float)
    for value, cluster in zip(d, clusters):
        sums[cluster] += value - mean
    g = len(sums)
    if g < 2:
        return mean, math.nan, g
    variance = g / (g - 1) * sum(s * s for s in sums.values()) / (n * n)
    return mean, math.sqrt(variance), g


def direction(differences: Sequence[float], noise: float = 0.0, multiple: float = SE_MULTIPLE) -> str:
    """``"up"`` / ``"down"`` if the mean of the paired ``differences`` (one per seed) exceeds ``multiple``
    standard errors over the seeds and the test set's ``noise`` (:func:`item_noise`); else ``"unclear"``."""
    mean, se = mean_and_se(differences)
    if math.isnan(se) or abs(mean) <= multiple * se or abs(mean) <= noise:
        return "unclear"
    return "up" if mean > 0 else "down"


def student_t_sf(t: float, df: int) -> float:
    """P(T > t) for Student's t with ``df`` degrees of freedom (Simpson's rule on the density; standard library)."""
    if df < 1:
        raise ValueError("df must be at least 1.")
    if t < 0:
        return 1 - student_t_sf(-t, df)
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)

    def pdf(x: float) -> float:
        return c * (1 + x * x / df) ** (-(df + 1) / 2)

    steps = 2000  # even; [0, t] is smooth, so this is exact to ~1e-10
    h = t / steps
    area = pdf(0) + pdf(t) + sum((4 if i % 2 else 2) * pdf(i * h) for i in range(1, steps))
    return 0.5 - area * h / 3


def false_positive_rate(seeds: int, multiple: float = SE_MULTIPLE) -> float:
    """How often :func:`direction`'s seed rule fires when two variants do not differ at all: ``P(|T| > multiple)``
    for Student's t with ``seeds - 1`` degrees of freedom (normal seed noise; the item-noise floor only lowers it).
    With 5 seeds and 2 standard errors: 0.116. The old rule "every one of 3 seeds agrees in sign" fired with
    probability 2 / 2**3 = 0.25."""
    if seeds < 2:
        raise ValueError("A standard error over seeds needs at least 2 seeds.")
    return 2 * student_t_sf(multiple, seeds - 1)
