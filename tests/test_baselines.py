"""Tests for bertedu.course.baselines on tiny hand-made inputs whose answers are worked out by hand in the comments.

(The baselines' scores on the course's real files are checked in tests/test_data_files.py.)
"""

from __future__ import annotations

import math

import pytest

from bertedu.course.baselines import (
    STOP_WORDS,
    NaiveBayes,
    NgramFiller,
    bag_of_words_accuracy,
    content_words,
    cooccurrence_pair_accuracy,
    cooccurrence_score,
    giveaway_words,
    label_graph_pair_accuracy,
    majority_accuracy,
    majority_label,
    ngram_mlm_accuracy,
    overlap_nsp_accuracy,
    overlap_nsp_predict,
    overlap_pair_accuracy,
    pair_baselines,
    read_masked_word_items,
    read_nsp_items,
    shares_content_word,
    sliding_window_span,
    span_baselines,
    stem,
    template_span,
)

TINY_CORPUS = ["the cat drinks milk", "the dog drinks water", "the cat sits on the mat"]


# ----------------------------------------------------------------------------------------------------------
# Words and the NSP overlap rule


def test_content_words_drop_function_words():
    assert content_words("The cat sits on the mat") == {"cat", "sits", "mat"}
    assert content_words("then it is in the house") == {"house"}
    assert {"the", "a", "an", "in", "on", "and", "is", "it"} <= STOP_WORDS
    assert not {"cat", "milk", "sits", "night"} & STOP_WORDS


def test_overlap_rule_on_hand_made_pairs():
    assert shares_content_word("the cat sits", "a cat eats") and not shares_content_word(
        "the cat", "in the sun"
    )
    items = [
        ("the cat sits", "the cat eats", "IsNext"),  # shares "cat" -> IsNext: right
        ("the cat sits", "a dog runs", "NotNext"),  # nothing shared -> NotNext: right
        ("the cat sits", "the dog sits", 1),  # shares "sits" -> IsNext: wrong
        ("the sun is hot", "then it is dark", 0),  # only function words shared -> NotNext: wrong
    ]
    assert [overlap_nsp_predict(a, b) for a, b, _ in items] == [0, 1, 0, 1]
    assert overlap_nsp_accuracy(items) == 0.5
    with pytest.raises(ValueError, match="0 \\(IsNext\\) or 1 \\(NotNext\\)"):
        overlap_nsp_accuracy([("a cat", "a cat", "maybe")])
    with pytest.raises(ValueError, match="No NSP items"):
        overlap_nsp_accuracy([])


def test_readers_parse_the_course_formats(tmp_path):
    nsp = tmp_path / "nsp.tsv"
    nsp.write_text("sentence_a\tsentence_b\tlabel\nthe cat sits\tthe cat eats\tIsNext\na b\tc d\tNotNext\n")
    assert read_nsp_items(nsp) == [("the cat sits", "the cat eats", 0), ("a b", "c d", 1)]
    mlm = tmp_path / "mlm.tsv"
    mlm.write_text("sentence\tanswers\tnote\nthe cat [MASK] milk\tdrinks|likes\tx\n")
    assert read_masked_word_items(mlm) == [("the cat [MASK] milk", ("drinks", "likes"))]
    nsp.write_text("a\tb\tlabel\nx\ty\tIsNext\n")
    with pytest.raises(ValueError, match="header sentence_a<TAB>sentence_b<TAB>label"):
        read_nsp_items(nsp)
    nsp.write_text("sentence_a\tsentence_b\tlabel\nx\ty\tyes\n")
    with pytest.raises(ValueError, match="IsNext or NotNext"):
        read_nsp_items(nsp)
    mlm.write_text("sentence\tanswers\nthe cat drinks milk\tmilk\n")
    with pytest.raises(ValueError, match="exactly one \\[MASK\\]"):
        read_masked_word_items(mlm)
    with pytest.raises(FileNotFoundError):
        read_nsp_items(tmp_path / "missing.tsv")


