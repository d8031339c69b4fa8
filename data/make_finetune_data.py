"""Generate the course's fine-tuning datasets from a small table of facts about the corpus's world.

Written for bertedu (CC BY 4.0). Standard library only, fully deterministic: running

    python data/make_finetune_data.py                  # rewrites data/finetune/
    python data/make_finetune_data.py --out /tmp/ft    # writes somewhere else

reproduces the committed files byte for byte (``tests/test_data_files.py`` checks this). Change the
facts or templates here, never the generated files by hand, then re-run the script.

Four tasks, each with train/dev/test splits (70/15/15; the pair task's and the span task's splits are dealt by
fact), sentences in the same small world as ``data/simple_sentences.txt`` (same vocabulary, same facts, no
punctuation):

- ``sentence_classification/*.tsv``: columns ``sentence`` and ``label`` (``plausible`` or
  ``implausible``), balanced in every split. Plausible sentences restate facts of the world with small
  variations; implausible ones break them (a subject that cannot do the action, subject and object
  swapped, an impossible place or object, a true fact joined to an impossible one, or a fact turned round
  such as "the sun rises in the west"). Two evaluation slices go with it: ``word_order.tsv`` (the same words in
  another order) and ``indirect.tsv`` (facts stated only through another fact: "the cat drinks what the cow
  gives").
- ``token_classification/*.jsonl``: one ``{"tokens": [...], "tags": [...]}`` per line, Universal POS
  tags from the small set in ``TAGS``.
- ``span_extraction/*.jsonl``: one ``{"question", "context", "answer", "answer_start"}`` per line,
  SQuAD style: ``context[answer_start:answer_start + len(answer)] == answer`` and the answer occurs
  exactly once in the context. The facts asked about are dealt to the splits (``deal_span_facts``): no dev or
  test question is asked in training or in the corpus.
- ``sentence_pair_classification/*.tsv``: columns ``sentence``, ``sentence_b`` and ``label`` (``same`` or ``different``):
  two sentences about "it"; do they describe the same animal or thing of the world? Built from pairs of
  facts (``IT_FACTS``) so that every sentence appears as often with ``same`` as with ``different`` and no
  pair of facts is shared between splits: the label depends on both sentences together.

The script reads ``simple_sentences.txt`` (next to it) only to leave out classification, pair, slice and tagging
sentences that are corpus lines word for word, and to keep the facts its question lines ask about out of the
span task's dev and test splits.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from itertools import permutations
from pathlib import Path

SEED = 2002  # after seed 002, the blog post whose 100-sentence corpus started this course
SPLITS = (("train", 0.70), ("dev", 0.15), ("test", 0.15))
N_CLASSIFICATION = 600  # 300 plausible + 300 implausible
N_POS = 300
# The span task's splits: examples per split. Facts, not examples, are dealt to them (deal_span_facts).
SPAN_SIZES = {"train": 252, "dev": 54, "test": 54}
SPAN_HELD_OUT = ("dev", "test")
# The sentence-pair task has its own random stream, so adding it left the three tasks above byte-identical.
PAIR_SEED = 2003
# The word-order slice of the sentence task (notebook 07 section 2, notebook 10): its own stream too.
WORD_ORDER_SEED = 2004
N_WORD_ORDER = 24  # minimal pairs, so 48 sentences
PAIR_SPLITS = (("train", 0.60), ("dev", 0.20), ("test", 0.20))  # names and order of the splits
# How many facts of each subject (IT_FACTS) go to train, dev and test: 0 or at least 2 (a "same" pair needs two).
# Dev and test hold the same six subjects with the same number of facts each, so early stopping on dev selects on
# the test's distribution (the content review of 2026-12-06, finding 2c); subjects with three facts stay in training.
PAIR_FACT_SPLITS = {
    "the cat": (4, 2, 2), "the dog": (4, 2, 2), "the bird": (2, 2, 2), "the mouse": (2, 2, 2),
    "the cow": (0, 2, 2), "the sun": (0, 2, 2), "the fish": (3, 0, 0), "the moon": (3, 0, 0),
    "the river": (3, 0, 0),
}  # fmt: skip
PAIR_RENDERINGS = 3  # sentences per ordered pair of facts (plain, with a time phrase, "it likes to ...")

# --------------------------------------------------------------------------------------------------
# The world. Each subject has the adjectives the corpus gives it (possibly none).
# --------------------------------------------------------------------------------------------------
ADJECTIVES = {
    "the cat": ["black"],
    "the dog": ["brown", "big"],
    "the bird": ["small"],
    "the fish": ["small"],
    "the mouse": ["grey", "small"],
    "the cow": ["big"],
    "the hen": ["small"],
    "the child": ["small"],
    "the sun": ["hot"],
    "the moon": ["round"],
    "the stars": ["bright"],
    "the clouds": ["white"],
    "the river": ["long"],
    "the boat": ["small"],
}

ANIMALS = ["the cat", "the dog", "the bird", "the fish", "the mouse", "the cow", "the hen"]
PEOPLE = ["the man", "the woman", "the boy", "the girl", "the child", "the farmer", "the teacher"]
SKY = ["the sun", "the moon"]
THINGS = ["the table", "the book", "the house", "the tree", "the chair", "the bread", "the rock"]

# A fact: subject, verb (3rd person), base form, the phrase a question asks for, an optional tail, the
# question type for that phrase ("where", "what", "what-with", "when", or None for subject questions only),
# the time phrases the world allows with it, the subjects for which the action is clearly impossible, and
# whether swapping subject and object / moving it to an impossible place gives a clearly implausible sentence.
FACTS = []


def fact(subj, verb, base, answer, tail="", qtype="what", times=(), bad=(), swap=True, odd_place=True):
    FACTS.append(
        {
            "subj": subj,
            "verb": verb,
            "base": base,
            "answer": answer,
            "tail": tail,
            "qtype": qtype,
            "times": list(times),
            "bad": list(bad),
            "swap": swap and qtype == "what",
            "odd_place": odd_place and qtype == "where",
        }
    )


# fmt: off
LIFELESS = SKY + THINGS
LIFELESS_NO_TREE = [t for t in LIFELESS if t != "the tree"]
NOT_PEOPLE = ANIMALS
WALKERS_NOT = ["the fish", "the cow", "the hen", *LIFELESS]
NO_FISH = ["the fish", *LIFELESS]

fact("the cat", "sits", "sit", "on the mat", qtype="where", bad=["the fish", "the sun", "the moon", "the river"])
fact("the cat", "drinks", "drink", "milk", times=["every day"], bad=LIFELESS)
fact("the cat", "sleeps", "sleep", "by the fire", qtype="where", times=["at night"], bad=NO_FISH)
fact("the cat", "chases", "chase", "the mouse", bad=NO_FISH)
fact("the cat", "catches", "catch", "the mouse", bad=["the fish", "the cow", *LIFELESS])
fact("the cat", "watches", "watch", "the bird", tail="from the window", bad=LIFELESS, swap=False)
fact("the cat", "jumps", "jump", "over the wall", qtype="where", bad=NO_FISH)
fact("the dog", "barks", "bark", "at the door", qtype="where",
     bad=["the cat", "the bird", "the fish", "the mouse", "the cow", "the hen", *LIFELESS], odd_place=False)
fact("the dog", "digs", "dig", "in the garden", qtype="where", times=["every day"], bad=NO_FISH)
fact("the dog", "hides", "hide", "a bone", tail="in the garden", bad=NO_FISH)
fact("the dog", "runs", "run", "in the park", qtype="where", bad=NO_FISH)
fact("the dog", "chases", "chase", "the ball", bad=NO_FISH)
fact("the dog", "drinks", "drink", "water", bad=LIFELESS_NO_TREE)
fact("the dog", "sleeps", "sleep", "under the table", qtype="where", times=["at night"], bad=NO_FISH)
fact("the bird", "sings", "sing", "in the tree", qtype="where", times=["every morning", "in the morning"],
     bad=["the fish", "the cow", "the dog", "the mouse", *LIFELESS], odd_place=False)
fact("the bird", "sits", "sit", "on a branch", qtype="where", bad=["the fish", "the cow", *LIFELESS],
     odd_place=False)
fact("the bird", "flies", "fly", "over the hill", qtype="where",
     bad=["the cat", "the dog", "the fish", "the mouse", "the cow", *PEOPLE, "the house", "the tree", "the table"],
     odd_place=False)
fact("the bird", "eats", "eat", "a seed", bad=LIFELESS)
fact("the bird", "builds", "build", "a nest", tail="in the tree",
     bad=["the fish", "the cow", "the dog", "the sun", "the moon", "the table", "the book"])
fact("the fish", "swims", "swim", "in the river", qtype="where", bad=LIFELESS)
fact("the fish", "hides", "hide", "under a rock", qtype="where", bad=["the cow", *LIFELESS])
fact("the mouse", "hides", "hide", "in the wall", qtype="where", bad=["the cow", *LIFELESS])
fact("the mouse", "eats", "eat", "cheese", times=["at night"], bad=LIFELESS)
fact("the mouse", "runs", "run", "from the cat", qtype=None, bad=NO_FISH)
fact("the cow", "eats", "eat", "grass", tail="in the field", times=["every day"],
     bad=["the man", "the woman", "the fish", *LIFELESS])
fact("the cow", "gives", "give", "milk", times=["every day"], bad=["the hen", "the fish", "the bird", *LIFELESS])
fact("the cow", "stands", "stand", "in the field", qtype="where",
     bad=["the fish", "the sun", "the moon", "the book", "the bread"])
fact("the hen", "lays", "lay", "an egg", times=["every morning"],
     bad=["the cow", "the dog", "the cat", "the man", "the boy", *LIFELESS])
fact("the farmer", "lives", "live", "on the farm", qtype="where",
     bad=["the sun", "the moon", "the table", "the book", "the chair", "the bread", "the rock"])
fact("the farmer", "works", "work", "in the field", qtype="where", bad=NO_FISH)
fact("the sun", "rises", "rise", "in the east", qtype="where", times=["every morning", "in the morning"],
     bad=[*ANIMALS, *PEOPLE, "the table", "the book", "the house", "the tree"], odd_place=False)
fact("the sun", "sets", "set", "in the west", qtype="where", times=["every evening", "in the evening"],
     bad=[*ANIMALS, *PEOPLE, "the table", "the book", "the house", "the tree"], odd_place=False)
fact("the sun", "shines", "shine", "in the sky", qtype="where", times=["every day"],
     bad=[*ANIMALS, *PEOPLE, *THINGS], odd_place=False)
fact("the moon", "shines", "shine", "at night", qtype="when", bad=[*ANIMALS, *PEOPLE, *THINGS])
fact("the river", "flows", "flow", "to the sea", qtype="where", bad=[*ANIMALS, *PEOPLE, *THINGS, *SKY])
fact("the boat", "floats", "float", "on the sea", qtype="where", bad=["the cow", "the house", "the sun", "the moon"])
fact("the man", "drinks", "drink", "coffee", times=["in the morning", "every morning"], bad=LIFELESS)
fact("the man", "reads", "read", "the paper", times=["in the morning"], bad=[*NOT_PEOPLE, *LIFELESS])
fact("the man", "reads", "read", "the book", times=["at night"], bad=[*NOT_PEOPLE, *LIFELESS])
fact("the man", "eats", "eat", "meat", times=["at dinner"], bad=LIFELESS)
fact("the man", "sits", "sit", "on the chair", qtype="where", tail="by the fire", times=["at night"], bad=NO_FISH)
fact("the man", "walks", "walk", "the dog", times=["in the evening"], bad=[*NOT_PEOPLE, *LIFELESS], swap=False)
fact("the woman", "drinks", "drink", "tea", times=["in the morning", "every morning"], bad=LIFELESS)
fact("the woman", "eats", "eat", "bread", bad=LIFELESS)
fact("the woman", "bakes", "bake", "bread", tail="in the kitchen", times=["in the morning"],
     bad=[*NOT_PEOPLE, *LIFELESS])
fact("the woman", "walks", "walk", "to the store", qtype="where", bad=WALKERS_NOT)
fact("the woman", "buys", "buy", "milk", tail="at the store", bad=[*NOT_PEOPLE, *LIFELESS])
fact("the woman", "plants", "plant", "a seed", tail="in the garden",
     bad=["the cat", "the dog", "the fish", "the mouse", "the cow", "the hen", *LIFELESS])
fact("the woman", "sits", "sit", "on the bench", qtype="where", tail="in the park", bad=NO_FISH)
fact("the boy", "kicks", "kick", "the ball", tail="in the park", bad=["the fish", "the bird", *LIFELESS])
fact("the boy", "climbs", "climb", "the tree", bad=["the fish", "the cow", *LIFELESS])
fact("the boy", "runs", "run", "to school", qtype="where", times=["every morning"], bad=WALKERS_NOT)
fact("the boy", "drinks", "drink", "juice", times=["at breakfast"], bad=LIFELESS)
fact("the boy", "eats", "eat", "an egg", times=["at breakfast"], bad=LIFELESS)
fact("the girl", "plays", "play", "the doll", qtype="what-with", bad=NO_FISH)
fact("the girl", "drinks", "drink", "juice", times=["at breakfast"], bad=LIFELESS)
fact("the girl", "eats", "eat", "an apple", times=["at breakfast"], bad=LIFELESS)
fact("the girl", "walks", "walk", "to school", qtype="where", times=["every morning"], bad=WALKERS_NOT)
fact("the child", "plays", "play", "the ball", qtype="what-with", tail="in the garden", bad=NO_FISH)
fact("the child", "sleeps", "sleep", "in the bed", qtype="where", times=["at night"], bad=NO_FISH)
fact("the child", "drinks", "drink", "milk", bad=LIFELESS)
fact("the child", "hides", "hide", "behind the door", qtype="where", bad=NO_FISH)
fact("the teacher", "writes", "write", "on the board", qtype="where", bad=[*NOT_PEOPLE, *LIFELESS],
     odd_place=False)
fact("the teacher", "works", "work", "at the school", qtype="where", bad=[*NOT_PEOPLE, *LIFELESS],
     odd_place=False)
fact("the family", "lives", "live", "in the house", qtype="where", bad=["the sun", "the moon", *THINGS])
fact("the family", "eats", "eat", "at the table", qtype="where", times=["at dinner", "in the evening"],
     bad=["the sun", "the moon", *THINGS], odd_place=False)

# Plural subjects (verb without -s); used in plausible sentences and spans, not swapped.
PLURAL_FACTS = [
    {"subj": "the stars", "verb": "shine", "base": "shine", "answer": "at night", "tail": "", "qtype": "when",
     "times": [], "bad": [], "swap": False, "odd_place": False},
    {"subj": "the clouds", "verb": "float", "base": "float", "answer": "in the sky", "tail": "", "qtype": "where",
     "times": [], "bad": [], "swap": False, "odd_place": False},
]

# Places no land animal, person or river can be: used for "odd place" implausible sentences.
IMPOSSIBLE_PLACES = ["in the sky", "on the moon"]
# Things nobody eats, drinks or reads: used for "odd object" implausible sentences.
ODD_OBJECTS = {
    "drinks": ["the table", "the book", "the chair", "the rock", "the moon", "the wall"],
    "eats": ["the table", "the book", "the chair", "the rock", "the moon", "the wall"],
    "reads": ["the rock", "the moon", "the bread", "the table", "the chair", "the milk"],
}

# Facts turned round: the world (and the real one) says otherwise.
CONTRADICTIONS = [
    "the sun rises in the west", "the sun sets in the east", "the sun shines at night",
    "the mouse chases the cat", "the mouse catches the cat", "the fish flies over the hill",
    "the river flows to the hill", "the cow lays an egg", "the hen gives milk", "the dog sings in the tree",
    "the cat barks at the door", "the fish sleeps by the fire", "the man reads the bone",
    "the cow climbs the tree", "the fish walks to school", "the hen reads the paper",
]
# fmt: on

# --------------------------------------------------------------------------------------------------
# Part-of-speech lexicon: Universal POS tags (https://universaldependencies.org/u/pos/), the subset this
# world needs. Every word has one tag, except "to": PART before a verb ("likes to read"), ADP otherwise
# ("walks to school"). "is/are/does/do" are AUX, as in the UD English treebanks; possessive "her" is PRON.
# --------------------------------------------------------------------------------------------------
# fmt: off
TAGS = ["ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "NOUN", "NUM", "PART", "PRON", "VERB"]
LEXICON = {}
for _tag, _words in {
    "DET": "the a an every",
    "ADP": "in on at by from with over under behind after",
    "ADV": "then again too home where when",
    "AUX": "is are does do",
    "CCONJ": "and",
    "NUM": "two four",
    "PRON": "he she they it her what who",
    "ADJ": "black brown big small grey hot round bright white long red green blue tall warm cold soft sweet "
           "dark quiet old",
    "NOUN": "cat dog bird fish mouse cow hen man woman boy girl child farmer teacher family sun moon stars "
            "clouds river boat sea sky mat milk fire wall door window garden bone park ball water table tree "
            "branch hill seed nest rock cheese grass field egg farm east west morning evening night day dinner "
            "breakfast coffee paper book meat chair tea bread kitchen store bench school juice apple doll bed "
            "board house legs wings",
    "VERB": "sits sit drinks drink sleeps sleep chases chase catches catch watches watch jumps jump barks bark "
            "digs dig hides hide runs run sings sing flies fly eats eat builds build swims swim gives give "
            "stands stand lays lay lives live works work rises rise sets set shines shine flows flow floats "
            "float reads read walks walk bakes bake buys buy plants plant kicks kick climbs climb plays play "
            "writes write has likes like takes",
}.items():
    for _w in _words.split():
        assert _w not in LEXICON, f"{_w!r} is listed twice"
        LEXICON[_w] = _tag
# fmt: on


def pos_tag(tokens):
    """Universal POS tags for a list of words of this world (ValueError for a word not in LEXICON)."""
    tags = []
    for i, w in enumerate(tokens):
        if w == "to":
            nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
            tags.append("PART" if LEXICON.get(nxt) == "VERB" else "ADP")
        elif w in LEXICON:
            tags.append(LEXICON[w])
        else:
            raise ValueError(f"no part-of-speech tag for {w!r}: add it to LEXICON")
    return tags


# --------------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------------
ALL_FACTS = FACTS + PLURAL_FACTS
CORPUS = Path(__file__).resolve().parent / "simple_sentences.txt"


def corpus_sentences():
    """The pretraining corpus's sentences: generated sentences avoid repeating them word for word."""
    return {line for line in CORPUS.read_text(encoding="utf-8").split("\n") if line}


