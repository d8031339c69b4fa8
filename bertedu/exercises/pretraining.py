"""Exercises for notebook 06 (mini-pretraining): the learning-rate schedule, and a buggy evaluation to fix.

In the notebook::

    from bertedu.exercises import pretraining as ex
    ex.lr_schedule.check(lr_at)            # a function step -> learning rate (peak 1e-3, warm-up 100, 1000 steps)
    ex.fix_eval_dropout.check(top1_word)   # a function (model, tokenizer, sentence) -> the top-1 word

The plain checkers (``check_lr_schedule``, ``check_fix_eval_dropout``) return ``(passed, message)`` and are
what the unit tests call. Introduced in notebook 06.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from bertedu.exercises.core import Exercise

# ----------------------------------------------------------------------------------------------------------
# 1. The learning-rate schedule: linear warm-up, then linear decay to 0

PEAK_LR, WARMUP_STEPS, TOTAL_STEPS = 1e-3, 100, 1000
_PROBE_STEPS = [0, 1, 9, 49, 50, 98, 99, 100, 101, 250, 550, 700, 900, 990, 999]


def _reference(step: int, shifted: bool) -> float:
    """The schedule; ``shifted`` warms up with (step + 1) / W (bertedu), else step / W (Hugging Face)."""
    if step < WARMUP_STEPS:
        return PEAK_LR * ((step + 1) if shifted else step) / WARMUP_STEPS
    return PEAK_LR * max(0.0, (TOTAL_STEPS - step) / (TOTAL_STEPS - WARMUP_STEPS))


def _values(fn: Callable, steps: list[int]) -> list[float] | str:
    out = []
    for s in steps:
        value = fn(s)
        if isinstance(value, torch.Tensor) and value.numel() == 1:
            value = value.item()
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"lr_at({s}) returned {value!r}; return one number (the learning rate), e.g. 0.0005."
        if not math.isfinite(value):
            return f"lr_at({s}) = {value}: the learning rate must be a finite number."
        out.append(float(value))
    return out


def check_lr_schedule(fn: Callable) -> tuple[bool, str]:
    """``fn(step) -> lr`` must rise linearly to 1e-3 over the first 100 steps, then fall linearly to 0 at
    step 1000. Warming up from ``step / 100`` or ``(step + 1) / 100`` are both accepted."""
    if not callable(fn):
        return False, "pass your function itself, e.g. ex.lr_schedule.check(lr_at) (no parentheses)."
    got = _values(fn, _PROBE_STEPS)
    if isinstance(got, str):
        return False, got
    close = lambda a, b: abs(a - b) <= 1e-9 + 1e-6 * abs(b)
    for shifted in (True, False):
        if all(close(g, _reference(s, shifted)) for g, s in zip(got, _PROBE_STEPS)):
            start = "(step + 1) / 100" if shifted else "step / 100"
            return True, (
                f"lr rises as 1e-3 · {start} to the peak at step 100, then falls on a straight line "
                "to 0 at step 1000 (e.g. 5e-4 at step 550). That is bertedu.pretrain.linear_schedule "
                "times the peak, and the paper's 'warm-up over the first 10,000 steps, and linear "
                "decay'."
            )
    at = dict(zip(_PROBE_STEPS, got))
    if close(at[0], PEAK_LR):
        return False, (
            "at step 0 the learning rate is already the peak: there is no warm-up. Start near 0 and "
            "grow linearly over the first 100 steps."
        )
    if close(at[49], PEAK_LR * 49 / TOTAL_STEPS) or close(at[49], PEAK_LR * 50 / TOTAL_STEPS):
        return False, (
            "during warm-up you divide by the total number of steps (1000); divide by the warm-up "
            "steps (100), so the peak is reached at step 100."
        )
    if close(at[700], PEAK_LR) or close(at[999], PEAK_LR):
        return (
            False,
            "after the warm-up the learning rate stays at the peak: it must decay linearly to 0 at step 1000.",
        )
    if close(at[550], PEAK_LR * (TOTAL_STEPS - 550) / TOTAL_STEPS):
        return False, (
            "you decay over all 1000 steps, so the rate jumps down at step 100. Decay over the "
            "remaining 900 steps: factor (1000 - step) / (1000 - 100)."
        )
    slope_early, slope_late = (at[250] - at[550]) / 300, (at[550] - at[900]) / 350
    if close(at[100], PEAK_LR) and abs(slope_early - slope_late) > 0.05 * max(
        abs(slope_early), abs(slope_late)
    ):
        return False, (
            "after the warm-up your rate falls along a curve, not a straight line (an exponential or "
            "cosine decay?). BERT decays linearly: the same drop every step, reaching 0 at step 1000."
        )
    for s in (50, 550, 900):
        if not close(at[s], _reference(s, True)) and not close(at[s], _reference(s, False)):
            return False, (
                f"lr_at({s}) = {at[s]:.6g}, expected {_reference(s, False):.6g} (or "
                f"{_reference(s, True):.6g} if your warm-up counts from step + 1). Peak 1e-3 at step "
                "100; linear up before, linear down to 0 at step 1000 after."
            )
    return False, "close, but not everywhere: check the ends (step 0, 99, 100 and 999)."


lr_schedule = Exercise(
    "lr_schedule",
    "Write `lr_at(step)`: the learning rate at optimizer step `step` (0, 1, 2, ...) for a run of 1000 steps "
    "with peak 1e-3, a linear warm-up over the first 100 steps, then a linear decay to 0 at step 1000.",
    check_lr_schedule,
    hints=[
        "Two pieces: `if step < 100:` a straight line from (about) 0 up to 1e-3, `else:` a straight line from "
        "1e-3 at step 100 down to 0 at step 1000.",
        "After the warm-up the factor is (1000 - step) / (1000 - 100): 1 at step 100, 0 at step 1000.",
    ],
    solution_code="""
