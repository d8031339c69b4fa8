"""bertedu.teaching.viz head statistics on hand-built attention patterns with known answers."""

import math

import numpy as np
import pytest
import torch

from bertedu.teaching import viz

TOKENS = ["[CLS]", "the", "cat", "sat", "[SEP]", "it", "slept", "[SEP]"]  # T = 8, sentence pair
T = len(TOKENS)
SEPS = [4, 7]


def previous_head(t=T):
    a = np.zeros((t, t))
    a[0, 0] = 1.0  # [CLS] has no previous token: it looks at itself
    a[np.arange(1, t), np.arange(t - 1)] = 1.0
    return a


def next_head(t=T):
    a = np.zeros((t, t))
    a[np.arange(t - 1), np.arange(1, t)] = 1.0
    a[t - 1, t - 1] = 1.0
    return a


def sep_head():
    a = np.zeros((T, T))
    a[:, SEPS] = 0.5  # half on each [SEP]
    return a


def uniform_head(t=T):
    return np.full((t, t), 1.0 / t)


def patterns():
    """(L=2, heads=3, T, T): layer 0 = previous, next, [SEP]; layer 1 = uniform, [CLS], self."""
    cls = np.zeros((T, T))
    cls[:, 0] = 1.0
    return np.stack(
        [np.stack([previous_head(), next_head(), sep_head()]), np.stack([uniform_head(), cls, np.eye(T)])]
    )


def by_head(stats):
    return {(r["layer"], r["head"]): r for r in stats}


def test_pure_positional_delimiter_and_uniform_heads():
    stats = by_head(viz.head_statistics(patterns(), TOKENS))
    assert len(stats) == 6
    prev, nxt, sep = stats[0, 0], stats[0, 1], stats[0, 2]
    uniform, cls, own = stats[1, 0], stats[1, 1], stats[1, 2]
    assert prev["previous"] == pytest.approx(1.0) and prev["next"] == 0.0 and prev["entropy"] == 0.0
    assert prev["self"] == pytest.approx(1 / T)  # only [CLS] looks at itself
    assert nxt["next"] == pytest.approx(1.0) and nxt["previous"] == 0.0
    assert sep["sep"] == pytest.approx(1.0) and sep["cls"] == 0.0
    assert sep["entropy"] == pytest.approx(math.log(2))  # two keys, half each
    assert uniform["entropy"] == pytest.approx(math.log(T))  # the maximum
    assert uniform["cls"] == pytest.approx(1 / T) and uniform["sep"] == pytest.approx(2 / T)
    assert uniform["previous"] == pytest.approx(1 / T) and uniform["self"] == pytest.approx(1 / T)
    assert cls["cls"] == pytest.approx(1.0) and cls["sep"] == 0.0
    assert own["self"] == pytest.approx(1.0) and own["entropy"] == 0.0
    assert set(stats[0, 0]) == {"layer", "head", "cls", "sep", "previous", "next", "self", "entropy"}


def test_find_heads_picks_out_positional_and_delimiter_heads():
    stats = viz.head_statistics(patterns(), TOKENS)
    assert viz.find_heads(stats, "previous", threshold=0.9) == [(0, 0)]
    assert viz.find_heads(stats, "next", threshold=0.9) == [(0, 1)]
    assert viz.find_heads(stats, "sep", threshold=0.9) == [(0, 2)]
    assert viz.find_heads(stats, "cls", threshold=0.9) == [(1, 1)]
    assert viz.find_heads(stats, "self", threshold=0.9) == [(1, 2)]
    # strongest first, ties by (layer, head): the previous, uniform and self heads put 1/8 on [CLS]
    assert viz.find_heads(stats, "cls", threshold=0.1) == [(1, 1), (0, 0), (1, 0), (1, 2)]
    assert viz.find_heads(stats, "cls", threshold=0.5) == [(1, 1)]
    assert viz.find_heads(stats, "cls", threshold=0.1, top=1) == [(1, 1)]
    frame = viz.head_statistics(patterns(), TOKENS, as_frame=True)
    assert list(frame.columns) == ["layer", "head", "cls", "sep", "previous", "next", "self", "entropy"]
    assert viz.find_heads(frame, "sep", threshold=0.9) == [(0, 2)]