def with_adjective(rng, subj, p=0.35):
    """The subject noun phrase, sometimes with one of the adjectives the world gives it."""
    adjs = ADJECTIVES.get(subj, [])
    if adjs and rng.random() < p:
        return subj.replace("the ", "the " + rng.choice(adjs) + " ", 1)
    return subj


def predicate(f):
    """Everything after the subject: verb, the asked-for phrase, the tail."""
    words = [f["verb"], "with " + f["answer"] if f["qtype"] == "what-with" else f["answer"]]
    if f["tail"]:
        words.append(f["tail"])
    return " ".join(words)


ANIMATE = ANIMALS + PEOPLE + ["the family"]
NO_LIKES = {"gives", "lays", "lives", "stands"}  # "the cow likes to give milk" sounds wrong


def render(rng, f, subj=None, p_adj=0.35, p_time=0.4, likes=False, time_first=None):
    """(sentence, subject phrase, time phrase) stating fact f, optionally with another subject, with an
    optional adjective and time phrase; likes=True gives "the cat likes to sit on the mat" (only for a
    subject that can like anything)."""
    subj = subj or f["subj"]
    subj_np = with_adjective(rng, subj, p_adj)
    if likes and subj in ANIMATE and f["verb"] not in NO_LIKES:
        sentence = f"{subj_np} likes to {f['base']} {predicate(f)[len(f['verb']) + 1 :]}"
    else:
        sentence = subj_np + " " + predicate(f)
    time = ""
    if f["times"] and rng.random() < p_time:
        time = rng.choice(f["times"])
        first = rng.random() < 0.5 if time_first is None else time_first
        sentence = time + " " + sentence if first else sentence + " " + time
    return sentence, subj_np, time


