"""Notebook 04's "write the function" exercises on pretraining's inputs: the NSP pair sampler (half IsNext, half
NotNext from another document) and the batch that joins NSP pairs to the model (``[CLS] A [SEP] B [SEP]``,
segment ids, padding, attention mask and the NSP labels).

In the notebook (``ex`` is :mod:`bertedu.teaching.exercises.losses`, notebook 04's exercises)::

    ex.nsp_sampler.check(sample_nsp_pair)      # write the function: (documents, rng) -> (a, b, label)
    ex.collate_batch.check(collate_pairs)      # write the function: (pairs, tokenizer, max_length) -> batch

The plain checkers (:func:`check_nsp_sampler`, :func:`check_collate_batch`) return ``(passed, message)`` and are
what the unit tests call; the capstone (notebook 11) reuses both exercises. Introduced in notebook 04.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable

import torch

from bertedu.core.losses import IGNORE_INDEX
from bertedu.core.tokenizer import SPECIAL_TOKENS, BertTokenizer
from bertedu.language import listing, msg, translatable
from bertedu.teaching.exercises.core import (
    Exercise,
    as_number,
    expects_function,
)
from bertedu.teaching.exercises.nn_checks import (
    ModuleProblem,
    run_checks,
)
from bertedu.training.data import (
    IS_NEXT,
    NOT_NEXT,
    NSPPair,
    NSPPairSampler,
    PretrainingCollator,
    SentenceSpan,
    build_nsp_example,
)

# ----------------------------------------------------------------------------------------------------------
# Write the function: the NSP pair sampler


def nsp_documents() -> list[list[str]]:
    """The checker's corpus: 40 documents of 2 to 7 sentences; sentence ``i`` of document ``d`` reads
    ``"doc d sentence i ."``, so every pair can be traced back."""
    return [[f"doc {d} sentence {i} ." for i in range(2 + (d * 7) % 6)] for d in range(40)]


_NSP_DRAWS = 4000


def _nsp_sampler_steps(fn) -> tuple[bool, str]:
    documents = nsp_documents()
    where = {s: (d, i) for d, doc in enumerate(documents) for i, s in enumerate(doc)}
    runs = []
    for _ in range(2):
        rng = random.Random(0)
        pairs = []
        for _ in range(_NSP_DRAWS):
            pair = fn(documents, rng)
            if not (isinstance(pair, tuple) and len(pair) == 3):
                return False, msg("return a tuple (sentence_a, sentence_b, label).")
            a, b, label = pair
            if a not in where or b not in where:
                return (
                    False,
                    msg("sentence_a and sentence_b must be sentences of `documents` (strings), unchanged."),
                )
            label = as_number(label)
            if label not in (0.0, 1.0):
                return False, msg(
                    "the label must be 0 (IsNext) or 1 (NotNext), got {label!r}.", label=pair[2]
                )
            pairs.append((where[a], where[b], int(label)))
        runs.append(pairs)
    if runs[0] != runs[1]:
        return False, msg(
            "two runs with the same rng gave different pairs: draw every random number from the `rng` you are "
            "given (rng.random(), rng.randrange(...), rng.choice(...)), not from the global random module."
        )
    pairs = runs[0]
    follows = [(da == db and ib == ia + 1) for (da, ia), (db, ib), _ in pairs]
    same_doc = [da == db for (da, _), (db, _), _ in pairs]
    is_next = [label == 0 for *_, label in pairs]
    n_next = sum(is_next)
    share_follows = lambda want: (
        sum(f for f, n in zip(follows, is_next) if n == want) / max(1, sum(n == want for n in is_next))
    )
    if share_follows(False) > 0.9 and share_follows(True) < 0.1:
        return False, msg(
            "the labels are swapped: in Hugging Face and bertedu 0 = IsNext (B really follows A) and "
            "1 = NotNext. Your pairs labelled 1 are the real continuations."
        )
    if not 0.46 <= n_next / len(pairs) <= 0.54:
        return (
            False,
            msg(
                "{share:.0%} of your pairs are IsNext; BERT draws IsNext and NotNext 50/50.",
                share=n_next / len(pairs),
            ),
        )
    if share_follows(True) < 1:
        return (
            False,
            msg("a pair labelled 0 (IsNext) must have B = the sentence right after A, in the same document."),
        )
    same = sum(s for s, n in zip(same_doc, is_next) if not n) / (len(pairs) - n_next)
    if same > 0:
        return False, msg(
            "{same:.0%} of your NotNext pairs take B from A's own document: BERT's NotNext B is a random "
            "sentence from *another* document. (Same-document negatives are a different, harder task: "
            "ALBERT's sentence-order prediction swaps two consecutive sentences instead.)",
            same=same,
        )
    docs_used = {db for (_, (db, _), label) in pairs if label == 1}
    if len(docs_used) < len(documents) // 2:
        return False, msg(
            "NotNext B comes from only {n_docs_used} of the {n_documents} documents: draw it at random "
            "from the whole corpus.",
            n_docs_used=len(docs_used),
            n_documents=len(documents),
        )
    return True, msg(
        "{share:.1%} IsNext, every IsNext B the true next sentence, every NotNext B from another "
        "document, labels as Hugging Face (0 = IsNext), reproducible from the rng. bertedu's NSPPairSampler "
        "does the same with segments of up to two sentences.",
        share=n_next / len(pairs),
    )


@expects_function("ex.nsp_sampler.check(sample_nsp_pair)")
def check_nsp_sampler(fn) -> tuple[bool, str]:
    """``fn(documents, rng) -> (sentence_a, sentence_b, label)``: 50 % IsNext (label 0, B follows A), 50 %
    NotNext (label 1, B from another document), all randomness from ``rng`` (a ``random.Random``)."""
    return run_checks(lambda: _nsp_sampler_steps(fn))


nsp_sampler = Exercise(
    "nsp_sampler",
    "Write `sample_nsp_pair(documents, rng)` (documents: lists of sentences; rng: a random.Random) that returns "
    "(sentence_a, sentence_b, label): with probability 0.5 B is the sentence right after A (label 0 = IsNext), "
    "otherwise B is a random sentence from another document (label 1 = NotNext).",
    check_nsp_sampler,
    hints=[
        translatable(
            "Pick a document with at least two sentences and a sentence i that is not its last one: A = doc[i]."
        ),
        translatable(
            "`if rng.random() < 0.5:` B = doc[i + 1], label 0. Else pick another document (not the same one!) with "
            "rng.randrange and a random sentence of it, label 1."
        ),
    ],
    solution_code="""
