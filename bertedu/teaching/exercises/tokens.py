"""Exercises for notebook 02 (tokens and embeddings).

- :data:`wordpiece`: greedy longest-match-first WordPiece for one word, with ``##`` and ``[UNK]``.
- :data:`segment_ids`: the segment (token type) ids of ``[CLS] A [SEP] B [SEP]``.
- :data:`input_embeddings` (find the bug): h⁽⁰⁾ with positions counted from 1 and LayerNorm eps 1e-5.
- :data:`embeddings_layer` (write the module): ``Embeddings(config)``, checked against ``BertEmbeddings``.

Every exercise is backed by a plain checker function ``check_xxx(answer) -> (passed, message)``.

Introduced in notebook 02.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from bertedu.core.config import BertConfig
from bertedu.core.embeddings import BertEmbeddings
from bertedu.core.tokenizer import WordpieceTokenizer
from bertedu.language import msg, translatable, translate
from bertedu.teaching.exercises.core import Diagnosis, Exercise, expects_function
from bertedu.teaching.exercises.nn_checks import build, close, copy_weights, output_tensor, run_checks, seeded

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
    """The pieces of ``word``: ``bertedu.core.tokenizer.WordpieceTokenizer(vocab).tokenize_word(word)``."""
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


@expects_function("ex.wordpiece.check(wordpiece)")
def check_wordpiece(fn) -> tuple[bool, str]:
    """Check ``fn(word, vocab) -> list of pieces`` against BERT's WordPiece on :data:`WORDS`."""
    for word in WORDS:
        expected = reference_wordpiece(word)
        got = fn(word, VOCAB)
        if got is None:
            return False, msg("your function returned None: it must return the list of pieces.")
        if isinstance(got, tuple):
            got = list(got)
        if not isinstance(got, list) or not all(isinstance(p, str) for p in got):
            return False, msg(
                "for {word!r} your function must return a list of str, got {got!r}.", word=word, got=got
            )
        if got == expected:
            continue
        if any(p not in VOCAB for p in got):
            bad = [p for p in got if p not in VOCAB]
            hint = (
                msg(" Pieces after the first one carry the '##' prefix when you look them up.")
                if any("##" + p in VOCAB for p in bad)
                else ""
            )
            return False, msg(
                "for {word!r} you return {got}, but {bad} is not in the vocabulary.{hint}",
                word=word,
                got=got,
                bad=bad,
                hint=hint,
            )
        if got == _shortest_first(word):
            return False, msg(
                "for {word!r} you return {got}; BERT gives {expected}. You take the shortest "
                "match; WordPiece takes the *longest* piece in the vocabulary at each step "
                "(start with the whole rest of the word and shrink it from the right).",
                word=word,
                got=got,
                expected=expected,
            )
        if expected == ["[UNK]"]:
            return False, msg(
                "for {word!r} you return {got}; BERT gives ['[UNK]']. When some part of a word "
                "matches no piece, the *whole word* becomes a single [UNK] (not only the part).",
                word=word,
                got=got,
            )
        return False, msg(
            "for {word!r} you return {got}; BERT gives {expected}.", word=word, got=got, expected=expected
        )
    return True, msg(
        "all {n} words match bertedu.core.tokenizer.WordpieceTokenizer, e.g. 'unwanted' -> "
        "{pieces}: the longest piece wins at every step.",
        n=len(WORDS),
        pieces=reference_wordpiece("unwanted"),
    )


