"""Exercises for notebook 04 (MLM and NSP losses): the MLM loss by hand, and two buggy losses to fix.

In the notebook::

    from bertedu.teaching.exercises import losses as ex
    logits, labels = ex.mlm_by_hand_data()     # (2, 3, 4) logits, (2, 3) labels with -100
    ex.mlm_by_hand.check(answer)               # a number
    ex.fix_nsp_loss.check(my_nsp_loss)         # a function (logits (B, 2), labels (B,)) -> scalar tensor
    ex.fix_mlm_average.check(my_mlm_loss)      # a function (logits (B, T, V), labels (B, T)) -> scalar tensor
    ex.mlm_head.check(MLMHead)                 # write the module: MLMHead(config, word_embeddings), tied
    ex.nsp_sampler.check(sample_nsp_pair)      # write the function: (documents, rng) -> (a, b, label)
    ex.collate_batch.check(collate_pairs)      # write the function: (pairs, tokenizer, max_length) -> batch

This module holds the losses' exercises; the three "write it" exercises of the notebook are in their own
modules, one concept each: :mod:`bertedu.teaching.exercises.mlm_head` (the MLM head) and
:mod:`bertedu.teaching.exercises.pretraining_inputs` (NSP pairs and batches). They are imported here, because
notebook 04 checks all its exercises through one ``ex``. The plain checkers (``check_mlm_by_hand``,
``check_fix_nsp_loss``, ``check_fix_mlm_average``) return ``(passed, message)`` and are what the unit tests call.
Introduced in notebook 04.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F

from bertedu.core.losses import IGNORE_INDEX, mlm_loss, nsp_loss
from bertedu.language import msg, translatable, translate
from bertedu.teaching.exercises.core import (
    Diagnosis,
    Exercise,
    as_number,
    expects_function,
    number_problem,
    rounded_decimals,
    rounded_message,
)
from bertedu.teaching.exercises.mlm_head import mlm_head
from bertedu.teaching.exercises.pretraining_inputs import collate_batch, nsp_sampler

# ----------------------------------------------------------------------------------------------------------
# 1. The MLM loss by hand

_LOGITS = [  # (B=2, T=3, V=4): one row of vocabulary scores per position
    [[1.0, 0.0, 0.0, 0.0], [2.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 3.0]],
    [[0.0, 2.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], [1.0, 0.0, 0.0, 1.0]],
]
_LABELS = [[-100, 2, -100], [1, -100, 0]]  # three masked positions: (0, 1), (1, 0), (1, 2)


def mlm_by_hand_data() -> tuple[torch.Tensor, torch.Tensor]:
    """The exercise's ``logits (2, 3, 4)`` and ``labels (2, 3)`` (-100 = not a prediction target)."""
    return torch.tensor(_LOGITS), torch.tensor(_LABELS)


def _per_position_ce() -> list[list[float | None]]:
    """-log softmax(logits)[label] at every labelled position (None elsewhere), in float64."""
    out = []
    for row_logits, row_labels in zip(_LOGITS, _LABELS):
        row = []
        for z, y in zip(row_logits, row_labels):
            row.append(None if y == IGNORE_INDEX else math.log(sum(math.exp(v) for v in z)) - z[y])
        out.append(row)
    return out


def mlm_by_hand_answer() -> float:
    """The reference value: mean cross-entropy over the three labelled positions."""
    values = [v for row in _per_position_ce() for v in row if v is not None]
    return sum(values) / len(values)


def _mlm_mistakes(ce: list[list[float | None]], right: float) -> dict[str, tuple[float, str]]:
    """The typical wrong answers of :func:`check_mlm_by_hand`: for each, its value and the message that names
    the mistake. ``ce``: the cross-entropy of every position (``None``: not masked); ``right``: their mean."""
    values = [v for row in ce for v in row if v is not None]
    per_sentence = [[v for v in row if v is not None] for row in ce]
    n_positions = sum(len(row) for row in _LABELS)
    return {
        "all positions": (
            sum(values) / n_positions,
            msg(
                "you divided by all {n_positions} positions, but only {n_values} are masked: the "
                "loss is averaged over the masked positions only (the others contribute nothing).",
                n_positions=n_positions,
                n_values=len(values),
            ),
        ),
        "sum": (
            sum(values),
            msg(
                "that is the sum; divide by the number of masked positions ({n_values}).",
                n_values=len(values),
            ),
        ),
        "per sentence": (
            sum(sum(r) / len(r) for r in per_sentence) / len(per_sentence),
            msg(
                "you averaged each sentence first and then the sentences; BERT averages over all masked "
                "positions of the batch at once (a sentence with more masks weighs more)."
            ),
        ),
        "no softmax": (
            -sum(
                _LOGITS[b][t][_LABELS[b][t]]
                for b in range(2)
                for t in range(3)
                if _LABELS[b][t] != IGNORE_INDEX
            )
            / len(values),
            msg(
                "you used the raw logit of the right token; first turn the logits into probabilities "
                "with a softmax over the vocabulary (log p = z_y - log Σ_v exp z_v)."
            ),
        ),
        "sign": (-right, msg("the sign is wrong: the loss is -log p, a positive number.")),
        "log10": (
            right / math.log(10),
            msg("use the natural logarithm (ln), as F.cross_entropy does, not log10."),
        ),
        "log2": (
            right / math.log(2),
            msg("use the natural logarithm (ln), as F.cross_entropy does, not log2."),
        ),
    }


