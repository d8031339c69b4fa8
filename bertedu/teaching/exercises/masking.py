"""Exercises for notebook 03 (masking strategy): expected counts, dynamic-masking coverage, and a buggy
masking function to fix.

In the notebook::

    from bertedu.teaching.exercises import masking as ex
    ex.expected_counts.check(answer)           # a dict {"[MASK]": ..., "random": ..., "unchanged": ...,
                                               #         "not selected": ...} or a 4-tuple in that order
    ex.coverage_epochs.check(answer)           # an int
    ex.fix_masking.check(my_mask_tokens)       # a function (input_ids, tokenizer, generator) -> (ids, labels)
    ex.masking_function.check(mask_tokens)     # the same, written from scratch (write the function)

The plain checker functions (``check_expected_counts``, ``check_coverage_epochs``, ``check_fix_masking``)
return ``(passed, message)`` and are what the unit tests call. Introduced in notebook 03.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import torch

from bertedu.core.masking import IGNORE_INDEX
from bertedu.core.tokenizer import SPECIAL_TOKENS, BertTokenizer
from bertedu.language import listing, msg, translatable
from bertedu.teaching.exercises.core import Diagnosis, Exercise, as_number, expects_function

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
        return False, msg(
            'give four numbers: a dict {"[MASK]": ..., "random": ..., "unchanged": ..., '
            '"not selected": ...} or a tuple in that order.'
        )
    n = N_TOKENS
    right = expected_masking_counts(n)
    close = {k: abs(counts[k] - right[k]) <= 0.5 for k in CATEGORIES}
    if all(close.values()):
        return True, msg(
            "of {n} tokens, {n_mask:.0f} become [MASK], {n_random:.0f} a random "
            "token, {n_unchanged:.0f} stay unchanged but are predicted, and "
            "{n_not_selected:.0f} are neither changed nor predicted (12 / 1.5 / 1.5 / 85 %).",
            n=n,
            n_mask=right["[MASK]"],
            n_random=right["random"],
            n_unchanged=right["unchanged"],
            n_not_selected=right["not selected"],
        )
    if abs(counts[msg("not selected")] - (n - right["[MASK]"])) <= 0.5:
        return False, msg(
            "'not selected' counts tokens that are not predicted at all. The random and unchanged "
            "tokens were selected too (they carry a label), so subtract all 15 %."
        )
    if abs(sum(counts.values()) - n) > 0.5:
        return False, msg(
            "your four counts add up to {total:g}, not N = {n}: every maskable token "
            "falls in exactly one category.",
            total=sum(counts.values()),
            n=n,
        )
    mask = counts["[MASK]"]
    if abs(mask - 0.15 * n) <= 0.5:
        return False, msg(
            "{mask:g} is the number of *selected* tokens (15 % of {n}); only 80 % of those become [MASK].",
            mask=mask,
            n=n,
        )
    if abs(mask - 0.8 * n) <= 0.5:
        return False, msg(
            "{mask:g} is 80 % of all {n} tokens, but the 80/10/10 split applies to the 15 % that "
            "were selected.",
            mask=mask,
            n=n,
        )
    if abs(counts["random"] - 0.1 * n) <= 0.5 or abs(counts["unchanged"] - 0.1 * n) <= 0.5:
        return (
            False,
            msg("10 % of all tokens is too many: random and unchanged are each 10 % of the *selected* 15 %."),
        )
    wrong = [k for k in CATEGORIES if not close[k]]
    return False, msg(
        "check {categories}: start from 15 % selected, then split those 80 / 10 / 10.",
        categories=listing(wrong),
    )


expected_counts = Exercise(
    "expected_counts",
    f"A batch has N = {N_TOKENS} maskable tokens. How many do you expect to become [MASK], a random token, "
    "stay unchanged (but be predicted), and not be selected at all?",
    check_expected_counts,
    hints=[
        translatable("First the selection: 15 % of N are selected. Everything else is 'not selected'."),
        translatable("Then split the selected ones: 80 % [MASK], 10 % random, 10 % unchanged."),
    ],
    solution_code="""
n = 2000
selected = 0.15 * n                      # 300 tokens carry a label
answer = {"[MASK]": 0.8 * selected,      # 240
          "random": 0.1 * selected,      # 30
          "unchanged": 0.1 * selected,   # 30
          "not selected": n - selected}  # 1700
