"""BERT models: the encoder (``BertModel``), the pretraining model and the fine-tuning models.

    BertModel                      embeddings -> encoder (L post-LN layers) -> tanh pooler on [CLS]
    BertForPreTraining             BertModel + MLM head (tied to the word embeddings) + NSP head
    BertForSequenceClassification  BertModel + dropout + classifier on the pooled [CLS]
    BertForTokenClassification     BertModel + dropout + classifier on every token
    BertForQuestionAnswering       BertModel + qa_outputs: a start and an end score per token

Parameter names are Hugging Face's, so a saved directory (``config.json`` + ``model.safetensors``) is a
plain ``transformers`` checkpoint, and ``from_pretrained`` reads ``transformers`` checkpoints (the file
handling is in :mod:`bertedu.core.serialization`; the output dataclasses in :mod:`bertedu.core.outputs`).

Introduced in notebook 04 (pretraining model and losses) and notebook 05 (the full model, init, sizes).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from bertedu.core import serialization
from bertedu.core.attention import build_key_mask
from bertedu.core.config import BertConfig
from bertedu.core.heads import BertLMPredictionHead, BertPreTrainingHeads
from bertedu.core.losses import IGNORE_INDEX, masked_cross_entropy, mlm_loss, nsp_loss, pretraining_loss
from bertedu.core.outputs import (
    BaseModelOutputWithPooling,
    BertForPreTrainingOutput,
    LoadingInfo,
    QuestionAnsweringModelOutput,
    SequenceClassifierOutput,
    TokenClassifierOutput,
)
from bertedu.core.validation import check_inputs, check_labels, check_targets
from bertedu.core.variants import model_parts

# ----------------------------------------------------------------------------------------------------------
# Shared by every model: BERT's initialisation, tying, and the Hugging Face save/load entry points.


class BertPreTrainedModel(nn.Module):
    """Base of the models below: BERT's initialisation, ``save_pretrained`` / ``from_pretrained``.

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

    def save_pretrained(
        self, directory: str | os.PathLike, tokenizer: Any = None, *, config: BertConfig | None = None
    ) -> Path:
        """Write an HF-format folder (``config.json``, ``model.safetensors``, the tokenizer's ``vocab.txt``).

        ``transformers.<same class>.from_pretrained(directory)`` loads it with no missing or unexpected keys.
        ``config``: what ``config.json`` holds, if not ``self.config``
        (see :func:`bertedu.core.serialization.save_pretrained`).
        """
        return serialization.save_pretrained(self, directory, tokenizer, config=config)

    @classmethod
    def from_pretrained(cls, directory: str | os.PathLike, **kwargs: Any):
        """Load an HF-format BERT folder into this class (eval mode); see :func:`bertedu.core.serialization.from_pretrained`."""
        return serialization.from_pretrained(cls, directory, **kwargs)

    def load_hf_state_dict(
        self, state_dict: dict[str, torch.Tensor], source: str = "the checkpoint"
    ) -> LoadingInfo:
        """Copy a (Hugging Face) state dict into this model; see :func:`bertedu.core.serialization.load_hf_state_dict`."""
        return serialization.load_hf_state_dict(self, state_dict, source)


# ----------------------------------------------------------------------------------------------------------
# The encoder model


class BertModel(BertPreTrainedModel):
    """BERT itself: embeddings, L post-LN encoder layers, and the tanh pooler on [CLS].

    ``forward(input_ids (B, T), attention_mask (B, T) 1 = real / 0 = pad, token_type_ids (B, T))`` returns a
    :class:`BaseModelOutputWithPooling`. ``add_pooling_layer=False`` drops the pooler (as HF's token
    classification and QA models do). The three parts are BERT's ``BertEmbeddings``, ``BertEncoder`` and
    ``BertPooler``; notebook 10's config switches swap in variants of them (:func:`bertedu.core.variants.model_parts`).
    Introduced in notebook 05.
    """

    def __init__(self, config: BertConfig, add_pooling_layer: bool = True):
        super().__init__(config)
        # BERT's three parts (BertEmbeddings, BertEncoder, BertPooler) unless a notebook-10 switch is set
        Embeddings, Encoder, Pooler = model_parts(config)
        self.embeddings = Embeddings(config)
        self.encoder = Encoder(config)
        self.pooler = Pooler(config) if add_pooling_layer else None
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
        # fast path: with no padding (the common case on the CPU) the mask is skipped altogether.
        if attention_mask is not None and (
            attention_mask.device.type != "cpu" or not bool(attention_mask.all())
        ):
            key_mask = build_key_mask(attention_mask)

        embedding_output = self.embeddings(input_ids, token_type_ids)  # (B, T, H)
        # last_hidden_state: (B, T, H)
        last_hidden_state, hidden_states, attentions = self.encoder(
            embedding_output, key_mask, output_attentions, output_hidden_states
        )
        pooler_output = None
        if self.pooler is not None:
            pooler_output = self.pooler(last_hidden_state, attention_mask)  # (B, H); BertPooler reads [CLS]
        return BaseModelOutputWithPooling(last_hidden_state, pooler_output, hidden_states, attentions)


