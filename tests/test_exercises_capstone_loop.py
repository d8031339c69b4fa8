"""Notebook 11's own loop and real weights: the schedule, the training step, the run through the student's parts,
and all-MiniLM-L6-v2 through the student's encoder (a correct answer passes; each named mistake is named)."""

from __future__ import annotations

import math
import random
from pathlib import Path

import nbformat
import pytest
import torch
from torch import nn

from bertedu.core.model import BertForPreTraining
from bertedu.teaching.exercises import capstone, capstone_loop, capstone_minilm, losses, masking, pretraining

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "11_capstone.ipynb"


# These tests train on one thread (quick, and robust beside other work): conftest.py's one_torch_thread.
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def verdict(exercise, *answer):
    result = exercise.check(*answer)
    return result.passed, result.message


def solution(exercise, name: str):
    """The function ``name`` defined by ``exercise``'s reference solution (its check call left out)."""
    namespace = {"torch": torch, "random": random, "math": math}
    exec(exercise.solution_code.split("\nex.")[0], namespace)
    return namespace[name]


# ------------------------------------------------------------------------------------------------ the schedule


def schedule(warmup="shifted", decay="remaining", floor=True, scale=1.0):
    def lr_lambda(step, warmup_steps, total_steps):
        if warmup != "none" and step < warmup_steps:
            divisor = total_steps if warmup == "over total" else warmup_steps
            return scale * ((step + 1) if warmup != "step" else step) / divisor
        if decay == "none":
            return scale * 1.0
        if decay == "cosine":
            progress = (step - warmup_steps) / (total_steps - warmup_steps)
            return scale * 0.5 * (1 + math.cos(math.pi * progress))
        value = {
            "remaining": (total_steps - step) / (total_steps - warmup_steps),
            "over total": (total_steps - step) / total_steps,
            "zero too early": 1 - step / (total_steps - warmup_steps),
        }[decay]
        return scale * (max(0.0, value) if floor else value)

    return lr_lambda


def test_schedule_correct_versions_pass():
    for answer in (schedule(), schedule(warmup="step"), solution(capstone.schedule, "lr_lambda")):
        passed, message = verdict(capstone.schedule, answer)
        assert passed and "linear_schedule" in message, message


@pytest.mark.parametrize(
    "bug, words",
    [
        (dict(warmup="none"), "no warm-up"),
        (dict(warmup="over total"), "divide by total_steps"),
        (dict(decay="none"), "stays at 1"),
        (dict(decay="over total"), "drops at once"),
        (dict(decay="zero too early"), "reaches 0 at step total - warmup"),
        (dict(decay="zero too early", floor=False), "reaches 0 at step total - warmup"),
        (dict(decay="cosine"), "curve, not a straight line"),
        (dict(scale=1e-3), "not the multiplier"),
    ],
)
def test_schedule_mistakes_are_named(bug, words):
    passed, message = verdict(capstone.schedule, schedule(**bug))
    assert not passed and words in message, message


def test_schedule_below_zero_is_named():
    right = schedule()
    passed, message = verdict(capstone.schedule, lambda step, w, t: right(step, w, t) - 0.5)
    assert not passed and "below 0" in message, message


def test_schedule_answers_that_are_not_numbers():
    passed, message = verdict(capstone.schedule, lambda step, w, t: "fast")
    assert not passed and "one finite number" in message, message
    passed, message = verdict(capstone.schedule, 0.5)
    assert not passed and "pass your function itself" in message, message


# ------------------------------------------------------------------------------------------ the training step


def training_step(train=True, zero_grad="before", clip=True, order="optimizer first", scheduler=True):
    def step(model, batch, optimizer, scheduler_, max_grad_norm):
        if train:
            model.train()
        out = model(**batch)
        if zero_grad == "before":
            optimizer.zero_grad()
        out.loss.backward()
        if zero_grad == "after":
            optimizer.zero_grad()
        if clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        if scheduler and order == "scheduler first":
            scheduler_.step()
        optimizer.step()
        if scheduler and order == "optimizer first":
            scheduler_.step()
        return out.loss.item()

    return step


