"""Attention: the hand-computed example, equality with PyTorch's fused kernel, masking on keys, heads."""

import math

import pytest
import torch
import torch.nn.functional as F

from bertedu.core.attention import (
    BertAttention,
    BertSelfAttention,
    build_key_mask,
    scaled_dot_product_attention,
)
from bertedu.core.config import BertConfig


def test_seed_002_two_token_example():
    X = torch.tensor([[1.0, 0.0, 2.0], [-1.0, 2.0, 0.0]])
    W_Q = torch.eye(3)
    W_K = torch.tensor([[1.0, 0, 0], [0, 0, 1], [0, 1, 0]])
    W_V = 2 * torch.eye(3)
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    assert torch.equal(K, torch.tensor([[1.0, 2, 0], [-1, 0, 2]]))
    context, weights = scaled_dot_product_attention(Q, K, V)
    assert torch.allclose(Q @ K.T, torch.tensor([[1.0, 3], [3, 1]]))
    assert torch.allclose(weights, torch.tensor([[0.24, 0.76], [0.76, 0.24]]), atol=0.005)
    assert torch.allclose(context, torch.tensor([[-1.04, 3.04, 0.96], [1.04, 0.96, 3.04]]), atol=0.01)
    assert torch.allclose(context, F.scaled_dot_product_attention(Q[None], K[None], V[None])[0], atol=1e-6)


def test_softmax_is_over_the_keys_asymmetric_example():
    """Q K^T / sqrt(d_k) = [[0, 2], [0, 0]] is not symmetric, so a softmax over the queries (columns) would
    give other weights. Each row (query) sums to 1 over the keys; the columns need not."""
    Q = torch.tensor([[2.0, 2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    K = torch.tensor([[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
    V = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 10.0]])
    context, weights = scaled_dot_product_attention(Q, K, V)
    # Query 0 scores key 0 with (2*0 + 2*0) / sqrt(4) = 0 and key 1 with (2*1 + 2*1) / 2 = 2; query 1 scores
    # both keys 0. Softmax of [0, 2] = [1, e^2] / (1 + e^2); softmax of [0, 0] = [1/2, 1/2].
    e2 = math.exp(2.0)
    expected = torch.tensor([[1 / (1 + e2), e2 / (1 + e2)], [0.5, 0.5]])  # [[0.119, 0.881], [0.5, 0.5]]
    assert torch.allclose(weights, expected, atol=1e-6)
    assert torch.allclose(context, expected @ V, atol=1e-6)  # [[0.119, 0.881, 0, 8.81], [0.5, 0.5, 0, 5]]


@pytest.mark.parametrize("masked", [False, True])
def test_equals_torch_sdpa_on_random_inputs(masked):
    g = torch.Generator().manual_seed(1)
    B, A, T, d = 3, 4, 7, 16
    q, k, v = (torch.randn(B, A, T, d, generator=g) for _ in range(3))
    mask = None
    if masked:
        lengths = torch.tensor([7, 4, 1])
        mask = build_key_mask((torch.arange(T)[None, :] < lengths[:, None]).long())
    ours, _ = scaled_dot_product_attention(q, k, v, mask)
    theirs = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert torch.allclose(ours, theirs, atol=1e-5)


def test_full_query_key_mask_also_matches_torch():
    g = torch.Generator().manual_seed(2)
    q, k, v = (torch.randn(2, 3, 5, 8, generator=g) for _ in range(3))
    mask = torch.rand(2, 1, 5, 5, generator=g) > 0.3
    mask[..., 0] = True  # every query keeps at least one key
    ours, weights = scaled_dot_product_attention(q, k, v, mask)
    assert torch.allclose(ours, F.scaled_dot_product_attention(q, k, v, attn_mask=mask), atol=1e-5)
    assert torch.all(weights.masked_select(~mask.expand_as(weights)) == 0)


def test_padded_keys_get_exactly_zero_and_rows_sum_to_one():
    g = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(2, 2, 6, 4, generator=g) for _ in range(3))
    attention_mask = torch.tensor([[1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 0]])
    _, weights = scaled_dot_product_attention(q, k, v, build_key_mask(attention_mask))
    assert torch.all(weights[0, :, :, 3:] == 0)  # padded keys, for every query including padded ones
    assert torch.all(weights[1, :, :, 5:] == 0)
    assert torch.all(weights[0, :, :, :3] > 0)  # queries are not masked
    assert torch.allclose(weights.sum(-1), torch.ones(2, 2, 6), atol=1e-6)


def test_scores_are_scaled_by_sqrt_dk():
    q = torch.ones(1, 4)
    k = torch.tensor([[1.0, 1, 1, 1], [0, 0, 0, 0]])
    _, weights = scaled_dot_product_attention(q, k, k)
    expected = torch.softmax(torch.tensor([4.0, 0.0]) / math.sqrt(4), dim=-1)
    assert torch.allclose(weights[0], expected)


def test_mask_must_be_boolean():
    x = torch.randn(1, 3, 4)
    with pytest.raises(ValueError, match="build_key_mask"):
        scaled_dot_product_attention(x, x, x, torch.ones(1, 3, 3))


def test_build_key_mask_shape_and_errors():
    mask = build_key_mask(torch.tensor([[1, 1, 0], [1, 0, 0]]))
    assert mask.shape == (2, 1, 1, 3) and mask.dtype == torch.bool
    with pytest.raises(ValueError, match=r"\(B, T\)"):
        build_key_mask(torch.ones(3))


def test_multi_head_equals_a_loop_over_heads():
    torch.manual_seed(0)
    config = BertConfig(
        hidden_size=12, num_attention_heads=3, intermediate_size=24, num_hidden_layers=1, vocab_size=10
    )
    attn = BertSelfAttention(config).eval()
    x = torch.randn(2, 5, 12)
    context, weights = attn(x, output_attentions=True)
    q, k, v = attn.query(x), attn.key(x), attn.value(x)
    for h in range(3):
        s = slice(4 * h, 4 * h + 4)  # head h owns dimensions 4h..4h+3 of the projections
        ctx_h, w_h = scaled_dot_product_attention(q[..., s], k[..., s], v[..., s])
        assert torch.allclose(context[..., s], ctx_h, atol=1e-6)
        assert torch.allclose(weights[:, h], w_h, atol=1e-6)


def test_sdpa_module_path_equals_eager_path():
    torch.manual_seed(0)
    config = BertConfig(
        hidden_size=32, num_attention_heads=4, intermediate_size=64, num_hidden_layers=1, vocab_size=10
    )
    eager = BertAttention(config).eval()
    fused = BertAttention(config.replace(attn_implementation="sdpa")).eval()
    fused.load_state_dict(eager.state_dict())
    x = torch.randn(2, 6, 32)
    key_mask = build_key_mask(torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]]))
    out_e, w_e = eager(x, key_mask)
    out_f, w_f = fused(x, key_mask)
    assert w_f is None and w_e is not None
    assert torch.allclose(out_e, out_f, atol=1e-6)
    out_f2, w_f2 = fused(x, key_mask, output_attentions=True)  # weights requested: explicit path
    assert torch.equal(out_f2, out_e) and torch.equal(w_f2, w_e)


def test_heads_must_divide_hidden_size():
    with pytest.raises(ValueError, match="divisible"):
        BertConfig(hidden_size=30, num_attention_heads=4)
