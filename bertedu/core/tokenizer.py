"""WordPiece tokenization as in BERT (uncased): text -> tokens -> ids, and back.

Two stages, exactly as in Google's BERT and Hugging Face's ``BertTokenizer``:

1. :class:`BasicTokenizer` cleans the text and cuts it into *words*: control characters dropped,
   whitespace normalised, lower-cased, accents stripped, punctuation split off, every CJK character on
   its own.
2. :class:`WordpieceTokenizer` cuts each word into vocabulary pieces, greedy longest-match-first, with
   ``##`` marking a piece that continues a word (``unwanted`` -> ``un ##want ##ed``). A word with a piece
   that matches nothing becomes ``[UNK]``.

:class:`BertTokenizer` chains the two, adds ``[CLS] A [SEP] B [SEP]``, truncates, pads, and reads and
writes BERT's ``vocab.txt`` (one token per line; the id of a token is its line number, from 0).
:func:`train_wordpiece` builds a small vocabulary from a corpus.

Why one long module: tokenization is one concept here. The two stages, the ``vocab.txt`` format and the
trainer share the character classes and the special tokens, and a reader compares the file with Hugging
Face's ``tokenization_bert.py`` side by side.

Introduced in notebook 02.
"""

from __future__ import annotations

import heapq
import json
import numbers
import os
import re
import unicodedata
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import torch

from bertedu.files import atomic_write_text

PAD_TOKEN, UNK_TOKEN, CLS_TOKEN, SEP_TOKEN, MASK_TOKEN = "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"
# The order of the first five ids of every vocabulary we train: [PAD]=0, [UNK]=1, [CLS]=2, [SEP]=3, [MASK]=4.
SPECIAL_TOKENS = (PAD_TOKEN, UNK_TOKEN, CLS_TOKEN, SEP_TOKEN, MASK_TOKEN)
VOCAB_FILE_NAME = "vocab.txt"
TOKENIZER_CONFIG_NAME = "tokenizer_config.json"


# ----------------------------------------------------------------------------------------------------------
# Character classes (BERT's definitions)


def _is_whitespace(char: str) -> bool:
    """Space, tab, newline, carriage return, and any other Unicode white space (no-break space, U+3000...)."""
    return char in " \t\n\r" or char.isspace()


def _is_control(char: str) -> bool:
    """A control/format/unassigned character (Unicode category C*), except tab, newline and return."""
    if char in "\t\n\r":
        return False  # BERT treats these as whitespace
    return unicodedata.category(char).startswith("C")


def _is_punctuation(char: str) -> bool:
    """Unicode punctuation (category P*) plus *every* non-letter, non-digit printable ASCII symbol.

    ``$ + < = > ^ ` | ~`` are Unicode symbols (S*), not punctuation, but BERT splits them off too.
    """
    cp = ord(char)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_chinese_char(cp: int) -> bool:
    """A code point in the CJK Unified Ideographs blocks (Han characters; not Hangul, kana or CJK punctuation)."""
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


# fast path: BasicTokenizer's rules for ASCII text. Control characters (all below 32 but tab, newline and return;
# DEL) are dropped; a word is a run of letters and digits, every other non-space character is one of its own.
_ASCII_CONTROLS = {c: None for c in [*range(32), 127] if chr(c) not in "\t\n\r"}
_ASCII_WORDS = re.compile(r"[A-Za-z0-9]+|[^A-Za-z0-9 \t\n\r]")


# ----------------------------------------------------------------------------------------------------------
# Stage 1: basic tokenization


class BasicTokenizer:
    """Split raw text into words: clean, lower-case, strip accents, split punctuation and CJK characters.

    ``BasicTokenizer().tokenize("Héllo, WORLD! 你好")`` -> ``['hello', ',', 'world', '!', '你', '好']``.
    Tokens in ``never_split`` (the special tokens, e.g. ``[MASK]``) are cut out of the raw text first,
    wherever they occur and exactly as written, and kept whole (as Hugging Face does).

    Introduced in notebook 02.
    """

    def __init__(
        self,
        do_lower_case: bool = True,
        never_split: Iterable[str] | None = None,
        tokenize_chinese_chars: bool = True,
        strip_accents: bool | None = None,
    ):
        self.do_lower_case = do_lower_case
        self.never_split = set(never_split or ())
        self.tokenize_chinese_chars = tokenize_chinese_chars
        # None means "follow do_lower_case", as in BERT: uncased models strip accents, cased ones keep them.
        self.strip_accents = strip_accents
        # Longest first, so that "[MASK]" wins over a hypothetical "[MA".
        alternatives = sorted(self.never_split, key=len, reverse=True)
        self._never_split_re = (
            re.compile("(" + "|".join(map(re.escape, alternatives)) + ")") if alternatives else None
        )

    def tokenize(self, text: str) -> list[str]:
        """Words of ``text`` (list of str)."""
        if not isinstance(text, str):
            raise ValueError(
                f"tokenize expects a str, got {type(text).__name__}; pass the text of one sentence."
            )
        pieces = self._never_split_re.split(text) if self._never_split_re else [text]
        words: list[str] = []
        for i, piece in enumerate(pieces):
            if i % 2 == 1:  # re.split with a group puts the matched special tokens at odd positions
                words.append(piece)
            else:
                words.extend(self._tokenize_plain(piece))
        return words

    def _tokenize_plain(self, text: str) -> list[str]:
        if (
            text.isascii()
        ):  # fast path: the same words by one regular expression (no accents, no CJK in ASCII)
            return self._tokenize_ascii(text)
        return self._tokenize_chars(text)

    def _tokenize_chars(self, text: str) -> list[str]:
        """The words of ``text`` (no special tokens in it), character by character: BERT's rules."""
        text = self.clean_text(text)
        if self.tokenize_chinese_chars:
            text = self.pad_chinese_chars(text)
        words = []
        for word in text.split():
            if self.do_lower_case:
                word = word.lower()
            if self.strip_accents or (self.strip_accents is None and self.do_lower_case):
                word = self.strip_accents_from(word)
            words.extend(self.split_on_punctuation(word))
        return words

    def _tokenize_ascii(self, text: str) -> list[str]:
        """fast path: :meth:`_tokenize_plain` of ASCII text. Control characters go (``_ASCII_CONTROLS``), every
        printable ASCII character that is not a letter, digit or space is punctuation (BERT's rule), and ASCII has
        no accents to strip, so one ``findall`` gives the words the character loop gives."""
        text = text.translate(_ASCII_CONTROLS)
        return _ASCII_WORDS.findall(text.lower() if self.do_lower_case else text)

    @staticmethod
    def clean_text(text: str) -> str:
        """Drop NUL, U+FFFD and control characters; turn every kind of whitespace into a plain space."""
        out = []
        for char in text:
            if char == "\x00" or char == "\ufffd" or _is_control(char):
                continue
            out.append(" " if _is_whitespace(char) else char)
        return "".join(out)

    @staticmethod
    def pad_chinese_chars(text: str) -> str:
        """Put spaces around every CJK character, so that each becomes its own word."""
        return "".join(f" {c} " if _is_chinese_char(ord(c)) else c for c in text)

    @staticmethod
    def strip_accents_from(word: str) -> str:
        """``"café"`` -> ``"cafe"``: decompose (NFD) and drop the combining marks (category Mn)."""
        return "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")

    @staticmethod
    def split_on_punctuation(word: str) -> list[str]:
        """``"don't!"`` -> ``["don", "'", "t", "!"]``: every punctuation character is a word of its own."""
        pieces: list[str] = []
        current = ""
        for char in word:
            if _is_punctuation(char):
                if current:
                    pieces.append(current)
                pieces.append(char)
                current = ""
            else:
                current += char
        if current:
            pieces.append(current)
        return pieces