def test_training_step_correct_versions_pass():
    for answer in (training_step(), solution(capstone.loop_step, "training_step")):
        passed, message = verdict(capstone.loop_step, answer)
        assert passed and "train_step" in message, message
    # notebook 06's reference step passes too (a student may paste it)
    passed, message = verdict(capstone.loop_step, solution(pretraining.training_step, "training_step"))
    assert passed, message


@pytest.mark.parametrize(
    "bug, words",
    [
        (dict(train=False), "model.train()"),
        (dict(zero_grad="never"), "never reset"),
        (dict(zero_grad="after"), "zero_grad() comes before backward()"),
        (dict(clip=False), "not clipped"),
        (dict(order="scheduler first"), "scheduler.step() runs before optimizer.step()"),
        (dict(scheduler=False), "never moves"),
    ],
)
def test_training_step_mistakes_are_named(bug, words):
    passed, message = verdict(capstone.loop_step, training_step(**bug))
    assert not passed and words in message, message


def test_training_step_must_return_the_loss_before_the_update():
    right = training_step()

    def loss_after_the_update(model, batch, *rest):
        right(model, batch, *rest)
        with torch.no_grad():
            return model.eval()(**batch).loss.item()  # eval: no dropout draw, so the weights stay right

    passed, message = verdict(capstone.loop_step, loss_after_the_update)
    assert not passed and "before the update" in message, message

    def returns_a_string(*args):
        right(*args)
        return "done"

    passed, message = verdict(capstone.loop_step, returns_a_string)
    assert not passed and "loss.item()" in message, message


def test_the_checker_reference_is_the_package_train_step():
    """The reference of the check is bertedu.training.pretrain.train_step itself, and the mistakes differ from it."""
    reference = capstone_loop._variant_steps("")
    assert reference[0][0] == pytest.approx(math.log(2 * capstone.capstone_setup()[0].vocab_size), abs=0.1)
    for variant in pretraining.STEP_MISTAKES:  # one list of mistakes for notebooks 06 and 11
        assert not pretraining.same_run(capstone_loop._variant_steps(variant), reference), variant


# ----------------------------------------------------------------------------- the NSP sampler (notebook 04's)


def test_the_capstone_reuses_the_checkers_of_notebooks_03_and_04():
    assert capstone.nsp_sampler is losses.nsp_sampler and capstone.collate_batch is losses.collate_batch
    assert capstone.masking_function is masking.masking_function


def sampler(is_next=0.5, same_document=False):
    def sample_nsp_pair(documents, rng):
        d = rng.randrange(len(documents))
        i = rng.randrange(len(documents[d]) - 1)
        if rng.random() < is_next:
            return documents[d][i], documents[d][i + 1], 0
        other = d if same_document else (lambda o: o + (o >= d))(rng.randrange(len(documents) - 1))
        return documents[d][i], rng.choice(documents[other]), 1

    return sample_nsp_pair


@pytest.mark.parametrize(
    "bug, words",
    [(dict(is_next=1.0), "100% of your pairs are IsNext"), (dict(same_document=True), "own document")],
)
def test_sampler_mistakes_are_named(bug, words):
    assert verdict(capstone.nsp_sampler, sampler())[0]
    passed, message = verdict(capstone.nsp_sampler, sampler(**bug))
    assert not passed and words in message, message


# ------------------------------------------------------------------------------------- the run through the parts


def parts(**changes):
    """The reference solutions of the five functions (bertedu's BertForPreTraining as the model: the same names)."""
    found = dict(
        model_cls=BertForPreTraining,
        sample_nsp_pair=solution(losses.nsp_sampler, "sample_nsp_pair"),
        collate_pairs=solution(losses.collate_batch, "collate_pairs"),
        mask_tokens=solution(masking.masking_function, "mask_tokens"),
        training_step=solution(capstone.loop_step, "training_step"),
        lr_lambda=solution(capstone.schedule, "lr_lambda"),
    )
    found.update(changes)
    return list(found.values())


