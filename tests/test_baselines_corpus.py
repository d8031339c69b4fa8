"""The corpus rules of bertedu.course.baselines (issue 39): rules that read only the pretraining corpus, on tiny
hand-made corpora whose answers are worked out in the comments. Their scores on the course's real files are in
tests/test_data_files.py."""

from __future__ import annotations

import math

import pytest

from bertedu.course.baselines import (
    CooccurrenceFiller,
    CorpusFacts,
    copy_answer_span,
    corpus_attributes,
    corpus_lookup_accuracy,
    ngram_mlm_accuracy,
    pair_baselines,
    sentence_baselines,
    span_baselines,
    subject_vote_pair_accuracy,
    training_answers,
)

WORLD = [
    "the cat is black and soft",
    "the black cat drinks milk",
    "every day the cat sits on the mat",
    "the dog is big",
    "the dog barks at the door",
    "the dog likes to dig in the garden",
    "the cow is black and white",
    "the cow eats grass",
]
DOCUMENTS = [WORLD[:3], WORLD[3:6], WORLD[6:]]


def test_attributes_are_read_from_is_and_are():
    # "is black and soft", "is big", "is black and white": the words after "is"/"are" and after their "and"
    assert corpus_attributes(WORLD) == {"black", "soft", "big", "white"}
    assert corpus_attributes(["the mat is by the door"]) == set()  # "by" is a function word, not an attribute
    assert corpus_attributes(["the stars are bright"]) == {"bright"}


def test_subject_is_the_first_content_word_that_is_not_an_attribute():
    facts = CorpusFacts(WORLD)
    assert facts.parse("the black cat drinks milk") == ("cat", {"black", "drink", "milk"})
    # time words and "likes" state no fact; "dig" stems to itself
    assert facts.parse("every day the dog likes to dig") == ("dog", {"dig"})
    assert facts.parse("it is black and soft") == (None, {"black", "soft"})
    # "the cat is black and soft", "the black cat drinks milk", "every day the cat sits on the mat"
    assert facts.predicates["cat"] == {"black", "soft", "drink", "milk", "sit", "mat"}
    with pytest.raises(ValueError, match="list of sentences"):
        CorpusFacts("the cat drinks milk")
    with pytest.raises(ValueError, match="no subject"):
        CorpusFacts(["the is a", "it is black"])


def test_the_lookup_checks_every_predicate_word_after_the_subject():
    facts = CorpusFacts(WORLD)
    assert facts.plausible(
        "the cat drinks milk on the mat"
    )  # drink, milk, sit? no: drink milk mat all follow cat
    assert facts.plausible("the soft cat sits on the mat")  # the attribute "soft" is not looked up
    assert not facts.plausible("the cat barks at the door")  # "bark", "door" never follow "cat"
    assert not facts.plausible("the milk drinks the cat")  # "milk" never opens a corpus sentence
    assert not facts.plausible("it drinks milk")  # no subject named: nothing to look up
    texts = ["the cat drinks milk", "the dog drinks milk", "the dog barks", "the cow barks"]
    labels = ["plausible", "implausible", "plausible", "implausible"]
    assert corpus_lookup_accuracy(texts, labels, DOCUMENTS) == 1.0
    assert corpus_lookup_accuracy(texts, labels[::-1], DOCUMENTS) == 0.0  # the labels only score it
    with pytest.raises(ValueError, match="lists of sentences"):
        corpus_lookup_accuracy(texts, labels, WORLD)  # a flat list: documents were meant


def test_the_subject_vote_counts_attributes_as_evidence():
    facts = CorpusFacts(WORLD)
    # "black": cat in 2 sentences ("is black and soft", "the black cat ..."), cow in 1 -> cat 2/3, cow 1/3;
    # "soft": cat 1 -> cat wins; "white": cow only -> "black and white" is the cow (1/3 + 1 against 2/3)
    assert facts.subject_of("it is black and soft") == "cat"
    assert facts.subject_of("it is black and white") == "cow"
    assert facts.subject_of("it barks at the door") == "dog"
    assert facts.subject_of("it likes to dig") == "dog"  # "likes" says nothing; "dig" is the dog's
    assert facts.subject_of("it is red") is None  # no word in the table
    pairs = [
        ("it is black and soft", "it drinks milk"),
        ("it barks", "it eats grass"),
        ("it is red", "it is red"),
    ]
    labels = ["same", "different", "different"]  # two unknown subjects are not "the same"
    assert subject_vote_pair_accuracy(pairs, labels, DOCUMENTS) == 1.0
    assert subject_vote_pair_accuracy(pairs, ["same", "same", "same"], DOCUMENTS) == pytest.approx(1 / 3)