""",
    points=1,
)


# ----------------------------------------------------------------------------------------------------------
# 2. Dynamic masking: how many epochs until a token has probably been a target?

COVERAGE = 0.90  #: "at least a 90 % chance of having been predicted at least once"


def epochs_for_coverage(coverage: float = COVERAGE, p: float = 0.15) -> int:
    """Smallest E with 1 - (1 - p)^E >= coverage."""
    return math.ceil(math.log(1 - coverage) / math.log(1 - p) - 1e-12)


def check_coverage_epochs(answer) -> tuple[bool, str]:
    """Fewest epochs after which a token has been a prediction target with probability >= 90 %."""
    # 15, 15.0, np.int64(15), torch.tensor(15) alike: a student may compute it with any of them
    value = as_number(answer)
    if value is None or not math.isfinite(value):
        return False, msg("give a whole number of epochs, e.g. answer = 10.")
    answer = value
    if answer != int(answer):
        return False, msg("{answer} is not a whole number: round up to the next full epoch.", answer=answer)
    e, right = int(answer), epochs_for_coverage()
    if e == right:
        return True, msg(
            "after {e} epochs the chance of never having been selected is 0.85^{e} = "
            "{p_e:.3f} < 0.10, while after {e_before} it is still 0.85^{e_before} = "
            "{p_before:.3f}.",
            e=e,
            p_e=0.85**e,
            e_before=e - 1,
            p_before=0.85 ** (e - 1),
        )
    if e < 1:
        return False, msg("at least one epoch is needed.")
    never = 0.85**e
    if e in (6, 7):
        return False, msg(
            "probabilities of separate epochs do not add up (0.15 × {e} is not the chance of "
            "at least one selection). Use the complement: P(never selected in {e} epochs) = "
            "0.85^{e} = {never:.3f}.",
            e=e,
            never=never,
        )
    if e < right:
        return False, msg(
            "after {e} epochs a token has still not been selected with probability 0.85^{e} = "
            "{never:.3f}, more than 0.10.",
            e=e,
            never=never,
        )
    return False, msg(
        "{e} epochs is enough but not the fewest: already after {e_before} the chance of never "
        "having been selected is 0.85^{e_before} = {p_before:.3f}.",
        e=e,
        e_before=e - 1,
        p_before=0.85 ** (e - 1),
    )


coverage_epochs = Exercise(
    "coverage_epochs",
    "With dynamic masking each epoch draws new masks: every token is selected with probability 0.15, "
    "independently of earlier epochs. After how many epochs (at least) has a given token been a prediction "
    "target at least once with probability ≥ 90 %?",
    check_coverage_epochs,
    expected=lambda: epochs_for_coverage(),
    hints=[
        translatable("'At least once' is easiest through its complement: the token was never selected."),
        translatable("P(never selected in E epochs) = 0.85^E. Find the smallest E with 0.85^E ≤ 0.10."),
    ],
    solution_code="""
