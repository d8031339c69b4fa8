"""Checkers of notebook 03's exercises: right answers pass, typical wrong answers fail with a helpful message."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
import torch

from bertedu.core.masking import mask_tokens
from bertedu.teaching.exercises import masking as ex

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------------------ expected counts
def test_expected_counts_accepts_dict_and_tuple():
    right = {"[MASK]": 240, "random": 30, "unchanged": 30, "not selected": 1700}
    ok, msg = ex.check_expected_counts(right)
    assert ok and "240" in msg and "1700" in msg, msg
    ok, msg = ex.check_expected_counts((240, 30, 30, 1700))
    assert ok, msg
    ok, msg = ex.check_expected_counts({"mask": 240.0, "random": 30, "unchanged": 30, "not_selected": 1700})
    assert ok, msg
    assert ex.expected_masking_counts(2000) == pytest.approx(right)


@pytest.mark.parametrize(
    "answer, phrase",
    [
        ((300, 30, 30, 1640), "*selected*"),  # 15 % of N taken as the [MASK] count
        ((1600, 200, 200, 0), "applies to the 15 %"),  # 80/10/10 of all tokens
        ((240, 200, 200, 1360), "10 % of all tokens"),  # random/unchanged as 10 % of N
        ((240, 30, 30, 1760), "subtract all 15 %"),  # only [MASK] removed from 'not selected'
        ((240, 30, 30, 1600), "add up to 1900"),  # counts do not sum to N
        ((240, 30, 31, 1699), "check unchanged"),  # close but not right
        ("240", "four numbers"),  # wrong form
        ({"[MASK]": 240, "random": 30}, "four numbers"),
    ],
)
def test_expected_counts_typical_mistakes(answer, phrase):
    ok, msg = ex.check_expected_counts(answer)
    assert not ok and phrase in msg, msg


def test_expected_counts_exercise_wrapper():
    assert "no answer yet" in ex.expected_counts.check(...).message
    ns: dict = {}
    exec(ex.expected_counts.solution_code, ns)
    result = ex.expected_counts.check(ns["answer"])
    assert result.passed, result.message


# ------------------------------------------------------------------------------------------ coverage epochs
def test_coverage_epochs_right_answer():
    assert ex.epochs_for_coverage() == 15
    assert 0.85**15 <= 0.10 < 0.85**14
    ok, msg = ex.check_coverage_epochs(15)
    assert ok and "0.087" in msg, msg
    ok, msg = ex.check_coverage_epochs(15.0)
    assert ok, msg
    ns: dict = {}
    exec(ex.coverage_epochs.solution_code, ns)
    result = ex.coverage_epochs.check(ns["answer"])
    assert result.passed, result.message


@pytest.mark.parametrize(
    "answer, phrase",
    [
        (14, "0.103, more than 0.10"),
        (16, "not the fewest"),
        (6, "do not add up"),
        (7, "complement"),
        (15.5, "whole number"),
        (True, "whole number"),
        ("15", "whole number"),
        (0, "at least one epoch"),
    ],
)
def test_coverage_epochs_typical_mistakes(answer, phrase):
    ok, msg = ex.check_coverage_epochs(answer)
    assert not ok and phrase in msg, msg


# ------------------------------------------------------------------------------------------ fix the masking
def _notebook_starter():
    """The buggy starter exactly as notebook 03 shows it (cell 64820439): selects special tokens and labels
    every position. Read from the notebook, so the checker is tested on what students really get."""
    nb = json.loads((ROOT / "notebooks" / "03_masking_strategy.ipynb").read_text(encoding="utf-8"))
    (cell,) = [c for c in nb["cells"] if c.get("id") == "64820439"]
    ns = {"torch": torch}
    exec("".join(cell["source"]), ns)
    return ns["my_mask_tokens"]


buggy_mask_tokens = _notebook_starter()


def solution():
    ns = {"torch": torch}
    exec(ex.fix_masking.solution_code, ns)
    return ns["my_mask_tokens"]


def test_fix_masking_solution_and_package_pass():
    ok, msg = ex.check_fix_masking(solution())
    assert ok and "special tokens untouched" in msg, msg
    ok, msg = ex.check_fix_masking(lambda ids, tok, g: mask_tokens(ids, tokenizer=tok, generator=g))
    assert ok, msg


def test_fix_masking_reports_both_bugs_of_the_starter():
    ok, msg = ex.check_fix_masking(buggy_mask_tokens)
    assert not ok, msg
    assert "special positions" in msg and "[CLS]" in msg and "[PAD]" in msg
    assert "Also:" in msg and "averaged over all positions" in msg and "-100" in msg


def test_fix_masking_one_bug_left():
    fixed = solution()

    def labels_everywhere(ids, tok, g):
        masked, _ = fixed(ids, tok, g)
        return masked, ids.clone()

    ok, msg = ex.check_fix_masking(labels_everywhere)
    assert not ok and "averaged over all positions" in msg and "special positions (" not in msg, msg

    def specials_selected(ids, tok, g):
        masked, labels = buggy_mask_tokens(ids, tok, g)
        selected = masked != ids
        return masked, torch.where(selected, ids, -100)

    ok, msg = ex.check_fix_masking(specials_selected)
    assert not ok and "must never be selected" in msg and "Also:" not in msg, msg


def test_fix_masking_other_mistakes():
    fixed = solution()

    def zero_labels(ids, tok, g):
        masked, labels = fixed(ids, tok, g)
        return masked, torch.where(labels == -100, 0, labels)

    assert "must hold -100" in ex.check_fix_masking(zero_labels)[1]

    def only_mask(ids, tok, g):
        special = torch.isin(ids, torch.tensor(tok.all_special_ids))
        sel = (torch.rand(ids.shape, generator=g) < 0.15) & ~special
        out = ids.clone()
        out[sel] = tok.mask_token_id
        return out, torch.where(sel, ids, -100)

    assert "80 / 10 / 10" in ex.check_fix_masking(only_mask)[1]

    def too_many(ids, tok, g):
        special = torch.isin(ids, torch.tensor(tok.all_special_ids))
        sel = (torch.rand(ids.shape, generator=g) < 0.3) & ~special
        out = ids.clone()
        out[sel] = tok.mask_token_id
        return out, torch.where(sel, ids, -100)

    assert "selects 15 %" in ex.check_fix_masking(too_many)[1]

    def in_place(ids, tok, g):
        ids[:, 1] = tok.mask_token_id
        return ids, ids

    assert "in place" in ex.check_fix_masking(in_place)[1]

    def masked_labels(ids, tok, g):
        masked, labels = fixed(ids, tok, g)
        return masked, torch.where(labels == -100, labels, masked)

    assert "original token id" in ex.check_fix_masking(masked_labels)[1]
    assert "tuple (masked_ids, labels)" in ex.check_fix_masking(lambda ids, tok, g: ids)[1]
    assert "no parentheses" in ex.check_fix_masking(None)[1]


def test_fix_masking_exercise_wrapper_reports_student_errors():
    result = ex.fix_masking.check(lambda ids, tok: None)  # wrong signature
    assert not result.passed and "TypeError" in result.message, result.message
    result = ex.fix_masking.check(solution())
    assert result.passed, result.message


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
    assert [
        e.points for e in (ex.expected_counts, ex.coverage_epochs, ex.fix_masking, ex.masking_function)
    ] == [1, 1, 1, 2]
