"""Checkers of notebook 02's exercises: correct answers pass, typical mistakes fail with a helpful message."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from bertedu.core.tokenizer import BertTokenizer
from bertedu.teaching.exercises import tokens as ex

# -------------------------------------------------------------------------------------------- wordpiece


def _greedy(word, vocab):
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                break
        else:
            return ["[UNK]"]
        pieces.append(piece)
        start = end
    return pieces


def test_reference_wordpiece_examples():
    assert ex.reference_wordpiece("unwanted") == ["unwa", "##nted"]
    assert ex.reference_wordpiece("running") == ["run", "##n", "##ing"]
    assert ex.reference_wordpiece("dogx") == ["[UNK]"]


def test_wordpiece_correct_passes():
    passed, message = ex.check_wordpiece(_greedy)
    assert passed and "longest piece" in message, message
    ok, msg = ex.check_wordpiece(lambda w, v: tuple(_greedy(w, v)))
    assert ok, msg


def _shortest(word, vocab):
    return ex._shortest_first(word, vocab)


def _partial_unk(word, vocab):
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                pieces.append(piece)
                start = end
                break
        else:
            pieces.append("[UNK]")
            start += 1
    return pieces


def _no_hash(word, vocab):
    return [p.removeprefix("##") for p in _greedy(word, vocab)]


@pytest.mark.parametrize(
    "fn, expected_words",
    [
        (_shortest, ["shortest", "*longest*"]),
        (_partial_unk, ["*whole word*", "[UNK]"]),
        (_no_hash, ["not in the vocabulary", "'##' prefix"]),
        (lambda w, v: list(w), ["not in the vocabulary"]),
        (lambda w, v: ["[UNK]"], ["BERT gives"]),
        (lambda w, v: None, ["returned None"]),
        (lambda w, v: "play ##ing", ["list of str"]),
        ("nope", ["pass your function"]),
    ],
)
def test_wordpiece_mistakes_are_named(fn, expected_words):
    passed, message = ex.check_wordpiece(fn)
    assert not passed, message
    for word in expected_words:
        assert word in message, message


# ------------------------------------------------------------------------------------------ segment ids


def test_reference_segment_ids_match_the_tokenizer():
    vocab = [
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
        "my",
        "dog",
        "is",
        "cute",
        "he",
        "likes",
        "play",
        "##ing",
    ]
    tok = BertTokenizer(vocab)
    enc = tok.encode("my dog is cute", "he likes playing", padding="max_length", max_length=13)
    tokens = tok.convert_ids_to_tokens(enc["input_ids"])
    assert ex.reference_segment_ids(tokens) == enc["token_type_ids"]
    assert enc["token_type_ids"] == [0] * 6 + [1] * 5 + [0, 0]


def test_segment_ids_correct_passes():
    passed, message = ex.check_segment_ids(ex.reference_segment_ids)
    assert passed and "first [SEP]" in message, message
    ok, msg = ex.check_segment_ids(lambda toks: torch.tensor(ex.reference_segment_ids(toks)))
    assert ok, msg


def _shift(tokens):  # switch to segment 1 *at* the first [SEP]
    ids, seg = [], 0
    for t in tokens:
        if t == "[SEP]" and seg == 0:
            seg = 1
            ids.append(1)
            continue
        ids.append(0 if t == "[PAD]" else seg)
    return ids


def _final_sep_in_a(tokens):  # every [SEP] gets segment 0
    return [0 if t in ("[SEP]", "[PAD]") else s for t, s in zip(tokens, ex.reference_segment_ids(tokens))]


@pytest.mark.parametrize(
    "fn, expected_words",
    [
        (_shift, ["first [SEP]", "segment 0"]),
        (_final_sep_in_a, ["final [SEP]", "segment 1"]),
        (lambda t: [s + 1 for s in ex.reference_segment_ids(t)], ["numbered from 0"]),
        (lambda t: [0 if i <= t.index("[SEP]") else 1 for i in range(len(t))], ["[PAD]", "segment 0"]),
        (lambda t: [0] * (len(t) - 1), ["one id per token"]),
        (lambda t: [1] + ex.reference_segment_ids(t)[1:], ["[CLS]"]),
        (lambda t: None, ["returned None"]),
        (None, ["pass your function"]),
    ],
)
def test_segment_ids_mistakes_are_named(fn, expected_words):
    passed, message = ex.check_segment_ids(fn)
    assert not passed, message
    for word in expected_words:
        assert word in message, message


# ------------------------------------------------------------------------------------- input embeddings


def _make(offset=0, eps=1e-12, segment=True, layer_norm=True):
    def input_embeddings(emb, input_ids, token_type_ids):
        T = input_ids.shape[1]
        h = emb.word_embeddings(input_ids) + emb.position_embeddings(torch.arange(offset, T + offset))
        if segment:
            h = h + emb.token_type_embeddings(token_type_ids)
        if not layer_norm:
            return h
        return F.layer_norm(h, h.shape[-1:], emb.LayerNorm.weight, emb.LayerNorm.bias, eps=eps)

    return input_embeddings


def test_input_embeddings_correct_passes():
    passed, message = ex.check_input_embeddings(_make())
    assert passed and "1e-12" in message, message
    ok, msg = ex.check_input_embeddings(lambda emb, i, s: emb(i, s))
    assert ok, msg
    assert ex.check_input_embeddings(
        lambda emb, i, s: emb.LayerNorm(
            emb.word_embeddings(i)
            + emb.token_type_embeddings(s)
            + emb.position_embeddings.weight[: i.shape[1]]
        )
    )[0]


@pytest.mark.parametrize(
    "kwargs, expected_words",
    [
        (dict(offset=1, eps=1e-5), ["2 problems left", "start at 1", "1e-5"]),
        (dict(offset=1), ["start at 1", "W_position[i+1]"]),
        (dict(eps=1e-5), ["eps = 1e-5", "1e-12"]),
        (dict(segment=False), ["W_segment[s_i] is missing"]),
        (dict(layer_norm=False), ["not normalised", "without the LayerNorm"]),
    ],
)
def test_input_embeddings_bugs_are_named(kwargs, expected_words):
    passed, message = ex.check_input_embeddings(_make(**kwargs))
    assert not passed, message
    for word in expected_words:
        assert word in message, message
    if "eps" in kwargs:
        assert "%" in message  # the size of the change is quantified


def test_eps_bug_is_not_negligible_at_init_scale():
    emb, ids, seg = ex._embedding_problem()
    good = ex._variant(emb, ids, seg)
    bad = ex._variant(emb, ids, seg, eps=1e-5)
    assert ((bad - good).norm() / good.norm()).item() > 1e-3


@pytest.mark.parametrize(
    "fn, expected_words",
    [
        (lambda emb, i, s: None, ["returned None"]),
        (lambda emb, i, s: emb(i, s)[:, :-1], ["expected shape"]),
        (lambda emb, i, s: emb(i, s).tolist(), ["torch.Tensor"]),
        (lambda emb, i, s: emb(i, s) * 2, ["not yet", "largest difference"]),
        ("x", ["pass your function"]),
    ],
)
def test_input_embeddings_other_mistakes(fn, expected_words):
    passed, message = ex.check_input_embeddings(fn)
    assert not passed, message
    for word in expected_words:
        assert word in message, message


def test_exercise_wrappers_and_solutions_run():
    for exercise in (ex.wordpiece, ex.segment_ids, ex.input_embeddings):
        assert exercise.hints and exercise.prompt
        assert "no answer yet" in exercise.check(...).message
        namespace = {"ex": ex, "torch": torch, "F": F}
        body = exercise.solution_code.replace(
            f"ex.{exercise.name}.check(", f"result = ex.{exercise.name}.check("
        )
        exec(body, namespace)
        assert namespace["result"].passed, (exercise.name, namespace["result"].message)


# ------------------------------------------------------------------------------------- edition conventions


def test_every_exercise_declares_its_points():
    """nbgrader's points come from ``Exercise.points``: each exercise says what it is worth (CONTRIBUTING.md)."""
    tree = ast.parse(Path(ex.__file__).read_text(encoding="utf-8"))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "Exercise"]
    assert calls
    undeclared = [
        ast.unparse(c.args[0]) if c.args else ast.unparse(c.keywords[0].value)
        for c in calls
        if not any(k.arg == "points" for k in c.keywords)
    ]
    assert not undeclared, f"declare points= on {undeclared}"
    assert (
        ex.wordpiece.points,
        ex.segment_ids.points,
        ex.input_embeddings.points,
        ex.embeddings_layer.points,
    ) == (
        2,
        1,
        1,
        2,
    )


@pytest.mark.parametrize(
    "exercise, call",
    [
        (ex.wordpiece, "ex.wordpiece.check(wordpiece)"),
        (ex.segment_ids, "ex.segment_ids.check(segment_ids)"),
        (ex.input_embeddings, "ex.input_embeddings.check(input_embeddings)"),
    ],
)
def test_a_result_instead_of_the_function_gets_the_right_call(exercise, call):
    result = exercise.check(["play", "##ing"])  # the function's result, not the function
    assert not result.passed and result.attempted, result.message
    assert call in result.message and "no parentheses" in result.message