@pytest.mark.slow  # 30 training steps
def test_your_loop_with_correct_parts_passes_within_the_margins():
    run = capstone.train_your_parts(*parts())
    assert len(run.yours) == len(run.bertedu) == capstone_loop.STEPS
    assert run.yours != run.bertedu  # other batches, other random streams: not the same curve
    assert abs(run.yours_last - run.bertedu_last) < capstone_loop.LAST_MARGIN
    passed, message = verdict(capstone.your_loop, *parts())
    assert passed and "within 0.25" in message, message


@pytest.mark.slow  # 30 training steps
def test_your_loop_names_a_run_that_does_not_learn():
    passed, message = verdict(capstone.your_loop, *parts(lr_lambda=lambda step, warmup, total: 0.0))
    assert not passed and "Something stops the learning" in message, message


@pytest.mark.slow  # 30 training steps
def test_your_loop_names_an_easier_task():
    mask_tokens = solution(masking.masking_function, "mask_tokens")

    def labels_everywhere(input_ids, tokenizer, generator):
        masked, _ = mask_tokens(input_ids, tokenizer, generator)
        return masked, input_ids.clone()  # every position (and [PAD]) a target

    passed, message = verdict(capstone.your_loop, *parts(mask_tokens=labels_everywhere))
    assert not passed and ("easier task" in message or "first loss" in message), message


@pytest.mark.slow  # 30 training steps each
def test_your_loop_names_slow_learning_a_wrong_first_loss_and_a_divergence():
    lr_lambda = solution(capstone.schedule, "lr_lambda")
    half = lambda step, warmup, total: 0.5 * lr_lambda(step, warmup, total)  # noqa: E731
    passed, message = verdict(capstone.your_loop, *parts(lr_lambda=half))
    assert not passed and "Far above means slower learning" in message, message

    class DoubledLoss(BertForPreTraining):
        def forward(self, *args, **kwargs):
            out = super().forward(*args, **kwargs)
            out.loss = 2 * out.loss
            return out

    passed, message = verdict(capstone.your_loop, *parts(model_cls=DoubledLoss))
    assert not passed and "your first loss is 13." in message, message
    passed, message = verdict(capstone.your_loop, *parts(lr_lambda=lambda step, warmup, total: 1e9))
    assert not passed and "NaN or infinite" in message, message


def test_your_loop_stubs_are_not_attempted():
    def stub(*args):
        raise NotImplementedError

    run = capstone.train_your_parts(*parts(collate_pairs=stub))
    assert run.yours == [] and math.isnan(run.yours_last) and len(run.bertedu) == capstone_loop.STEPS
    result = capstone.your_loop.check(*parts(training_step=stub))
    assert not result.passed and not result.attempted
    passed, message = verdict(capstone.your_loop, *parts(lr_lambda=0.5))
    assert not passed and "functions themselves" in message, message


# ------------------------------------------------------------------------------ all-MiniLM-L6-v2, your encoder


def notebook_classes() -> dict:
    """The notebook's reference modules (Embeddings, MultiHeadSelfAttention, EncoderLayer, MyBertModel)."""
    namespace: dict = {}
    cells = {c.get("id"): c.source for c in nbformat.read(NOTEBOOK, as_version=4).cells}
    for cell_id in ("imports", "emb", "mha", "layer", "minilm-model"):
        exec(cells[cell_id], namespace)
    return namespace


def encoder_with(bug: str):
    """The notebook's MyBertModel with one mistake in its forward."""
    base = notebook_classes()["MyBertModel"]

    class Buggy(base):
        def forward(self, input_ids, attention_mask=None, token_type_ids=None):
            h = self.embeddings(input_ids, None if bug == "no segments" else token_type_ids)
            layers = self.encoder["layer"]
            for layer in layers[:-1] if bug == "one layer short" else layers:
                h = layer(h, None if bug == "no mask" else attention_mask)
            return (h, None) if bug == "tuple" else h

    return Buggy


