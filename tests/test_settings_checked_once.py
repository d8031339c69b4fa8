"""Each setting is validated once, at the door (issue 41): the command line checks by building the config, the
pretraining collator when it is made, and the loop's call of mask_tokens on every batch checks nothing again;
each name of a range means one range."""

from __future__ import annotations

import pytest
import torch

from bertedu.cli import _settings, build_parser
from bertedu.core import validation
from bertedu.core.masking import MASKING_RANGES, mask_tokens
from bertedu.core.validation import DROPOUT, PROBABILITY, Interval
from bertedu.training.data import PretrainingCollator
from bertedu.training.pretrain import PretrainingConfig

WORDS = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran"]


@pytest.fixture
def counted_checks(monkeypatch):
    """The names every Interval check was asked about, in order."""
    names: list[str] = []
    check = Interval.check

    def counting(self, name, value):
        names.append(name)
        return check(self, name, value)

    monkeypatch.setattr(Interval, "check", counting)
    return names


def _examples(tokenizer, n=4):
    ids = tokenizer.convert_tokens_to_ids(WORDS)
    return [
        {"input_ids": [2, *ids[: 3 + i], 3], "token_type_ids": [0] * (5 + i), "next_sentence_label": 0}
        for i in range(n)
    ]


def test_the_collator_checks_its_masking_settings_when_made_not_on_every_batch(
    word_tokenizer, counted_checks
):
    tokenizer = word_tokenizer(WORDS)
    collate = PretrainingCollator(tokenizer, mlm_probability=0.3721)  # a value no other test accepted before
    assert counted_checks.count("mlm_probability") == 1
    for _ in range(3):
        batch = collate(_examples(tokenizer))
    assert batch["input_ids"].shape == (4, 8)
    assert counted_checks.count("mlm_probability") == 1  # the three batches checked nothing again


def test_a_refused_masking_setting_is_refused_every_time_with_its_message(word_tokenizer):
    tokenizer = word_tokenizer(WORDS)
    ids = torch.tensor([[2, 5, 6, 7, 3]])
    for _ in range(2):
        with pytest.raises(ValueError, match=r"mlm_probability must be a probability in \[0, 1\]"):
            mask_tokens(ids, tokenizer=tokenizer, mlm_probability=1.5)
        with pytest.raises(ValueError, match="mlm_probability must be a probability"):
            PretrainingCollator(tokenizer, mlm_probability=True)  # not 1.0, though True == 1.0
    mask_tokens(ids, tokenizer=tokenizer, mlm_probability=1.0)  # accepted: [0, 1] includes 1
    with pytest.raises(ValueError, match="mlm_probability must be a probability"):
        mask_tokens(ids, tokenizer=tokenizer, mlm_probability=True)  # still refused after 1.0 was accepted
    with pytest.raises(ValueError, match="mlm_probability must be a probability"):
        mask_tokens(ids, tokenizer=tokenizer, mlm_probability=[0.1])  # unhashable: refused, not a TypeError


def test_the_command_line_checks_no_range_of_its_own(monkeypatch, capsys):
    """A range the config does not check, the command line does not check either: its one check is building
    the config (a second check in cli.py could drift from the field's range)."""
    parser = build_parser()
    args = parser.parse_args(["--output", "o", "--mlm-probability", "1.5", "--steps", "-5"])
    with pytest.raises(SystemExit):
        _settings(parser, args)
    assert "argument --mlm-probability: mlm_probability must be" in capsys.readouterr().err
    monkeypatch.setattr(PretrainingConfig, "validate", lambda self: None)
    given, config = _settings(parser, args)
    assert given["mlm_probability"] == config.mlm_probability == 1.5 and config.steps == -5


def test_each_range_name_means_one_range():
    """The review of 2026-12-06 found ``require_probability`` meaning [0, 1) or [0, 1] by a flag."""
    assert not hasattr(validation, "require_probability")
    assert 1.0 in PROBABILITY and 1.0 not in DROPOUT and 0.0 in PROBABILITY and 0.0 in DROPOUT
    assert str(MASKING_RANGES["mlm_probability"]) == str(PROBABILITY) == "[0, 1]" and str(DROPOUT) == "[0, 1)"
