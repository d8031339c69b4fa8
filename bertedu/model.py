"""BERT models: the encoder (``BertModel``), the pretraining model and the fine-tuning models.

    BertModel                      embeddings -> encoder (L post-LN layers) -> tanh pooler on [CLS]
    BertForPreTraining             BertModel + MLM head (tied to the word embeddings) + NSP head
    BertForSequenceClassification BertModel + dropout + classifier on the pooled [CLS]
    BertForTokenClassification     BertModel + dropout + classifier on every token
    BertForQuestionAnswering       BertModel + qa_outputs: a start and an end score per token

Parameter names are Hugging Face's, so a saved directory (``config.json`` + ``model.safetensors``) is a
plain ``transformers`` checkpoint, and ``from_pretrained`` reads ``transformers`` checkpoints.

Introduced in notebook 04 (pretraining model and losses) and notebook 05 (the full model, init, sizes).
"""

from __future__ import annotations

import dataclasses
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from bertedu.attention import build_key_mask
from bertedu.config import BertConfig
from bertedu.embeddings import BertEmbeddings
from bertedu.encoder import BertEncoder
from bertedu.heads import BertLMPredictionHead, BertPooler, BertPreTrainingHeads
from bertedu.losses import IGNORE_INDEX, masked_cross_entropy, mlm_loss, nsp_loss, pretraining_loss
from bertedu.utils import atomic_write

logger = logging.getLogger(__name__)

WEIGHTS_NAME = "model.safetensors"
PYTORCH_WEIGHTS_NAME = "pytorch_model.bin"
CONFIG_NAME = "config.json"


# ------------------------------------------------------------------------------------------------------
# Outputs: dataclasses with Hugging Face's field names.
# ------------------------------------------------------------------------------------------------------
@dataclass
class ModelOutput:
    """Base of the output dataclasses: ``out.loss``, ``out["loss"]`` and ``out[0]`` (first non-None field).

    Introduced in notebook 04.
    """

    def to_tuple(self) -> tuple[Any, ...]:
        return tuple(v for v in (getattr(self, f.name) for f in dataclasses.fields(self)) if v is not None)

    def __getitem__(self, key: str | int) -> Any:
        return getattr(self, key) if isinstance(key, str) else self.to_tuple()[key]


@dataclass
class BaseModelOutputWithPooling(ModelOutput):
    """``BertModel`` output: last_hidden_state ``(B, T, H)``, pooler_output ``(B, H)``, and on request
    hidden_states (L + 1 tensors ``(B, T, H)``) and attentions (L tensors ``(B, A, T, T)``).
    Introduced in notebook 05."""

    last_hidden_state: torch.Tensor
    pooler_output: torch.Tensor | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None


@dataclass
class BertForPreTrainingOutput(ModelOutput):
    """``BertForPreTraining`` output. ``loss = mlm_loss + nsp_loss`` (each part present when its labels are).

    prediction_logits is ``(B, T, V)``, or ``(N, V)`` on the MLM fast path (one row per labelled position,
    in the order of ``labels[labels != -100]``); seq_relationship_logits ``(B, 2)``. Introduced in notebook 04.
    """

    loss: torch.Tensor | None = None
    mlm_loss: torch.Tensor | None = None
    nsp_loss: torch.Tensor | None = None
    prediction_logits: torch.Tensor | None = None
    seq_relationship_logits: torch.Tensor | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None


@dataclass
class SequenceClassifierOutput(ModelOutput):
    """Sequence classification output: logits ``(B, num_labels)``. Introduced in notebook 07."""

    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None


@dataclass
class TokenClassifierOutput(ModelOutput):
    """Token classification output: logits ``(B, T, num_labels)``. Introduced in notebook 07."""

    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None


@dataclass
class QuestionAnsweringModelOutput(ModelOutput):
    """Span extraction output: start_logits and end_logits ``(B, T)``. Introduced in notebook 07."""

    loss: torch.Tensor | None = None
    start_logits: torch.Tensor | None = None
    end_logits: torch.Tensor | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None