def sample_nsp_pair(documents, rng):
    d = rng.randrange(len(documents))
    while len(documents[d]) < 2:                                # A needs a next sentence
        d = rng.randrange(len(documents))
    i = rng.randrange(len(documents[d]) - 1)
    a = documents[d][i]
    if rng.random() < 0.5:
        return a, documents[d][i + 1], 0                        # IsNext (Hugging Face: label 0)
    other = rng.randrange(len(documents) - 1)
    other = other + (other >= d)                                # any document but d
    return a, rng.choice(documents[other]), 1                   # NotNext (label 1)

ex.nsp_sampler.check(sample_nsp_pair)
""",
    points=2,
    answers=("bertedu.training.data.NSPPairSampler.sample",),
)


# ----------------------------------------------------------------------------------------------------------
# Write the function: the pretraining batch (the data glue between NSP pairs and the model)

#: The ordinary tokens of the checker's two vocabularies.
_BATCH_WORDS = [f"w{i}" for i in range(40)]


def batch_tokenizers() -> list[BertTokenizer]:
    """The checker's two vocabularies: the course's layout (``[PAD]`` = 0, ``[CLS]`` = 2, ``[SEP]`` = 3) and one
    with the special tokens in the middle (``[PAD]`` = 9, ``[CLS]`` = 17, ...), where id 0 is an ordinary word,
    so that a hard-coded id is caught."""
    mixed = list(_BATCH_WORDS)
    for position, token in zip((5, 9, 13, 17, 21), ("[SEP]", "[PAD]", "[MASK]", "[CLS]", "[UNK]")):
        mixed.insert(position, token)
    return [BertTokenizer([*SPECIAL_TOKENS, *_BATCH_WORDS]), BertTokenizer(mixed)]


def batch_documents(tokenizer: BertTokenizer, seed: int) -> list[list[list[int]]]:
    """Random documents for the checker: 12 documents of 2 to 6 sentences of 1 to 9 ordinary token ids."""
    rng = random.Random(seed)
    ordinary = [i for i in range(tokenizer.vocab_size) if i not in set(tokenizer.all_special_ids)]
    return [
        [[rng.choice(ordinary) for _ in range(rng.randint(1, 9))] for _ in range(rng.randint(2, 6))]
        for _ in range(12)
    ]


def batch_cases(tokenizer: BertTokenizer) -> list[tuple[list[tuple[list[int], list[int], int]], int]]:
    """The checker's batches ``(pairs, max_length)``; a pair is ``(tokens_a, tokens_b, next_sentence_label)``.

    NSP pairs of random documents (``NSPPairSampler``): at ``max_length=16`` most rows are truncated, at 64
    none is and the batch is padded to its longest row. Two hand-made pairs make the truncation rule visible
    (a long A with a short B, two equally long segments)."""
    ordinary = [i for i in range(tokenizer.vocab_size) if i not in set(tokenizer.all_special_ids)]
    cases = []
    for seed, max_length in ((0, 16), (1, 64)):
        documents = batch_documents(tokenizer, seed)
        sampler, rng = NSPPairSampler(documents), random.Random(seed)
        pairs = []
        for _ in range(8):
            pair = sampler.sample(rng)
            tokens = [
                [t for s in documents[span.doc][span.start : span.stop] for t in s]
                for span in (pair.a, pair.b)
            ]
            pairs.append((tokens[0], tokens[1], pair.next_sentence_label))
        cases.append((pairs, max_length))
    hand = [(ordinary[:20], ordinary[20:22], IS_NEXT), (ordinary[:6], ordinary[10:16], NOT_NEXT)]
    cases.append((hand + cases[0][0][:2], 10))
    return cases


def reference_batch(pairs, tokenizer: BertTokenizer, max_length: int) -> dict[str, torch.Tensor]:
    """The package's batch for ``pairs`` before masking: ``build_nsp_example`` for each pair, then
    ``PretrainingCollator`` (whose masking is undone from its labels)."""
    examples = []
    for tokens_a, tokens_b, label in pairs:
        pair = NSPPair(SentenceSpan(0, 0, 1), SentenceSpan(1, 0, 1), label)
        examples.append(
            build_nsp_example(
                [[list(tokens_a)], [list(tokens_b)]],
                pair,
                cls_token_id=tokenizer.cls_token_id,
                sep_token_id=tokenizer.sep_token_id,
                max_length=max_length,
            )
        )
    batch = PretrainingCollator(tokenizer, generator=torch.Generator().manual_seed(0))(examples)
    labels = batch.pop("labels")
    batch["input_ids"] = torch.where(labels != IGNORE_INDEX, labels, batch["input_ids"])  # unmasked
    return batch


def _truncated(tokens_a: list, tokens_b: list, budget: int, rule: str) -> tuple[list, list]:
    """A and B shortened to ``budget`` tokens together by ``rule``: the package's (``"package"``: one token at a
    time from the longer, B on a tie, A at its front, B at its end) or a typical mistake."""
    n_a, n_b = len(tokens_a), len(tokens_b)
    if rule == "b_first":  # B shrinks first, A only if B alone is not enough
        n_b = max(0, min(n_b, budget - n_a))
        n_a = min(n_a, budget - n_b)
    while n_a + n_b > budget:
        if n_a > n_b or (rule == "tie_a" and n_a == n_b):
            n_a -= 1
        else:
            n_b -= 1
    a_front = rule not in ("a_end", "both_sides")  # A loses its front (the package)
    b_end = rule not in ("b_front", "both_sides")  # B loses its end (the package)
    a = tokens_a[len(tokens_a) - n_a :] if a_front else tokens_a[:n_a]
    b = tokens_b[:n_b] if b_end else tokens_b[len(tokens_b) - n_b :]
    return a, b


def _truncation_variant(pairs, tokenizer: BertTokenizer, max_length: int, rule: str, T: int) -> torch.Tensor:
    """``input_ids (B, T)`` built with truncation ``rule`` (``"concat"``: the finished row cut at max_length)."""
    rows = []
    for tokens_a, tokens_b, _ in pairs:
        if rule == "concat":
            a, b = list(tokens_a), list(tokens_b)
        else:
            a, b = _truncated(list(tokens_a), list(tokens_b), max_length - 3, rule)
        row = [tokenizer.cls_token_id, *a, tokenizer.sep_token_id, *b, tokenizer.sep_token_id][:max_length]
        rows.append(row + [tokenizer.pad_token_id] * (T - len(row)))
    return torch.tensor(rows) if all(len(r) == T for r in rows) else torch.empty(0)


_BATCH_KEYS = ("input_ids", "token_type_ids", "attention_mask", "next_sentence_label")


def _batch_tensors(out, B: int) -> dict[str, torch.Tensor]:
    """The four tensors of a student's batch, or a :class:`ModuleProblem` naming what is missing or malformed."""
    if not isinstance(out, dict):
        raise ModuleProblem(
            msg(
                "return a dict with the keys {keys}, not a {type}.",
                keys=listing(_BATCH_KEYS),
                type=type(out).__name__,
            )
        )
    missing = [key for key in _BATCH_KEYS if key not in out]
    if missing:
        raise ModuleProblem(
            msg(
                "your batch has no {missing}: return all of {keys}.",
                missing=listing(missing),
                keys=listing(_BATCH_KEYS),
            )
        )
    for key in _BATCH_KEYS:
        value = out[key]
        if not isinstance(value, torch.Tensor):
            raise ModuleProblem(
                msg(
                    "batch['{key}'] must be a tensor (torch.tensor(rows)), not a {type}.",
                    key=key,
                    type=type(value).__name__,
                )
            )
        if value.dtype != torch.long:
            raise ModuleProblem(
                msg(
                    "batch['{key}'] has dtype {dtype}; use torch.long (integer ids, as the model's embedding "
                    "lookups and the collator's batches have).",
                    key=key,
                    dtype=value.dtype,
                )
            )
    if tuple(out["next_sentence_label"].shape) != (B,):
        raise ModuleProblem(
            msg(
                "next_sentence_label must have shape ({B},), one label per pair, got {shape}.",
                B=B,
                shape=tuple(out["next_sentence_label"].shape),
            )
        )
    shapes = {key: tuple(out[key].shape) for key in _BATCH_KEYS[:3]}
    if len(set(shapes.values())) != 1 or len(shapes["input_ids"]) != 2 or shapes["input_ids"][0] != B:
        raise ModuleProblem(
            msg(
                "input_ids, token_type_ids and attention_mask must all have shape (B, T) = ({B}, T); yours are {shapes}.",
                B=B,
                shapes=shapes,
            )
        )
    return {key: out[key] for key in _BATCH_KEYS}


