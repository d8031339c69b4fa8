"""Is my loss right? Compare a run's MLM and NSP loss curves with a reference band and name the likely bug.

A pretraining bug rarely crashes: the loop runs, the loss moves, and only its shape tells. So we run the
course's reference recipe with a few seeds, keep the envelope of their (smoothed) curves, and look at where a
student's curves leave it::

    band = reference_band(lambda seed: record_losses(make_model(seed), batches, learning_rate=1e-3),
                          seeds=(0, 1, 2))                     # run_fn(seed) -> (mlm_losses, nsp_losses)
    report = diagnose(mlm_losses, nsp_losses, band)            # curves only
    report = diagnose(mlm_losses, nsp_losses, band, batch=batch, model=model, tokenizer=tokenizer)  # + probes
    report.ok, report.names, print(report)

The curves are one value per step, or one per history record (``curves_from_history(run.history)``: means over
``log_every`` steps); the band must be on the same grid (``every=`` only labels the steps in the messages). A
curve longer than the band is compared over the band's length (a band from short runs checks a long run's start).

The findings (``late``: the second half of the compared points; the band: the seeds' min/max of the moving
averages, widened by ``margin`` of its value). From the curves:

- ``learning_rate_too_high``: a loss became NaN or infinite; or the MLM or NSP loss is above the band on at least
  half of the late points; or the MLM loss climbed back to 1.15x its lowest (smoothed) value.
- ``nsp_ignores_isnext``: the NSP loss is below the band on half of the late points and, at the last one, under
  half the band's low edge: with ``ignore_index=0`` the IsNext pairs drop out and NotNext alone costs nothing.
- ``mlm_below_band`` (ambiguous): the MLM loss is below the band on half of the late points: labels at [PAD] or
  special tokens masked; a batch tells which. Not reported next to ``learning_rate_too_high``: big steps learn
  the word frequencies fast, so a learning rate far too high also pushes an early MLM loss below the band.

From a ``batch`` (and the ``tokenizer``'s ids): ``loss_over_pad`` (labels at [PAD] positions),
``special_tokens_masked`` (labels holding [CLS], [SEP], [UNK] or [MASK]), ``padding_not_masked`` (attention mask 1
on [PAD] tokens). From a ``model`` run on the batch: ``padding_not_masked`` (its outputs at real tokens change
when only the tokens behind the attention mask change) and ``nsp_ignores_isnext`` (it says NotNext with a mean
probability of 0.9 or more on the IsNext pairs). A probe's finding replaces an ambiguous curve finding it
explains. A model whose output has no ``mlm_loss``/``nsp_loss`` is measured by :func:`record_losses` with the
course's losses: its NSP loss then rises above the band with ``ignore_index=0``, and the model probe says so.

The report's words are ``str.format`` templates of :func:`bertedu.language.msg`, in the course's language (its
Chinese: ``bertedu/language/zh_diagnose.py``). A finding is worded when ``diagnose`` runs, so set the language
before.

Introduced in notebook 06; notebook 11 checks the capstone's own BERT with it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import torch

from bertedu.core.losses import IGNORE_INDEX, mlm_loss, nsp_loss
from bertedu.language import msg
from bertedu.training.optim import TrainingDivergedError, make_optimizer, optimizer_step

LN2 = math.log(2)  # the NSP loss of a coin flip
MIN_POINTS = 3  # fewer compared points cannot show a trend
RISE = 1.15  # an MLM curve that climbs back to 1.15x its lowest (smoothed) value is rising
FAR_BELOW = 0.5  # an NSP loss under half the band's low edge is "far below"


# ----------------------------------------------------------------------------------------------------------
# The reference band


@dataclass(frozen=True)
class LossBand:
    """Per point ``t`` the range ``[low, high]`` the reference runs' smoothed MLM and NSP losses stayed in
    (widened by ``margin``); ``window``: the moving average applied to every curve; ``every``: steps per
    point (1: one value per step; ``log_every``: history records). Introduced in notebook 06."""

    mlm_low: tuple[float, ...]
    mlm_high: tuple[float, ...]
    nsp_low: tuple[float, ...]
    nsp_high: tuple[float, ...]
    seeds: tuple[int, ...]
    window: int = 5
    margin: float = 0.1
    every: int = 1

    def __len__(self) -> int:
        return len(self.mlm_low)

    @property
    def steps(self) -> list[int]:
        """The step each point ends at: ``every, 2 every, ...``."""
        return [(t + 1) * self.every for t in range(len(self))]


def moving_average(values: Sequence[float], window: int) -> list[float]:
    """The mean of the last ``window`` values at each point (fewer at the start); NaN stays NaN."""
    out = []
    for t in range(len(values)):
        last = values[max(0, t - window + 1) : t + 1]
        out.append(sum(last) / len(last))
    return out


def reference_band(
    run_fn: Callable[[int], tuple[Sequence[float], Sequence[float]]],
    seeds: Iterable[int] = (0, 1, 2),
    *,
    margin: float = 0.1,
    window: int = 5,
    every: int = 1,
) -> LossBand:
    """Run the reference recipe once per seed (``run_fn(seed) -> (mlm_losses, nsp_losses)``) and return the
    envelope of the runs' moving averages (``window`` points), widened by ``margin`` (a share of its value)."""
    seeds = tuple(seeds)
    if len(seeds) < 2 or len(set(seeds)) != len(seeds) or not all(isinstance(s, int) for s in seeds):
        raise ValueError(f"seeds must be at least two different ints (e.g. (0, 1, 2)), got {seeds!r}.")
    if not isinstance(margin, (int, float)) or not 0 <= margin < 1:
        raise ValueError(f"margin must be a share between 0 and 1 (e.g. 0.1), got {margin!r}.")
    for name, value in (("window", window), ("every", every)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be an int >= 1, got {value!r}.")
    runs = []
    for seed in seeds:
        mlm, nsp = _checked_curves(*run_fn(seed), who=f"run_fn({seed})")
        if not all(map(math.isfinite, mlm + nsp)):
            raise ValueError(
                f"run_fn({seed}) returned a NaN or infinite loss: a reference run must not diverge."
            )
        runs.append((moving_average(mlm, window), moving_average(nsp, window)))
    lengths = {len(mlm) for mlm, _ in runs}
    if len(lengths) != 1:
        raise ValueError(f"the reference runs have different lengths {sorted(lengths)}: train each as long.")
    columns = [
        list(zip(*(run[k] for run in runs))) for k in (0, 1)
    ]  # per curve: per point, the seeds' values
    mlm_low, mlm_high, nsp_low, nsp_high = (
        tuple(min(v) * (1 - margin) if low else max(v) * (1 + margin) for v in column)
        for column in columns
        for low in (True, False)
    )
    return LossBand(mlm_low, mlm_high, nsp_low, nsp_high, seeds, window, float(margin), every)


def _checked_curves(mlm, nsp, *, who: str = "the curves") -> tuple[list[float], list[float]]:
    """Two loss curves as lists of floats, checked: not empty, numbers, equally long, not only NaN/inf."""
    curves = []
    for name, curve in (("mlm_losses", mlm), ("nsp_losses", nsp)):
        if isinstance(curve, torch.Tensor):
            curve = curve.detach().flatten().tolist()
        try:
            values = [float(v) for v in curve]
        except (TypeError, ValueError):
            raise ValueError(
                f"{who}: {name} must be a sequence of numbers (one loss per step or per record), "
                f"got {type(curve).__name__}."
            ) from None
        if not values:
            raise ValueError(f"{who}: {name} is empty; train at least {MIN_POINTS} steps first.")
        if not any(map(math.isfinite, values)):
            raise ValueError(
                f"{who}: {name} holds only NaN or infinite values: the run diverged at its first step "
                "(learning rate far too high?) and there is no curve to compare."
            )
        curves.append(values)
    if len(curves[0]) != len(curves[1]):
        raise ValueError(
            f"{who}: mlm_losses has {len(curves[0])} values but nsp_losses {len(curves[1])}: give both "
            "per step (or per record) of the same run."
        )
    return curves[0], curves[1]


# ----------------------------------------------------------------------------------------------------------
# Findings and the diagnosis


@dataclass(frozen=True)
class Finding:
    """One likely bug: its ``name`` (e.g. ``"nsp_ignores_isnext"``), the ``evidence`` in numbers, what to
    ``check`` in the code, and for an ambiguous finding the bugs it may be (``suspects``)."""

    name: str
    evidence: str
    check: str
    suspects: tuple[str, ...] = ()


@dataclass(repr=False)
class Diagnosis:
    """What :func:`diagnose` found: ``ok`` if nothing, else ``findings`` (most likely first)."""

    findings: list[Finding] = field(default_factory=list)
    compared: int = 0  # points compared with the band
    every: int = 1
    probes: tuple[str, ...] = ()  # "batch", "model": what was probed besides the curves

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.findings]

    def _summary(self) -> str:
        steps = self.compared * self.every
        if not self.probes:
            what = msg("steps 1-{steps} compared with the reference band", steps=steps)
        elif self.probes == ("batch",):
            what = msg("steps 1-{steps} compared with the reference band; probed: batch", steps=steps)
        elif self.probes == ("batch", "model"):
            what = msg(
                "steps 1-{steps} compared with the reference band; probed: batch and model", steps=steps
            )
        else:  # not made by diagnose(): the probes' own names
            what = f"steps 1-{steps} compared with the reference band; probed: " + " and ".join(self.probes)
        if self.ok:
            return msg(
                "Your loss curves lie inside the reference band: no sign of a bug ({what}).", what=what
            )
        n = len(self.findings)
        return msg("{n} likely bug{_s} ({what}):", n=n, _s="s" if n > 1 else "", what=what)

    def __str__(self) -> str:
        lines = [self._summary()]
        for f in self.findings:
            lines += [f"- {f.name}: {f.evidence}", "  " + msg("check: {check}", check=f.check)]
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_markdown_(self) -> str:
        lines = [f"**{self._summary()}**", ""]
        lines += [
            f"- **`{f.name}`**: {f.evidence}<br>" + msg("*check:* {check}", check=f.check)
            for f in self.findings
        ]
        return "\n".join(lines)