def lr_at(step, peak=1e-3, warmup=100, total=1000):
    if step < warmup:
        return peak * (step + 1) / warmup                          # linear warm-up
    return peak * max(0.0, (total - step) / (total - warmup))       # linear decay to 0
""",
)


# ----------------------------------------------------------------------------------------------------------
# 2. Find the bug: evaluation with dropout left on


def exercise_model():
    """A small random BERT with strong dropout and a tokenizer, for :func:`check_fix_eval_dropout`."""
    from bertedu.config import BertConfig
    from bertedu.model import BertForPreTraining
    from bertedu.tokenizer import SPECIAL_TOKENS, BertTokenizer

    words = "the a cat dog man woman eats drinks reads sees milk meat book paper water tree park".split()
    tokenizer = BertTokenizer([*SPECIAL_TOKENS, *words])
    generator_state = torch.get_rng_state()
    torch.manual_seed(6)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=32,
        hidden_dropout_prob=0.5,
        attention_probs_dropout_prob=0.5,
        initializer_range=0.5,
    )
    model = BertForPreTraining(config)
    torch.set_rng_state(generator_state)  # the checker must not move the notebook's random state
    return model, tokenizer


_SENTENCES = [
    "the man eats the [MASK]",
    "the cat [MASK] the milk",
    "the [MASK] reads the book",
    "a dog sees the [MASK]",
    "the woman drinks [MASK]",
]


def _reference_top1(model, tokenizer, sentence: str) -> str:
    was_training = model.training
    model.eval()
    with torch.no_grad():
        enc = tokenizer(sentence, return_tensors="pt")
        logits = model(**enc).prediction_logits[0]  # (T, V)
        position = enc["input_ids"][0].tolist().index(tokenizer.mask_token_id)
        word = tokenizer.convert_ids_to_tokens(int(logits[position].argmax()))
    model.train(was_training)
    return word


def check_fix_eval_dropout(fn: Callable) -> tuple[bool, str]:
    """``fn(model, tokenizer, sentence) -> word`` must give the eval-mode (dropout off) top-1 word, the same
    on every call, even when the model it receives is in training mode."""
    if not callable(fn):
        return False, "pass your function itself, e.g. ex.fix_eval_dropout.check(top1_word) (no parentheses)."
    model, tokenizer = exercise_model()
    expected = [_reference_top1(model, tokenizer, s) for s in _SENTENCES]
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        for _ in range(3):
            model.train()  # as it is right after a training loop
            got = [fn(model, tokenizer, s) for s in _SENTENCES]
            if not all(isinstance(w, str) for w in got):
                return (
                    False,
                    "return the predicted word as a string, e.g. 'meat' (use tokenizer.convert_ids_to_tokens).",
                )
            if got != expected:
                return False, (
                    "your answers differ from the model's real prediction, and they change from "
                    "call to call: dropout is still on (the model is in training mode), so "
                    "every forward pass drops a random 50 % of the activations here. Call model.eval() "
                    "before predicting (and use torch.no_grad() to skip the gradient bookkeeping)."
                )
    return True, (
        "same answer on every call, equal to the model's prediction with dropout off: model.eval() "
        "switches dropout off (and torch.no_grad() skips building the graph). Switch back with "
        "model.train() before training again."
    )


fix_eval_dropout = Exercise(
    "fix_eval_dropout",
    "`top1_word(model, tokenizer, sentence)` should return the model's best word for the [MASK], but called "
    "twice on the same sentence it can answer differently. Find the bug and fix the function.",
    check_fix_eval_dropout,
    hints=[
        "What does nn.Dropout do in training mode? Is the model in training mode when the loop has just "
        "finished?",
        "Call model.eval() before the forward pass (and wrap it in torch.no_grad()); dropout is then the identity.",
    ],
    solution_code="""
def top1_word(model, tokenizer, sentence):
    model.eval()                                   # dropout off: the prediction is deterministic
    with torch.no_grad():                          # no graph: faster, less memory
        enc = tokenizer(sentence, return_tensors="pt")
        logits = model(**enc).prediction_logits[0]                   # (T, V)
        position = enc["input_ids"][0].tolist().index(tokenizer.mask_token_id)
        return tokenizer.convert_ids_to_tokens(int(logits[position].argmax()))
""",
)