def _length_problem(T_got: int, T: int, pairs, max_length: int) -> str | None:
    """What is wrong with a batch ``T_got`` positions long when the package's is ``T`` long (None: nothing)."""
    if T_got == T:
        return None
    longest = max(len(a) + len(b) + 3 for a, b, _ in pairs)
    if T_got > max_length and T_got == longest:
        return msg(
            "your rows are {T_got} long but max_length is {max_length}: you did not truncate. Shorten A and B "
            "to max_length - 3 tokens together, then add [CLS] and the two [SEP].",
            T_got=T_got,
            max_length=max_length,
        )
    if T_got > max_length:
        return msg(
            "your rows are {T_got} long but max_length is {max_length}: [CLS] and the two [SEP] count too, so "
            "A and B together get max_length - 3 tokens.",
            T_got=T_got,
            max_length=max_length,
        )
    if T_got == max_length:
        return msg(
            "you padded every row to max_length ({max_length}); pad to the longest row of the batch instead "
            "(T = {T} here), as the collator does: shorter batches cost less compute.",
            max_length=max_length,
            T=T,
        )
    return msg(
        "your batch is {T_got} positions long; it should be {T}, the longest [CLS] A [SEP] B [SEP] of the "
        "batch after truncation.",
        T_got=T_got,
        T=T,
    )


