"""Plain helpers and constants shared by several test files (fixtures are in ``tests/conftest.py``).

Import them as ``from support import small_bert_config`` (``tests/`` is on ``sys.path`` while pytest runs).
"""

from __future__ import annotations

from bertedu.config import BertConfig


def small_bert_config(**overrides) -> BertConfig:
    """A 2-layer, H = 32, 4-head BERT config with 97 tokens and 40 positions (fast to build); ``overrides``
    change single fields. Test files import it: ``from support import small_bert_config``."""
    base = dict(
        vocab_size=97,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=48,
        max_position_embeddings=40,
    )
    return BertConfig(**{**base, **overrides})


# ----------------------------------------------------------------------------------------------------------
# A tiny pretraining set-up: a 3-document corpus, held-out files and a 1-layer model size "test"

CORPUS = """the cat sits on the mat
the cat drinks milk
then the cat sleeps by the fire

the dog runs in the park
the dog drinks water
the dog sleeps under the table

the sun rises in the east
the sun shines in the sky
the sun sets in the west

the man reads the book
the man drinks coffee
the woman drinks tea
"""
MLM_EVAL = "sentence\tanswers\nthe cat drinks [MASK]\tmilk\nthe [MASK] rises in the east\tsun\n"
NSP_EVAL = (
    "sentence_a\tsentence_b\tlabel\nthe cat sits on the mat\tthe cat drinks milk\tIsNext\n"
    "the cat sits on the mat\tthe sun sets in the west\tNotNext\n"
)
TEST_PRESET = {"num_hidden_layers": 1, "hidden_size": 16, "num_attention_heads": 2, "intermediate_size": 32}


def same_weights(a, b) -> bool:
    """True if two models (or state dicts) hold exactly the same tensors."""
    sa = a.state_dict() if hasattr(a, "state_dict") else a
    sb = b.state_dict() if hasattr(b, "state_dict") else b
    return sa.keys() == sb.keys() and all(sa[k].equal(sb[k]) for k in sa)