@dataclass
class LoadingInfo:
    """What ``from_pretrained`` did: weights that started fresh, checkpoint weights that were not used.

    Introduced in notebook 07.
    """

    missing_keys: list[str]
    unexpected_keys: list[str]


# ------------------------------------------------------------------------------------------------------
# Input checks (cheap: shapes, dtypes and one min/max per tensor).
# ------------------------------------------------------------------------------------------------------
_INT_DTYPES = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)


def _check_ids(name: str, ids: torch.Tensor, upper: int, what: str, shape: torch.Size | None = None) -> None:
    if not isinstance(ids, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor, got {type(ids).__name__}; use torch.tensor(...).")
    if ids.dtype not in _INT_DTYPES:
        raise ValueError(
            f"{name} must hold integer ids (torch.long), got dtype {ids.dtype}. Ids index a lookup table; "
            "convert with .long() if they are whole numbers stored as floats."
        )
    if shape is not None and ids.shape != shape:
        raise ValueError(
            f"{name} has shape {tuple(ids.shape)} but input_ids has {tuple(shape)}; they must match."
        )
    if ids.numel() == 0:
        return
    lo, hi = torch.aminmax(ids)
    if lo.item() < 0 or hi.item() >= upper:
        raise ValueError(
            f"{name} must lie in [0, {upper}) ({what}), found values from {lo.item()} to {hi.item()}."
        )


def check_inputs(
    config: BertConfig,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor | None = None,
    token_type_ids: torch.Tensor | None = None,
) -> None:
    """Raise a clear ``ValueError`` for inputs a BERT of this config cannot take. Introduced in notebook 05."""
    if isinstance(input_ids, torch.Tensor) and input_ids.dim() != 2:
        hint = " For one sentence use input_ids.unsqueeze(0)." if input_ids.dim() == 1 else ""
        raise ValueError(f"input_ids must have shape (B, T), got {tuple(input_ids.shape)}.{hint}")
    _check_ids("input_ids", input_ids, config.vocab_size, f"vocab_size = {config.vocab_size}")
    B, T = input_ids.shape
    if T == 0:
        raise ValueError("input_ids has no tokens (T = 0).")
    if T > config.max_position_embeddings:
        raise ValueError(
            f"Sequence length {T} exceeds max_position_embeddings = {config.max_position_embeddings}: there is "
            "no position embedding beyond that. Truncate the input (tokenizer truncation / max_length)."
        )
    if token_type_ids is not None:
        _check_ids(
            "token_type_ids",
            token_type_ids,
            config.type_vocab_size,
            f"type_vocab_size = {config.type_vocab_size}",
            input_ids.shape,
        )
    if attention_mask is not None:
        if not isinstance(attention_mask, torch.Tensor):
            raise ValueError(f"attention_mask must be a torch.Tensor, got {type(attention_mask).__name__}.")
        if attention_mask.shape != input_ids.shape:
            raise ValueError(
                f"attention_mask has shape {tuple(attention_mask.shape)} but input_ids has {tuple(input_ids.shape)}; "
                "it must be (B, T) with 1 for real tokens and 0 for padding."
            )
        if ((attention_mask != 0) & (attention_mask != 1)).any():
            raise ValueError("attention_mask must contain only 0 (padding) and 1 (real token).")
        if not attention_mask.any(dim=1).all():
            raise ValueError(
                "Every sequence needs at least one real token: a row of attention_mask is all 0."
            )


def _check_labels(
    name: str, labels: torch.Tensor, shape: tuple[int, ...], num_classes: int, ignore_index: int | None = None
) -> None:
    if not isinstance(labels, torch.Tensor) or labels.dtype not in _INT_DTYPES:
        got = labels.dtype if isinstance(labels, torch.Tensor) else type(labels).__name__
        raise ValueError(f"{name} must be an integer tensor (torch.long), got {got}.")
    if tuple(labels.shape) != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)}, got {tuple(labels.shape)}.")
    valid = (labels >= 0) & (labels < num_classes)
    if ignore_index is not None:
        valid |= labels == ignore_index
    if not valid.all():
        bad = labels[~valid][0].item()
        allowed = f"[0, {num_classes})" + (f" or {ignore_index}" if ignore_index is not None else "")
        raise ValueError(f"{name} must lie in {allowed}; found {bad}.")