def _row_difference(name: str, got: torch.Tensor, want: torch.Tensor) -> str:
    """'row b of NAME: expected [...], got [...]' for the first row that differs."""
    row = int((got != want).any(dim=1).nonzero()[0])
    return msg(
        "row {row} of {name} is wrong: expected {want}, got {got}.",
        row=row,
        name=name,
        want=want[row].tolist(),
        got=got[row].tolist(),
    )


def _truncation_messages() -> dict[str, str]:
    """The typical truncation mistakes (rules of :func:`_truncated`) and what to say about each."""
    return {
        "concat": msg(
            "you cut the finished [CLS] A [SEP] B [SEP] at max_length, which drops the final [SEP] (and "
            "keeps too much of A): shorten A and B first, to max_length - 3 tokens together, then add "
            "[CLS] and the two [SEP]."
        ),
        "a_end": msg(
            "A was cut at its end: a too-long A loses tokens at its *front*, so that the end of A and the "
            "start of B, the seam NSP judges, stay intact."
        ),
        "b_front": msg(
            "B was cut at its front: a too-long B loses tokens at its *end*, so that its start, right after A, stays."
        ),
        "both_sides": msg(
            "A and B were both cut on the wrong side: A loses tokens at its front, B at its end, so the seam "
            "A [SEP] B stays intact."
        ),
        "tie_a": msg(
            "almost: when A and B are equally long, remove the token from B (the rule: one token at a time "
            "from the longer segment, B on a tie)."
        ),
        "b_first": msg(
            "you shortened B first and A only when B was not enough: remove one token at a time from the "
            "*longer* of A and B, so that neither segment squeezes the other out."
        ),
    }