# ----------------------------------------------------------------------------------------------------------
# The n-gram filler


def test_ngram_counts_and_stupid_backoff_by_hand():
    filler = NgramFiller(TINY_CORPUS)
    # 3 sentences of 4, 4 and 6 words, each also predicting </s>: N = 5 + 5 + 7 = 17 predicted tokens.
    assert filler.histories[()] == 17
    assert filler.counts["cat", "drinks", "milk"] == 1 and filler.counts["the", "cat"] == 2
    # S(milk | cat drinks) = count(cat drinks milk) / count(cat drinks ·) = 1/1
    assert filler.score("milk", "cat", "drinks") == 1.0
    # no "cat drinks water": back off to 0.4 * count(drinks water) / count(drinks ·) = 0.4 * 1/2
    assert filler.score("water", "cat", "drinks") == pytest.approx(0.4 * 1 / 2)
    # no "drinks mat" either: 0.4 * 0.4 * count(mat) / N; a word never seen counts as half an occurrence
    assert filler.score("mat", "cat", "drinks") == pytest.approx(0.4 * 0.4 * 1 / 17)
    assert filler.score("zebra", "cat", "drinks") == pytest.approx(0.4 * 0.4 * 0.5 / 17)
    # "the cat drinks [MASK]": milk gets log 1 + log S(</s> | drinks milk) = log 1 + log 1 = 0; water gets
    # log 0.2 + log 1. Every other word pays the unigram back-off twice, so milk, then water.
    assert filler.log_score("the cat drinks [MASK]", "milk") == 0.0
    assert filler.log_score("the cat drinks [MASK]", "water") == pytest.approx(math.log(0.2))
    assert filler.predict("the cat drinks [MASK]", k=2) == ["milk", "water"]
    assert filler.predict("the dog drinks [MASK]", k=2) == [
        "water",
        "milk",
    ]  # the subject two words back decides
    # No trigram for "bird drinks": both drinks tie at 0.4 * 1/2, and the tie goes to the alphabetically first.
    assert filler.predict("the bird drinks [MASK]", k=2) == ["milk", "water"]
    assert set(filler.rank("the cat drinks [MASK]")) == {
        "the",
        "cat",
        "dog",
        "drinks",
        "milk",
        "water",
        "sits",
        "on",
        "mat",
    }


def test_trigram_context_seen():
    filler = NgramFiller(TINY_CORPUS)
    assert filler.trigram_context_seen("the cat drinks [MASK]")  # "cat drinks milk"
    assert filler.trigram_context_seen("the bird drinks [MASK]")  # "drinks milk </s>" matches "drinks _ </s>"
    assert filler.trigram_context_seen("[MASK] cat sits")  # "<s> <s> the" matches "<s> <s> _"
    assert not filler.trigram_context_seen("the bird sits [MASK]")  # no "bird sits _", no "sits _ </s>"
    assert not filler.trigram_context_seen("a happy [MASK] sleeps")


def test_ngram_mlm_accuracy_by_hand():
    filler = NgramFiller(TINY_CORPUS)
    items = [
        ("the cat drinks [MASK]", "milk"),  # top-1 milk: right
        ("the dog drinks [MASK]", ["water"]),  # top-1 water: right
        ("the bird drinks [MASK]", "water|tea"),  # top-1 milk (tie broken alphabetically), water second
    ]
    result = ngram_mlm_accuracy(filler, items, k=2)
    assert result["top1"] == pytest.approx(2 / 3) and result["top2"] == 1.0 and result["n"] == 3
    assert result["predictions"] == [["milk", "water"], ["water", "milk"], ["milk", "water"]]


