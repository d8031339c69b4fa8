"""Model folders in Hugging Face's format: ``config.json`` + ``model.safetensors`` (+ ``vocab.txt``).

A folder written by :func:`save_pretrained` loads in ``transformers`` (``BertModel.from_pretrained``) with no
missing or unexpected keys, and :func:`from_pretrained` reads ``transformers`` folders: the parameter
names are the same, so no translation table is needed. What :func:`load_hf_state_dict` tolerates:

- weights with or without the ``bert.`` prefix (a ``BertModel`` checkpoint into a task model and back);
- TensorFlow-era ``LayerNorm.gamma`` / ``LayerNorm.beta`` names;
- buffers (``position_ids``) and tied copies (the MLM decoder), which are rebuilt, not loaded;
- heads missing from the checkpoint: they keep their fresh initialisation and a warning names them.

``pytorch_model.bin`` files are read with ``torch.load(weights_only=True)``: a pickle that holds more than
tensors is refused, never executed. The model classes call these functions from their
``save_pretrained`` / ``from_pretrained`` methods. Introduced in notebook 05 (saving) and 07 (loading).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from bertedu.core.config import BertConfig
from bertedu.core.outputs import LoadingInfo
from bertedu.files import atomic_write, is_disk_full, save_error

logger = logging.getLogger(__name__)

WEIGHTS_NAME = "model.safetensors"
PYTORCH_WEIGHTS_NAME = "pytorch_model.bin"
CONFIG_NAME = "config.json"


# ----------------------------------------------------------------------------------------------------------
# Saving


def save_pretrained(
    model, directory: str | os.PathLike, tokenizer: Any = None, *, config: BertConfig | None = None
) -> Path:
    """Write ``model``'s ``config.json`` and ``model.safetensors`` (and the tokenizer's ``vocab.txt``).

    Each file is written atomically. Tied weights are saved once (as ``transformers`` does). Returns the path.
    ``config``: the settings ``config.json`` holds, if not ``model.config`` (a pretraining checkpoint saves the
    explicit attention, ``attn_implementation="eager"``); its ``architectures`` is the model's class either way.
    A ``directory`` that is a file is a ``ValueError``; what the operating system refuses (a file where a
    folder of the path should be, a full disk, no permission) is a :class:`bertedu.files.SaveError` that
    names the cause.
    """
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise ValueError(
            f"Cannot save the model into {directory}: it is a file, not a folder. Choose a folder."
        )
    try:
        _save_pretrained(model, directory, tokenizer, model.config if config is None else config)
    except (OSError, SafetensorError, RuntimeError) as err:
        if isinstance(err, RuntimeError) and not is_disk_full(err):
            raise
        raise save_error(err, directory, "the model") from err
    return directory


def _save_pretrained(model, directory: Path, tokenizer: Any, config: BertConfig) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    if tokenizer is not None:
        if not hasattr(tokenizer, "save_pretrained") and not hasattr(tokenizer, "save_vocabulary"):
            raise ValueError("tokenizer must have a save_vocabulary (or save_pretrained) method.")
        tok_size = getattr(tokenizer, "vocab_size", None)
        if isinstance(tok_size, int) and tok_size > model.config.vocab_size:
            raise ValueError(
                f"The tokenizer has {tok_size} tokens but the model only {model.config.vocab_size} embeddings; "
                "save the tokenizer the model was trained with."
            )
    state = {
        name: tensor.detach().contiguous().cpu()
        for name, tensor in model.state_dict().items()
        if name not in model._tied_keys
    }
    atomic_write(directory / WEIGHTS_NAME, lambda p: save_file(state, str(p), metadata={"format": "pt"}))
    config.replace(architectures=[type(model).__name__]).to_json_file(directory / CONFIG_NAME)
    if tokenizer is not None:  # vocab.txt (+ tokenizer_config.json when the tokenizer writes one)
        if hasattr(tokenizer, "save_pretrained"):
            tokenizer.save_pretrained(str(directory))
        else:
            tokenizer.save_vocabulary(str(directory))


# ----------------------------------------------------------------------------------------------------------
# Loading


def load_weights(directory: str | os.PathLike) -> dict[str, torch.Tensor]:
    """The tensors of a model folder: ``model.safetensors``, else ``pytorch_model.bin`` (``weights_only``)."""
    directory = Path(directory)
    safetensors_file = directory / WEIGHTS_NAME
    if safetensors_file.is_file():
        try:
            return load_file(str(safetensors_file), device="cpu")
        except (SafetensorError, OSError) as err:
            raise ValueError(
                f"{safetensors_file} is damaged and cannot be read ({err}). Delete the folder and save or "
                "train the model again."
            ) from err
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


def from_pretrained(
    cls,
    directory: str | os.PathLike,
    *,
    config: BertConfig | None = None,
    output_loading_info: bool = False,
    **config_overrides: Any,
):
    """A ``cls`` model (eval mode) with the weights of a Hugging Face-format folder (see the module docstring).

    ``config_overrides`` change config fields, e.g. ``num_labels=3`` or ``attn_implementation="sdpa"``.
    Returns the model, or ``(model, LoadingInfo)`` with ``output_loading_info=True``.
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
    info = load_hf_state_dict(model, load_weights(directory), source=directory.name)
    model.eval()
    return (model, info) if output_loading_info else model