def _input_ids_problem(got, ref, pairs, tokenizer: BertTokenizer, max_length: int) -> str | None:
    """What is wrong with the student's ``input_ids`` (None: they are the package's)."""
    want, real = ref["input_ids"], ref["attention_mask"].bool()
    if torch.equal(got, want):
        return None
    cls, sep, pad = tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id
    if bool((got[:, 0] != cls).all()):
        return msg(
            "your rows start with {first}, not this tokenizer's [CLS] id ({cls}): take the ids from the "
            "tokenizer (tokenizer.cls_token_id, sep_token_id, pad_token_id), never hard-code them (MiniLM's "
            "[CLS] is 101).",
            first=int(got[0, 0]),
            cls=cls,
        )
    left = torch.stack([torch.cat([row[~keep], row[keep]]) for row, keep in zip(want, real)])
    if torch.equal(got, left):
        return msg(
            "you padded on the left: BERT's padding goes at the end of each row, after the final [SEP] "
            "([CLS] sits at position 0, where the pooler reads it)."
        )
    if torch.equal(got[real], want[real]):
        if pad != 0 and bool((got[~real] == 0).all()):
            return msg(
                "you padded input_ids with 0, but this tokenizer's [PAD] id is {pad}: pad with "
                "tokenizer.pad_token_id (it is 0 only in some vocabularies).",
                pad=pad,
            )
        return msg("the padding of input_ids must be tokenizer.pad_token_id ({pad}).", pad=pad)
    for rule, message in _truncation_messages().items():
        if torch.equal(got, _truncation_variant(pairs, tokenizer, max_length, rule, want.size(1))):
            return message
    if bool((got[want == sep] != sep).all()):
        return msg(
            "your [SEP] tokens are not this tokenizer's [SEP] id ({sep}): take it from tokenizer.sep_token_id, "
            "never hard-code it.",
            sep=sep,
        )
    return _row_difference("input_ids", got, want)


