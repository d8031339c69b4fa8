"""The claims ledger: every training result a notebook asserts, in one machine-readable place.

A training run is chaotic: another seed, and in effect another CPU (whose kernels round differently), gives
other weights and other scores. So a notebook never asserts a training result with a number of its own. It
names an entry of the ledger, ``bertedu/course/claims.yaml``, which says what is claimed (the statement), on
which metric, how (the comparison) and with which margin::

    claims.check("07-sentence-vs-bag-of-words", pre_cls["accuracy"], cls_baselines["bag_of_words"])

:func:`check` looks the entry up, compares, and raises :class:`ClaimFailed` (an ``AssertionError`` that quotes
the statement) if the result misses the margin. ``make bench`` re-runs the training notebooks over several
seeds and two CPU kernel sets with ``$BERTEDU_CLAIMS_RECORD`` set (``benchmarks/bench_claims.py``): then
:func:`check` appends what it measured to that file instead of raising, and ``benchmarks/RESULTS.md`` shows, per
entry, on how many runs it held. A margin is set so that the claim holds on every run of that sweep; what does
not hold everywhere is not asserted (the notebook says it varies with the seed and shows the spread).

``tests/test_claims.py`` ties the ledger to the notebooks: every entry's cell calls :func:`check` with its id,
and no notebook asserts a training result outside the ledger.

The comparisons (``value`` is the measured result, ``reference`` what it is compared with, ``margin`` the entry's):

    at_least   value >= margin                     at_most   value <= margin
    ahead      value >= reference + margin        behind    value <= reference - margin
    level      |value - reference| <= margin       between   margin[0] <= value <= margin[1]
    times      value >= margin * reference         equals    value == margin
    one_of     value in margin                     varies    (no margin) shown, never asserted

A ``varies`` entry is what the sweep found to vary with the seed: a notebook reads it with :func:`observe`,
not :func:`check`, prints the sweep's spread (:func:`spread_text`) beside its own run and says so.

Introduced in notebook 06; used by every notebook that trains (06, 07, 08, 10, 11).
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from bertedu.utils import repo_root, seed_offset

#: The ledger file, next to this module.
LEDGER = Path(__file__).with_name("claims.yaml")
#: A call of :func:`check` in a notebook's code, with the id it names (tests and benchmarks find the claims with it).
CHECK_CALL = re.compile(r'claims\.(?:check|observe)\(\s*"([^"]+)"')
#: Set to a file name, :func:`check` appends each measurement to it (one JSON object per line) instead of raising.
RECORD_ENV = "BERTEDU_CLAIMS_RECORD"

COMPARISONS = {
    "at_least": lambda v, r, m: v - m,
    "at_most": lambda v, r, m: m - v,
    "ahead": lambda v, r, m: (v - r) - m,
    "behind": lambda v, r, m: (r - v) - m,
    "level": lambda v, r, m: m - abs(v - r),
    "between": lambda v, r, m: min(v - m[0], m[1] - v),
    "times": lambda v, r, m: v - m * r,
}
#: Comparisons of outcomes that are not numbers (a word, a direction): they hold or they do not.
EXACT = {"equals": lambda v, m: v == m, "one_of": lambda v, m: v in m, "varies": lambda v, m: True}
#: The comparison of an entry that is observed, not asserted (:func:`observe`).
VARIES = "varies"
#: Comparisons that need a reference value.
NEEDS_REFERENCE = {"ahead", "behind", "level", "times"}
FIELDS = {"id", "notebook", "cell", "statement", "metric", "compare", "margin", "reference"}


class ClaimFailed(AssertionError):
    """A notebook's training result missed the margin its ledger entry gives."""


@dataclass(frozen=True)
class Claim:
    """One entry of the ledger: ``statement`` (what the notebook says), ``metric`` (what is measured, on which
    file), ``compare`` (one of :data:`COMPARISONS` or :data:`EXACT`), ``margin``, and ``reference`` (what the
    value is compared with, in words; empty for the comparisons without one), asserted in ``notebook``'s cell
    ``cell`` (a cell id)."""

    id: str
    notebook: str
    cell: str
    statement: str
    metric: str
    compare: str
    margin: Any
    reference: str = ""

    def slack(self, value, reference=None) -> float | None:
        """How far ``value`` is from missing the margin, in the metric's units (negative: it misses); ``None``
        for the exact comparisons."""
        if self.compare in EXACT:
            return None
        return float(COMPARISONS[self.compare](value, reference, self.margin))

    def holds(self, value, reference=None) -> bool:
        if self.compare in EXACT:
            return bool(EXACT[self.compare](value, self.margin))
        slack = self.slack(value, reference)
        return not math.isnan(slack) and slack >= -1e-12  # a margin met exactly holds

    def __str__(self) -> str:
        return self.statement


@functools.lru_cache(maxsize=1)
def ledger() -> dict[str, Claim]:
    """Every entry of :data:`LEDGER` by id, checked: known fields, a known comparison, a margin of the right
    shape, ids unique."""
    entries = yaml.safe_load(LEDGER.read_text(encoding="utf-8")) or []
    out: dict[str, Claim] = {}
    for entry in entries:
        unknown = set(entry) - FIELDS
        if unknown or not {"id", "notebook", "cell", "statement", "metric", "compare", "margin"} <= set(
            entry
        ):
            raise ValueError(
                f"claims.yaml: entry {entry.get('id')!r} has unknown or missing fields ({unknown})."
            )
        claim = Claim(**entry)
        _check_shape(claim)
        if claim.id in out:
            raise ValueError(f"claims.yaml: the id {claim.id!r} is used twice.")
        out[claim.id] = claim
    return out