def check_mlm_by_hand(answer) -> tuple[bool, str]:
    """The MLM loss of :func:`mlm_by_hand_data` (mean over the masked positions of the whole batch)."""
    # Python, NumPy (float32 too) or 0-d torch numbers alike: a student may compute it with any of them
    value = as_number(answer)
    if value is None:
        return False, number_problem(answer, "answer = 1.23")
    answer = value
    if not math.isfinite(answer):
        return False, msg(
            "{answer} is not a finite number; did you average over zero positions?", answer=answer
        )
    ce = _per_position_ce()
    values = [v for row in ce for v in row if v is not None]
    right = sum(values) / len(values)
    if abs(answer - right) <= 1e-3:
        return True, msg(
            "L_MLM = ({terms}) / {n_values} = {right:.4f}: "
            "the mean of -log p(original token) over the masked positions of the whole batch.",
            terms=" + ".join(f"{v:.4f}" for v in values),
            n_values=len(values),
            right=right,
        )
    decimals = rounded_decimals(answer, right, atol=1e-3)
    if decimals is not None:
        return False, rounded_message(decimals, atol=1e-3)
    wrong = _mlm_mistakes(ce, right)
    for value, message in wrong.values():
        if abs(answer - value) <= 1e-3:
            return False, message
    return False, msg(
        "{answer:.4f} is not it. For each masked position take -log softmax(logits)[label], then "
        "average over the masked positions.",
        answer=answer,
    )


mlm_by_hand = Exercise(
    "mlm_by_hand",
    "Compute the MLM loss of `logits, labels = ex.mlm_by_hand_data()` by hand (numpy or paper and pencil, not "
    "`F.cross_entropy`): softmax over the vocabulary, -log of the probability of the label, averaged. "
    "Give at least 3 decimals.",
    check_mlm_by_hand,
    points=1,
    expected=lambda: mlm_by_hand_answer(),
    hints=[
        translatable("Only the positions whose label is not -100 count. There are three of them."),
        translatable(
            "For a row of logits z and label y: -log p_y = log(Σ_v exp z_v) - z_y. Average the three values."
        ),
    ],
    solution_code="""
import numpy as np
z, y = (t.numpy() for t in ex.mlm_by_hand_data())       # (2, 3, 4), (2, 3)
keep = y != -100                                        # (2, 3) the masked positions
z, y = z[keep].astype(np.float64), y[keep]              # (3, 4), (3,)
log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))   # log softmax over the vocabulary
answer = float(-log_p[np.arange(len(y)), y].mean())
""",
)


# ----------------------------------------------------------------------------------------------------------
# 2. Find the bug: NSP loss with ignore_index=0


