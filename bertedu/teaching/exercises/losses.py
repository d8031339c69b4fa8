"""Exercises for notebook 04 (MLM and NSP losses): the MLM loss by hand, and two buggy losses to fix.

In the notebook::

    from bertedu.teaching.exercises import losses as ex
    logits, labels = ex.mlm_by_hand_data()     # (2, 3, 4) logits, (2, 3) labels with -100
    ex.mlm_by_hand.check(answer)               # a number
    ex.fix_nsp_loss.check(my_nsp_loss)         # a function (logits (B, 2), labels (B,)) -> scalar tensor
    ex.fix_mlm_average.check(my_mlm_loss)      # a function (logits (B, T, V), labels (B, T)) -> scalar tensor
    ex.mlm_head.check(MLMHead)                 # write the module: MLMHead(config, word_embeddings), tied
    ex.nsp_sampler.check(sample_nsp_pair)      # write the function: (documents, rng) -> (a, b, label)

The plain checkers (``check_mlm_by_hand``, ``check_fix_nsp_loss``, ``check_fix_mlm_average``) return
``(passed, message)`` and are what the unit tests call. The module is longer than most because it holds one
notebook's exercises, each with its checker, feedback and reference solution. Introduced in notebook 04.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

from bertedu.core.config import BertConfig
from bertedu.core.heads import BertLMPredictionHead
from bertedu.core.losses import IGNORE_INDEX, mlm_loss, nsp_loss
from bertedu.teaching.exercises.core import (
    Exercise,
    as_number,
    expects_function,
    number_problem,
    rounded_decimals,
    rounded_message,
)
from bertedu.teaching.exercises.nn_checks import (
    build,
    close,
    output_tensor,
    random_init,
    run_checks,
)
from bertedu.teaching.i18n import msg, translatable, translate

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
    value = as_number(answer)  # Python, NumPy (float32 too) or 0-d torch numbers alike (review W6)
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
                msg(
                    "your loss only counts NotNext pairs: ignore_index=0 drops every IsNext pair (label 0 "
                    "under Hugging Face's convention). A model that always answers NotNext would drive it "
                    "to 0. Remove ignore_index."
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
    "`my_nsp_loss` passes `ignore_index=0` to `F.cross_entropy`. With Hugging Face's labels (0 = IsNext, "
    "1 = NotNext) what does that silently do? Fix the function.",
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
                msg(
                    "your loss is the masked sum divided by all {n_positions} positions, but only "
                    "{n_masked} are masked: it is diluted by the zeros of the ignored positions (and "
                    "shrinks when the batch has more padding). Divide by the number of masked positions.",
                    n_positions=labels.numel(),
                    n_masked=int(masked.sum()),
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
)

__all__ = [
    "mlm_by_hand",
    "fix_nsp_loss",
    "fix_mlm_average",
    "mlm_by_hand_data",
    "mlm_by_hand_answer",
    "check_mlm_by_hand",
    "check_fix_nsp_loss",
    "check_fix_mlm_average",
]


# ----------------------------------------------------------------------------------------------------------
# 4. Write the module: the MLM head with tied weights

#: The checker's configuration.
HEAD_CONFIG = BertConfig(
    vocab_size=23, hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16
)


def _mlm_head_steps(cls) -> tuple[bool, str]:
    config = HEAD_CONFIG
    word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
    ref = BertLMPredictionHead(config)
    ref.decoder.weight = word_embeddings.weight  # tied, as BertForPreTraining.tie_weights does
    random_init(ref, seed=31)  # the embedding matrix too (it is decoder.weight now)
    example = "ex.mlm_head.check(MLMHead)"
    mine = build(cls, config, word_embeddings, example=example)
    decoder = getattr(mine, "decoder", None)
    if not isinstance(getattr(decoder, "weight", None), torch.Tensor):
        return False, msg("name the vocabulary projection `decoder` (an nn.Linear(H, V) whose weight is E).")
    if decoder.weight is not word_embeddings.weight:
        if decoder.weight.shape == word_embeddings.weight.shape and torch.equal(
            decoder.weight.detach(), word_embeddings.weight.detach()
        ):
            return False, msg(
                "the decoder is tied by copy: its weight equals the word embeddings today but is a separate "
                "tensor, so the first optimizer step pulls them apart (and doubles the parameters). Share the "
                "Parameter itself: `self.decoder.weight = word_embeddings.weight`."
            )
        return False, msg(
            "the decoder is not tied to the word embeddings: BERT scores the vocabulary with E itself, "
            "logits = transform(h) · Eᵀ + b. Set `self.decoder.weight = word_embeddings.weight`."
        )
    bias = dict(mine.named_parameters()).get("bias")
    if bias is None or tuple(bias.shape) != (config.vocab_size,):
        return False, msg(
            "the output bias is missing: the head has its own per-token bias of shape (V,), named `bias` "
            "(`self.bias = nn.Parameter(torch.zeros(config.vocab_size))`), used as the decoder's bias."
        )
    if decoder.bias is not None and decoder.bias is not bias:
        return False, msg(
            "the decoder has a second bias of its own next to `bias`: create it with nn.Linear(H, V, bias=False) "
            "or share the Parameter (`self.decoder.bias = self.bias`), as Hugging Face does."
        )
    state = {k: v for k, v in ref.state_dict().items() if not k.startswith("decoder.")}  # decoder = E
    names = {k for k in mine.state_dict() if not k.startswith("decoder.")}
    if names != set(state):
        return False, msg(
            "your head's parameters do not have Hugging Face's names (missing {missing}, "
            "unexpected {unexpected}). Expected: {expected}.",
            missing=sorted(set(state) - names),
            unexpected=sorted(names - set(state)),
            expected=translate(_HEAD_NAMES),
        )
    mine.load_state_dict(state, strict=False)
    hidden = torch.randn(2, 3, config.hidden_size, generator=torch.Generator().manual_seed(32))  # (B, T, H)
    with torch.no_grad():
        got = output_tensor(mine(hidden), msg("the logits (B, T, V)"), (2, 3, config.vocab_size))
        if not close(got, ref(hidden)):
            E, b = word_embeddings.weight, ref.bias
            for variant, message in (
                (
                    hidden @ E.T + b,
                    msg("the transform is missing: apply dense → GELU → LayerNorm before the decoder."),
                ),
                (ref.transform(hidden) @ E.T, msg("the bias is not added: logits = transform(h) · Eᵀ + b.")),
                (
                    F.gelu(ref.transform.dense(hidden)) @ E.T + b,
                    msg("the transform's LayerNorm is missing: dense → GELU → LayerNorm."),
                ),
            ):
                if close(got, variant):
                    return False, message
            return (
                False,
                msg(
                    "your logits differ from BertLMPredictionHead's: transform (dense → GELU → LayerNorm), then h · Eᵀ + b."
                ),
            )
    return True, msg(
        "logits = LayerNorm(GELU(dense(h))) · Eᵀ + b with decoder.weight *being* the word-embedding Parameter: "
        "the same as bertedu's BertLMPredictionHead, and V·H parameters saved."
    )


_HEAD_NAMES = translatable("transform.dense, transform.LayerNorm, decoder (weight = E), bias (V,)")


def check_mlm_head(cls) -> tuple[bool, str]:
    """``cls(config, word_embeddings)`` must be BERT's MLM head with its decoder tied to ``word_embeddings``."""
    return run_checks(lambda: _mlm_head_steps(cls))


