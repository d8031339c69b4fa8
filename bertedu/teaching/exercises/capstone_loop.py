"""Exercises for notebook 11's own training loop: your schedule and training step, checked exactly against the
package's, then 30 steps trained through your parts alone, compared with the package's run statistically.

- :data:`schedule` (write the function): ``lr_lambda(step, warmup_steps, total_steps)``, the multiplier of the
  peak learning rate, against ``bertedu.training.optim.linear_schedule`` for several run lengths.
- :data:`loop_step` (write the function): ``training_step(model, batch, optimizer, scheduler, max_grad_norm)``,
  three steps on the capstone's batches against ``bertedu.training.pretrain.train_step`` (the same weights after
  each step); the model is handed over in eval mode, as it is after an evaluation.
- :data:`your_loop`: your model, NSP sampler, collate, masking, step and schedule train for :data:`STEPS` steps
  (:func:`train_your_parts`); the batches and random streams differ from the package's run, so the curves are
  compared with margins (first loss, the drop, the last five steps).

The collate (notebook 04), masking (03) and NSP sampler (04) exercises are checked by their own notebooks'
checkers (re-exported by :mod:`bertedu.teaching.exercises.capstone`). Introduced in notebook 11.
"""

from __future__ import annotations

import functools
import math
import random
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import torch

from bertedu.core.model import BertForPreTraining
from bertedu.language import msg, translatable, translate
from bertedu.teaching.exercises.capstone_base import (
    BATCH_SIZE,
    LEARNING_RATE,
    MAX_LENGTH,
    SEED,
    STEPS,
    capstone_setup,
    load_weights,
    reference_model,
    reporting_step,
    train_steps,
)
from bertedu.teaching.exercises.core import Exercise, as_number, expects_function
from bertedu.teaching.exercises.nn_checks import ModuleProblem, build, run_checks, seeded
from bertedu.teaching.exercises.pretraining import loss_number, reference_training_step, step_problem
from bertedu.teaching.viz._core import use_cjk_fallback
from bertedu.training.data import read_corpus
from bertedu.training.diagnose import diagnose, record_losses, reference_band
from bertedu.training.optim import linear_schedule, make_optimizer
from bertedu.training.pretrain import train_step
from bertedu.utils import cpu_threads, data_path

WARMUP_STEPS = STEPS // 5
MAX_GRAD_NORM = 1.0
LOOP_SEED = 0  #: your run's NSP pairs and masks (``random.Random`` and ``torch.Generator``) and dropout

# Margins of the statistical comparison (measured: over 8 seeds the last five steps of the package's run average
# 6.01 ± 0.02, those of a run through the reference solutions 5.96 ± 0.06; the first losses are within 0.06 of
# ln 2V).
FIRST_LOSS_MARGIN = 0.15  #: |first loss - ln 2V|
MIN_DROP = 0.5  #: first loss - mean of the last five
LAST_MARGIN = 0.25  #: |mean of your last five - mean of the package's last five|


# ----------------------------------------------------------------------------------------------------------
# 1. The schedule: linear warm-up, then linear decay to 0 (a multiplier for LambdaLR)

#: (warmup_steps, total_steps) of the checker's runs: the capstone's, a longer one, a warm-up of one step.
_SCHEDULES = ((WARMUP_STEPS, STEPS), (100, 1000), (1, 8))


def _schedule_values(fn: Callable, warmup: int, total: int) -> list[float] | str:
    values = []
    for step in range(total + 1):
        value = as_number(fn(step, warmup, total))
        if value is None or not math.isfinite(value):
            return msg(
                "lr_lambda({step}, {warmup}, {total}) returned {value!r}; return one finite number, the "
                "multiplier of the peak learning rate (1.0 at the peak).",
                step=step,
                warmup=warmup,
                total=total,
                value=fn(step, warmup, total),
            )
        values.append(value)
    return values


def _schedule_variants(warmup: int, total: int) -> dict[str, Callable[[int], float]]:
    """The package's multiplier and the typical mistakes, as functions of the step."""
    decay = lambda s: max(0.0, (total - s) / max(1, total - warmup))
    return {
        "package": linear_schedule(warmup, total),
        "step / warmup": lambda s: s / warmup if s < warmup else decay(s),
        "warm-up over total": lambda s: (s + 1) / total if s < warmup else decay(s),
        "no decay": lambda s: (s + 1) / warmup if s < warmup else 1.0,
        "decay over total": lambda s: (s + 1) / warmup if s < warmup else (total - s) / total,
        "zero too early": lambda s: (s + 1) / warmup if s < warmup else 1 - s / (total - warmup),
        "zero too early, clamped": lambda s: (
            (s + 1) / warmup if s < warmup else max(0, 1 - s / (total - warmup))
        ),
    }


