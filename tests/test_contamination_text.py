"""The contamination audit (bertedu.training.contamination): each kind of overlap is found, the near misses are not,
and each pair is reported once with its strongest kind."""

from __future__ import annotations

import pytest

from bertedu.training.contamination import (
    INSIDE,
    SAME_TEXT,
    SHARED_NGRAM,
    audit_words,
    contaminated_indices,
    contamination_audit,
)


def kinds(train, heldout, **settings) -> dict[tuple[int, int], str]:
    return {(o.train_index, o.heldout_index): o.kind for o in contamination_audit(train, heldout, **settings)}


def test_words_are_compared_without_case_or_punctuation():
    assert audit_words("Don't  STOP, (now)!") == ("don", "t", "stop", "now")
    assert audit_words("café_au-lait 3D") == ("café", "au", "lait", "3d")


def test_the_same_text_is_found_whatever_its_length_and_spelling():
    train = ["Keep your cool!", "keep your cool and smile", "digestive juices"]
    heldout = ["keep your cool", "Digestive juices."]
    assert kinds(train, heldout) == {(0, 0): SAME_TEXT, (2, 1): SAME_TEXT}  # 3 words inside text 1: language


def test_a_held_out_text_of_min_words_inside_a_training_text():
    train = ["a variety of aster with blue flowers", "a variety of roses", "of aster with blue"]
    heldout = ["a variety of aster"]
    assert kinds(train, heldout) == {(0, 0): INSIDE}
    assert kinds(train, heldout, min_words=5) == {}  # then 4 words are too short to count unless whole


def test_a_shared_run_of_n_words_and_not_of_n_minus_one():
    heldout = ["one two three four five six seven eight nine"]
    train = [
        "zero one two three four five six seven eight",  # shares 8 words in a row
        "one two three four five six seven x eight nine",  # shares 7, then 2
        "nine eight seven six five four three two one",  # the same words, backwards
    ]
    assert kinds(train, heldout) == {(0, 0): SHARED_NGRAM}
    assert kinds(train, heldout, n=7) == {(0, 0): SHARED_NGRAM, (1, 0): SHARED_NGRAM}


def test_each_pair_once_with_its_strongest_kind_and_the_indices_to_remove():
    heldout = ["the act of starting something new today", "the act of starting"]
    train = ["The act of starting something new today.", "unrelated words here", "the act of starting over"]
    overlaps = contamination_audit(train, heldout, n=8)
    assert [(o.train_index, o.heldout_index, o.kind) for o in overlaps] == [
        (0, 0, SAME_TEXT),
        (0, 1, INSIDE),
        (2, 1, INSIDE),
    ]
    assert overlaps[1].words == ("the", "act", "of", "starting")
    assert contaminated_indices(overlaps) == [0, 2]


def test_wrong_arguments_say_what_to_pass():
    with pytest.raises(ValueError, match="list of texts"):
        contamination_audit("one text", ["x"])
    with pytest.raises(ValueError, match="min_words=9 must be at most n=8"):
        contamination_audit(["a"], ["b"], min_words=9)
    with pytest.raises(ValueError, match="compares texts"):
        contamination_audit([None], ["b"])