# ----------------------------------------------------------------------------------------------------------
# Stage 2: WordPiece

_CACHE_WORDS = 1 << 20  # fast path: at most this many words remembered by a WordpieceTokenizer (~100 MB)


class WordpieceTokenizer:
    """Cut words into vocabulary pieces: greedy longest-match-first, ``##`` marks a continuation.

    With the vocabulary ``un ##want ##ed runn ##ing ...``, ``"unwanted running"`` becomes
    ``['un', '##want', '##ed', 'runn', '##ing']``. A word containing a piece that matches nothing, or longer
    than ``max_input_chars_per_word`` characters, becomes a single ``unk_token``.

    Introduced in notebook 02.
    """

    def __init__(
        self,
        vocab: Mapping[str, int] | Iterable[str],
        unk_token: str = UNK_TOKEN,
        max_input_chars_per_word: int = 100,
    ):
        self.vocab = vocab if isinstance(vocab, Mapping) else {tok: i for i, tok in enumerate(vocab)}
        self.unk_token = unk_token
        self.max_input_chars_per_word = _positive_whole_number(
            "max_input_chars_per_word", max_input_chars_per_word
        )
        # fast path: the pieces of each word seen, for the next time (a word's pieces never change)
        self._cache: dict[str, list[str]] = {}

    def tokenize(self, text: str) -> list[str]:
        """Pieces of every whitespace-separated word of ``text`` (already basic-tokenized)."""
        pieces: list[str] = []
        for word in text.split():
            pieces.extend(self.tokenize_word(word))
        return pieces

    def tokenize_word(self, word: str) -> list[str]:
        """Pieces of one word, or ``[unk_token]``."""
        pieces = self._cache.get(word)  # fast path: a word met before
        if pieces is None:
            pieces = self._tokenize_word(word)
            if len(self._cache) < _CACHE_WORDS:
                self._cache[word] = pieces
        return list(pieces)

    def _tokenize_word(self, word: str) -> list[str]:
        """:meth:`tokenize_word` without the cache: greedy longest match first."""
        if len(word) > self.max_input_chars_per_word:
            return [self.unk_token]
        pieces = []
        start = 0
        while start < len(word):
            end = len(word)
            piece = None
            while start < end:  # try the longest substring first, then shrink it from the right
                candidate = word[start:end] if start == 0 else "##" + word[start:end]
                if candidate in self.vocab:
                    piece = candidate
                    break
                end -= 1
            if piece is None:  # nothing in the vocabulary starts here: the whole word is unknown
                return [self.unk_token]
            pieces.append(piece)
            start = end
        return pieces


# ----------------------------------------------------------------------------------------------------------
# vocab.txt I/O


