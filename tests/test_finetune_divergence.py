"""Fine-tuning that diverges is reported (issue 14): the review's lr 0.9 run ended at loss 2.6, silently."""

from __future__ import annotations

import warnings

import pytest
import torch
from support import small_bert_config

from bertedu.core.model import BertForSequenceClassification
from bertedu.core.tokenizer import SPECIAL_TOKENS, BertTokenizer
from bertedu.training.finetune import FineTuneConfig, build_task_model, fine_tune
from bertedu.training.finetune_data import SEQUENCE_CLASSIFICATION, ClassificationExample, make_dataset
from bertedu.training.optim import TrainingDivergedError, TrainingDivergenceWarning

WORDS = ["the", "cat", "dog", "sits", "runs", "on", "mat", "in", "park", "sleeps"]
SENTENCES = [
    ("the cat sits on the mat", "cat"),
    ("the dog runs in the park", "dog"),
    ("the cat sleeps on the mat", "cat"),
    ("the dog sleeps in the park", "dog"),
    ("the cat runs on the mat", "cat"),
    ("the dog sits in the park", "dog"),
]


# These tests train on one thread (quick, and robust beside other work): conftest.py's one_torch_thread.
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def run(**settings):
    tokenizer = BertTokenizer([*SPECIAL_TOKENS, *WORDS])
    train = make_dataset(
        SEQUENCE_CLASSIFICATION, [ClassificationExample(t, label) for t, label in SENTENCES], tokenizer
    )
    config = small_bert_config(vocab_size=tokenizer.vocab_size)
    model = build_task_model(SEQUENCE_CLASSIFICATION, config, num_labels=2, seed=0)
    base = dict(batch_size=2, epochs=10, progress=False, seed=0)
    return fine_tune(model, train, config=FineTuneConfig(**{**base, **settings}))


def test_a_diverged_fine_tuning_warns_with_what_to_try():
    with pytest.warns(
        TrainingDivergenceWarning, match=r"Fine-tuning diverged.*lower learning rate \(now 0.9"
    ):
        run(learning_rate=0.9, max_grad_norm=0.0, warmup_ratio=0.0)


@pytest.mark.slow
def test_a_healthy_fine_tuning_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", TrainingDivergenceWarning)
        result = run(learning_rate=1e-2)
    assert result.history[-1]["loss"] < result.history[0]["loss"]


@pytest.mark.parametrize(
    "poison, message",
    [
        ("loss", r"The loss became nan at step 1; lower the learning rate \(now 0.001\)"),
        ("gradient", r"The gradient norm became inf at step 1; lower the learning rate \(now 0.001\)"),
    ],
)
def test_a_loss_or_gradient_that_is_not_finite_stops_before_the_weights_change(monkeypatch, poison, message):
    """Fine-tuning ends its steps with pretraining's optimizer_step: the gradient norm is checked too."""
    if poison == "loss":
        original = BertForSequenceClassification.forward

        def forward(self, *args, **kwargs):
            out = original(self, *args, **kwargs)
            out.loss = out.loss * float("nan")
            return out

        monkeypatch.setattr(BertForSequenceClassification, "forward", forward)
    else:
        monkeypatch.setattr(
            torch.nn.utils, "clip_grad_norm_", lambda params, max_norm: torch.tensor(float("inf"))
        )
    tokenizer = BertTokenizer([*SPECIAL_TOKENS, *WORDS])
    examples = [ClassificationExample(t, label) for t, label in SENTENCES]
    train = make_dataset(SEQUENCE_CLASSIFICATION, examples, tokenizer)
    model = build_task_model(SEQUENCE_CLASSIFICATION, small_bert_config(vocab_size=tokenizer.vocab_size))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    with pytest.raises(TrainingDivergedError, match=message):
        fine_tune(model, train, config=FineTuneConfig(learning_rate=1e-3, batch_size=2, progress=False))
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
