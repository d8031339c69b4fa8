"""Exercises for notebook 07 (fine-tuning): align word tags to pieces, find the bug in a span loss, decode a span.

In the notebook::

    from bertedu.teaching.exercises import finetune as ex
    ex.align_labels.check(my_align)        # my_align(pieces_per_word, tag_ids) -> labels for [CLS] ... [SEP]
    ex.fix_span_loss.check(my_span_loss)   # my_span_loss(start (B, T), end (B, T), start_pos (B,), end_pos (B,))
    ex.decode_span.check(my_decode)        # my_decode(start_logits (T,), end_logits (T,), context_mask (T,)) -> (i, j)

The plain checkers (``check_align_labels``, ``check_fix_span_loss``, ``check_decode_span``) return
``(passed, message)`` and are what the unit tests call. (Notebook 06 has the "dropout left on at evaluation"
exercise, ``bertedu.teaching.exercises.pretraining``.) Every message is an English template translated when shown
(``bertedu.language``; the Chinese is in ``bertedu/language/zh_finetune.py``). Introduced in notebook 07.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

from bertedu.core.losses import IGNORE_INDEX
from bertedu.language import msg, translatable, translate
from bertedu.teaching.exercises.core import Diagnosis, Exercise, as_number, expects_function
from bertedu.training.finetune import best_span

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


@expects_function("ex.align_labels.check(my_align)")
def check_align_labels(fn: Callable) -> tuple[bool, str]:
    """``fn(pieces_per_word, tag_ids) -> list[int]`` must equal :func:`reference_align` on every case."""
    for pieces, tags in _ALIGN_CASES:
        got = fn([list(p) for p in pieces], list(tags))
        if isinstance(got, torch.Tensor):
            got = got.tolist()
        right = reference_align(pieces, tags)
        if got == right:
            continue
        n_tokens = sum(len(p) for p in pieces) + 2
        shown = msg(
            "for words {words} (pieces {pieces}) and tags {tags}",
            words=["".join(p).replace("##", "") for p in pieces],
            pieces=pieces,
            tags=tags,
        )
        if not isinstance(got, list):
            return False, msg("return a list of ints, got {type}.", type=type(got).__name__)
        if len(got) == n_tokens - 2:
            return False, msg(
                "{shown} you returned {n_labels} labels, one per piece, but the model also sees [CLS] "
                "and [SEP]: add -100 at both ends.",
                shown=shown,
                n_labels=len(got),
            )
        if len(got) != n_tokens:
            return False, msg(
                "{shown} the sequence has {n_tokens} tokens ([CLS] + pieces + [SEP]) but you gave "
                "{n_labels} labels.",
                shown=shown,
                n_tokens=n_tokens,
                n_labels=len(got),
            )
        every_piece = [IGNORE_INDEX] + [t for p, t in zip(pieces, tags) for _ in p] + [IGNORE_INDEX]
        last_piece = (
            [IGNORE_INDEX]
            + [x for p, t in zip(pieces, tags) for x in [IGNORE_INDEX] * (len(p) - 1) + [t]]
            + [IGNORE_INDEX]
        )
        if got == every_piece:
            return False, msg(
                "{shown} you gave every piece the word's tag, so a word split into 3 pieces counts 3 times "
                "in the loss and the accuracy. Label the first piece only; -100 for the rest.",
                shown=shown,
            )
        if got == last_piece:
            return False, msg(
                "{shown} you labelled the last piece of each word; BERT (Section 5.3) uses the first.",
                shown=shown,
            )
        if [0 if x == IGNORE_INDEX else x for x in right] == got:
            return False, msg(
                "{shown} you used 0 where the label should be ignored, but 0 is a real tag id: the model "
                "would be trained to predict it for [CLS], [SEP] and continuation pieces. Use -100.",
                shown=shown,
            )
        return False, msg("{shown} expected {right}, got {got}.", shown=shown, right=right, got=got)
    return True, msg(
        "every word's tag sits on its first piece; [CLS], [SEP] and the ## pieces get -100, so each word "
        "counts once in the loss and in the token accuracy."
    )


align_labels = Exercise(
    "align_labels",
    translatable(
        "Write `my_align(pieces_per_word, tag_ids)`: the label list for `[CLS] pieces... [SEP]`, with each "
        "word's tag on its first piece and -100 on [CLS], [SEP] and every other piece."
    ),
    check_align_labels,
    hints=[
        translatable(
            "Start with [-100] for [CLS]; for each word append its tag, then len(pieces) - 1 times -100."
        ),
        translatable("Finish with -100 for [SEP]. The result has (number of pieces + 2) entries."),
    ],
    solution_code="""