def _nsp_cases() -> list[tuple[str, torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(4)
    logits = torch.randn(16, 2, generator=g) * 2  # (B, 2)
    mixed = torch.tensor([0, 1] * 8)  # 0 = IsNext, 1 = NotNext (Hugging Face / bertedu)
    return [
        (translatable("mixed"), logits, mixed),
        (translatable("all IsNext"), logits[:6], torch.zeros(6, dtype=torch.long)),
        (translatable("all NotNext"), logits[6:12], torch.ones(6, dtype=torch.long)),
    ]


def _scalar_loss(fn: Callable, logits: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor | None, str]:
    """Call a student's loss on copies of the inputs: ``(loss, "")``, or ``(None, what is wrong)`` when it is
    not a scalar tensor attached to the graph."""
    out = fn(logits.clone().requires_grad_(True), labels.clone())
    if not isinstance(out, torch.Tensor) or out.numel() != 1:
        return None, msg("return the loss as a scalar tensor (keep it a tensor: no .item()).")
    if not out.requires_grad:
        return (
            None,
            msg("the loss is detached from the graph (.item(), .detach() or numpy?); backward() needs it."),
        )
    return out, ""


@expects_function("ex.fix_nsp_loss.check(my_nsp_loss)")
def check_fix_nsp_loss(fn: Callable) -> tuple[bool, str]:
    """``fn(logits (B, 2), labels (B,)) -> scalar`` must equal the NSP cross-entropy over *every* pair
    (labels 0 = IsNext, 1 = NotNext) and stay attached to the graph."""
    for name, logits, labels in _nsp_cases():
        out, problem = _scalar_loss(fn, logits, labels)
        if problem:
            return False, problem
        value, right = float(out.detach()), float(nsp_loss(logits, labels))
        if math.isnan(value):
            return False, msg(
                "on a batch that is {name} your loss is nan: every pair was ignored. NSP has no "
                "'ignore' class; with ignore_index=0 every IsNext pair (label 0) is dropped.",
                name=translate(name),
            )
        if abs(value - right) <= 1e-5:
            continue
        variants = {
            "ignore0": (
                F.cross_entropy(logits, labels, ignore_index=0),
                Diagnosis(
                    msg(
                        "your loss only counts NotNext pairs: every IsNext pair (label 0 under Hugging Face's "
                        "convention) is left out, so a model that always answers NotNext would drive it to 0."
                    ),
                    msg(
                        "ignore_index=0 drops the pairs labelled 0; NSP has no 'ignore' class: remove ignore_index."
                    ),
                ),
            ),
            "ignore1": (
                F.cross_entropy(logits, labels, ignore_index=1),
                msg(
                    "your loss only counts IsNext pairs: ignore_index=1 drops every NotNext pair. NSP needs "
                    "both classes; remove ignore_index."
                ),
            ),
            "flipped": (
                F.cross_entropy(logits, 1 - labels),
                msg(
                    "the classes are swapped: in Hugging Face and bertedu label 0 = IsNext and 1 = NotNext, "
                    "and logit column 0 scores IsNext. Do not flip the labels."
                ),
            ),
            "sum": (
                F.cross_entropy(logits, labels, reduction="sum"),
                msg(
                    "that is the sum over the batch; BERT averages the NSP loss over the pairs (the default "
                    "reduction='mean')."
                ),
            ),
        }
        for expected, message in variants.values():
            if not math.isnan(float(expected)) and abs(value - float(expected)) <= 1e-5:
                return False, message
        return False, msg(
            "on the {name} batch your loss is {value:.4f} but the NSP cross-entropy is {right:.4f}. "
            "Use F.cross_entropy(logits, labels) over every pair.",
            name=translate(name),
            value=value,
            right=right,
        )
    return True, msg(
        "every pair counts, IsNext (0) and NotNext (1) alike, and the loss matches "
        "bertedu.core.losses.nsp_loss on mixed, all-IsNext and all-NotNext batches."
    )


fix_nsp_loss = Exercise(
    "fix_nsp_loss",
    translatable(
        "`my_nsp_loss(logits, labels)` runs and returns plausible numbers, but with Hugging Face's labels "
        "(0 = IsNext, 1 = NotNext) a model that answers NotNext for every pair gets a loss close to 0. Find the "
        "bug and fix the function."
    ),
    check_fix_nsp_loss,
    hints=[
        translatable(
            "ignore_index=k makes F.cross_entropy skip every example whose label is k. Which NSP pairs have "
            "label 0?"
        ),
        translatable(
            "NSP has no 'padding' class to skip: every pair is a real example. Drop the ignore_index argument."
        ),
    ],
    solution_code="""
def my_nsp_loss(logits, labels):
    # logits (B, 2): column 0 scores IsNext, column 1 NotNext; labels (B,): 0 = IsNext, 1 = NotNext
    return F.cross_entropy(logits, labels)   # every pair counts: no ignore_index
""",
    points=1,
    answers=("bertedu.core.losses.nsp_loss",),
)


# ----------------------------------------------------------------------------------------------------------
# 3. Find the bug: MLM loss averaged over all positions


def _mlm_cases() -> list[tuple[str, torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(5)
    B, T, V = 3, 8, 11
    logits = torch.randn(B, T, V, generator=g) * 2  # (B, T, V)
    targets = torch.randint(V, (B, T), generator=g)  # (B, T)
    keep = torch.zeros(B, T, dtype=torch.bool)
    keep[0, 2] = True  # one masked position in sentence 0,
    keep[1, [1, 4]] = True  # two in sentence 1,
    keep[2, [0, 3, 5, 7]] = True  # four in sentence 2
    labels = torch.where(keep, targets, IGNORE_INDEX)
    return [("uneven", logits, labels), ("no masked token", logits[:2], torch.full((2, T), IGNORE_INDEX))]


@expects_function("ex.fix_mlm_average.check(my_mlm_loss)")
def check_fix_mlm_average(fn: Callable) -> tuple[bool, str]:
    """``fn(logits (B, T, V), labels (B, T)) -> scalar`` must average the cross-entropy over the labelled
    positions of the whole batch and give 0 (not nan) when there is none, as ``bertedu.core.losses.mlm_loss``."""
    for name, logits, labels in _mlm_cases():
        out, problem = _scalar_loss(fn, logits, labels)
        if problem:
            return False, problem
        value, right = float(out.detach()), float(mlm_loss(logits, labels))
        if abs(value - right) <= 1e-5:
            continue
        if name == "no masked token":
            if math.isnan(value):
                return False, msg(
                    "almost: right whenever something is masked, but a batch without any masked token "
                    "gives nan (0 / 0), which would poison training. Divide by the number of masked "
                    "positions clamped to at least 1, so such a batch gives 0, as "
                    "bertedu.core.losses.mlm_loss does."
                )
            return False, msg("a batch without masked tokens should give 0, got {value:.4f}.", value=value)
        V = logits.size(-1)
        per_position = F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), reduction="none")  # (B*T,)
        masked = labels != IGNORE_INDEX
        per_sentence = (per_position.view(labels.shape).sum(1) / masked.sum(1)).mean()
        variants = {
            "all": (
                per_position.sum() / labels.numel(),
                Diagnosis(
                    msg(
                        "your loss is {n_masked}/{n_positions} of the mean over the masked positions: only "
                        "{n_masked} of the {n_positions} positions are masked, and the ignored ones pull it "
                        "towards 0 (it shrinks when the batch has more padding).",
                        n_positions=labels.numel(),
                        n_masked=int(masked.sum()),
                    ),
                    msg(
                        "It divides the masked sum by all positions; divide by the number of masked positions."
                    ),
                ),
            ),
            "sum": (per_position.sum(), msg("that is the sum; divide by the number of masked positions.")),
            "sentence": (
                per_sentence,
                msg(
                    "you averaged per sentence, then over sentences; BERT (and bertedu) "
                    "average over all masked positions of the batch at once."
                ),
            ),
        }
        for expected, message in variants.values():
            if abs(value - float(expected)) <= 1e-5:
                return False, message
        return (
            False,
            msg(
                "on the test batch your loss is {value:.4f}, expected {right:.4f} (mean over masked positions).",
                value=value,
                right=right,
            ),
        )
    return True, msg(
        "the loss is the mean over the masked positions of the whole batch, and 0 (still attached to "
        "the graph) when nothing is masked: it matches bertedu.core.losses.mlm_loss."
    )


fix_mlm_average = Exercise(
    "fix_mlm_average",
    "`my_mlm_loss` computes the right per-position cross-entropies but averages them wrongly. Fix it so it "
    "equals `bertedu.core.losses.mlm_loss`, including a batch where nothing is masked.",
    check_fix_mlm_average,
    hints=[
        translatable(
            "With reduction='none', F.cross_entropy puts 0 at the ignored positions. What does .mean() divide by?"
        ),
        translatable(
            "Divide the sum by (labels != -100).sum(), clamped to at least 1 so that an empty batch gives 0."
        ),
    ],
    solution_code="""
def my_mlm_loss(logits, labels):
    V = logits.size(-1)
    per_position = F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1),
                                   ignore_index=-100, reduction="none")       # (B*T,), 0 where ignored
    n_masked = (labels != -100).sum().clamp(min=1)                            # 0 masked -> loss 0, not nan
    return per_position.sum() / n_masked
""",
    points=1,
    answers=(
        "bertedu.core.losses.mlm_loss",
        "bertedu.core.losses.masked_cross_entropy",
    ),
)

__all__ = [
    "mlm_by_hand",
    "fix_nsp_loss",
    "fix_mlm_average",
    "mlm_head",  # notebook 04's "write it" exercises, from their own modules
    "nsp_sampler",
    "collate_batch",
    "mlm_by_hand_data",
    "mlm_by_hand_answer",
    "check_mlm_by_hand",
    "check_fix_nsp_loss",
    "check_fix_mlm_average",
]