def _token_type_problem(got, ref, pad: int) -> str | None:
    """What is wrong with the student's ``token_type_ids`` (None: they are the package's)."""
    want, real = ref["token_type_ids"], ref["attention_mask"].bool()
    if torch.equal(got, want):
        return None
    if torch.equal(got[real], want[real]):  # the real tokens are right, the padding is not
        if pad != 0 and bool((got[~real] == pad).all()):
            return msg(
                "you padded token_type_ids with the [PAD] id ({pad}): segment ids are only 0 or 1 (the "
                "token-type table has two rows, so {pad} would crash the lookup). Pad them with 0.",
                pad=pad,
            )
        return msg(
            "the padding's segment id must be 0 (as the collator and Hugging Face pad token_type_ids), not "
            "B's 1: pad token_type_ids with 0."
        )
    lengths, zeros = real.sum(dim=1).tolist(), ((want == 0) & real).sum(dim=1).tolist()
    T = want.size(1)

    def segments(first_b: int, last: int | None = None) -> torch.Tensor:
        rows = []
        for n, n0 in zip(lengths, zeros):
            row = [0] * (n0 + first_b) + [1] * (n - n0 - first_b)
            if last is not None:
                row[n - 1] = last
            rows.append(row + [0] * (T - n))
        return torch.tensor(rows)

    variants = {
        "first_sep": (
            segments(-1),
            msg(
                "the first [SEP] has segment id 1: it closes A, so it belongs to segment 0 with [CLS] and A; "
                "B and the final [SEP] are 1."
            ),
        ),
        "last_sep": (
            segments(0, last=0),
            msg("the final [SEP] has segment id 0: it closes B, so it belongs to segment 1 with B."),
        ),
        "zeros": (
            torch.zeros_like(want),
            msg(
                "every token has segment id 0: B and the final [SEP] are segment 1 (that is how the model "
                "tells A from B)."
            ),
        ),
        "swapped": (
            torch.where(real, 1 - want, want),
            msg("the segments are swapped: [CLS] A [SEP] are 0, B [SEP] are 1."),
        ),
    }
    for variant, message in variants.values():
        if torch.equal(got, variant):
            return message
    return _row_difference("token_type_ids", got, want)


def _attention_mask_problem(got, ref) -> str | None:
    """What is wrong with the student's ``attention_mask`` (None: it is the package's)."""
    want = ref["attention_mask"]
    if torch.equal(got, want):
        return None
    if bool((got == 1).all()):
        return msg(
            "your attention_mask is 1 on the padding too: it must be 1 for real tokens and 0 for [PAD], or "
            "every token attends to the padding (and the result depends on how much of it there is)."
        )
    if torch.equal(got, 1 - want):
        return msg(
            "your attention_mask is inverted: 1 = real token, 0 = padding (Hugging Face's convention)."
        )
    return _row_difference("attention_mask", got, want)


def _collate_steps(fn: Callable) -> tuple[bool, str]:
    for tokenizer in batch_tokenizers():
        for pairs, max_length in batch_cases(tokenizer):
            given = copy.deepcopy(pairs)
            out = fn(given, tokenizer, max_length)
            if given != pairs:
                return False, msg(
                    "your function changed the token lists it was given (pop, del or slicing assignment on "
                    "them?): build new lists, the dataset keeps its documents."
                )
            ref = reference_batch(pairs, tokenizer, max_length)
            B, T = ref["input_ids"].shape
            got = _batch_tensors(out, B)
            problem = (
                _length_problem(got["input_ids"].size(1), T, pairs, max_length)
                or _input_ids_problem(got["input_ids"], ref, pairs, tokenizer, max_length)
                or _token_type_problem(got["token_type_ids"], ref, tokenizer.pad_token_id)
                or _attention_mask_problem(got["attention_mask"], ref)
            )
            if problem:
                return False, problem
            if not torch.equal(got["next_sentence_label"], ref["next_sentence_label"]):
                return False, msg(
                    "next_sentence_label must be the pairs' labels, in order (0 = IsNext, 1 = NotNext)."
                )
    return True, msg(
        "[CLS] A [SEP] B [SEP] with A cut at its front and B at its end, segment ids 0 up to the first [SEP] "
        "and 1 after it, [PAD] (the tokenizer's id) up to the longest row with segment 0 and attention 0: "
        "the batch of bertedu's build_nsp_example and PretrainingCollator before masking, on random "
        "documents and two vocabularies."
    )