def can_join(f, g):
    """True if "<f> and <g's predicate>" reads well: different verbs, no repeated noun."""
    nouns = lambda h: {p.split()[-1] for p in (h["answer"], h["tail"]) if p}
    subject = f["subj"].split()[-1]
    return f["verb"] != g["verb"] and not nouns(f) & nouns(g) and subject not in predicate(g).split()


def same_subject(f):
    """Other facts about f's subject that can follow it after "and"."""
    return [g for g in FACTS if g["subj"] == f["subj"] and g is not f and can_join(f, g)]


def split(items):
    """Consecutive 70/15/15 slices of an already shuffled list."""
    n_train = round(len(items) * SPLITS[0][1])
    n_dev = round(len(items) * SPLITS[1][1])
    return {
        "train": items[:n_train],
        "dev": items[n_train : n_train + n_dev],
        "test": items[n_train + n_dev :],
    }


# --------------------------------------------------------------------------------------------------
# Task 1: plausible vs implausible sentences
# --------------------------------------------------------------------------------------------------
def make_classification(rng):
    half = N_CLASSIFICATION // 2
    plausible = set()
    corpus = corpus_sentences()
    while len(plausible) < half:
        f = rng.choice(ALL_FACTS)
        form = rng.random()
        if form < 0.2 and same_subject(f):  # two facts about the same subject
            sentence = render(rng, f, p_time=0.0)[0] + " and " + predicate(rng.choice(same_subject(f)))
        else:
            sentence = render(rng, f, likes=form > 0.8)[0]
        if sentence not in corpus:
            plausible.add(sentence)
    implausible = set(CONTRADICTIONS)
    while len(implausible) < half:
        f = rng.choice(FACTS)
        kind = rng.random()
        if kind < 0.4:  # a subject that cannot do this
            sentence = render(rng, f, subj=rng.choice(f["bad"]), likes=rng.random() < 0.2)[0]
        elif kind < 0.55 and f["swap"] and f["answer"].startswith(("the ", "a ", "an ")):
            obj = "the " + f["answer"].split(" ", 1)[1]  # subject and object swapped
            sentence = f"{obj} {f['verb']} {f['subj']}"
        elif kind < 0.7 and f["odd_place"]:  # a place where it cannot be
            sentence = f"{with_adjective(rng, f['subj'])} {f['verb']} {rng.choice(IMPOSSIBLE_PLACES)}"
        elif (
            kind < 0.8 and f["verb"] in ODD_OBJECTS and f["qtype"] == "what"
        ):  # nobody eats/drinks/reads that
            sentence = f"{with_adjective(rng, f['subj'])} {f['verb']} {rng.choice(ODD_OBJECTS[f['verb']])}"
        elif kind >= 0.8:  # a true fact joined to something this subject cannot do
            impossible = [g for g in FACTS if f["subj"] in g["bad"] and can_join(f, g)]
            if not impossible:
                continue
            sentence = render(rng, f, p_time=0.0)[0] + " and " + predicate(rng.choice(impossible))
        else:
            continue
        if sentence not in plausible:
            implausible.add(sentence)
    # stratified: each split gets the same share of both labels
    parts = {"train": [], "dev": [], "test": []}
    for label, sentences in (("plausible", plausible), ("implausible", implausible)):
        rows = [(s, label) for s in sorted(sentences)]
        rng.shuffle(rows)
        for name, chunk in split(rows).items():
            parts[name].extend(chunk)
    for rows in parts.values():
        rng.shuffle(rows)
    return parts