# ------------------------------------------------------------------------------------------------------
# Base class: initialisation, saving, loading.
# ------------------------------------------------------------------------------------------------------
class BertPreTrainedModel(nn.Module):
    """Shared machinery: BERT's initialisation, ``save_pretrained`` / ``from_pretrained`` in HF format.

    Introduced in notebook 05.
    """

    base_model_prefix = "bert"
    # Keys that share storage with another parameter (saved once, like transformers does).
    _tied_keys: tuple[str, ...] = ()
    # Checkpoint weights this model does not use without it being worth a warning (other models' heads).
    _quiet_unused_prefixes = ("cls.", "classifier.", "qa_outputs.", "bert.pooler.", "pooler.")

    def __init__(self, config: BertConfig):
        super().__init__()
        if not isinstance(config, BertConfig):
            raise ValueError(
                f"{type(self).__name__} needs a bertedu BertConfig, got {type(config).__name__}."
            )
        self.config = config

    # --- initialisation ---------------------------------------------------------------------------
    @torch.no_grad()
    def _init_weights(self, module: nn.Module) -> None:
        """BERT's init: weights ~ N(0, 0.02), biases 0, LayerNorm 1 and 0, the [PAD] embedding row 0."""
        std = self.config.initializer_range
        if isinstance(module, nn.Linear):
            module.weight.normal_(mean=0.0, std=std)
            if module.bias is not None:
                module.bias.zero_()
        elif isinstance(module, nn.Embedding):
            module.weight.normal_(mean=0.0, std=std)
            if module.padding_idx is not None:
                module.weight[module.padding_idx].zero_()
        elif isinstance(module, nn.LayerNorm):
            module.weight.fill_(1.0)
            module.bias.zero_()
        elif isinstance(module, BertLMPredictionHead):
            module.bias.zero_()

    def post_init(self) -> None:
        """Initialise this model's own modules (a nested BertModel has done its own), then tie weights."""
        for child in self.children():
            if not isinstance(child, BertPreTrainedModel):
                child.apply(self._init_weights)
        self.tie_weights()

    def tie_weights(self) -> None:
        """Make shared weights the same Parameter (only the pretraining model has any)."""

    def get_input_embeddings(self) -> nn.Embedding:
        """The word-embedding table ``(V, H)``."""
        base = getattr(self, self.base_model_prefix, self)
        return base.embeddings.word_embeddings

    @property
    def device(self) -> torch.device:
        """The device of the model's parameters (move inputs there)."""
        return next(self.parameters()).device

    # --- saving -----------------------------------------------------------------------------------
    def save_pretrained(self, directory: str | os.PathLike, tokenizer: Any = None) -> Path:
        """Write ``config.json`` and ``model.safetensors`` (and the tokenizer's ``vocab.txt`` if one is given).

        The directory is a Hugging Face checkpoint: ``transformers.<same class>.from_pretrained(directory)``
        loads it with no missing or unexpected keys. Each file is written atomically. Returns the path.
        Introduced in notebook 05.
        """
        from safetensors.torch import save_file

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        if tokenizer is not None:
            if not hasattr(tokenizer, "save_pretrained") and not hasattr(tokenizer, "save_vocabulary"):
                raise ValueError("tokenizer must have a save_vocabulary (or save_pretrained) method.")
            tok_size = getattr(tokenizer, "vocab_size", None)
            if isinstance(tok_size, int) and tok_size > self.config.vocab_size:
                raise ValueError(
                    f"The tokenizer has {tok_size} tokens but the model only {self.config.vocab_size} embeddings; "
                    "save the tokenizer the model was trained with."
                )
        state = {
            name: tensor.detach().contiguous().cpu()
            for name, tensor in self.state_dict().items()
            if name not in self._tied_keys
        }
        atomic_write(directory / WEIGHTS_NAME, lambda p: save_file(state, str(p), metadata={"format": "pt"}))
        self.config.replace(architectures=[type(self).__name__]).to_json_file(directory / CONFIG_NAME)
        if tokenizer is not None:  # vocab.txt (+ tokenizer_config.json when the tokenizer writes one)
            if hasattr(tokenizer, "save_pretrained"):
                tokenizer.save_pretrained(str(directory))
            else:
                tokenizer.save_vocabulary(str(directory))
        return directory

    # --- loading ----------------------------------------------------------------------------------
    @classmethod
    def from_pretrained(
        cls,
        directory: str | os.PathLike,
        *,
        config: BertConfig | None = None,
        output_loading_info: bool = False,
        **config_overrides: Any,
    ):
        """Load a Hugging Face-format BERT directory (``config.json`` + ``model.safetensors`` or
        ``pytorch_model.bin``). Returns the model in eval mode (and a :class:`LoadingInfo` if asked).

        Accepts weights with or without the ``bert.`` prefix, old ``LayerNorm.gamma/beta`` names and
        checkpoints without this model's heads: those heads keep their fresh initialisation and a warning
        is logged (visible in a notebook) naming them. ``config_overrides`` change config fields, e.g.
        ``num_labels=3`` or ``attn_implementation="sdpa"``. ``.bin`` files load with ``weights_only=True``.
        Introduced in notebook 07.
        """
        directory = Path(directory)
        if not directory.is_dir():
            raise FileNotFoundError(
                f"{directory} is not a directory; expected a folder with config.json and weights."
            )
        if config is None:
            config = BertConfig.from_json_file(directory / CONFIG_NAME, **config_overrides)
        elif config_overrides:
            config = config.replace(**config_overrides)
        model = cls(config)
        info = model.load_hf_state_dict(load_checkpoint_file(directory), source=directory.name)
        model.eval()
        return (model, info) if output_loading_info else model

    def load_hf_state_dict(
        self, state_dict: dict[str, torch.Tensor], source: str = "the checkpoint"
    ) -> LoadingInfo:
        """Copy weights from a (Hugging Face) state dict into this model, tolerant of naming variants.

        Renames ``gamma/beta`` to ``weight/bias``, adds or strips the ``bert.`` prefix, ignores buffers
        (``position_ids``) and tied copies; shapes must match. Missing weights keep their initialisation and
        are reported in a logged warning. Introduced in notebook 07.
        """
        own = self.state_dict()
        expected = {k for k in own if k not in self._tied_keys}
        wants_prefix = any(k.startswith(self.base_model_prefix + ".") for k in own)
        renamed = _normalise_keys(state_dict, wants_prefix, self.base_model_prefix)

        missing = sorted(expected - set(renamed))
        unexpected = sorted(set(renamed) - expected)
        for key in sorted(expected & set(renamed)):
            if renamed[key].shape != own[key].shape:
                raise ValueError(
                    f"{key} has shape {tuple(renamed[key].shape)} in {source} but {tuple(own[key].shape)} in this "
                    "model: the config does not describe this checkpoint (e.g. vocab_size or num_labels differ)."
                )
        prefix = self.base_model_prefix + "." if wants_prefix else ""
        if not any(k.startswith(prefix + "embeddings.") for k in renamed):
            raise ValueError(
                f"No BERT embedding weights found in {source}: is it a BERT checkpoint? "
                f"First keys: {list(state_dict)[:3]}"
            )
        self.load_state_dict({k: renamed[k] for k in expected & set(renamed)}, strict=False)
        self.tie_weights()

        if missing:
            logger.warning(
                "%s: %d weight tensors were not in %s and start from random initialisation: %s. "
                "Train them (fine-tune) before trusting their outputs.",
                type(self).__name__,
                len(missing),
                source,
                _summarise(missing),
            )
        loud = [k for k in unexpected if not k.startswith(self._quiet_unused_prefixes)]
        if loud:
            logger.warning(
                "%s: %d weight tensors of %s were not used: %s.",
                type(self).__name__,
                len(loud),
                source,
                _summarise(loud),
            )
        info = LoadingInfo(missing_keys=missing, unexpected_keys=unexpected)
        self.loading_info = info
        return info