def my_align(pieces_per_word, tag_ids):
    labels = [-100]                                          # [CLS]
    for pieces, tag in zip(pieces_per_word, tag_ids):
        labels += [tag] + [-100] * (len(pieces) - 1)         # first piece only
    return labels + [-100]                                   # [SEP]
""",
    points=1,
    answers=("bertedu.training.finetune_data.align_word_labels",),
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

    s, e = best_span(start, end, mask, max_answer_length=len(start))
    return int(s), int(e)


@expects_function("ex.decode_span.check(my_decode)")
def check_decode_span(fn: Callable) -> tuple[bool, str]:
    """``fn(start_logits (T,), end_logits (T,), context_mask (T,)) -> (i, j)``: the best valid span."""
    for name, start, end, mask in _span_cases():
        got = fn(start.clone(), end.clone(), mask.clone())
        try:
            i, j = (int(x) for x in got)
        except (TypeError, ValueError):
            return False, msg("return a pair (start, end) of token positions, got {got!r}.", got=got)
        right = _reference_decode(start, end, mask)
        if (i, j) == right:
            continue
        case = (
            f"start_logits={start.tolist()}, end_logits={end.tolist()}, context_mask={mask.tolist()}"
            if not name.startswith("random")
            else msg("a random case")
        )
        if j < i:
            return False, msg(
                "on {case} you returned start {i} > end {j}: not a span. Taking the argmax of the start "
                "and end scores separately does this. Search over pairs with i <= j.",
                case=case,
                i=i,
                j=j,
            )
        if not (mask[i] and mask[j]):
            return False, msg(
                "on {case} your span ({i}, {j}) is not inside the context (context_mask is 0 there): the "
                "answer must come from the passage, not from [CLS], the question or [SEP].",
                case=case,
                i=i,
                j=j,
            )
        score, best = float(start[i] + end[j]), float(start[right[0]] + end[right[1]])
        return False, msg(
            "on {case} your span ({i}, {j}) is valid but scores {score:.3f}; ({best_i}, {best_j}) "
            "scores {best:.3f}. Maximise start[i] + end[j] over all valid pairs.",
            case=case,
            i=i,
            j=j,
            score=score,
            best_i=right[0],
            best_j=right[1],
            best=best,
        )
    return True, msg(
        "your decoder returns the highest-scoring span with start <= end inside the context, every time."
    )


decode_span = Exercise(
    "decode_span",
    translatable(
        "Write `my_decode(start_logits, end_logits, context_mask)` for one example (three tensors of shape "
        "(T,)): return the pair (i, j) with i <= j, both in the context, that maximises "
        "start_logits[i] + end_logits[j]."
    ),
    check_decode_span,
    hints=[
        translatable(
            "Two loops over i and j (j from i on) are fine for T of a few dozen tokens; skip pairs where "
            "context_mask is 0."
        ),
        translatable(
            "Vectorised: scores = start[:, None] + end[None, :] is (T, T); set the invalid cells (j < i, outside "
            "the context) to -inf with torch.triu and the mask, then take the argmax of the flattened matrix."
        ),
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
    points=2,
    answers=("bertedu.training.finetune.best_span",),
)


# ----------------------------------------------------------------------------------------------------------
# 3. Find the bug: the span loss, with its softmax over the wrong axis


def reference_span_loss(start_logits, end_logits, start_positions, end_positions):
    """``BertForQuestionAnswering``'s loss: ``(CE(start) + CE(end)) / 2``, each cross-entropy a softmax over
    the ``T`` positions of one example (``dim=-1``), averaged over the batch. Inputs ``(B, T)`` and ``(B,)``."""
    return (F.cross_entropy(start_logits, start_positions) + F.cross_entropy(end_logits, end_positions)) / 2


def _span_loss_cases() -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]]:
    """Batches of start/end scores ``(B, T)`` and gold positions ``(B,)``; never B == T, so that a softmax over
    the wrong axis cannot hide behind a square matrix."""
    g = torch.Generator().manual_seed(21)
    cases = []
    for B, T in ((4, 9), (3, 12), (6, 7), (2, 16)):
        start = torch.randn(B, T, generator=g) * 2
        end = torch.randn(B, T, generator=g) * 2
        start_positions = torch.randint(0, T - 2, (B,), generator=g)
        end_positions = start_positions + torch.randint(0, 3, (B,), generator=g)  # end >= start
        cases.append((start, end, start_positions, end_positions))
    return cases


def _span_loss_mistakes(start, end, sp, ep) -> dict[str, float]:
    """The values typical wrong span losses give on one case (name -> loss)."""
    rows = torch.arange(len(sp))

    def nll(logits, positions, dim):  # (B,): -log P(gold position) with the softmax over `dim`
        return -logits.log_softmax(dim=dim)[rows, positions]

    right_s, right_e = nll(start, sp, -1), nll(end, ep, -1)
    wrong_s, wrong_e = nll(start, sp, 0), nll(end, ep, 0)
    return {
        "batch axis": float(((wrong_s + wrong_e) / 2).mean()),
        "batch axis, summed": float((wrong_s + wrong_e).mean()),
        "sum": float((right_s + right_e).mean()),
        "start only": float(right_s.mean()),
        "end only": float(right_e.mean()),
        "summed over the batch": float(((right_s + right_e) / 2).sum()),
        "start and end swapped": float((nll(start, ep, -1) + nll(end, sp, -1)).mean() / 2),
        "probabilities": float((-(start.softmax(-1)[rows, sp] + end.softmax(-1)[rows, ep]) / 2).mean()),
    }


#: What the handed-out bug (the softmax over the batch) does to the loss, without its cause: ``given=True`` shows this.
_BATCH_AXIS_SYMPTOM = translatable(
    "one example's loss changes when the *other examples* of the batch change, and the probabilities your loss "
    "gives an example's T start positions do not sum to 1: they are not a distribution over its passage."
)
_SPAN_LOSS_MESSAGES = {
    "batch axis": translatable(
        "The softmax runs over dim 0, the batch: each position competes with the same position of the other "
        "examples. Span extraction is a softmax over the T positions of each example: log_softmax(dim=-1) "
        "(what F.cross_entropy(start_logits, start_positions) does)."
    ),
    "batch axis, summed": translatable(
        "the softmax runs over dim 0, the batch, instead of the T positions of each example (dim=-1); and the "
        "start and end terms are added, not averaged."
    ),
    "sum": translatable(
        "you add the start and end cross-entropies: that is the paper's objective, but BertForQuestionAnswering "
        "(like Google's run_squad.py and Hugging Face) reports their mean, (CE(start) + CE(end)) / 2."
    ),
    "start only": translatable(
        "you return the start term only; the loss also needs the end term: (CE(start) + CE(end)) / 2."
    ),
    "end only": translatable(
        "you return the end term only; the loss also needs the start term: (CE(start) + CE(end)) / 2."
    ),
    "summed over the batch": translatable(
        "you sum over the examples of the batch; average them (F.cross_entropy's default), or the loss, and "
        "with it the size of every step, grows with the batch size."
    ),
    "start and end swapped": translatable(
        "the start scores are scored against the end positions and vice versa: start_logits go with "
        "start_positions, end_logits with end_positions."
    ),
    "probabilities": translatable(
        "you average probabilities; the loss is the negative *log*-probability of the gold positions."
    ),
}


@expects_function("ex.fix_span_loss.check(my_span_loss)")
def check_fix_span_loss(fn: Callable) -> tuple[bool, str]:
    """``fn(start_logits (B, T), end_logits (B, T), start_positions (B,), end_positions (B,)) -> loss``: one
    number, equal to :func:`reference_span_loss` and differentiable (a tensor, as ``loss.backward()`` needs)."""
    for start, end, sp, ep in _span_loss_cases():
        start_in = start.clone().requires_grad_(True)
        end_in = end.clone().requires_grad_(True)
        got = fn(start_in, end_in, sp.clone(), ep.clone())
        value = as_number(got)
        if value is None:
            shape = tuple(getattr(got, "shape", ()))
            if len(shape) == 1 and shape[0] == len(sp):
                return False, msg(
                    "you return one loss per example, shape {shape}; return their mean over the batch, one "
                    "number, as BertForQuestionAnswering does.",
                    shape=shape,
                )
            return False, msg(
                "return the loss as one number (a 0-d tensor), got {type} {shape}.",
                type=type(got).__name__,
                shape=shape or "",
            )
        right = float(reference_span_loss(start, end, sp, ep))
        if abs(value - right) > 1e-4 * max(1.0, abs(right)):
            B, T = start.shape
            for name, wrong in _span_loss_mistakes(start, end, sp, ep).items():
                if abs(value - wrong) <= 1e-4 * max(1.0, abs(wrong)) and name == "batch axis":
                    return False, Diagnosis(
                        msg(
                            "on a batch of B = {B} examples with T = {T} positions, {mistake}",
                            B=B,
                            T=T,
                            mistake=translate(_BATCH_AXIS_SYMPTOM),
                        ),
                        translate(_SPAN_LOSS_MESSAGES[name]),
                    )
                if abs(value - wrong) <= 1e-4 * max(1.0, abs(wrong)):
                    return False, msg(
                        "on a batch of B = {B} examples with T = {T} positions, {mistake}",
                        B=B,
                        T=T,
                        mistake=translate(_SPAN_LOSS_MESSAGES[name]),
                    )
            return False, msg(
                "on a batch of B = {B} examples with T = {T} positions your loss is {value:.4f}, but "
                "(CE(start) + CE(end)) / 2 is {right:.4f}. Each cross-entropy is a softmax over the T positions "
                "of one example, scored at the gold position, averaged over the batch.",
                B=B,
                T=T,
                value=value,
                right=right,
            )
        if not (isinstance(got, torch.Tensor) and got.requires_grad):
            return False, msg(
                "the value is right, but it is not a tensor connected to the logits (did you call .item() or "
                "float()?): loss.backward() needs the tensor to compute gradients."
            )
    return True, msg(
        "right on every batch: a softmax over the T positions of each example (dim=-1), the gold start and end "
        "scored, (CE(start) + CE(end)) / 2 averaged over the batch, and still differentiable."
    )


fix_span_loss = Exercise(
    "fix_span_loss",
    translatable(
        "`my_span_loss(start_logits, end_logits, start_positions, end_positions)` should return "
        "BertForQuestionAnswering's loss, (CE(start) + CE(end)) / 2 averaged over the batch. It runs without an "
        "error and gives a plausible number, but it is wrong. Find the bug and fix it."
    ),
    check_fix_span_loss,
    hints=[
        translatable(
            "The logits are (B, T): B examples, T positions each. Over which of the two axes must the "
            "probabilities of one example's start position sum to 1?"
        ),
        translatable(
            "log_softmax(dim=0) normalises down the columns, across the batch. Use dim=-1 (the positions), or "
            "simply F.cross_entropy(start_logits, start_positions), which normalises over dim 1."
        ),
    ],
    solution_code="""
def my_span_loss(start_logits, end_logits, start_positions, end_positions):
    # start_logits, end_logits: (B, T); start_positions, end_positions: (B,)
    log_p_start = start_logits.log_softmax(dim=-1)           # over the T positions of each example
    log_p_end = end_logits.log_softmax(dim=-1)
    rows = torch.arange(len(start_positions))                # (B,)
    nll = -(log_p_start[rows, start_positions] + log_p_end[rows, end_positions]) / 2   # (B,)
    return nll.mean()
""",
    points=1,
)

__all__ = [
    "align_labels",
    "decode_span",
    "fix_span_loss",
    "reference_align",
    "reference_span_loss",
    "check_align_labels",
    "check_decode_span",
    "check_fix_span_loss",
]
