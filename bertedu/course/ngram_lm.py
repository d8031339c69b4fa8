"""The strongest cheap masked-word rules: word frequency, and a Kneser–Ney n-gram model that reads both sides.

A pretrained BERT fills a ``[MASK]`` from its left *and* right context. Before we credit pretraining with that,
we score two rules that need no neural network on the same items and the same candidates:

- :class:`UnigramRule` ranks every candidate by how often the corpus uses it: the floor.
- :class:`KneserNeyLM` is an interpolated Kneser–Ney n-gram language model (Kneser & Ney 1995; the formulation of
  Chen & Goodman 1998, one discount per order). It scores a filler ``x`` by the probability of the *whole*
  sentence with ``x`` in the blank, which reads both sides: with trigrams, ``x`` after its two left neighbours,
  the word after ``x`` given ``x`` and its left neighbour, and the next word after that. Only the ``n`` terms that
  contain the blank depend on ``x``, so only they are computed.

Kneser–Ney in three lines. The highest order discounts every count by ``D`` and gives the saved mass to the next
lower order, in proportion to how many different words follow the history::

    P(w | h) = max(c(h w) - D, 0) / c(h ·)  +  D · N1+(h ·) / c(h ·) · P_lower(w | h')

The lower orders count *continuations* instead of occurrences: ``N1+(· h w)``, the number of different words
seen before ``h w``. "Francisco" is frequent but follows only "San", so as a guess after an unseen history it
gets little weight. The lowest order mixes in a uniform share for words the corpus never used.

Words are :class:`bertedu.core.tokenizer.BasicTokenizer`'s (lower-cased, punctuation split off), the units a
WordPiece vocabulary is cut from; sentences are padded with ``<s>`` and ``</s>``. Scores of
:func:`masked_word_rule_scores` use the candidates a model ranks (:func:`bertedu.training.probes.candidate_mask`:
the vocabulary's whole words), so rule and model answer the same question. Plain Python and dictionaries, a screen
of arithmetic; an item costs about a tenth of a second with 8,000 candidates. Introduced for notebook 12
(issue 42); :mod:`bertedu.course.baselines` holds notebook 06's stupid-back-off trigram filler.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

from bertedu.core.tokenizer import SPECIAL_TOKENS, BasicTokenizer
from bertedu.core.validation import require_int, require_number
from bertedu.training.evalsets import MASK

START, END = "<s>", "</s>"
_BASIC = BasicTokenizer(never_split=SPECIAL_TOKENS)


def sentence_words(text: str) -> list[str]:
    """The words a rule reads: BERT's basic tokenization (``"It's cold."`` -> ``['it', "'", 's', 'cold', '.']``);
    ``[MASK]`` stays one word."""
    return _BASIC.tokenize(text)


class UnigramRule:
    """Rank fillers by corpus frequency, whatever the context (ties alphabetically)."""

    def __init__(self, sentences: Iterable[Sequence[str]]):
        self.counts = Counter(w for words in _checked_corpus(sentences) for w in words)

    def rank(self, words: Sequence[str], position: int, candidates: Sequence[str]) -> list[str]:
        """``candidates`` best first for the blank at ``words[position]`` (the context is ignored)."""
        return sorted(candidates, key=lambda w: (-self.counts[w], w))


class KneserNeyLM:
    """An interpolated Kneser–Ney language model of ``order`` (3: trigrams) over word lists, discount ``D``.

    ``KneserNeyLM(corpus_word_lists).rank(words, i, candidates)``: the candidates for ``words[i]``, best first.
    """

    def __init__(self, sentences: Iterable[Sequence[str]], order: int = 3, discount: float = 0.75):
        require_int("order", order, 1)
        require_number("discount", discount, 0, 1, low_inclusive=False, high_inclusive=False, example="0.75")
        self.order, self.discount = order, discount
        grams: list[Counter] = [Counter() for _ in range(order + 1)]  # grams[m]: m-gram -> count
        for words in _checked_corpus(sentences):
            padded = [START] * (order - 1) + list(words) + [END]
            for m in range(1, order + 1):
                grams[m].update(tuple(padded[k : k + m]) for k in range(len(padded) - m + 1))
        # counts[m][gram]: occurrences at the highest order, continuation counts N1+(· gram) below it
        self.counts: list[Counter] = [Counter() for _ in range(order + 1)]
        self.counts[order] = grams[order]
        for m in range(1, order):
            self.counts[m] = Counter(
                gram[1:] for gram in grams[m + 1] if gram[-1] != START
            )  # padding is no word
        # per history: the total of its counts and how many different words follow it
        self.totals, self.types = Counter(), Counter()
        for m in range(1, order + 1):
            for gram, count in self.counts[m].items():
                self.totals[gram[:-1]] += count
                self.types[gram[:-1]] += 1
        self.vocabulary = {g[0] for g in self.counts[1]} - {START}

    def prob(self, word: str, history: Sequence[str]) -> float:
        """``P_KN(word | history)``, the last ``order - 1`` words of ``history`` (fewer: a lower order)."""
        history = tuple(history[len(history) - self.order + 1 :]) if self.order > 1 else ()
        uniform = 1 / len(self.vocabulary)  # the corpus's words and the end of a sentence, </s>
        p = self._interpolate((), word, uniform)
        for k in range(len(history) - 1, -1, -1):  # from one word of history up to all of them
            p = self._interpolate(history[k:], word, p)
        return p

    def _interpolate(self, history: tuple, word: str, lower: float) -> float:
        """One level: the discounted count of ``history word`` plus the saved mass times ``lower``."""
        total = self.totals[history]
        if not total:
            return lower  # an unseen history: back off entirely
        count = self.counts[len(history) + 1][(*history, word)]
        return (max(count - self.discount, 0) + self.discount * self.types[history] * lower) / total

    def fill_log_prob(self, words: Sequence[str], position: int, filler: str) -> float:
        """``log P`` of the sentence with ``filler`` at ``position``, up to terms that do not depend on it."""
        padded = [START] * (self.order - 1) + list(words) + [END]
        at = position + self.order - 1
        padded[at] = filler
        stop = min(at + self.order, len(padded))
        return sum(math.log(self.prob(padded[j], padded[j - self.order + 1 : j])) for j in range(at, stop))

    def rank(self, words: Sequence[str], position: int, candidates: Sequence[str]) -> list[str]:
        """``candidates`` best first for the blank at ``words[position]`` (ties alphabetically)."""
        scores = {c: self.fill_log_prob(words, position, c) for c in candidates}
        return sorted(candidates, key=lambda c: (-scores[c], c))


def _checked_corpus(sentences: Iterable[Sequence[str]]) -> Iterable[list[str]]:
    """The corpus as word lists; a ``ValueError`` for one str or a sentence given as text."""
    if isinstance(sentences, str):
        raise ValueError(
            "Pass the corpus as a list of word lists, e.g. [sentence_words(s) for s in sentences]."
        )
    for words in sentences:
        if isinstance(words, str):
            raise ValueError(
                f"Each sentence must be a list of words, got the text {words[:40]!r}: use sentence_words(text)."
            )
        yield list(words)


def masked_word_rule_scores(rule, items, candidates: Sequence[str], k: int = 5) -> dict:
    """Top-1 and top-``k`` accuracy of ``rule`` (a :class:`UnigramRule` or :class:`KneserNeyLM`) on masked-word
    items (``bertedu.training.evalsets.MaskedWordItem``: a sentence with one ``[MASK]``, its answers), ranking
    ``candidates`` (the model's whole-word tokens). Returns ``{"top1", f"top{k}", "n", "predictions"}``, the keys
    of :func:`bertedu.training.probes.masked_word_accuracy`."""
    require_int("k", k, 1)
    items = list(items)
    if not items:
        raise ValueError("No masked-word items to score.")
    top1 = topk = 0
    predictions = []
    for item in items:
        words = sentence_words(item.sentence)
        if words.count(MASK) != 1:
            raise ValueError(f"{item.sentence!r} needs exactly one [MASK], written as a word of its own.")
        best = rule.rank(words, words.index(MASK), candidates)[:k]
        predictions.append(best)
        top1 += best[0] in item.answers
        topk += bool(set(best) & set(item.answers))
    return {
        "top1": top1 / len(items),
        f"top{k}": topk / len(items),
        "n": len(items),
        "predictions": predictions,
    }


def corpus_word_lists(documents: Iterable[Iterable[str]]) -> list[list[str]]:
    """Every sentence of ``documents`` (``read_corpus``'s lists of sentences) as :func:`sentence_words`."""
    return [sentence_words(s) for doc in documents for s in doc]


__all__ = [
    "END",
    "START",
    "KneserNeyLM",
    "UnigramRule",
    "corpus_word_lists",
    "masked_word_rule_scores",
    "sentence_words",
]