def diagnose(
    mlm_losses: Sequence[float],
    nsp_losses: Sequence[float],
    band: LossBand,
    *,
    batch: dict[str, torch.Tensor] | None = None,
    model: torch.nn.Module | None = None,
    tokenizer=None,
) -> Diagnosis:
    """Compare one run's MLM and NSP losses (per step, or per record as the band) with ``band`` and name the
    likely bug(s). ``batch`` (a training batch as the run saw it) and ``tokenizer`` add the probes of the data;
    ``model`` (with ``batch``) adds the probe of the attention mask. The rules: the module's docstring."""
    if not isinstance(band, LossBand):
        raise ValueError(f"band must be a LossBand from reference_band(...), got {type(band).__name__}.")
    mlm, nsp = _checked_curves(mlm_losses, nsp_losses)
    if (batch is not None or model is not None) and tokenizer is None:
        raise ValueError("the probes need tokenizer= (its [PAD], [CLS], [SEP] ids) with batch= or model=.")
    if model is not None and batch is None:
        raise ValueError("the model probe needs batch= (a training batch to run the model on).")
    if batch is not None:
        _check_batch(batch)
    n = min(len(mlm), len(band))
    if n < MIN_POINTS:
        raise ValueError(
            f"only {n} point(s) to compare with the band; give at least {MIN_POINTS} (one loss per step or "
            "per record, on the band's grid)."
        )
    probed, probes = [], ()  # what the probes of a batch and a model found, most direct evidence first
    if model is not None:
        probed, probes = model_findings(model, batch, tokenizer), ("batch", "model")
    if batch is not None:
        probed, probes = batch_findings(batch, tokenizer) + probed, probes or ("batch",)
    named = {f.name for f in probed}
    curves = [f for f in curve_findings(mlm, nsp, band) if not named & set(f.suspects)]  # a probe explains it
    found = probed + curves
    unique = list({f.name: f for f in reversed(found)}.values())[::-1]  # one finding per name, the first
    return Diagnosis(unique, n, band.every, probes)


