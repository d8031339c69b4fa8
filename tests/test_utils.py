"""bertedu.utils: seeding and atomic writes."""

from __future__ import annotations

import json
import os
import random

import numpy as np
import pytest
import torch

from bertedu.utils import atomic_write, atomic_write_json, repo_root, set_seed


def _draw():
    return random.random(), float(np.random.rand()), float(torch.rand(1))


def test_set_seed_makes_python_numpy_and_torch_repeat():
    set_seed(123)
    first = _draw()
    set_seed(123)
    assert _draw() == first
    set_seed(124)
    assert _draw() != first


@pytest.mark.parametrize("bad", [-1, 1.5, "0", True])
def test_set_seed_rejects_bad_seeds(bad):
    with pytest.raises(ValueError, match="non-negative integer"):
        set_seed(bad)


def test_atomic_write_replaces_the_file(tmp_path):
    target = tmp_path / "sub" / "progress.json"
    atomic_write_json(target, {"a": 1})
    assert json.loads(target.read_text()) == {"a": 1}
    atomic_write_json(target, {"a": 2})
    assert json.loads(target.read_text()) == {"a": 2}
    assert [p.name for p in target.parent.iterdir()] == ["progress.json"]  # no temporary left over


def test_atomic_write_keeps_the_old_file_when_writing_crashes(tmp_path):
    target = tmp_path / "progress.json"
    atomic_write_json(target, {"kept": True})

    def crash(path):
        path.write_text('{"half": ')
        raise RuntimeError("power cut")

    with pytest.raises(RuntimeError, match="power cut"):
        atomic_write(target, crash)
    assert json.loads(target.read_text()) == {"kept": True}
    assert os.listdir(tmp_path) == ["progress.json"]


def test_repo_root_finds_the_checkout(monkeypatch, tmp_path):
    root = repo_root()
    assert (root / "data" / "simple_sentences.txt").is_file()
    monkeypatch.chdir(root / "notebooks")
    assert repo_root() == root