@expects_function("ex.collate_batch.check(collate_pairs)")
def check_collate_batch(fn: Callable) -> tuple[bool, str]:
    """``fn(pairs, tokenizer, max_length) -> batch``: the pretraining batch of ``pairs`` (``(tokens_a, tokens_b,
    next_sentence_label)``) before masking, as ``build_nsp_example`` + ``PretrainingCollator`` make it."""
    return run_checks(lambda: _collate_steps(fn))


collate_batch = Exercise(
    "collate_batch",
    "Write `collate_pairs(pairs, tokenizer, max_length)`: for each pair (tokens_a, tokens_b, label) the row "
    "[CLS] A [SEP] B [SEP], at most max_length long (shorten the longer segment one token at a time, B on a "
    "tie; A loses its front, B its end), segment ids 0 for [CLS] A [SEP] and 1 for B [SEP]; pad every row to "
    "the longest with tokenizer.pad_token_id (segment 0, attention 0). Return LongTensors input_ids, "
    "token_type_ids, attention_mask (B, T) and next_sentence_label (B,).",
    check_collate_batch,
    hints=[
        translatable(
            "Truncate first: `while len(a) + len(b) > max_length - 3:` drop `a[0]` if A is longer, else "
            "`b[-1]` (work on copies: `a, b = list(tokens_a), list(tokens_b)`). Then row = [cls, *a, sep, *b, "
            "sep] and segments = [0] * (len(a) + 2) + [1] * (len(b) + 1)."
        ),
        translatable(
            "T = the longest row. Pad input_ids with tokenizer.pad_token_id, token_type_ids with 0; the "
            "attention mask is [1] * len(row) + [0] * (T - len(row)). torch.tensor(list of lists) gives "
            "LongTensors."
        ),
    ],
    solution_code="""
def collate_pairs(pairs, tokenizer, max_length):
    cls, sep, pad = tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id
    rows, segments = [], []
    for tokens_a, tokens_b, _ in pairs:
        a, b = list(tokens_a), list(tokens_b)                   # copies: the caller's lists stay
        while len(a) + len(b) > max_length - 3:                 # room for [CLS] and two [SEP]
            if len(a) > len(b):
                a.pop(0)                                        # A loses its front ...
            else:
                b.pop()                                         # ... B its end: the seam A|B stays
        rows.append([cls, *a, sep, *b, sep])
        segments.append([0] * (len(a) + 2) + [1] * (len(b) + 1))   # the first [SEP] closes A: segment 0
    T = max(len(row) for row in rows)                           # pad to the longest row, not max_length
    return {
        "input_ids": torch.tensor([row + [pad] * (T - len(row)) for row in rows]),          # (B, T)
        "token_type_ids": torch.tensor([s + [0] * (T - len(s)) for s in segments]),        # (B, T)
        "attention_mask": torch.tensor([[1] * len(row) + [0] * (T - len(row)) for row in rows]),
        "next_sentence_label": torch.tensor([label for *_, label in pairs]),                # (B,)
    }

ex.collate_batch.check(collate_pairs)
""",
    points=2,
    answers=(
        "bertedu.training.data.PretrainingCollator.__call__",
        "bertedu.training.data.truncate_seq_pair",
        "bertedu.training.data.build_nsp_example",
    ),
)

__all__ = [
    "nsp_sampler",
    "collate_batch",
    "check_nsp_sampler",
    "check_collate_batch",
    "nsp_documents",
    "batch_tokenizers",
    "batch_cases",
    "reference_batch",
]
