"""Exercises for notebook 06 (mini-pretraining): the learning-rate schedule, and a buggy evaluation to fix.

In the notebook::

    from bertedu.teaching.exercises import pretraining as ex
    ex.lr_schedule.check(lr_at)            # a function step -> learning rate (peak 1e-3, warm-up 100, 1000 steps)
    ex.fix_eval_dropout.check(top1_word)   # a function (model, tokenizer, sentence) -> the top-1 word
    ex.training_step.check(training_step)  # write the function: one pretraining step, as pretrain() does it

The plain checkers (``check_lr_schedule``, ``check_fix_eval_dropout``, ``check_training_step``) return
``(passed, message)`` and are what the unit tests call. Every message is an English template translated when
shown (``bertedu.language``; the Chinese is in ``bertedu/language/zh_pretraining.py``). Introduced in notebook 06.
"""

from __future__ import annotations

import functools
import math
import random
import warnings
from collections.abc import Callable

import torch

from bertedu.core.config import BertConfig
from bertedu.core.model import BertForPreTraining
from bertedu.core.tokenizer import SPECIAL_TOKENS, BertTokenizer, train_tokenizer
from bertedu.language import msg, translatable, translate
from bertedu.teaching.exercises.core import Diagnosis, Exercise, as_number, expects_function
from bertedu.teaching.exercises.nn_checks import ModuleProblem, close, run_checks
from bertedu.training.pretrain import (
    PretrainingConfig,
    model_config,
    pretraining_batches,
    recipe_optimizer,
)
from bertedu.utils import cpu_threads

# ----------------------------------------------------------------------------------------------------------
# 1. The learning-rate schedule: linear warm-up, then linear decay to 0

PEAK_LR, WARMUP_STEPS, TOTAL_STEPS = 1e-3, 100, 1000
_PROBE_STEPS = [0, 1, 9, 49, 50, 98, 99, 100, 101, 250, 550, 700, 900, 990, 999]


def _reference(step: int, shifted: bool) -> float:
    """The schedule; ``shifted`` warms up with (step + 1) / W (bertedu), else step / W (Hugging Face)."""
    if step < WARMUP_STEPS:
        return PEAK_LR * ((step + 1) if shifted else step) / WARMUP_STEPS
    return PEAK_LR * max(0.0, (TOTAL_STEPS - step) / (TOTAL_STEPS - WARMUP_STEPS))


def _values(fn: Callable, steps: list[int]) -> list[float] | str:
    out = []
    for s in steps:
        value = fn(s)
        if isinstance(value, torch.Tensor) and value.numel() == 1:
            value = value.item()
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return msg(
                "lr_at({step}) returned {value!r}; return one number (the learning rate), e.g. 0.0005.",
                step=s,
                value=value,
            )
        if not math.isfinite(value):
            return msg(
                "lr_at({step}) = {value}: the learning rate must be a finite number.", step=s, value=value
            )
        out.append(float(value))
    return out


