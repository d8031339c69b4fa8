"""BERT's masked-language-model corruption: select 15 % of the tokens, then 80 % [MASK] / 10 % random / 10 % kept.

For every sequence of ids:

1. *Select* each maskable token (not [CLS], [SEP], [PAD], [UNK], [MASK]) with probability
   ``mlm_probability`` = 0.15. The model is asked to predict the original token at every selected position.
2. *Corrupt* each selected token: with probability 0.8 replace it by [MASK], with 0.1 by a random
   (non-special) token, and with 0.1 leave it unchanged. Overall: 12 % [MASK], 1.5 % random, 1.5 %
   unchanged, 85 % untouched and not predicted.
3. *Labels* hold the original id at the selected positions and -100 (ignored by the loss) elsewhere.

Two selection schemes (``selection=``):

- ``"bernoulli"`` (default; Hugging Face's ``DataCollatorForLanguageModeling``): every maskable token is
  selected independently with probability p, so the count per sequence varies (Binomial(n, p)).
- ``"exact"`` (Google's original ``create_pretraining_data.py``): exactly ``round(p * n)`` tokens of the
  ``n`` maskable ones, chosen uniformly.

Both keep the rule "at least one token per sequence that has a maskable token" (``ensure_one_masked``),
so every sequence contributes to the MLM loss. With Bernoulli selection this rule adds on average
``0.85 ** n`` selected tokens to a sequence of n maskable tokens: noticeable for very short sentences
(n = 5 -> 19 % instead of 15 %), negligible from n ~ 30 on.

Whole-word masking (``word_ids=...``, from ``BertTokenizer.word_ids``) selects whole words instead of
tokens: ``play ##ing`` is selected (or not) as a unit; the 80/10/10 choice is then made per token, as in
Google's whole-word-masking code.

Randomness: all draws come from ``generator`` (a ``torch.Generator``; the global RNG if ``None``), always
the same three draws in the same order for a given shape, so the same seed gives the same masks.

Introduced in notebook 03.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

import torch

from bertedu.core.losses import IGNORE_INDEX  # label value that F.cross_entropy(ignore_index=-100) skips
from bertedu.core.validation import Interval

#: The masking settings' ranges, defined once: PretrainingConfig (which the command line builds), the collator
#: (bertedu.training.data.PretrainingCollator) and mask_tokens check these, once (:func:`check_masking`). Each is a
#: share in [0, 1]: mlm_probability = 0 still masks one token per sequence (``ensure_one_masked``), 1 every one;
#: the two replacement shares add up to at most 1 (:func:`check_masking`).
MASKING_RANGES: dict[str, Interval] = {
    "mlm_probability": Interval(0, 1, what="a probability", example="0.15"),
    "mask_replace_prob": Interval(0, 1, what="a probability", example="0.8"),
    "random_replace_prob": Interval(0, 1, what="a probability", example="0.1"),
}
SELECTIONS = ("bernoulli", "exact")


@dataclass
class MaskingResult:
    """Everything :func:`mask_tokens_with_details` decided, for teaching and statistics. All ``(B, T)``
    (or ``(T,)`` if the input was one sequence).

    ``input_ids`` (masked) and ``labels`` are what :func:`mask_tokens` returns. The boolean masks split the
    positions: ``maskable`` (not special) ⊇ ``selected`` = ``masked`` ∪ ``randomized`` ∪ ``kept``
    (disjoint). A ``randomized`` token may by chance equal the original (probability 1/V), as in BERT.
    Introduced in notebook 03.
    """

    input_ids: torch.Tensor
    labels: torch.Tensor
    maskable: torch.Tensor
    selected: torch.Tensor
    masked: torch.Tensor
    randomized: torch.Tensor
    kept: torch.Tensor

    def counts(self) -> dict[str, int]:
        """How many maskable tokens were [MASK]ed / randomized / kept / left unselected.

        Keys match :func:`bertedu.teaching.viz.plot_masking_statistics`, so ``viz.plot_masking_statistics(result)``
        plots them against the expected 12 / 1.5 / 1.5 / 85 split.
        """
        return {
            "[MASK]": int(self.masked.sum()),
            "random": int(self.randomized.sum()),
            "unchanged": int(self.kept.sum()),
            "not selected": int((self.maskable & ~self.selected).sum()),
        }

    def fractions(self) -> dict[str, float]:
        """Share of the maskable tokens that were selected / [MASK]ed / randomized / kept / untouched.

        Expected with the defaults: 0.15 / 0.12 / 0.015 / 0.015 / 0.85.
        """
        n = max(int(self.maskable.sum()), 1)
        return {
            "selected": int(self.selected.sum()) / n,
            "mask": int(self.masked.sum()) / n,
            "random": int(self.randomized.sum()) / n,
            "kept": int(self.kept.sum()) / n,
            "untouched": int((self.maskable & ~self.selected).sum()) / n,
        }


@dataclass(frozen=True)
class MaskingOptions:
    """The keyword arguments of :func:`mask_tokens` and :func:`mask_tokens_with_details` (defined once, here).

    ``tokenizer``: gives the three that follow (``mask_tokens(ids, tokenizer=tok)``). ``mask_token_id``,
    ``vocab_size``, ``special_token_ids``: from the tokenizer, or given; special ids (incl. [PAD] and [MASK])
    are never selected and never used as random replacements. ``mlm_probability``: share of maskable tokens to
    select. ``mask_replace_prob`` / ``random_replace_prob``: shares of the selected tokens replaced by [MASK] /
    a random token (the rest stay unchanged). ``selection``: ``"bernoulli"`` or ``"exact"`` (see the module
    docstring). ``ensure_one_masked``: select at least one unit per sequence that has one. ``word_ids``:
    ``(B, T)`` word index per token (``-1`` = not part of a word), as from ``tokenizer.word_ids(input_ids)``:
    turns on whole-word masking; ``whole_word_mask=True`` computes them from ``tokenizer``. ``generator``: the
    ``torch.Generator`` of every random draw (``None``: the global one). Introduced in notebook 03.
    """

    tokenizer: Any = None
    mask_token_id: int | None = None
    vocab_size: int | None = None
    special_token_ids: Iterable[int] | None = None
    mlm_probability: float = 0.15
    mask_replace_prob: float = 0.8
    random_replace_prob: float = 0.1
    selection: str = "bernoulli"
    ensure_one_masked: bool = True
    word_ids: torch.Tensor | None = None
    whole_word_mask: bool = False
    generator: torch.Generator | None = None


def mask_tokens(input_ids: torch.Tensor, **options: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """Apply BERT's MLM corruption; returns ``(masked_input_ids, labels)``, both shaped like ``input_ids``.

    ``input_ids``: ``(B, T)`` or ``(T,)`` LongTensor; it is not modified. ``mask_tokens(ids, tokenizer=tok)``
    takes the [MASK] id, the vocabulary size and the special ids from the tokenizer. The keyword arguments
    are :class:`MaskingOptions`' fields; :func:`mask_tokens_with_details` also says which positions were
    selected, masked, randomized or kept.
    """
    result = mask_tokens_with_details(input_ids, **options)
    return result.input_ids, result.labels


def mask_tokens_with_details(input_ids: torch.Tensor, **options: Any) -> MaskingResult:
    """:func:`mask_tokens`, returning a :class:`MaskingResult` that also says which positions were
    selected, [MASK]ed, randomized or kept.

    The keyword arguments (``tokenizer=``, ``mlm_probability=0.15``, ``mask_replace_prob=0.8``,
    ``random_replace_prob=0.1``, ``selection="bernoulli"``, ``ensure_one_masked=True``, ``word_ids=``,
    ``whole_word_mask=False``, ``generator=``, ...) are :class:`MaskingOptions`' fields, explained there.
    """
    opt = MaskingOptions(**options)  # the keyword arguments, with their defaults
    # the input checks (a clear message for every mistake) and what the tokenizer tells
    mask_token_id, special, replacements, word_ids = _checked_setup(input_ids, opt)

    squeeze = input_ids.dim() == 1
    ids = input_ids.unsqueeze(0) if squeeze else input_ids  # (B, T)
    B, T = ids.shape
    maskable = ~torch.isin(ids, special)  # (B, T)

    # Units of selection: a token, or (whole-word masking) a word. unit[b, t] in [0, T), -1 = none.
    if word_ids is None:
        unit = torch.arange(T).expand(B, T)
    else:
        unit = _checked_word_ids(word_ids, squeeze, B, T)
    maskable = maskable & (unit >= 0)
    unit = unit.clamp(min=0)

    # The three random draws, always the same shapes in the same order (reproducible for a given seed).
    u = torch.rand(B, T, generator=opt.generator)  # (B, T) selection noise, one per unit index
    v = torch.rand(B, T, generator=opt.generator)  # (B, T) 80/10/10 noise, one per token
    # (B, T) random token choice
    r = torch.randint(max(len(replacements), 1), (B, T), generator=opt.generator)

    # -- 1. select units (15 %) -----------------------------------------------------------------------
    # (B, T) unit exists
    present = torch.zeros(B, T, dtype=torch.long).scatter_add_(1, unit, maskable.long()) > 0
    n_units = present.sum(dim=1)  # (B,)
    if opt.selection == "bernoulli":
        chosen = present & (u < opt.mlm_probability)  # (B, T) per unit
    else:  # exact: the k units with the smallest noise
        k = torch.round(opt.mlm_probability * n_units.double()).long()  # (B,)
        rank = torch.where(present, u, 2.0).argsort(dim=1, stable=True).argsort(dim=1)  # (B, T)
        chosen = present & (rank < k[:, None])
    if opt.ensure_one_masked and T > 0:  # a sequence with nothing selected: its unit with the smallest noise
        empty = (chosen.sum(dim=1) == 0) & (n_units > 0)  # (B,)
        first = torch.where(present, u, 2.0).argmin(dim=1)  # (B,)
        chosen[empty, first[empty]] = True
    selected = maskable & chosen.gather(1, unit)  # (B, T) every token of a chosen unit

    # -- 2. corrupt the selected tokens: [MASK] 80 % / random 10 % / unchanged 10 % ------------------------
    masked = selected & (v < opt.mask_replace_prob)
    randomized = (
        selected & (v >= opt.mask_replace_prob) & (v < opt.mask_replace_prob + opt.random_replace_prob)
    )
    kept = selected & ~masked & ~randomized
    out = ids.clone()
    out[masked] = mask_token_id
    if len(replacements):
        out[randomized] = replacements[r[randomized]]

    # -- 3. labels: the original token where selected, -100 elsewhere -----------------------------------
    labels = torch.where(selected, ids, torch.full_like(ids, IGNORE_INDEX))

    result = MaskingResult(out, labels, maskable, selected, masked, randomized, kept)
    if squeeze:
        result = MaskingResult(*(getattr(result, f.name).squeeze(0) for f in fields(result)))
    return result


def _signature(returns) -> inspect.Signature:
    """``(input_ids, *, <MaskingOptions' fields with their defaults>) -> returns``: what help() and Jupyter show
    for :func:`mask_tokens` and :func:`mask_tokens_with_details`, which take those keywords as ``**options``."""
    first = inspect.Parameter("input_ids", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation="torch.Tensor")
    keywords = [
        inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=f.type)
        for f in fields(MaskingOptions)
    ]
    return inspect.Signature([first, *keywords], return_annotation=returns)


mask_tokens.__signature__ = _signature("tuple[torch.Tensor, torch.Tensor]")
mask_tokens_with_details.__signature__ = _signature("MaskingResult")


def _checked_setup(input_ids, opt: MaskingOptions):
    """Check :func:`mask_tokens_with_details`'s arguments and fill them in from the tokenizer. Returns
    ``(mask_token_id, special ids (S,), replacement ids (V - S,), word_ids or None)``."""
    mask_token_id, vocab_size, special_token_ids = opt.mask_token_id, opt.vocab_size, opt.special_token_ids
    if opt.tokenizer is not None:
        mask_token_id = opt.tokenizer.mask_token_id if mask_token_id is None else mask_token_id
        vocab_size = opt.tokenizer.vocab_size if vocab_size is None else vocab_size
        special_token_ids = opt.tokenizer.all_special_ids if special_token_ids is None else special_token_ids
    if mask_token_id is None or vocab_size is None or special_token_ids is None:
        raise ValueError(
            "mask_tokens needs mask_token_id=, vocab_size= and special_token_ids= "
            "(e.g. tokenizer.mask_token_id, tokenizer.vocab_size, tokenizer.all_special_ids), "
            "or tokenizer=tokenizer."
        )
    if (
        not isinstance(input_ids, torch.Tensor)
        or input_ids.dtype != torch.long
        or input_ids.dim() not in (1, 2)
    ):
        raise ValueError(
            "input_ids must be a (B, T) or (T,) torch.long tensor, got "
            f"{type(input_ids).__name__} {getattr(input_ids, 'dtype', '')} "
            f"{tuple(getattr(input_ids, 'shape', ()))}; use torch.tensor(ids, dtype=torch.long)."
        )
    check_masking(opt.mlm_probability, opt.mask_replace_prob, opt.random_replace_prob, opt.selection)
    if opt.generator is not None and not isinstance(opt.generator, torch.Generator):
        raise ValueError(
            f"generator must be a torch.Generator or None (the global random state), got "
            f"{type(opt.generator).__name__} {opt.generator!r}; for a seed use generator=torch.Generator().manual_seed(0)."
        )
    special = torch.tensor(
        sorted({int(i) for i in special_token_ids} | {int(mask_token_id)}), dtype=torch.long
    )
    if input_ids.numel() and (int(input_ids.min()) < 0 or int(input_ids.max()) >= vocab_size):
        raise ValueError(
            f"input_ids holds ids outside 0..{vocab_size - 1} (min {int(input_ids.min())}, max "
            f"{int(input_ids.max())}): was it made with a different tokenizer/vocabulary?"
        )
    replacements = _non_special_ids(vocab_size, special)  # (V - n_special,)
    if len(replacements) == 0 and opt.random_replace_prob > 0:
        raise ValueError("The vocabulary has no non-special token to use as a random replacement.")
    word_ids = opt.word_ids
    if opt.whole_word_mask and word_ids is None:
        if opt.tokenizer is None:
            raise ValueError("whole_word_mask=True needs tokenizer= (to find word boundaries) or word_ids=.")
        word_ids = opt.tokenizer.word_ids(input_ids)

    return mask_token_id, special, replacements, word_ids


#: The masking settings :func:`check_masking` has accepted, each value with its type (``True`` is not ``1.0``).
_ACCEPTED_MASKING: set[tuple] = set()


def check_masking(
    mlm_probability, mask_replace_prob, random_replace_prob, selection: str = "bernoulli"
) -> None:
    """Raise a ValueError naming the bad masking setting: each in its range of :data:`MASKING_RANGES`, the two
    replacement shares adding up to at most 1, a known ``selection``. The one check of the masking settings
    (``mask_tokens``, the pretraining collator and ``PretrainingConfig`` call it).

    Each setting is checked once: settings accepted before are remembered, so once the pretraining collator
    has checked its settings (when it is made), the call of ``mask_tokens`` on every batch finds them
    accepted and checks nothing again. A refused setting is refused, with its message, every time."""
    key = tuple((type(v), v) for v in (mlm_probability, mask_replace_prob, random_replace_prob, selection))
    try:
        if key in _ACCEPTED_MASKING:
            return
    except TypeError:  # an unhashable value (a list, ...): never accepted, so the checks below say why
        key = None
    values = dict(
        mlm_probability=mlm_probability,
        mask_replace_prob=mask_replace_prob,
        random_replace_prob=random_replace_prob,
    )
    for name, value in values.items():
        MASKING_RANGES[name].check(name, value)
    check_replacement_shares(mask_replace_prob, random_replace_prob)
    if selection not in SELECTIONS:
        raise ValueError(f'selection must be "bernoulli" or "exact", got {selection!r}.')
    if key is not None and len(_ACCEPTED_MASKING) < 1024:  # a loop over many settings stays bounded
        _ACCEPTED_MASKING.add(key)


def check_replacement_shares(mask_replace_prob: float, random_replace_prob: float) -> None:
    """The shares of the selected tokens replaced by [MASK] and by a random token leave a share >= 0 unchanged."""
    if mask_replace_prob + random_replace_prob > 1.0 + 1e-12:
        raise ValueError(
            f"mask_replace_prob + random_replace_prob = {mask_replace_prob + random_replace_prob} "
            "exceeds 1; the rest (1 - both) is the share left unchanged. BERT uses 0.8 and 0.1."
        )


_REPLACEMENT_CACHE: dict[tuple[int, tuple[int, ...]], torch.Tensor] = {}


def _non_special_ids(vocab_size: int, special: torch.Tensor) -> torch.Tensor:
    """All ids in ``0..vocab_size-1`` that are not special (fast path: cached, the collator calls this every
    batch)."""
    key = (int(vocab_size), tuple(special.tolist()))
    if key not in _REPLACEMENT_CACHE:
        ids = torch.arange(vocab_size)
        _REPLACEMENT_CACHE.clear()  # keep just the latest vocabulary
        _REPLACEMENT_CACHE[key] = ids[~torch.isin(ids, special)]
    return _REPLACEMENT_CACHE[key]


def _checked_word_ids(word_ids, squeeze: bool, B: int, T: int) -> torch.Tensor:
    word_ids = torch.as_tensor(word_ids)
    if squeeze and word_ids.dim() == 1:
        word_ids = word_ids.unsqueeze(0)
    if word_ids.shape != (B, T) or word_ids.dtype.is_floating_point:
        raise ValueError(
            f"word_ids must be an integer tensor shaped like input_ids {(B, T)}, got "
            f"{word_ids.dtype} {tuple(word_ids.shape)}; use tokenizer.word_ids(input_ids)."
        )
    word_ids = word_ids.long()
    if word_ids.numel() and (int(word_ids.min()) < -1 or int(word_ids.max()) >= T):
        raise ValueError(
            f"word_ids must lie in -1..{T - 1} (-1 = not a word); use tokenizer.word_ids(input_ids)."
        )
    return word_ids