# --------------------------------------------------------------------------------------------------
# Task 2: part-of-speech tagging
# --------------------------------------------------------------------------------------------------
# fmt: off
EXTRA_POS_SENTENCES = [
    "the cat is soft and black", "the brown dog has four legs", "the small bird has two wings",
    "the sky is blue and bright", "the moon is bright and round", "the stars are bright",
    "the man likes to read the old book", "the grey mouse likes to hide in the wall",
    "she drinks hot tea in the kitchen", "he reads the paper", "they walk to school", "it is warm in the kitchen",
    "the child likes to hide behind the door", "the grass on the hill is green", "the long river is cold",
    "the blue sea is big and cold", "the night is quiet and dark", "the bread is soft and warm",
    "the girl likes her small doll", "every morning the boy and the girl walk to school",
    "then they play in the park", "what does the black cat drink", "where does the small fish swim",
    "who reads the book", "when do the bright stars shine", "the big cow has four legs",
    "the small hen has two legs", "the farmer takes milk to the store", "the dog runs to the park again",
    "after school the boy walks home", "the tree is green and tall", "she likes to sit on the bench",
    "he likes to walk the dog", "the boy likes to climb the tree", "the red apple is sweet",
]
# fmt: on


def make_pos(rng):
    corpus = corpus_sentences()
    in_corpus = [s for s in EXTRA_POS_SENTENCES if s in corpus]
    if in_corpus:
        raise ValueError(f"EXTRA_POS_SENTENCES must not repeat corpus sentences: {in_corpus}")
    sentences = set(EXTRA_POS_SENTENCES)
    while len(sentences) < N_POS:
        s = render(rng, rng.choice(ALL_FACTS), p_adj=0.5, p_time=0.5, likes=rng.random() < 0.15)[0]
        if rng.random() < 0.25:  # two facts joined by "and"
            s = s + " and " + render(rng, rng.choice(ALL_FACTS), p_adj=0.3, p_time=0.0)[0]
        if len(s.split()) <= 14 and s not in corpus:
            sentences.add(s)
    rows = sorted(sentences)
    rng.shuffle(rows)
    return split([{"tokens": s.split(), "tags": pos_tag(s.split())} for s in rows])


