"""Exercises for notebook 03 (masking strategy): expected counts, dynamic-masking coverage, and a buggy
masking function to fix.

In the notebook::

    from bertedu.exercises import masking as ex
    ex.expected_counts.check(answer)           # a dict {"[MASK]": ..., "random": ..., "unchanged": ...,
                                               #         "not selected": ...} or a 4-tuple in that order
    ex.coverage_epochs.check(answer)           # an int
    ex.fix_masking.check(my_mask_tokens)       # a function (input_ids, tokenizer, generator) -> (ids, labels)

The plain checker functions (``check_expected_counts``, ``check_coverage_epochs``, ``check_fix_masking``)
return ``(passed, message)`` and are what the unit tests call. Introduced in notebook 03.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import torch

from bertedu.exercises.core import Exercise
from bertedu.masking import IGNORE_INDEX
from bertedu.tokenizer import SPECIAL_TOKENS, BertTokenizer

# ----------------------------------------------------------------------------------------------------------
# 1. Expected counts for N maskable tokens

N_TOKENS = 2000  #: the N of the exercise
CATEGORIES = ("[MASK]", "random", "unchanged", "not selected")


def expected_masking_counts(
    n: int, p: float = 0.15, mask: float = 0.8, random: float = 0.1
) -> dict[str, float]:
    """Expected number of the ``n`` maskable tokens in each category (BERT's 15 % and 80/10/10)."""
    return {
        "[MASK]": n * p * mask,
        "random": n * p * random,
        "unchanged": n * p * (1 - mask - random),
        "not selected": n * (1 - p),
    }


def _as_counts(answer) -> dict[str, float] | None:
    """The answer as {category: number}, or None if it has the wrong form."""
    if isinstance(answer, Mapping):
        keys = {str(k).strip().lower().strip("[]").replace("_", " "): v for k, v in answer.items()}
        keys = {("[MASK]" if k == "mask" else k): v for k, v in keys.items()}
        if set(keys) != set(CATEGORIES):
            return None
        values = keys
    elif isinstance(answer, (tuple, list)) and len(answer) == 4:
        values = dict(zip(CATEGORIES, answer))
    else:
        return None
    try:
        return {k: float(v) for k, v in values.items()}
    except (TypeError, ValueError):
        return None


def check_expected_counts(answer) -> tuple[bool, str]:
    """Expected [MASK] / random / unchanged / not-selected counts for N = 2000 maskable tokens."""
    counts = _as_counts(answer)
    if counts is None:
        return False, (
            'give four numbers: a dict {"[MASK]": ..., "random": ..., "unchanged": ..., '
            '"not selected": ...} or a tuple in that order.'
        )
    n = N_TOKENS
    right = expected_masking_counts(n)
    close = {k: abs(counts[k] - right[k]) <= 0.5 for k in CATEGORIES}
    if all(close.values()):
        return True, (
            f"of {n} tokens, {right['[MASK]']:.0f} become [MASK], {right['random']:.0f} a random "
            f"token, {right['unchanged']:.0f} stay unchanged but are predicted, and "
            f"{right['not selected']:.0f} are neither changed nor predicted (12 / 1.5 / 1.5 / 85 %)."
        )
    if abs(counts["not selected"] - (n - right["[MASK]"])) <= 0.5:
        return False, (
            "'not selected' counts tokens that are not predicted at all. The random and unchanged "
            "tokens were selected too (they carry a label), so subtract all 15 %."
        )
    if abs(sum(counts.values()) - n) > 0.5:
        return False, (
            f"your four counts add up to {sum(counts.values()):g}, not N = {n}: every maskable token "
            "falls in exactly one category."
        )
    mask = counts["[MASK]"]
    if abs(mask - 0.15 * n) <= 0.5:
        return False, (
            f"{mask:g} is the number of *selected* tokens (15 % of {n}); only 80 % of those become [MASK]."
        )
    if abs(mask - 0.8 * n) <= 0.5:
        return False, (
            f"{mask:g} is 80 % of all {n} tokens, but the 80/10/10 split applies to the 15 % that "
            "were selected."
        )
    if abs(counts["random"] - 0.1 * n) <= 0.5 or abs(counts["unchanged"] - 0.1 * n) <= 0.5:
        return (
            False,
            "10 % of all tokens is too many: random and unchanged are each 10 % of the *selected* 15 %.",
        )
    wrong = [k for k in CATEGORIES if not close[k]]
    return False, f"check {', '.join(wrong)}: start from 15 % selected, then split those 80 / 10 / 10."


expected_counts = Exercise(
    "expected_counts",
    f"A batch has N = {N_TOKENS} maskable tokens. How many do you expect to become [MASK], a random token, "
    "stay unchanged (but be predicted), and not be selected at all?",
    check_expected_counts,
    hints=[
        "First the selection: 15 % of N are selected. Everything else is 'not selected'.",
        "Then split the selected ones: 80 % [MASK], 10 % random, 10 % unchanged.",
    ],
    solution_code="""
n = 2000
selected = 0.15 * n                      # 300 tokens carry a label
answer = {"[MASK]": 0.8 * selected,      # 240
          "random": 0.1 * selected,      # 30
          "unchanged": 0.1 * selected,   # 30
          "not selected": n - selected}  # 1700
""",
)


# ----------------------------------------------------------------------------------------------------------
# 2. Dynamic masking: how many epochs until a token has probably been a target?

COVERAGE = 0.90  #: "at least a 90 % chance of having been predicted at least once"


def epochs_for_coverage(coverage: float = COVERAGE, p: float = 0.15) -> int:
    """Smallest E with 1 - (1 - p)^E >= coverage."""
    return math.ceil(math.log(1 - coverage) / math.log(1 - p) - 1e-12)


def check_coverage_epochs(answer) -> tuple[bool, str]:
    """Fewest epochs after which a token has been a prediction target with probability >= 90 %."""
    if isinstance(answer, bool) or not isinstance(answer, (int, float)) or not math.isfinite(answer):
        return False, "give a whole number of epochs, e.g. answer = 10."
    if answer != int(answer):
        return False, f"{answer} is not a whole number: round up to the next full epoch."
    e, right = int(answer), epochs_for_coverage()
    if e == right:
        return True, (
            f"after {e} epochs the chance of never having been selected is 0.85^{e} = "
            f"{0.85**e:.3f} < 0.10, while after {e - 1} it is still 0.85^{e - 1} = "
            f"{0.85 ** (e - 1):.3f}."
        )
    if e < 1:
        return False, "at least one epoch is needed."
    never = 0.85**e
    if e in (6, 7):
        return False, (
            f"probabilities of separate epochs do not add up (0.15 × {e} is not the chance of "
            f"at least one selection). Use the complement: P(never selected in {e} epochs) = "
            f"0.85^{e} = {never:.3f}."
        )
    if e < right:
        return False, (
            f"after {e} epochs a token has still not been selected with probability 0.85^{e} = "
            f"{never:.3f}, more than 0.10."
        )
    return False, (
        f"{e} epochs is enough but not the fewest: already after {e - 1} the chance of never "
        f"having been selected is 0.85^{e - 1} = {0.85 ** (e - 1):.3f}."
    )


coverage_epochs = Exercise(
    "coverage_epochs",
    "With dynamic masking each epoch draws new masks: every token is selected with probability 0.15, "
    "independently of earlier epochs. After how many epochs (at least) has a given token been a prediction "
    "target at least once with probability ≥ 90 %?",
    check_coverage_epochs,
    hints=[
        "'At least once' is easiest through its complement: the token was never selected.",
        "P(never selected in E epochs) = 0.85^E. Find the smallest E with 0.85^E ≤ 0.10.",
    ],
    solution_code="""
import math
answer = math.ceil(math.log(0.10) / math.log(0.85))   # 0.85**15 = 0.087 <= 0.10 < 0.85**14 = 0.103
""",
)


# ----------------------------------------------------------------------------------------------------------
# 3. Find the bug: a masking function that selects special tokens and labels every position

#: The vocabulary of the checker's test batch: special tokens first (ids 0-4), then ordinary words.
TEST_WORDS = (
    "the a cat dog bird man woman child sits runs eats sleeps sings reads on in by under over "
    "mat tree house garden park river milk bread book ball door window fire sun moon "
    "##s ##ing ##ed"
).split()


def checker_tokenizer() -> BertTokenizer:
    """The small tokenizer the checker masks with (``[PAD] [UNK] [CLS] [SEP] [MASK]`` + 38 tokens)."""
    return BertTokenizer([*SPECIAL_TOKENS, *TEST_WORDS])


def checker_batch(
    tokenizer: BertTokenizer, batch_size: int = 600, length: int = 32, seed: int = 3
) -> torch.Tensor:
    """``(B, T)`` rows ``[CLS] A [SEP]`` or ``[CLS] A [SEP] B [SEP]``, padded with [PAD] (~12k ordinary tokens)."""
    g = torch.Generator().manual_seed(seed)
    specials = torch.tensor(tokenizer.all_special_ids)
    ordinary = torch.tensor([i for i in range(tokenizer.vocab_size) if i not in set(specials.tolist())])
    ids = ordinary[torch.randint(len(ordinary), (batch_size, length), generator=g)]  # (B, T)
    lengths = torch.randint(8, length + 1, (batch_size,), generator=g).tolist()
    for b, n in enumerate(lengths):
        ids[b, 0], ids[b, n - 1] = tokenizer.cls_token_id, tokenizer.sep_token_id
        if b % 2:  # a sentence pair: a second [SEP] in the middle
            ids[b, n // 2] = tokenizer.sep_token_id
        ids[b, n:] = tokenizer.pad_token_id
    return ids


def check_fix_masking(fn: Callable) -> tuple[bool, str]:
    """``fn(input_ids, tokenizer, generator) -> (masked_ids, labels)`` must implement BERT's masking:
    never touch [CLS]/[SEP]/[PAD], label exactly the selected positions (-100 elsewhere), ~15 % selected,
    80/10/10 among them."""
    if not callable(fn):
        return False, "pass your function itself, e.g. ex.fix_masking.check(my_mask_tokens) (no parentheses)."
    tok = checker_tokenizer()
    ids = checker_batch(tok)
    original = ids.clone()
    out = fn(ids, tok, torch.Generator().manual_seed(0))
    if not (isinstance(out, tuple) and len(out) == 2 and all(isinstance(t, torch.Tensor) for t in out)):
        return False, "your function must return a tuple (masked_ids, labels) of two tensors."
    masked_ids, labels = out
    if masked_ids.shape != ids.shape or labels.shape != ids.shape:
        return False, (
            f"masked_ids and labels must have the input's shape {tuple(ids.shape)}, got "
            f"{tuple(masked_ids.shape)} and {tuple(labels.shape)}."
        )
    if not torch.equal(ids, original):
        return False, "your function changed input_ids in place; work on a copy (input_ids.clone())."
    special = torch.isin(ids, torch.tensor(tok.all_special_ids))  # (B, T) [CLS] / [SEP] / [PAD]
    labelled = labels != IGNORE_INDEX
    changed = masked_ids != ids
    if (
        not (labels == IGNORE_INDEX).any()
        and ((labels == 0) | (labels == ids)).all()
        and (labels == 0).float().mean() > 0.5
    ):
        return False, (
            "the positions that are not predicted hold 0, which is a real token id ([PAD] here); they "
            "must hold -100, the ignore_index of F.cross_entropy, so the loss skips them."
        )

    # The two bugs of the exercise, reported together when both are present.
    problems = []
    n_maskable = int((~special).sum())
    share = int((labelled & ~special).sum()) / n_maskable
    if (changed & special).any():
        names = sorted({tok.convert_ids_to_tokens(int(i)) for i in ids[changed & special]})
        problems.append(
            f"{int((changed & special).sum())} special positions ({', '.join(names)}) were replaced. "
            "[CLS], [SEP] and [PAD] must never be selected: exclude tokenizer.all_special_ids before "
            "drawing the selection."
        )
    if share > 0.5:
        also = " (and the special ones)" if (labelled & special).any() else ""
        problems.append(
            f"{share:.0%} of the ordinary tokens{also} carry a label: labels hold the "
            "original id at every position, so the loss would be averaged over all positions, most "
            "of which the model can simply copy from its input. Keep the original id only where a "
            "token was selected and put -100 everywhere else."
        )
    elif (labelled & special).any() and not problems:
        problems.append(
            f"{int((labelled & special).sum())} special positions carry a label; they must hold -100."
        )
    if problems:
        return False, " Also: ".join(problems)
    if (changed & ~labelled).any():
        return False, (
            f"{int((changed & ~labelled).sum())} positions were changed but carry no label: every "
            "corrupted position must be predicted (label = original id)."
        )
    if not torch.equal(labels[labelled], ids[labelled]):
        return False, "where a label is set it must be the original token id (input_ids), not the masked one."
    if not 0.12 <= share <= 0.18:
        return False, f"{share:.1%} of the ordinary tokens were selected; BERT selects 15 %."
    n_sel = int(labelled.sum())
    to_mask = int((labelled & (masked_ids == tok.mask_token_id)).sum()) / n_sel
    to_random = int((labelled & changed & (masked_ids != tok.mask_token_id)).sum()) / n_sel
    kept = int((labelled & ~changed).sum()) / n_sel
    if not (abs(to_mask - 0.8) <= 0.05 and abs(to_random - 0.1) <= 0.04 and abs(kept - 0.1) <= 0.04):
        return False, (
            f"of the selected tokens {to_mask:.0%} became [MASK], {to_random:.0%} a random token and "
            f"{kept:.0%} stayed unchanged; BERT's split is 80 / 10 / 10."
        )
    return True, (
        f"special tokens untouched, {share:.1%} of the {n_maskable} ordinary tokens labelled (the rest "
        f"-100), split {to_mask:.0%} / {to_random:.0%} / {kept:.0%} into [MASK] / random / unchanged."
    )


fix_masking = Exercise(
    "fix_masking",
    "`my_mask_tokens` has two bugs from the course's list of real pitfalls. Fix it so that [CLS], [SEP] and "
    "[PAD] are never selected and only the selected positions carry a label (-100 elsewhere).",
    check_fix_masking,
    hints=[
        "Run the buggy function on one padded sentence and look at the first position, the [SEP] and the "
        "[PAD]s: were any of them replaced? Then look at the labels of the positions that were not selected.",
        "Build `special = torch.isin(input_ids, torch.tensor(tokenizer.all_special_ids))` and AND `~special` "
        "into the selection. For the labels, `torch.where(selected, input_ids, -100)`.",
    ],
    solution_code="""
def my_mask_tokens(input_ids, tokenizer, generator):
    special = torch.isin(input_ids, torch.tensor(tokenizer.all_special_ids))       # (B, T) never selected
    selected = (torch.rand(input_ids.shape, generator=generator) < 0.15) & ~special
    labels = torch.where(selected, input_ids, -100)                                 # -100 = ignored by the loss
    action = torch.rand(input_ids.shape, generator=generator)
    masked_ids = input_ids.clone()
    masked_ids[selected & (action < 0.8)] = tokenizer.mask_token_id
    random_ids = torch.randint(tokenizer.vocab_size, input_ids.shape, generator=generator)
    swap = selected & (action >= 0.8) & (action < 0.9)
    masked_ids[swap] = random_ids[swap]
    return masked_ids, labels
""",
)

__all__ = [
    "expected_counts",
    "coverage_epochs",
    "fix_masking",
    "check_expected_counts",
    "check_coverage_epochs",
    "check_fix_masking",
    "expected_masking_counts",
    "epochs_for_coverage",
    "checker_tokenizer",
    "checker_batch",
]