def test_ngram_errors_are_clear():
    with pytest.raises(ValueError, match="list of sentences"):
        NgramFiller("the cat drinks milk")
    with pytest.raises(ValueError, match="no words"):
        NgramFiller(["", " "])
    filler = NgramFiller(TINY_CORPUS)
    with pytest.raises(ValueError, match="exactly one \\[MASK\\]"):
        filler.predict("the [MASK] drinks [MASK]")
    with pytest.raises(ValueError, match="positive int"):
        filler.predict("the cat drinks [MASK]", k=0)
    with pytest.raises(ValueError, match="No answer"):
        ngram_mlm_accuracy(filler, [("the cat drinks [MASK]", "")])


# ----------------------------------------------------------------------------------------------------------
# Classification baselines


def test_majority():
    assert majority_label(["b", "a", "b"]) == "b" and majority_label(["b", "a"]) == "a"  # tie: alphabetical
    assert majority_accuracy(["a", "a", "b"], ["a", "b", "b", "a"]) == 0.5


def test_naive_bayes_by_hand():
    # pos: "good fun", "good" (word counts good 2, fun 1; 3 words), neg: "bad" (1 word); V = 3, priors 2/3, 1/3.
    nb = NaiveBayes().fit(["good fun", "good", "bad"], ["pos", "pos", "neg"])
    scores = nb.log_scores("good")
    assert scores["pos"] == pytest.approx(math.log(2 / 3 * (2 + 1) / (3 + 3)))  # = log 1/3
    assert scores["neg"] == pytest.approx(math.log(1 / 3 * (0 + 1) / (1 + 3)))  # = log 1/12
    # "fun bad": pos 2/3 * 2/6 * 1/6 = 1/27 < neg 1/3 * 1/4 * 2/4 = 1/24.
    assert nb.predict(["good", "bad", "fun bad", "zebra"]) == ["pos", "neg", "neg", "pos"]  # zebra: the prior
    assert (
        bag_of_words_accuracy(["good fun", "good", "bad"], ["pos", "pos", "neg"], ["fun bad"], ["pos"]) == 0.0
    )
    with pytest.raises(ValueError, match="2 texts but 1 labels"):
        NaiveBayes().fit(["a", "b"], ["x"])
    with pytest.raises(ValueError, match="list of texts"):
        nb.predict("good")


def test_giveaway_words():
    texts, labels = ["the cat sits", "the cat eats", "the dog sits"], ["x", "x", "y"]
    assert giveaway_words(texts, labels, min_count=2) == {"cat": "x"}
    assert giveaway_words(texts, labels, min_count=1) == {"cat": "x", "dog": "y", "eats": "x"}


def test_overlap_pair_accuracy_learns_which_label_goes_with_overlap():
    train = [("a cat", "the cat"), ("a dog", "the sun"), ("the cow", "a cow")]
    labels = ["same", "different", "same"]  # overlap -> same (2 of 2), no overlap -> different
    test = [("the hen", "a hen"), ("the hen", "the cow")]
    assert overlap_pair_accuracy(train, labels, test, ["same", "same"]) == 0.5


def test_pair_baselines_are_at_chance_when_the_label_needs_both_sentences():
    # One quadruple: each sentence is once with "same" and once with "different".
    a1, b1, a2, b2 = "it barks", "it digs", "it sings", "it flies"
    pairs = [(a1, b1), (a2, b2), (a1, b2), (a2, b1)]
    labels = ["same", "same", "different", "different"]
    scores = pair_baselines(pairs, labels, pairs, labels)
    # Every word comes equally often with both labels, so naive Bayes ties everywhere ("different" first);
    # no pair shares a content word ("it" is a function word), so overlap answers the majority, a tie too.
    # Scored on its own training pairs, the label graph links every "same" pair: that is what a leak looks like.
    assert scores == {
        "majority": 0.5,
        "overlap": 0.5,
        "hypothesis_only": 0.5,
        "first_only": 0.5,
        "bag_of_words": 0.5,
        "label_graph": 1.0,
    }


