"""Notebook 04's data-glue exercise (issue 28): ``collate_pairs(pairs, tokenizer, max_length)`` builds the
pretraining batch ``[CLS] A [SEP] B [SEP]`` (truncated, padded, segment ids, attention mask). A correct answer
passes, and each typical bug fails with the message that names it. Every buggy version here differs from the
correct one in one thing."""

from __future__ import annotations

import pytest
import torch

from bertedu.teaching.exercises import pretraining_inputs as ex


def make_collate(
    a_side="front",
    b_side="end",
    tie="b",
    specials=3,
    cut="segments",
    first_sep=0,
    last_sep=1,
    b_segment=1,
    pad_segment=0,
    pad_id=None,
    cls_id=None,
    sep_id=None,
    pad_to="longest",
    pad_side="right",
    mask="real",
    in_place=False,
    dtype=torch.long,
    labels="given",
):
    """A ``collate_pairs`` with at most one mistake (the defaults are the correct answer)."""

    def collate_pairs(pairs, tokenizer, max_length):
        cls = tokenizer.cls_token_id if cls_id is None else cls_id
        sep = tokenizer.sep_token_id if sep_id is None else sep_id
        pad = tokenizer.pad_token_id if pad_id is None else pad_id
        rows, segments = [], []
        for tokens_a, tokens_b, _ in pairs:
            a, b = (tokens_a, tokens_b) if in_place else (list(tokens_a), list(tokens_b))
            while cut == "segments" and len(a) + len(b) > max_length - specials:
                if len(a) > len(b) or (tie == "a" and len(a) == len(b)):
                    a.pop(0 if a_side == "front" else -1)
                else:
                    b.pop(-1 if b_side == "end" else 0)
            row = [cls, *a, sep, *b, sep]
            segment = [0] * (len(a) + 1) + [first_sep] + [b_segment] * len(b) + [last_sep]
            if cut == "row":
                row, segment = row[:max_length], segment[:max_length]
            rows.append(row)
            segments.append(segment)
        T = max_length if pad_to == "max_length" else max(map(len, rows))

        def padded(row, value):
            fill = [value] * (T - len(row))
            return fill + row if pad_side == "left" else row + fill

        attention = [padded([1] * len(row), 0) for row in rows]
        if mask == "all":
            attention = [[1] * T for _ in rows]
        elif mask == "inverted":
            attention = [[1 - m for m in row] for row in attention]
        return {
            "input_ids": torch.tensor([padded(row, pad) for row in rows], dtype=dtype),
            "token_type_ids": torch.tensor(
                [padded(s, pad if pad_segment == "pad" else pad_segment) for s in segments]
            ),
            "attention_mask": torch.tensor(attention),
            "next_sentence_label": torch.tensor(
                [label if labels == "given" else 1 - label for *_, label in pairs]  # "flipped": 0 <-> 1
            ),
        }

    return collate_pairs


def verdict(answer):
    result = ex.collate_batch.check(answer)
    return result.passed, result.message


def test_the_reference_solution_passes():
    ns = {"ex": ex, "torch": torch}
    exec(ex.collate_batch.solution_code, ns)  # ends with its own check
    assert verdict(ns["collate_pairs"]) == (True, ex.check_collate_batch(ns["collate_pairs"])[1])
    passed, message = verdict(make_collate())
    assert passed and "PretrainingCollator" in message, message


def test_the_reference_batch_is_the_package_pipeline():
    """The checker's reference is build_nsp_example + PretrainingCollator, unmasked: [CLS] first, two [SEP]
    per row, rows no longer than max_length, and cases that truncate and cases that pad."""
    truncated = padded = False
    for tokenizer in ex.batch_tokenizers():
        for pairs, max_length in ex.batch_cases(tokenizer):
            batch = ex.reference_batch(pairs, tokenizer, max_length)
            ids, real = batch["input_ids"], batch["attention_mask"].bool()
            assert ids.size(1) <= max_length and (ids[:, 0] == tokenizer.cls_token_id).all()
            assert ((ids == tokenizer.sep_token_id) & real).sum(dim=1).eq(2).all()
            assert (ids[~real] == tokenizer.pad_token_id).all() and (
                batch["token_type_ids"][~real] == 0
            ).all()
            truncated |= any(len(a) + len(b) + 3 > max_length for a, b, _ in pairs)
            padded |= bool((~real).any())
    assert truncated and padded
    pads = {tokenizer.pad_token_id for tokenizer in ex.batch_tokenizers()}
    assert 0 in pads and len(pads) == 2  # one vocabulary whose [PAD] is not 0


@pytest.mark.parametrize(
    "bug, words",
    [
        (dict(first_sep=1), "first [SEP] has segment id 1"),
        (dict(last_sep=0), "final [SEP] has segment id 0"),
        (dict(b_segment=0, last_sep=0), "every token has segment id 0"),
        (dict(pad_segment=1), "padding's segment id must be 0"),
        (dict(pad_segment="pad"), "padded token_type_ids with the [PAD] id"),
        (dict(mask="all"), "1 on the padding too"),
        (dict(mask="inverted"), "inverted"),
        (dict(pad_id=0), "padded input_ids with 0"),
        (dict(cls_id=2), "not this tokenizer's [CLS] id"),
        (dict(sep_id=3), "not this tokenizer's [SEP] id"),
        (dict(pad_side="left"), "padded on the left"),
        (dict(pad_to="max_length"), "pad to the longest row"),
        (dict(a_side="end"), "A was cut at its end"),
        (dict(b_side="front"), "B was cut at its front"),
        (dict(a_side="end", b_side="front"), "both cut on the wrong side"),
        (dict(tie="a"), "B on a tie"),
        (dict(cut="row"), "drops the final [SEP]"),
        (dict(cut="none"), "you did not truncate"),
        (dict(specials=0), "[CLS] and the two [SEP] count too"),
        (dict(in_place=True), "changed the token lists"),
        (dict(dtype=torch.float32), "use torch.long"),
    ],
)
def test_each_mistake_is_named(bug, words):
    passed, message = verdict(make_collate(**bug))
    assert not passed and words in message, message


def test_answers_of_the_wrong_form_are_named():
    assert "not a list" in verdict(lambda pairs, tokenizer, max_length: [])[1]
    keys = lambda pairs, tokenizer, max_length: {"input_ids": torch.zeros(1, dtype=torch.long)}
    assert "has no token_type_ids" in verdict(keys)[1]
    passed, message = verdict(42)
    assert not passed and "pass your function itself" in message


def test_a_stub_is_not_attempted():
    def collate_pairs(pairs, tokenizer, max_length):
        raise NotImplementedError

    result = ex.collate_batch.check(collate_pairs)
    assert not result.passed and not result.attempted


def test_collate_with_the_nsp_labels_swapped_is_named():
    """Mutation review 2026-12-06, N7: a collate_pairs that swaps IsNext and NotNext (Hugging Face reads 0 as
    IsNext) must not get full marks; the checker compares the labels' values, not only their shape."""
    passed, message = verdict(make_collate(labels="flipped"))
    assert not passed and "next_sentence_label" in message, message
