"""The contamination audit: which training texts give away a held-out text, word for word.

A held-out score means something only if the held-out texts were not in the training data. Checking that the
two files share no *line* is not enough: a dictionary repeats itself (WordNet 3.1 uses "a variety of aster" as the
definition of 23 synsets, and 123 of its example sentences serve two or three synsets), and a training text may
hold a held-out one inside it. The audit compares word sequences, after lower-casing and dropping punctuation
(:func:`audit_words`), and flags a (training text, held-out text) pair when

- **same text**: both have the same words (any length: "keep your cool" twice is a leak);
- **held-out text inside**: a held-out text of ``min_words`` to ``n - 1`` words occurs whole, as a run of
  consecutive words, inside the training text ("a variety of aster" inside "a variety of aster with blue flowers");
- **shared n-gram**: a held-out text of ``n`` or more words shares a run of ``n`` consecutive words with the
  training text (the test of Brown et al. 2020 and Chowdhery et al. 2022, with ``n = 8`` here: WordNet's texts
  are short).

Held-out texts shorter than ``min_words`` words are only matched whole: two words in a row ("digestive juices")
are language, not a leak, unless they are the whole text. What to do with a flagged training text is the
caller's decision; the course's WordNet builder (``data/wordnet/make_wordnet_data.py``) removes it from the
pretraining corpus and from the fine-tuning training files.

``contamination_audit(train_texts, heldout_texts)`` returns the flagged pairs as :class:`Overlap` records;
``contaminated_indices`` the training texts to remove. Both run in time linear in the number of words (an index of
the held-out word runs, then one pass over the training texts). Introduced for notebook 12 (issue 42).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bertedu.core.validation import require_int

SAME_TEXT, INSIDE, SHARED_NGRAM = "same text", "held-out text inside", "shared n-gram"
_WORD = re.compile(r"[^\W_]+")  # letters and digits; punctuation and spaces separate words


def audit_words(text: str) -> tuple[str, ...]:
    """The words the audit compares: lower-cased runs of letters and digits (``"Don't!"`` -> ``("don", "t")``)."""
    if not isinstance(text, str):
        raise ValueError(f"The audit compares texts (str), got {type(text).__name__}: {text!r:.60}.")
    return tuple(_WORD.findall(text.lower()))


@dataclass(frozen=True)
class Overlap:
    """A training text that gives a held-out text away: their indices, the kind of overlap (:data:`SAME_TEXT`,
    :data:`INSIDE` or :data:`SHARED_NGRAM`) and the shared words."""

    train_index: int
    heldout_index: int
    kind: str
    words: tuple[str, ...]


def contamination_audit(
    train_texts: Sequence[str], heldout_texts: Sequence[str], *, n: int = 8, min_words: int = 4
) -> list[Overlap]:
    """Every (training text, held-out text) pair that overlaps (the three kinds of the module docstring), sorted
    by training index, then held-out index; at most one record per pair (the strongest kind)."""
    for name, texts in (("train_texts", train_texts), ("heldout_texts", heldout_texts)):
        if isinstance(texts, str):
            raise ValueError(f"{name} must be a list of texts, not one str: pass [{texts[:30]!r}].")
    require_int("n", n, 2)
    require_int("min_words", min_words, 1)
    if min_words > n:
        raise ValueError(f"min_words={min_words} must be at most n={n}: shorter held-out texts match whole.")
    whole, runs = _heldout_index([audit_words(t) for t in heldout_texts], n, min_words)
    found: dict[tuple[int, int], Overlap] = {}
    for i, text in enumerate(train_texts):
        words = audit_words(text)
        for j in whole.get(words, ()):
            found[i, j] = Overlap(i, j, SAME_TEXT, words)
        for length in sorted(runs, reverse=True):  # longest runs first: "inside" before "shared n-gram"
            for start in range(len(words) - length + 1):
                run = words[start : start + length]
                for j, kind in runs[length].get(run, ()):
                    found.setdefault((i, j), Overlap(i, j, kind, run))
    return [found[key] for key in sorted(found)]


def _heldout_index(heldout: list[tuple[str, ...]], n: int, min_words: int):
    """``(whole, runs)``: every held-out text by its words, and ``runs[length][words] -> [(index, kind)]`` for the
    runs a training text is searched for (whole texts of ``min_words`` to ``n - 1`` words, every ``n``-gram of
    the longer ones)."""
    whole: dict[tuple[str, ...], list[int]] = {}
    runs: dict[int, dict[tuple[str, ...], list[tuple[int, str]]]] = {}
    for j, words in enumerate(heldout):
        if not words:
            continue
        whole.setdefault(words, []).append(j)
        if min_words <= len(words) < n:
            runs.setdefault(len(words), {}).setdefault(words, []).append((j, INSIDE))
        elif len(words) >= n:
            for gram in dict.fromkeys(words[k : k + n] for k in range(len(words) - n + 1)):
                runs.setdefault(n, {}).setdefault(gram, []).append((j, SHARED_NGRAM))
    return whole, runs


def contaminated_indices(overlaps: Iterable[Overlap]) -> list[int]:
    """The sorted indices of the training texts that :func:`contamination_audit` flagged (each once)."""
    return sorted({o.train_index for o in overlaps})
