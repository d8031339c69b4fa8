"""Exercises for notebook 07 (fine-tuning): align word tags to pieces, decode a span, fix an evaluation bug.

In the notebook::

    from bertedu.exercises import finetune as ex
    ex.align_labels.check(my_align)        # my_align(pieces_per_word, tag_ids) -> labels for [CLS] ... [SEP]
    ex.decode_span.check(my_decode)        # my_decode(start_logits (T,), end_logits (T,), context_mask (T,)) -> (i, j)
    ex.fix_eval_dropout.check(my_accuracy) # my_accuracy(model, batch) -> float, with dropout off

The plain checkers (``check_align_labels``, ``check_decode_span``, ``check_fix_eval_dropout``) return
``(passed, message)`` and are what the unit tests call. Introduced in notebook 07.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from bertedu.exercises.core import Exercise
from bertedu.losses import IGNORE_INDEX

# ----------------------------------------------------------------------------------------------------------
# 1. Word tags -> piece labels


def reference_align(pieces_per_word: list[list[str]], tag_ids: list[int]) -> list[int]:
    """The labels of ``[CLS] pieces... [SEP]``: each word's tag on its first piece, -100 everywhere else."""
    labels = [IGNORE_INDEX]  # [CLS]
    for pieces, tag in zip(pieces_per_word, tag_ids):
        labels += [tag] + [IGNORE_INDEX] * (len(pieces) - 1)
    return labels + [IGNORE_INDEX]  # [SEP]


_ALIGN_CASES = [
    ([["the"], ["dog"], ["bark", "##s"]], [0, 1, 2]),
    ([["play", "##ing"], ["cat", "##s"]], [2, 1]),
    ([["un", "##want", "##ed"], ["dog"]], [3, 1]),
    ([["a"]], [0]),
    ([["the"], ["sun"], ["rise", "##s"], ["in"], ["the"], ["east"]], [0, 1, 2, 4, 0, 1]),
]


def check_align_labels(fn: Callable) -> tuple[bool, str]:
    """``fn(pieces_per_word, tag_ids) -> list[int]`` must equal :func:`reference_align` on every case."""
    if not callable(fn):
        return False, "pass your function itself, e.g. ex.align_labels.check(my_align) (no parentheses)."
    for pieces, tags in _ALIGN_CASES:
        got = fn([list(p) for p in pieces], list(tags))
        if isinstance(got, torch.Tensor):
            got = got.tolist()
        right = reference_align(pieces, tags)
        if got == right:
            continue
        n_tokens = sum(len(p) for p in pieces) + 2
        shown = (
            f"for words {[''.join(p).replace('##', '') for p in pieces]} (pieces {pieces}) and tags {tags}"
        )
        if not isinstance(got, list):
            return False, f"return a list of ints, got {type(got).__name__}."
        if len(got) == n_tokens - 2:
            return False, (
                f"{shown} you returned {len(got)} labels, one per piece, but the model also sees [CLS] "
                "and [SEP]: add -100 at both ends."
            )
        if len(got) != n_tokens:
            return (
                False,
                f"{shown} the sequence has {n_tokens} tokens ([CLS] + pieces + [SEP]) but you gave {len(got)} labels.",
            )
        every_piece = [IGNORE_INDEX] + [t for p, t in zip(pieces, tags) for _ in p] + [IGNORE_INDEX]
        last_piece = (
            [IGNORE_INDEX]
            + [x for p, t in zip(pieces, tags) for x in [IGNORE_INDEX] * (len(p) - 1) + [t]]
            + [IGNORE_INDEX]
        )
        if got == every_piece:
            return False, (
                f"{shown} you gave every piece the word's tag, so a word split into 3 pieces counts 3 times "
                "in the loss and the accuracy. Label the first piece only; -100 for the rest."
            )
        if got == last_piece:
            return (
                False,
                f"{shown} you labelled the last piece of each word; BERT (Section 5.3) uses the first.",
            )
        if [0 if x == IGNORE_INDEX else x for x in right] == got:
            return False, (
                f"{shown} you used 0 where the label should be ignored, but 0 is a real tag id: the model "
                "would be trained to predict it for [CLS], [SEP] and continuation pieces. Use -100."
            )
        return False, f"{shown} expected {right}, got {got}."
    return True, (
        "every word's tag sits on its first piece; [CLS], [SEP] and the ## pieces get -100, so each word "
        "counts once in the loss and in the token accuracy."
    )


