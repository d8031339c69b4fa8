"""The course's language outside the quizzes: exercise messages, the doctor and plot labels.

One setting drives everything a student reads: :func:`set_language` (``"en"`` or ``"zh"``), else the
environment variable ``BERTEDU_LANG``, else English. This module owns it; the quiz (:mod:`bertedu.teaching.quiz.i18n`)
reads it from here, so ``quiz.set_language("zh")`` and ``i18n.set_language("zh")`` do the same thing and live
quiz widgets switch too (they :func:`register` themselves). The Chinese edition of the notebooks
(``notebooks/zh/``) starts with a generated cell that calls ``i18n.set_language("zh")``.

Messages are written in English, in the code, as ``str.format`` templates::

    from bertedu.teaching.i18n import msg, translatable, translate

    return False, msg("{value:g} is the rate, not a count.", value=value)   # translated when it runs
    KEY_LABEL = translatable("key (attended to)")   # a constant, marked for the catalog ...
    ax.set_xlabel(translate(KEY_LABEL))             # ... and translated when it is shown

The Chinese catalog (:mod:`bertedu.teaching.i18n.zh`) maps each English template to its translation; a template
without a translation is shown in English. ``tests/test_i18n_ui.py`` collects every literal template of
``msg(...)`` and ``translatable(...)`` in the package and fails when one has no Chinese translation, when
a translation uses a placeholder the English does not have, or when the catalog holds a template that the
code no longer uses. Placeholders whose name starts with ``_`` (plural endings such as ``{_s}``) may be left
out of a translation.

Exercise solutions are code, not templates: a catalog module's ``SOLUTIONS`` maps an exercise's name to its
solution with translated comments (:func:`translate_solution`; the test checks that only comments differ).
The notebooks' prose has its own catalogs, ``translations/zh/*.yaml`` (``tools/translate.py``).

The training layer's messages (the loss-curve diagnosis) go through :func:`bertedu.training.messages.msg`: the
training layer may not import this module, so it owns a translation hook, and importing this module installs
:func:`translate` into it. Their Chinese is in :mod:`bertedu.teaching.i18n.zh_diagnose`; the catalog test collects
those templates too.

This module imports only the standard library and that hook's module, which does too (the doctor uses it when
PyTorch is broken). Introduced in
notebook 00.
"""

from __future__ import annotations

import importlib
import os
import warnings
import weakref

from bertedu.training import messages as training_messages

LANGUAGES: tuple[str, ...] = ("en", "zh")
DEFAULT_LANGUAGE = "en"
ENV_VAR = "BERTEDU_LANG"
#: The catalogs of each language: modules with a ``MESSAGES`` dict {English template: translation} and
#: optionally a ``SOLUTIONS`` dict {exercise name: its solution code with translated comments}.
CATALOG_MODULES: dict[str, tuple[str, ...]] = {
    "zh": (
        "bertedu.teaching.i18n.zh",
        "bertedu.teaching.i18n.zh_attention",  # exercises of notebooks 01 and 08
        "bertedu.teaching.i18n.zh_tokens",  # 02
        "bertedu.teaching.i18n.zh_masking",  # 03
        "bertedu.teaching.i18n.zh_losses",  # 04
        "bertedu.teaching.i18n.zh_encoder",  # 05
        "bertedu.teaching.i18n.zh_pretraining",  # 06
        "bertedu.teaching.i18n.zh_diagnose",  # 06 and 11: bertedu.training.diagnose's reports
        "bertedu.teaching.i18n.zh_finetune",  # 07
        "bertedu.teaching.i18n.zh_ablations",  # 10
        "bertedu.teaching.i18n.zh_capstone",  # 11 and the "write the module" checks (nn_checks)
    )
}

_catalogs: dict[tuple[str, str], dict[str, str]] = {}  # (language, MESSAGES or SOLUTIONS)
_current: str | None = None  # set by set_language(); None means "ask the environment"
_listeners: weakref.WeakSet = weakref.WeakSet()  # live quiz widgets, re-rendered by set_language()


def normalize_language(lang: str) -> str:
    """Map ``"en"``, ``"en_US"``, ``"zh"``, ``"zh-CN"``, ``"zh_Hans"``, ``"中文"`` ... to ``en`` / ``zh``.

    Raises a ``ValueError`` for anything else.
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
    """The current language, ``"en"`` or ``"zh"``: set by :func:`set_language`, else ``$BERTEDU_LANG``, else
    English."""
    if _current is not None:
        return _current
    return _environment_language()


def set_language(lang: str | None) -> None:
    """Switch the course to ``lang`` (``"en"`` or ``"zh"``): quizzes (live widgets too), exercise messages,
    the doctor and plot labels. ``None`` goes back to ``$BERTEDU_LANG`` / English.

    Returns nothing, so a notebook cell ending with it shows no output.
    """
    global _current
    _current = None if lang is None else normalize_language(lang)
    for listener in list(_listeners):
        listener._follow_global_language()


def register(listener: object) -> None:
    """Remember a live widget (held weakly): :func:`set_language` calls its ``_follow_global_language()``."""
    _listeners.add(listener)


def resolve(lang: str | None) -> str:
    """``lang`` normalised, or the current language when ``lang`` is ``None``."""
    return get_language() if lang is None else normalize_language(lang)


def _merged(lang: str, attribute: str) -> dict[str, str]:
    """The ``attribute`` dicts (``MESSAGES`` or ``SOLUTIONS``) of ``lang``'s catalog modules, merged, loaded once."""
    lang = normalize_language(lang)
    if (lang, attribute) not in _catalogs:
        merged: dict[str, str] = {}
        for name in CATALOG_MODULES.get(lang, ()):
            merged.update(getattr(importlib.import_module(name), attribute, {}))
        _catalogs[lang, attribute] = merged
    return _catalogs[lang, attribute]


def catalog(lang: str) -> dict[str, str]:
    """The messages of ``lang`` ({English template: translation}; empty for English), loaded once."""
    return _merged(lang, "MESSAGES")


def solutions(lang: str) -> dict[str, str]:
    """The reference solutions of ``lang`` ({exercise name: solution code with translated comments})."""
    return _merged(lang, "SOLUTIONS")


def translate_solution(exercise: str, code: str, lang: str | None = None) -> str:
    """The solution ``code`` of the exercise named ``exercise``, its comments in ``lang`` (default: current),
    or ``code`` itself when the catalog has no translation of it."""
    return solutions(resolve(lang)).get(exercise, code)


def translatable(text: str) -> str:
    """Mark a constant English string for the catalog; returns it unchanged. Show it with :func:`translate`."""
    return text


def translate(text: str, lang: str | None = None) -> str:
    """The translation of ``text`` (a :func:`translatable` constant) in ``lang`` (default: current), or
    ``text`` itself when the catalog has none."""
    return catalog(resolve(lang)).get(text, text)


# The training layer may not import this module: it speaks through a hook of its own, which we fill in here.
training_messages.install_translation(translate)


def listing(items: object, lang: str | None = None) -> str:
    """``items`` as a list in running text: ``a, b, c`` in English, ``a、b、c`` in Chinese (the enumeration
    comma; a Latin comma between Chinese-listed names reads as a typo)."""
    return ("、" if resolve(lang) == "zh" else ", ").join(str(item) for item in items)


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