def load_hf_state_dict(
    model, state_dict: dict[str, torch.Tensor], source: str = "the checkpoint"
) -> LoadingInfo:
    """Copy the tensors of a (Hugging Face) state dict into ``model``, tolerant of the naming variants above.

    Shapes must match. Weights missing from ``state_dict`` keep their initialisation and are named in a
    logged warning; unused checkpoint weights too, except other models' heads (expected, not worth a warning).
    """
    own = model.state_dict()
    expected = {k for k in own if k not in model._tied_keys}
    prefix = model.base_model_prefix
    wants_prefix = any(k.startswith(prefix + ".") for k in own)
    renamed = _normalise_keys(state_dict, wants_prefix, prefix)
    missing = sorted(expected - set(renamed))
    unexpected = sorted(set(renamed) - expected)
    for key in sorted(expected & set(renamed)):
        if renamed[key].shape != own[key].shape:
            raise ValueError(
                f"{key} has shape {tuple(renamed[key].shape)} in {source} but {tuple(own[key].shape)} in this "
                "model: the config does not describe this checkpoint (e.g. vocab_size or num_labels differ)."
            )
    first = prefix + "." if wants_prefix else ""
    if not any(k.startswith(first + "embeddings.") for k in renamed):
        raise ValueError(
            f"No BERT embedding weights found in {source}: is it a BERT checkpoint? "
            f"First keys: {list(state_dict)[:3]}"
        )
    model.load_state_dict({k: renamed[k] for k in expected & set(renamed)}, strict=False)
    model.tie_weights()

    if missing:
        logger.warning(
            "%s: %d weight tensors were not in %s and start from random initialisation: %s. "
            "Train them (fine-tune) before trusting their outputs.",
            type(model).__name__,
            len(missing),
            source,
            _summarise(missing),
        )
    loud = [k for k in unexpected if not k.startswith(model._quiet_unused_prefixes)]
    if loud:
        logger.warning(
            "%s: %d weight tensors of %s were not used: %s.",
            type(model).__name__,
            len(loud),
            source,
            _summarise(loud),
        )
    info = LoadingInfo(missing_keys=missing, unexpected_keys=unexpected)
    model.loading_info = info
    return info


def _normalise_keys(
    state_dict: dict[str, torch.Tensor], wants_prefix: bool, prefix: str
) -> dict[str, torch.Tensor]:
    """HF checkpoint names -> this model's names (see the module docstring)."""
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