align_labels = Exercise(
    "align_labels",
    "Write `my_align(pieces_per_word, tag_ids)`: the label list for `[CLS] pieces... [SEP]`, with each word's "
    "tag on its first piece and -100 on [CLS], [SEP] and every other piece.",
    check_align_labels,
    hints=[
        "Start with [-100] for [CLS]; for each word append its tag, then len(pieces) - 1 times -100.",
        "Finish with -100 for [SEP]. The result has (number of pieces + 2) entries.",
    ],
    solution_code="""
def my_align(pieces_per_word, tag_ids):
    labels = [-100]                                          # [CLS]
    for pieces, tag in zip(pieces_per_word, tag_ids):
        labels += [tag] + [-100] * (len(pieces) - 1)         # first piece only
    return labels + [-100]                                   # [SEP]
""",
)


# ----------------------------------------------------------------------------------------------------------
# 2. Decoding a span


def _span_cases() -> list[tuple[str, torch.Tensor, torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(7)
    cases = [
        (
            "end before start",
            torch.tensor([0.0, 0.0, 0.0, 4.0, 0.0, 6.0, 0.0]),
            torch.tensor([0.0, 0.0, 0.0, 1.0, 7.0, 0.5, 0.0]),
            torch.tensor([0, 0, 0, 1, 1, 1, 0]),
        ),
        (
            "best score in the question",
            torch.tensor([9.0, 8.0, 0.0, 0.0, 1.0, 0.5, 0.0]),
            torch.tensor([9.0, 0.0, 8.0, 0.0, 0.2, 1.0, 0.0]),
            torch.tensor([0, 0, 0, 0, 1, 1, 0]),
        ),
    ]
    for k in range(20):
        T = 8 + k % 7
        first = 2 + k % 4
        mask = torch.zeros(T, dtype=torch.long)
        mask[first : T - 1] = 1
        cases.append((f"random {k}", torch.randn(T, generator=g) * 3, torch.randn(T, generator=g) * 3, mask))
    return cases


def _reference_decode(start, end, mask):
    from bertedu.finetune import best_span

    s, e = best_span(start, end, mask, max_answer_length=len(start))
    return int(s), int(e)


def check_decode_span(fn: Callable) -> tuple[bool, str]:
    """``fn(start_logits (T,), end_logits (T,), context_mask (T,)) -> (i, j)``: the best valid span."""
    if not callable(fn):
        return False, "pass your function itself, e.g. ex.decode_span.check(my_decode) (no parentheses)."
    for name, start, end, mask in _span_cases():
        got = fn(start.clone(), end.clone(), mask.clone())
        try:
            i, j = (int(x) for x in got)
        except (TypeError, ValueError):
            return False, f"return a pair (start, end) of token positions, got {got!r}."
        right = _reference_decode(start, end, mask)
        if (i, j) == right:
            continue
        case = (
            f"start_logits={start.tolist()}, end_logits={end.tolist()}, context_mask={mask.tolist()}"
            if not name.startswith("random")
            else "a random case"
        )
        if j < i:
            return False, (
                f"on {case} you returned start {i} > end {j}: not a span. Taking the argmax of the start "
                "and end scores separately does this. Search over pairs with i <= j."
            )
        if not (mask[i] and mask[j]):
            return False, (
                f"on {case} your span ({i}, {j}) is not inside the context (context_mask is 0 there): the "
                "answer must come from the passage, not from [CLS], the question or [SEP]."
            )
        score, best = float(start[i] + end[j]), float(start[right[0]] + end[right[1]])
        return False, (
            f"on {case} your span ({i}, {j}) is valid but scores {score:.3f}; ({right[0]}, {right[1]}) "
            f"scores {best:.3f}. Maximise start[i] + end[j] over all valid pairs."
        )
    return (
        True,
        "your decoder returns the highest-scoring span with start <= end inside the context, every time.",
    )


decode_span = Exercise(
    "decode_span",
    "Write `my_decode(start_logits, end_logits, context_mask)` for one example (three tensors of shape (T,)): "
    "return the pair (i, j) with i <= j, both in the context, that maximises start_logits[i] + end_logits[j].",
    check_decode_span,
    hints=[
        "Two loops over i and j (j from i on) are fine for T of a few dozen tokens; skip pairs where "
        "context_mask is 0.",
        "Vectorised: scores = start[:, None] + end[None, :] is (T, T); set the invalid cells (j < i, outside the "
        "context) to -inf with torch.triu and the mask, then take the argmax of the flattened matrix.",
    ],
    solution_code="""
def my_decode(start_logits, end_logits, context_mask):
    best, best_pair = float("-inf"), None
    T = len(start_logits)
    for i in range(T):
        for j in range(i, T):                                # end never before start
            if context_mask[i] and context_mask[j]:          # both ends inside the passage
                score = float(start_logits[i] + end_logits[j])
                if score > best:
                    best, best_pair = score, (i, j)
    return best_pair
""",
)


# ----------------------------------------------------------------------------------------------------------
# 3. Find the bug: evaluating with dropout on


def _dropout_setup():
    from bertedu.config import BertConfig
    from bertedu.model import BertForSequenceClassification

    config = BertConfig(
        vocab_size=50,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=16,
        hidden_dropout_prob=0.5,
        attention_probs_dropout_prob=0.5,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(11)
        model = BertForSequenceClassification(config)
        g = torch.Generator().manual_seed(12)
        input_ids = torch.randint(5, 50, (64, 10), generator=g)
        with torch.no_grad():
            model.eval()
            labels = model(input_ids).logits.argmax(-1)  # what the model predicts without dropout
            labels[::4] = 1 - labels[::4]  # so that the right accuracy is 0.75, not 1
    model.train()  # as it is right after a training epoch
    batch = {
        "input_ids": input_ids,
        "attention_mask": torch.ones_like(input_ids),
        "token_type_ids": torch.zeros_like(input_ids),
        "labels": labels,
    }
    return model, batch


def check_fix_eval_dropout(fn: Callable) -> tuple[bool, str]:
    """``fn(model, batch) -> accuracy`` must give the dropout-free accuracy (0.75 here) on every call."""
    if not callable(fn):
        return (
            False,
            "pass your function itself, e.g. ex.fix_eval_dropout.check(my_accuracy) (no parentheses).",
        )
    model, batch = _dropout_setup()
    values = []
    for seed in (0, 1, 2):
        model.train()
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            value = fn(model, {k: v.clone() for k, v in batch.items()})
        if isinstance(value, torch.Tensor):
            value = value.item()
        if not isinstance(value, (int, float)):
            return False, f"return the accuracy as a number, got {type(value).__name__}."
        values.append(float(value))
    if all(abs(v - 0.75) < 1e-6 for v in values):
        restored = " and the model is back in training mode" if model.training else ""
        return True, (
            f"three calls, three times accuracy 0.75: dropout is off during evaluation{restored}. "
            "(torch.no_grad() only stops gradient tracking; model.eval() is what turns dropout off.)"
        )
    if len(set(values)) > 1:
        return False, (
            f"three calls gave {[round(v, 3) for v in values]}: the answer changes from call to call "
            "because dropout is still active. torch.no_grad() does not switch it off; call model.eval() "
            "before the forward pass (and model.train() afterwards if training continues)."
        )
    return (
        False,
        f"your function returns {values[0]:.3f}; with dropout off the accuracy on this batch is 0.750.",
    )


fix_eval_dropout = Exercise(
    "fix_eval_dropout",
    "`my_accuracy(model, batch)` is called right after a training epoch and gives a different accuracy every "
    "time. Find the bug and fix it.",
    check_fix_eval_dropout,
    hints=[
        "Which layers behave differently in training and in evaluation? Is `torch.no_grad()` enough to "
        "change that?",
        "Call model.eval() before the forward pass; remember the previous mode with was_training = "
        "model.training and restore it with model.train(was_training).",
    ],
    solution_code="""
def my_accuracy(model, batch):
    was_training = model.training
    model.eval()                                   # dropout off: deterministic predictions
    with torch.no_grad():                          # no gradients needed (saves memory; does NOT touch dropout)
        inputs = {k: batch[k] for k in ("input_ids", "attention_mask", "token_type_ids")}
        logits = model(**inputs).logits
    model.train(was_training)                      # back to where we were
    return (logits.argmax(-1) == batch["labels"]).float().mean().item()
""",
)

__all__ = [
    "align_labels",
    "decode_span",
    "fix_eval_dropout",
    "reference_align",
    "check_align_labels",
    "check_decode_span",
    "check_fix_eval_dropout",
]