# ----------------------------------------------------------------------------------------------------------
# Pretraining: MLM + NSP


class BertForPreTraining(BertPreTrainedModel):
    """BERT with its two pretraining heads: masked-LM (``cls.predictions``) and NSP (``cls.seq_relationship``).

    ``labels (B, T)``: original ids at masked positions, -100 elsewhere. ``next_sentence_label (B,)``:
    0 = IsNext, 1 = NotNext. ``loss = mlm_loss + nsp_loss`` (each part when its labels are given).

    MLM fast path (the only switch for it): ``forward(..., mlm_logits_at_labels_only=True)`` with labels
    runs the vocabulary projection only at the N labelled positions. ``prediction_logits`` is then ``(N, V)``
    (rows in the order of ``labels[labels != -100]``) and the loss is the same as on the full path; about
    85 % of the ``(B, T, V)`` work is skipped. Without labels, logits are always ``(B, T, V)``.
    ``bertedu.training.pretrain`` uses it while training; everything else sees the full path.

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
        mlm_logits_at_labels_only: bool = False,
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
            check_labels("labels", labels, tuple(input_ids.shape), self.config.vocab_size, IGNORE_INDEX)
        if next_sentence_label is not None:
            check_labels("next_sentence_label", next_sentence_label, (input_ids.size(0),), 2)

        if labels is not None and mlm_logits_at_labels_only:  # fast path: skip the (B, T, V) projection
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


# ----------------------------------------------------------------------------------------------------------
# Fine-tuning models


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
                check_targets("labels", labels, B)
                loss = F.mse_loss(logits.view(-1), labels.view(-1).to(logits.dtype))
            else:
                check_labels("labels", labels, (B,), self.num_labels)
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
            check_labels("labels", labels, tuple(input_ids.shape), self.num_labels, IGNORE_INDEX)
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
            check_labels("start_positions", start_positions, (B,), T)
            check_labels("end_positions", end_positions, (B,), T)
            loss = (
                F.cross_entropy(start_logits, start_positions) + F.cross_entropy(end_logits, end_positions)
            ) / 2
        return QuestionAnsweringModelOutput(
            loss, start_logits, end_logits, outputs.hidden_states, outputs.attentions
        )


# ----------------------------------------------------------------------------------------------------------
# Sizes


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    """Number of parameters of a model; a tied Parameter counts once."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)


def parameter_breakdown(config: BertConfig) -> dict[str, int]:
    """Parameter counts per part, from the config alone (nothing is allocated).

    embeddings (V + P + T)·H + 2H; one layer 4H² + 2H·I + 9H + I; pooler H² + H;
    MLM head H² + 3H + V (decoder tied, so only its bias counts); NSP head 2H + 2.
    The ablations of notebook 10: no position table removes P·H; pre-LN adds a final LayerNorm (2H) to the
    encoder.
    """
    V, S = config.vocab_size, config.type_vocab_size
    P = config.max_position_embeddings if config.position_embedding_type == "absolute" else 0
    H, I, L = config.hidden_size, config.intermediate_size, config.num_hidden_layers  # noqa: E741 (the paper's I)
    layer = (
        4 * (H * H + H)  # query, key, value, attention output dense
        + 2 * H  # attention LayerNorm
        # feed-forward H -> I -> H
        + (H * I + I)
        + (I * H + H)
        + 2 * H  # output LayerNorm
    )
    return {
        "embeddings": (V + P + S) * H + 2 * H,
        "encoder_layer": layer,
        "encoder": L * layer + (2 * H if config.layer_norm_position == "pre" else 0),
        "pooler": H * H + H,
        "mlm_head": (H * H + H) + 2 * H + V,
        "nsp_head": 2 * H + 2,
    }


def parameter_count(config: BertConfig, architecture: str = "BertModel") -> int:
    """Parameters of ``architecture`` (a class name of this module) for ``config``, without allocating it.

    BERT-base ``BertModel`` gives 109,482,240; ``BertForPreTraining`` 110,106,428.
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
