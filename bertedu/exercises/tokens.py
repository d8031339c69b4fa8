"""Exercises for notebook 02 (tokens and embeddings).

- :data:`wordpiece`: greedy longest-match-first WordPiece for one word, with ``##`` and ``[UNK]``.
- :data:`segment_ids`: the segment (token type) ids of ``[CLS] A [SEP] B [SEP]``.
- :data:`input_embeddings` (find the bug): h⁽⁰⁾ with positions counted from 1 and LayerNorm eps 1e-5.

Every exercise is backed by a plain checker function ``check_xxx(answer) -> (passed, message)``.

Introduced in notebook 02.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from bertedu.config import BertConfig
from bertedu.embeddings import BertEmbeddings
from bertedu.exercises.core import Exercise
from bertedu.tokenizer import WordpieceTokenizer

# ----------------------------------------------------------------------------------------------------------
# 1. WordPiece: greedy longest-match-first

#: A tiny WordPiece vocabulary for the exercise (a set of pieces; ``##`` marks a piece inside a word).
VOCAB = frozenset(
    {
        "[UNK]",
        "un",
        "unwa",
        "##want",
        "##ed",
        "##nted",
        "play",
        "##ing",
        "##s",
        "##er",
        "p",
        "##l",
        "##a",
        "##y",
        "dog",
        "d",
        "##o",
        "##g",
        "run",
        "##n",
        "##i",
    }
)

#: The words the checker tokenizes (the first ones are printed in the notebook).
WORDS = ("playing", "unwanted", "dogs", "running", "pay", "player", "dogx", "xyz")


def reference_wordpiece(word: str, vocab=VOCAB) -> list[str]:
    """The pieces of ``word``: ``bertedu.tokenizer.WordpieceTokenizer(vocab).tokenize_word(word)``."""
    return WordpieceTokenizer(sorted(vocab)).tokenize_word(word)


def _shortest_first(word: str, vocab=VOCAB) -> list[str]:
    """The classic mistake: take the *shortest* matching piece at each step."""
    pieces, start = [], 0
    while start < len(word):
        for end in range(start + 1, len(word) + 1):
            candidate = word[start:end] if start == 0 else "##" + word[start:end]
            if candidate in vocab:
                pieces.append(candidate)
                start = end
                break
        else:
            return ["[UNK]"]
    return pieces


def check_wordpiece(fn) -> tuple[bool, str]:
    """Check ``fn(word, vocab) -> list of pieces`` against BERT's WordPiece on :data:`WORDS`."""
    if not callable(fn):
        return False, f"pass your function itself (e.g. `check(wordpiece)`), not {type(fn).__name__}."
    for word in WORDS:
        expected = reference_wordpiece(word)
        got = fn(word, VOCAB)
        if got is None:
            return False, "your function returned None: it must return the list of pieces."
        if isinstance(got, tuple):
            got = list(got)
        if not isinstance(got, list) or not all(isinstance(p, str) for p in got):
            return False, f"for {word!r} your function must return a list of str, got {got!r}."
        if got == expected:
            continue
        if any(p not in VOCAB for p in got):
            bad = [p for p in got if p not in VOCAB]
            hint = (
                " Pieces after the first one carry the '##' prefix when you look them up."
                if any("##" + p in VOCAB for p in bad)
                else ""
            )
            return False, f"for {word!r} you return {got}, but {bad} is not in the vocabulary.{hint}"
        if got == _shortest_first(word):
            return False, (
                f"for {word!r} you return {got}; BERT gives {expected}. You take the shortest "
                "match; WordPiece takes the *longest* piece in the vocabulary at each step "
                "(start with the whole rest of the word and shrink it from the right)."
            )
        if expected == ["[UNK]"]:
            return False, (
                f"for {word!r} you return {got}; BERT gives ['[UNK]']. When some part of a word "
                "matches no piece, the *whole word* becomes a single [UNK] (not only the part)."
            )
        return False, f"for {word!r} you return {got}; BERT gives {expected}."
    return True, (
        f"all {len(WORDS)} words match bertedu.tokenizer.WordpieceTokenizer, e.g. 'unwanted' -> "
        f"{reference_wordpiece('unwanted')}: the longest piece wins at every step."
    )


