"""bertedu: BERT from first principles, as a course of notebooks backed by this package.

The package is imported by every notebook in ``notebooks/``. Importing :mod:`bertedu` is cheap: the
submodules (which need PyTorch) load when they are first used, so that ``python -m bertedu.doctor`` can
still diagnose a broken installation.

The map of the modules (one concept each) and the notebook that introduces each is in CONTRIBUTING.md.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_LAZY = {
    "set_seed": ("bertedu.utils", "set_seed"),
    "repo_root": ("bertedu.utils", "repo_root"),
    "BertConfig": ("bertedu.core.config", "BertConfig"),
    "BertModel": ("bertedu.core.model", "BertModel"),
    "BertForPreTraining": ("bertedu.core.model", "BertForPreTraining"),
    "BertTokenizer": ("bertedu.core.tokenizer", "BertTokenizer"),
}


def __getattr__(name: str):
    if name in _LAZY:
        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'bertedu' has no attribute {name!r}")


__all__ = ["__version__", *sorted(_LAZY)]