# --------------------------------------------------------------------------------------------------
# Task 3: span extraction
# --------------------------------------------------------------------------------------------------
def question_for(f, kind, subj_np, time):
    """(question, answer) asking for the subject, the time, or the fact's own phrase."""
    plural = f in PLURAL_FACTS
    rest = predicate(f)[len(f["verb"]) + 1 :]
    if kind == "subject":
        wh = "who" if f["subj"] in ANIMALS + PEOPLE + ["the family"] else "what"
        verb = f["verb"] + "s" if plural else f["verb"]
        return f"{wh} {verb} {rest}", subj_np
    aux = "do" if plural else "does"
    if kind == "time":
        return f"when {aux} {f['subj']} {f['base']} {rest}", time
    if f["qtype"] in ("where", "when"):
        return f"{f['qtype']} {aux} {f['subj']} {f['base']}", f["answer"]
    if f["qtype"] == "what-with":
        return f"what {aux} {f['subj']} {f['base']} with", f["answer"]
    return f"what {aux} {f['subj']} {f['base']}", f["answer"]


def question_kinds(f):
    """The kinds of question a fact can be asked (:func:`question_for`): its subject, its own phrase, its time."""
    return ["subject"] + (["slot"] if f["qtype"] else []) + (["time"] if f["times"] else [])


def questions_of(f):
    """Every question the templates can ask about fact f (the answer does not change the question)."""
    time = f["times"][0] if f["times"] else ""
    return {question_for(f, kind, f["subj"], time)[0] for kind in question_kinds(f)}


def asked_in_corpus(f, corpus_lines):
    """True if a corpus line asks one of f's questions, word for word or with more words after it
    ("what does the woman buy at the store" asks "what does the woman buy")."""
    return any(line == q or line.startswith(q + " ") for q in questions_of(f) for line in corpus_lines)


def held_out_gap(asked, name, added):
    """How far apart dev and test are (in who/what/where/when questions) if the questions ``added`` go to
    ``name``; then the size of that split, then its place in :data:`SPAN_HELD_OUT` (a sort key)."""
    after = {n: asked[n] + added if n == name else asked[n] for n in SPAN_HELD_OUT}
    gaps = [abs(after["dev"][w] - after["test"][w]) for w in ("who", "what", "where", "when")]
    return sum(gaps), sum(after[name].values()), SPAN_HELD_OUT.index(name)


def deal_span_facts(rng):
    """The facts of the span task dealt to train/dev/test, ``{split: [facts]}``, so that a dev or test question
    is about a fact no training question asks about, and no corpus line asks about it either (Lewis et al.
    2021's question overlap; the content review of 2026-12-06, finding 4). Facts that share a question ("who
    drinks juice": the boy and the girl) go together; a group the corpus asks about goes to train; the other
    groups are dealt to dev and test (:data:`SPAN_HELD_OUT`), each to the split that keeps the two closest in
    their numbers of who/what/where/when questions."""
    corpus_lines = corpus_sentences()
    groups = []  # lists of facts joined by a shared question
    for f in ALL_FACTS:
        joined = [g for g in groups if any(questions_of(f) & questions_of(h) for h in g)]
        for g in joined:
            groups.remove(g)
        groups.append([f, *(h for g in joined for h in g)])
    dealt = {"train": [], "dev": [], "test": []}
    free = [g for g in groups if not any(asked_in_corpus(f, corpus_lines) for f in g)]
    for g in groups:
        if g not in free:
            dealt["train"] += g
    rng.shuffle(free)
    asked = {name: Counter() for name in SPAN_HELD_OUT}  # split -> question word -> questions
    for g in free:
        added = Counter(q.split()[0] for f in g for q in questions_of(f))
        name = min(SPAN_HELD_OUT, key=lambda n: held_out_gap(asked, n, added))
        dealt[name] += g
        asked[name] += added
    return dealt


def span_example(rng, target, kind):
    """One example asking ``kind`` about ``target``: (question, context, answer), or None if this draw is ambiguous."""
    # Contexts join sentences without punctuation, as the corpus does, so a time phrase between two
    # sentences could belong to either: only the target may have one, at its start, opening the context.
    sentence, subj_np, time = render(rng, target, p_time=1.0 if kind == "time" else 0.3, time_first=True)
    # Distractors never share the target's subject, so "where does the cat sit" has one answer, and
    # never end in a time ("the moon shines at night"); a target that does closes the context.
    others = [f for f in ALL_FACTS if f["subj"] != target["subj"] and f["qtype"] != "when"]
    parts = [render(rng, f, p_time=0.0)[0] for f in rng.sample(others, rng.randint(2, 3))]
    if time:
        position = 0
    elif target["qtype"] == "when":
        position = len(parts)
    else:
        position = rng.randint(0, len(parts))
    parts.insert(position, sentence)
    context = " ".join(parts)
    question, answer = question_for(target, kind, subj_np, time)
    # one answer only: the answer string occurs once, and for a subject question so does the predicate
    if context.count(answer) != 1:
        return None
    if kind == "subject" and context.count(" " + predicate(target)) != 1:
        return None
    return question, context, answer


