"""Checkers of notebook 06's exercises: right answers pass, typical wrong answers fail with a helpful message."""

from __future__ import annotations

import math

import pytest
import torch

from bertedu.exercises import pretraining as ex
from bertedu.pretrain import linear_schedule


# ------------------------------------------------------------------------------------------ learning-rate schedule
def test_lr_schedule_solution_and_both_warmup_conventions_pass():
    ns = {}
    exec(ex.lr_schedule.solution_code, ns)
    result = ex.lr_schedule.check(ns["lr_at"])
    assert result.passed and "5e-4 at step 550" in result.message
    package = linear_schedule(100, 1000)
    assert ex.check_lr_schedule(lambda s: 1e-3 * package(s))[0]  # bertedu's own schedule
    hf_style = lambda s: 1e-3 * s / 100 if s < 100 else 1e-3 * (1000 - s) / 900  # starts at exactly 0
    assert ex.check_lr_schedule(hf_style)[0]
    assert ex.check_lr_schedule(lambda s: torch.tensor(hf_style(s)))[0]  # a 0-d tensor is fine


@pytest.mark.parametrize(
    "fn, phrase",
    [
        (lambda s: 1e-3 * (1000 - s) / 1000, "no warm-up"),
        (
            lambda s: 1e-3 * (s + 1) / 1000 if s < 100 else 1e-3 * (1000 - s) / 900,
            "divide by the warm-up steps",
        ),
        (lambda s: 1e-3 * min(1.0, (s + 1) / 100), "stays at the peak"),
        (lambda s: 1e-3 * (s + 1) / 100 if s < 100 else 1e-3 * (1000 - s) / 1000, "remaining 900 steps"),
        (lambda s: 1e-3 * (s + 1) / 100 if s < 100 else 1e-3 * 0.995 ** (s - 100), "exponential"),
        (lambda s: 1e-3 * (s + 1) / 100 if s < 100 else 1e-3 * (1000 - s) / 900 + 1e-5, "expected"),
        (lambda s: "0.001", "return one number"),
        (lambda s: math.nan, "finite"),
        (1e-3, "pass your function itself"),
    ],
)
def test_lr_schedule_typical_mistakes(fn, phrase):
    ok, msg = ex.check_lr_schedule(fn)
    assert not ok and phrase in msg, msg
    assert not ex.lr_schedule.check(fn).passed


def test_lr_schedule_not_answered_yet():
    assert "no answer yet" in ex.lr_schedule.check(...).message


# ------------------------------------------------------------------------------------------ dropout at evaluation
def buggy_top1_word(model, tokenizer, sentence):
    enc = tokenizer(sentence, return_tensors="pt")
    logits = model(**enc).prediction_logits[0]  # dropout still on: the model is in training mode
    position = enc["input_ids"][0].tolist().index(tokenizer.mask_token_id)
    return tokenizer.convert_ids_to_tokens(int(logits[position].argmax()))


def test_fix_eval_dropout_solution_passes_and_keeps_the_global_rng():
    ns = {"torch": torch}
    exec(ex.fix_eval_dropout.solution_code, ns)
    torch.manual_seed(123)
    before = torch.get_rng_state()
    result = ex.fix_eval_dropout.check(ns["top1_word"])
    assert result.passed and "model.eval()" in result.message
    assert torch.equal(torch.get_rng_state(), before)


def test_fix_eval_dropout_catches_the_bug():
    ok, msg = ex.check_fix_eval_dropout(buggy_top1_word)
    assert not ok and "dropout is still on" in msg and "model.eval()" in msg


def test_fix_eval_dropout_other_mistakes():
    ok, msg = ex.check_fix_eval_dropout(lambda model, tok, s: 7)
    assert not ok and "as a string" in msg
    ok, msg = ex.check_fix_eval_dropout(lambda model, tok, s: "the")
    assert not ok and "differ" in msg
    ok, msg = ex.check_fix_eval_dropout("top1_word")
    assert not ok and "pass your function itself" in msg
    result = ex.fix_eval_dropout.check(lambda model, tok, s: 1 / 0)
    assert not result.passed and "ZeroDivisionError" in result.message


def test_exercise_model_really_depends_on_dropout():
    model, tok = ex.exercise_model()
    model.train()
    torch.manual_seed(0)
    answers = {buggy_top1_word(model, tok, "the man eats the [MASK]") for _ in range(8)}
    assert len(answers) > 1  # in training mode the top-1 word changes from call to call
