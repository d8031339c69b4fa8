"""bertedu.course.stats: paired differences over seeds, the test set's noise, and notebook 10's direction rule."""

from __future__ import annotations

import math
import random

import pytest

from bertedu.course import stats


def test_mean_and_se():
    mean, se = stats.mean_and_se([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5 and se == pytest.approx(math.sqrt(5 / 3) / 2)
    assert math.isnan(stats.mean_and_se([1.0])[1])
    with pytest.raises(ValueError):
        stats.mean_and_se([])


def test_item_noise_is_the_binomial_standard_error():
    assert stats.item_noise(0.5, 100) == pytest.approx(0.05)
    assert stats.item_noise(1.0, 10) == 0.0 and stats.item_noise(0.9, 90) == pytest.approx(
        math.sqrt(0.09 / 90)
    )
    with pytest.raises(ValueError):
        stats.item_noise(0.5, 0)


def test_cluster_se_counts_a_cluster_once():
    # 4 items of two facts; the two items of a fact agree: as uncertain as 2 items, not 4
    mean, se, clusters = stats.cluster_se([1, 1, 0, 0], [0, 0, 0, 0], ["a", "a", "b", "b"])
    assert (mean, clusters) == (0.5, 2) and se == pytest.approx(0.5)
    _, independent, _ = stats.cluster_se([1, 1, 0, 0], [0, 0, 0, 0], ["a", "b", "c", "d"])
    assert independent < se
    with pytest.raises(ValueError):
        stats.cluster_se([1], [0, 1], ["a"])


def test_direction_needs_two_standard_errors_and_more_than_the_item_noise():
    assert stats.direction([0.05, 0.04, 0.06, 0.05, 0.03]) == "up"
    assert stats.direction([-0.05, -0.04, -0.06, -0.05, -0.03]) == "down"
    assert stats.direction([0.05, 0.04, 0.06, 0.05, 0.03], noise=0.06) == "unclear"
    assert stats.direction([0.05, -0.04, 0.06, 0.05, 0.03]) == "unclear"  # within 2 standard errors
    assert stats.direction([0.05]) == "unclear"  # one seed: no standard error


def test_student_t():
    assert stats.student_t_sf(0.0, 4) == pytest.approx(0.5)
    assert stats.student_t_sf(1.96, 10_000) == pytest.approx(0.025, abs=1e-3)  # the normal's tail
    assert stats.student_t_sf(2.776, 4) == pytest.approx(0.025, abs=1e-4)  # the t table: df 4, 97.5 %
    assert stats.student_t_sf(-1.0, 3) == pytest.approx(1 - stats.student_t_sf(1.0, 3))


def test_false_positive_rate_is_what_the_rule_does_on_pure_noise():
    """With no difference at all, the rule fires on about false_positive_rate(5) of the comparisons."""
    rng = random.Random(0)
    trials = 4000
    fired = sum(stats.direction([rng.gauss(0, 1) for _ in range(5)]) != "unclear" for _ in range(trials))
    assert stats.false_positive_rate(5) == pytest.approx(0.116, abs=0.001)
    assert abs(fired / trials - stats.false_positive_rate(5)) < 0.02
    assert stats.false_positive_rate(3) > stats.false_positive_rate(5) > stats.false_positive_rate(10)
    with pytest.raises(ValueError):
        stats.false_positive_rate(1)