def load_checkpoint_file(directory: str | os.PathLike) -> dict[str, torch.Tensor]:
    """Read the weights of a checkpoint directory: ``model.safetensors``, else ``pytorch_model.bin``
    through ``torch.load(weights_only=True)`` (no arbitrary unpickling). Introduced in notebook 07."""
    directory = Path(directory)
    if (directory / WEIGHTS_NAME).is_file():
        from safetensors.torch import load_file

        return load_file(str(directory / WEIGHTS_NAME), device="cpu")
    if (directory / PYTORCH_WEIGHTS_NAME).is_file():
        try:
            return torch.load(directory / PYTORCH_WEIGHTS_NAME, map_location="cpu", weights_only=True)
        except Exception as err:  # an unpickling error means the file holds more than tensors
            raise ValueError(
                f"{directory / PYTORCH_WEIGHTS_NAME} could not be loaded safely (weights_only=True): {err}"
            ) from err
    if (directory / (WEIGHTS_NAME + ".index.json")).is_file():
        raise ValueError(
            f"{directory} holds a sharded checkpoint, which bertedu does not load; save it unsharded."
        )
    raise FileNotFoundError(f"No {WEIGHTS_NAME} or {PYTORCH_WEIGHTS_NAME} in {directory}.")


def _normalise_keys(
    state_dict: dict[str, torch.Tensor], wants_prefix: bool, prefix: str
) -> dict[str, torch.Tensor]:
    """HF checkpoint names -> this model's names (see ``load_hf_state_dict``)."""
    heads = ("cls.", "classifier.", "qa_outputs.")
    out: dict[str, torch.Tensor] = {}
    for key, tensor in state_dict.items():
        if "LayerNorm" in key:  # TF-era names
            key = key.replace("LayerNorm.gamma", "LayerNorm.weight").replace(
                "LayerNorm.beta", "LayerNorm.bias"
            )
        if wants_prefix and not key.startswith((prefix + ".", *heads)):
            key = f"{prefix}.{key}"
        elif not wants_prefix and key.startswith(prefix + "."):
            key = key[len(prefix) + 1 :]
        if key.endswith(("embeddings.position_ids", "embeddings.token_type_ids")):
            continue  # buffers, rebuilt by the model
        if key == "cls.predictions.decoder.weight":
            continue  # tied to the word embeddings
        if key == "cls.predictions.decoder.bias":
            if "cls.predictions.bias" not in state_dict:
                out["cls.predictions.bias"] = tensor
            continue  # tied to cls.predictions.bias
        out[key] = tensor
    return out