def test_label_graph_links_sentences_through_the_training_labels():
    """P1 of the content review: the transitive closure of the training "same" pairs finds a leaky split."""
    train = [
        ("it barks", "it digs"),
        ("it digs", "it runs"),
        ("it sings", "it flies"),
        ("it barks", "it sings"),
    ]
    labels = ["same", "same", "same", "different"]
    # "it barks" ~ "it runs" only through "it digs" (transitive); "it runs" and "it flies" are in two groups.
    leaky = [("it barks", "it runs"), ("it runs", "it flies"), ("it sings", "it flies")]
    assert label_graph_pair_accuracy(train, labels, leaky, ["same", "different", "same"]) == 1.0
    unseen = [
        ("it swims", "it hides"),
        ("it swims", "it barks"),
    ]  # sentences no training pair has: "different"
    assert label_graph_pair_accuracy(train, labels, unseen, ["same", "different"]) == 0.5
    with pytest.raises(ValueError, match="one of them 'same'"):
        label_graph_pair_accuracy(train, ["a", "b", "a", "b"], leaky, ["a", "b", "a"])


def test_cooccurrence_reads_the_corpus_documents():
    documents = [["the dog barks at the door", "the dog digs in the garden"], ["the bird sings in the tree"]]
    assert cooccurrence_score("it barks at the door", "it digs in the garden", documents) == 1.0
    assert cooccurrence_score("it barks at the door", "it sings in the tree", documents) == 0.0
    assert cooccurrence_score("it barks loudly", "it digs", documents) == 0.5  # "loudly" is in no document
    assert cooccurrence_score("it is", "it digs", documents) == 0.0  # no content word
    train = [("it barks", "it digs"), ("it barks", "it sings"), ("it sings", "it digs")]
    labels = ["same", "different", "different"]
    test = [("it digs", "it barks"), ("it sings", "it barks")]
    assert cooccurrence_pair_accuracy(train, labels, test, ["same", "different"], documents) == 1.0
    assert cooccurrence_pair_accuracy(train, labels, test, ["different", "same"], documents) == 0.0
    with pytest.raises(ValueError, match="needs the corpus"):
        cooccurrence_pair_accuracy(train, labels, test, ["same", "different"], [])
    # A task where B alone gives the label away: hypothesis-only is perfect.
    leaky = [("it barks", "yes it is"), ("it sings", "no it is not")]
    assert (
        pair_baselines(leaky, ["same", "different"], leaky, ["same", "different"])["hypothesis_only"] == 1.0
    )


def test_the_order_cue_rule_reads_which_sentence_carries_the_continuation_word():
    from bertedu.course.baselines import order_cue_nsp_accuracy, order_cue_nsp_predict

    first, second = "the dog eats its dinner", "then the dog sleeps on the mat"
    assert order_cue_nsp_predict(first, second) == 0  # the continuation comes second: IsNext
    assert order_cue_nsp_predict(second, first) == 1  # it comes first: the pair was swapped
    assert (
        order_cue_nsp_predict("later the cat eats", "the cat sleeps again") == 0
    )  # both have one: no evidence
    items = [(first, second, "IsNext"), (second, first, "NotNext"), ("a cat", "a dog", 1)]
    assert order_cue_nsp_accuracy(items) == 2 / 3
    with pytest.raises(ValueError, match="No NSP items"):
        order_cue_nsp_accuracy([])


def test_the_order_cue_rule_beats_every_order_blind_rule_on_the_swapped_file():
    from bertedu.course.baselines import order_cue_nsp_accuracy, overlap_nsp_accuracy
    from bertedu.training.evalsets import load_nsp_items
    from bertedu.utils import data_path

    items = [
        (i.sentence_a, i.sentence_b, i.next_sentence_label)
        for i in load_nsp_items(data_path("nsp_eval_hard.tsv"))
    ]
    assert overlap_nsp_accuracy(items) == 0.5
    assert order_cue_nsp_accuracy(items) == 88 / 120  # notebook 06 quotes 0.733


# ----------------------------------------------------------------------------------------------------------
# Span extraction