_SCHEDULE_MISTAKES = {
    "no warm-up": translatable(
        "there is no warm-up: the multiplier is already 1 at step 0. Grow it linearly, (step + 1) / "
        "warmup_steps, over the first warmup_steps steps."
    ),
    "warm-up over total": translatable(
        "during the warm-up you divide by total_steps; divide by warmup_steps, so that the multiplier reaches "
        "1 at the end of the warm-up."
    ),
    "no decay": translatable(
        "after the warm-up the multiplier stays at 1: BERT decays it linearly to 0 at total_steps."
    ),
    "decay over total": translatable(
        "you decay over all total_steps, (total - step) / total, so the multiplier drops at once at the end of "
        "the warm-up. Decay over the remaining steps: (total - step) / (total - warmup)."
    ),
    "zero too early": translatable(
        "the decay reaches 0 at step total - warmup, too early: it is 1 - step / (total - warmup), counted "
        "from step 0. Count from the end of the warm-up: (total - step) / (total - warmup)."
    ),
    "learning rate": translatable(
        "you return the learning rate, not the multiplier: LambdaLR multiplies your value by the optimizer's "
        "peak rate, so return 1.0 at the peak (not 1e-3)."
    ),
}


@expects_function("ex.schedule.check(lr_lambda)")
def check_schedule(fn: Callable) -> tuple[bool, str]:
    """``fn(step, warmup_steps, total_steps) -> multiplier`` equals ``linear_schedule(warmup, total)(step)``
    (or warms up from ``step / warmup``) for every step of three runs; named messages for the typical mistakes."""
    runs = {}
    for warmup, total in _SCHEDULES:
        values = _schedule_values(fn, warmup, total)
        if isinstance(values, str):
            return False, values
        runs[warmup, total] = values
    same = lambda a, b: all(abs(x - y) <= 1e-9 + 1e-6 * abs(y) for x, y in zip(a, b))

    def matches(variant: str) -> bool:
        return all(
            same(values, [_schedule_variants(w, t)[variant](s) for s in range(t + 1)])
            for (w, t), values in runs.items()
        )

    if matches("package") or matches("step / warmup"):
        start = "(step + 1) / warmup" if matches("package") else "step / warmup"
        return True, msg(
            "{start} up to 1 at the end of the warm-up, then a straight line down to 0 at total_steps, for "
            "runs of 8, 30 and 1000 steps: the multipliers of bertedu's linear_schedule (LambdaLR multiplies "
            "them by the peak learning rate).",
            start=start,
        )
    values = runs[100, 1000]
    if 0 < max(values) <= 0.01:
        return False, translate(_SCHEDULE_MISTAKES["learning rate"])
    if values[0] >= 0.99:
        return False, translate(_SCHEDULE_MISTAKES["no warm-up"])
    for variant in _schedule_variants(1, 2):
        if variant.split(",")[0] in _SCHEDULE_MISTAKES and matches(variant):
            return False, translate(_SCHEDULE_MISTAKES[variant.split(",")[0]])
    if any(v < -1e-9 for v in values):
        return False, msg("the multiplier goes below 0: the learning rate must never be negative.")
    early, late = (values[250] - values[550]) / 300, (values[550] - values[900]) / 350
    if abs(values[100] - 1) < 1e-6 and abs(early - late) > 0.05 * max(abs(early), abs(late)):
        return False, msg(
            "after the warm-up your multiplier falls along a curve, not a straight line (cosine or "
            "exponential?): BERT's drops by the same amount every step."
        )
    expected = _schedule_variants(100, 1000)["package"]
    step = next(s for s in range(1001) if not same([values[s]], [expected(s)]))
    return False, msg(
        "lr_lambda({step}, 100, 1000) = {got:.6g}, bertedu's multiplier is {expected:.6g}: (step + 1) / warmup "
        "during the warm-up, (total - step) / (total - warmup) after it.",
        step=step,
        got=values[step],
        expected=expected(step),
    )