def _summarise(keys: list[str]) -> str:
    """``['cls.predictions.bias', 'classifier.weight', ...]`` -> ``'cls.predictions.*, classifier.*'``."""
    groups: list[str] = []
    for key in keys:
        module = key.rsplit(".", 1)[0]  # drop .weight / .bias
        group = ".".join(module.split(".")[:2]) + ".*"
        if group not in groups:
            groups.append(group)
    return ", ".join(groups)


# ------------------------------------------------------------------------------------------------------
# The encoder model.
# ------------------------------------------------------------------------------------------------------
class BertModel(BertPreTrainedModel):
    """BERT itself: embeddings, L post-LN encoder layers, and the tanh pooler on [CLS].

    ``forward(input_ids (B, T), attention_mask (B, T) 1 = real / 0 = pad, token_type_ids (B, T))`` returns a
    :class:`BaseModelOutputWithPooling`. ``add_pooling_layer=False`` drops the pooler (as HF's token
    classification and QA models do). Introduced in notebook 05.
    """

    def __init__(self, config: BertConfig, add_pooling_layer: bool = True):
        super().__init__(config)
        self.embeddings = BertEmbeddings(config)
        self.encoder = BertEncoder(config)
        self.pooler = BertPooler(config) if add_pooling_layer else None
        self.post_init()

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        *,
        output_attentions: bool = False,
        output_hidden_states: bool = False,
    ) -> BaseModelOutputWithPooling:
        check_inputs(self.config, input_ids, attention_mask, token_type_ids)
        # (B, T) 0/1 -> (B, 1, 1, T) boolean mask on keys; skipped when nothing is padded.
        key_mask = None
        if attention_mask is not None and not bool(attention_mask.all()):
            key_mask = build_key_mask(attention_mask)

        embedding_output = self.embeddings(input_ids, token_type_ids)  # (B, T, H)
        last_hidden_state, hidden_states, attentions = self.encoder(
            embedding_output, key_mask, output_attentions, output_hidden_states
        )  # (B, T, H)
        pooler_output = self.pooler(last_hidden_state) if self.pooler is not None else None  # (B, H)
        return BaseModelOutputWithPooling(last_hidden_state, pooler_output, hidden_states, attentions)