import math
answer = math.ceil(math.log(0.10) / math.log(0.85))   # 0.85**15 = 0.087 <= 0.10 < 0.85**14 = 0.103
""",
    points=1,
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


class _SplitMessage(str):
    """The message of :func:`check_fix_masking` for a wrong 80/10/10 split (all other checks passed), marked
    so that :func:`check_masking_function` can add to it in any language."""


def _output_problem(out, ids: torch.Tensor, original: torch.Tensor) -> str | None:
    """What is wrong with the form of ``out`` (the function's result on ``ids``), or ``None``: a tuple of two
    tensors shaped like the input, the input left as it was, -100 (not 0) where nothing is predicted."""
    if not (isinstance(out, tuple) and len(out) == 2 and all(isinstance(t, torch.Tensor) for t in out)):
        return msg("your function must return a tuple (masked_ids, labels) of two tensors.")
    masked_ids, labels = out
    if masked_ids.shape != ids.shape or labels.shape != ids.shape:
        return msg(
            "masked_ids and labels must have the input's shape {shape}, got {ids_shape} and {labels_shape}.",
            shape=tuple(ids.shape),
            ids_shape=tuple(masked_ids.shape),
            labels_shape=tuple(labels.shape),
        )
    if not torch.equal(ids, original):
        return msg("your function changed input_ids in place; work on a copy (input_ids.clone()).")
    if (
        not (labels == IGNORE_INDEX).any()
        and ((labels == 0) | (labels == ids)).all()
        and (labels == 0).float().mean() > 0.5
    ):
        return msg(
            "the positions that are not predicted hold 0, which is a real token id ([PAD] here); they "
            "must hold -100, the ignore_index of F.cross_entropy, so the loss skips them."
        )
    return None


def _exercise_bugs(tok, ids, special, labelled, changed, share: float) -> list[str]:
    """The messages (a :class:`Diagnosis` each: symptom, then fix) for the two bugs of the exercise (special tokens selected, every position labelled) that
    are present. ``(B, T)`` masks: ``special`` tokens, ``labelled`` positions, ``changed`` by the function;
    ``share``: of the ordinary tokens, the share that carries a label."""
    problems = []
    if (changed & special).any():
        names = sorted({tok.convert_ids_to_tokens(int(i)) for i in ids[changed & special]})
        problems.append(
            Diagnosis(
                msg(
                    "{n} special positions ({names}) were replaced.",
                    n=int((changed & special).sum()),
                    names=listing(names),
                ),
                msg(
                    "[CLS], [SEP] and [PAD] must never be selected: exclude tokenizer.all_special_ids before "
                    "drawing the selection."
                ),
            )
        )
    if share > 0.5:
        also = msg(" (and the special ones)") if (labelled & special).any() else ""
        problems.append(
            Diagnosis(
                msg(
                    "{share:.0%} of the ordinary tokens{also} carry a label, so the loss would be averaged over "
                    "all positions, most of which the model can simply copy from its input.",
                    share=share,
                    also=also,
                ),
                msg(
                    "The labels hold the original id at every position: keep it only where a token was "
                    "selected and put -100 everywhere else."
                ),
            )
        )
    elif (labelled & special).any() and not problems:
        problems.append(
            msg(
                "{n} special positions carry a label; they must hold -100.", n=int((labelled & special).sum())
            )
        )
    return problems


@expects_function("ex.fix_masking.check(my_mask_tokens)")
def check_fix_masking(fn: Callable) -> tuple[bool, str]:
    """``fn(input_ids, tokenizer, generator) -> (masked_ids, labels)`` must implement BERT's masking:
    never touch [CLS]/[SEP]/[PAD], label exactly the selected positions (-100 elsewhere), ~15 % selected,
    80/10/10 among them."""
    tok = checker_tokenizer()
    ids = checker_batch(tok)
    original = ids.clone()
    out = fn(ids, tok, torch.Generator().manual_seed(0))
    problem = _output_problem(out, ids, original)
    if problem:
        return False, problem
    masked_ids, labels = out
    special = torch.isin(ids, torch.tensor(tok.all_special_ids))  # (B, T) [CLS] / [SEP] / [PAD]
    labelled = labels != IGNORE_INDEX
    changed = masked_ids != ids
    n_maskable = int((~special).sum())
    share = int((labelled & ~special).sum()) / n_maskable
    problems = _exercise_bugs(tok, ids, special, labelled, changed, share)
    if problems:  # the two bugs of the exercise, reported together when both are present
        return False, Diagnosis.joined(msg(" Also: "), problems)
    if (changed & ~labelled).any():
        return False, msg(
            "{n} positions were changed but carry no label: every "
            "corrupted position must be predicted (label = original id).",
            n=int((changed & ~labelled).sum()),
        )
    if not torch.equal(labels[labelled], ids[labelled]):
        return False, msg(
            "where a label is set it must be the original token id (input_ids), not the masked one."
        )
    if not 0.12 <= share <= 0.18:
        return False, msg("{share:.1%} of the ordinary tokens were selected; BERT selects 15 %.", share=share)
    n_sel = int(labelled.sum())
    to_mask = int((labelled & (masked_ids == tok.mask_token_id)).sum()) / n_sel
    to_random = int((labelled & changed & (masked_ids != tok.mask_token_id)).sum()) / n_sel
    kept = int((labelled & ~changed).sum()) / n_sel
    if not (abs(to_mask - 0.8) <= 0.05 and abs(to_random - 0.1) <= 0.04 and abs(kept - 0.1) <= 0.04):
        return False, _SplitMessage(
            msg(
                "of the selected tokens {to_mask:.0%} became [MASK], {to_random:.0%} a random token and "
                "{kept:.0%} stayed unchanged; BERT's split is 80 / 10 / 10.",
                to_mask=to_mask,
                to_random=to_random,
                kept=kept,
            )
        )
    return True, msg(
        "special tokens untouched, {share:.1%} of the {n_maskable} ordinary tokens labelled (the rest "
        "-100), split {to_mask:.0%} / {to_random:.0%} / {kept:.0%} into [MASK] / random / unchanged.",
        share=share,
        n_maskable=n_maskable,
        to_mask=to_mask,
        to_random=to_random,
        kept=kept,
    )


fix_masking = Exercise(
    "fix_masking",
    translatable(
        "`my_mask_tokens(input_ids, tokenizer, generator)` runs without an error, but on a padded batch it "
        "replaces some [CLS], [SEP] and [PAD] tokens, and far more than 15 % of the ordinary tokens carry a "
        "label. It has two bugs from the course's list of real pitfalls: find them and fix the function."
    ),
    check_fix_masking,
    hints=[
        translatable(
            "Run the buggy function on one padded sentence and look at the first position, the [SEP] and the "
            "[PAD]s: were any of them replaced? Then look at the labels of the positions that were not selected."
        ),
        translatable(
            "Build `special = torch.isin(input_ids, torch.tensor(tokenizer.all_special_ids))` and AND `~special` "
            "into the selection. For the labels, `torch.where(selected, input_ids, -100)`."
        ),
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
    points=1,
    answers=(
        "bertedu.core.masking.mask_tokens",
        "bertedu.core.masking.mask_tokens_with_details",
    ),
)


# ----------------------------------------------------------------------------------------------------------
# 4. Write the function: BERT's masking, from scratch


@expects_function("ex.masking_function.check(mask_tokens)")
def check_masking_function(fn: Callable) -> tuple[bool, str]:
    """``fn(input_ids, tokenizer, generator) -> (masked_ids, labels)`` written from scratch: the statistical
    checks of :func:`check_fix_masking` on ~12k tokens (15 % selected, 80/10/10 within ±4-5 points, specials
    untouched, -100 elsewhere), plus a named message for "every selected token becomes [MASK]"."""
    passed, message = check_fix_masking(fn)
    if passed or not isinstance(message, _SplitMessage):  # only a wrong 80/10/10 split gets a closer look
        return passed, message
    tok = checker_tokenizer()
    ids = checker_batch(tok)
    masked_ids, labels = fn(ids.clone(), tok, torch.Generator().manual_seed(0))
    selected = labels != IGNORE_INDEX
    if (masked_ids[selected] == tok.mask_token_id).float().mean() > 0.97:
        return False, msg(
            "every selected token became [MASK]. BERT replaces only 80 % of them by [MASK], 10 % by a random "
            "token and keeps 10 % unchanged: [MASK] never occurs when the model is fine-tuned, so the model must "
            "also predict tokens it can see (and cannot trust any input token blindly)."
        )
    return passed, message


masking_function = Exercise(
    "masking_function",
    translatable(
        "Write `mask_tokens(input_ids, tokenizer, generator)` from scratch: select each non-special token with "
        "probability 0.15; of those, 80 % become [MASK], 10 % a random token, 10 % stay; labels hold the original "
        "id at the selected positions and -100 elsewhere. Return (masked_ids, labels); never change the input."
    ),
    check_masking_function,
    hints=[
        translatable(
            "Special positions: `torch.isin(input_ids, torch.tensor(tokenizer.all_special_ids))`. Selection: "
            "`(torch.rand(input_ids.shape, generator=generator) < 0.15) & ~special`."
        ),
        translatable(
            "One more uniform draw per position decides the action: < 0.8 → [MASK], 0.8 … 0.9 → random id "
            "(torch.randint(tokenizer.vocab_size, ...)), ≥ 0.9 → unchanged. Labels: "
            "`torch.where(selected, input_ids, -100)`."
        ),
    ],
    solution_code="""
def mask_tokens(input_ids, tokenizer, generator):
    special = torch.isin(input_ids, torch.tensor(tokenizer.all_special_ids))        # (B, T): never selected
    selected = (torch.rand(input_ids.shape, generator=generator) < 0.15) & ~special
    labels = torch.where(selected, input_ids, -100)                                  # -100: ignored by the loss
    action = torch.rand(input_ids.shape, generator=generator)                        # 80 / 10 / 10
    masked_ids = input_ids.clone()                                                   # never change the input
    masked_ids[selected & (action < 0.8)] = tokenizer.mask_token_id
    random_ids = torch.randint(tokenizer.vocab_size, input_ids.shape, generator=generator)
    swap = selected & (action >= 0.8) & (action < 0.9)
    masked_ids[swap] = random_ids[swap]
    return masked_ids, labels

ex.masking_function.check(mask_tokens)
""",
    points=2,
    answers=(
        "bertedu.core.masking.mask_tokens",
        "bertedu.core.masking.mask_tokens_with_details",
    ),
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
    "check_masking_function",
    "masking_function",
]