schedule = Exercise(
    "schedule",
    translatable(
        "Write `lr_lambda(step, warmup_steps, total_steps)`: the multiplier of the peak learning rate at "
        "optimizer step `step` (0, 1, ...), for torch's LambdaLR: a linear warm-up to 1 over the first "
        "warmup_steps steps, then a linear decay to 0 at total_steps."
    ),
    check_schedule,
    hints=[
        translatable(
            "Notebook 06's lr_at, divided by the peak and with the two step counts as arguments: "
            "`if step < warmup_steps: return (step + 1) / warmup_steps`."
        ),
        translatable(
            "After the warm-up: `max(0.0, (total_steps - step) / (total_steps - warmup_steps))`, which is 1 at "
            "the end of the warm-up and 0 at total_steps."
        ),
    ],
    solution_code="""
def lr_lambda(step, warmup_steps, total_steps):
    if step < warmup_steps:
        return (step + 1) / warmup_steps                                      # linear warm-up to 1
    return max(0.0, (total_steps - step) / (total_steps - warmup_steps))      # linear decay to 0

ex.schedule.check(lr_lambda)
""",
    points=1,
    answers=("bertedu.training.optim.linear_schedule",),
)


# ----------------------------------------------------------------------------------------------------------
# 2. The training step, against the package's train_step on the capstone's batches

_CHECK_STEPS = 3


def _package_step(model, batch, optimizer, scheduler, max_grad_norm, *, step: int = 0) -> float:
    """One step of ``bertedu.training.pretrain.train_step`` (the package's loop)."""
    return train_step(model, batch, optimizer, scheduler, list(model.parameters()), max_grad_norm, step).loss


def _steps_of(step_fn: Callable) -> tuple[list[float], dict]:
    """Three steps of ``step_fn`` on the capstone's first batches, from bertedu's initial weights, with the
    capstone's optimizer and schedule; the model starts in eval mode. Returns ``(losses, final state dict)``."""
    config, _, batches = capstone_setup()
    losses = []
    with cpu_threads(1), warnings.catch_warnings(), seeded(SEED + 1):
        warnings.simplefilter("ignore")  # PyTorch warns about a scheduler stepped before the optimizer
        model = reference_model(config).eval()  # as after an evaluation: the step must call train()
        optimizer, scheduler = make_optimizer(
            model, lr=LEARNING_RATE, weight_decay=0.01, warmup_steps=WARMUP_STEPS, total_steps=STEPS
        )
        for batch in batches[:_CHECK_STEPS]:
            losses.append(loss_number(step_fn(model, dict(batch), optimizer, scheduler, MAX_GRAD_NORM)))
    return losses, {k: v.detach().clone() for k, v in model.state_dict().items()}


@functools.cache
def _variant_steps(variant: str) -> tuple[list[float], dict]:
    """:func:`_steps_of` the package's step (``variant=""``) or one of the typical mistakes
    (``pretraining.STEP_MISTAKES``), computed once."""
    if variant == "":
        return _steps_of(_package_step)
    return _steps_of(functools.partial(reference_training_step, variant=variant))


def _loop_step_steps(fn: Callable) -> tuple[bool, str]:
    mine = _steps_of(fn)
    reference = _variant_steps("")
    problem = step_problem(mine, reference, _variant_steps)
    if problem is not None:
        return False, problem
    return True, msg(
        "after each of {n} steps the same loss ({losses}) and the same weights as the package's "
        "train_step: train mode, forward, zero_grad, backward, clip, optimizer.step, scheduler.step.",
        n=_CHECK_STEPS,
        losses=", ".join(f"{x:.3f}" for x in reference[0]),
    )


@expects_function("ex.loop_step.check(training_step)")
def check_loop_step(fn: Callable) -> tuple[bool, str]:
    """``fn(model, batch, optimizer, scheduler, max_grad_norm) -> loss``: three steps equal to the package's
    ``train_step`` (losses and weights), starting from a model in eval mode."""
    return run_checks(lambda: _loop_step_steps(fn))