# ------------------------------------------------------------------------------------------------------
# Pretraining: MLM + NSP.
# ------------------------------------------------------------------------------------------------------
class BertForPreTraining(BertPreTrainedModel):
    """BERT with its two pretraining heads: masked-LM (``cls.predictions``) and NSP (``cls.seq_relationship``).

    ``labels (B, T)``: original ids at masked positions, -100 elsewhere. ``next_sentence_label (B,)``:
    0 = IsNext, 1 = NotNext. ``loss = mlm_loss + nsp_loss`` (each part when its labels are given).

    MLM fast path: with ``mlm_logits_at_labels_only=True`` (forward argument, or the config field of the
    same name as default) and labels given, the vocabulary projection runs only at labelled positions:
    ``prediction_logits`` is ``(N, V)`` for the N labelled positions (order of ``labels[labels != -100]``)
    and the loss is the same as on the full path. Without labels, logits are always ``(B, T, V)``.

    The decoder weight *is* ``bert.embeddings.word_embeddings.weight`` (one Parameter), and stays so after
    ``.to()``, ``load_state_dict`` and save/load. Introduced in notebook 04.
    """

    _tied_keys = ("cls.predictions.decoder.weight", "cls.predictions.decoder.bias")

    def __init__(self, config: BertConfig):
        super().__init__(config)
        self.bert = BertModel(config)
        self.cls = BertPreTrainingHeads(config)
        self.post_init()
        # load_state_dict(..., assign=True) would replace Parameters; re-tie after every load.
        self.register_load_state_dict_post_hook(lambda module, incompatible_keys: module.tie_weights())

    def tie_weights(self) -> None:
        """decoder.weight := word_embeddings.weight and decoder.bias := cls.predictions.bias (same Parameters)."""
        predictions = self.cls.predictions
        predictions.decoder.weight = self.bert.embeddings.word_embeddings.weight
        predictions.decoder.bias = predictions.bias

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        *,
        labels: torch.Tensor | None = None,
        next_sentence_label: torch.Tensor | None = None,
        output_attentions: bool = False,
        output_hidden_states: bool = False,
        mlm_logits_at_labels_only: bool | None = None,
    ) -> BertForPreTrainingOutput:
        outputs = self.bert(
            input_ids,
            attention_mask,
            token_type_ids,
            output_attentions=output_attentions,
            output_hidden_states=output_hidden_states,
        )
        sequence_output = outputs.last_hidden_state  # (B, T, H)
        if labels is not None:
            _check_labels("labels", labels, tuple(input_ids.shape), self.config.vocab_size, IGNORE_INDEX)
        if next_sentence_label is not None:
            _check_labels("next_sentence_label", next_sentence_label, (input_ids.size(0),), 2)

        if mlm_logits_at_labels_only is None:
            mlm_logits_at_labels_only = self.config.mlm_logits_at_labels_only
        if labels is not None and mlm_logits_at_labels_only:
            selected = labels != IGNORE_INDEX  # (B, T) boolean
            sequence_output = sequence_output[selected]  # (N, H): only the positions with a label
            labels = labels[selected]  # (N,)
        prediction_logits = self.cls.predictions(sequence_output)  # (B, T, V) or (N, V)
        seq_relationship_logits = self.cls.seq_relationship(outputs.pooler_output)  # (B, 2)

        mlm = mlm_loss(prediction_logits, labels) if labels is not None else None
        nsp = (
            nsp_loss(seq_relationship_logits, next_sentence_label)
            if next_sentence_label is not None
            else None
        )
        return BertForPreTrainingOutput(
            loss=pretraining_loss(mlm, nsp),
            mlm_loss=mlm,
            nsp_loss=nsp,
            prediction_logits=prediction_logits,
            seq_relationship_logits=seq_relationship_logits,
            hidden_states=outputs.hidden_states,
            attentions=outputs.attentions,
        )