mlm_head = Exercise(
    "mlm_head",
    "Write `MLMHead(config, word_embeddings)`: transform (dense → GELU → LayerNorm, named transform.dense and "
    "transform.LayerNorm), then logits = h · Eᵀ + b with a `decoder` whose weight *is* the word-embedding "
    "matrix E (tied) and a per-token `bias` of shape (V,).",
    check_mlm_head,
    hints=[
        translatable(
            "A small `transform` module (nn.Module with .dense and .LayerNorm, eps=config.layer_norm_eps) keeps "
            "Hugging Face's names: transform.dense, transform.LayerNorm."
        ),
        translatable(
            "Tie by assignment, not by copy: `self.decoder = nn.Linear(H, V, bias=False)` then "
            "`self.decoder.weight = word_embeddings.weight`. The bias: `self.bias = nn.Parameter(torch.zeros(V))`."
        ),
    ],
    solution_code="""
class Transform(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, h):
        return self.LayerNorm(F.gelu(self.dense(h)))                  # (..., H)


class MLMHead(nn.Module):
    def __init__(self, config, word_embeddings):
        super().__init__()
        self.transform = Transform(config)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.decoder.weight = word_embeddings.weight                  # tied: the same Parameter (V, H)
        self.bias = nn.Parameter(torch.zeros(config.vocab_size))      # (V,)

    def forward(self, h):
        return self.decoder(self.transform(h)) + self.bias            # (..., V) = transform(h) · Eᵀ + b

ex.mlm_head.check(MLMHead)
""",
    points=2,
)


# ----------------------------------------------------------------------------------------------------------
# 5. Write the function: the NSP pair sampler


def nsp_documents() -> list[list[str]]:
    """The checker's corpus: 40 documents of 2 to 7 sentences; sentence ``i`` of document ``d`` reads
    ``"doc d sentence i ."``, so every pair can be traced back."""
    return [[f"doc {d} sentence {i} ." for i in range(2 + (d * 7) % 6)] for d in range(40)]


_NSP_DRAWS = 4000