def test_the_entry_points_add_the_corpus_rules_when_given_the_corpus():
    texts = ["the cat drinks milk", "the dog drinks milk"]
    labels = ["plausible", "implausible"]
    assert "corpus_lookup" not in sentence_baselines(texts, labels, texts, labels)
    with_corpus = sentence_baselines(texts, labels, texts, labels, documents=DOCUMENTS)
    assert with_corpus["corpus_lookup"] == 1.0
    other_labels = sentence_baselines(texts, ["a", "b"], texts, ["a", "b"], documents=DOCUMENTS)
    assert "corpus_lookup" not in other_labels  # the lookup answers plausible / implausible only
    pairs = [("it barks", "it digs"), ("it barks", "it eats grass")]
    pair_labels = ["same", "different"]
    scores = pair_baselines(pairs, pair_labels, pairs, pair_labels, documents=DOCUMENTS)
    assert scores["subject_vote"] == 1.0 and "subject_vote" not in pair_baselines(
        pairs, pair_labels, pairs, pair_labels
    )


def test_cooccurrence_filler_scores_by_hand():
    corpus = ["the cow eats grass", "the cow eats grass", "the cat drinks milk", "the cow gives milk"]
    filler = CooccurrenceFiller(corpus)
    # Candidates: content words, none a form of a context word ("cow", "eat" are in the sentence).
    ranked = filler.rank("the cow eats [MASK]")
    assert set(ranked) == {"grass", "cat", "drinks", "milk", "gives"}

    # score(w) = log n(w) + log((n(cow, w) + .1) / (n(w) + .1 V)) + log((n(eat, w) + .1) / (n(w) + .1 V)), V = 8:
    # grass (n 2, with "cow" 2, with "eat" 2)  log 2 + 2 log(2.1 / 2.8)           =  0.118
    # gives (n 1, cow 1, eat 0)               log(1.1 / 1.8) + log(0.1 / 1.8)     = -3.383
    # milk  (n 2, cow 1, eat 0)               log 2 + log(1.1/2.8) + log(0.1/2.8) = -3.573 (more often alone)
    # cat, drinks (n 1, never with either)    2 log(0.1 / 1.8)                    = -5.781 (a tie: alphabetical)
    assert ranked == ["grass", "gives", "milk", "cat", "drinks"]
    assert math.log(2) + math.log(1.1 / 2.8) + math.log(0.1 / 2.8) < math.log(1.1 / 1.8) + math.log(0.1 / 1.8)
    assert filler.predict("the [MASK] drinks milk", k=1) == ["cat"]
    assert (
        ngram_mlm_accuracy(filler, [("the cow eats [MASK]", "grass"), ("the [MASK] gives milk", "cat")], k=1)[
            "top1"
        ]
        == 0.5
    )  # "cow" for the second: right word for the world, wrong for the item
    with pytest.raises(ValueError, match="exactly one"):
        filler.rank("the cow eats grass")
    with pytest.raises(ValueError, match="list of sentences"):
        CooccurrenceFiller("the cow eats grass")


def test_the_copy_rule_answers_only_questions_seen_in_training():
    train = [
        ("where does the cat sit", "the cat sits on the mat the dog runs", "on the mat"),
        ("where does the cat sit", "the cat sits on the mat", "on the mat"),
        ("where does the cat sit", "the cat sits by the fire", "by the fire"),
        ("who barks", "the dog barks", "the dog"),
    ]
    remembered = training_answers(train)
    assert remembered["where does the cat sit"] == {"on the mat": 2, "by the fire": 1}
    # the most frequent training answer that is in the context, as whole words
    assert copy_answer_span("where does the cat sit", "the cat sits on the mat", remembered) == "on the mat"
    assert copy_answer_span("Where does the cat sit", "by the fire the cat sits", remembered) == "by the fire"
    assert (
        copy_answer_span("where does the cat sit", "the cat sits on the mats", remembered) == ""
    )  # not whole words
    assert (
        copy_answer_span("where does the cow stand", "the cow stands on the mat", remembered) == ""
    )  # unseen
    test = [
        ("where does the cat sit", "the cat sits on the mat", "on the mat"),  # seen: copied, right
        ("who barks", "the big dog barks", "the big dog"),  # seen, but "the dog" is not in the context
        ("who sings", "the bird sings", "the bird"),  # never asked in training
    ]
    copy = span_baselines(train, test)["copy_training_answer"]
    assert copy == {"exact_match": pytest.approx(1 / 3), "f1": pytest.approx(1 / 3)}