# ------------------------------------------------------------------------------------------------------
# Fine-tuning models.
# ------------------------------------------------------------------------------------------------------
def _classifier_dropout(config: BertConfig) -> nn.Dropout:
    p = config.classifier_dropout if config.classifier_dropout is not None else config.hidden_dropout_prob
    return nn.Dropout(p)


class BertForSequenceClassification(BertPreTrainedModel):
    """Classify a sequence (or sentence pair) from the pooled [CLS]: ``logits = classifier(dropout(pooled))``.

    ``labels (B,)``: class ids in ``[0, num_labels)`` -> cross-entropy; with ``num_labels == 1`` float
    targets -> mean squared error (regression, e.g. STS-B), as in ``transformers``. Introduced in notebook 07.
    """

    def __init__(self, config: BertConfig):
        super().__init__(config)
        self.num_labels = config.num_labels
        self.bert = BertModel(config)
        self.dropout = _classifier_dropout(config)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        self.post_init()

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        *,
        labels: torch.Tensor | None = None,
        output_attentions: bool = False,
        output_hidden_states: bool = False,
    ) -> SequenceClassifierOutput:
        outputs = self.bert(
            input_ids,
            attention_mask,
            token_type_ids,
            output_attentions=output_attentions,
            output_hidden_states=output_hidden_states,
        )
        logits = self.classifier(self.dropout(outputs.pooler_output))  # (B, num_labels)
        loss = None
        if labels is not None:
            B = input_ids.size(0)
            if self.num_labels == 1:
                if (
                    not isinstance(labels, torch.Tensor)
                    or not labels.is_floating_point()
                    or labels.numel() != B
                ):
                    raise ValueError(
                        "With num_labels=1 (regression) labels must be a float tensor of shape (B,)."
                    )
                loss = F.mse_loss(logits.view(-1), labels.view(-1).to(logits.dtype))
            else:
                _check_labels("labels", labels, (B,), self.num_labels)
                loss = F.cross_entropy(logits, labels)
        return SequenceClassifierOutput(loss, logits, outputs.hidden_states, outputs.attentions)


class BertForTokenClassification(BertPreTrainedModel):
    """Label every token (e.g. NER): ``logits = classifier(dropout(T_i))``, ``(B, T, num_labels)``.

    ``labels (B, T)`` with -100 at positions to ignore (padding, continuation pieces); the loss is the mean
    over labelled positions (0, not NaN, if there are none). Introduced in notebook 07.
    """

    def __init__(self, config: BertConfig):
        super().__init__(config)
        self.num_labels = config.num_labels
        self.bert = BertModel(config, add_pooling_layer=False)
        self.dropout = _classifier_dropout(config)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        self.post_init()

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        *,
        labels: torch.Tensor | None = None,
        output_attentions: bool = False,
        output_hidden_states: bool = False,
    ) -> TokenClassifierOutput:
        outputs = self.bert(
            input_ids,
            attention_mask,
            token_type_ids,
            output_attentions=output_attentions,
            output_hidden_states=output_hidden_states,
        )
        logits = self.classifier(self.dropout(outputs.last_hidden_state))  # (B, T, num_labels)
        loss = None
        if labels is not None:
            _check_labels("labels", labels, tuple(input_ids.shape), self.num_labels, IGNORE_INDEX)
            loss = masked_cross_entropy(logits, labels)
        return TokenClassifierOutput(loss, logits, outputs.hidden_states, outputs.attentions)


