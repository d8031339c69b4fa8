"""``BertConfig``: every size and switch of a BERT model in one dataclass, with Hugging Face field names.

A config is plain data: the model classes read it, ``config.json`` stores it. The field names and
defaults are those of ``transformers.BertConfig`` (the defaults describe BERT-base), so a
``config.json`` written here loads in ``transformers`` and a Hugging Face ``config.json`` loads here.

Three switches change the architecture for the ablations of notebook 10 (the defaults are BERT's, and with
them the model is exactly the one of notebooks 04-09):

- ``is_decoder`` (Hugging Face's field): causal self-attention, token i attends to tokens j <= i only;
- ``position_embedding_type``: ``"absolute"`` (BERT's learned table) or ``"none"`` (no positions at all);
- ``layer_norm_position`` (bertedu only): ``"post"`` (BERT) or ``"pre"`` (LayerNorm before each sub-layer).

Introduced in notebook 05 (the switches in notebook 10).
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bertedu.core.validation import DROPOUT, require_int, require_number
from bertedu.files import atomic_write_text

# The paper's model sizes (L layers / H hidden / A heads); the feed-forward size is always 4H.
# tiny..medium are the compact models of Turc et al. (2019); base and large are the paper's.
PRESETS: dict[str, dict[str, int]] = {
    "tiny": {"num_hidden_layers": 2, "hidden_size": 128, "num_attention_heads": 2, "intermediate_size": 512},
    "mini": {"num_hidden_layers": 4, "hidden_size": 256, "num_attention_heads": 4, "intermediate_size": 1024},
    "small": {
        "num_hidden_layers": 4,
        "hidden_size": 512,
        "num_attention_heads": 8,
        "intermediate_size": 2048,
    },
    "medium": {
        "num_hidden_layers": 8,
        "hidden_size": 512,
        "num_attention_heads": 8,
        "intermediate_size": 2048,
    },
    "base": {
        "num_hidden_layers": 12,
        "hidden_size": 768,
        "num_attention_heads": 12,
        "intermediate_size": 3072,
    },
    "large": {
        "num_hidden_layers": 24,
        "hidden_size": 1024,
        "num_attention_heads": 16,
        "intermediate_size": 4096,
    },
}

ATTN_IMPLEMENTATIONS = ("eager", "sdpa")
POSITION_EMBEDDING_TYPES = ("absolute", "none")
LAYER_NORM_POSITIONS = ("post", "pre")

# Keys of a Hugging Face config.json that describe *other* models than the encoder built here.
_UNSUPPORTED = {
    "add_cross_attention": (False, None),
}


@dataclass
class BertConfig:
    """All hyper-parameters of a BERT model; defaults are BERT-base (``transformers.BertConfig``'s).

    ``attn_implementation`` chooses how attention is computed: ``"eager"`` (default) is the explicit
    ``softmax(QKᵀ/√d)V`` of notebook 01, ``"sdpa"`` calls PyTorch's fused
    ``F.scaled_dot_product_attention`` (faster, same result; the explicit path is still used when
    attention weights are requested).

    The ablation switches (notebook 10; defaults are BERT's):

    - ``is_decoder=True``: causal self-attention (the mask also hides every later token), as in
      ``transformers`` with the same field; the token outputs equal ``transformers``' (tested). No
      cross-attention (``add_cross_attention`` must stay False). Because [CLS] then sees only itself, the
      pooler reads the *last* real token instead (GPT classifies from its last token too); ``transformers``
      pools [CLS] even in a decoder, so the pooled output of a causal checkpoint differs there.
    - ``position_embedding_type="none"``: no position table at all, so attention sees a bag of tokens (the
      model is permutation-equivariant). ``"absolute"`` is BERT's. ``transformers`` 5 has no such field
      and would add randomly initialised positions: such a checkpoint does not load faithfully there.
    - ``layer_norm_position="pre"``: ``x + f(LN(x))`` in every sub-layer plus a final LayerNorm
      (``encoder.LayerNorm``) instead of BERT's ``LN(x + f(x))``. bertedu only: ``transformers``' BERT is
      post-LN, so a pre-LN checkpoint does not load in ``transformers``.

    Introduced in notebook 05.
    """

    vocab_size: int = 30522
    hidden_size: int = 768
    num_hidden_layers: int = 12
    num_attention_heads: int = 12
    intermediate_size: int = 3072
    hidden_act: str = "gelu"
    hidden_dropout_prob: float = 0.1
    attention_probs_dropout_prob: float = 0.1
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    initializer_range: float = 0.02
    layer_norm_eps: float = 1e-12
    pad_token_id: int = 0
    classifier_dropout: float | None = None  # task heads; None means hidden_dropout_prob
    num_labels: int = 2  # task heads (sequence / token classification); question answering uses 2
    # ablation switches (notebook 10); the defaults are BERT's:
    is_decoder: bool = False  # causal self-attention (Hugging Face's field)
    position_embedding_type: str = "absolute"  # "absolute" (learned table) or "none" (no positions)
    layer_norm_position: str = "post"  # bertedu only: "post" (BERT) or "pre" (+ a final LayerNorm)
    # bertedu switches (ignored by transformers, which honours attn_implementation too):
    attn_implementation: str = "eager"
    architectures: list[str] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        self.validate()

    # ----------------------------------------------------------------------------------------------
    def validate(self) -> None:
        """Raise ``ValueError`` with a clear message if the sizes cannot make a working BERT."""
        for name in (
            "vocab_size",
            "hidden_size",
            "num_hidden_layers",
            "num_attention_heads",
            "intermediate_size",
            "max_position_embeddings",
            "type_vocab_size",
            "num_labels",
        ):
            require_int(f"BertConfig.{name}", getattr(self, name), 1)
        if self.hidden_size % self.num_attention_heads != 0:
            raise ValueError(
                f"hidden_size ({self.hidden_size}) must be divisible by num_attention_heads "
                f"({self.num_attention_heads}): each head gets hidden_size / heads dimensions. "
                f"Choose e.g. num_attention_heads={_divisor_hint(self.hidden_size, self.num_attention_heads)}."
            )
        if self.hidden_act != "gelu":
            raise ValueError(
                f"hidden_act must be 'gelu' (BERT's exact erf GELU), got {self.hidden_act!r}. "
                "Other activations are not part of BERT and are not supported here."
            )
        for name in ("hidden_dropout_prob", "attention_probs_dropout_prob"):
            DROPOUT.check(f"BertConfig.{name}", getattr(self, name))
        if self.classifier_dropout is not None:
            DROPOUT.check("BertConfig.classifier_dropout (or None)", self.classifier_dropout)
        require_number(
            "BertConfig.initializer_range",
            self.initializer_range,
            low_inclusive=False,
            high_inclusive=False,
            example="0.02",
        )
        if not self.layer_norm_eps > 0:
            raise ValueError(
                f"layer_norm_eps must be positive (BERT uses 1e-12), got {self.layer_norm_eps!r}."
            )
        if self.pad_token_id is not None and not 0 <= self.pad_token_id < self.vocab_size:
            raise ValueError(
                f"pad_token_id ({self.pad_token_id}) must be a token id in [0, vocab_size={self.vocab_size})."
            )
        if self.attn_implementation not in ATTN_IMPLEMENTATIONS:
            raise ValueError(
                f"attn_implementation must be one of {ATTN_IMPLEMENTATIONS}, got {self.attn_implementation!r}."
            )
        if not isinstance(self.is_decoder, bool):
            raise ValueError(f"is_decoder must be True or False, got {self.is_decoder!r}.")
        if self.position_embedding_type not in POSITION_EMBEDDING_TYPES:
            raise ValueError(
                f"position_embedding_type must be one of {POSITION_EMBEDDING_TYPES}, got "
                f"{self.position_embedding_type!r}: bertedu builds BERT's learned absolute positions or none "
                "(relative positions such as 'relative_key' are not implemented)."
            )
        if self.layer_norm_position not in LAYER_NORM_POSITIONS:
            raise ValueError(
                f"layer_norm_position must be 'post' (BERT) or 'pre', got {self.layer_norm_position!r}."
            )

    @property
    def head_dim(self) -> int:
        """Dimensions per attention head, ``hidden_size // num_attention_heads``."""
        return self.hidden_size // self.num_attention_heads

    # ----------------------------------------------------------------------------------------------
    @classmethod
    def from_preset(cls, name: str, **overrides: Any) -> BertConfig:
        """A config of one of the paper's sizes (``PRESETS``), e.g. ``from_preset("mini", vocab_size=2000)``."""
        key = name.lower()
        if key not in PRESETS:
            raise ValueError(
                f"Unknown preset {name!r}; choose one of {sorted(PRESETS, key=list(PRESETS).index)}."
            )
        return cls(**{**PRESETS[key], **overrides})

    def replace(self, **changes: Any) -> BertConfig:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)

    # ----------------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The config as a JSON-ready dict in Hugging Face ``config.json`` format."""
        out: dict[str, Any] = {"model_type": "bert"}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "architectures" and value is None:
                continue
            out[f.name] = list(value) if isinstance(value, list) else value
        out["tie_word_embeddings"] = True
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], **overrides: Any) -> BertConfig:
        """Build a config from a (Hugging Face) ``config.json`` dict; unknown keys are ignored.

        Keys such as ``architectures``, ``model_type`` or ``transformers_version`` are accepted. A config
        describing a different model (relative positions, cross-attention) raises ``ValueError``.
        """
        if not isinstance(data, Mapping):
            raise ValueError(
                f"BertConfig.from_dict needs a dict (the contents of a config.json), got a "
                f"{type(data).__name__}; use BertConfig.from_json_file(path) to read a file."
            )
        data = {**data, **overrides}
        model_type = data.get("model_type", "bert")
        if model_type not in ("bert", None):
            raise ValueError(f"This is a {model_type!r} config, not a BERT one (model_type must be 'bert').")
        for key, allowed in _UNSUPPORTED.items():
            if data.get(key, None) not in allowed:
                raise ValueError(
                    f"{key}={data[key]!r} is not supported: bertedu builds BERT encoders (is_decoder=True gives "
                    "causal self-attention, but there is no cross-attention to another model's outputs)."
                )
        if "num_labels" not in data and isinstance(data.get("id2label"), dict):
            data["num_labels"] = len(data["id2label"])  # transformers stores labels, not their number
        for key in ("attn_implementation", "is_decoder", "position_embedding_type", "layer_norm_position"):
            if key in data and data[key] is None:  # transformers writes null for "the default"
                data.pop(key)
        if data.get("hidden_act") in ("gelu_python",):  # same function, another name
            data["hidden_act"] = "gelu"
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def to_json_string(self) -> str:
        """The config as pretty-printed JSON (sorted keys, like ``transformers``)."""
        return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"

    def to_json_file(self, path: str | os.PathLike) -> Path:
        """Write ``config.json`` atomically."""
        return atomic_write_text(path, self.to_json_string())

    @classmethod
    def from_json_file(cls, path: str | os.PathLike, **overrides: Any) -> BertConfig:
        """Read a ``config.json`` (ours or Hugging Face's)."""
        path = Path(path)
        if path.is_dir():
            path = path / "config.json"
        if not path.is_file():
            raise FileNotFoundError(f"No config file at {path}; a model directory needs a config.json.")
        with open(path, encoding="utf-8") as fh:
            try:
                data = json.load(fh)
            except json.JSONDecodeError as err:
                raise ValueError(f"{path} is not valid JSON: {err}") from err
        return cls.from_dict(data, **overrides)


def _divisor_hint(hidden: int, heads: int) -> int:
    """The divisor of ``hidden`` closest to ``heads`` (for the error message)."""
    divisors = [d for d in range(1, hidden + 1) if hidden % d == 0]
    return min(divisors, key=lambda d: (abs(d - heads), d))