@pytest.mark.slow
def test_minilm_through_the_student_encoder_matches_transformers():
    transformers = pytest.importorskip("transformers")
    try:
        reference, tokenizer = capstone_minilm.minilm()
    except FileNotFoundError as err:
        pytest.skip(str(err))
    from bertedu.core.minilm import minilm_dir

    model, _ = capstone.your_minilm(notebook_classes()["MyBertModel"])
    assert not isinstance(model, capstone_minilm._StandIn)
    hf = transformers.BertModel.from_pretrained(str(minilm_dir())).eval()
    batch = capstone_minilm._parity_batch(tokenizer)
    real = batch["attention_mask"].bool()
    with torch.no_grad():
        mine = model(**batch)
        theirs = hf(**batch).last_hidden_state
        ours = reference(**batch).last_hidden_state
    assert (mine - theirs)[real].abs().max() <= capstone_minilm.PARITY_ATOL
    assert (mine - ours)[real].abs().max() <= capstone_minilm.PARITY_ATOL
    passed, message = verdict(capstone.real_weights, notebook_classes()["MyBertModel"])
    assert passed and "103 tensors" in message, message


@pytest.mark.slow
@pytest.mark.parametrize(
    "bug, words",
    [
        ("no mask", "ignores the padding"),
        ("no segments", "pass token_type_ids"),
        ("one layer short", "hidden state 5 of 6"),
        ("tuple", "returned a tuple"),
    ],
)
def test_minilm_encoder_mistakes_are_named(bug, words):
    try:
        capstone_minilm.minilm()
    except FileNotFoundError as err:
        pytest.skip(str(err))
    passed, message = verdict(capstone.real_weights, encoder_with(bug))
    assert not passed and words in message, message


def test_minilm_encoder_with_other_names_is_named_and_a_stub_stands_aside(monkeypatch, capsys):
    class Tiny(nn.Module):  # wrong names: fails before any weight is copied
        def __init__(self, config):
            super().__init__()
            self.emb = nn.Embedding(3, 2)

    reference = BertForPreTraining(
        capstone.capstone_setup()[0]
    ).bert  # a small BertModel stands in for MiniLM
    monkeypatch.setattr(capstone_minilm, "minilm", lambda: (reference.eval(), capstone.capstone_setup()[1]))
    passed, message = verdict(capstone.real_weights, Tiny)
    assert not passed and "Hugging Face's names" in message and "embeddings.word_embeddings" in message, (
        message
    )

    class Stub(nn.Module):
        def __init__(self, config):
            raise NotImplementedError

    model, _ = capstone.your_minilm(Stub)
    assert isinstance(model, capstone_minilm._StandIn) and "stands in" in capsys.readouterr().out
    assert not capstone.real_weights.check(Stub).attempted


# ------------------------------------------------------------------------------ section 8.7: is my loss right?


@pytest.mark.slow  # 4 runs of 30 steps
def test_diagnose_your_model_passes_bertedu_and_names_an_ignored_isnext():
    report = capstone.diagnose_your_model(BertForPreTraining)
    assert report.ok, report

    class IgnoresIsNext(BertForPreTraining):  # NSP loss with ignore_index=0: the IsNext pairs drop out
        def forward(self, *args, next_sentence_label=None, **kwargs):
            out = super().forward(*args, next_sentence_label=next_sentence_label, **kwargs)
            if next_sentence_label is not None:
                nsp = nn.functional.cross_entropy(
                    out.seq_relationship_logits, next_sentence_label, ignore_index=0
                )
                out.loss = out.mlm_loss + nsp if out.mlm_loss is not None else nsp
                out.nsp_loss = nsp
            return out

    report = capstone.diagnose_your_model(IgnoresIsNext)
    assert not report.ok and "nsp_ignores_isnext" in report.names, report


def test_diagnose_your_model_waits_for_an_attempt():
    class Stub(nn.Module):
        def __init__(self, config):
            super().__init__()
            raise NotImplementedError

    report = capstone.diagnose_your_model(Stub)
    assert not report.ok and "not attempted" in str(report)
