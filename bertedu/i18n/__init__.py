"""The course's language outside the quizzes: exercise messages, the doctor and plot labels.

One setting drives everything a student reads: :func:`set_language` (``"en"`` or ``"zh"``), else the
environment variable ``BERTEDU_LANG``, else English. It is the quiz's own setting
(:mod:`bertedu.quiz.i18n`): ``quiz.set_language("zh")`` and ``i18n.set_language("zh")`` do the same thing,
so live quiz widgets switch too. The Chinese edition of the notebooks (``notebooks/zh/``) starts with a
generated cell that calls ``i18n.set_language("zh")``.

Messages are written in English, in the code, as ``str.format`` templates::

    from bertedu.i18n import msg, translatable, translate

    return False, msg("{value:g} is the rate, not a count.", value=value)   # translated when it runs
    KEY_LABEL = translatable("key (attended to)")   # a constant, marked for the catalog ...
    ax.set_xlabel(translate(KEY_LABEL))             # ... and translated when it is shown

The Chinese catalog (:mod:`bertedu.i18n.zh`) maps each English template to its translation; a template
without a translation is shown in English. ``tests/test_i18n_ui.py`` collects every literal template of
``msg(...)`` and ``translatable(...)`` in the package and fails when one has no Chinese translation, when
a translation uses a placeholder the English does not have, or when the catalog holds a template that the
code no longer uses. Placeholders whose name starts with ``_`` (plural endings such as ``{_s}``) may be left
out of a translation.

This module imports only the standard library (the doctor uses it when PyTorch is broken). Introduced in
notebook 00.
"""

from __future__ import annotations

import importlib
import os
import sys
import warnings

LANGUAGES: tuple[str, ...] = ("en", "zh")
DEFAULT_LANGUAGE = "en"
ENV_VAR = "BERTEDU_LANG"
#: The module holding the quiz's language setting, which this module shares.
QUIZ_I18N = "bertedu.quiz.i18n"
#: The catalogs of each language: modules with a ``MESSAGES`` dict {English template: translation}.
CATALOG_MODULES: dict[str, tuple[str, ...]] = {
    "zh": (
        "bertedu.i18n.zh",
        "bertedu.i18n.zh_attention",  # exercises of notebooks 01 and 08
        "bertedu.i18n.zh_tokens",  # 02
        "bertedu.i18n.zh_masking",  # 03
        "bertedu.i18n.zh_losses",  # 04
        "bertedu.i18n.zh_encoder",  # 05
        "bertedu.i18n.zh_pretraining",  # 06
        "bertedu.i18n.zh_finetune",  # 07
        "bertedu.i18n.zh_capstone",  # 11 and the "write the module" checks (nn_checks)
    )
}

_catalogs: dict[str, dict[str, str]] = {}


def normalize_language(lang: str) -> str:
    """Map ``"en"``, ``"en_US"``, ``"zh"``, ``"zh-CN"``, ``"zh_Hans"``, ``"中文"`` ... to ``en`` / ``zh``.

    The same rule as :func:`bertedu.quiz.i18n.normalize_language` (a test compares them). Raises a
    ``ValueError`` for anything else.
    """
    if not isinstance(lang, str):
        raise ValueError(f"A language is a string such as 'en' or 'zh', got {lang!r}.")
    key = lang.strip().lower().replace("_", "-")
    if key in ("中文", "cn", "chinese") or key.split("-")[0] == "zh":
        return "zh"
    if key == "english" or key.split("-")[0] == "en":
        return "en"
    raise ValueError(
        f"Unknown language {lang!r}: the course speaks {', '.join(LANGUAGES)} (English, Chinese)."
    )


def _environment_language() -> str:
    env = os.environ.get(ENV_VAR, "").strip()
    if not env:
        return DEFAULT_LANGUAGE
    try:
        return normalize_language(env)
    except ValueError:
        warnings.warn(f"{ENV_VAR}={env!r} is not a language the course knows; using English.", stacklevel=3)
        return DEFAULT_LANGUAGE


def get_language() -> str:
    """The current language, ``"en"`` or ``"zh"``: the quiz's setting, else ``$BERTEDU_LANG``, else English."""
    quiz_i18n = sys.modules.get(QUIZ_I18N)
    if quiz_i18n is not None:  # the quiz is loaded: its setting (set_language or the environment) rules
        return quiz_i18n.get_language()
    return _environment_language()  # nothing can have been set without loading the quiz


def set_language(lang: str | None) -> None:
    """Switch the course to ``lang`` (``"en"`` or ``"zh"``): quizzes (live widgets too), exercise messages,
    the doctor and plot labels. ``None`` goes back to ``$BERTEDU_LANG`` / English.

    Loads the quiz package, whose setting this is. Introduced in notebook 00.
    """
    importlib.import_module(QUIZ_I18N).set_language(lang)


def resolve(lang: str | None) -> str:
    """``lang`` normalised, or the current language when ``lang`` is ``None``."""
    return get_language() if lang is None else normalize_language(lang)


def catalog(lang: str) -> dict[str, str]:
    """The messages of ``lang`` ({English template: translation}; empty for English), loaded once."""
    lang = normalize_language(lang)
    if lang not in _catalogs:
        merged: dict[str, str] = {}
        for name in CATALOG_MODULES.get(lang, ()):
            merged.update(importlib.import_module(name).MESSAGES)
        _catalogs[lang] = merged
    return _catalogs[lang]


def translatable(text: str) -> str:
    """Mark a constant English string for the catalog; returns it unchanged. Show it with :func:`translate`."""
    return text


def translate(text: str, lang: str | None = None) -> str:
    """The translation of ``text`` (a :func:`translatable` constant) in ``lang`` (default: current), or
    ``text`` itself when the catalog has none."""
    return catalog(resolve(lang)).get(text, text)


def msg(template: str, /, **fields: object) -> str:
    """``template`` in the current language, filled in with ``fields`` (``str.format`` names).

    Without ``fields`` the text is returned as is (braces need no doubling). Write the template as a
    literal string: the catalog test collects them from the source.
    """
    text = translate(template)
    if not fields:
        return text
    try:
        return text.format(**fields)
    except (KeyError, IndexError, ValueError):  # a broken translation (the catalog test reports it): English
        return template.format(**fields)
