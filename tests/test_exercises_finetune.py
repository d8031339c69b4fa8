"""Checkers of notebook 07's exercises: right answers pass, typical wrong answers fail with a helpful message."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from bertedu.teaching.exercises import finetune as ex


def _solution(exercise, name):
    ns = {"torch": torch, "ex": ex}
    exec(exercise.solution_code, ns)
    return ns[name]


# ------------------------------------------------------------------------------------------ align labels
def test_align_labels_solution_passes():
    result = ex.align_labels.check(_solution(ex.align_labels, "my_align"))
    assert result.passed, result.message
    ok, msg = ex.check_align_labels(ex.reference_align)
    assert ok and "first piece" in msg, msg


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
    result = ex.decode_span.check(_solution(ex.decode_span, "my_decode"))
    assert result.passed, result.message


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
    assert not ok and "start 5 > end 4" in msg and "argmax" in msg, msg
    ok, msg = ex.check_decode_span(ignores_context)
    assert not ok and "not inside the context" in msg, msg
    ok, msg = ex.check_decode_span(first_token)
    assert not ok and "valid but scores" in msg, msg
    ok, msg = ex.check_decode_span(lambda s, e, m: 3)
    assert not ok and "pair (start, end)" in msg, msg


# ------------------------------------------------------------------------------------------ span loss
def buggy_span_loss(start_logits, end_logits, start_positions, end_positions):  # the notebook's starter
    log_p_start = start_logits.log_softmax(dim=0)
    log_p_end = end_logits.log_softmax(dim=0)
    rows = torch.arange(len(start_positions))
    nll = -(log_p_start[rows, start_positions] + log_p_end[rows, end_positions]) / 2
    return nll.mean()


@pytest.mark.slow
def test_fix_span_loss_solution_and_equivalent_fixes_pass():
    result = ex.fix_span_loss.check(_solution(ex.fix_span_loss, "my_span_loss"))
    assert result.passed, result.message

    def with_cross_entropy(s, e, sp, ep):
        return (F.cross_entropy(s, sp) + F.cross_entropy(e, ep)) / 2

    def dim_one(s, e, sp, ep):  # dim=1 is the position axis of a (B, T) tensor too
        rows = torch.arange(len(sp))
        return -(s.log_softmax(1)[rows, sp] + e.log_softmax(1)[rows, ep]).mean() / 2

    for fn in (with_cross_entropy, dim_one, ex.reference_span_loss):
        ok, msg = ex.check_fix_span_loss(fn)
        assert ok and "dim=-1" in msg, msg


def test_fix_span_loss_matches_the_package_model():
    from support import small_bert_config

    from bertedu.core.model import BertForQuestionAnswering

    torch.manual_seed(0)
    model = BertForQuestionAnswering(small_bert_config(num_labels=2)).eval()
    ids = torch.randint(5, 97, (3, 11))
    sp, ep = torch.tensor([1, 4, 2]), torch.tensor([2, 6, 2])
    out = model(ids, start_positions=sp, end_positions=ep)
    torch.testing.assert_close(ex.reference_span_loss(out.start_logits, out.end_logits, sp, ep), out.loss)


@pytest.mark.slow
def test_fix_span_loss_names_each_mistake():
    rows = torch.arange

    def summed(s, e, sp, ep):  # the paper's sum
        return F.cross_entropy(s, sp) + F.cross_entropy(e, ep)

    def start_only(s, e, sp, ep):
        return F.cross_entropy(s, sp)

    def batch_sum(s, e, sp, ep):
        return (F.cross_entropy(s, sp, reduction="sum") + F.cross_entropy(e, ep, reduction="sum")) / 2

    def swapped(s, e, sp, ep):
        return (F.cross_entropy(s, ep) + F.cross_entropy(e, sp)) / 2

    def per_example(s, e, sp, ep):
        return (F.cross_entropy(s, sp, reduction="none") + F.cross_entropy(e, ep, reduction="none")) / 2

    def detached(s, e, sp, ep):
        return ex.reference_span_loss(s, e, sp, ep).item()

    def probabilities(s, e, sp, ep):
        r = rows(len(sp))
        return (-(s.softmax(-1)[r, sp] + e.softmax(-1)[r, ep]) / 2).mean()

    for fn, message in [
        (buggy_span_loss, "dim 0, the batch"),
        (summed, "the paper's objective"),
        (start_only, "start term only"),
        (batch_sum, "you sum over the examples"),
        (swapped, "start_logits go with start_positions"),
        (per_example, "one loss per example"),
        (detached, "loss.backward() needs the tensor"),
        (probabilities, "*log*-probability"),
        (lambda s, e, sp, ep: torch.zeros(()), "(CE(start) + CE(end)) / 2 is"),
        (lambda s, e, sp, ep: "low", "one number"),
    ]:
        ok, msg = ex.check_fix_span_loss(fn)
        assert not ok and message in msg, (fn.__name__, msg)
    assert "no parentheses" in ex.check_fix_span_loss(0.5)[1]
    assert "no answer yet" in str(ex.fix_span_loss.check(...))


def test_buggy_span_loss_is_silent_but_depends_on_the_other_examples():
    """Why the starter is a real trap: it runs and gives a plausible loss, but example 0's term changes when
    only example 1's scores change, which a per-example loss never does."""
    torch.manual_seed(0)
    s, e = torch.randn(3, 8), torch.randn(3, 8)
    sp, ep = torch.tensor([1, 2, 3]), torch.tensor([2, 2, 5])
    one = buggy_span_loss(s[:1], e[:1], sp[:1], ep[:1])
    assert one == 0  # a "batch" of one: every softmax over dim 0 is 1, the loss is exactly 0
    assert 0 < buggy_span_loss(s, e, sp, ep) < 10