def make_spans(rng):
    """:data:`SPAN_SIZES` examples per split, each a question about a fact of its split (:func:`deal_span_facts`):
    the split's questions are asked in turn (in a new order on every round, each time with a new context), so
    every question of a split is asked about equally often. A context's distractor sentences may state any
    fact; its question never asks about a fact of another split."""
    dealt = deal_span_facts(rng)
    parts, seen = {}, set()
    for name, size in SPAN_SIZES.items():
        asks = [(f, kind) for f in dealt[name] for kind in question_kinds(f)]
        examples, queue = [], []
        while len(examples) < size:
            if not queue:
                queue = list(asks)
                rng.shuffle(queue)
            made = span_example(rng, *queue[-1])
            if made is None or made[:2] in seen:
                continue  # draw another context for the same question
            queue.pop()
            seen.add(made[:2])
            question, context, answer = made
            examples.append(
                {
                    "question": question,
                    "context": context,
                    "answer": answer,
                    "answer_start": context.index(answer),
                }
            )
        parts[name] = examples
    return parts


# --------------------------------------------------------------------------------------------------
# Task 4: sentence pairs. Do two sentences about "it" describe the same animal or thing?
# --------------------------------------------------------------------------------------------------
# What the world says of each animal or thing, as "it <predicate>": every predicate belongs to exactly one
# of them in the corpus (no "drinks water": the dog and the cow both do; no "shines in the sky": the sun and
# the moon both do). People are left out: "he"/"she" would give the answer away.
# fmt: off
IT_FACTS = {
    "the cat": ["sits on the mat", "drinks milk", "sleeps by the fire", "chases the mouse", "catches the mouse",
                "watches the bird from the window", "jumps over the wall", "is black and soft"],
    "the dog": ["barks at the door", "digs in the garden", "hides a bone in the garden", "runs in the park",
                "chases the ball", "sleeps under the table", "is big and brown", "drinks water from a bowl"],
    "the bird": ["sings in the tree", "sits on a branch", "flies over the hill", "eats a seed",
                 "builds a nest in the tree", "sleeps in the nest"],
    "the fish": ["swims in the river", "hides under a rock", "lives in the river"],
    "the mouse": ["hides in the wall", "eats cheese", "runs from the cat", "is small and grey", "lives in the wall",
                  "runs in the kitchen at night"],
    "the cow": ["eats grass in the field", "gives milk", "stands in the field", "is black and white"],
    "the sun": ["rises in the east", "sets in the west", "is hot and bright", "shines on the grass"],
    "the moon": ["shines at night", "is round and white", "shines over the hill"],
    "the river": ["flows to the sea", "is long and cold", "flows from the hill to the sea"],
}
# fmt: on
IT_ANIMALS = {"the cat", "the dog", "the bird", "the fish", "the mouse", "the cow"}
# Time phrases the world allows with a predicate (as in FACTS), and the base forms "likes to ..." needs.
IT_TIMES = {predicate(f): f["times"] for f in FACTS if f["times"]}
IT_BASE = {f["verb"]: f["base"] for f in FACTS if f["verb"] not in NO_LIKES}


def render_it(rng, subj, pred):
    """One sentence about "it" stating ``pred``: plain, with a time phrase the world allows, or "it likes to ..."."""
    verb, rest = pred.split(" ", 1)
    form = rng.random()
    if form < 0.25 and subj in IT_ANIMALS and verb in IT_BASE:
        return f"it likes to {IT_BASE[verb]} {rest}"
    sentence = f"it {pred}"
    if form > 0.5 and IT_TIMES.get(pred):
        time = rng.choice(IT_TIMES[pred])
        sentence = f"{time} {sentence}" if rng.random() < 0.5 else f"{sentence} {time}"
    return sentence


def mixed_facts(x, y):
    """The two "different" pairs of sentences that matching positives x and y create."""
    return {frozenset((x[3], y[4])), frozenset((y[3], x[4]))}


def pair_up(rng, positives, taken):
    """Match every positive (subject, fact a, fact b, sentence a, sentence b) with one of another subject, never
    making a "different" pair of sentences that is in ``taken`` or already made: [(x, y), ...], or None if this
    shuffle gets stuck (the caller tries again)."""
    pending = list(positives)
    rng.shuffle(pending)
    taken, matches = set(taken), []
    while pending:
        counts = Counter(item[0] for item in pending)
        biggest = max(sorted(counts), key=counts.__getitem__)  # the largest group first: it is the hardest
        x = next(item for item in pending if item[0] == biggest)
        pending.remove(x)
        partners = [y for y in pending if y[0] != x[0] and not mixed_facts(x, y) & taken]
        if not partners:
            return None
        y = rng.choice(partners)
        pending.remove(y)
        taken |= mixed_facts(x, y)
        matches.append((x, y))
    return matches


def deal_facts(rng):
    """Each subject's facts, shuffled and dealt to the splits by :data:`PAIR_FACT_SPLITS`: no fact (so no
    sentence) of dev or test occurs in a training pair. ``{split: {subject: [facts]}}``."""
    dealt = {name: {} for name, _ in PAIR_SPLITS}
    for subj, preds in IT_FACTS.items():
        preds = list(preds)
        rng.shuffle(preds)
        counts = PAIR_FACT_SPLITS[subj]
        if sum(counts) != len(preds) or 1 in counts:
            raise ValueError(
                f"{subj}: deal its {len(preds)} facts as 0 or at least 2 per split, not {counts}"
            )
        at = 0
        for (name, _), n in zip(PAIR_SPLITS, counts):
            if n:
                dealt[name][subj] = preds[at : at + n]
            at += n
    return dealt


