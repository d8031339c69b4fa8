"""The quiz's widgets (ipywidgets 8, no custom JavaScript): questions, sections, flashcards, progress.

Every widget exposes its parts as attributes, so a test (or a curious student) can drive it::

    w = SingleChoiceWidget(question)
    w.options_box.value = 2          # choose option 2 (RadioButtons; values are option indices)
    w.submit.click()                 # grade it
    w.feedback.value                 # "✅ Correct ..." or "❌ Not quite ..." with the option's explanation

Named children, by widget:

- every widget: ``language`` (EN / 中文 toggle: re-renders this widget), ``title`` (heading);
- questions: ``prompt``, ``submit``, ``feedback``, ``hint_button``, ``hint``, ``solution_button``
  (enabled after the first graded attempt), ``solution``; plus ``result`` (last :class:`Result`) and
  ``attempts``;
  - :class:`SingleChoiceWidget`: ``options_box`` (``RadioButtons``, value = option index or ``None``);
  - :class:`MultipleChoiceWidget`: ``options_box`` (a ``VBox``) holding ``checkboxes`` (one
    ``Checkbox`` per option, labelled with its text);
  - :class:`FillInWidget`: ``blanks`` (one ``Text`` per blank, labelled), inside ``options_box``;
- :class:`QuizSection`: ``questions`` (the question widgets);
- :class:`FlashcardDeck`: ``card`` (the visible side), ``position``, ``status``, ``flip``, ``previous``,
  ``next``, ``known``, ``unknown``; plus ``index`` and ``showing_back``;
- :class:`ProgressSummary`: ``table``, ``refresh_button``;
- :class:`ResetConfirmation`: ``message``, ``confirm``, ``cancel``.

Keyboard: every control is a native button, radio button, checkbox or text box, so Tab / Shift-Tab move
between them, Space or Enter presses a button, arrow keys move between radio buttons and Space ticks a
checkbox. Correctness is always written out (✅ Correct / ❌ Not quite), never shown by colour alone.

Display never depends on saved progress: widgets start unanswered, so a notebook gives the same output
every time it runs; only :class:`ProgressSummary` shows stored numbers. Without a widget front end
(GitHub, nbviewer, HTML export) a widget shows its ``text/html`` / ``text/plain`` fallback: the prompt and
the options, never the answers or explanations.

Introduced in notebook 00.
"""

from __future__ import annotations

import html
import warnings
from collections.abc import Sequence

import ipywidgets as widgets

from bertedu.quiz import i18n
from bertedu.quiz.banks import Flashcard, Question
from bertedu.quiz.core import Result, blank_label, grade, solution_lines
from bertedu.quiz.i18n import LANGUAGE_LABELS, LANGUAGES, pick, t
from bertedu.quiz.render import markdown_to_html, plain_text
from bertedu.quiz.store import get_store

_LANGUAGE_NAMES = {"en": "English", "zh": "简体中文"}
_BOX = "border:1px solid var(--jp-border-color1, #bbb);border-radius:6px;padding:0.6em 0.9em;margin:0.3em 0"


def _esc(text: str) -> str:
    return html.escape(text, quote=False)


def _heading(text: str, lang: str) -> str:
    """``"Explanation:"`` / ``"解析："``: a label with the colon of its language."""
    return t("field_label", lang, label=text)


def _hide(widget: widgets.DOMWidget, hidden: bool) -> None:
    widget.layout.display = "none" if hidden else None


