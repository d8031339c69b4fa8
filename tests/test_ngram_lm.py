"""The masked-word rules of bertedu.course.ngram_lm: Kneser–Ney is a probability distribution at every order, reads
the right side of the blank, counts continuations below the top order, and the scores use the given candidates."""

from __future__ import annotations

import math

import pytest

from bertedu.course.ngram_lm import (
    END,
    KneserNeyLM,
    UnigramRule,
    corpus_word_lists,
    masked_word_rule_scores,
    sentence_words,
)
from bertedu.training.data import read_corpus
from bertedu.training.evalsets import MaskedWordItem
from bertedu.utils import data_path

# The word after the blank decides: "hot" is followed by "tea" before "daily" and by "soup" before "slowly".
SIDES = [
    "i drink hot tea daily",
    "i drink hot soup slowly",
    "we eat hot soup slowly",
    "they sip hot tea daily",
    "the tea is hot",
    "the soup is hot",
]


@pytest.fixture(scope="module")
def course_words():
    return corpus_word_lists(read_corpus(data_path("simple_sentences.txt")))


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_probabilities_sum_to_one_after_any_history(course_words, order):
    lm = KneserNeyLM(course_words, order=order)
    for history in [(), ("the",), ("the", "cat"), ("never", "seen"), ("<s>", "<s>"), ("cat", "sleeps", "by")]:
        total = sum(lm.prob(w, history) for w in lm.vocabulary)
        assert total == pytest.approx(1.0, abs=1e-9), (order, history)
    assert END in lm.vocabulary


def test_the_right_side_of_the_blank_decides():
    lm = KneserNeyLM([s.split() for s in SIDES])
    candidates = sorted(lm.vocabulary - {END})
    assert lm.rank("i drink hot [MASK] slowly".split(), 3, candidates)[0] == "soup"
    assert lm.rank("i drink hot [MASK] daily".split(), 3, candidates)[0] == "tea"
    unigram = UnigramRule([s.split() for s in SIDES])  # one answer for both: the most frequent word
    assert unigram.rank("i drink hot [MASK] slowly".split(), 3, candidates)[0] == "hot"


def test_lower_orders_count_continuations_not_occurrences():
    """ "francisco" occurs more often than "water", but only ever after "san": after an unseen history Kneser–Ney
    prefers "water", which follows five different words; a plain relative frequency would prefer "francisco"."""
    corpus = [["san", "francisco"]] * 6 + [[w, "water"] for w in ("cold", "hot", "salt", "fresh", "sea")]
    lm = KneserNeyLM(corpus, order=2)
    assert lm.prob("water", ["unseen"]) > lm.prob("francisco", ["unseen"])
    assert lm.prob("francisco", ["san"]) > 0.85
    # by hand: P(water | unseen) = P1(water) = (N1+(. water) - D + D * types / |V|) / N1+(. .), where N1+(. .)
    # adds up the continuations: water 5, </s> 2 (after francisco, water), san, francisco and the 5 adjectives 1
    types, total = 9, 14  # 9 words (</s> included) follow something
    assert len(lm.vocabulary) == 9
    assert lm.prob("water", ["unseen"]) == pytest.approx((5 - 0.75 + 0.75 * types / 9) / total)


def test_fill_log_prob_counts_only_the_terms_with_the_blank():
    lm = KneserNeyLM([s.split() for s in SIDES], order=3)
    words = "i drink hot [MASK] slowly".split()
    padded = ["<s>", "<s>", *words[:3], "soup", "slowly", END]
    expected = sum(math.log(lm.prob(padded[j], padded[j - 2 : j])) for j in (5, 6, 7))
    assert lm.fill_log_prob(words, 3, "soup") == pytest.approx(expected)


def test_scores_rank_the_given_candidates_and_count_any_answer():
    lm = KneserNeyLM([sentence_words(s) for s in SIDES])
    items = [
        MaskedWordItem("I drink hot [MASK] slowly.", ("soup",)),
        MaskedWordItem("I drink hot [MASK] daily.", ("coffee", "tea")),
        MaskedWordItem("the [MASK] is hot", ("tea",)),  # a tie with "soup": alphabetical, so second
    ]
    scores = masked_word_rule_scores(lm, items, ["soup", "tea", "daily"], k=2)
    assert scores["n"] == 3 and scores["predictions"][0] == ["soup", "tea"]
    assert scores["top1"] == pytest.approx(2 / 3) and scores["top2"] == 1.0
    only_daily = masked_word_rule_scores(lm, items, ["daily"], k=1)
    assert only_daily["top1"] == 0.0 and only_daily["predictions"] == [["daily"]] * 3


def test_wrong_inputs_say_what_to_pass():
    with pytest.raises(ValueError, match="list of word lists"):
        KneserNeyLM("i drink tea")
    with pytest.raises(ValueError, match="sentence_words"):
        KneserNeyLM(["i drink tea"])
    with pytest.raises(ValueError, match="exactly one"):
        masked_word_rule_scores(UnigramRule([["a"]]), [MaskedWordItem("no blank here", ("a",))], ["a"])
    with pytest.raises(ValueError, match="discount"):
        KneserNeyLM([["a"]], discount=1.5)
    assert sentence_words("It's [MASK].") == ["it", "'", "s", "[MASK]", "."]