loop_step = Exercise(
    "loop_step",
    translatable(
        "Write `training_step(model, batch, optimizer, scheduler, max_grad_norm)` (or paste notebook 06's): "
        "train mode, forward (loss = MLM + NSP), zero_grad, backward, gradient clipping, AdamW step, schedule "
        "step; return the batch's loss as a number."
    ),
    check_loop_step,
    hints=[
        translatable(
            "The model computes L = L_MLM + L_NSP itself when the batch has labels: `out = model(**batch)`, "
            "then `out.loss`."
        ),
        translatable(
            "Order: `model.train()`, forward, `optimizer.zero_grad()`, `out.loss.backward()`, "
            "`torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)`, `optimizer.step()`, "
            "`scheduler.step()`."
        ),
    ],
    solution_code="""
def training_step(model, batch, optimizer, scheduler, max_grad_norm):
    model.train()                                         # dropout on (an evaluation may have turned it off)
    out = model(**batch)                                  # out.loss = L_MLM + L_NSP
    optimizer.zero_grad()                                 # forget the previous step's gradients
    out.loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)   # global norm <= max_grad_norm
    optimizer.step()                                      # AdamW update
    scheduler.step()                                      # the next step's learning rate
    return out.loss.item()

ex.loop_step.check(training_step)
""",
    points=2,
    answers=(
        "bertedu.training.pretrain.train_step",
        "bertedu.training.optim.optimizer_step",
    ),
)


# ----------------------------------------------------------------------------------------------------------
# 3. Thirty steps through your parts, next to the package's run


@functools.lru_cache(maxsize=1)
def token_documents() -> tuple[list[list[int]], ...]:
    """The course corpus as documents of sentences of token ids (the package's reader and tokenizer)."""
    _, tokenizer, _ = capstone_setup()
    documents = read_corpus(data_path("simple_sentences.txt"))
    return tuple(
        [tokenizer.convert_tokens_to_ids(tokenizer.tokenize(sentence)) for sentence in doc]
        for doc in documents
    )


@functools.lru_cache(maxsize=1)
def package_losses() -> tuple[float, ...]:
    """The package's run of ``capstone.side_by_side`` (bertedu's model, batches, step and schedule), whose
    :data:`STEPS` losses your run is compared with."""
    config, _, batches = capstone_setup()
    with cpu_threads(1):
        return tuple(train_steps(reference_model(config), batches, reporting_step))


@dataclass
class YourRun:
    """Losses of the package's run and of the run through your parts (``yours`` is empty while a part is a
    stub); the two use different batches and random streams, so they are compared with margins."""

    bertedu: list[float]
    yours: list[float]
    note: str = ""

    @staticmethod
    def _last(losses: list[float]) -> float:
        return sum(losses[-5:]) / len(losses[-5:])

    @property
    def bertedu_last(self) -> float:
        """Mean of the package's last five losses."""
        return self._last(self.bertedu)

    @property
    def yours_last(self) -> float:
        """Mean of your last five losses (NaN while not attempted)."""
        return self._last(self.yours) if self.yours else math.nan

    def table(self):
        """A pandas DataFrame: step, bertedu, yours."""
        import pandas as pd

        yours = self.yours if self.yours else [math.nan] * len(self.bertedu)
        return pd.DataFrame(
            {"step": range(1, len(self.bertedu) + 1), "bertedu": self.bertedu, "yours": yours}
        ).set_index("step")

    def plot(self, ax=None):
        """Both loss curves on one axis and the margin around the package's last five steps. Returns the Axes."""
        import matplotlib.pyplot as plt

        use_cjk_fallback()
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.2), layout="constrained")
            plt.close(ax.figure)
        steps = range(1, len(self.bertedu) + 1)
        ax.plot(steps, self.bertedu, lw=2, alpha=0.7, label=msg("bertedu's pipeline, step and schedule"))
        if self.yours:
            ax.plot(steps, self.yours, "k--", lw=1.2, label=msg("your parts"))
        last = self.bertedu_last
        ax.axhspan(last - LAST_MARGIN, last + LAST_MARGIN, color="0.85", zorder=0, label=msg("the margin"))
        ax.set(
            xlabel=msg("step"), ylabel=msg("loss (MLM + NSP)"), title=self.note or msg("different batches")
        )
        ax.legend()
        return ax