wordpiece = Exercise(
    name="wordpiece",
    prompt=(
        "Write `wordpiece(word, vocab)`: cut one word into pieces of `vocab` (a set of strings), greedy "
        "longest-match-first, '##' before every piece that continues a word, and ['[UNK]'] for the "
        "whole word if some part matches nothing."
    ),
    checker=check_wordpiece,
    hints=[
        "Keep a `start` index. At each step try `word[start:end]` for `end = len(word), len(word) - 1, …`; "
        "the first candidate found in the vocabulary wins.",
        "Candidates after the first piece are looked up as `'##' + word[start:end]`.",
        "If no candidate matches at some `start`, return `['[UNK]']` at once: the whole word is unknown.",
    ],
    solution_code="""
def wordpiece(word, vocab):
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:                                  # longest candidate first
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                break
            end -= 1
        else:
            return ["[UNK]"]                                # nothing matches: the whole word is unknown
        pieces.append(piece)
        start = end
    return pieces

ex.wordpiece.check(wordpiece)
""",
)


# ----------------------------------------------------------------------------------------------------------
# 2. Segment ids of [CLS] A [SEP] B [SEP]

_SEGMENT_CASES = [
    ["[CLS]", "my", "dog", "is", "cute", "[SEP]", "he", "likes", "play", "##ing", "[SEP]"],
    ["[CLS]", "the", "cat", "sleeps", "[SEP]"],
    ["[CLS]", "a", "cat", "[SEP]", "it", "sleeps", "[SEP]", "[PAD]", "[PAD]"],
]


def reference_segment_ids(tokens: list[str]) -> list[int]:
    """0 for [CLS], sentence A and the first [SEP]; 1 for sentence B and the final [SEP]; 0 for [PAD]."""
    ids, segment = [], 0
    for token in tokens:
        ids.append(0 if token == "[PAD]" else segment)
        if token == "[SEP]":
            segment = 1
    return ids


def check_segment_ids(fn) -> tuple[bool, str]:
    """Check ``fn(tokens) -> list of 0/1`` on a pair, a single sentence and a padded pair."""
    if not callable(fn):
        return False, f"pass your function itself (e.g. `check(segment_ids)`), not {type(fn).__name__}."
    for tokens in _SEGMENT_CASES:
        expected = reference_segment_ids(tokens)
        got = fn(list(tokens))
        if got is None:
            return False, "your function returned None: it must return a list of segment ids."
        if isinstance(got, torch.Tensor):
            got = got.tolist()
        got = list(got)
        shown = " ".join(tokens)
        if len(got) != len(tokens):
            return (
                False,
                f"for `{shown}` you return {len(got)} ids for {len(tokens)} tokens: one id per token.",
            )
        if got == expected:
            continue
        first_sep = tokens.index("[SEP]")
        seps = [i for i, t in enumerate(tokens) if t == "[SEP]"]
        if sorted(set(got)) == [1, 2] or (set(got) <= {1, 2} and 0 not in got):
            return False, "segments are numbered from 0: sentence A is segment 0, sentence B segment 1."
        if got[first_sep] == 1 and expected[first_sep] == 0:
            return False, (
                f"for `{shown}` the first [SEP] (position {first_sep}) gets segment 1, but it "
                "closes sentence A, so it belongs to segment 0."
            )
        if len(seps) > 1 and got[seps[-1]] == 0:
            return False, (
                f"for `{shown}` the final [SEP] gets segment 0, but it closes sentence B, "
                "so it belongs to segment 1."
            )
        if got[0] != 0:
            return False, "[CLS] starts sentence A: its segment id is 0."
        if "[PAD]" in tokens and got[: tokens.index("[PAD]")] == expected[: tokens.index("[PAD]")]:
            return False, (
                f"for `{shown}` the real tokens are right but [PAD] tokens should get segment 0 "
                "(as BERT's and Hugging Face's tokenizers pad); the attention mask hides them anyway."
            )
        return False, f"for `{shown}` you return {got}; expected {expected}."
    return True, (
        "0 for [CLS], A and the first [SEP]; 1 for B and the final [SEP]; a single sentence is all "
        "0 (the same ids as BertTokenizer.create_token_type_ids_from_sequences)."
    )