@expects_function("ex.lr_schedule.check(lr_at)")
def check_lr_schedule(fn: Callable) -> tuple[bool, str]:
    """``fn(step) -> lr`` must rise linearly to 1e-3 over the first 100 steps, then fall linearly to 0 at
    step 1000. Warming up from ``step / 100`` or ``(step + 1) / 100`` are both accepted."""
    got = _values(fn, _PROBE_STEPS)
    if isinstance(got, str):
        return False, got
    close = lambda a, b: abs(a - b) <= 1e-9 + 1e-6 * abs(b)
    for shifted in (True, False):
        if all(close(g, _reference(s, shifted)) for g, s in zip(got, _PROBE_STEPS)):
            start = "(step + 1) / 100" if shifted else "step / 100"
            return True, msg(
                "lr rises as 1e-3 · {start} to the peak at step 100, then falls on a straight line "
                "to 0 at step 1000 (e.g. 5e-4 at step 550). That is bertedu.training.optim.linear_schedule "
                "times the peak, and the paper's 'warm-up over the first 10,000 steps, and linear "
                "decay'.",
                start=start,
            )
    at = dict(zip(_PROBE_STEPS, got))
    if close(at[0], PEAK_LR):
        return False, msg(
            "at step 0 the learning rate is already the peak: there is no warm-up. Start near 0 and "
            "grow linearly over the first 100 steps."
        )
    if close(at[49], PEAK_LR * 49 / TOTAL_STEPS) or close(at[49], PEAK_LR * 50 / TOTAL_STEPS):
        return False, msg(
            "during warm-up you divide by the total number of steps (1000); divide by the warm-up "
            "steps (100), so the peak is reached at step 100."
        )
    if close(at[700], PEAK_LR) or close(at[999], PEAK_LR):
        return False, msg(
            "after the warm-up the learning rate stays at the peak: it must decay linearly to 0 at step 1000."
        )
    if close(at[550], PEAK_LR * (TOTAL_STEPS - 550) / TOTAL_STEPS):
        return False, msg(
            "you decay over all 1000 steps, so the rate jumps down at step 100. Decay over the "
            "remaining 900 steps: factor (1000 - step) / (1000 - 100)."
        )
    slope_early, slope_late = (at[250] - at[550]) / 300, (at[550] - at[900]) / 350
    if close(at[100], PEAK_LR) and abs(slope_early - slope_late) > 0.05 * max(
        abs(slope_early), abs(slope_late)
    ):
        return False, msg(
            "after the warm-up your rate falls along a curve, not a straight line (an exponential or "
            "cosine decay?). BERT decays linearly: the same drop every step, reaching 0 at step 1000."
        )
    for s in (50, 550, 900):
        if not close(at[s], _reference(s, True)) and not close(at[s], _reference(s, False)):
            return False, msg(
                "lr_at({step}) = {got:.6g}, expected {expected:.6g} (or {shifted:.6g} if your warm-up counts "
                "from step + 1). Peak 1e-3 at step 100; linear up before, linear down to 0 at step 1000 after.",
                step=s,
                got=at[s],
                expected=_reference(s, False),
                shifted=_reference(s, True),
            )
    return False, msg("close, but not everywhere: check the ends (step 0, 99, 100 and 999).")


lr_schedule = Exercise(
    "lr_schedule",
    translatable(
        "Write `lr_at(step)`: the learning rate at optimizer step `step` (0, 1, 2, ...) for a run of 1000 steps "
        "with peak 1e-3, a linear warm-up over the first 100 steps, then a linear decay to 0 at step 1000."
    ),
    check_lr_schedule,
    hints=[
        translatable(
            "Two pieces: `if step < 100:` a straight line from (about) 0 up to 1e-3, `else:` a straight line "
            "from 1e-3 at step 100 down to 0 at step 1000."
        ),
        translatable(
            "After the warm-up the factor is (1000 - step) / (1000 - 100): 1 at step 100, 0 at step 1000."
        ),
    ],
    solution_code="""
def lr_at(step, peak=1e-3, warmup=100, total=1000):
    if step < warmup:
        return peak * (step + 1) / warmup                          # linear warm-up
    return peak * max(0.0, (total - step) / (total - warmup))       # linear decay to 0
""",
    points=1,
    answers=("bertedu.training.optim.linear_schedule",),
)


# ----------------------------------------------------------------------------------------------------------
# 2. Find the bug: evaluation with dropout left on


def exercise_model():
    """A small random BERT with strong dropout and a tokenizer, for :func:`check_fix_eval_dropout`."""

    words = "the a cat dog man woman eats drinks reads sees milk meat book paper water tree park".split()
    tokenizer = BertTokenizer([*SPECIAL_TOKENS, *words])
    generator_state = torch.get_rng_state()
    torch.manual_seed(6)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=32,
        hidden_dropout_prob=0.5,
        attention_probs_dropout_prob=0.5,
        initializer_range=0.5,
    )
    model = BertForPreTraining(config)
    torch.set_rng_state(generator_state)  # the checker must not move the notebook's random state
    return model, tokenizer


_SENTENCES = [
    "the man eats the [MASK]",
    "the cat [MASK] the milk",
    "the [MASK] reads the book",
    "a dog sees the [MASK]",
    "the woman drinks [MASK]",
]


