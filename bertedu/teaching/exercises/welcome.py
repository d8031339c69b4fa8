"""Exercises for notebook 00 (welcome): how an exercise works, on a first BERT fact.

Introduced in notebook 00.
"""

from __future__ import annotations

from bertedu.language import msg, translatable
from bertedu.teaching.exercises.core import Exercise, as_number

MASK_RATE = 0.15


def check_expected_masked(answer, n_tokens: int = 200) -> tuple[bool, str]:
    """Expected number of tokens BERT selects for prediction in a sequence of ``n_tokens`` maskable tokens."""
    value = as_number(answer)  # int, float, NumPy or torch scalar; None for anything else
    if value is None:
        return False, msg(
            "give a number (an int or a float), not {type} {answer!r}.",
            type=type(answer).__name__,
            answer=answer,
        )
    expected = MASK_RATE * n_tokens
    if abs(value - expected) < 1e-9:
        return True, msg(
            "15 % of {n} tokens is {expected:g}: BERT predicts about {expected:g} tokens per sequence.",
            n=n_tokens,
            expected=expected,
        )
    if abs(value - 0.8 * expected) < 1e-9:
        return False, msg(
            "{value:g} is the number replaced by [MASK] (80 % of the selected tokens). The question "
            "asks for every selected token, including the 10 % random and 10 % unchanged ones.",
            value=value,
        )
    if abs(value - 15) < 1e-9 or abs(value - 0.15) < 1e-9:
        return False, msg(
            "{value:g} is the rate, not a count: multiply the rate by the {n} tokens.",
            value=value,
            n=n_tokens,
        )
    return False, msg("{value:g} is not 15 % of {n}. Multiply {n} by 0.15.", value=value, n=n_tokens)


expected_masked = Exercise(
    name="expected_masked",
    prompt="BERT selects 15 % of the tokens of a sequence for prediction. How many of 200 tokens, on average?",
    checker=check_expected_masked,
    hints=[
        translatable("15 % means 0.15 of the tokens."),
        translatable("Selected tokens are then split 80/10/10, but all of them are predicted."),
    ],
    # only the comment is translated (a test checks that the code stays the same)
    solution_code="answer = 0.15 * 200   # 30 tokens are predicted; 24 of them are shown as [MASK]",
)