class BertForQuestionAnswering(BertPreTrainedModel):
    """Span extraction (SQuAD): a start and an end score per token from ``qa_outputs`` (H -> 2).

    The two outputs are the config's ``num_labels``, which this model sets to 2 (as transformers expects).

    ``start_positions``, ``end_positions`` ``(B,)``: token indices in ``[0, T)``. The loss is
    ``(CE(start) + CE(end)) / 2``, as in ``transformers``; the paper writes the sum, which differs only by
    a factor of 2 (equivalent to doubling the learning rate). Introduced in notebook 07.
    """

    def __init__(self, config: BertConfig):
        config = config if config.num_labels == 2 else config.replace(num_labels=2)  # start and end
        super().__init__(config)
        self.bert = BertModel(config, add_pooling_layer=False)
        self.qa_outputs = nn.Linear(config.hidden_size, 2)
        self.post_init()

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        *,
        start_positions: torch.Tensor | None = None,
        end_positions: torch.Tensor | None = None,
        output_attentions: bool = False,
        output_hidden_states: bool = False,
    ) -> QuestionAnsweringModelOutput:
        outputs = self.bert(
            input_ids,
            attention_mask,
            token_type_ids,
            output_attentions=output_attentions,
            output_hidden_states=output_hidden_states,
        )
        logits = self.qa_outputs(outputs.last_hidden_state)  # (B, T, 2)
        start_logits, end_logits = logits[..., 0], logits[..., 1]  # (B, T) each
        loss = None
        if (start_positions is None) != (end_positions is None):
            raise ValueError("Give both start_positions and end_positions (or neither).")
        if start_positions is not None:
            B, T = input_ids.shape
            _check_labels("start_positions", start_positions, (B,), T)
            _check_labels("end_positions", end_positions, (B,), T)
            loss = (
                F.cross_entropy(start_logits, start_positions) + F.cross_entropy(end_logits, end_positions)
            ) / 2
        return QuestionAnsweringModelOutput(
            loss, start_logits, end_logits, outputs.hidden_states, outputs.attentions
        )


# ------------------------------------------------------------------------------------------------------
# Sizes.
# ------------------------------------------------------------------------------------------------------
def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    """Number of parameters of a model; a tied Parameter counts once. Introduced in notebook 05."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)


def parameter_breakdown(config: BertConfig) -> dict[str, int]:
    """Parameter counts per part, from the config alone (nothing is allocated). Introduced in notebook 05.

    embeddings (V + P + T)·H + 2H; one layer 4H² + 2H·I + 9H + I; pooler H² + H;
    MLM head H² + 3H + V (decoder tied, so only its bias counts); NSP head 2H + 2.
    """
    V, P, S = config.vocab_size, config.max_position_embeddings, config.type_vocab_size
    H, I, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers  # noqa: E741 (the paper's I)
    layer = (
        4 * (H * H + H)  # query, key, value, attention output dense
        + 2 * H  # attention LayerNorm
        + (H * I + I)
        + (I * H + H)  # feed-forward H -> I -> H
        + 2 * H
    )  # output LayerNorm
    return {
        "embeddings": (V + P + S) * H + 2 * H,
        "encoder_layer": layer,
        "encoder": L * layer,
        "pooler": H * H + H,
        "mlm_head": (H * H + H) + 2 * H + V,
        "nsp_head": 2 * H + 2,
    }


def parameter_count(config: BertConfig, architecture: str = "BertModel") -> int:
    """Parameters of ``architecture`` (a class name of this module) for ``config``, without allocating it.

    BERT-base ``BertModel`` gives 109,482,240; ``BertForPreTraining`` 110,106,428. Introduced in notebook 05.
    """
    parts = parameter_breakdown(config)
    H = config.hidden_size
    encoder = parts["embeddings"] + parts["encoder"]
    counts = {
        "BertModel": encoder + parts["pooler"],
        "BertForPreTraining": encoder + parts["pooler"] + parts["mlm_head"] + parts["nsp_head"],
        "BertForSequenceClassification": encoder + parts["pooler"] + config.num_labels * (H + 1),
        "BertForTokenClassification": encoder + config.num_labels * (H + 1),
        "BertForQuestionAnswering": encoder + 2 * (H + 1),
    }
    if architecture not in counts:
        raise ValueError(f"Unknown architecture {architecture!r}; choose one of {list(counts)}.")
    return counts[architecture]