def load_vocab(path: str | os.PathLike) -> dict[str, int]:
    """Read a BERT ``vocab.txt``: one token per line, id = line number (from 0). Returns ``{token: id}``.

    Raises ``FileNotFoundError`` for a missing file and ``ValueError`` for an empty file, bytes that are
    not UTF-8 or a token that appears twice (BERT's format cannot express that).
    """
    path = Path(path)
    if path.is_dir():
        path = path / VOCAB_FILE_NAME
    if not path.is_file():
        raise FileNotFoundError(
            f"No vocabulary file at {path}. Pass the path of a vocab.txt (one token per line), or train one "
            "with bertedu.core.tokenizer.train_wordpiece(...) and save it with BertTokenizer.save_vocabulary(...)."
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(
            f"{path} is not UTF-8 text (bad byte at offset {err.start}); re-save it as UTF-8."
        ) from err
    # A byte-order mark (Notepad's "UTF-8 with BOM") is not part of the first token; read_corpus strips it too.
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    vocab: dict[str, int] = {}
    for line_no, line in enumerate(lines):
        token = line[:-1] if line.endswith("\r") else line  # tolerate Windows line ends
        if token in vocab:
            raise ValueError(
                f"{path}: token {token!r} appears twice, on lines {vocab[token] + 1} and {line_no + 1}. "
                "Each token must appear once (its id is its line number); delete one of the two lines."
            )
        vocab[token] = line_no
    if not vocab:
        raise ValueError(f"{path} is empty: a vocab.txt holds one token per line.")
    return vocab


def save_vocab(tokens: Sequence[str], path: str | os.PathLike) -> Path:
    """Write ``tokens`` (in id order) as a BERT ``vocab.txt``, atomically. Returns the path written."""
    for token in tokens:
        if not token or any(c in token for c in "\n\r") or token != token.strip():
            raise ValueError(
                f"Cannot store the token {token!r} in vocab.txt: tokens must be non-empty, "
                "without line breaks or surrounding spaces."
            )
    return atomic_write_text(path, "".join(f"{t}\n" for t in tokens))


# ----------------------------------------------------------------------------------------------------------
# The full tokenizer


class BertTokenizer:
    """BERT's tokenizer: basic tokenization + WordPiece + ``[CLS] A [SEP] B [SEP]``, with HF-style methods.

    Example::

        tok = BertTokenizer.from_file("vocab.txt")        # or a checkpoint folder holding vocab.txt
        tok.tokenize("The dog is playing")                # ['the', 'dog', 'is', 'play', '##ing']
        tok.encode("my dog", "he likes it")               # {'input_ids': [...], 'token_type_ids': [...], ...}
        tok(["a b", "c"], padding=True, return_tensors="pt")["input_ids"].shape   # (2, T)

    ``vocab`` is a list of tokens in id order or a ``{token: id}`` mapping with ids 0..V-1; it must contain
    ``[PAD] [UNK] [CLS] [SEP] [MASK]`` (anywhere: never hard-code their ids). Introduced in notebook 02.
    """

    pad_token, unk_token, cls_token, sep_token, mask_token = SPECIAL_TOKENS
    model_input_names = ["input_ids", "token_type_ids", "attention_mask"]

    def __init__(
        self,
        vocab: Mapping[str, int] | Sequence[str],
        *,
        do_lower_case: bool = True,
        strip_accents: bool | None = None,
        tokenize_chinese_chars: bool = True,
        max_input_chars_per_word: int = 100,
        model_max_length: int = 512,
    ):
        _check_settings(do_lower_case, strip_accents, tokenize_chinese_chars)
        model_max_length = _positive_whole_number("model_max_length", model_max_length)
        self.vocab = _checked_vocab(vocab)
        self.ids_to_tokens = [""] * len(self.vocab)
        for token, i in self.vocab.items():
            self.ids_to_tokens[i] = token
        self.do_lower_case = do_lower_case
        self.strip_accents = strip_accents
        self.tokenize_chinese_chars = tokenize_chinese_chars
        self.model_max_length = model_max_length
        self.basic_tokenizer = BasicTokenizer(
            do_lower_case, SPECIAL_TOKENS, tokenize_chinese_chars, strip_accents
        )
        self.wordpiece_tokenizer = WordpieceTokenizer(self.vocab, UNK_TOKEN, max_input_chars_per_word)
        self._is_continuation: torch.Tensor | None = None  # (V,) bool, built on first use by word_ids

    # -- loading and saving ------------------------------------------------------------------------------

    @classmethod
    def from_file(cls, path: str | os.PathLike, **kwargs) -> BertTokenizer:
        """Load ``vocab.txt`` (or a folder holding it, e.g. a checkpoint; its ``tokenizer_config.json`` is
        read for ``do_lower_case``/``strip_accents``/``tokenize_chinese_chars``)."""
        path = Path(path)
        folder = path if path.is_dir() else path.parent
        settings = {}
        config_file = folder / TOKENIZER_CONFIG_NAME
        if config_file.is_file():
            settings = _read_tokenizer_config(config_file)
        settings.update(kwargs)
        return cls(load_vocab(path), **settings)

    from_pretrained = from_file  # the Hugging Face name, for a checkpoint folder

    def save_vocabulary(self, path_or_dir: str | os.PathLike) -> Path:
        """Write ``vocab.txt`` (into the folder if ``path_or_dir`` is one or has no extension). Returns the path.

        (Hugging Face's method returns a tuple of paths; ours returns the one path.)
        """
        path = Path(path_or_dir)
        if path.is_dir() or path.suffix == "":
            path = path / VOCAB_FILE_NAME
        return save_vocab(self.ids_to_tokens, path)

    def save_pretrained(self, directory: str | os.PathLike) -> Path:
        """Write ``vocab.txt`` and ``tokenizer_config.json`` into ``directory`` (HF format). Returns the folder."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.save_vocabulary(directory / VOCAB_FILE_NAME)
        config = {
            "tokenizer_class": "BertTokenizer",
            "do_lower_case": self.do_lower_case,
            "strip_accents": self.strip_accents,
            "tokenize_chinese_chars": self.tokenize_chinese_chars,
            "model_max_length": self.model_max_length,
            "unk_token": UNK_TOKEN,
            "sep_token": SEP_TOKEN,
            "pad_token": PAD_TOKEN,
            "cls_token": CLS_TOKEN,
            "mask_token": MASK_TOKEN,
        }
        atomic_write_text(directory / TOKENIZER_CONFIG_NAME, json.dumps(config, indent=2) + "\n")
        return directory

    # -- vocabulary --------------------------------------------------------------------------------------

    @property
    def vocab_size(self) -> int:
        """V, the number of tokens (rows of the embedding table)."""
        return len(self.vocab)

    def __len__(self) -> int:
        return len(self.vocab)

    def get_vocab(self) -> dict[str, int]:
        return dict(self.vocab)

    pad_token_id = property(lambda self: self.vocab[PAD_TOKEN])
    unk_token_id = property(lambda self: self.vocab[UNK_TOKEN])
    cls_token_id = property(lambda self: self.vocab[CLS_TOKEN])
    sep_token_id = property(lambda self: self.vocab[SEP_TOKEN])
    mask_token_id = property(lambda self: self.vocab[MASK_TOKEN])

    @property
    def all_special_tokens(self) -> list[str]:
        return list(SPECIAL_TOKENS)

    @property
    def all_special_ids(self) -> list[int]:
        """Ids of [PAD] [UNK] [CLS] [SEP] [MASK] (in that order): never masked, never a random replacement."""
        return [self.vocab[t] for t in SPECIAL_TOKENS]

    def convert_tokens_to_ids(self, tokens: str | Iterable[str]) -> int | list[int]:
        """Token(s) -> id(s); a token missing from the vocabulary gets the id of [UNK]."""
        unk = self.unk_token_id
        if isinstance(tokens, str):
            return self.vocab.get(tokens, unk)
        return [self.vocab.get(t, unk) for t in tokens]

    def convert_ids_to_tokens(
        self, ids: int | Iterable[int] | torch.Tensor, skip_special_tokens: bool = False
    ) -> str | list[str]:
        """Id(s) -> token(s). Accepts an int, a list or a 1-D tensor."""
        if isinstance(ids, torch.Tensor) or hasattr(ids, "tolist"):  # also NumPy arrays and scalars
            ids = ids.tolist()
        if isinstance(ids, int):
            return self.ids_to_tokens[self._checked_id(ids)]
        specials = set(self.all_special_ids) if skip_special_tokens else set()
        return [self.ids_to_tokens[self._checked_id(i)] for i in ids if i not in specials]

    def _checked_id(self, i) -> int:
        if isinstance(i, numbers.Integral) and not isinstance(i, bool):
            i = int(i)  # NumPy integers (np.int64(5)) are ids too
        if not isinstance(i, int) or not 0 <= i < self.vocab_size:
            raise ValueError(
                f"Token id {i!r} is not in the vocabulary (ids run from 0 to {self.vocab_size - 1})."
            )
        return i

    # -- text -> tokens -> ids ---------------------------------------------------------------------------

    def tokenize(self, text: str) -> list[str]:
        """Text -> WordPiece tokens (no [CLS]/[SEP])."""
        tokens: list[str] = []
        for word in self.basic_tokenizer.tokenize(text):
            if word in self.basic_tokenizer.never_split:
                tokens.append(word)  # [MASK] typed in the text stays one token
            else:
                tokens.extend(self.wordpiece_tokenizer.tokenize_word(word))
        return tokens

    def build_inputs_with_special_tokens(self, ids_a: list[int], ids_b: list[int] | None = None) -> list[int]:
        """``[CLS] A [SEP]`` or ``[CLS] A [SEP] B [SEP]``."""
        out = [self.cls_token_id, *ids_a, self.sep_token_id]
        return out if ids_b is None else [*out, *ids_b, self.sep_token_id]

    def create_token_type_ids_from_sequences(
        self, ids_a: list[int], ids_b: list[int] | None = None
    ) -> list[int]:
        """Segment ids: 0 for [CLS], A and the first [SEP]; 1 for B and the final [SEP]."""
        return [0] * (len(ids_a) + 2) + ([] if ids_b is None else [1] * (len(ids_b) + 1))

    def encode(
        self,
        text: str,
        text_pair: str | None = None,
        *,
        add_special_tokens: bool = True,
        max_length: int | None = None,
        truncation: bool | str | None = None,
        padding: bool | str = False,
    ) -> dict[str, list[int]]:
        """One text (or pair) -> ``{"input_ids", "token_type_ids", "attention_mask"}``, lists of length T.

        Layout ``[CLS] A [SEP] B [SEP]``; ``token_type_ids`` are 0 up to the first [SEP], 1 after it;
        ``attention_mask`` is 1 for real tokens, 0 for padding.
        ``truncation``: ``"longest_first"`` (or ``True``; the default when ``max_length`` is given) trims the
        longer of A and B from the end, exactly as Hugging Face's fast tokenizer; ``"only_first"``,
        ``"only_second"``, or ``False``. ``padding``: ``False``, ``"max_length"`` (pad up to ``max_length``).
        Unlike Hugging Face's ``encode`` (ids only) this returns the full dict, like HF's ``__call__``.
        """
        if not isinstance(text, str) or (text_pair is not None and not isinstance(text_pair, str)):
            raise ValueError(
                "encode expects text (and text_pair) as str; for a list of texts call tokenizer(texts)."
            )
        if max_length is not None:
            if not isinstance(max_length, numbers.Integral) or isinstance(max_length, bool):
                raise ValueError(
                    f"max_length must be a whole number of tokens ([CLS]/[SEP] included) or None, got {max_length!r}."
                )
            max_length = int(max_length)
        ids_a = self.convert_tokens_to_ids(self.tokenize(text))
        ids_b = None if text_pair is None else self.convert_tokens_to_ids(self.tokenize(text_pair))
        strategy = _truncation_strategy(truncation, max_length)
        if strategy is not None:
            n_special = (2 if ids_b is None else 3) if add_special_tokens else 0
            ids_a, ids_b = _truncate(ids_a, ids_b, max_length - n_special, strategy)
        if add_special_tokens:
            input_ids = self.build_inputs_with_special_tokens(ids_a, ids_b)
            token_type_ids = self.create_token_type_ids_from_sequences(ids_a, ids_b)
        else:
            input_ids = ids_a + (ids_b or [])
            token_type_ids = [0] * len(ids_a) + [1] * len(ids_b or [])
        encoding = {
            "input_ids": input_ids,
            "token_type_ids": token_type_ids,
            "attention_mask": [1] * len(input_ids),
        }
        if padding == "max_length":
            if max_length is None:
                raise ValueError(
                    'padding="max_length" needs max_length=...; or use padding=True in tokenizer(texts).'
                )
            encoding = self.pad(encoding, max_length)
        elif padding not in (False, True, "longest", "do_not_pad"):
            raise ValueError(f'padding must be False, True, "longest" or "max_length", got {padding!r}.')
        return encoding

    def pad(self, encoding: dict[str, list[int]], length: int) -> dict[str, list[int]]:
        """Pad one encoding on the right up to ``length``: [PAD] ids, segment 0, attention 0."""
        n = length - len(encoding["input_ids"])
        return {
            "input_ids": encoding["input_ids"] + [self.pad_token_id] * n,
            "token_type_ids": encoding["token_type_ids"] + [0] * n,
            "attention_mask": encoding["attention_mask"] + [0] * n,
        }

    def __call__(
        self,
        text: str | Sequence[str],
        text_pair: str | Sequence[str] | None = None,
        *,
        add_special_tokens: bool = True,
        padding: bool | str = False,
        truncation: bool | str | None = None,
        max_length: int | None = None,
        return_tensors: str | None = None,
    ) -> dict:
        """Encode one text or a batch. With ``return_tensors="pt"`` every value is a ``(B, T)`` LongTensor
        (``B = 1`` for a single text; an empty batch gives ``(0, 0)`` tensors); ``padding=True`` pads to the
        longest in the batch.
        """
        single = isinstance(text, str)
        texts = [text] if single else list(text)
        if text_pair is None:
            pairs = [None] * len(texts)
        else:
            pairs = [text_pair] if isinstance(text_pair, str) else list(text_pair)
            if len(pairs) != len(texts):
                raise ValueError(
                    f"Got {len(texts)} texts but {len(pairs)} text pairs; pass one pair per text."
                )
        encodings = [
            self.encode(
                a,
                b,
                add_special_tokens=add_special_tokens,
                max_length=max_length,
                truncation=truncation,
                padding="max_length" if padding == "max_length" else False,
            )
            for a, b in zip(texts, pairs)
        ]
        if padding in (True, "longest") and encodings:
            longest = max(len(e["input_ids"]) for e in encodings)
            encodings = [self.pad(e, longest) for e in encodings]
        batch = {key: [e[key] for e in encodings] for key in self.model_input_names}
        if return_tensors == "pt":
            if len({len(ids) for ids in batch["input_ids"]}) > 1:
                raise ValueError(
                    "The texts have different lengths; pass padding=True to stack them into a tensor."
                )
            if not encodings:  # no texts: (0, 0), so the result still has the (B, T) shape
                return {key: torch.zeros(0, 0, dtype=torch.long) for key in batch}
            return {key: torch.tensor(value, dtype=torch.long) for key, value in batch.items()}  # (B, T)
        if return_tensors is not None:
            raise ValueError(f'return_tensors must be None or "pt", got {return_tensors!r}.')
        return {key: value[0] for key, value in batch.items()} if single else batch

    # -- ids -> text -------------------------------------------------------------------------------------

    def convert_tokens_to_string(self, tokens: Iterable[str]) -> str:
        """Join tokens with spaces and glue ``##`` pieces to the piece before: ``play ##ing`` -> ``playing``."""
        return " ".join(tokens).replace(" ##", "").strip()

    def decode(self, ids: Iterable[int] | torch.Tensor, skip_special_tokens: bool = False) -> str:
        """Ids -> text: lower-cased, accents stripped, punctuation space-separated (what the model saw).

        (Hugging Face's decoder also removes the space before ``. , ! ?``.)
        """
        if isinstance(ids, torch.Tensor) or hasattr(ids, "ndim"):  # also NumPy arrays
            if ids.ndim > 1:
                raise ValueError(
                    f"decode takes one sequence (T,), got shape {tuple(ids.shape)}; use batch_decode."
                )
            ids = ids.tolist()
        return self.convert_tokens_to_string(self.convert_ids_to_tokens(list(ids), skip_special_tokens))

    def batch_decode(
        self, batch: Iterable[Iterable[int]] | torch.Tensor, skip_special_tokens: bool = False
    ) -> list[str]:
        """Decode every row of a ``(B, T)`` batch."""
        return [self.decode(ids, skip_special_tokens) for ids in batch]

    # -- word boundaries (for whole-word masking) ---------------------------------------------------------

    def word_ids(self, input_ids: Sequence[int] | torch.Tensor) -> torch.Tensor:
        """Index of the word each token belongs to, ``-1`` for special tokens (incl. [UNK] and [PAD]).

        A word is a token plus the ``##`` pieces that follow it. Numbering runs over the whole row
        (A and B together), so ids are in ``[0, T)``. ``(T,)`` or ``(B, T)`` in -> LongTensor of the same shape.
        Used by whole-word masking (notebook 03).
        """
        ids = torch.as_tensor(input_ids, dtype=torch.long)
        if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= self.vocab_size):
            raise ValueError(
                f"word_ids got ids outside 0..{self.vocab_size - 1} (min {int(ids.min())}, max {int(ids.max())}): "
                "were they made with a different tokenizer?"
            )
        if self._is_continuation is None:
            self._is_continuation = torch.tensor([t.startswith("##") for t in self.ids_to_tokens])  # (V,)
        squeeze = ids.dim() == 1
        ids = ids.unsqueeze(0) if squeeze else ids  # (B, T)
        special = torch.isin(ids, torch.tensor(self.all_special_ids))  # (B, T)
        continues = self._is_continuation[ids] & ~special
        after_special = torch.cat([torch.ones_like(special[:, :1]), special[:, :-1]], dim=1)
        starts = ~special & (~continues | after_special)  # a ## piece right after [CLS]/[SEP] starts a word
        word_ids = starts.long().cumsum(dim=1) - 1
        word_ids[special] = -1
        return word_ids[0] if squeeze else word_ids

    def __repr__(self) -> str:
        return f"BertTokenizer(vocab_size={self.vocab_size}, do_lower_case={self.do_lower_case})"