wordpiece = Exercise(
    name="wordpiece",
    answers=(
        "bertedu.core.tokenizer.WordpieceTokenizer.tokenize_word",
        "bertedu.core.tokenizer.WordpieceTokenizer.tokenize",
    ),
    prompt=translatable(
        "Write `wordpiece(word, vocab)`: cut one word into pieces of `vocab` (a set of strings), greedy "
        "longest-match-first, '##' before every piece that continues a word, and ['[UNK]'] for the "
        "whole word if some part matches nothing."
    ),
    checker=check_wordpiece,
    hints=[
        translatable(
            "Keep a `start` index. At each step try `word[start:end]` for `end = len(word), len(word) - 1, …`; "
            "the first candidate found in the vocabulary wins."
        ),
        translatable("Candidates after the first piece are looked up as `'##' + word[start:end]`."),
        translatable(
            "If no candidate matches at some `start`, return `['[UNK]']` at once: the whole word is unknown."
        ),
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
    points=2,
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


@expects_function("ex.segment_ids.check(segment_ids)")
def check_segment_ids(fn) -> tuple[bool, str]:
    """Check ``fn(tokens) -> list of 0/1`` on a pair, a single sentence and a padded pair."""
    for tokens in _SEGMENT_CASES:
        expected = reference_segment_ids(tokens)
        got = fn(list(tokens))
        if got is None:
            return False, msg("your function returned None: it must return a list of segment ids.")
        if isinstance(got, torch.Tensor):
            got = got.tolist()
        got = list(got)
        shown = " ".join(tokens)
        if len(got) != len(tokens):
            return (
                False,
                msg(
                    "for `{shown}` you return {n_got} ids for {n_tokens} tokens: one id per token.",
                    shown=shown,
                    n_got=len(got),
                    n_tokens=len(tokens),
                ),
            )
        if got == expected:
            continue
        first_sep = tokens.index("[SEP]")
        seps = [i for i, t in enumerate(tokens) if t == "[SEP]"]
        if sorted(set(got)) == [1, 2] or (set(got) <= {1, 2} and 0 not in got):
            return False, msg("segments are numbered from 0: sentence A is segment 0, sentence B segment 1.")
        if got[first_sep] == 1 and expected[first_sep] == 0:
            return False, msg(
                "for `{shown}` the first [SEP] (position {first_sep}) gets segment 1, but it "
                "closes sentence A, so it belongs to segment 0.",
                shown=shown,
                first_sep=first_sep,
            )
        if len(seps) > 1 and got[seps[-1]] == 0:
            return False, msg(
                "for `{shown}` the final [SEP] gets segment 0, but it closes sentence B, "
                "so it belongs to segment 1.",
                shown=shown,
            )
        if got[0] != 0:
            return False, msg("[CLS] starts sentence A: its segment id is 0.")
        if "[PAD]" in tokens and got[: tokens.index("[PAD]")] == expected[: tokens.index("[PAD]")]:
            return False, msg(
                "for `{shown}` the real tokens are right but [PAD] tokens should get segment 0 "
                "(as BERT's and Hugging Face's tokenizers pad); the attention mask hides them anyway.",
                shown=shown,
            )
        return False, msg(
            "for `{shown}` you return {got}; expected {expected}.", shown=shown, got=got, expected=expected
        )
    return True, msg(
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
        translatable(
            "Walk through the tokens with a current segment that starts at 0. Which token switches it to 1, "
            "and does that token itself still belong to the old segment?"
        ),
        translatable("Append the id *before* you switch: the first [SEP] closes sentence A. [PAD] gets 0."),
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
    points=1,
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


#: Each mistake's symptom (what is wrong in h⁽⁰⁾) and fix (its cause in the code): a :class:`Diagnosis`.
_BUGS = {
    "offset": (
        translatable(
            "every token carries the position embedding of the next position, W_position[i+1] not W_position[i]"
        ),
        translatable("the position ids start at 1, but BertEmbeddings' position_ids run 0 … T−1"),
    ),
    "eps": (
        translatable("after the LayerNorm every vector is off by about {change:.1%}"),
        translatable(
            "the LayerNorm uses eps = 1e-5 (PyTorch's default) where BERT's is 1e-12 (config.layer_norm_eps), "
            "and at BERT's initial scale the sum's variance is only about 0.001"
        ),
    ),
    "segment": (
        translatable("the output does not depend on token_type_ids"),
        translatable("the segment embedding W_segment[s_i] is missing from the sum"),
    ),
    "layer_norm": (
        translatable("the vectors are not normalised"),
        translatable("the sum of the three rows goes out without the LayerNorm"),
    ),
}


def _bug_diagnosis(bug: str, change: float) -> Diagnosis:
    """The symptom and the fix of one mistake of :data:`_BUGS`, in the current language."""
    symptom, fix = (translate(text).format(change=change) for text in _BUGS[bug])
    return Diagnosis(symptom, fix, template=translatable("{symptom}: {fix}"))


@expects_function("ex.input_embeddings.check(input_embeddings)")
def check_input_embeddings(fn) -> tuple[bool, str]:
    """Check ``fn(emb, input_ids, token_type_ids) -> (B, T, H)`` against ``emb(input_ids, token_type_ids)``."""
    emb, input_ids, token_type_ids = _embedding_problem()
    with torch.no_grad():
        expected = emb(input_ids, token_type_ids)  # (B, T, H)
        got = fn(emb, input_ids, token_type_ids)
        if got is None:
            return False, msg("your function returned None: it must return h⁽⁰⁾, shape (B, T, H).")
        if not isinstance(got, torch.Tensor):
            return False, msg(
                "your function must return a torch.Tensor, got {type}.", type=type(got).__name__
            )
        if tuple(got.shape) != tuple(expected.shape):
            return False, msg(
                "expected shape (B, T, H) = {expected}, got {shape}.",
                expected=tuple(expected.shape),
                shape=tuple(got.shape),
            )
        got = got.double()
        if torch.allclose(got, expected, atol=1e-9, rtol=0):
            return True, msg(
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
                            found = Diagnosis.joined(msg("; "), [_bug_diagnosis(b, change) for b in bugs])
                            more = msg(" ({n_bugs} problems left)", n_bugs=len(bugs)) if len(bugs) > 1 else ""
                            return False, Diagnosis.framed(
                                translatable(
                                    "your output matches h⁽⁰⁾ computed with a mistake{more}: {found}."
                                ),
                                "found",
                                found,
                                more=more,
                            )
    diff = (got - expected).abs().max().item()
    return False, msg(
        "not yet (largest difference {diff:.3g}): sum the rows W_token[x_i] + W_segment[s_i] + "
        "W_position[i] with positions 0 … T−1, then LayerNorm with BERT's eps 1e-12.",
        diff=diff,
    )


input_embeddings = Exercise(
    name="input_embeddings",
    answers=("bertedu.core.embeddings.BertEmbeddings.forward",),
    prompt=(
        "Find the bugs: `input_embeddings(emb, input_ids, token_type_ids)` should compute "
        "h⁽⁰⁾ = LayerNorm(W_token[x_i] + W_segment[s_i] + W_position[i]) from the tables of a "
        "BertEmbeddings `emb`, exactly as `emb(input_ids, token_type_ids)` does in eval mode."
    ),
    checker=check_input_embeddings,
    hints=[
        translatable(
            "Which row of W_position does the first token ([CLS]) use? Print the position ids you build."
        ),
        translatable(
            "Compare the LayerNorm's eps with `emb.LayerNorm.eps` (BERT: 1e-12). It matters when the vectors are "
            "small, as they are at BERT's initial scale (std 0.02)."
        ),
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
    points=1,
)


# ----------------------------------------------------------------------------------------------------------
# 4. Write the module: the embeddings layer

#: The checker's configuration (float32, BERT's eps 1e-12).
EMBEDDINGS_CONFIG = BertConfig(
    vocab_size=30,
    hidden_size=16,
    num_hidden_layers=1,
    num_attention_heads=2,
    intermediate_size=32,
    max_position_embeddings=16,
    hidden_dropout_prob=0.25,
)
_EMBEDDINGS_NAMES = translatable(
    "word_embeddings (V, H), position_embeddings (max_position_embeddings, H), token_type_embeddings "
    "(type_vocab_size, H): nn.Embedding each; LayerNorm = nn.LayerNorm(H, eps=config.layer_norm_eps); "
    "dropout = nn.Dropout(config.hidden_dropout_prob)"
)


def _embeddings_steps(cls) -> tuple[bool, str]:
    config = EMBEDDINGS_CONFIG
    ref = BertEmbeddings(config).eval()
    gen = torch.Generator().manual_seed(21)
    with torch.no_grad():  # BERT's initial scale (std 0.02), where the LayerNorm eps shows; γ, β not 1, 0
        for table in (ref.word_embeddings, ref.position_embeddings, ref.token_type_embeddings):
            table.weight.copy_(torch.randn(table.weight.shape, generator=gen) * 0.02)
        ref.LayerNorm.weight.copy_(1 + 0.1 * torch.randn(config.hidden_size, generator=gen))
        ref.LayerNorm.bias.copy_(0.1 * torch.randn(config.hidden_size, generator=gen))
    mine = build(cls, config, example="ex.embeddings_layer.check(Embeddings)")
    copy_weights(ref, mine, names_hint=translate(_EMBEDDINGS_NAMES))
    eps = getattr(getattr(mine, "LayerNorm", None), "eps", config.layer_norm_eps)
    if eps != config.layer_norm_eps:
        return False, msg(
            "your LayerNorm has eps = {eps:g}; BERT's is {layer_norm_eps:g} (config.layer_norm_eps). "
            "PyTorch's default 1e-5 changes every vector at BERT's initial scale, where the sum's variance is "
            "only about 0.001: pass eps=config.layer_norm_eps.",
            eps=eps,
            layer_norm_eps=config.layer_norm_eps,
        )
    input_ids = torch.randint(5, config.vocab_size, (2, 9), generator=gen)  # (B, T)
    token_type_ids = torch.tensor([[0] * 5 + [1] * 4, [0] * 3 + [1] * 6])  # (B, T)
    shape = (2, 9, config.hidden_size)
    what = msg("the embeddings (B, T, H)")
    mine.eval()
    with torch.no_grad():
        got = output_tensor(mine(input_ids, token_type_ids), what, shape)
        if not torch.equal(got, output_tensor(mine(input_ids, token_type_ids), what, shape)):
            return False, msg(
                "in eval mode your output changes from call to call: use self.dropout = nn.Dropout(p), which "
                "switches off with .eval(), not F.dropout (training=True by default)."
            )
        if not close(got, ref(input_ids, token_type_ids)):
            mistakes = (
                (
                    dict(segment=False),
                    msg("the segment embeddings are missing: add token_type_embeddings(token_type_ids)."),
                ),
                (
                    dict(offset=1),
                    msg(
                        "the position ids start at 1: the first token ([CLS]) uses row 0 of position_embeddings "
                        "(positions 0 … T−1, torch.arange(T))."
                    ),
                ),
                (
                    dict(layer_norm=False),
                    msg("the LayerNorm is missing: normalise the sum of the three rows."),
                ),
                (dict(eps=1e-5), msg("your LayerNorm uses eps = 1e-5 (PyTorch's default); BERT's is 1e-12.")),
            )
            for kwargs, message in mistakes:
                if close(got, _variant(ref, input_ids, token_type_ids, **kwargs)):
                    return False, message
            return False, msg(
                "your output differs from BertEmbeddings': LayerNorm(word_embeddings(input_ids) + "
                "position_embeddings(positions 0 … T−1) + token_type_embeddings(token_type_ids)), then dropout."
            )
        if not close(output_tensor(mine(input_ids), what, shape), ref(input_ids)):
            return False, msg(
                "without token_type_ids your output is wrong: None means one segment, all sentence A: "
                "token_type_ids = torch.zeros_like(input_ids)."
            )
    mine.train()
    ref.train()
    with seeded(22):
        trained = output_tensor(mine(input_ids, token_type_ids), what, shape)
    with seeded(22):
        expected = ref(input_ids, token_type_ids)
    if not close(trained, expected):
        return False, msg(
            "in training mode your output differs from BertEmbeddings' with the same seed: apply self.dropout "
            "once, after the LayerNorm (dropout(LayerNorm(sum)))."
        )
    return True, msg(
        "the same as bertedu's BertEmbeddings: word + position (from 0) + segment rows, LayerNorm with "
        "eps 1e-12, dropout after it; token_type_ids default to segment 0."
    )


def check_embeddings_layer(cls) -> tuple[bool, str]:
    """``cls(config)`` must be an nn.Module with BertEmbeddings' names whose ``forward(input_ids,
    token_type_ids=None)`` returns ``(B, T, H)`` like ``BertEmbeddings``."""
    return run_checks(lambda: _embeddings_steps(cls))


embeddings_layer = Exercise(
    name="embeddings_layer",
    answers=("bertedu.core.embeddings.BertEmbeddings",),
    prompt=translatable(
        "Write `Embeddings(config)`, an nn.Module with Hugging Face's names (word_embeddings, "
        "position_embeddings, token_type_embeddings, LayerNorm, dropout) whose `forward(input_ids, "
        "token_type_ids=None)` returns dropout(LayerNorm(word + position + segment)), shape (B, T, H)."
    ),
    checker=check_embeddings_layer,
    hints=[
        translatable(
            "Three nn.Embedding tables: (config.vocab_size, H), (config.max_position_embeddings, H), "
            "(config.type_vocab_size, H); then nn.LayerNorm(H, eps=config.layer_norm_eps) and "
            "nn.Dropout(config.hidden_dropout_prob)."
        ),
        translatable(
            "Positions are 0 … T−1: `torch.arange(input_ids.size(1))`. A missing token_type_ids means "
            "`torch.zeros_like(input_ids)`."
        ),
    ],
    solution_code="""
class Embeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size, padding_idx=config.pad_token_id)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)   # BERT: 1e-12
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, input_ids, token_type_ids=None):
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)                # one segment: all sentence A
        positions = torch.arange(input_ids.size(1), device=input_ids.device)   # 0, 1, ..., T-1
        h = (self.word_embeddings(input_ids) + self.position_embeddings(positions)
             + self.token_type_embeddings(token_type_ids))              # (B, T, H)
        return self.dropout(self.LayerNorm(h))

ex.embeddings_layer.check(Embeddings)
""",
    points=2,
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
    "EMBEDDINGS_CONFIG",
    "check_embeddings_layer",
    "embeddings_layer",
]
