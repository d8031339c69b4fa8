"""Checkers of notebook 07's exercises: right answers pass, typical wrong answers fail with a helpful message."""

from __future__ import annotations

import torch

from bertedu.exercises import finetune as ex


def _solution(exercise, name):
    ns = {"torch": torch, "ex": ex}
    exec(exercise.solution_code, ns)
    return ns[name]


# ------------------------------------------------------------------------------------------ align labels
def test_align_labels_solution_passes():
    assert ex.align_labels.check(_solution(ex.align_labels, "my_align")).passed
    ok, msg = ex.check_align_labels(ex.reference_align)
    assert ok and "first piece" in msg


def test_align_labels_typical_mistakes():
    def every_piece(pieces, tags):
        return [-100] + [t for p, t in zip(pieces, tags) for _ in p] + [-100]

    def last_piece(pieces, tags):
        return [-100] + [x for p, t in zip(pieces, tags) for x in [-100] * (len(p) - 1) + [t]] + [-100]

    def zeros(pieces, tags):
        return [0 if x == -100 else x for x in ex.reference_align(pieces, tags)]

    def no_specials(pieces, tags):
        return ex.reference_align(pieces, tags)[1:-1]

    for fn, message in [
        (every_piece, "counts 3 times"),
        (last_piece, "last piece"),
        (zeros, "0 is a real tag id"),
        (no_specials, "[CLS] and [SEP]"),
        (lambda p, t: "x", "list of ints"),
        (lambda p, t: [1, 2], "tokens"),
    ]:
        ok, msg = ex.check_align_labels(fn)
        assert not ok and message in msg, (fn, msg)
    assert "no parentheses" in ex.check_align_labels([1, 2])[1]
    assert "no answer yet" in str(ex.align_labels.check(...))


# ------------------------------------------------------------------------------------------ decode span
def test_decode_span_solution_passes():
    assert ex.decode_span.check(_solution(ex.decode_span, "my_decode")).passed


def test_decode_span_typical_mistakes():
    def independent(start, end, mask):
        return int(start.argmax()), int(end.argmax())

    def ignores_context(start, end, mask):
        T = len(start)
        scores = start[:, None] + end[None, :]
        scores = scores.masked_fill(torch.ones(T, T).triu() == 0, float("-inf"))
        k = int(scores.argmax())
        return k // T, k % T

    def first_token(start, end, mask):
        k = int(mask.nonzero()[0])
        return k, k

    ok, msg = ex.check_decode_span(independent)
    assert not ok and "start 5 > end 4" in msg and "argmax" in msg
    ok, msg = ex.check_decode_span(ignores_context)
    assert not ok and "not inside the context" in msg
    ok, msg = ex.check_decode_span(first_token)
    assert not ok and "valid but scores" in msg
    ok, msg = ex.check_decode_span(lambda s, e, m: 3)
    assert not ok and "pair (start, end)" in msg


# ------------------------------------------------------------------------------------------ eval dropout
def test_fix_eval_dropout_solution_passes_and_restores_training_mode():
    result = ex.fix_eval_dropout.check(_solution(ex.fix_eval_dropout, "my_accuracy"))
    assert result.passed and "back in training mode" in result.message


def test_fix_eval_dropout_buggy_versions_fail():
    def buggy(model, batch):  # the notebook's starter: no_grad but no eval()
        with torch.no_grad():
            inputs = {k: batch[k] for k in ("input_ids", "attention_mask", "token_type_ids")}
            logits = model(**inputs).logits
        return (logits.argmax(-1) == batch["labels"]).float().mean().item()

    def frozen(model, batch):  # requires_grad_(False) does not turn dropout off either
        model.requires_grad_(False)
        return buggy(model, batch)

    def always_one(model, batch):
        model.eval()
        return 1.0

    for fn, message in [
        (buggy, "dropout is still active"),
        (frozen, "dropout is still active"),
        (always_one, "0.750"),
    ]:
        ok, msg = ex.check_fix_eval_dropout(fn)
        assert not ok and message in msg, msg
    ok, msg = ex.check_fix_eval_dropout(lambda m, b: "high")
    assert not ok and "as a number" in msg