segment_ids = Exercise(
    name="segment_ids",
    prompt=(
        "Write `segment_ids(tokens)`: for a token list `[CLS] A [SEP] B [SEP]` (possibly with [PAD] at "
        "the end, or a single sentence `[CLS] A [SEP]`) return the segment id of every token."
    ),
    checker=check_segment_ids,
    hints=[
        "Walk through the tokens with a current segment that starts at 0. Which token switches it to 1, "
        "and does that token itself still belong to the old segment?",
        "Append the id *before* you switch: the first [SEP] closes sentence A. [PAD] gets 0.",
    ],
    solution_code="""
def segment_ids(tokens):
    ids, segment = [], 0
    for token in tokens:
        ids.append(0 if token == "[PAD]" else segment)
        if token == "[SEP]":
            segment = 1          # everything after the first [SEP] is sentence B
    return ids

ex.segment_ids.check(segment_ids)
""",
)


# ----------------------------------------------------------------------------------------------------------
# 3. Find the bug: the input embedding h⁽⁰⁾


def _embedding_problem() -> tuple[BertEmbeddings, torch.Tensor, torch.Tensor]:
    """A small BertEmbeddings at BERT's initial scale (std 0.02), in float64 and eval mode, plus inputs."""
    config = BertConfig(
        vocab_size=30,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=16,
    )
    gen = torch.Generator().manual_seed(0)
    emb = BertEmbeddings(config).double().eval()
    with torch.no_grad():
        for table in (emb.word_embeddings, emb.position_embeddings, emb.token_type_embeddings):
            table.weight.copy_(torch.randn(table.weight.shape, generator=gen, dtype=torch.float64) * 0.02)
        emb.LayerNorm.weight.copy_(1 + 0.1 * torch.randn(16, generator=gen, dtype=torch.float64))
        emb.LayerNorm.bias.copy_(0.1 * torch.randn(16, generator=gen, dtype=torch.float64))
    input_ids = torch.randint(5, 30, (2, 9), generator=gen)  # (B, T)
    token_type_ids = torch.tensor([[0] * 5 + [1] * 4, [0] * 9])  # (B, T)
    return emb, input_ids, token_type_ids


def _variant(emb, input_ids, token_type_ids, *, offset=0, eps=1e-12, segment=True, layer_norm=True):
    T = input_ids.size(1)
    h = emb.word_embeddings(input_ids) + emb.position_embeddings(torch.arange(offset, T + offset))
    if segment:
        h = h + emb.token_type_embeddings(token_type_ids)
    if not layer_norm:
        return h
    return F.layer_norm(h, h.shape[-1:], emb.LayerNorm.weight, emb.LayerNorm.bias, eps=eps)


_BUGS = {
    "offset": "the position ids start at 1: the first token ([CLS]) must use row 0 of W_position "
    "(positions 0 … T−1, like BertEmbeddings' position_ids)",
    "eps": "LayerNorm uses eps = 1e-5 (PyTorch's default); BERT's is 1e-12 (config.layer_norm_eps). At BERT's "
    "initial scale the sum's variance is only about 0.001, so 1e-5 changes every vector by {change:.1%}",
    "segment": "the segment embedding W_segment[s_i] is missing from the sum",
    "layer_norm": "the LayerNorm is missing: BERT normalises the sum of the three rows",
}