def _check_shape(claim: Claim) -> None:
    if claim.compare not in COMPARISONS and claim.compare not in EXACT:
        raise ValueError(f"claims.yaml: {claim.id}: unknown comparison {claim.compare!r}.")
    pair = isinstance(claim.margin, list) and len(claim.margin) == 2
    if claim.compare == "between" and not pair:
        raise ValueError(f"claims.yaml: {claim.id}: 'between' needs a margin [low, high].")
    if (
        claim.compare in COMPARISONS
        and claim.compare != "between"
        and not isinstance(claim.margin, (int, float))
    ):
        raise ValueError(f"claims.yaml: {claim.id}: {claim.compare!r} needs a number as its margin.")
    if claim.compare == VARIES and claim.margin is not None:
        raise ValueError(f"claims.yaml: {claim.id}: 'varies' is never asserted: its margin is null.")
    if claim.compare in NEEDS_REFERENCE and not claim.reference:
        raise ValueError(
            f"claims.yaml: {claim.id}: {claim.compare!r} compares with something: say what (reference)."
        )


def margin(claim_id: str) -> Any:
    """The margin of a ledger entry (for a notebook's printed sentence: "ahead by more than ...")."""
    return _claim(claim_id).margin


def _claim(claim_id: str) -> Claim:
    try:
        return ledger()[claim_id]
    except KeyError:
        raise KeyError(
            f"No claim {claim_id!r} in {LEDGER.name}: add an entry (statement, metric, comparison, margin) "
            "before a notebook asserts it."
        ) from None


def check(claim_id: str, value, reference=None) -> Claim:
    """Assert ledger entry ``claim_id`` on a measured ``value`` (and the ``reference`` it is compared with):
    returns the :class:`Claim`, raises :class:`ClaimFailed` quoting its statement if the margin is missed. With
    ``$BERTEDU_CLAIMS_RECORD`` set (the claims sweep), appends the measurement to that file and never raises."""
    claim = _claim(claim_id)
    if claim.compare == VARIES:
        raise TypeError(
            f"claim {claim_id!r} varies with the seed: claims.observe() it; it is never asserted."
        )
    return _measure(claim, value, reference)


def observe(claim_id: str, value, reference=None) -> Claim:
    """Record ledger entry ``claim_id`` (a ``varies`` entry) for the claims sweep, and never assert it: the
    sweep found that it varies with the seed, and the notebook shows its spread (:func:`spread_text`)."""
    claim = _claim(claim_id)
    if claim.compare != VARIES:
        raise TypeError(f"claim {claim_id!r} is asserted ({claim.compare}): claims.check() it.")
    return _measure(claim, value, reference)


def _measure(claim: Claim, value, reference) -> Claim:
    """Compare (or, with ``$BERTEDU_CLAIMS_RECORD`` set, record) one measurement of ``claim``."""
    claim_id = claim.id
    if claim.compare != VARIES and (claim.compare in NEEDS_REFERENCE) != (reference is not None):
        raise TypeError(
            f"claim {claim_id!r} ({claim.compare}) {'needs' if reference is None else 'takes no'} reference value."
        )
    value, reference = _plain(value), _plain(reference)
    holds = claim.holds(value, reference)
    record_to = os.environ.get(RECORD_ENV, "").strip()
    if record_to:
        record = {
            "id": claim.id,
            "value": value,
            "reference": reference,
            "holds": holds,
            "slack": claim.slack(value, reference),
            "seed_offset": seed_offset(),
            "kernels": os.environ.get("ATEN_CPU_CAPABILITY", "native"),
        }
        with open(
            record_to, "a", encoding="utf-8"
        ) as fh:  # one short line per write: appends do not interleave
            fh.write(json.dumps(record) + "\n")
        return claim
    if not holds:
        against = "" if reference is None else f" against {claim.reference} = {reference!r}"
        raise ClaimFailed(
            f"Claim {claim.id!r} does not hold: {claim.statement} (measured {claim.metric} = {value!r}{against}; "
            f"{claim.compare} {claim.margin!r}). A training result depends on the seed and the CPU: "
            "benchmarks/RESULTS.md's claims table shows its spread over the sweep."
        )
    return claim


def _plain(x):
    """A JSON-ready Python value from a number, a NumPy or torch scalar, or a string/tuple."""
    if x is None or isinstance(x, (str, bool)):
        return x
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if hasattr(x, "item"):
        x = x.item()
    return float(x) if isinstance(x, (int, float)) else x


def spread(claim_id: str, results: str | os.PathLike | None = None) -> tuple[float, float, float] | None:
    """``(min, median, max)`` of a claim's value over the last claims sweep (``benchmarks/results.json``, written
    by ``make bench``), for a notebook to print beside its single run; ``None`` if the sweep has not measured it
    (or the file is not there, as in an installed package)."""
    _claim(claim_id)
    path = Path(results) if results else _results_file()
    try:
        row = json.loads(path.read_text(encoding="utf-8"))["claims"]["summary"][claim_id]
    except (OSError, KeyError, ValueError):
        return None
    values = row.get("values")
    return tuple(values) if values else None


def spread_text(claim_id: str, digits: int = 3) -> str:
    """:func:`spread` as ``"0.848 / 0.911 / 0.937"``, or ``"–"`` when there is none."""
    found = spread(claim_id)
    return "–" if found is None else " / ".join(f"{v:.{digits}f}" for v in found)


def _results_file() -> Path:
    try:
        return repo_root() / "benchmarks" / "results.json"
    except FileNotFoundError:
        return Path("benchmarks") / "results.json"
