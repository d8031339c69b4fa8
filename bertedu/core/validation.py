"""Small shared input checks: every public entry point validates through these, so messages are uniform.

Two kinds of check:

- settings (``require_int``, :class:`Interval` with ``require_number``): plain Python values of a config. A
  setting's range is an :class:`Interval` defined once, beside the code that uses the setting
  (``bertedu.core.masking.MASKING_RANGES``, :data:`DROPOUT`, :data:`PROBABILITY`), and the door that takes the
  setting (a config, which the command line builds; a collator) checks that same object, once;
- tensors a model receives (``check_inputs``, ``check_labels``): shapes and dtypes always, *values*
  (ids inside the vocabulary, a 0/1 mask) only for tensors on the CPU. Reading a value back from a GPU
  forces the host to wait for the device on every forward; on the CPU it costs nothing noticeable, and
  the CPU is where students make these mistakes. On an accelerator a bad id still fails inside
  ``F.embedding``, with PyTorch's own message.

Every failure is a ``ValueError`` whose message says what was wrong and what to do.
Used by ``bertedu.core.config``, ``bertedu.core.model`` and the training loops; introduced in notebook 05.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

# Ids index an embedding table: F.embedding takes int64 and int32 indices only.
ID_DTYPES = (torch.int64, torch.int32)
_SMALL_INT_DTYPES = (torch.int16, torch.int8, torch.uint8)


# ----------------------------------------------------------------------------------------------------------
# Settings


def require_int(
    name: str, value: Any, low: int = 0, high: int | None = None, *, none_ok: bool = False, hint: str = ""
) -> None:
    """``value`` must be an ``int`` (not a bool) ``>= low`` and, if given, ``<= high`` (or ``None`` if
    ``none_ok``). ``hint`` (why the bound) goes into the message in brackets."""
    if value is None and none_ok:
        return
    if (
        not isinstance(value, int)
        or isinstance(value, bool)
        or value < low
        or (high is not None and value > high)
    ):
        if high is not None:
            what = f"an integer from {low} to {high}"
        else:
            what = {0: "a non-negative integer", 1: "a positive integer"}.get(low, f"an integer >= {low}")
        also = " (or None)" if none_ok else ""
        why = f" ({hint})" if hint else ""
        raise ValueError(f"{name} must be {what}{also}{why}, got {value!r}.")


@dataclass(frozen=True)
class Interval:
    """The range of a number setting, written once and checked by every door that takes the setting.

    ``low .. high`` with each end open or closed (``[0, 1)`` is ``Interval(0, 1, high_inclusive=False)``);
    ``what`` names the kind of number in messages ("a probability"), ``example`` a value that works.
    """

    low: float = 0.0
    high: float = math.inf
    low_inclusive: bool = True
    high_inclusive: bool = True
    what: str = "a number"
    example: str = ""

    def __contains__(self, value: Any) -> bool:
        """A finite real number (not a bool) inside the interval (NaN is in no interval)."""
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
            return False
        above = value >= self.low if self.low_inclusive else value > self.low
        below = value <= self.high if self.high_inclusive else value < self.high
        return above and below

    def __str__(self) -> str:
        left, right = "[" if self.low_inclusive else "(", "]" if self.high_inclusive else ")"
        return f"{left}{self.low:g}, {self.high:g}{right}"

    def check(self, name: str, value: Any) -> None:
        """Raise a ``ValueError`` naming ``name`` unless ``value`` is in the interval."""
        if value not in self:
            hint = f" (e.g. {self.example})" if self.example else ""
            raise ValueError(f"{name} must be {self.what} in {self}{hint}, got {value!r}.")


#: Dropout: a probability of zeroing a value, below 1 (at 1 nothing would pass). BertConfig and
#: PretrainingConfig (whose --dropout the command line takes) check it.
DROPOUT = Interval(0, 1, high_inclusive=False, what="a probability")

#: A probability, 1 included (e.g. the NSP sampler's is_next_prob: 1 = always the true next sentence). One
#: name, one range: dropout's, which excludes 1, is :data:`DROPOUT`.
PROBABILITY = Interval(0, 1, what="a probability")


def require_number(
    name: str,
    value: Any,
    low: float = 0.0,
    high: float = math.inf,
    *,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
    example: str = "",
) -> None:
    """``value`` must be a finite real number in the interval ``low .. high`` (bounds as flagged)."""
    Interval(low, high, low_inclusive, high_inclusive, example=example).check(name, value)


# ----------------------------------------------------------------------------------------------------------
# Tensors given to a model


def _on_cpu(tensor: torch.Tensor) -> bool:
    """True when reading values back is free (a CPU tensor, not traced by torch.compile)."""
    return tensor.device.type == "cpu" and not torch.compiler.is_compiling()


def check_targets(name: str, targets: Any, size: int) -> None:
    """Regression ``targets``: a float tensor of ``size`` values, all finite (a NaN target makes the loss NaN)."""
    if not isinstance(targets, torch.Tensor) or not targets.is_floating_point() or targets.numel() != size:
        raise ValueError(f"With num_labels=1 (regression) {name} must be a float tensor of shape ({size},).")
    if _on_cpu(targets) and not bool(torch.isfinite(targets).all()):
        raise ValueError(
            f"{name} holds NaN or infinite values: a regression loss on them is NaN. Drop or fix those examples."
        )


def check_ids(name: str, ids: Any, upper: int, what: str, shape: torch.Size | None = None) -> None:
    """``ids`` must be an integer tensor (of ``shape`` if given) with values in ``[0, upper)``."""
    if not isinstance(ids, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor, got {type(ids).__name__}; use torch.tensor(...).")
    if ids.dtype in _SMALL_INT_DTYPES:
        raise ValueError(
            f"{name} has dtype {ids.dtype}; embedding lookups need torch.long (or torch.int32) ids, and "
            f"{ids.dtype} cannot hold most vocabulary ids anyway. Convert with {name}.long()."
        )
    if ids.dtype not in ID_DTYPES:
        raise ValueError(
            f"{name} must hold integer ids (torch.long), got dtype {ids.dtype}. Ids index a lookup table; "
            "convert with .long() if they are whole numbers stored as floats."
        )
    if shape is not None and ids.shape != shape:
        raise ValueError(
            f"{name} has shape {tuple(ids.shape)} but input_ids has {tuple(shape)}; they must match."
        )
    if ids.numel() == 0 or not _on_cpu(ids):
        return
    lo, hi = torch.aminmax(ids)
    if lo.item() < 0 or hi.item() >= upper:
        raise ValueError(
            f"{name} must lie in [0, {upper}) ({what}), found values from {lo.item()} to {hi.item()}."
        )


def check_inputs(
    config,
    input_ids: Any,
    attention_mask: Any = None,
    token_type_ids: Any = None,
) -> None:
    """Raise a clear ``ValueError`` for inputs a BERT of ``config`` cannot take."""
    if isinstance(input_ids, torch.Tensor) and input_ids.dim() != 2:
        hint = " For one sentence use input_ids.unsqueeze(0)." if input_ids.dim() == 1 else ""
        raise ValueError(f"input_ids must have shape (B, T), got {tuple(input_ids.shape)}.{hint}")
    check_ids("input_ids", input_ids, config.vocab_size, f"vocab_size = {config.vocab_size}")
    B, T = input_ids.shape
    if T == 0:
        raise ValueError("input_ids has no tokens (T = 0).")
    if T > config.max_position_embeddings:
        raise ValueError(
            f"Sequence length {T} exceeds max_position_embeddings = {config.max_position_embeddings}: there is "
            "no position embedding beyond that. Truncate the input (tokenizer truncation / max_length)."
        )
    if token_type_ids is not None:
        check_ids(
            "token_type_ids",
            token_type_ids,
            config.type_vocab_size,
            f"type_vocab_size = {config.type_vocab_size}",
            input_ids.shape,
        )
    if attention_mask is None:
        return
    if not isinstance(attention_mask, torch.Tensor):
        raise ValueError(f"attention_mask must be a torch.Tensor, got {type(attention_mask).__name__}.")
    if attention_mask.shape != input_ids.shape:
        raise ValueError(
            f"attention_mask has shape {tuple(attention_mask.shape)} but input_ids has {tuple(input_ids.shape)}; "
            "it must be (B, T) with 1 for real tokens and 0 for padding."
        )
    if not _on_cpu(attention_mask):
        return
    if ((attention_mask != 0) & (attention_mask != 1)).any():
        raise ValueError("attention_mask must contain only 0 (padding) and 1 (real token).")
    if not attention_mask.any(dim=1).all():
        raise ValueError("Every sequence needs at least one real token: a row of attention_mask is all 0.")


def check_labels(
    name: str, labels: Any, shape: tuple[int, ...], num_classes: int, ignore_index: int | None = None
) -> None:
    """``labels`` must be an integer tensor of ``shape`` with values in ``[0, num_classes)`` (or ``ignore_index``)."""
    if not isinstance(labels, torch.Tensor) or labels.dtype != torch.long:
        got = labels.dtype if isinstance(labels, torch.Tensor) else type(labels).__name__
        hint = (
            f" Convert with {name}.long()."
            if isinstance(labels, torch.Tensor) and not labels.is_floating_point()
            else ""
        )
        raise ValueError(f"{name} must be an integer tensor of dtype torch.long, got {got}.{hint}")
    if tuple(labels.shape) != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)}, got {tuple(labels.shape)}.")
    if not _on_cpu(labels):
        return
    valid = (labels >= 0) & (labels < num_classes)
    if ignore_index is not None:
        valid |= labels == ignore_index
    if not valid.all():
        bad = labels[~valid][0].item()
        allowed = f"[0, {num_classes})" + (f" or {ignore_index}" if ignore_index is not None else "")
        raise ValueError(f"{name} must lie in {allowed}; found {bad}.")
