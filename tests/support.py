"""Plain helpers and constants shared by several test files (fixtures are in ``tests/conftest.py``).

Import them as ``from support import small_bert_config`` (``tests/`` is on ``sys.path`` while pytest runs).
"""

from __future__ import annotations

import pytest
import torch

from bertedu.core.config import BertConfig


def small_bert_config(**overrides) -> BertConfig:
    """A 2-layer, H = 32, 4-head BERT config with 97 tokens and 40 positions (fast to build); ``overrides``
    change single fields. Test files import it: ``from support import small_bert_config``."""
    base = dict(
        vocab_size=97,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=48,
        max_position_embeddings=40,
    )
    return BertConfig(**{**base, **overrides})


# ----------------------------------------------------------------------------------------------------------
# A tiny pretraining set-up: a 3-document corpus, held-out files and a 1-layer model size "test"

CORPUS = """the cat sits on the mat
the cat drinks milk
then the cat sleeps by the fire

the dog runs in the park
the dog drinks water
the dog sleeps under the table

the sun rises in the east
the sun shines in the sky
the sun sets in the west

the man reads the book
the man drinks coffee
the woman drinks tea
"""
MLM_EVAL = "sentence\tanswers\nthe cat drinks [MASK]\tmilk\nthe [MASK] rises in the east\tsun\n"
NSP_EVAL = (
    "sentence_a\tsentence_b\tlabel\nthe cat sits on the mat\tthe cat drinks milk\tIsNext\n"
    "the cat sits on the mat\tthe sun sets in the west\tNotNext\n"
)
TEST_PRESET = {"num_hidden_layers": 1, "hidden_size": 16, "num_attention_heads": 2, "intermediate_size": 32}


def same_weights(a, b) -> bool:
    """True if two models (or state dicts) hold exactly the same tensors."""
    sa = a.state_dict() if hasattr(a, "state_dict") else a
    sb = b.state_dict() if hasattr(b, "state_dict") else b
    return sa.keys() == sb.keys() and all(sa[k].equal(sb[k]) for k in sa)


# ----------------------------------------------------------------------------------------------------------
# Gradient clipping: what one training step leaves on the parameters


def gradients_after_one_step(step, max_grad_norm: float) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """One training step of a fresh small BERT (no dropout) on a fixed batch of 6 rows, done by
    ``step(model, batch, optimizer, scheduler, params, max_grad_norm)`` (e.g. ``bertedu.training.pretrain.train_step``).

    Returns ``(left, plain)``: the gradients the step left on the parameters (a step clears them before its
    backward pass, not after), and the unclipped gradients of the same loss at the same weights, computed the
    plain way (``model(**batch).loss.backward()``)."""
    from bertedu.core.model import BertForPreTraining

    g = torch.Generator().manual_seed(7)
    lengths = torch.tensor([12, 11, 9, 8, 6, 5])
    mask = (torch.arange(12)[None, :] < lengths[:, None]).long()  # (6, 12)
    selected = ((torch.rand(6, 12, generator=g) < 0.3) | (torch.arange(12) == 1)) & mask.bool()
    ids = torch.randint(5, 97, (6, 12), generator=g) * mask
    batch = {
        "input_ids": ids,
        "token_type_ids": (torch.arange(12)[None, :] >= lengths[:, None] // 2).long() * mask,
        "attention_mask": mask,
        "labels": torch.randint(5, 97, (6, 12), generator=g).masked_fill(~selected, -100),
        "next_sentence_label": torch.tensor([0, 1, 1, 0, 1, 0]),
    }
    config = small_bert_config(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    torch.manual_seed(0)
    plain_model = BertForPreTraining(config)
    plain_model(**batch).loss.backward()
    plain = [p.grad.clone() for p in plain_model.parameters()]

    torch.manual_seed(0)
    model = BertForPreTraining(config)
    params = list(model.parameters())
    optimizer = torch.optim.SGD(params, lr=1e-3)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0)
    step(model, batch, optimizer, scheduler, params, max_grad_norm)
    return [p.grad for p in params], plain


def global_norm(gradients: list[torch.Tensor]) -> float:
    """The L2 norm of all the gradients together (what ``clip_grad_norm_`` clips)."""
    return torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in gradients])).item()


def assert_clipped_to(left: list[torch.Tensor], plain: list[torch.Tensor], max_grad_norm: float) -> None:
    """``left`` is ``plain`` scaled down to the global norm ``max_grad_norm`` (same direction)."""
    norm = global_norm(plain)
    assert norm > 10 * max_grad_norm, f"the gradient norm {norm:.3g} is too small for this test"
    assert global_norm(left) == pytest.approx(max_grad_norm, rel=1e-3), (
        "the global gradient norm was not clipped"
    )
    for a, b in zip(left, plain, strict=True):
        assert torch.allclose(a, b * (max_grad_norm / norm), rtol=1e-3, atol=1e-9), "not the same direction"