def loop_through_your_parts(
    model_cls, sample_nsp_pair, collate_pairs, mask_tokens, training_step, lr_lambda, steps: int = STEPS
) -> list[float]:
    """The losses of ``steps`` steps through your parts. The package reads and tokenizes the corpus, gives the
    initial weights and AdamW, and calls your parts in this order."""
    config, tokenizer, _ = capstone_setup()
    documents = [list(doc) for doc in token_documents()]
    rng, generator = random.Random(LOOP_SEED), torch.Generator().manual_seed(LOOP_SEED)
    with cpu_threads(1), seeded(LOOP_SEED + 1):
        model = build(model_cls, config, example="ex.train_your_parts(MyBertForPreTraining, ...)")
        load_weights(model, reference_model(config))  # bertedu's initial weights, by name
        # AdamW with BERT's settings (the package's); its scheduler is replaced by one with your multiplier
        optimizer, _ = make_optimizer(
            model, lr=LEARNING_RATE, weight_decay=0.01, warmup_steps=WARMUP_STEPS, total_steps=steps
        )
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]  # the peak: your LambdaLR multiplies it
        scheduler = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda step: lr_lambda(step, WARMUP_STEPS, steps)
        )
        losses = []
        for _ in range(steps):
            pairs = [sample_nsp_pair(documents, rng) for _ in range(BATCH_SIZE)]
            batch = dict(collate_pairs(pairs, tokenizer, MAX_LENGTH))
            batch["input_ids"], batch["labels"] = mask_tokens(batch["input_ids"], tokenizer, generator)
            loss = as_number(training_step(model, batch, optimizer, scheduler, MAX_GRAD_NORM))
            if loss is None:
                raise ModuleProblem(
                    msg("training_step must return the batch's loss as a number (loss.item()).")
                )
            losses.append(loss)
    return losses


def train_your_parts(
    model_cls, sample_nsp_pair, collate_pairs, mask_tokens, training_step, lr_lambda, steps: int = STEPS
) -> YourRun:
    """Train ``model_cls(config)`` from bertedu's initial weights for ``steps`` steps through your parts alone:
    each step draws 16 NSP pairs with ``sample_nsp_pair(documents, rng)`` (documents of token-id sentences),
    batches them with ``collate_pairs(pairs, tokenizer, 64)``, masks them with ``mask_tokens(input_ids,
    tokenizer, generator)`` and trains with ``training_step(...)`` under ``LambdaLR(lr_lambda)``. The package's
    parts: the corpus reader, the tokenizer, AdamW's settings, the initial weights and this wiring. Returns both
    curves (yours empty while a part is still a stub)."""
    if steps != STEPS:
        raise ValueError(f"steps must be {STEPS}, the length of the package's run it is compared with.")
    bertedu = list(package_losses())
    try:
        yours = loop_through_your_parts(
            model_cls, sample_nsp_pair, collate_pairs, mask_tokens, training_step, lr_lambda, steps
        )
    except NotImplementedError:
        return YourRun(bertedu, [], msg("your parts: not attempted yet"))
    return YourRun(bertedu, yours)


def _your_loop_steps(*parts) -> tuple[bool, str]:
    run = train_your_parts(*parts)
    if not run.yours:
        raise NotImplementedError
    chance = math.log(2 * capstone_setup()[0].vocab_size)
    first, last, theirs = run.yours[0], run.yours_last, run.bertedu_last
    if not all(math.isfinite(x) for x in run.yours):
        return False, msg("your loss became NaN or infinite: check the schedule (negative?) and the step.")
    if abs(first - chance) > FIRST_LOSS_MARGIN:
        return False, msg(
            "your first loss is {first:.2f}, but an untrained BERT scores about ln 2V = {chance:.2f}: the "
            "labels or the loss are off (labels -100 where nothing is predicted? NSP labels 0/1?).",
            first=first,
            chance=chance,
        )
    if first - last < MIN_DROP:
        return False, msg(
            "your loss fell only from {first:.2f} to {last:.2f} (mean of the last five steps); bertedu's falls to "
            "{theirs:.2f}. Something stops the learning: the schedule (is the rate ever above 0?) or the step.",
            first=first,
            last=last,
            theirs=theirs,
        )
    if abs(last - theirs) > LAST_MARGIN:
        easier = last < theirs
        return False, msg(
            "your last five losses average {last:.2f}, bertedu's {theirs:.2f}: more than {margin:g} apart. "
            "{why}",
            last=last,
            theirs=theirs,
            margin=LAST_MARGIN,
            why=(
                msg("Far below means an easier task: are the labels set at unmasked positions too?")
                if easier
                else msg("Far above means slower learning: compare each part with its checker again.")
            ),
        )
    return True, msg(
        "your parts alone take the loss from {first:.2f} to {last:.2f} (last five steps), bertedu's run to "
        "{theirs:.2f}: within {margin:g}, as two runs on different batches should be.",
        first=first,
        last=last,
        theirs=theirs,
        margin=LAST_MARGIN,
    )