def _checked_vocab(vocab: Mapping[str, int] | Sequence[str]) -> dict[str, int]:
    """Validate a vocabulary: ids 0..V-1 each used once, every special token present."""
    if isinstance(vocab, (str, os.PathLike)):
        raise ValueError(
            "BertTokenizer(vocab) takes a list of tokens or a dict; to read a file use "
            "BertTokenizer.from_file(path)."
        )
    if isinstance(vocab, Mapping):
        vocab = dict(vocab)
        if sorted(vocab.values()) != list(range(len(vocab))):
            raise ValueError("The vocabulary's ids must be exactly 0, 1, ..., V-1 (each once).")
    else:
        tokens = list(vocab)
        duplicates = sorted({t for t, n in Counter(tokens).items() if n > 1})
        if duplicates:
            raise ValueError(
                f"The vocabulary lists these tokens more than once: {duplicates[:10]}; keep one of each."
            )
        vocab = {t: i for i, t in enumerate(tokens)}
    missing = [t for t in SPECIAL_TOKENS if t not in vocab]
    if missing:
        raise ValueError(
            f"The vocabulary lacks the special token(s) {missing}. A BERT vocabulary needs all of "
            f"{list(SPECIAL_TOKENS)}; train one with train_wordpiece (they come first) or add the missing lines."
        )
    return vocab