def _reference_top1(model, tokenizer, sentence: str) -> str:
    was_training = model.training
    model.eval()
    with torch.no_grad():
        enc = tokenizer(sentence, return_tensors="pt")
        logits = model(**enc).prediction_logits[0]  # (T, V)
        position = enc["input_ids"][0].tolist().index(tokenizer.mask_token_id)
        word = tokenizer.convert_ids_to_tokens(int(logits[position].argmax()))
    model.train(was_training)
    return word


@expects_function("ex.fix_eval_dropout.check(top1_word)")
def check_fix_eval_dropout(fn: Callable) -> tuple[bool, str]:
    """``fn(model, tokenizer, sentence) -> word`` must give the eval-mode (dropout off) top-1 word, the same
    on every call, even when the model it receives is in training mode."""
    model, tokenizer = exercise_model()
    expected = [_reference_top1(model, tokenizer, s) for s in _SENTENCES]
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        for _ in range(3):
            model.train()  # as it is right after a training loop
            got = [fn(model, tokenizer, s) for s in _SENTENCES]
            if not all(isinstance(w, str) for w in got):
                return False, msg(
                    "return the predicted word as a string, e.g. 'meat' (use tokenizer.convert_ids_to_tokens)."
                )
            if got != expected:
                return False, Diagnosis(
                    msg(
                        "your answers differ from the model's real prediction, and they change from call to call."
                    ),
                    msg(
                        "Dropout is still on (the model is in training mode), so every forward pass drops a "
                        "random 50 % of the activations here. Call model.eval() before predicting (and use "
                        "torch.no_grad() to skip the gradient bookkeeping)."
                    ),
                )
    return True, msg(
        "same answer on every call, equal to the model's prediction with dropout off: model.eval() "
        "switches dropout off (and torch.no_grad() skips building the graph). Switch back with "
        "model.train() before training again."
    )


fix_eval_dropout = Exercise(
    "fix_eval_dropout",
    translatable(
        "`top1_word(model, tokenizer, sentence)` should return the model's best word for the [MASK], but called "
        "twice on the same sentence it can answer differently. Find the bug and fix the function."
    ),
    check_fix_eval_dropout,
    hints=[
        translatable(
            "What does nn.Dropout do in training mode? Is the model in training mode when the loop has just "
            "finished?"
        ),
        translatable(
            "Call model.eval() before the forward pass (and wrap it in torch.no_grad()); dropout is then the "
            "identity."
        ),
    ],
    solution_code="""
def top1_word(model, tokenizer, sentence):
    model.eval()                                   # dropout off: the prediction is deterministic
    with torch.no_grad():                          # no graph: faster, less memory
        enc = tokenizer(sentence, return_tensors="pt")
        logits = model(**enc).prediction_logits[0]                   # (T, V)
        position = enc["input_ids"][0].tolist().index(tokenizer.mask_token_id)
        return tokenizer.convert_ids_to_tokens(int(logits[position].argmax()))
""",
    points=1,
)


# ----------------------------------------------------------------------------------------------------------
# 3. Write the function: one pretraining step

#: The checker's run: the tiny preset, 6 steps of 8 pairs, warm-up 2, clipping at 1.0 (the gradient norm of
#: this model at the start is about 6, so clipping really acts).
STEP_CONFIG = PretrainingConfig(
    corpus="(the checker's corpus)",
    model_size="tiny",
    steps=6,
    batch_size=8,
    warmup_steps=2,
    max_length=32,
    bucket_batches=1,
    log_every=1,
    eval_every=0,
)


def step_documents() -> list[list[str]]:
    """The checker's corpus: 24 short documents of 3 to 5 sentences from a tiny grammar."""
    rng = random.Random(0)
    nouns, verbs = "cat dog man woman child bird fish".split(), "eats sees likes reads finds".split()
    things = "milk meat book ball paper water".split()
    return [
        [f"the {rng.choice(nouns)} {rng.choice(verbs)} the {rng.choice(things)} ." for _ in range(3 + d % 3)]
        for d in range(24)
    ]