class _QuizWidget(widgets.VBox):
    """Base class: a language (own choice or the global one), an EN / 中文 toggle and a static fallback."""

    def __init__(self, *, language: str | None = None, show_language_toggle: bool = True, **kwargs):
        super().__init__(**kwargs)
        self._lang = None if language is None else i18n.normalize_language(language)
        self._syncing = False
        self.language = widgets.ToggleButtons(
            options=[(LANGUAGE_LABELS[lang], lang) for lang in LANGUAGES],
            value=self.lang,
            style={"button_width": "auto"},
            layout=widgets.Layout(width="auto", margin="0 0 0 auto"),
        )
        _hide(self.language, not show_language_toggle)
        self.language.observe(self._on_language_toggle, names="value")
        self.title = widgets.HTML()
        self.header = widgets.HBox([self.title, self.language], layout=widgets.Layout(align_items="center"))
        i18n.register(self)

    @property
    def lang(self) -> str:
        """The language this widget shows: its own choice (toggle) or the global one."""
        return self._lang or i18n.get_language()

    def set_language(self, lang: str | None) -> None:
        """Show this widget in ``lang`` (``None``: follow :func:`bertedu.quiz.set_language`)."""
        self._lang = None if lang is None else i18n.normalize_language(lang)
        self.refresh()

    def _follow_global_language(self) -> None:
        self._lang = None
        self.refresh()

    def _on_language_toggle(self, change) -> None:
        if not self._syncing and change["new"] != self.lang:
            self.set_language(change["new"])

    def refresh(self) -> None:
        """Re-render every text in the current language (keeps answers, feedback and position)."""
        self._syncing = True
        try:
            self.language.value = self.lang
            self.language.tooltips = [
                f"{t('language_tooltip', self.lang)}: {_LANGUAGE_NAMES[lang]}" for lang in LANGUAGES
            ]
        finally:
            self._syncing = False
        self._render()

    def _render(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    # -- no widget front end ------------------------------------------------------------------------------
    def static_html(self) -> str:
        """HTML shown where widgets cannot run: prompts and options only, deterministic."""
        raise NotImplementedError

    def static_text(self) -> str:
        """Plain-text version of :meth:`static_html`."""
        raise NotImplementedError

    def _repr_mimebundle_(self, **kwargs):
        data = super()._repr_mimebundle_(**kwargs) or {}
        data["text/plain"] = self.static_text()
        data["text/html"] = self.static_html()
        return data


# ------------------------------------------------------------------------------------------ questions


class QuestionWidget(_QuizWidget):
    """One question with Check / Hint / Solution buttons. Use :func:`question_widget` to build one."""

    kind_key = ""

    def __init__(
        self,
        question: Question,
        *,
        language: str | None = None,
        show_language_toggle: bool = True,
        record: bool = True,
        heading: str | None = None,
    ):
        super().__init__(language=language, show_language_toggle=show_language_toggle)
        self.question = question
        self.record = record
        self.heading = heading  # e.g. "Question 2 of 5" inside a section
        self.result: Result | None = None
        self.attempts = 0
        self._last_answer: object = None
        self._show_hint = False
        self._show_solution = False

        self.prompt = widgets.HTMLMath()
        self.options_box = self._make_controls()
        self.submit = widgets.Button(button_style="primary", icon="check")
        self.hint_button = widgets.Button()
        self.solution_button = widgets.Button(disabled=True)
        self.hint = widgets.HTMLMath()
        self.feedback = widgets.HTMLMath()
        self.solution = widgets.HTMLMath()
        for button in (self.submit, self.hint_button, self.solution_button):
            button.layout.width = "auto"
        self.submit.on_click(lambda _b: self.check())
        self.hint_button.on_click(lambda _b: self.toggle_hint())
        self.solution_button.on_click(lambda _b: self.toggle_solution())
        _hide(self.hint_button, question.hint is None)
        self.buttons = widgets.HBox([self.submit, self.hint_button, self.solution_button])
        self.children = [
            self.header,
            self.prompt,
            self.options_box,
            self.buttons,
            self.hint,
            self.feedback,
            self.solution,
        ]
        self.add_class("bertedu-quiz")
        self.add_class(f"bertedu-quiz-{question.id}")  # a handle for browser tests and custom CSS
        self.refresh()

    # -- subclasses ----------------------------------------------------------------------------------
    def _make_controls(self) -> widgets.Widget:
        raise NotImplementedError

    def _relabel_controls(self) -> None:
        raise NotImplementedError

    @property
    def answer(self) -> object:
        """The answer currently entered in the controls, in the form :func:`grade` expects."""
        raise NotImplementedError

    # -- actions -------------------------------------------------------------------------------------
    def check(self) -> Result:
        """Grade the current answer (the Check button). Empty answers only get a request for an answer."""
        answer = self.answer
        result = grade(self.question, answer, self.lang)
        if not result.answered:
            self.feedback.value = f'<div role="status"><p><strong>{_esc(result.message)}</strong></p></div>'
            return result
        self.attempts += 1
        self.result = result
        self._last_answer = answer
        self.solution_button.disabled = False
        if self.record:
            try:
                get_store().record_attempt(self.question.notebook, self.question.id, result.score)
            except OSError as err:  # a read-only home must not break the quiz
                warnings.warn(f"Could not save quiz progress: {err}", stacklevel=2)
        self._render()
        return result

    def toggle_hint(self) -> None:
        """Show or hide the hint."""
        self._show_hint = not self._show_hint
        self._render()

    def toggle_solution(self) -> None:
        """Show or hide the full solution (only after a graded attempt)."""
        if self.result is None:
            return
        self._show_solution = not self._show_solution
        self._render()

    # -- rendering -----------------------------------------------------------------------------------
    def _heading_text(self, lang: str) -> str:
        kind = t(self.kind_key, lang)
        return f"{self.heading} · {kind}" if self.heading else kind

    def _render(self) -> None:
        lang = self.lang
        q = self.question
        self.title.value = f"<strong>{_esc(self._heading_text(lang))}</strong>"
        self.prompt.value = markdown_to_html(pick(q.prompt, lang))
        self._relabel_controls()
        self.submit.description = t("check", lang)
        self.hint_button.description = t("hint_hide" if self._show_hint else "hint_show", lang)
        self.solution_button.description = t(
            "solution_hide" if self._show_solution else "solution_show", lang
        )
        self.solution_button.tooltip = "" if self.result else t("solution_locked", lang)
        self.hint.value = (
            f'<div style="{_BOX}"><strong>{_esc(_heading(t("hint", lang), lang))}</strong> {markdown_to_html(pick(q.hint, lang))}</div>'
            if self._show_hint and q.hint
            else ""
        )
        if self.result is not None:
            self.result = grade(q, self._last_answer, lang)  # same verdict, texts in the new language
            self.feedback.value = self._feedback_html(self.result, lang)
        else:
            self.feedback.value = ""  # no graded answer yet (drops a stale "please answer" message)
        self.solution.value = self._solution_html(lang) if self._show_solution and self.result else ""

    def _feedback_html(self, r: Result, lang: str) -> str:
        head = f"<p><strong>{_esc(r.message)}</strong> · {_esc(t('attempt', lang, n=self.attempts))}</p>"
        items = []
        if r.is_correct and r.options:
            # Answered right: every option's explanation is now useful and gives nothing away.
            return f'<div role="status">{head}{self._solution_body(lang)}</div>'
        for o in r.options:
            if o.selected:
                line = t("chose_right" if o.correct else "chose_wrong", lang, option=plain_text(o.text))
                items.append(f"<li>{_esc(line)} {markdown_to_html(o.explanation)}</li>")
        if r.missed:
            items.append(f"<li>{_esc(t('missed', lang, n=len(r.missed)))}</li>")
        for b in r.blanks:
            key = "blank_right" if b.correct else ("blank_wrong" if b.readable else "blank_not_number")
            items.append(f"<li>{_esc(t(key, lang, label=b.label, given=b.given))}</li>")
        body = f"<ul>{''.join(items)}</ul>"
        if r.is_correct and r.explanation:
            body += f"<p><strong>{_esc(_heading(t('explanation', lang), lang))}</strong></p>{markdown_to_html(r.explanation)}"
        return f'<div role="status">{head}{body}</div>'

    def _solution_body(self, lang: str) -> str:
        rows = "".join(
            f"<li><strong>{_esc(mark)}</strong> {_inline(text)}"
            f"{(' ' + markdown_to_html(exp)) if exp else ''}</li>"
            for mark, text, exp in solution_lines(self.question, lang)
        )
        out = f"<ul>{rows}</ul>"
        explanation = pick(self.question.explanation, lang)
        if explanation:
            out += f"<p><strong>{_esc(_heading(t('explanation', lang), lang))}</strong></p>{markdown_to_html(explanation)}"
        return out

    def _solution_html(self, lang: str) -> str:
        return f'<div style="{_BOX}"><p><strong>{_esc(t("solution", lang))}</strong></p>{self._solution_body(lang)}</div>'

    # -- static fallback -----------------------------------------------------------------------------
    def _static_controls(self, lang: str) -> list[str]:
        raise NotImplementedError

    def static_html(self, *, footer: bool = True) -> str:
        lang = self.lang
        items = "".join(f"<li>{c}</li>" for c in self._static_controls(lang))
        note = f"<p><em>{_esc(t('static_quiz', lang))}</em></p>" if footer else ""
        return (
            f'<div class="bertedu-quiz-static" style="{_BOX}">'
            f"<p><strong>{_esc(self._heading_text(lang))}</strong></p>"
            f"{markdown_to_html(pick(self.question.prompt, lang))}"
            f'<ul style="list-style:none;padding-left:1em">{items}</ul>{note}</div>'
        )

    def static_text(self, *, footer: bool = True) -> str:
        lang = self.lang
        controls = [plain_text(_strip_tags(c)) for c in self._static_controls(lang)]
        lines = [f"[{self._heading_text(lang)}] {plain_text(pick(self.question.prompt, lang))}"]
        lines += [f"  {c}" for c in controls]
        if footer:
            lines.append(t("static_quiz", lang))
        return "\n".join(lines)


def _inline(text: str) -> str:
    """Markdown for a short text inside a list item (no surrounding paragraph)."""
    out = markdown_to_html(text)
    return out[3:-4] if out.startswith("<p>") and out.endswith("</p>") and out.count("<p>") == 1 else out


def _strip_tags(s: str) -> str:
    import re

    return html.unescape(re.sub(r"<[^>]+>", "", s))


class SingleChoiceWidget(QuestionWidget):
    """A single-choice question: native radio buttons, one per option (value = option index)."""

    kind_key = "kind_single"

    def _make_controls(self) -> widgets.RadioButtons:
        box = widgets.RadioButtons(
            options=[(str(i), i) for i in range(len(self.question.options))],
            value=None,
            layout=widgets.Layout(width="auto"),
        )
        return box

    def _relabel_controls(self) -> None:
        labels = [(plain_text(pick(o.text, self.lang)), i) for i, o in enumerate(self.question.options)]
        if list(self.options_box.options) != labels:
            keep = self.options_box.index
            self.options_box.options = labels  # resets the selection; put it back
            self.options_box.index = keep

    @property
    def answer(self) -> int | None:
        return self.options_box.value

    def _static_controls(self, lang: str) -> list[str]:
        return [f"○ {_inline(pick(o.text, lang))}" for o in self.question.options]


class MultipleChoiceWidget(QuestionWidget):
    """A multiple-choice question: one native checkbox per option, labelled with the option's text."""

    kind_key = "kind_multiple"

    def _make_controls(self) -> widgets.VBox:
        self.checkboxes = [
            widgets.Checkbox(value=False, indent=False, layout=widgets.Layout(width="auto"))
            for _ in self.question.options
        ]
        return widgets.VBox(self.checkboxes)

    def _relabel_controls(self) -> None:
        for box, option in zip(self.checkboxes, self.question.options):
            box.description = plain_text(pick(option.text, self.lang))

    @property
    def answer(self) -> tuple[int, ...]:
        return tuple(i for i, box in enumerate(self.checkboxes) if box.value)

    def _static_controls(self, lang: str) -> list[str]:
        return [f"☐ {_inline(pick(o.text, lang))}" for o in self.question.options]


class FillInWidget(QuestionWidget):
    """A fill-in question: one labelled text box per blank (text or number)."""

    kind_key = "kind_fill"

    def _make_controls(self) -> widgets.VBox:
        self.blanks = [
            widgets.Text(
                value="", style={"description_width": "initial"}, layout=widgets.Layout(width="auto")
            )
            for _ in self.question.blanks
        ]
        self._units = [widgets.HTML(_esc(b.unit or "")) for b in self.question.blanks]
        rows = [widgets.HBox([box, unit]) for box, unit in zip(self.blanks, self._units)]
        return widgets.VBox(rows)

    def _relabel_controls(self) -> None:
        for i, (box, blank) in enumerate(zip(self.blanks, self.question.blanks)):
            box.description = t("field_label", self.lang, label=blank_label(blank, i, self.lang))
            box.placeholder = t("blank_placeholder", self.lang)

    @property
    def answer(self) -> list[str]:
        return [box.value for box in self.blanks]

    def _static_controls(self, lang: str) -> list[str]:
        return [
            f"{_esc(t('field_label', lang, label=blank_label(b, i, lang)))} ________{(' ' + _esc(b.unit)) if b.unit else ''}"
            for i, b in enumerate(self.question.blanks)
        ]


_WIDGETS = {"single": SingleChoiceWidget, "multiple": MultipleChoiceWidget, "fill": FillInWidget}


def question_widget(question: Question, **kwargs) -> QuestionWidget:
    """The widget for ``question`` (by its type); keyword arguments go to :class:`QuestionWidget`."""
    return _WIDGETS[question.type](question, **kwargs)


# -------------------------------------------------------------------------------------------- section


class QuizSection(_QuizWidget):
    """Several questions under one title and one language toggle."""

    def __init__(
        self, questions: Sequence[Question], *, title=None, language: str | None = None, record: bool = True
    ):
        super().__init__(language=language)
        self._title_text = title  # {en, zh} mapping, a UI key tuple, or None
        n = len(questions)
        self.questions = [
            question_widget(q, language=language, show_language_toggle=False, record=record, heading=None)
            for q in questions
        ]
        self._numbers = [(i + 1, n) for i in range(n)]
        self.children = [self.header, *self.questions]
        self.refresh()

    def _section_title(self, lang: str) -> str:
        title = self._title_text
        if title is None:
            return ""
        if isinstance(title, tuple):  # (ui_key, fields)
            return t(title[0], lang, **title[1])
        return pick(title, lang)

    def _render(self) -> None:
        lang = self.lang
        self.title.value = f"<h4 style='margin:0.3em 0'>{_esc(self._section_title(lang))}</h4>"
        for (i, n), w in zip(self._numbers, self.questions):
            w.heading = t("question_number", lang, i=i, n=n)
            w._lang = self._lang
            w.refresh()

    def static_html(self) -> str:
        lang = self.lang
        parts = "".join(q.static_html(footer=False) for q in self.questions)
        return (
            f'<div class="bertedu-quiz-static"><h4>{_esc(self._section_title(lang))}</h4>{parts}'
            f"<p><em>{_esc(t('static_quiz', lang))}</em></p></div>"
        )

    def static_text(self) -> str:
        lang = self.lang
        parts = [
            self._section_title(lang),
            *(q.static_text(footer=False) for q in self.questions),
            t("static_quiz", lang),
        ]
        return "\n\n".join(p for p in parts if p)


# ----------------------------------------------------------------------------------------- flashcards


class FlashcardDeck(_QuizWidget):
    """Flashcards: Flip shows the other side; Previous / Next move (wrapping around); Known / Not yet
    records how well you know the card (saved in the progress file)."""

    def __init__(
        self, cards: Sequence[Flashcard], *, title=None, language: str | None = None, record: bool = True
    ):
        if not cards:
            raise ValueError("A flashcard deck needs at least one card.")
        super().__init__(language=language)
        self.cards = list(cards)
        self._title_text = title
        self.record = record
        self.index = 0
        self.showing_back = False
        self.session_marks: dict[str, bool] = {}
        self.card = widgets.HTMLMath(layout=widgets.Layout(width="100%", max_width="46em"))
        self.position = widgets.HTML()
        self.status = widgets.HTML()
        self.help = widgets.HTML()
        self.previous = widgets.Button()
        self.flip = widgets.Button(button_style="info")
        self.next = widgets.Button()
        self.known = widgets.Button()
        self.unknown = widgets.Button()
        for b in (self.previous, self.flip, self.next, self.known, self.unknown):
            b.layout.width = "auto"
        self.previous.on_click(lambda _b: self.go(-1))
        self.next.on_click(lambda _b: self.go(+1))
        self.flip.on_click(lambda _b: self.turn())
        self.known.on_click(lambda _b: self.mark(True))
        self.unknown.on_click(lambda _b: self.mark(False))
        self.buttons = widgets.HBox([self.previous, self.flip, self.next, self.known, self.unknown])
        self.children = [self.header, self.position, self.card, self.buttons, self.status, self.help]
        self.add_class("bertedu-flashcards")
        self.refresh()

    @property
    def current(self) -> Flashcard:
        """The card on screen."""
        return self.cards[self.index]

    def turn(self) -> None:
        """Flip the card (front ↔ back)."""
        self.showing_back = not self.showing_back
        self._render()

    def go(self, step: int) -> None:
        """Move ``step`` cards (wrapping around) and show the front."""
        self.index = (self.index + step) % len(self.cards)
        self.showing_back = False
        self._render()

    def mark(self, known: bool) -> None:
        """Mark the current card known / not yet known (recorded in the progress file)."""
        card = self.current
        self.session_marks[card.id] = known
        if self.record:
            try:
                get_store().mark_card(card.notebook, card.id, known)
            except OSError as err:
                warnings.warn(f"Could not save flashcard progress: {err}", stacklevel=2)
        self._render()

    def _deck_title(self, lang: str) -> str:
        if self._title_text is None:
            return t("flashcards_title", lang)
        return t("deck_title", lang, title=pick(self._title_text, lang))

    def _render(self) -> None:
        lang = self.lang
        card = self.current
        side = "back" if self.showing_back else "front"
        text = pick(card.back if self.showing_back else card.front, lang)
        self.title.value = f"<strong>{_esc(self._deck_title(lang))}</strong>"
        self.position.value = (
            f"{_esc(t('card_position', lang, i=self.index + 1, n=len(self.cards)))} · {_esc(t(side, lang))}"
        )
        self.card.value = (
            f'<div style="{_BOX};min-height:5em" aria-live="polite">'
            f"<p><small>{_esc(t(side, lang))}</small></p>{markdown_to_html(text)}</div>"
        )
        self.previous.description = t("previous", lang)
        self.flip.description = t("flip", lang)
        self.next.description = t("next", lang)
        self.known.description = t("known", lang)
        self.unknown.description = t("unknown", lang)
        mark = self.session_marks.get(card.id)
        status = "" if mark is None else t("marked_known" if mark else "marked_unknown", lang) + " · "
        n_known = sum(self.session_marks.values())
        tally = t("session_tally", lang, known=n_known, unknown=len(self.session_marks) - n_known)
        self.status.value = f'<span role="status">{_esc(status + tally)}</span>'
        self.help.value = f"<small>{_esc(t('keyboard_help', lang))}</small>"

    def static_html(self) -> str:
        lang = self.lang
        fronts = "".join(f"<li>{_inline(pick(c.front, lang))}</li>" for c in self.cards)
        return (
            f'<div class="bertedu-quiz-static" style="{_BOX}"><p><strong>{_esc(self._deck_title(lang))}</strong></p>'
            f"<ol>{fronts}</ol><p><em>{_esc(t('static_cards', lang, n=len(self.cards)))}</em></p></div>"
        )

    def static_text(self) -> str:
        lang = self.lang
        lines = [self._deck_title(lang)]
        lines += [f"  {i}. {plain_text(pick(c.front, lang))}" for i, c in enumerate(self.cards, 1)]
        lines.append(t("static_cards", lang, n=len(self.cards)))
        return "\n".join(lines)


# -------------------------------------------------------------------------------------------- progress


class ProgressSummary(_QuizWidget):
    """A table of answered questions, scores and known cards per notebook (from the progress file)."""

    def __init__(self, banks, *, language: str | None = None):
        super().__init__(language=language)
        self.banks = list(banks)
        self.table = widgets.HTML()
        self.saved_in = widgets.HTML()
        self.refresh_button = widgets.Button(layout=widgets.Layout(width="auto"))
        self.refresh_button.on_click(lambda _b: self.refresh())
        self.children = [self.header, self.table, widgets.HBox([self.refresh_button, self.saved_in])]
        self.refresh()

    @property
    def rows(self):
        """The :class:`~bertedu.quiz.store.NotebookProgress` rows, re-read from the file."""
        store = get_store()
        store.reload()
        return store.summary(self.banks, self.lang)

    def _table_html(self, lang: str) -> str:
        rows = self.rows
        head = "".join(
            f"<th style='text-align:left;padding:0 1em 0 0'>{_esc(t(k, lang))}</th>"
            for k in ("col_notebook", "col_answered", "col_score", "col_cards")
        )

        def line(name, answered, total, score, known, cards, bold=False):
            pct = f" ({round(100 * score / total)}%)" if total else ""
            cells = [name, f"{answered} / {total}", f"{score:.1f} / {total}{pct}", f"{known} / {cards}"]
            tag = "th" if bold else "td"
            return (
                "<tr>"
                + "".join(
                    f"<{tag} style='text-align:left;padding:0 1em 0 0'>{_esc(c)}</{tag}>" for c in cells
                )
                + "</tr>"
            )

        body = "".join(
            line(f"{r.notebook} · {r.title}", r.answered, r.total, r.score, r.cards_known, r.cards_total)
            for r in rows
        )
        body += line(
            t("total", lang),
            sum(r.answered for r in rows),
            sum(r.total for r in rows),
            sum(r.score for r in rows),
            sum(r.cards_known for r in rows),
            sum(r.cards_total for r in rows),
            bold=True,
        )
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def _render(self) -> None:
        lang = self.lang
        self.title.value = f"<strong>📊 {_esc(t('progress_title', lang))}</strong>"
        self.table.value = self._table_html(lang)
        self.refresh_button.description = t("refresh", lang)
        self.saved_in.value = f"<small>{_esc(t('saved_in', lang, path=str(get_store().path)))}</small>"

    def static_html(self) -> str:
        lang = self.lang
        return f"<div class='bertedu-quiz-static'><p><strong>📊 {_esc(t('progress_title', lang))}</strong></p>{self._table_html(lang)}</div>"

    def static_text(self) -> str:
        lang = self.lang
        lines = [t("progress_title", lang)]
        for r in self.rows:
            lines.append(
                f"  {r.notebook}: {r.answered}/{r.total} answered, score {r.score:.1f}, "
                f"cards {r.cards_known}/{r.cards_total}"
            )
        return "\n".join(lines)


class ResetConfirmation(_QuizWidget):
    """Asks before erasing progress: ``confirm`` erases, ``cancel`` does nothing."""

    def __init__(self, notebook: str | None, *, language: str | None = None):
        super().__init__(language=language)
        self.notebook = notebook
        self.done: str | None = None  # "erased" or "cancelled"
        self.message = widgets.HTML()
        self.confirm = widgets.Button(button_style="danger", layout=widgets.Layout(width="auto"))
        self.cancel = widgets.Button(layout=widgets.Layout(width="auto"))
        self.confirm.on_click(lambda _b: self._finish(True))
        self.cancel.on_click(lambda _b: self._finish(False))
        self.children = [self.header, self.message, widgets.HBox([self.confirm, self.cancel])]
        self.refresh()

    def _finish(self, erase: bool) -> None:
        if self.done is not None:
            return
        if erase:
            get_store().reset(self.notebook)
        self.done = "erased" if erase else "cancelled"
        self.confirm.disabled = self.cancel.disabled = True
        self._render()

    def _question(self, lang: str) -> str:
        what = t("reset_all", lang) if self.notebook is None else t("reset_one", lang, notebook=self.notebook)
        return t("reset_question", lang, what=what)

    def _render(self) -> None:
        lang = self.lang
        self.title.value = f"<strong>🗑 {_esc(t('progress_title', lang))}</strong>"
        if self.done == "erased":
            self.message.value = f"<p role='status'>{_esc(t('reset_done', lang))}</p>"
        elif self.done == "cancelled":
            self.message.value = f"<p role='status'>{_esc(t('reset_cancelled', lang))}</p>"
        else:
            self.message.value = f"<p>{_esc(self._question(lang))}</p>"
        self.confirm.description = t("reset_confirm", lang)
        self.cancel.description = t("reset_cancel", lang)

    def static_html(self) -> str:
        return f"<p>{_esc(self._question(self.lang))}</p>"

    def static_text(self) -> str:
        return self._question(self.lang)
