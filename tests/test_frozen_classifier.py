"""The one linear classifier on frozen features (:func:`bertedu.course.finetuning.fit_frozen_classifier`),
which notebook 07's feature-based runs and notebook 10's frozen-feature probe both train."""

from __future__ import annotations

import inspect

import torch

from bertedu.course import ablations, finetuning
from bertedu.course.finetuning import fit_frozen_classifier
from bertedu.training.metrics import accuracy


def _splits(n=60, d=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = {name: torch.randn(n, d, generator=g) * 5 + 3 for name in ("train", "dev", "test")}
    y = {name: (v[:, 0] > 3).long() for name, v in x.items()}  # one feature decides the label
    return x, y


def _fit(x, y, **kw):
    options = dict(seed=0, steps=40, lr=1e-1, weight_decay=0.0, dev_score=accuracy)
    return fit_frozen_classifier(x, y, 2, **{**options, **kw})


def test_it_learns_a_separable_task_and_leaves_the_random_state_alone():
    x, y = _splits()
    state = torch.random.get_rng_state()
    predicted, best_dev, best_step = _fit(x, y)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert accuracy(predicted, y["test"].tolist()) >= 0.85 and best_dev >= 0.85 and 1 <= best_step <= 40
    assert _fit(x, y) == (predicted, best_dev, best_step)  # deterministic for a seed


def test_dev_is_scored_every_check_every_steps_and_the_first_best_is_kept():
    x, y = _splits()
    scored = []

    def score(predicted, gold):
        scored.append(len(scored))
        return 1.0  # every step ties: the first scored one is kept

    _, best_dev, best_step = _fit(x, y, steps=35, check_every=10, dev_score=score)
    assert len(scored) == 3 and (best_dev, best_step) == (1.0, 10)


def test_both_feature_based_runs_train_through_it():
    """One implementation: neither caller trains a classifier of its own."""
    for function in (finetuning.run_feature_based, ablations.frozen_feature_probe):
        source = inspect.getsource(function)
        assert "fit_frozen_classifier(" in source
        assert "cross_entropy(" not in source and "AdamW(" not in source
