"""Honest baselines: what simple rules without a neural network score on the course's evaluations.

A model's score means little on its own. Before we credit BERT with "understanding", we check what a
rule a student could write in five lines gets on the same items:

- **Next-sentence prediction** (notebook 06): :func:`overlap_nsp_accuracy` predicts IsNext exactly when
  sentences A and B share a content word. On ``data/nsp_eval.tsv``, whose negatives come from other
  documents, this scores about 0.99; on ``data/nsp_eval_hard.tsv``, whose negatives are the same two
  sentences in the wrong order, it scores 0.5 by construction (ALBERT's point: other-document negatives
  make NSP a topic-matching task).
- **Masked words** (notebook 06): :class:`NgramFiller` fills a ``[MASK]`` from word counts of the
  corpus (trigram contexts, backing off to bigrams and single-word frequency). It answers most items of
  ``data/mlm_eval.tsv``, whose local contexts occur in the corpus, and far fewer of
  ``data/mlm_eval_generalise.tsv``, whose trigram contexts never do. :class:`CooccurrenceFiller` ignores word
  order and asks which words share corpus sentences with the context: it answers the generalise file far
  better (the topic gives the answer away).
- **Classification** (notebook 07): :func:`majority_accuracy` (always the most frequent training label),
  :class:`NaiveBayes` (a bag of words: multinomial naive Bayes with add-one smoothing), and for sentence
  pairs :func:`overlap_pair_accuracy` (do A and B share a content word?) and the *hypothesis-only*
  baseline (naive Bayes on the second sentence alone, :func:`pair_baselines`). A pair task whose label
  really depends on both sentences leaves the last one at chance. :func:`sentence_baselines` and
  :func:`pair_baselines` return all of them for a task.
- **The corpus as a table of facts** (notebook 07): every task of this closed world is a lookup in the facts
  the pretraining corpus states, so the strongest cheap rules read the corpus and no label.
  :class:`CorpusFacts` reads who does what; :func:`corpus_lookup_accuracy` (is every word of the sentence's
  predicate stated of its subject?) answers the sentence task, :func:`subject_vote_pair_accuracy` (do both
  sentences vote for one subject?) the pair task.
- **Span extraction** (notebook 07): :func:`sliding_window_span` (the span whose neighbourhood shares
  most words with the question, Rajpurkar et al. 2016), :func:`template_span` (the grammar of the course's
  questions written as a rule) and :func:`copy_answer_span` (the training answer of the same question: a
  leak detector); :func:`span_baselines` scores them with SQuAD's exact match and F1.

Everything here is plain Python over plain lists (the scores come from :mod:`bertedu.training.metrics`), deterministic (ties are broken alphabetically), and takes
plain lists, so the baselines do not depend on how the model code is organised. Words are the
lower-case, space-separated words of the course's files (:func:`words`).

Introduced in notebook 06 (NSP and masked-word baselines) and notebook 07 (classification and span baselines).
"""

from __future__ import annotations

import math
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from bertedu.core.validation import require_int
from bertedu.training.data import IS_NEXT, NOT_NEXT
from bertedu.training.evalsets import (
    MASK,
    NSP_LABELS,
    has_one_mask,
    load_masked_word_items,
    load_nsp_items,
    split_answers,
)
from bertedu.training.metrics import accuracy, macro_f1, squad_scores

#: Function words of the course vocabulary: determiners, prepositions, conjunctions, pronouns, question
#: words, auxiliaries and a few adverbs. Every other word is a *content word*.
STOP_WORDS = frozenset(
    """
    the a an every many all
    in on at by to from with over under behind after of for about
    and then again too later
    is are does do has
    he she they it her what who where when
    """.split()
)
#: Words that name a time of day: the heads of the phrases :func:`template_span` answers "when" with.
TIME_WORDS = frozenset({"morning", "evening", "night", "day", "breakfast", "lunch", "dinner", "noon"})
#: Verbs that say the subject does the *next* verb ("the cat likes to sit on the mat"), so they state no fact of
#: their own. The corpus rules skip them with :data:`STOP_WORDS`; the fact rules (:class:`CorpusFacts`) skip
#: :data:`TIME_WORDS` too ("every morning the hen lays an egg" is a fact about the hen).
ATTITUDE_VERBS = frozenset({"likes", "like", "wants", "want"})
_FUNCTION = STOP_WORDS | ATTITUDE_VERBS  # what the co-occurrence filler never proposes nor reads
_NO_FACT = _FUNCTION | TIME_WORDS  # what the fact rules skip
_START, _END = "<s>", "</s>"  # sentence boundaries for the n-gram counts


# ----------------------------------------------------------------------------------------------------------
# Words


def words(text: str) -> list[str]:
    """The words of a sentence: lower-cased, split on whitespace (the course's files have no punctuation)."""
    if not isinstance(text, str):
        raise ValueError(f"Expected a sentence (str), got {type(text).__name__}.")
    return text.lower().split()


def content_words(text: str) -> set[str]:
    """The words of ``text`` that are not in :data:`STOP_WORDS`: ``"the cat sits on the mat"`` -> ``{cat, sits, mat}``."""
    return {w for w in words(text) if w not in STOP_WORDS}


def shares_content_word(a: str, b: str) -> bool:
    """True if sentences ``a`` and ``b`` have a content word in common."""
    return bool(content_words(a) & content_words(b))


