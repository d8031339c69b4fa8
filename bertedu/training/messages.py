"""The training layer's messages to students, in the student's language, from a layer that knows no language.

The course's language and its catalogs live in the teaching layer (:mod:`bertedu.teaching.i18n`), which the
training layer may not import (``tests/test_package_map.py``). So the training layer writes each message a student
reads (the loss-curve diagnosis of :mod:`bertedu.training.diagnose`) as a literal English ``str.format`` template
through :func:`msg`, and :func:`msg` asks a translation hook that this module owns: the identity (English) until
:mod:`bertedu.teaching.i18n` is imported, which installs its ``translate`` (the current language) with
:func:`install_translation`. The dependency points the allowed way: teaching imports training::

    from bertedu.training.messages import msg
    evidence = msg("the loss became {value} at step {step}.", value=value, step=step)

``tests/test_i18n_ui.py`` collects the literal templates of every ``msg(...)`` call in the package, these
included, so a template without a Chinese entry in ``bertedu/teaching/i18n/zh_*.py`` fails a test. Standard
library only (the teaching layer's language module imports it, and must not load PyTorch). Introduced in
notebook 06.
"""

from __future__ import annotations

from collections.abc import Callable


def _english(template: str) -> str:
    return template


_translate: Callable[[str], str] = _english  # the hook: template -> template in the student's language


def install_translation(translate: Callable[[str], str] | None) -> None:
    """Show the training layer's messages through ``translate(template) -> template`` (``str.format`` fields
    kept); ``None`` goes back to English. :mod:`bertedu.teaching.i18n` installs its ``translate`` on import."""
    global _translate
    if translate is not None and not callable(translate):
        raise ValueError(f"translate must be a function template -> template (or None), got {translate!r}.")
    _translate = _english if translate is None else translate


def msg(template: str, /, **fields: object) -> str:
    """``template`` through the installed translation, filled in with ``fields`` (``str.format`` names).

    Without ``fields`` the text is returned as is. A translation that does not format (a wrong placeholder)
    falls back to the English template. Write the template as a literal string: the catalog test reads it.
    """
    text = _translate(template)
    if not fields:
        return text
    try:
        return text.format(**fields)
    except (KeyError, IndexError, ValueError):
        return template.format(**fields)