def check_your_loop(model_cls, sample_nsp_pair, collate_pairs, mask_tokens, training_step, lr_lambda):
    """Thirty steps through your parts (:func:`train_your_parts`): the first loss near ln 2V, a drop of at
    least :data:`MIN_DROP`, and the last five steps within :data:`LAST_MARGIN` of the package's run."""
    parts = (model_cls, sample_nsp_pair, collate_pairs, mask_tokens, training_step, lr_lambda)
    if not all(callable(p) for p in parts):
        return False, msg(
            "pass your class and your five functions themselves: ex.your_loop.check(MyBertForPreTraining, "
            "sample_nsp_pair, collate_pairs, mask_tokens, training_step, lr_lambda)."
        )
    return run_checks(lambda: _your_loop_steps(*parts))


your_loop = Exercise(
    "your_loop",
    translatable(
        "Train your model for 30 steps with your NSP sampler, collate, masking, training step and schedule; its "
        "loss must start near ln 2V and end within 0.25 of the package's run."
    ),
    check_your_loop,
    hints=[
        translatable(
            "Each part has its own check above: run them first. This check only says whether the parts learn "
            "together."
        ),
    ],
    solution_code=(
        "ex.your_loop.check(MyBertForPreTraining, sample_nsp_pair, collate_pairs, mask_tokens, training_step, "
        "lr_lambda)   # passes once every part passes its own check"
    ),
    points=2,
)

__all__ = [
    "FIRST_LOSS_MARGIN",
    "LAST_MARGIN",
    "MIN_DROP",
    "YourRun",
    "check_loop_step",
    "check_schedule",
    "check_your_loop",
    "loop_step",
    "loop_through_your_parts",
    "package_losses",
    "schedule",
    "token_documents",
    "train_your_parts",
    "your_loop",
]


# ----------------------------------------------------------------------------------------------------------
# Section 8.7: is my loss right? (bertedu.training.diagnose on your model)


@dataclass
class NotDiagnosed:
    """What :func:`diagnose_your_model` returns while your model is still a stub."""

    note: str
    ok: bool = False
    names: tuple = ()

    def __str__(self) -> str:
        return self.note

    def _repr_markdown_(self) -> str:
        return self.note


def capstone_losses(model: torch.nn.Module) -> tuple[list[float], list[float]]:
    """``(mlm_losses, nsp_losses)`` of ``model`` trained by the course's loop for section 7's 30 steps (peak
    learning rate 1e-3, warmed up over the first fifth of the steps)."""
    _, _, batches = capstone_setup()
    return record_losses(model, batches, learning_rate=LEARNING_RATE, warmup_steps=len(batches) // 5)


def diagnose_your_model(model_cls, seeds=(1, 2, 3)):
    """Notebook 11, section 8.7: the loss-curve diagnostic of notebook 06 on ``model_cls(config)``. The band
    comes from bertedu's model trained from its own random weights with each of ``seeds``; your model starts from
    bertedu's initial weights (seed 0). Probed with the first batch and the model itself, so every one of the
    diagnostic's named bugs can show. Returns a :class:`~bertedu.training.diagnose.Diagnosis`, or a
    :class:`NotDiagnosed` note while your model is still a stub."""
    config, tokenizer, batches = capstone_setup()

    def reference(seed: int):
        torch.manual_seed(seed)  # the reference model's initial weights and dropout masks
        return capstone_losses(BertForPreTraining(config))

    # Four 30-step runs of a tiny model on one thread: beside a busy core two threads took 30 times as long.
    with cpu_threads(1):
        try:
            mine = model_cls(config)
            load_weights(mine, reference_model(config))
            torch.manual_seed(SEED)
            curves = capstone_losses(mine)
        except NotImplementedError:
            return NotDiagnosed(msg("your model: not attempted yet"))
        band = reference_band(reference, seeds=seeds)
        return diagnose(*curves, band, batch=batches[0], model=mine, tokenizer=tokenizer)