def rendered_positives(rng, facts):
    """Every ordered pair of facts of one subject, each rendered up to :data:`PAIR_RENDERINGS` times as two
    different-looking sentences ("it drinks milk" / "in the morning it drinks milk"), without repeating a
    rendering: [(subject, fact a, fact b, sentence a, sentence b), ...]."""
    positives = []
    for subj, preds in sorted(facts.items()):
        for a, b in sorted(permutations(preds, 2)):
            seen = set()
            for _ in range(20 * PAIR_RENDERINGS):
                pair = (render_it(rng, subj, a), render_it(rng, subj, b))
                if pair not in seen:
                    seen.add(pair)
                    positives.append((subj, a, b, *pair))
                if len(seen) == PAIR_RENDERINGS:
                    break
    return positives


def make_pairs(rng):
    """Quadruples: for facts a1, b1 of subject X and a2, b2 of subject Y, the rows (a1, b1, same), (a2, b2, same),
    (a1, b2, different), (a2, b1, different). Every sentence of the quadruple is once with each label, so a
    model that reads one sentence only is at chance. Facts, not pairs of facts, are dealt to the splits
    (:func:`deal_facts`): a dev or test pair is about facts no training pair mentions, so the training labels
    say nothing about it (a rule that links sentences through the training "same" pairs is at chance), and
    only what the model knows of the world (pretraining on the corpus) can tell which facts belong together.
    No pair of sentences is made twice."""
    corpus = corpus_sentences()
    dealt = deal_facts(rng)
    parts, taken = {}, set()
    for name in ("test", "dev", "train"):
        positives = rendered_positives(rng, dealt[name])
        for _ in range(1000):
            matches = pair_up(rng, positives, taken)
            if matches is not None:
                break
        else:
            raise RuntimeError(f"could not pair up the {name} split; add facts to IT_FACTS")
        rows = []
        for x, y in matches:
            taken |= mixed_facts(x, y)
            a1, b1, a2, b2 = x[3], x[4], y[3], y[4]
            rows += [(a1, b1, "same"), (a2, b2, "same"), (a1, b2, "different"), (a2, b1, "different")]
        in_corpus = [s for row in rows for s in row[:2] if s in corpus]
        if in_corpus:
            raise ValueError(f"sentence-pair sentences must not be corpus sentences: {in_corpus[:3]}")
        if len({row[:2] for row in rows}) != len(rows):
            raise RuntimeError(f"the {name} split repeats a pair of sentences")
        rng.shuffle(rows)
        parts[name] = rows
    return {name: parts[name] for name in ("train", "dev", "test")}


# --------------------------------------------------------------------------------------------------
# A word-order slice of task 1: minimal pairs that differ in the order of their words only
# --------------------------------------------------------------------------------------------------
def make_word_order(rng, taken):
    """:data:`N_WORD_ORDER` minimal pairs for the sentence task's evaluation: a plausible sentence ("the black cat
    chases the mouse") and the same words with subject and object swapped ("the mouse chases the black cat"),
    labelled plausible and implausible. Each pair has one bag of words, so any bag-of-words rule labels both
    sentences alike and scores exactly 0.5: only a model that reads word order can do better. No sentence is a
    corpus line or in ``taken`` (the task's own splits). Rows ``(sentence, label)``, pairs adjacent."""
    corpus = corpus_sentences()
    swappable = [f for f in FACTS if f["swap"] and f["answer"].startswith(("the ", "a ", "an "))]
    pairs, seen = [], set(taken)
    for attempt in range(2000):
        f = swappable[attempt % len(swappable)]  # every fact in turn
        subj_np = with_adjective(rng, f["subj"], p=0.5)
        obj_np = with_adjective(rng, "the " + f["answer"].split(" ", 1)[1], p=0.5)
        verb = f"likes to {f['base']}" if rng.random() < 0.3 else f["verb"]
        tail = f" {f['tail']}" if f["tail"] else ""
        time = rng.choice(f["times"]) if f["times"] and rng.random() < 0.5 else ""
        right, wrong = f"{subj_np} {verb} {obj_np}{tail}", f"{obj_np} {verb} {subj_np}{tail}"
        if time:
            right, wrong = f"{time} {right}", f"{time} {wrong}"
        if {right, wrong} & (seen | corpus):
            continue
        seen |= {right, wrong}
        pairs.append((right, wrong))
        if len(pairs) == N_WORD_ORDER:
            break
    else:
        raise RuntimeError("could not make enough word-order pairs; add swappable facts")
    return [row for right, wrong in pairs for row in ((right, "plausible"), (wrong, "implausible"))]


# --------------------------------------------------------------------------------------------------
# An indirect slice of task 1: facts stated only through another fact
# --------------------------------------------------------------------------------------------------
# A clue names a thing by what another subject does with it, never by its name: "what the cow gives" is milk.
# Each clue: (subject or "", the rest of the clue, the thing it names, the kind of thing).
# fmt: off
CLUES = {
    "what the cow gives": ("the cow", "gives", "milk", "drink"),
    "what the cow drinks": ("the cow", "drinks", "water", "drink"),
    "what the hen lays": ("the hen", "lays", "an egg", "food"),
    "what the woman plants": ("the woman", "plants", "a seed", "food"),
    "what the boy kicks": ("the boy", "kicks", "the ball", "toy"),
    "what the dog chases": ("the dog", "chases", "the ball", "toy"),
    "what hides in the wall": ("", "hides in the wall", "the mouse", "animal"),
    "where the river flows": ("the river", "flows", "the sea", "water"),
    "where the cow drinks water": ("the cow", "drinks water", "the river", "water"),
    "where the farmer works": ("the farmer", "works", "the field", "land"),
    "where the woman plants a seed": ("the woman", "plants a seed", "the garden", "land"),
}
# A taker does something with the thing a clue names: (subject, verb, base form, the rest before the clue,
# what the world says it takes, the kinds of thing it clearly cannot take). "the cat drinks" takes milk, and
# cannot drink a food, a toy or an animal; "the boat floats" on the sea, never on land.
TAKERS = [
    ("the cat", "drinks", "drink", "", "milk", ("food", "toy", "animal")),
    ("the child", "drinks", "drink", "", "milk", ("food", "toy", "animal")),
    ("the dog", "drinks", "drink", "", "water", ("food", "toy", "animal")),
    ("the boy", "eats", "eat", "", "an egg", ("drink", "toy", "animal")),
    ("the bird", "eats", "eat", "", "a seed", ("drink", "toy")),
    ("the dog", "chases", "chase", "", "the ball", ("drink", "food")),
    ("the boy", "kicks", "kick", "", "the ball", ("drink",)),
    ("the cat", "chases", "chase", "", "the mouse", ("drink",)),
    ("the boat", "floats", "float", "", "the sea", ("land",)),
    ("the fish", "swims", "swim", "", "the river", ("land",)),
    ("the cow", "eats", "eat", "grass", "the field", ("water",)),
    ("the dog", "digs", "dig", "", "the garden", ("water",)),
]
# fmt: on
INDIRECT_SEED = 2005  # the indirect slice's own random stream: the other files stay as they were
N_INDIRECT = 15  # quadruples, so 60 sentences (every quadruple about places, the others drawn)