def _positive_whole_number(name: str, value, where: str = "") -> int:
    """``value`` as an int if it is a whole number >= 1 (NumPy integers too), else a ValueError naming ``name``."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
        default = {"max_input_chars_per_word": 100, "model_max_length": 512}.get(name)
        raise ValueError(
            f"{where}{name} must be a positive whole number, got {value!r}"
            + (f" (BERT uses {default})." if default else ".")
        )
    return int(value)


def _check_settings(do_lower_case, strip_accents, tokenize_chinese_chars, where: str = "") -> None:
    """Raise a ValueError naming the first tokenizer switch that is not a bool (``strip_accents`` may be None).

    ``where`` prefixes the message (e.g. the config file); JSON spells the values true/false/null.
    """
    yes, no, none = ("true", "false", "null") if where else ("True", "False", "None")
    for name, value in (("do_lower_case", do_lower_case), ("tokenize_chinese_chars", tokenize_chinese_chars)):
        if not isinstance(value, bool):
            raise ValueError(f"{where}{name} must be {yes} or {no}, got {value!r}.")
    if strip_accents is not None and not isinstance(strip_accents, bool):
        raise ValueError(
            f"{where}strip_accents must be {yes}, {no} or {none} ({none}: follow do_lower_case), got {strip_accents!r}."
        )


def _read_tokenizer_config(path: Path) -> dict:
    """The settings a ``tokenizer_config.json`` gives :class:`BertTokenizer`, checked; ValueError naming the file."""
    try:
        config = json.loads(path.read_text(encoding="utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(
            f"{path} is not valid JSON ({err}); fix or delete it (it only holds tokenizer settings)."
        ) from None
    if not isinstance(config, dict):
        raise ValueError(
            f'{path} must hold a JSON object ({{"do_lower_case": true, ...}}), got {type(config).__name__}.'
        )
    where = f"{path}: "
    settings = {
        key: config[key]
        for key in ("do_lower_case", "strip_accents", "tokenize_chinese_chars")
        if key in config
    }
    _check_settings(
        settings.get("do_lower_case", True),
        settings.get("strip_accents"),
        settings.get("tokenize_chinese_chars", True),
        where,
    )
    max_len = config.get("model_max_length")
    if max_len is not None:
        max_len = _positive_whole_number("model_max_length", max_len, where)
        if max_len <= 10**6:  # HF writes a huge number (int(1e30)) for "no limit": keep our default then
            settings["model_max_length"] = max_len
    return settings


def _truncation_strategy(truncation: bool | str | None, max_length: int | None) -> str | None:
    if truncation is None:
        truncation = max_length is not None  # HF's behaviour: max_length alone means longest_first
    if truncation is False or truncation == "do_not_truncate":
        return None
    strategy = "longest_first" if truncation is True else truncation
    if strategy not in ("longest_first", "only_first", "only_second"):
        raise ValueError(
            f'truncation must be True, False, "longest_first", "only_first" or "only_second", '
            f"got {truncation!r}."
        )
    if max_length is None:
        raise ValueError(
            "truncation needs max_length=...: the number of tokens to keep, [CLS]/[SEP] included."
        )
    return strategy


def _truncate(ids_a: list[int], ids_b: list[int] | None, budget: int, strategy: str):
    """Trim A and/or B from the end so that len(A) + len(B) <= budget (budget excludes [CLS]/[SEP])."""
    if budget < 0:
        raise ValueError(f"max_length is too small to hold even the [CLS]/[SEP] tokens ({-budget} too few).")
    n_a, n_b = len(ids_a), len(ids_b or [])
    if n_a + n_b <= budget:
        return ids_a, ids_b
    if ids_b is None and strategy == "only_second":
        raise ValueError('truncation="only_second" needs a text pair; use "longest_first" for a single text.')
    if ids_b is None or strategy == "only_first":
        keep_a, keep_b = budget - n_b, n_b
    elif strategy == "only_second":
        keep_a, keep_b = n_a, budget - n_a
    else:  # longest_first, as Hugging Face's tokenizers library computes it
        short, long = sorted((n_a, n_b))
        keep_short, keep_long = short, max(short, budget - short)
        if (
            keep_short + keep_long > budget
        ):  # both too long: split the budget, the odd token to the longer one
            keep_short, keep_long = budget // 2, budget // 2 + budget % 2
        keep_a, keep_b = (keep_long, keep_short) if n_a > n_b else (keep_short, keep_long)
    cut_side = {"only_first": keep_a, "only_second": keep_b}.get(strategy, 1)
    if cut_side <= 0:  # like HF, refuse to cut the only side we may shorten away entirely
        side = "first" if strategy == "only_first" else "second"
        raise ValueError(
            f'truncation="{strategy}" cannot shorten the input enough without removing the whole '
            f'{side} text. Use truncation="longest_first" or a larger max_length.'
        )
    return ids_a[:keep_a], None if ids_b is None else ids_b[:keep_b]


# ----------------------------------------------------------------------------------------------------------
# Training a WordPiece vocabulary


def train_wordpiece(
    texts: Iterable[str] | Iterable[Sequence[str]],
    vocab_size: int,
    *,
    do_lower_case: bool = True,
    strip_accents: bool | None = None,
    tokenize_chinese_chars: bool = True,
    score: str = "likelihood",
) -> list[str]:
    """Learn a WordPiece vocabulary of (at most) ``vocab_size`` tokens from ``texts``; returns tokens in id order.

    ``texts``: sentences, or documents (lists of sentences, as returned by ``bertedu.training.data.read_corpus``).
    Layout: ``[PAD] [UNK] [CLS] [SEP] [MASK]`` (ids 0-4), then every character of the corpus (sorted), then
    the ``##`` form of every character that can continue a word (not punctuation, not CJK), then merges.

    Training (the likelihood-style WordPiece of Hugging Face's course): split every word into characters
    (``hug`` -> ``h ##u ##g``), then repeatedly merge the adjacent pair with the highest
    ``score = freq(pair) / (freq(first) * freq(second))`` (word frequencies weight every count) into a new
    token (``h`` + ``##u`` -> ``hu``) until the vocabulary has ``vocab_size`` tokens or every word is one
    token. Ties go to the more frequent pair, then to the alphabetically first: the result is deterministic.
    This score favours pairs whose parts are rare on their own, so the most frequent words (``the``) are
    merged *last*: with a small ``vocab_size`` they stay split (``t ##h ##e``). ``score="frequency"``
    merges the most frequent pair instead (byte-pair encoding's rule, which Hugging Face's ``tokenizers``
    WordPiece trainer uses), so frequent words become whole tokens first.
    """
    if isinstance(texts, str):
        raise ValueError(
            "train_wordpiece takes a list of sentences (or of documents), not one str: it would learn from "
            f"single characters. Pass [{texts[:40]!r}] or a list of lines."
        )
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool) or vocab_size < 1:
        raise ValueError(f"vocab_size must be a positive int, got {vocab_size!r}.")
    if score not in ("likelihood", "frequency"):
        raise ValueError(f'score must be "likelihood" or "frequency", got {score!r}.')
    basic = BasicTokenizer(do_lower_case, SPECIAL_TOKENS, tokenize_chinese_chars, strip_accents)
    word_freq = _word_frequencies(texts, basic)

    # Base vocabulary: special tokens, characters, ## characters.
    chars = sorted({c for word in word_freq for c in word})
    inner = sorted("##" + c for c in chars if not _is_punctuation(c) and not _is_chinese_char(ord(c)))
    vocab = [*SPECIAL_TOKENS, *chars, *inner]
    if vocab_size < len(vocab):
        raise ValueError(
            f"vocab_size={vocab_size} is too small: the {len(SPECIAL_TOKENS)} special tokens and the corpus's "
            f"{len(chars)} characters ({len(inner)} of them also as ##piece) already need {len(vocab)}. "
            f"Use vocab_size >= {len(vocab)}."
        )
    _add_merges(vocab, word_freq, vocab_size, score)
    if len(vocab) < vocab_size:
        warnings.warn(
            f"train_wordpiece: the corpus supports only {len(vocab)} tokens (every word is now one "
            f"token), fewer than vocab_size={vocab_size}.",
            stacklevel=2,
        )
    return vocab


def _word_frequencies(texts: Iterable[str] | Iterable[Sequence[str]], basic: BasicTokenizer) -> Counter[str]:
    """How often each word of ``texts`` (sentences or documents) occurs, as ``basic`` splits them."""
    word_freq: Counter[str] = Counter()
    for item in texts:
        for sentence in [item] if isinstance(item, str) else item:
            if not isinstance(sentence, str):
                raise ValueError(
                    f"train_wordpiece expects sentences (str) or documents (lists of str), got {sentence!r}."
                )
            word_freq.update(w for w in basic.tokenize(sentence) if w not in SPECIAL_TOKENS)
    if not word_freq:
        raise ValueError("train_wordpiece got no words: pass a non-empty list of sentences.")
    return word_freq


def _add_merges(vocab: list[str], word_freq: Counter[str], vocab_size: int, score: str) -> None:
    """:func:`train_wordpiece`'s training: append merged tokens to ``vocab`` (the base vocabulary) until it has
    ``vocab_size`` tokens or every word is one token."""
    known = set(vocab)

    # Every distinct word as a list of pieces, plus the counts the score needs (kept up to date per merge).
    words = list(word_freq)  # first-seen order; the merge choice never depends on it
    splits = [[w[0], *("##" + c for c in w[1:])] for w in words]
    freqs = [word_freq[w] for w in words]
    piece_freq: Counter[str] = Counter()
    pair_freq: Counter[tuple[str, str]] = Counter()
    # fast path: counts are updated incrementally, only for the words a merge touches (same result as recounting).
    pair_words: dict[tuple[str, str], set[int]] = {}  # pair -> indices of the words containing it
    for i, split in enumerate(splits):
        _count(split, freqs[i], i, piece_freq, pair_freq, pair_words)

    queue = _PairQueue(pair_freq, piece_freq, score)  # fast path: a heap instead of a scan of every pair
    while len(vocab) < vocab_size and pair_freq:
        best = queue.pop_best()  # the same pair as _best_pair(pair_freq, piece_freq, score)
        first, second = best
        merged = first + second[2:]  # "h" + "##u" -> "hu";  "##u" + "##g" -> "##ug"
        if merged not in known:
            vocab.append(merged)
            known.add(merged)
        new_pairs = set()  # fast path: the pairs the merge made, for the queue
        for i in sorted(pair_words.pop(best)):
            # the merged split, and its counts in place of the old one's: _merge(split, first, second, merged),
            # then _count(old, -freqs[i], ...) and _count(new, freqs[i], ...), done where the merge changed it
            splits[i] = _merge_and_recount(
                splits[i], best, merged, freqs[i], i, piece_freq, pair_freq, pair_words
            )
            new_pairs.update(pair for pair in zip(splits[i], splits[i][1:]) if merged in pair)
        queue.update(merged, (first, second), new_pairs)


def _pair_key(pair: tuple[str, str], pair_freq: Counter, piece_freq: Counter, score: str) -> tuple:
    """The merge order: the pair with the smallest key merges next. Highest score first, then highest frequency,
    then alphabetical. One division of exact ints per score, so equal fractions give equal floats."""
    if score == "likelihood":
        freq = pair_freq[pair]
        return (-freq / (piece_freq[pair[0]] * piece_freq[pair[1]]), -freq, pair)
    return (-pair_freq[pair], pair)


def _best_pair(pair_freq: Counter, piece_freq: Counter, score: str) -> tuple[str, str]:
    """The pair to merge next, by a scan of every pair (the rule; :class:`_PairQueue` finds the same pair fast)."""
    return min(pair_freq, key=lambda p: _pair_key(p, pair_freq, piece_freq, score))


class _PairQueue:
    """fast path: the pairs in a heap ordered by :func:`_pair_key`, so that finding the best pair costs a few heap
    operations instead of a scan of every pair (on 2 M words: seconds instead of many minutes for 8,000 merges).

    The counts live in the trainer's ``pair_freq`` and ``piece_freq``; an entry keeps the key its pair had when it
    was pushed. A merge of ``first`` and ``second`` into ``merged`` moves keys up only for the new pairs (those of
    ``merged``) and, for the likelihood score, for the pairs of ``first`` and ``second`` (rarer pieces, higher
    scores): :meth:`update` pushes their current keys. Every other change makes a key worse (fewer occurrences), so
    an out-of-date entry is skipped when it comes up (its pair gone) or pushed again with its current key: the first
    up-to-date entry popped is :func:`_best_pair`'s pair."""

    def __init__(self, pair_freq: Counter, piece_freq: Counter, score: str):
        self.pair_freq, self.piece_freq, self.score = pair_freq, piece_freq, score
        self.heap = [self.key(pair) for pair in pair_freq]
        heapq.heapify(self.heap)
        self.by_piece: dict[str, set] = {}  # piece -> pairs it may be in (pruned lazily)
        self._index(pair_freq)

    def key(self, pair: tuple[str, str]) -> tuple:
        return _pair_key(pair, self.pair_freq, self.piece_freq, self.score)

    def _index(self, pairs) -> None:
        for pair in pairs:
            for piece in pair:
                self.by_piece.setdefault(piece, set()).add(pair)

    def pop_best(self) -> tuple[str, str]:
        while True:
            entry = heapq.heappop(self.heap)
            pair = entry[-1]
            if pair not in self.pair_freq:
                continue  # merged away, or its last occurrence gone
            current = self.key(pair)
            if current == entry:
                return pair
            heapq.heappush(self.heap, current)  # its score fell since it was pushed: back in at its place

    def _pairs_of(self, piece: str) -> set:
        """The pairs ``piece`` is in now (the index may still list gone ones: they are dropped here)."""
        pairs = {pair for pair in self.by_piece.get(piece, ()) if pair in self.pair_freq}
        self.by_piece[piece] = pairs
        return pairs

    def update(self, merged: str, fewer: tuple[str, str], new_pairs) -> None:
        """After a merge into ``merged``: push the keys that rose (see the class docstring)."""
        self._index(new_pairs)
        rose = self._pairs_of(merged)
        if self.score == "likelihood":
            for piece in fewer:
                rose |= self._pairs_of(piece)
        for pair in rose:
            heapq.heappush(self.heap, self.key(pair))


def train_tokenizer(
    documents: Iterable[str] | Iterable[Sequence[str]], vocab_size: int | None = None
) -> BertTokenizer:
    """A :class:`BertTokenizer` whose WordPiece vocabulary is trained on ``documents`` (sentences or documents).

    ``vocab_size=None`` keeps merging until every word of the corpus is one token (``score="frequency"``, so
    frequent words become whole first), which makes "predict the masked word" a single-token choice: the
    pretraining run of notebook 06 uses it.
    """
    with warnings.catch_warnings():
        # With vocab_size=None we ask for more tokens than the corpus supports on purpose.
        warnings.filterwarnings("ignore", message="train_wordpiece: the corpus supports only")
        tokens = train_wordpiece(documents, vocab_size or 10**6, score="frequency")
    return BertTokenizer(tokens)


def _count(
    split: list[str], weight: int, index: int, piece_freq: Counter, pair_freq: Counter, pair_words: dict
):
    """Add (weight > 0) or remove (weight < 0) one word's pieces and adjacent pairs from the counts."""
    for piece in split:
        piece_freq[piece] += weight
        if piece_freq[piece] == 0:
            del piece_freq[piece]
    for pair in zip(split, split[1:]):
        pair_freq[pair] += weight
        if weight > 0:
            pair_words.setdefault(pair, set()).add(index)
        elif pair_freq[pair] == 0:
            del pair_freq[pair]
            pair_words.pop(pair, None)


def _merge_and_recount(
    split: list[str],
    pair: tuple[str, str],
    merged: str,
    weight: int,
    index: int,
    piece_freq,
    pair_freq,
    pair_words,
) -> list[str]:
    """fast path: ``_merge(split, *pair, merged)``, with the counts :func:`_count` keeps moved from the old split to
    the new one only where they differ: the pairs that touched a merged occurrence go, the pairs next to each new
    ``merged`` piece come, and ``first`` and ``second`` each lose (``merged`` gains) one piece per occurrence."""
    first, second = pair
    new, hits, made = [], [], []  # the new split; where the merges were, in the old split and in the new
    i = 0
    while i < len(split):
        if i + 1 < len(split) and split[i] == first and split[i + 1] == second:
            hits.append(i)
            made.append(len(new))
            new.append(merged)
            i += 2
        else:
            new.append(split[i])
            i += 1
    for k in sorted({k for j in hits for k in (j - 1, j, j + 1) if 0 <= k < len(split) - 1}):
        old_pair = (split[k], split[k + 1])
        pair_freq[old_pair] -= weight
        if pair_freq[old_pair] == 0:
            del pair_freq[old_pair]
            pair_words.pop(old_pair, None)
    for k in sorted({k for j in made for k in (j - 1, j) if 0 <= k < len(new) - 1}):
        new_pair = (new[k], new[k + 1])
        pair_freq[new_pair] += weight
        pair_words.setdefault(new_pair, set()).add(index)
    for piece, change in ((first, -len(hits)), (second, -len(hits)), (merged, len(hits))):
        piece_freq[piece] += change * weight
        if piece_freq[piece] == 0:
            del piece_freq[piece]
    return new


def _merge(split: list[str], first: str, second: str, merged: str) -> list[str]:
    """Replace every adjacent (first, second) in ``split`` with ``merged``, left to right."""
    out, i = [], 0
    while i < len(split):
        if i + 1 < len(split) and split[i] == first and split[i + 1] == second:
            out.append(merged)
            i += 2
        else:
            out.append(split[i])
            i += 1
    return out