def _nsp_sampler_steps(fn) -> tuple[bool, str]:
    documents = nsp_documents()
    where = {s: (d, i) for d, doc in enumerate(documents) for i, s in enumerate(doc)}
    runs = []
    for _ in range(2):
        rng = random.Random(0)
        pairs = []
        for _ in range(_NSP_DRAWS):
            pair = fn(documents, rng)
            if not (isinstance(pair, tuple) and len(pair) == 3):
                return False, msg("return a tuple (sentence_a, sentence_b, label).")
            a, b, label = pair
            if a not in where or b not in where:
                return (
                    False,
                    msg("sentence_a and sentence_b must be sentences of `documents` (strings), unchanged."),
                )
            label = as_number(label)
            if label not in (0.0, 1.0):
                return False, msg(
                    "the label must be 0 (IsNext) or 1 (NotNext), got {label!r}.", label=pair[2]
                )
            pairs.append((where[a], where[b], int(label)))
        runs.append(pairs)
    if runs[0] != runs[1]:
        return False, msg(
            "two runs with the same rng gave different pairs: draw every random number from the `rng` you are "
            "given (rng.random(), rng.randrange(...), rng.choice(...)), not from the global random module."
        )
    pairs = runs[0]
    follows = [(da == db and ib == ia + 1) for (da, ia), (db, ib), _ in pairs]
    same_doc = [da == db for (da, _), (db, _), _ in pairs]
    is_next = [label == 0 for *_, label in pairs]
    n_next = sum(is_next)
    share_follows = lambda want: (
        sum(f for f, n in zip(follows, is_next) if n == want) / max(1, sum(n == want for n in is_next))
    )
    if share_follows(False) > 0.9 and share_follows(True) < 0.1:
        return False, msg(
            "the labels are swapped: in Hugging Face and bertedu 0 = IsNext (B really follows A) and "
            "1 = NotNext. Your pairs labelled 1 are the real continuations."
        )
    if not 0.46 <= n_next / len(pairs) <= 0.54:
        return (
            False,
            msg(
                "{share:.0%} of your pairs are IsNext; BERT draws IsNext and NotNext 50/50.",
                share=n_next / len(pairs),
            ),
        )
    if share_follows(True) < 1:
        return (
            False,
            msg("a pair labelled 0 (IsNext) must have B = the sentence right after A, in the same document."),
        )
    same = sum(s for s, n in zip(same_doc, is_next) if not n) / (len(pairs) - n_next)
    if same > 0:
        return False, msg(
            "{same:.0%} of your NotNext pairs take B from A's own document: BERT's NotNext B is a random "
            "sentence from *another* document. (Same-document negatives are a different, harder task: "
            "ALBERT's sentence-order prediction swaps two consecutive sentences instead.)",
            same=same,
        )
    docs_used = {db for (_, (db, _), label) in pairs if label == 1}
    if len(docs_used) < len(documents) // 2:
        return False, msg(
            "NotNext B comes from only {n_docs_used} of the {n_documents} documents: draw it at random "
            "from the whole corpus.",
            n_docs_used=len(docs_used),
            n_documents=len(documents),
        )
    return True, msg(
        "{share:.1%} IsNext, every IsNext B the true next sentence, every NotNext B from another "
        "document, labels as Hugging Face (0 = IsNext), reproducible from the rng. bertedu's NSPPairSampler "
        "does the same with segments of up to two sentences.",
        share=n_next / len(pairs),
    )


@expects_function("ex.nsp_sampler.check(sample_nsp_pair)")
def check_nsp_sampler(fn) -> tuple[bool, str]:
    """``fn(documents, rng) -> (sentence_a, sentence_b, label)``: 50 % IsNext (label 0, B follows A), 50 %
    NotNext (label 1, B from another document), all randomness from ``rng`` (a ``random.Random``)."""
    return run_checks(lambda: _nsp_sampler_steps(fn))


nsp_sampler = Exercise(
    "nsp_sampler",
    "Write `sample_nsp_pair(documents, rng)` (documents: lists of sentences; rng: a random.Random) that returns "
    "(sentence_a, sentence_b, label): with probability 0.5 B is the sentence right after A (label 0 = IsNext), "
    "otherwise B is a random sentence from another document (label 1 = NotNext).",
    check_nsp_sampler,
    hints=[
        translatable(
            "Pick a document with at least two sentences and a sentence i that is not its last one: A = doc[i]."
        ),
        translatable(
            "`if rng.random() < 0.5:` B = doc[i + 1], label 0. Else pick another document (not the same one!) with "
            "rng.randrange and a random sentence of it, label 1."
        ),
    ],
    solution_code="""
def sample_nsp_pair(documents, rng):
    d = rng.randrange(len(documents))
    while len(documents[d]) < 2:                                # A needs a next sentence
        d = rng.randrange(len(documents))
    i = rng.randrange(len(documents[d]) - 1)
    a = documents[d][i]
    if rng.random() < 0.5:
        return a, documents[d][i + 1], 0                        # IsNext (Hugging Face: label 0)
    other = rng.randrange(len(documents) - 1)
    other = other + (other >= d)                                # any document but d
    return a, rng.choice(documents[other]), 1                   # NotNext (label 1)

ex.nsp_sampler.check(sample_nsp_pair)
""",
    points=2,
)

__all__ += ["HEAD_CONFIG", "check_mlm_head", "check_nsp_sampler", "mlm_head", "nsp_documents", "nsp_sampler"]
