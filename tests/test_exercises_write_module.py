"""The "write the module" exercises (issue 16): a correct implementation passes, and each typical bug fails
with the message that names it. Every buggy implementation here differs from the correct one in one thing."""

from __future__ import annotations

import math
import random

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from bertedu.teaching.exercises import encoder, losses, masking, pretraining, tokens

# These tests train on one thread (quick, and robust beside other work): conftest.py's one_torch_thread.
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def verdict(exercise, answer):
    result = exercise.check(answer)
    return result.passed, result.message


# ------------------------------------------------------------------------------ multi-head self-attention


def make_attention(
    scale=True, dim=-1, mask_on="keys", merge=True, eval_dropout=False, names=("query", "key", "value")
):
    class MultiHeadSelfAttention(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.num_heads = config.num_attention_heads
            self.head_dim = config.hidden_size // config.num_attention_heads
            for name in names:
                setattr(self, name, nn.Linear(config.hidden_size, config.hidden_size))
            self.p = config.attention_probs_dropout_prob
            self.dropout = nn.Dropout(self.p)

        def forward(self, hidden_states, attention_mask=None):
            B, T, H = hidden_states.shape
            split = lambda t: t.view(B, T, self.num_heads, self.head_dim).transpose(1, 2)
            q, k, v = (split(getattr(self, name)(hidden_states)) for name in names)
            scores = q @ k.transpose(-2, -1)
            if scale:
                scores = scores / math.sqrt(self.head_dim)
            if attention_mask is not None:
                m = (
                    attention_mask[:, None, None, :]
                    if mask_on == "keys"
                    else attention_mask[:, None, :, None]
                )
                scores = scores.masked_fill(m == 0, torch.finfo(scores.dtype).min)
            w = torch.softmax(scores, dim=dim)
            w = F.dropout(w, self.p) if eval_dropout else self.dropout(w)
            context = w @ v
            return context.transpose(1, 2).reshape(B, T, H) if merge else context.reshape(B, T, H)

    return MultiHeadSelfAttention


def test_multi_head_attention_correct_passes():
    passed, message = verdict(encoder.multi_head_attention, make_attention())
    assert passed, message


@pytest.mark.parametrize(
    "bug, words",
    [
        (dict(scale=False), "not scaled"),
        (dict(dim=-2), "wrong axis"),
        (dict(mask_on="queries"), "applied to the queries"),
        (dict(merge=False), "merged without moving the head axis back"),
        (dict(eval_dropout=True), "in eval mode your output changes"),
        (dict(names=("q", "k", "v")), "Hugging Face's names"),
    ],
)
def test_multi_head_attention_bugs_are_named(bug, words):
    passed, message = verdict(encoder.multi_head_attention, make_attention(**bug))
    assert not passed and words in message, message


def test_multi_head_attention_solution_code_passes():
    namespace = {"nn": nn, "torch": torch, "math": math, "ex": encoder}
    exec(encoder.multi_head_attention.solution_code, namespace)
    result = encoder.multi_head_attention.check(namespace["MultiHeadSelfAttention"])
    assert result.passed, result.message


# ------------------------------------------------------------------------------------------ embeddings


def make_embeddings(segment=True, eps=None, offset=0, eval_dropout=False):
    class Embeddings(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
            self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
            self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
            self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=eps or config.layer_norm_eps)
            self.dropout = nn.Dropout(config.hidden_dropout_prob)
            self.p = config.hidden_dropout_prob

        def forward(self, input_ids, token_type_ids=None):
            if token_type_ids is None:
                token_type_ids = torch.zeros_like(input_ids)
            T = input_ids.size(1)
            h = self.word_embeddings(input_ids) + self.position_embeddings(torch.arange(offset, T + offset))
            if segment:
                h = h + self.token_type_embeddings(token_type_ids)
            h = self.LayerNorm(h)
            return F.dropout(h, self.p) if eval_dropout else self.dropout(h)

    return Embeddings


def test_embeddings_correct_passes():
    passed, message = verdict(tokens.embeddings_layer, make_embeddings())
    assert passed, message


@pytest.mark.parametrize(
    "bug, words",
    [
        (dict(segment=False), "segment embeddings are missing"),
        (dict(eps=1e-5), "eps = 1e-05"),
        (dict(offset=1), "position ids start at 1"),
        (dict(eval_dropout=True), "in eval mode your output changes"),
    ],
)
def test_embeddings_bugs_are_named(bug, words):
    passed, message = verdict(tokens.embeddings_layer, make_embeddings(**bug))
    assert not passed and words in message, message


# --------------------------------------------------------------------------------------- the MLM head


def make_head(tie="assign", transform=True, bias=True):
    class Transform(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.dense = nn.Linear(config.hidden_size, config.hidden_size)
            self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

        def forward(self, h):
            return self.LayerNorm(F.gelu(self.dense(h)))

    class MLMHead(nn.Module):
        def __init__(self, config, word_embeddings):
            super().__init__()
            self.transform = Transform(config)
            self.decoder = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
            if tie == "assign":
                self.decoder.weight = word_embeddings.weight
            elif tie == "copy":
                self.decoder.weight = nn.Parameter(word_embeddings.weight.detach().clone())
            if bias:
                self.bias = nn.Parameter(torch.zeros(config.vocab_size))

        def forward(self, h):
            out = self.decoder(self.transform(h) if transform else h)
            return out + self.bias if bias else out

    return MLMHead


def test_mlm_head_correct_passes():
    passed, message = verdict(losses.mlm_head, make_head())
    assert passed, message


@pytest.mark.parametrize(
    "bug, words",
    [
        (dict(tie="none"), "not tied"),
        (dict(tie="copy"), "tied by copy"),
        (dict(transform=False), "transform is missing"),
        (dict(bias=False), "bias is missing"),
    ],
)
def test_mlm_head_bugs_are_named(bug, words):
    passed, message = verdict(losses.mlm_head, make_head(**bug))
    assert not passed and words in message, message


# -------------------------------------------------------------------------------------- the NSP sampler


def make_sampler(same_document=False, swapped=False, is_next=0.5, global_random=False):
    def sample_nsp_pair(documents, rng):
        r = random if global_random else rng
        d = r.randrange(len(documents))
        i = r.randrange(len(documents[d]) - 1)
        a = documents[d][i]
        if r.random() < is_next:
            return a, documents[d][i + 1], 1 if swapped else 0
        other = d if same_document else (lambda o: o + (o >= d))(r.randrange(len(documents) - 1))
        return a, r.choice(documents[other]), 0 if swapped else 1

    return sample_nsp_pair


def test_nsp_sampler_correct_passes():
    passed, message = verdict(losses.nsp_sampler, make_sampler())
    assert passed, message


@pytest.mark.parametrize(
    "bug, words",
    [
        (dict(same_document=True), "from A's own document"),
        (dict(swapped=True), "labels are swapped"),
        (dict(is_next=0.7), "50/50"),
        (dict(global_random=True), "you are given"),
    ],
)
def test_nsp_sampler_bugs_are_named(bug, words):
    passed, message = verdict(losses.nsp_sampler, make_sampler(**bug))
    assert not passed and words in message, message


# -------------------------------------------------------------------------------- the masking function


def make_masking(specials=False, label_all=False, all_mask=False):
    def mask_tokens(input_ids, tokenizer, generator):
        special = torch.isin(input_ids, torch.tensor(tokenizer.all_special_ids))
        selected = torch.rand(input_ids.shape, generator=generator) < 0.15
        if not specials:
            selected &= ~special
        labels = input_ids.clone() if label_all else torch.where(selected, input_ids, -100)
        action = torch.rand(input_ids.shape, generator=generator)
        masked = input_ids.clone()
        if all_mask:
            masked[selected] = tokenizer.mask_token_id
            return masked, labels
        masked[selected & (action < 0.8)] = tokenizer.mask_token_id
        random_ids = torch.randint(tokenizer.vocab_size, input_ids.shape, generator=generator)
        swap = selected & (action >= 0.8) & (action < 0.9)
        masked[swap] = random_ids[swap]
        return masked, labels

    return mask_tokens


def test_masking_function_correct_passes():
    passed, message = verdict(masking.masking_function, make_masking())
    assert passed, message


@pytest.mark.parametrize(
    "bug, words",
    [
        (dict(specials=True), "must never be selected"),
        (dict(label_all=True), "carry a label"),
        (dict(all_mask=True), "every selected token became [MASK]"),
    ],
)
def test_masking_function_bugs_are_named(bug, words):
    passed, message = verdict(masking.masking_function, make_masking(**bug))
    assert not passed and words in message, message


# ------------------------------------------------------------------------------- one pretraining step


def make_step(zero_grad=True, scheduler_first=False, clip=True):
    def training_step(model, batch, optimizer, scheduler, max_grad_norm):
        model.train()
        out = model(**batch)
        if zero_grad:
            optimizer.zero_grad()
        out.loss.backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        if scheduler_first:
            scheduler.step()
        optimizer.step()
        if not scheduler_first:
            scheduler.step()
        return out.loss.item()

    return training_step


@pytest.mark.slow
def test_training_step_correct_passes():
    passed, message = verdict(pretraining.training_step, make_step())
    assert passed, message


@pytest.mark.slow
@pytest.mark.parametrize(
    "bug, words",
    [
        (dict(zero_grad=False), "never reset"),
        (dict(scheduler_first=True), "scheduler.step() runs before optimizer.step()"),
        (dict(clip=False), "not clipped"),
    ],
)
def test_training_step_bugs_are_named(bug, words):
    passed, message = verdict(pretraining.training_step, make_step(**bug))
    assert not passed and words in message, message


@pytest.mark.slow
def test_training_step_reference_is_the_package_loop(tmp_path):
    """The checker's reference run equals bertedu.training.pretrain.pretrain() step for step (same losses)."""
    from bertedu.training.pretrain import pretrain

    corpus = tmp_path / "corpus.txt"
    corpus.write_text(
        "\n\n".join("\n".join(doc) for doc in pretraining.step_documents()) + "\n", encoding="utf-8"
    )
    run = pretrain(pretraining.STEP_CONFIG.replace(corpus=str(corpus), num_threads=1), None, progress=False)
    package = [r["loss"] for r in run.history if r.get("split", "train") == "train"]
    losses_, _ = pretraining.run_training_steps(pretraining.reference_training_step)
    assert len(package) == len(losses_) == pretraining.STEP_CONFIG.steps
    assert all(abs(a - b) <= 1e-4 for a, b in zip(package, losses_)), (package, losses_)


@pytest.mark.parametrize(
    "exercise, stub",
    [
        (encoder.multi_head_attention, "class"),
        (tokens.embeddings_layer, "class"),
        (losses.mlm_head, "class"),
        (losses.nsp_sampler, "function"),
        (masking.masking_function, "function"),
        (pretraining.training_step, "function"),
    ],
)
def test_stubs_are_not_attempted(exercise, stub):
    if stub == "class":

        class Stub(nn.Module):
            def __init__(self, *args):
                super().__init__()
                raise NotImplementedError

        answer = Stub
    else:

        def answer(*args):
            raise NotImplementedError

    result = exercise.check(answer)
    assert not result.passed and not result.attempted, result