def reference_training_step(model, batch, optimizer, scheduler, max_grad_norm, *, variant: str = "") -> float:
    """The package's step (as ``bertedu.training.pretrain.pretrain`` runs it), or one of the typical mistakes:
    ``variant`` is a key of :data:`STEP_MISTAKES` (``"no train mode"``, ``"no zero_grad"``, ...)."""
    if variant != "no train mode":
        model.train()
    out = model(**batch)  # L = L_MLM + L_NSP
    if variant != "no zero_grad" and variant != "zero_grad after backward":
        optimizer.zero_grad(set_to_none=True)
    out.loss.backward()
    if variant == "zero_grad after backward":
        optimizer.zero_grad(set_to_none=True)
    if variant != "no clipping":
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    if variant == "scheduler first":
        scheduler.step()
    optimizer.step()
    if variant not in ("scheduler first", "no scheduler"):
        scheduler.step()
    return out.loss.item()


def run_training_steps(
    step_fn: Callable, config: PretrainingConfig = STEP_CONFIG
) -> tuple[list[float], dict]:
    """Train a fresh tiny BERT for ``config.steps`` steps with ``step_fn(model, batch, optimizer, scheduler,
    max_grad_norm)``, exactly as ``pretrain(config)`` sets it up (same seed, batches, optimizer and schedule).
    Returns the losses it reported and the final state dict. The notebook's random state is left alone."""
    documents = step_documents()
    tokenizer = train_tokenizer(documents, config.vocab_size)
    batches = pretraining_batches(config, documents, tokenizer)
    losses = []
    with torch.random.fork_rng(devices=[]), warnings.catch_warnings(), cpu_threads(1):
        warnings.simplefilter("ignore")  # PyTorch warns about a scheduler stepped before the optimizer
        torch.manual_seed(config.seed)  # the initial weights, then the dropout masks
        model = BertForPreTraining(model_config(config, tokenizer.vocab_size))
        optimizer, scheduler = recipe_optimizer(model, config)
        for _ in range(config.steps):
            _, batch = next(batches)
            losses.append(loss_number(step_fn(model, batch, optimizer, scheduler, config.max_grad_norm)))
    return losses, {k: v.detach().clone() for k, v in model.state_dict().items()}


def loss_number(loss) -> float:
    """What a student's ``training_step`` returned, as a number; a :class:`ModuleProblem` if it is none."""
    value = as_number(loss)
    if value is None:
        raise ModuleProblem(
            msg(
                "training_step returned {type}; return the batch's loss as a number (loss.item()).",
                type=type(loss).__name__,
            )
        )
    return value


def same_run(a: tuple[list[float], dict], b: tuple[list[float], dict]) -> bool:
    """Two runs ``(losses, final state dict)`` agree: the same losses and the same weights."""
    return all(abs(x - y) <= 1e-4 * max(1.0, abs(y)) for x, y in zip(a[0], b[0])) and all(
        close(a[1][k], b[1][k], atol=1e-5) for k in b[1]
    )


#: {variant of :func:`reference_training_step`: what to tell the student} (translatable constants, shown with
#: translate()). The checks of notebooks 06 and 11 name the same mistakes.
STEP_MISTAKES = {
    "no train mode": translatable(
        "the model stays in eval mode: dropout is off while it trains. The checker hands the model over "
        "in eval mode (as it is after an evaluation); start the step with model.train()."
    ),
    "no zero_grad": translatable(
        "the gradients are never reset: call optimizer.zero_grad() before loss.backward(), or every "
        "step adds its gradients to all the earlier ones."
    ),
    "zero_grad after backward": translatable(
        "the gradients are reset between backward() and optimizer.step(), so the "
        "optimizer steps with zero gradients: zero_grad() comes before backward()."
    ),
    "scheduler first": translatable(
        "scheduler.step() runs before optimizer.step(): every update uses the next step's "
        "learning rate (PyTorch warns about this order). Call optimizer.step(), then scheduler.step()."
    ),
    "no clipping": translatable(
        "the gradients are not clipped (their norm is above 1 here): call "
        "torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm) between loss.backward() and "
        "optimizer.step() (clipping after the step does nothing)."
    ),
    "no scheduler": translatable(
        "the learning rate never moves: call scheduler.step() after optimizer.step(), once per step."
    ),
}