# ----------------------------------------------------------------------------------------------------------
# The rules on the curves


def curve_findings(mlm: list[float], nsp: list[float], band: LossBand) -> list[Finding]:
    """The findings the curves alone show (see the module's table), compared over the band's length."""
    found = []
    step = lambda t: (t + 1) * band.every  # noqa: E731
    bad = next((t for t in range(len(mlm)) if not math.isfinite(mlm[t] + nsp[t])), None)
    if bad is not None:
        value = mlm[bad] if not math.isfinite(mlm[bad]) else nsp[bad]
        found.append(
            _too_high(
                msg("the loss became {value} at step {step}: the run diverged.", value=value, step=step(bad))
            )
        )
        mlm, nsp = mlm[:bad], nsp[:bad]  # the finite part before it
        if len(mlm) < MIN_POINTS:
            return found
    n = min(len(mlm), len(band))
    s_mlm, s_nsp = moving_average(mlm, band.window), moving_average(nsp, band.window)
    late = range(n // 2, n)
    share = lambda test: sum(map(test, late)) / len(late)  # noqa: E731
    last = n - 1
    if bad is None:
        found += _above_band_or_rising(s_mlm, s_nsp, band, late)
    if share(lambda t: s_nsp[t] < band.nsp_low[t]) >= 0.5 and s_nsp[last] < FAR_BELOW * band.nsp_low[last]:
        evidence = msg(
            "the NSP loss fell to {value:.3f} by step {step}, while the reference runs stay at {reference:.3f} "
            "or above there (ln 2 = {ln2:.3f}, a coin flip): the model cannot have learned NSP that fast, so "
            "part of the pairs is not counted.",
            value=s_nsp[last],
            step=step(last),
            reference=band.nsp_low[last] / (1 - band.margin),
            ln2=LN2,
        )
        found.append(_nsp_finding(evidence))
    part = share(lambda t: s_mlm[t] < band.mlm_low[t])
    too_high = any(f.name == "learning_rate_too_high" for f in found)  # big steps learn word frequencies fast
    if part >= 0.5 and not too_high:  # ... so an MLM loss below the band goes with them too
        worst = min(late, key=lambda t: s_mlm[t] / band.mlm_low[t])
        evidence = msg(
            "the MLM loss is below the reference band on {part:.0%} of steps {first}-{last} (at step {worst}: "
            "{value:.3f}, the band's bottom {bottom:.3f}): some labels are too easy to predict.",
            part=part,
            first=step(late[0]),
            last=step(last),
            worst=step(worst),
            value=s_mlm[worst],
            bottom=band.mlm_low[worst],
        )
        found.append(_mlm_below_band(evidence))
    return found


def _above_band_or_rising(
    s_mlm: list[float], s_nsp: list[float], band: LossBand, late: range
) -> list[Finding]:
    """The learning-rate rules on the smoothed curves: the MLM or NSP loss above the band on half of the
    ``late`` points, else an MLM loss that climbed back to ``RISE`` times its lowest value."""
    step = lambda t: (t + 1) * band.every  # noqa: E731
    above = [
        (sum(curve[t] > high[t] for t in late) / len(late), name, curve, high)
        for name, curve, high in (("MLM", s_mlm, band.mlm_high), ("NSP", s_nsp, band.nsp_high))
    ]
    part, name, curve, high = max(above)
    if part >= 0.5:
        worst = max(late, key=lambda t: curve[t] / high[t])
        evidence = msg(
            "the {name} loss is above the reference band on {part:.0%} of steps {first}-{last} (at step "
            "{worst}: {value:.3f}, the band's top {top:.3f}).",
            name=name,
            part=part,
            first=step(late[0]),
            last=step(late[-1]),
            worst=step(worst),
            value=curve[worst],
            top=high[worst],
        )
        # an NSP loss measured with the course's loss rises too if the model learned NotNext only
        return [
            _too_high(evidence, ("learning_rate_too_high", "nsp_ignores_isnext") if name == "NSP" else ())
        ]
    if min(s_mlm) > 0 and s_mlm[-1] > RISE * min(s_mlm):
        low = s_mlm.index(min(s_mlm))
        evidence = msg(
            "the MLM loss rose from {low:.3f} (step {low_step}) to {end:.3f} (step {end_step}), more than "
            "{rise:g}x.",
            low=s_mlm[low],
            low_step=step(low),
            end=s_mlm[-1],
            end_step=step(len(s_mlm) - 1),
            rise=RISE,
        )
        return [_too_high(evidence)]
    return []


def _mlm_below_band(evidence: str) -> Finding:
    return Finding(
        "mlm_below_band",
        evidence,
        msg(
            "two bugs look like this: the loss counted over [PAD] positions (labels at padding) or special "
            "tokens masked ([CLS]/[SEP] selected as targets). To tell which, pass batch= and tokenizer=: "
            "labels at [PAD] positions mean the first, labels holding [CLS]/[SEP] the second."
        ),
        ("loss_over_pad", "special_tokens_masked"),
    )


def _nsp_finding(evidence: str) -> Finding:
    return Finding(
        "nsp_ignores_isnext",
        evidence,
        msg(
            "the NSP loss: an ignore_index=0 drops every IsNext pair (label 0), and predicting NotNext for the "
            "rest costs nothing. Use F.cross_entropy(logits, labels) without ignore_index (and check the batch "
            "has both labels, 0 and 1)."
        ),
    )


def _too_high(evidence: str, suspects: tuple[str, ...] = ()) -> Finding:
    return Finding(
        "learning_rate_too_high",
        evidence,
        msg(
            "the learning rate (and its warm-up): a peak far above the recipe's makes the loss jump above the "
            "band, rise or turn NaN. Compare yours with the recipe's; a factor of 10 or 100 is a typo."
        ),
        suspects,
    )


# ----------------------------------------------------------------------------------------------------------
# The probes of a batch and of a model


def _check_batch(batch) -> None:
    keys = ("input_ids", "attention_mask", "labels")
    if not isinstance(batch, dict) or any(not isinstance(batch.get(k), torch.Tensor) for k in keys):
        raise ValueError(
            "batch must be a training batch: a dict with input_ids, attention_mask and labels tensors (B, T), "
            "as bertedu.training.data's collator makes it."
        )
    shapes = {tuple(batch[k].shape) for k in keys}
    if len(shapes) != 1 or len(next(iter(shapes))) != 2:
        raise ValueError(f"input_ids, attention_mask and labels must all be (B, T), got {sorted(shapes)}.")


def batch_findings(batch: dict[str, torch.Tensor], tokenizer) -> list[Finding]:
    """Probe a training batch: labels at [PAD], labels holding special tokens, [PAD] attended to."""
    ids, mask, labels = batch["input_ids"], batch["attention_mask"], batch["labels"]
    pad = tokenizer.pad_token_id
    specials = torch.tensor(sorted(set(tokenizer.all_special_ids) - {pad}))
    labelled = labels != IGNORE_INDEX  # (B, T)
    n = max(int(labelled.sum()), 1)
    found = []
    at_pad = labelled & ((labels == pad) | (mask == 0))
    if at_pad.any():
        found.append(
            Finding(
                "loss_over_pad",
                msg(
                    "{count} of the batch's {n} labels are at [PAD] positions: trivial targets that pull the MLM "
                    "loss below the band.",
                    count=int(at_pad.sum()),
                    n=n,
                ),
                msg(
                    "where the labels are made: every position that is not a selected token, padding included, "
                    "must get the label {ignore} (labels[attention_mask == 0] = {ignore}).",
                    ignore=IGNORE_INDEX,
                ),
            )
        )
    at_special = labelled & torch.isin(labels, specials)
    if at_special.any():
        names = sorted(set(tokenizer.convert_ids_to_tokens(labels[at_special].unique().tolist())))
        found.append(
            Finding(
                "special_tokens_masked",
                msg(
                    "{count} of the batch's {n} labels are special tokens ({tokens}): [CLS] and [SEP] sit at "
                    "fixed places and are easy to guess, so the MLM loss is too low.",
                    count=int(at_special.sum()),
                    n=n,
                    tokens=", ".join(names),
                ),
                msg(
                    "the masking: select only ordinary tokens (mask_tokens(..., special_token_ids="
                    "tokenizer.all_special_ids) never selects [CLS], [SEP], [PAD])."
                ),
            )
        )
    seen_pad = (mask != 0) & (ids == pad)
    if seen_pad.any():
        found.append(
            _padding_not_masked(
                msg("the attention mask is 1 at {count} [PAD] tokens.", count=int(seen_pad.sum()))
            )
        )
    return found


def _padding_not_masked(evidence: str) -> Finding:
    return Finding(
        "padding_not_masked",
        msg(
            "{evidence} Real tokens then attend to padding, and a sentence's vectors depend on its batch.",
            evidence=evidence,
        ),
        msg(
            "the attention mask: 1 for real tokens, 0 for [PAD], passed to the model, and applied to the keys "
            "(scores of masked keys set to -inf, or a large negative number, before the softmax)."
        ),
    )


def model_findings(model: torch.nn.Module, batch: dict[str, torch.Tensor], tokenizer) -> list[Finding]:
    """Probe a model on a batch: its attention mask (:func:`_attention_probe`) and its NSP answers
    (:func:`_nsp_probe`), in eval mode, without gradients."""
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            return _attention_probe(model, batch, tokenizer) + _nsp_probe(model, batch)
    finally:
        model.train(was_training)


def _attention_probe(model: torch.nn.Module, batch: dict[str, torch.Tensor], tokenizer) -> list[Finding]:
    """Do the model's outputs at real tokens change when only the tokens behind the attention mask change?
    (The batch's padding is used, or two padded positions are added if it has none.)"""
    ids = batch["input_ids"]
    mask = batch["attention_mask"].long() & (ids != tokenizer.pad_token_id)  # (B, T) 1 = real token
    types = batch.get("token_type_ids", torch.zeros_like(ids))
    limit = getattr(getattr(model, "config", None), "max_position_embeddings", ids.size(1) + 2)
    if not (mask == 0).any():  # no padding in the batch: add two positions of it
        if ids.size(1) + 2 > limit:
            return []
        more = torch.zeros(ids.size(0), 2, dtype=torch.long)  # (B, 2)
        ids = torch.cat([ids, more + tokenizer.pad_token_id], 1)
        mask, types = torch.cat([mask, more], 1), torch.cat([types, more], 1)
    g = torch.Generator().manual_seed(0)
    other = torch.randint(0, tokenizer.vocab_size, ids.shape, generator=g)
    other = torch.where(torch.isin(other, torch.tensor(tokenizer.all_special_ids)), ids, other)
    changed = torch.where(mask == 0, other, ids)  # the same real tokens, other tokens behind the mask
    a, b = (
        _first_output(model(input_ids=x, attention_mask=mask, token_type_ids=types)) for x in (ids, changed)
    )
    diff = float((a - b).abs()[mask.bool()].max())  # at the real tokens only
    if diff <= 1e-4 * max(1.0, float(a.abs().max())):
        return []
    return [
        _padding_not_masked(
            msg(
                "changing only the tokens behind the attention mask changed the model's outputs at real tokens "
                "by up to {diff:.3g}.",
                diff=diff,
            )
        )
    ]


def _nsp_probe(model: torch.nn.Module, batch: dict[str, torch.Tensor]) -> list[Finding]:
    """Does the model answer NotNext, confidently, even for the IsNext pairs (what ignore_index=0 teaches)?"""
    labels = batch.get("next_sentence_label")
    keys = ("input_ids", "attention_mask", "token_type_ids")
    out = model(**{k: batch[k] for k in keys if k in batch})
    logits = getattr(out, "seq_relationship_logits", None)
    if labels is None or logits is None or not (labels == 0).any():
        return []
    not_next = logits.float().softmax(-1)[labels == 0, 1].mean().item()  # P(NotNext) on IsNext pairs
    if not_next < 0.9:
        return []
    return [
        _nsp_finding(
            msg(
                "on the batch's {count} IsNext pairs the model says NotNext with a mean probability of "
                "{probability:.2f}: it was never taught that IsNext exists.",
                count=int((labels == 0).sum()),
                probability=not_next,
            )
        )
    ]


def _first_output(out) -> torch.Tensor:
    """The per-token output of a model: MLM logits, else the last hidden state, else the tensor itself."""
    for name in ("prediction_logits", "logits", "last_hidden_state"):
        if getattr(out, name, None) is not None:
            return getattr(out, name)
    if isinstance(out, torch.Tensor):
        return out
    raise ValueError("the model's output has no prediction_logits, logits or last_hidden_state to compare.")


# ----------------------------------------------------------------------------------------------------------
# Recording curves


def curves_from_history(history: list[dict]) -> tuple[list[float], list[float]]:
    """``(mlm_losses, nsp_losses)`` of :func:`bertedu.training.pretrain.pretrain`'s training records."""
    train = [r for r in history if r.get("split", "train") == "train"]
    if not train or any("mlm_loss" not in r or "nsp_loss" not in r for r in train):
        raise ValueError("history has no training records with mlm_loss and nsp_loss (a run with NSP?).")
    return [r["mlm_loss"] for r in train], [r["nsp_loss"] for r in train]


def record_losses(
    model: torch.nn.Module,
    batches: Sequence[dict[str, torch.Tensor]],
    *,
    learning_rate: float,
    warmup_steps: int = 0,
    weight_decay: float = 0.01,
    max_grad_norm: float = 1.0,
) -> tuple[list[float], list[float]]:
    """Train ``model`` one step per batch (AdamW, linear warm-up and decay over ``len(batches)`` steps, the
    package's optimizer step) and return the MLM and NSP loss of every step. A model whose output has no
    ``mlm_loss``/``nsp_loss`` gets them from its logits. A diverged run ends with one NaN."""
    optimizer, scheduler = make_optimizer(
        model,
        lr=learning_rate,
        weight_decay=weight_decay,
        warmup_steps=warmup_steps,
        total_steps=len(batches),
    )
    params = [p for p in model.parameters() if p.requires_grad]
    mlm, nsp = [], []
    model.train()
    for batch in batches:
        out = model(**batch)
        m = getattr(out, "mlm_loss", None)
        m = mlm_loss(out.prediction_logits, batch["labels"]) if m is None else m
        s = getattr(out, "nsp_loss", None)
        s = nsp_loss(out.seq_relationship_logits, batch["next_sentence_label"]) if s is None else s
        optimizer.zero_grad(set_to_none=True)
        out.loss.backward()
        try:
            optimizer_step(
                optimizer, scheduler, params, max_grad_norm, out.loss.item(), lambda *_: "diverged"
            )
        except TrainingDivergedError:
            mlm.append(math.nan), nsp.append(math.nan)
            break
        mlm.append(m.item()), nsp.append(s.item())
    return mlm, nsp