def test_stem_meets_the_question_s_verb():
    assert [stem(w) for w in ("sits", "watches", "flies", "glass", "sit", "is")] == [
        "sit",
        "watch",
        "fly",
        "glass",
        "sit",
        "is",
    ]


def test_sliding_window_takes_the_span_whose_neighbours_match_the_question():
    # question content stems {cat, sit}. "on the mat" has "cat sits" in its left window (2 points); so has
    # "the dog runs" (right window "the cat sits on"): the tie goes to the earlier span.
    context = "the dog runs the cat sits on the mat"
    assert sliding_window_span("where does the cat sit", context) == "the dog runs"
    # with a window of one word, a span scores 1 if its neighbour is "cat" or "sits": "on", "on the", "on the
    # mat" (after "sits") and "sings today the" (before "cat"); the longest win, then the earlier
    assert sliding_window_span(
        "where does the cat sit", "a bird sings today the cat sits on the mat", window=1
    ) == ("sings today the")
    # no candidate repeats a question word ("cow", "eats"): "the" and "grass" both see both words; the earlier wins
    assert sliding_window_span("what does the cow eat", "the cow eats grass", max_answer_length=1) == "the"
    with pytest.raises(ValueError, match="question and a context"):
        sliding_window_span("", "the cow eats grass")


def test_template_rule_answers_each_wh_type_by_hand():
    context = "every morning the small bird sits on a branch the man reads the paper the moon shines at night"
    assert (
        template_span("who sits on a branch", context) == "the small bird"
    )  # the subject, back to its article
    assert template_span("what does the man read", context) == "the paper"  # the noun phrase after the verb
    assert template_span("where does the bird sit", context) == "on a branch"  # preposition + noun phrase
    assert template_span("when does the bird sit on a branch", context) == "every morning"  # opens the clause
    assert template_span("when does the moon shine", context) == "at night"  # closes the clause
    assert (
        template_span("what does the cow give", "the big cow gives milk the dog runs") == "milk"
    )  # bare noun
    assert template_span("what shines at night", context) == "the moon"  # a subject question with "what"
    assert template_span("where does the horse sleep", context) == ""  # no such clause


def test_span_baselines_score_with_squad_metrics():
    train = [("who eats cheese", "the mouse eats cheese", "the mouse")]  # longest training answer: 2 words
    test = [
        ("where does the cat sit", "the cat sits on the mat", "on the mat"),  # template: right
        ("what does the dog chase", "the dog chases the ball", "the ball"),  # template: right
    ]
    scores = span_baselines(train, test)
    assert scores["template"] == {"exact_match": 1.0, "f1": 1.0}
    # sliding window, answers of at most 2 words: "on the" (EM 0, F1 of "on" vs "on mat" = 2·1·½/(1 + ½) = 2/3)
    # and "the ball" (EM 1, F1 1)
    assert [sliding_window_span(q, c, 2) for q, c, _ in test] == ["on the", "the ball"]
    assert scores["sliding_window"]["exact_match"] == 0.5
    assert scores["sliding_window"]["f1"] == pytest.approx((2 / 3 + 1) / 2)
    with pytest.raises(ValueError, match="question, context, answer"):
        span_baselines(train, [])


def test_hypothesis_only_reads_the_second_sentence_and_first_only_the_first():
    """Mutation review 2026-12-06, N14: in these pairs only sentence B gives the label away, so a
    hypothesis-only baseline that read sentence A would fall to chance (notebook 07's table would mislabel its
    rows the day the data changes)."""
    pairs, labels = [("it is", "yes"), ("it is", "no")] * 2, ["same", "different"] * 2
    scores = pair_baselines(pairs, labels, pairs, labels)
    assert scores["hypothesis_only"] == 1.0 and scores["first_only"] == 0.5
    swapped = [(b, a) for a, b in pairs]
    scores = pair_baselines(swapped, labels, swapped, labels)
    assert scores["hypothesis_only"] == 0.5 and scores["first_only"] == 1.0