def indirect_quadruples():
    """Every quadruple of the indirect slice: two plausible sentences, a taker with the clue that names what it
    takes ("the cat drinks what the cow gives"), and the two implausible ones the crossing makes ("the cat drinks
    what the hen lays": an egg is no drink), for the pairs whose crossings are both clearly impossible and name
    two subjects (taker and clue). [((taker 1, clue 1), (taker 2, clue 2)), ...], sorted."""
    plausible = [(t, c) for t in TAKERS for c, clue in CLUES.items() if clue[2] == t[4] and clue[0] != t[0]]

    def impossible(t, c):
        return CLUES[c][3] in t[5] and CLUES[c][0] != t[0]

    return sorted(
        (x, y)
        for x, y in permutations(plausible, 2)
        if x < y and impossible(x[0], y[1]) and impossible(y[0], x[1])
    )


def render_indirect(rng, taker, clue):
    """A taker and a clue rendered once each (adjectives the world gives, sometimes "likes to"), so that a
    quadruple's plausible and implausible sentences share every rendering: ``(taker phrase, clue phrase)``."""
    subj, verb, base, rest, _, _ = taker
    likes = subj in ANIMATE and verb not in NO_LIKES and rng.random() < 0.3
    head = f"{with_adjective(rng, subj, p=0.4)} {'likes to ' + base if likes else verb}"
    head = f"{head} {rest}" if rest else head
    clue_subj = CLUES[clue][0]
    phrase = clue.replace(clue_subj, with_adjective(rng, clue_subj, p=0.4), 1) if clue_subj else clue
    return head, phrase


def make_indirect(rng, taken):
    """:data:`N_INDIRECT` quadruples for the sentence task's evaluation, four adjacent rows each: a plausible
    sentence, the implausible one with the same taker, the second plausible one, its implausible twin. Every
    taker phrase and every clue phrase of a quadruple occurs once with each label, so every word does too (any
    rule that judges words or clauses one by one scores 0.5 on a quadruple), and both clauses of every sentence
    are true facts of the world: only what the clue *names* decides the label. No sentence is a corpus line or
    in ``taken``. Rows ``(sentence, label)``."""
    corpus = corpus_sentences()
    candidates = indirect_quadruples()
    places = [q for q in candidates if q[0][1].startswith("where")]  # few: all of them
    chosen = places + rng.sample([q for q in candidates if q not in places], N_INDIRECT - len(places))
    rng.shuffle(chosen)
    rows, seen = [], set(taken) | corpus
    for (t1, c1), (t2, c2) in chosen:
        for _ in range(100):
            h1, p1 = render_indirect(rng, t1, c1)
            h2, p2 = render_indirect(rng, t2, c2)
            quad = [(f"{h1} {p1}", "plausible"), (f"{h1} {p2}", "implausible")]
            quad += [(f"{h2} {p2}", "plausible"), (f"{h2} {p1}", "implausible")]
            if not {s for s, _ in quad} & seen:
                break
        else:
            raise RuntimeError("could not render an indirect quadruple without repeating a sentence")
        seen |= {s for s, _ in quad}
        rows += quad
    return rows


# --------------------------------------------------------------------------------------------------
def write(out_dir: Path):
    """Generate the four tasks (a fresh random.Random(SEED) for the first three, random.Random(PAIR_SEED) for
    the pair task) and write them under out_dir."""
    rng = random.Random(SEED)
    tasks = {
        "sentence_classification": make_classification(rng),
        "token_classification": make_pos(rng),
        "span_extraction": make_spans(rng),
        "sentence_pair_classification": make_pairs(random.Random(PAIR_SEED)),
    }
    classification = {s for rows in tasks["sentence_classification"].values() for s, _ in rows}
    order_rows = make_word_order(random.Random(WORD_ORDER_SEED), classification)
    indirect_rows = make_indirect(random.Random(INDIRECT_SEED), classification | {s for s, _ in order_rows})
    for name, slice_rows in (("word_order", order_rows), ("indirect", indirect_rows)):
        path = out_dir / "sentence_classification" / f"{name}.tsv"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write("sentence\tlabel\n" + "".join(f"{s}\t{label}\n" for s, label in slice_rows))
    for task, splits in tasks.items():
        folder = out_dir / task
        folder.mkdir(parents=True, exist_ok=True)
        for name, rows in splits.items():
            if task == "sentence_classification":
                path = folder / f"{name}.tsv"
                text = "sentence\tlabel\n" + "".join(f"{s}\t{label}\n" for s, label in rows)
            elif task == "sentence_pair_classification":
                path = folder / f"{name}.tsv"
                text = "sentence\tsentence_b\tlabel\n" + "".join(
                    f"{a}\t{b}\t{label}\n" for a, b, label in rows
                )
            else:
                path = folder / f"{name}.jsonl"
                text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
    return tasks


def main(argv=None):
    parser = argparse.ArgumentParser(description="Generate bertedu's fine-tuning datasets (deterministic).")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent / "finetune",
        help="output folder (default: the finetune/ folder next to this script)",
    )
    args = parser.parse_args(argv)
    tasks = write(args.out)
    for task, splits in tasks.items():
        print(task, {name: len(rows) for name, rows in splits.items()})


if __name__ == "__main__":
    main()