def test_padding_query_rows_are_excluded_and_padding_is_never_a_neighbour():
    # batch of two: sequence 0 is 8 real tokens, sequence 1 has 5 real tokens + 3 padding
    n = 5
    att = np.zeros((1, 2, 1, T, T))  # (L, B, heads, T, T): one uniform-over-real-keys head
    att[0, 0, 0] = uniform_head()
    att[0, 1, 0, :, :n] = 1.0 / n
    att[0, 1, 0, n:, :] = 0.0
    att[0, 1, 0, n:, 0] = 1.0  # padding rows put everything on [CLS]: must not count
    tokens = [TOKENS, ["[CLS]", "a", "b", "c", "[SEP]", "[PAD]", "[PAD]", "[PAD]"]]
    mask = torch.tensor([[1] * T, [1] * n + [0] * (T - n)])
    (row,) = viz.head_statistics(att, tokens, attention_mask=mask)
    assert row["entropy"] == pytest.approx((T * math.log(T) + n * math.log(n)) / (T + n))
    assert row["cls"] == pytest.approx((T * (1 / T) + n * (1 / n)) / (T + n))  # the padding rows are left out
    # previous: pairs (i-1, i) both real -> 7 in sequence 0, 4 in sequence 1
    assert row["previous"] == pytest.approx((7 / T + 4 / n) / 11)
    # the same with input_ids and a tokenizer-like object instead of strings, padding found from the ids
    ids = torch.tensor([[101, 5, 6, 7, 102, 8, 9, 102], [101, 5, 6, 7, 102, 0, 0, 0]])

    class Tok:
        cls_token_id, sep_token_id, pad_token_id = 101, 102, 0

    (same,) = viz.head_statistics(tuple(torch.tensor(a) for a in att), input_ids=ids, tokenizer=Tok())
    assert same == pytest.approx(row)


def test_model_output_tuple_is_accepted():
    torch.manual_seed(0)
    layers = tuple(torch.softmax(torch.randn(1, 2, T, T), -1) for _ in range(3))  # L x (B, heads, T, T)
    stats = viz.head_statistics(layers, TOKENS)
    assert [(r["layer"], r["head"]) for r in stats] == [(layer, h) for layer in range(3) for h in range(2)]
    for r in stats:
        a = layers[r["layer"]][0, r["head"]].double()
        assert r["sep"] == pytest.approx(float(a[:, SEPS].sum(-1).mean()))
        assert r["next"] == pytest.approx(float(torch.diagonal(a, 1).mean()))
        assert 0.0 < r["entropy"] < math.log(T)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(), "needs tokens"),
        (dict(tokens=TOKENS[:5]), "8 tokens"),
        (dict(tokens="the cat"), "not a string"),
        (dict(input_ids=torch.zeros(1, T)), "cls_token_id"),
        (dict(input_ids=torch.zeros(1, 5), cls_token_id=1, sep_token_id=2), "input_ids must have shape"),
        (dict(tokens=TOKENS, attention_mask=torch.ones(2, T)), "attention_mask must have shape"),
    ],
)
def test_bad_input_to_head_statistics(kwargs, message):
    with pytest.raises(ValueError, match=message):
        viz.head_statistics(patterns(), **kwargs)


def test_bad_input_to_find_heads():
    stats = viz.head_statistics(patterns(), TOKENS)
    with pytest.raises(ValueError, match="kind must be one of"):
        viz.find_heads(stats, "diagonal")
    with pytest.raises(ValueError, match="between 0 and 1"):
        viz.find_heads(stats, "sep", threshold=2)
    with pytest.raises(ValueError, match="head_statistics"):
        viz.find_heads([{"layer": 0}], "sep")