def step_problem(
    mine: tuple[list[float], dict],
    reference: tuple[list[float], dict],
    variant_run: Callable[[str], tuple[list[float], dict]],
) -> str | None:
    """What is wrong with a student's run of training steps next to the reference run (``None``: nothing);
    ``variant_run(variant)`` is the same run through a :data:`STEP_MISTAKES` variant of the reference step.
    Notebook 06's and notebook 11's checks both end here."""
    if same_run(mine, reference):
        return None
    if all(close(mine[1][k], reference[1][k], atol=1e-5) for k in reference[1]):
        return msg("the weights are right, but return the batch's loss before the update (loss.item()).")
    for variant, message in STEP_MISTAKES.items():
        if same_run(mine, variant_run(variant)):
            return translate(message)
    first = next((i for i, (x, y) in enumerate(zip(mine[0], reference[0])) if abs(x - y) > 1e-4), None)
    where = (
        msg("the loss of step {step} differs", step=first + 1)
        if first is not None
        else msg("the weights after the steps differ")
    )
    return msg(
        "{where} from the package's train_step. One step is: model.train(); out = model(**batch); "
        "optimizer.zero_grad(); out.loss.backward(); clip_grad_norm_(model.parameters(), max_grad_norm); "
        "optimizer.step(); scheduler.step(); return out.loss.item().",
        where=where,
    )


def _training_step_steps(fn: Callable) -> tuple[bool, str]:
    mine = run_training_steps(fn)
    reference = run_training_steps(reference_training_step)
    problem = step_problem(
        mine,
        reference,
        lambda variant: run_training_steps(functools.partial(reference_training_step, variant=variant)),
    )
    if problem is not None:
        return False, problem
    return True, msg(
        "step for step the same losses ({steps}) and the same final weights as the package's loop: "
        "forward, zero_grad, backward, clip, optimizer.step, scheduler.step.",
        steps=", ".join(f"{x:.3f}" for x in reference[0]),
    )


@expects_function("ex.training_step.check(training_step)")
def check_training_step(fn: Callable) -> tuple[bool, str]:
    """``fn(model, batch, optimizer, scheduler, max_grad_norm) -> loss`` must do one step exactly as
    ``bertedu.training.pretrain.pretrain`` does; compared step for step with it on a tiny BERT for 6 steps."""
    return run_checks(lambda: _training_step_steps(fn))


training_step = Exercise(
    "training_step",
    translatable(
        "Write `training_step(model, batch, optimizer, scheduler, max_grad_norm)`: one step of pretraining "
        "(forward on the batch, loss = MLM + NSP, backward, gradient clipping, AdamW step, learning-rate "
        "schedule). Return the batch's loss as a number."
    ),
    check_training_step,
    hints=[
        translatable(
            "The model computes the loss itself when the batch has labels: `out = model(**batch)`; `out.loss`."
        ),
        translatable(
            "Order: `optimizer.zero_grad()`, `out.loss.backward()`, "
            "`torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)`, `optimizer.step()`, "
            "`scheduler.step()`."
        ),
    ],
    solution_code="""
def training_step(model, batch, optimizer, scheduler, max_grad_norm):
    model.train()                                         # dropout on
    out = model(**batch)                                  # out.loss = L_MLM + L_NSP
    optimizer.zero_grad()                                 # forget the previous step's gradients
    out.loss.backward()                                   # gradients of this batch
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)   # global norm <= max_grad_norm
    optimizer.step()                                      # AdamW update
    scheduler.step()                                      # next learning rate (warm-up, then decay)
    return out.loss.item()

ex.training_step.check(training_step)
""",
    points=3,
    answers=(
        "bertedu.training.pretrain.train_step",
        "bertedu.training.optim.optimizer_step",
    ),
)