def stem(word: str) -> str:
    """A crude stemmer for the course's words, so that a question's "sit" meets the context's "sits":
    ``-ies`` -> ``-y``, ``-ches/-shes/-sses/-xes`` lose ``es``, another final ``s`` goes (not ``-ss``)."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


# ----------------------------------------------------------------------------------------------------------
# The evaluation files (read by bertedu.training.evalsets), as plain tuples


def read_nsp_items(path: str | os.PathLike) -> list[tuple[str, str, int]]:
    """``(sentence_a, sentence_b, label)`` triples from a file like ``data/nsp_eval.tsv``; label 0 = IsNext.

    The label column holds ``IsNext``/``NotNext`` (or Hugging Face's ``0``/``1``). Notebook 06.
    """
    return [(i.sentence_a, i.sentence_b, i.next_sentence_label) for i in load_nsp_items(path)]


def read_masked_word_items(path: str | os.PathLike) -> list[tuple[str, tuple[str, ...]]]:
    """``(sentence, answers)`` pairs from a file like ``data/mlm_eval.tsv`` (answers split on ``|``). Notebook 06."""
    return [(i.sentence, i.answers) for i in load_masked_word_items(path)]


def _check_masked_item(sentence: str, answers: Iterable[str]) -> tuple[str, ...]:
    if not isinstance(sentence, str) or not has_one_mask(sentence):
        raise ValueError(
            f"A masked-word item needs exactly one [MASK] (as a word of its own), got {sentence!r}."
        )
    answers = split_answers(answers)  # "chases|catches" or a list
    if not answers:
        raise ValueError(f"No answer given for {sentence!r}.")
    return answers


# ----------------------------------------------------------------------------------------------------------
# Next-sentence prediction (notebook 06)


def overlap_nsp_predict(sentence_a: str, sentence_b: str) -> int:
    """The word-overlap rule: IsNext (0) if A and B share a content word, else NotNext (1)."""
    return IS_NEXT if shares_content_word(sentence_a, sentence_b) else NOT_NEXT


def overlap_nsp_accuracy(items: Sequence[tuple[str, str, int | str]]) -> float:
    """Share of ``(sentence_a, sentence_b, label)`` items the overlap rule gets right (label 0/1 or IsNext/NotNext).

    What it shows: how much of "NSP accuracy" a model can earn by topic matching alone. Notebook 06.
    """
    return nsp_rule_accuracy(items, overlap_nsp_predict)


#: Words that open or mark a continuation ("then the dog sleeps", "later the cat eats again").
ORDER_CUES = frozenset({"then", "later", "after", "again", "now", "so", "too", "next", "finally", "soon"})


def order_cue_nsp_predict(sentence_a: str, sentence_b: str) -> int:
    """The order-cue rule: NotNext (1) if A holds a continuation word (:data:`ORDER_CUES`) and B does not, else
    IsNext (0). A one-line rule that reads order, where every order-blind rule scores 0.5: on
    ``data/nsp_eval_hard.tsv`` (the same two sentences in both orders) "then" opens about half of the true second
    sentences, so a pair that has it first is probably swapped."""
    has_cue = [bool(ORDER_CUES & set(words(s))) for s in (sentence_a, sentence_b)]
    return NOT_NEXT if has_cue[0] and not has_cue[1] else IS_NEXT


def order_cue_nsp_accuracy(items: Sequence[tuple[str, str, int | str]]) -> float:
    """Share of ``(sentence_a, sentence_b, label)`` items the order-cue rule (:func:`order_cue_nsp_predict`) gets
    right: the trivial baseline of the swapped-order file, which the overlap rule cannot be."""
    return nsp_rule_accuracy(items, order_cue_nsp_predict)


def nsp_rule_accuracy(items: Sequence[tuple[str, str, int | str]], predict) -> float:
    """Share of ``(sentence_a, sentence_b, label)`` items (label 0/1 or IsNext/NotNext) that
    ``predict(sentence_a, sentence_b) -> 0 or 1`` gets right."""
    items = list(items)
    if not items:
        raise ValueError("No NSP items to score.")
    right = 0
    for a, b, label in items:
        label = NSP_LABELS.get(str(label).lower()) if not isinstance(label, int) else label
        if label not in (IS_NEXT, NOT_NEXT):
            raise ValueError(f"NSP labels are 0 (IsNext) or 1 (NotNext), got {label!r} for {a!r} / {b!r}.")
        right += predict(a, b) == label
    return right / len(items)


# ----------------------------------------------------------------------------------------------------------
# Masked words: an n-gram filler (notebook 06)


class NgramFiller:
    """Fill a ``[MASK]`` with the word a trigram language model of the corpus likes best there.

    Trained on a list of sentences: it counts every word, pair and triple of consecutive words (with
    sentence-boundary markers ``<s> <s> ... </s>``). A word ``w`` after the two words ``u v`` gets the
    *stupid back-off* score of Brants et al. (2007)::

        S(w | u v) = count(u v w) / count(u v ·)        if the triple occurs in the corpus,
                   = 0.4 · count(v w) / count(v ·)       else if the pair occurs,
                   = 0.4 · 0.4 · count(w) / N            else (N: number of words).

    To fill the ``[MASK]`` it tries every corpus word ``x`` and adds up ``log S`` over the three triples
    that contain ``x`` (``x`` after its two left neighbours; ``x`` in the middle; ``x`` two before the next
    word), so the left and the right context both count. Ties go to the alphabetically first word.

    ``NgramFiller(corpus_sentences).predict("the cat drinks [MASK]", k=3)`` -> ``["milk", ...]``.
    What it shows: how many held-out masked words can be answered by copying short word sequences of the
    corpus, with no notion of who does what beyond two words away. Notebook 06.
    """

    BACKOFF = 0.4

    def __init__(self, sentences: Iterable[str]):
        if isinstance(sentences, str):
            raise ValueError(
                "NgramFiller takes a list of sentences, not one str: NgramFiller([sentence, ...])."
            )
        self.counts: Counter[tuple[str, ...]] = Counter()  # n-gram (n = 1, 2, 3) -> count
        self.histories: Counter[tuple[str, ...]] = Counter()  # (n-1)-gram -> how many n-grams it starts
        vocabulary: set[str] = set()
        for sentence in sentences:
            tokens = [_START, _START, *words(sentence), _END]
            vocabulary.update(tokens[2:-1])
            for t in range(2, len(tokens)):  # every predicted token, with its 0, 1 and 2 words of history
                for n in (1, 2, 3):
                    gram = tuple(tokens[t - n + 1 : t + 1])
                    self.counts[gram] += 1
                    self.histories[gram[:-1]] += 1
        if not vocabulary:
            raise ValueError("NgramFiller got no words: pass the corpus as a list of sentences.")
        self.vocabulary = sorted(vocabulary)

    def score(self, word: str, u: str, v: str) -> float:
        """The stupid back-off score ``S(word | u v)`` (see the class docstring)."""
        factor = 1.0
        for history in ((u, v), (v,)):
            count = self.counts[(*history, word)]
            if count:
                return factor * count / self.histories[history]
            factor *= self.BACKOFF
        # single words; a word the corpus never uses counts as half an occurrence
        return factor * max(self.counts[(word,)], 0.5) / self.histories[()]

    def _tokens(self, sentence: str) -> tuple[list[str], int]:
        tokens = [_START, _START, *words(sentence), _END]
        if not has_one_mask(sentence) or tokens.count(MASK.lower()) != 1:
            raise ValueError(
                f"The sentence needs exactly one [MASK] (as a word of its own), got {sentence!r}."
            )
        return tokens, tokens.index(MASK.lower())

    def log_score(self, sentence: str, word: str) -> float:
        """``Σ log S`` over the three triples of ``sentence`` that contain the ``[MASK]``, filled with ``word``."""
        tokens, position = self._tokens(sentence)
        tokens[position] = word
        return sum(
            math.log(self.score(tokens[t], tokens[t - 2], tokens[t - 1]))
            for t in range(position, min(position + 3, len(tokens)))
        )

    def rank(self, sentence: str) -> list[str]:
        """Every corpus word, the best filler of the ``[MASK]`` first."""
        scores = {w: self.log_score(sentence, w) for w in self.vocabulary}
        return sorted(self.vocabulary, key=lambda w: (-scores[w], w))

    def predict(self, sentence: str, k: int = 5) -> list[str]:
        """The ``k`` best fillers of the ``[MASK]`` of ``sentence``."""
        require_int("k", k, 1)
        return self.rank(sentence)[:k]

    def trigram_context_seen(self, sentence: str) -> bool:
        """True if some corpus triple matches one of the three 3-word windows around the ``[MASK]``, with any
        word in the mask's place (sentence boundaries count as words).

        ``data/mlm_eval_generalise.tsv`` is built so that this is False for every item: the trigram level of
        the model has nothing to copy there, only pairs and single words.
        """
        tokens, position = self._tokens(sentence)
        for x in self.vocabulary:
            tokens[position] = x
            for t in range(position, min(position + 3, len(tokens))):
                if self.counts[tuple(tokens[t - 2 : t + 1])]:
                    return True
        return False


def ngram_mlm_accuracy(
    filler: NgramFiller, items: Sequence[tuple[str, Sequence[str] | str]], k: int = 5
) -> dict:
    """Top-1 and top-``k`` accuracy of ``filler`` on ``(sentence, answers)`` items; ``answers`` is a list of
    words or a ``"chases|catches"`` string, and any of them counts as right.

    Returns ``{"top1": float, f"top{k}": float, "n": int, "predictions": [[word, ...] per item]}``, the same
    keys as the model's masked-word accuracy in notebook 06.
    """
    items = list(items)
    if not items:
        raise ValueError("No masked-word items to score.")
    top1 = topk = 0
    predictions = []
    for sentence, answers in items:
        answers = set(_check_masked_item(sentence, answers))
        best = filler.predict(sentence, k)
        predictions.append(best)
        top1 += best[0] in answers
        topk += bool(answers & set(best))
    return {
        "top1": top1 / len(items),
        f"top{k}": topk / len(items),
        "n": len(items),
        "predictions": predictions,
    }


class CooccurrenceFiller:
    """Fill a ``[MASK]`` with the word that shares sentences with the context's words most often: naive Bayes
    over sentence-level co-occurrence, blind to word order (the review of 2026-12-06, A3).

    Counted on the corpus sentences: ``n(w)``, how often word ``w`` occurs, and ``n(c, w)``, in how many
    sentences the (stemmed) context word ``c`` and ``w`` occur together. A candidate ``w`` scores::

        log n(w) + Σ_c log[(n(c, w) + 0.1) / (n(w) + 0.1 · V)]          (c: the context's content words)

    Candidates are the corpus's content words (not :data:`STOP_WORDS` or :data:`ATTITUDE_VERBS`) that are no
    form of a word already in the sentence ("the dog [MASK] in the garden" never gets "dog" or "dogs").
    ``CooccurrenceFiller(corpus_sentences).predict("the cow eats [MASK] in the field", k=3)``. What it shows:
    how many masked words the *topic* of the sentence gives away, with no notion of who does what.
    """

    SMOOTHING = 0.1

    def __init__(self, sentences: Iterable[str]):
        if isinstance(sentences, str):
            raise ValueError(
                "CooccurrenceFiller takes a list of sentences, not one str: CooccurrenceFiller([sentence, ...])."
            )
        self.counts: Counter[str] = Counter()  # word -> occurrences
        self.together: dict[str, Counter] = defaultdict(
            Counter
        )  # context stem -> word -> sentences with both
        for sentence in sentences:
            ws = words(sentence)
            self.counts.update(ws)
            for c in {stem(w) for w in ws if w not in _FUNCTION}:
                self.together[c].update(set(ws))
        if not self.counts:
            raise ValueError("CooccurrenceFiller got no words: pass the corpus as a list of sentences.")
        self.candidates = sorted(w for w in self.counts if w not in _FUNCTION)

    def rank(self, sentence: str) -> list[str]:
        """The candidates, the best filler of the ``[MASK]`` first (ties: alphabetical)."""
        if not has_one_mask(sentence):
            raise ValueError(
                f"The sentence needs exactly one [MASK] (as a word of its own), got {sentence!r}."
            )
        context = [w for w in words(sentence) if w != MASK.lower()]
        stems = {stem(w) for w in context}
        asked = {stem(w) for w in context if w not in _FUNCTION}
        size, a = len(self.counts), self.SMOOTHING
        scores = {}
        for w in self.candidates:
            if stem(w) in stems:
                continue
            n = self.counts[w]
            scores[w] = math.log(n) + sum(math.log((self.together[c][w] + a) / (n + a * size)) for c in asked)
        return sorted(scores, key=lambda w: (-scores[w], w))

    def predict(self, sentence: str, k: int = 5) -> list[str]:
        """The ``k`` best fillers of the ``[MASK]`` of ``sentence``."""
        require_int("k", k, 1)
        return self.rank(sentence)[:k]


# ----------------------------------------------------------------------------------------------------------
# Classification (notebook 07)


def _check_labelled(texts: Sequence, labels: Sequence, what: str) -> None:
    if isinstance(texts, str):
        raise ValueError(f"{what}: pass a list of texts, not one str.")
    if len(texts) != len(labels):
        raise ValueError(f"{what}: got {len(texts)} texts but {len(labels)} labels; give one label per text.")
    if not texts:
        raise ValueError(f"{what}: no examples.")


def majority_label(labels: Sequence[str]) -> str:
    """The most frequent label (ties: the alphabetically first)."""
    if not labels:
        raise ValueError("No labels given.")
    counts = Counter(labels)
    return min(counts, key=lambda label: (-counts[label], label))


def majority_accuracy(train_labels: Sequence[str], test_labels: Sequence[str]) -> float:
    """Accuracy on ``test_labels`` of always answering the most frequent training label: the floor every
    classifier must beat (0.5 on a balanced task). Notebook 07."""
    return accuracy([majority_label(train_labels)] * len(test_labels), list(test_labels))


def most_frequent_tag_scores(train, test) -> dict[str, float]:
    """The tagging baseline (notebooks 07 and 10): each word gets the tag it has most often in training (unknown words: the most
    frequent tag). ``train``, ``test``: lists of ``TaggingExample``. Test ``{"token_accuracy", "macro_f1"}``."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for example in train:
        for word, tag in zip(example.words, example.tags):
            counts[word][tag] += 1
    overall = Counter(tag for example in train for tag in example.tags).most_common(1)[0][0]
    guess = {w: min(c, key=lambda t: (-c[t], t)) for w, c in counts.items()}
    predicted = [guess.get(w, overall) for example in test for w in example.words]
    gold = [t for example in test for t in example.tags]
    return {"token_accuracy": accuracy(predicted, gold), "macro_f1": macro_f1(predicted, gold)}


class NaiveBayes:
    """Multinomial naive Bayes over words with add-one (Laplace) smoothing: a bag-of-words classifier.

    ``P(label | text) ∝ P(label) · Π_w P(w | label)`` with ``P(w | label) = (count(w, label) + 1) /
    (words(label) + V)`` over the training vocabulary ``V`` (unseen words are skipped). Word order is
    invisible to it, so it measures how far single words give the label away.
    ``NaiveBayes().fit(texts, labels).predict(new_texts)`` -> labels. Notebook 07.
    """

    def fit(self, texts: Sequence[str], labels: Sequence[str]) -> NaiveBayes:
        _check_labelled(texts, labels, "NaiveBayes.fit")
        self.labels = sorted(set(labels))
        self.label_counts = Counter(labels)
        self.word_counts = {label: Counter() for label in self.labels}
        for text, label in zip(texts, labels):
            self.word_counts[label].update(words(text))
        self.vocabulary = set().union(*self.word_counts.values())
        self.totals = {label: sum(c.values()) for label, c in self.word_counts.items()}
        return self

    def log_scores(self, text: str) -> dict[str, float]:
        """``log P(label) + Σ log P(word | label)`` for each label (known words only)."""
        n, v = sum(self.label_counts.values()), len(self.vocabulary)
        scores = {}
        for label in self.labels:
            score = math.log(self.label_counts[label] / n)
            for w in words(text):
                if w in self.vocabulary:
                    score += math.log((self.word_counts[label][w] + 1) / (self.totals[label] + v))
            scores[label] = score
        return scores

    def predict(self, texts: Sequence[str]) -> list[str]:
        """The most probable label of each text (ties: the alphabetically first)."""
        if isinstance(texts, str):
            raise ValueError("predict takes a list of texts; for one text use predict([text]).")
        out = []
        for text in texts:
            scores = self.log_scores(text)
            out.append(min(self.labels, key=lambda label: (-scores[label], label)))
        return out


def bag_of_words_accuracy(
    train_texts: Sequence[str],
    train_labels: Sequence[str],
    test_texts: Sequence[str],
    test_labels: Sequence[str],
) -> float:
    """Test accuracy of :class:`NaiveBayes` trained on the training texts. Notebook 07."""
    _check_labelled(test_texts, test_labels, "bag_of_words_accuracy (test)")
    predicted = NaiveBayes().fit(train_texts, train_labels).predict(test_texts)
    return accuracy(predicted, list(test_labels))


def giveaway_words(texts: Sequence[str], labels: Sequence[str], min_count: int = 3) -> dict[str, str]:
    """Words that occur in at least ``min_count`` training texts, always with the same label: ``{word: label}``.

    Each is a shortcut: a classifier can answer from that one word. Notebook 07.
    """
    _check_labelled(texts, labels, "giveaway_words")
    seen: defaultdict[str, Counter] = defaultdict(Counter)
    for text, label in zip(texts, labels):
        for w in set(words(text)):
            seen[w][label] += 1
    return {w: next(iter(c)) for w, c in sorted(seen.items()) if len(c) == 1 and sum(c.values()) >= min_count}


def overlap_pair_accuracy(
    train_pairs: Sequence[tuple[str, str]],
    train_labels: Sequence[str],
    test_pairs: Sequence[tuple[str, str]],
    test_labels: Sequence[str],
) -> float:
    """The word-overlap baseline for sentence pairs: learn on the training pairs which label goes with
    "A and B share a content word" and which with "they do not" (the majority label of each group), then
    answer from that one bit. What it shows: whether a pair task can be solved by spotting shared words
    instead of relating the two sentences. Notebook 07."""
    _check_labelled(train_pairs, train_labels, "overlap_pair_accuracy (train)")
    _check_labelled(test_pairs, test_labels, "overlap_pair_accuracy (test)")
    groups: dict[bool, list[str]] = {True: [], False: []}
    for (a, b), label in zip(train_pairs, train_labels):
        groups[shares_content_word(a, b)].append(label)
    fallback = majority_label(train_labels)
    rule = {key: majority_label(group) if group else fallback for key, group in groups.items()}
    return accuracy([rule[shares_content_word(a, b)] for a, b in test_pairs], list(test_labels))


def label_graph_pair_accuracy(
    train_pairs: Sequence[tuple[str, str]],
    train_labels: Sequence[str],
    test_pairs: Sequence[tuple[str, str]],
    test_labels: Sequence[str],
    linked: str = "same",
) -> float:
    """The label-graph rule: join every two training sentences that a training pair labels ``linked`` (and so,
    transitively, whole groups of them), then answer ``linked`` for a test pair exactly when both sentences
    fell into one group, and the other label otherwise. No model, no words: only the training labels.
    What it shows: whether test sentences already occur in training pairs (a leak between the splits); on a
    split where none does, it always answers the other label. Notebook 07."""
    _check_labelled(train_pairs, train_labels, "label_graph_pair_accuracy (train)")
    _check_labelled(test_pairs, test_labels, "label_graph_pair_accuracy (test)")
    others = sorted(set(train_labels) - {linked})
    if linked not in train_labels or len(others) != 1:
        raise ValueError(
            f"label_graph_pair_accuracy needs two labels, one of them {linked!r}; the training labels are "
            f"{sorted(set(train_labels))}."
        )
    parent: dict[str, str] = {}

    def root(s: str) -> str:
        while parent.setdefault(s, s) != s:
            s = parent[s]
        return s

    for (a, b), label in zip(train_pairs, train_labels):
        if label == linked:
            parent[root(a)] = root(b)
    predictions = [
        linked if a in parent and b in parent and root(a) == root(b) else others[0] for a, b in test_pairs
    ]
    return accuracy(predictions, list(test_labels))


def cooccurrence_score(a: str, b: str, documents: Sequence[Sequence[str]]) -> float:
    """How well sentences ``a`` and ``b`` meet in one document of a corpus: the best, over the documents, of
    the smaller of the two shares of their content words that the document contains (1.0: every content word of
    both sentences occurs in one document; 0.0: none of one sentence's). ``documents``: lists of sentences."""
    words_a, words_b = content_words(a), content_words(b)
    if not words_a or not words_b:
        return 0.0
    best = 0.0
    for document in documents:
        seen = {w for sentence in document for w in words(sentence)}
        best = max(best, min(len(words_a & seen) / len(words_a), len(words_b & seen) / len(words_b)))
    return best


def cooccurrence_pair_accuracy(
    train_pairs: Sequence[tuple[str, str]],
    train_labels: Sequence[str],
    test_pairs: Sequence[tuple[str, str]],
    test_labels: Sequence[str],
    documents: Sequence[Sequence[str]],
) -> float:
    """The corpus co-occurrence rule: score each pair with :func:`cooccurrence_score` over the pretraining
    corpus's ``documents`` (no labels), fit one threshold and the label on each side of it on the training
    pairs, and answer the test pairs with it. What it shows: how much of a pair task the corpus's topic
    statistics solve without a network, the knowledge next-sentence prediction rewards. Notebook 07."""
    _check_labelled(train_pairs, train_labels, "cooccurrence_pair_accuracy (train)")
    _check_labelled(test_pairs, test_labels, "cooccurrence_pair_accuracy (test)")
    if not documents:
        raise ValueError(
            "cooccurrence_pair_accuracy needs the corpus's documents (lists of sentences); got none."
        )
    cache: dict[tuple[str, str], float] = {}

    def score(pair: tuple[str, str]) -> float:
        if pair not in cache:
            cache[pair] = cooccurrence_score(*pair, documents)
        return cache[pair]

    train_scores = [score(p) for p in train_pairs]
    best: tuple[float, float, str, str] | None = None  # (train accuracy, threshold, label at or above, below)
    for threshold in sorted(set(train_scores)):
        above = [lab for s, lab in zip(train_scores, train_labels) if s >= threshold]
        below = [lab for s, lab in zip(train_scores, train_labels) if s < threshold]
        high = majority_label(above)
        low = majority_label(below) if below else high
        fit = accuracy([high if s >= threshold else low for s in train_scores], list(train_labels))
        if best is None or fit > best[0]:
            best = (fit, threshold, high, low)
    _, threshold, high, low = best
    return accuracy([high if score(p) >= threshold else low for p in test_pairs], list(test_labels))


# ----------------------------------------------------------------------------------------------------------
# The corpus as a table of facts (notebook 07): rules that read only the pretraining corpus, never a label


def corpus_attributes(sentences: Iterable[str]) -> frozenset[str]:
    """The words a corpus uses as attributes: right after "is"/"are", and after the "and" of such a list ("the
    cat is *black* and *soft*"), function words left out. Read from the corpus, so nobody writes a list of
    adjectives: on ``simple_sentences.txt`` these are the 24 adjectives of the world, and "friends"."""
    found = set()
    for sentence in sentences:
        ws = words(sentence)
        for i, w in enumerate(ws[:-1]):
            if w in ("is", "are"):
                found.add(ws[i + 1])
                if ws[i + 2 : i + 3] == ["and"] and i + 3 < len(ws):
                    found.add(ws[i + 3])
    return frozenset(found - STOP_WORDS)


class CorpusFacts:
    """Who does what in a corpus, read as a table: each sentence's *subject* is its first content word that is
    not an attribute (:func:`corpus_attributes`), its *predicate* the other content words, all stemmed
    (:func:`stem`). "the black cat drinks milk" -> subject ``cat``, predicate ``{black, drink, milk}``.

    It reads sentences only, no labels. Two rules use it: :meth:`plausible` (the sentence task) and
    :meth:`subject_of` (the pair task). ``CorpusFacts(corpus_sentences)``. Notebook 07.
    """

    def __init__(self, sentences: Iterable[str]):
        if isinstance(sentences, str):
            raise ValueError(
                "CorpusFacts takes a list of sentences, not one str: CorpusFacts([sentence, ...])."
            )
        sentences = list(sentences)
        self.attributes = {stem(w) for w in corpus_attributes(sentences)}
        self.predicates: dict[str, set[str]] = defaultdict(set)  # subject -> its predicate words
        self.votes: dict[str, Counter] = defaultdict(Counter)  # predicate word -> subject -> sentences
        for sentence in sentences:
            subject, predicate = self.parse(sentence)
            if subject is not None:
                self.predicates[subject] |= predicate
                for w in predicate:
                    self.votes[w][subject] += 1
        if not self.predicates:
            raise ValueError("CorpusFacts found no subject: pass the corpus as a list of sentences.")

    def parse(self, sentence: str) -> tuple[str | None, set[str]]:
        """``(subject, predicate words)`` of a sentence, stemmed; the subject is ``None`` if it names none
        ("it drinks milk": every content word is predicate)."""
        content = [stem(w) for w in words(sentence) if w not in _NO_FACT]
        subject = next((w for w in content if w not in self.attributes), None)
        return subject, {w for w in content if w != subject}

    def plausible(self, sentence: str) -> bool:
        """The subject->predicate lookup: True iff the sentence names a subject and every word of its predicate
        (attributes aside) follows that subject in some corpus sentence. "the fish climbs the tree": the corpus
        never puts "climb" or "tree" after "fish", so False."""
        subject, predicate = self.parse(sentence)
        return subject is not None and predicate - self.attributes <= self.predicates[subject]

    def subject_of(self, sentence: str) -> str | None:
        """The subject vote: each content word of ``sentence`` (attributes included, "it" ignored) votes for the
        subjects the corpus states it of, in proportion (a word the corpus says of the cat in 3 sentences
        and of the dog in 1 gives the cat 0.75 and the dog 0.25); the most votes win (ties: alphabetical).
        "it is black and soft" -> ``cat``. ``None`` if no word is in the table."""
        scores: Counter = Counter()
        for w in (stem(w) for w in words(sentence) if w not in _NO_FACT):
            total = sum(self.votes[w].values())
            for subject, n in self.votes[w].items():
                scores[subject] += n / total
        return min(scores, key=lambda s: (-scores[s], s)) if scores else None


def _corpus_sentences(documents: Sequence[Sequence[str]], what: str) -> list[str]:
    if not documents or isinstance(documents, str) or isinstance(documents[0], str):
        raise ValueError(
            f"{what} needs the pretraining corpus as documents (lists of sentences, what "
            "bertedu.training.data.read_corpus returns); got none or a flat list."
        )
    return [sentence for document in documents for sentence in document]


def corpus_lookup_accuracy(
    texts: Sequence[str],
    labels: Sequence[str],
    documents: Sequence[Sequence[str]],
    positive: str = "plausible",
    negative: str = "implausible",
) -> float:
    """The subject->predicate lookup (:meth:`CorpusFacts.plausible`) scored on a sentence task: ``positive``
    when the corpus states every predicate word of the sentence's subject, ``negative`` otherwise. It reads
    the corpus ``documents`` and no label (the labels only score it). What it shows: in this closed world
    "knowing who does what" is a lookup in the corpus, which the fine-tuned model has to approximate."""
    _check_labelled(texts, labels, "corpus_lookup_accuracy")
    facts = CorpusFacts(_corpus_sentences(documents, "corpus_lookup_accuracy"))
    return accuracy([positive if facts.plausible(t) else negative for t in texts], list(labels))


def subject_vote_pair_accuracy(
    pairs: Sequence[tuple[str, str]],
    labels: Sequence[str],
    documents: Sequence[Sequence[str]],
    same: str = "same",
    different: str = "different",
) -> float:
    """The subject vote (:meth:`CorpusFacts.subject_of`) scored on a pair task: ``same`` iff both sentences
    vote for one subject. No label is read (the labels only score it) and no list of subjects is written:
    the subjects are whatever the corpus's sentences start with. What it shows: how much of "do these two
    sentences describe the same animal?" the corpus answers by itself."""
    _check_labelled(pairs, labels, "subject_vote_pair_accuracy")
    facts = CorpusFacts(_corpus_sentences(documents, "subject_vote_pair_accuracy"))
    predictions = []
    for a, b in pairs:
        subject_a, subject_b = facts.subject_of(a), facts.subject_of(b)
        predictions.append(same if subject_a is not None and subject_a == subject_b else different)
    return accuracy(predictions, list(labels))


def pair_baselines(
    train_pairs: Sequence[tuple[str, str]],
    train_labels: Sequence[str],
    test_pairs: Sequence[tuple[str, str]],
    test_labels: Sequence[str],
    documents: Sequence[Sequence[str]] | None = None,
) -> dict[str, float]:
    """Every baseline of a sentence-pair task, as test accuracies:

    - ``majority``: always the most frequent training label;
    - ``overlap``: :func:`overlap_pair_accuracy`;
    - ``hypothesis_only``: naive Bayes on the second sentence alone (near chance when the label needs both);
    - ``first_only``: naive Bayes on the first sentence alone;
    - ``bag_of_words``: naive Bayes on the words of both sentences together (no interaction between them);
    - ``label_graph``: :func:`label_graph_pair_accuracy` (when the labels are ``same`` / another one);
    - ``co_occurrence``: :func:`cooccurrence_pair_accuracy` over ``documents`` (when they are given: the
      pretraining corpus, lists of sentences);
    - ``subject_vote``: :func:`subject_vote_pair_accuracy` over ``documents`` (when they are given and the
      labels are ``same`` / another one): the strongest of them, and it reads no label.

    Notebook 07.
    """
    _check_labelled(train_pairs, train_labels, "pair_baselines (train)")
    _check_labelled(test_pairs, test_labels, "pair_baselines (test)")
    train_a, train_b = [a for a, _ in train_pairs], [b for _, b in train_pairs]
    test_a, test_b = [a for a, _ in test_pairs], [b for _, b in test_pairs]
    train_ab, test_ab = [f"{a} {b}" for a, b in train_pairs], [f"{a} {b}" for a, b in test_pairs]
    scores = {
        "majority": majority_accuracy(train_labels, test_labels),
        "overlap": overlap_pair_accuracy(train_pairs, train_labels, test_pairs, test_labels),
        "hypothesis_only": bag_of_words_accuracy(train_b, train_labels, test_b, test_labels),
        "first_only": bag_of_words_accuracy(train_a, train_labels, test_a, test_labels),
        "bag_of_words": bag_of_words_accuracy(train_ab, train_labels, test_ab, test_labels),
    }
    if "same" in train_labels and len(set(train_labels)) == 2:
        scores["label_graph"] = label_graph_pair_accuracy(train_pairs, train_labels, test_pairs, test_labels)
    if documents is not None:
        scores["co_occurrence"] = cooccurrence_pair_accuracy(
            train_pairs, train_labels, test_pairs, test_labels, documents
        )
        if "label_graph" in scores:
            other = next(label for label in sorted(set(train_labels)) if label != "same")
            scores["subject_vote"] = subject_vote_pair_accuracy(
                test_pairs, test_labels, documents, different=other
            )
    return scores


def sentence_baselines(
    train_texts: Sequence[str],
    train_labels: Sequence[str],
    test_texts: Sequence[str],
    test_labels: Sequence[str],
    documents: Sequence[Sequence[str]] | None = None,
) -> dict[str, float]:
    """The baselines of a single-sentence classification task, as test accuracies: ``majority``,
    ``bag_of_words`` (:class:`NaiveBayes`) and, when the pretraining corpus's ``documents`` are given and the
    labels are ``plausible`` / ``implausible``, ``corpus_lookup`` (:func:`corpus_lookup_accuracy`, which reads
    no label). What they show: how much of a fine-tuned model's accuracy single words explain, and how much
    a lookup in the corpus's facts (notebook 07's plausible/implausible task)."""
    scores = {
        "majority": majority_accuracy(train_labels, test_labels),
        "bag_of_words": bag_of_words_accuracy(train_texts, train_labels, test_texts, test_labels),
    }
    if documents is not None and set(train_labels) == {"plausible", "implausible"}:
        scores["corpus_lookup"] = corpus_lookup_accuracy(test_texts, test_labels, documents)
    return scores


# ----------------------------------------------------------------------------------------------------------
# Span extraction (notebook 07)

#: Words on each side of a candidate span that :func:`sliding_window_span` compares with the question (picked
#: on the training split of ``data/finetune/span_extraction``: 3, 4 and 5 tried).
SPAN_WINDOW = 4
_DETERMINERS = frozenset({"the", "a", "an"})


def _check_span_input(question: str, context: str) -> tuple[list[str], list[str]]:
    question_words, context_words = words(question), words(context)
    if not question_words or not context_words:
        raise ValueError(f"A span question needs a question and a context, got {question!r} / {context!r}.")
    return question_words, context_words


def sliding_window_span(
    question: str, context: str, max_answer_length: int = 3, window: int = SPAN_WINDOW
) -> str:
    """The sliding-window word-overlap answer (the baseline of Rajpurkar et al. 2016, after Richardson et al. 2013).

    Every span of at most ``max_answer_length`` context words that shares no content word with the question
    is a candidate; its score is the number of the question's content words (stemmed, :func:`stem`) among the
    ``window`` words on its left and right. The best score wins; ties go to the longer span, then the earlier.
    ``sliding_window_span("where does the cat sit", "the dog runs the cat sits on the mat")`` -> ``"the dog runs"``:
    it ties with "on the mat" (both have "cat" and "sits" within four words), and the tie goes to the earlier
    span. It knows no grammar: which words around a match form the answer is guesswork.
    """
    require_int("max_answer_length", max_answer_length, 1)
    require_int("window", window, 1)
    question_words, context_words = _check_span_input(question, context)
    asked = {stem(w) for w in question_words if w not in STOP_WORDS}
    stems = [stem(w) for w in context_words]
    best, best_key = "", None
    for i in range(len(stems)):
        for j in range(i, min(i + max_answer_length, len(stems))):  # the span is words i..j
            if asked & set(stems[i : j + 1]):
                continue  # an answer does not repeat the question
            around = set(stems[max(0, i - window) : i]) | set(stems[j + 1 : j + 1 + window])
            key = (len(asked & around), j - i, -i)
            if best_key is None or key > best_key:
                best, best_key = " ".join(context_words[i : j + 1]), key
    return best


def _verb_forms(verb: str) -> set[str]:
    return {verb, verb + "s", verb + "es", verb[:-1] + "ies"}


def _phrase_after(context_words: list[str], k: int) -> list[str]:
    """The noun phrase at word ``k``: a determiner and its noun, or one bare word ("milk")."""
    return (
        context_words[k : k + 2]
        if context_words[k : k + 1] and context_words[k] in _DETERMINERS
        else context_words[k : k + 1]
    )


def _is_time_phrase(phrase: list[str]) -> bool:
    return len(phrase) >= 2 and phrase[0] in ("every", "at", "in") and phrase[-1] in TIME_WORDS


def _subject_before(context_words: list[str], verb_at: int) -> int:
    """Where the subject of the verb at ``verb_at`` starts: back to its determiner (at most two words back)."""
    start = verb_at - 1
    while start > 0 and context_words[start] not in _DETERMINERS and verb_at - start < 3:
        start -= 1
    return start


def template_span(question: str, context: str) -> str:
    """The template rule: read the course's question templates, find the clause, take the phrase the wh-word asks for.

    - "who/what VERB REST" (a question about the subject): find VERB REST in the context (any form of the
      verb) and answer the noun phrase before it ("the small bird");
    - "wh does the SUBJECT VERB REST": find SUBJECT, a form of VERB and REST in the context, then
      *what* -> the noun phrase after them ("a seed", "milk"), *where* -> a preposition and its noun phrase
      ("on the mat"), *when* -> the time phrase (:data:`TIME_WORDS`) that closes or opens the clause.

    Returns ``""`` when no clause matches. It is the grammar of ``data/make_finetune_data.py`` written as a
    rule (no learning, no data): what a model must at least reach on this templated task.
    """
    question_words, context_words = _check_span_input(question, context)
    wh, n = question_words[0], len(context_words)
    if len(question_words) > 1 and question_words[1] not in ("does", "do"):  # "who drinks juice"
        verb, rest = question_words[1], question_words[2:]
        verb = verb[:-1] if verb.endswith("s") else verb
        for i in range(n - len(rest)):
            if context_words[i] in _verb_forms(verb) and context_words[i + 1 : i + 1 + len(rest)] == rest:
                return " ".join(context_words[_subject_before(context_words, i) : i])
        return ""
    body = question_words[2:]
    body = body[1:] if body and body[0] in _DETERMINERS else body
    if len(body) < 2:
        return ""
    subject, verb, rest = body[0], body[1], body[2:]
    for i in range(n - 1):
        after = i + 2 + len(rest)
        if not (
            context_words[i] == subject
            and context_words[i + 1] in _verb_forms(verb)
            and context_words[i + 2 : after] == rest
        ):
            continue
        if wh == "what":
            return " ".join(_phrase_after(context_words, after))
        if wh == "where":
            return " ".join(context_words[after : after + 1] + _phrase_after(context_words, after + 1))
        if wh == "when":
            start = _subject_before(context_words, i + 1)
            for size in (2, 3):
                if _is_time_phrase(context_words[after : after + size]):
                    return " ".join(context_words[after : after + size])
                if start >= size and _is_time_phrase(context_words[start - size : start]):
                    return " ".join(context_words[start - size : start])
        return ""
    return ""


def training_answers(train: Sequence[tuple[str, str, str]]) -> dict[str, Counter]:
    """``{question: Counter(answers)}`` of the training items ``(question, context, answer)``: what the copy rule
    (:func:`copy_answer_span`) remembers."""
    answers: dict[str, Counter] = defaultdict(Counter)
    for question, _, answer in train:
        answers[" ".join(words(question))][answer] += 1
    return answers


def copy_answer_span(question: str, context: str, answers: dict[str, Counter]) -> str:
    """The copy rule: if ``question`` was asked in training (``answers``, from :func:`training_answers`), answer
    with its most frequent training answer that occurs in ``context`` (as whole words; ties: alphabetical), else
    nothing (``""``). It reads the question as a string and understands nothing: what it scores is the share of
    test questions that are training questions with their answer in sight (Lewis et al. 2021, "Question and
    Answer Test-Train Overlap"). Notebook 07."""
    _check_span_input(question, context)
    seen = answers.get(" ".join(words(question)), Counter())
    padded = f" {' '.join(words(context))} "
    found = [a for a in seen if f" {' '.join(words(a))} " in padded]
    return min(found, key=lambda a: (-seen[a], a)) if found else ""


def span_baselines(
    train: Sequence[tuple[str, str, str]], test: Sequence[tuple[str, str, str]]
) -> dict[str, dict[str, float]]:
    """The baselines of a span-extraction task on ``(question, context, answer)`` triples, as test SQuAD scores
    ``{"sliding_window": {"exact_match", "f1"}, "template": {...}}`` (:func:`bertedu.training.metrics.squad_scores`).

    ``sliding_window`` (:func:`sliding_window_span`) takes its longest answer from the training answers;
    ``template`` (:func:`template_span`) needs no training data; ``copy_training_answer``
    (:func:`copy_answer_span`) answers a test question with its training answer: above zero only where test
    questions were asked in training (a leak between the splits). Notebook 07.
    """
    for what, items in (("train", train), ("test", test)):
        if isinstance(items, str) or not items or any(len(item) != 3 for item in items):
            raise ValueError(
                f"span_baselines ({what}): pass a non-empty list of (question, context, answer)."
            )
    max_answer_length = max(len(words(answer)) for _, _, answer in train)
    answers = [answer for _, _, answer in test]
    remembered = training_answers(train)
    return {
        "sliding_window": squad_scores(
            [sliding_window_span(q, c, max_answer_length) for q, c, _ in test], answers
        ),
        "template": squad_scores([template_span(q, c) for q, c, _ in test], answers),
        "copy_training_answer": squad_scores(
            [copy_answer_span(q, c, remembered) for q, c, _ in test], answers
        ),
    }