def check_input_embeddings(fn) -> tuple[bool, str]:
    """Check ``fn(emb, input_ids, token_type_ids) -> (B, T, H)`` against ``emb(input_ids, token_type_ids)``."""
    if not callable(fn):
        return False, f"pass your function itself (e.g. `check(input_embeddings)`), not {type(fn).__name__}."
    emb, input_ids, token_type_ids = _embedding_problem()
    with torch.no_grad():
        expected = emb(input_ids, token_type_ids)  # (B, T, H)
        got = fn(emb, input_ids, token_type_ids)
        if got is None:
            return False, "your function returned None: it must return h⁽⁰⁾, shape (B, T, H)."
        if not isinstance(got, torch.Tensor):
            return False, f"your function must return a torch.Tensor, got {type(got).__name__}."
        if tuple(got.shape) != tuple(expected.shape):
            return False, f"expected shape (B, T, H) = {tuple(expected.shape)}, got {tuple(got.shape)}."
        got = got.double()
        if torch.allclose(got, expected, atol=1e-9, rtol=0):
            return True, (
                "h⁽⁰⁾ = LayerNorm(W_token[x_i] + W_segment[s_i] + W_position[i]) with positions from 0 "
                "and eps 1e-12: the same as BertEmbeddings in eval mode."
            )
        wrong_eps = _variant(emb, input_ids, token_type_ids, eps=1e-5)
        change = ((wrong_eps - expected).norm() / expected.norm()).item()
        for offset in (0, 1):
            for eps in (1e-12, 1e-5):
                for segment in (True, False):
                    for layer_norm in (True, False):
                        if layer_norm is False and eps != 1e-12:
                            continue
                        candidate = _variant(
                            emb,
                            input_ids,
                            token_type_ids,
                            offset=offset,
                            eps=eps,
                            segment=segment,
                            layer_norm=layer_norm,
                        )
                        if torch.allclose(got, candidate, atol=1e-9, rtol=0):
                            bugs = [
                                name
                                for name, is_bug in (
                                    ("offset", offset == 1),
                                    ("eps", eps == 1e-5),
                                    ("segment", not segment),
                                    ("layer_norm", not layer_norm),
                                )
                                if is_bug
                            ]
                            found = "; ".join(_BUGS[b].format(change=change) for b in bugs)
                            more = f" ({len(bugs)} problems left)" if len(bugs) > 1 else ""
                            return False, f"your output matches h⁽⁰⁾ computed with a mistake{more}: {found}."
    diff = (got - expected).abs().max().item()
    return False, (
        f"not yet (largest difference {diff:.3g}): sum the rows W_token[x_i] + W_segment[s_i] + "
        "W_position[i] with positions 0 … T−1, then LayerNorm with BERT's eps 1e-12."
    )


input_embeddings = Exercise(
    name="input_embeddings",
    prompt=(
        "Find the bugs: `input_embeddings(emb, input_ids, token_type_ids)` should compute "
        "h⁽⁰⁾ = LayerNorm(W_token[x_i] + W_segment[s_i] + W_position[i]) from the tables of a "
        "BertEmbeddings `emb`, exactly as `emb(input_ids, token_type_ids)` does in eval mode."
    ),
    checker=check_input_embeddings,
    hints=[
        "Which row of W_position does the first token ([CLS]) use? Print the position ids you build.",
        "Compare the LayerNorm's eps with `emb.LayerNorm.eps` (BERT: 1e-12). It matters when the vectors are "
        "small, as they are at BERT's initial scale (std 0.02).",
    ],
    solution_code="""
def input_embeddings(emb, input_ids, token_type_ids):
    T = input_ids.shape[1]
    position_ids = torch.arange(T)                                    # 0, 1, ..., T-1
    h = (emb.word_embeddings(input_ids)                               # W_token[x_i]   (B, T, H)
         + emb.token_type_embeddings(token_type_ids)                  # W_segment[s_i] (B, T, H)
         + emb.position_embeddings(position_ids))                     # W_position[i]  (T, H)
    return F.layer_norm(h, h.shape[-1:], emb.LayerNorm.weight, emb.LayerNorm.bias, eps=1e-12)

ex.input_embeddings.check(input_embeddings)
""",
)

__all__ = [
    "VOCAB",
    "WORDS",
    "check_input_embeddings",
    "check_segment_ids",
    "check_wordpiece",
    "input_embeddings",
    "reference_segment_ids",
    "reference_wordpiece",
    "segment_ids",
    "wordpiece",
]