# ------------------------------------------------------------------------------------------ Chinese messages
def test_the_messages_follow_the_language_with_their_composed_parts(monkeypatch):
    """In Chinese every message is Chinese, including the parts a message is built from (the "for words ..."
    prefix, the span-loss mistake, "a random case"); in English they stay what they were."""
    from bertedu import language as i18n

    def every_piece(pieces, tags):
        return [-100] + [t for p, t in zip(pieces, tags) for _ in p] + [-100]

    calls = {"n": 0}

    def wrong_on_a_random_case(start, end, mask):
        calls["n"] += 1
        if calls["n"] <= 2:  # the two hand-made cases: right
            i, j = ex._reference_decode(start, end, mask)
            return i, j
        return int(start.argmax()), int(start.argmax()) - 1  # then end before start

    cases = [
        (lambda: ex.check_align_labels(every_piece), "for words", "对于单词", "counts 3 times"),
        (
            lambda: ex.check_fix_span_loss(buggy_span_loss),
            "on a batch of B",
            "沿 dim 0（批次）",
            "dim 0, the batch",
        ),
        (lambda: ex.check_decode_span(wrong_on_a_random_case), "a random case", "一个随机样例", "not a span"),
    ]
    monkeypatch.delenv("BERTEDU_LANG", raising=False)
    try:
        for run, english_part, chinese_part, english_detail in cases:
            calls["n"] = 0
            i18n.set_language("en")
            ok, english = run()
            assert not ok and english_part in english and english_detail in english, english
            calls["n"] = 0
            i18n.set_language("zh")
            ok, chinese = run()
            assert not ok and chinese_part in chinese, chinese
            assert english_part not in chinese and english_detail not in chinese, chinese
        assert "编写 `my_align" in ex.align_labels.prompt and "找出错误" in ex.fix_span_loss.prompt
        ex.align_labels.check(None)  # an attempt opens the solution
        assert "# 只标第一个子词" in repr(ex.align_labels.solution())
    finally:
        i18n.set_language(None)
    assert ex.align_labels.prompt.startswith("Write `my_align")


def test_the_notebook_names_the_bug_with_a_phrase_of_both_languages(monkeypatch):
    """Notebook 07 asserts that the checker names the starter's bug (`"..." in buggy_check.message`). The Chinese
    edition runs the same code with Chinese messages, so the phrase it looks for must be in both."""
    import re
    from pathlib import Path

    import nbformat

    from bertedu import language as i18n

    path = Path(__file__).resolve().parents[1] / "notebooks" / "07_fine_tuning.ipynb"
    code = [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    phrases = [p for source in code for p in re.findall(r'"([^"]+)" in buggy_check\.message', source)]
    assert phrases, "notebook 07 checks what the checker says about the buggy span loss"
    monkeypatch.delenv("BERTEDU_LANG", raising=False)
    try:
        for lang in ("en", "zh"):
            i18n.set_language(lang)
            result = ex.fix_span_loss.check(buggy_span_loss)
            assert not result.passed, result.message
            for phrase in phrases:
                assert phrase in result.message, (lang, phrase, result.message)
    finally:
        i18n.set_language(None)
