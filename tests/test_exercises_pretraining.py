"""Checkers of notebook 06's exercises: right answers pass, typical wrong answers fail with a helpful message."""

from __future__ import annotations

import math

import pytest
import torch

from bertedu.teaching.exercises import pretraining as ex
from bertedu.training.optim import linear_schedule


# ------------------------------------------------------------------------------------------ learning-rate schedule
def test_lr_schedule_solution_and_both_warmup_conventions_pass():
    ns = {}
    exec(ex.lr_schedule.solution_code, ns)
    result = ex.lr_schedule.check(ns["lr_at"])
    assert result.passed and "5e-4 at step 550" in result.message, result.message
    package = linear_schedule(100, 1000)
    ok, msg = ex.check_lr_schedule(lambda s: 1e-3 * package(s))  # bertedu's own schedule
    assert ok, msg
    hf_style = lambda s: 1e-3 * s / 100 if s < 100 else 1e-3 * (1000 - s) / 900  # starts at exactly 0
    ok, msg = ex.check_lr_schedule(hf_style)
    assert ok, msg
    ok, msg = ex.check_lr_schedule(lambda s: torch.tensor(hf_style(s)))  # a 0-d tensor is fine
    assert ok, msg


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
    result = ex.lr_schedule.check(fn)
    assert not result.passed, result.message


def test_lr_schedule_not_answered_yet():
    assert "no answer yet" in ex.lr_schedule.check(...).message


# ------------------------------------------------------------------------------------------ dropout at evaluation
def buggy_top1_word(model, tokenizer, sentence):
    enc = tokenizer(sentence, return_tensors="pt")
    logits = model(**enc).prediction_logits[0]  # dropout still on: the model is in training mode
    position = enc["input_ids"][0].tolist().index(tokenizer.mask_token_id)
    return tokenizer.convert_ids_to_tokens(int(logits[position].argmax()))


@pytest.mark.slow
def test_fix_eval_dropout_solution_passes_and_keeps_the_global_rng():
    ns = {"torch": torch}
    exec(ex.fix_eval_dropout.solution_code, ns)
    torch.manual_seed(123)
    before = torch.get_rng_state()
    result = ex.fix_eval_dropout.check(ns["top1_word"])
    assert result.passed and "model.eval()" in result.message, result.message
    assert torch.equal(torch.get_rng_state(), before)


@pytest.mark.slow
def test_fix_eval_dropout_catches_the_bug():
    ok, msg = ex.check_fix_eval_dropout(buggy_top1_word)
    assert not ok and "Dropout is still on" in msg and "model.eval()" in msg, msg


@pytest.mark.slow
def test_fix_eval_dropout_other_mistakes():
    ok, msg = ex.check_fix_eval_dropout(lambda model, tok, s: 7)
    assert not ok and "as a string" in msg, msg
    ok, msg = ex.check_fix_eval_dropout(lambda model, tok, s: "the")
    assert not ok and "differ" in msg, msg
    ok, msg = ex.check_fix_eval_dropout("top1_word")
    assert not ok and "pass your function itself" in msg, msg
    result = ex.fix_eval_dropout.check(lambda model, tok, s: 1 / 0)
    assert not result.passed and "ZeroDivisionError" in result.message, result.message


@pytest.mark.slow
def test_exercise_model_really_depends_on_dropout():
    model, tok = ex.exercise_model()
    model.train()
    torch.manual_seed(0)
    answers = {buggy_top1_word(model, tok, "the man eats the [MASK]") for _ in range(8)}
    assert len(answers) > 1  # in training mode the top-1 word changes from call to call


# ------------------------------------------------------------------------------------------ Chinese feedback
def no_zero_grad_step(model, batch, optimizer, scheduler, max_grad_norm):
    out = model(**batch)
    out.loss.backward()  # the gradients of every earlier step are still there
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    scheduler.step()
    return out.loss.item()


@pytest.mark.slow
def test_feedback_prompts_hints_and_solutions_follow_the_language(monkeypatch):
    """With the course in Chinese (bertedu/language/zh_pretraining.py) no English sentence is left, the numbers
    filled into a template are the same, and the solutions differ only in their comments."""
    from bertedu import language as i18n

    late = lambda s: 1e-3 * (s + 1) / 100 if s < 100 else 1e-3 * (1000 - s) / 900 + 1e-5
    cases = [
        (lambda: ex.check_lr_schedule(lambda s: 1e-3 * (1000 - s) / 1000), "no warm-up", "没有预热"),
        (lambda: ex.check_lr_schedule(late), "0.00051, expected 0.0005 (or", "0.00051，应为 0.0005（如果"),
        (lambda: ex.check_lr_schedule(lambda s: "0.001"), "returned '0.001'", "lr_at(0) 返回了 '0.001'"),
        (lambda: ex.check_fix_eval_dropout(buggy_top1_word), "Dropout is still on", "dropout 仍然开着"),
        (lambda: ex.check_training_step(no_zero_grad_step), "never reset", "梯度从来没有清零"),
        (
            lambda: ex.check_training_step(lambda *args: None),
            "training_step returned NoneType",
            "返回了 NoneType",
        ),
    ]
    monkeypatch.delenv("BERTEDU_LANG", raising=False)
    try:
        for run, english_part, chinese_part in cases:
            i18n.set_language("en")
            ok, english = run()
            assert not ok and english_part in english, english
            i18n.set_language("zh")
            ok, chinese = run()
            assert not ok and chinese_part in chinese and english_part not in chinese, chinese
        assert "编写 `lr_at(step)`" in ex.lr_schedule.prompt and "找出错误" in ex.fix_eval_dropout.prompt
        assert repr(ex.training_step.hint(2)).startswith("**提示 2/2**：顺序：`optimizer.zero_grad()`")
        ex.lr_schedule.check(None), ex.training_step.check(None)  # attempts open the solutions
        assert "# 线性预热" in repr(ex.lr_schedule.solution())
        assert "# 清掉上一步的梯度" in repr(ex.training_step.solution())
        ns = {"torch": torch}
        translated = i18n.translate_code(ex.fix_eval_dropout.solution_code)
        assert translated != ex.fix_eval_dropout.solution_code
        exec(translated, ns)  # the translated solution still runs
        assert str(ex.fix_eval_dropout.check(ns["top1_word"])).startswith("✓ 正确：每次调用的答案都相同")
    finally:
        i18n.set_language(None)
    assert ex.lr_schedule.prompt.startswith("Write `lr_at(step)`")
