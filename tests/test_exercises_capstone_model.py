"""Notebook 11's whole-model check (``ex.tiny_bert``): a correct model passes, and the check compares at random
weights too (content review C4), so mistakes that bertedu's initial weights hide are caught."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from bertedu.core.attention import build_key_mask
from bertedu.core.model import BertForPreTraining
from bertedu.core.outputs import BertForPreTrainingOutput
from bertedu.teaching.exercises import capstone
from bertedu.teaching.exercises.capstone import _first_difference
from bertedu.teaching.exercises.capstone_base import capstone_setup, load_weights, reference_model

# These tests train on one thread (quick, and robust beside other work): conftest.py's one_torch_thread.
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def student_model(bug: str | None = None) -> type:
    """A ``MyBertForPreTraining`` written as a student would (bertedu's parts, so the names match, and a forward
    of its own), with one planted ``bug``."""

    def layer_norm(module, x):
        eps = 1e-5 if bug == "LayerNorm eps 1e-5" else module.eps
        bias = None if bug == "LayerNorm without bias" else module.bias
        return F.layer_norm(x, module.normalized_shape, module.weight, bias, eps)

    class MyBertForPreTraining(BertForPreTraining):
        def forward(
            self, input_ids, attention_mask=None, token_type_ids=None, labels=None, next_sentence_label=None
        ):
            emb = self.bert.embeddings
            positions = torch.arange(input_ids.size(1))
            h = emb.word_embeddings(input_ids) + emb.position_embeddings(positions)
            h = layer_norm(emb.LayerNorm, h + emb.token_type_embeddings(token_type_ids))  # (B, T, H)
            key_mask = build_key_mask(attention_mask)  # (B, 1, 1, T)
            for layer in self.bert.encoder.layer:
                context = layer.attention.self(h, key_mask)[0]  # (B, T, H)
                attended = layer.attention.output.dense(context)
                h = layer_norm(layer.attention.output.LayerNorm, h + attended)
                f = layer.output.dense(F.gelu(layer.intermediate.dense(h)))  # (B, T, H)
                h = layer_norm(layer.output.LayerNorm, h + f)
            pooler = self.bert.pooler.dense
            bias = None if bug == "pooler without bias" else pooler.bias
            pooled = torch.tanh(F.linear(h[:, 0], pooler.weight, bias))  # (B, H)
            head = self.cls.predictions
            t = layer_norm(head.transform.LayerNorm, F.gelu(head.transform.dense(h)))
            mlm_logits = t @ emb.word_embeddings.weight.T  # (B, T, V)
            if bug != "MLM decoder without bias":
                mlm_logits = mlm_logits + head.bias
            nsp_logits = self.cls.seq_relationship(pooled)  # (B, 2)
            loss = None
            if labels is not None and next_sentence_label is not None:
                loss = F.cross_entropy(mlm_logits.flatten(0, 1), labels.flatten(), ignore_index=-100)
                loss = loss + F.cross_entropy(nsp_logits, next_sentence_label)
            return BertForPreTrainingOutput(
                loss=loss, prediction_logits=mlm_logits, seq_relationship_logits=nsp_logits
            )

    return MyBertForPreTraining


def test_a_correct_model_passes_and_reports_the_first_loss_at_the_initial_weights():
    config, _, batches = capstone_setup()
    result = capstone.tiny_bert.check(student_model())
    assert result.passed, result.message
    with torch.no_grad():
        first_loss = float(reference_model(config).eval()(**batches[0]).loss)  # about ln V + ln 2
    assert f"({first_loss:.2f})" in result.message


@pytest.mark.parametrize(
    "bug, words",
    [
        ("MLM decoder without bias", "the MLM logits differ"),
        ("pooler without bias", "the NSP logits differ"),
        ("LayerNorm without bias", "logits differ"),
    ],
)
def test_a_forgotten_bias_passed_at_the_initial_weights_and_fails_now(bug, words):
    """Every bias is 0 at bertedu's initialisation, so the old check (at those weights only) passed these models."""
    config, _, batches = capstone_setup()
    mine, initial = student_model(bug)(config), reference_model(config).eval()
    load_weights(mine, initial)
    assert _first_difference(mine, initial, batches[0]) is None  # what the old check saw: no difference
    result = capstone.tiny_bert.check(student_model(bug))
    assert not result.passed and words in result.message, result.message


def test_a_wrong_layer_norm_eps_is_still_caught():
    result = capstone.tiny_bert.check(student_model("LayerNorm eps 1e-5"))
    assert not result.passed and "logits differ" in result.message, result.message


def test_the_random_weights_make_the_compared_logits_far_from_uniform():
    """At the initial weights (sigma 0.02) the NSP logits are all near 0 (the review measured 0.024); at the
    checker's random weights they are tens of times larger, so a small mistake makes a large difference."""
    config, _, batches = capstone_setup()
    randomised = capstone.random_init(
        reference_model(config), seed=capstone.RANDOM_WEIGHTS_SEED, std=capstone.RANDOM_WEIGHTS_STD
    )
    with torch.no_grad():
        initial = reference_model(config).eval()(**batches[0]).seq_relationship_logits.abs().max()
        random = randomised.eval()(**batches[0]).seq_relationship_logits.abs().max()
    assert initial < 0.05 and random > 10 * initial


def test_a_correct_model_that_sums_in_another_order_stays_within_the_tolerance():
    """The student model above adds the embeddings and the decoder bias in another order than bertedu: at the random
    weights its float32 rounding must stay well inside the check's tolerance (it would not at sigma 0.5)."""
    config, _, batches = capstone_setup()
    for std, inside in ((capstone.RANDOM_WEIGHTS_STD, True), (0.5, False)):
        reference = capstone.random_init(
            reference_model(config), seed=capstone.RANDOM_WEIGHTS_SEED, std=std
        ).eval()
        mine = student_model()(config)
        load_weights(mine, reference)
        with torch.no_grad():
            got, expected = mine.eval()(**batches[0]), reference(**batches[0])
        # 1.0 = allclose's limit (atol 1e-5, rtol 1e-4); the checker's weights must leave a margin of 3
        excess = (
            (got.prediction_logits - expected.prediction_logits).abs()
            / (1e-5 + 1e-4 * expected.prediction_logits.abs())
        ).max()
        assert (excess < 1 / 3) if inside else (excess > 1), (std, float(excess))
