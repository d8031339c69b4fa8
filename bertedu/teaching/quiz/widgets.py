"""The quiz's widgets (ipywidgets 8): questions and sections, and the shared base
of every quiz widget (flashcards: :mod:`bertedu.teaching.quiz.flashcards`; progress: :mod:`bertedu.teaching.quiz.progress_view`).

Every widget exposes its parts as attributes, so a test (or a curious student) can drive it::

    w = SingleChoiceWidget(question)
    w.options_box.value = 2          # choose option 2 (values are the options' bank indices)
    w.submit.click()                 # grade it
    w.feedback.value                 # "✓ Correct ..." or "✗ Not quite ..." with the option's explanation

Named children, by widget:

- every widget: ``language`` (EN / 中文 toggle: re-renders this widget), ``title`` (heading);
- questions: ``prompt``, ``submit``, ``feedback``, ``hint_button``, ``hint``, ``solution_button``
  (enabled after the first graded attempt, in this session or an earlier one), ``solution``, ``saved``
  (the saved state: "Answered before · best score 1/1 · 2 attempts"); plus ``result`` (last
  :class:`Result`), ``attempts`` (all graded attempts, earlier sessions included) and ``previous`` (the
  saved entry found when the widget was built, or ``None``);
  - choice questions: ``order`` (the bank indices of the options in the order this student sees them,
    :func:`bertedu.teaching.quiz.shuffle.option_order`) and ``scoring`` (single choice: tick one option;
    multiple choice: how partial credit is counted);
  - both: ``checkboxes`` (one ``Checkbox`` per option in bank order, labelled with its text: see below);
  - :class:`SingleChoiceWidget`: ``options_box`` (a :class:`SingleChoiceBoxes`, boxes in ``order``; ``value`` =
    the ticked option's bank index or ``None``, ``options`` = ``(label as plain text, bank index)`` pairs in
    ``order``);
  - :class:`MultipleChoiceWidget`: ``options_box`` (a ``VBox``, boxes in ``order``);
  - :class:`FillInWidget`: ``blanks`` (one ``Text`` per blank, labelled), inside ``options_box``, and
    ``typed_values`` (:class:`bertedu.teaching.quiz.typed.TypedValues`, the one custom widget: its front end sends
    the boxes' texts with each click on Check, so the quiz grades what the student typed even while the kernel is
    busy and ipywidgets holds the boxes' new values back);
- :class:`QuizSection`: ``questions`` (the question widgets);
- :class:`FlashcardDeck`: ``card`` (the visible side), ``position``, ``status``, ``flip``, ``previous``,
  ``next``, ``known``, ``unknown``; plus ``index`` and ``showing_back``;
- :class:`ProgressSummary`: ``table``, ``refresh_button``;
- :class:`ResetConfirmation`: ``message``, ``confirm``, ``cancel``.

Options are native checkboxes labelled with the option's text: ipywidgets typesets a checkbox's label with the
front end's MathJax, and an option with maths or Markdown (code, bold) gets an HTML label
(``description_allow_html``) whose tooltip is its plain text (``q_i``, not ``$q_i$``; see :func:`_label_option`).
A single choice uses checkboxes too, ticking one clears the others: ipywidgets' ``RadioButtons`` write their
labels as plain text and never typeset them, so "$q_i$" would show as "q_i". The accessible name of an
option is its label (maths read from MathJax's assistive MathML).

Keyboard: every control is a native button, checkbox or text box, so Tab / Shift-Tab move between them, Space
or Enter presses a button and Space ticks a checkbox. Correctness is always written out (✓ Correct / ✗ Not
quite), never shown by colour alone.
Button labels are plain text, with Font Awesome icons (bundled with JupyterLab and Notebook 7) on the buttons and
only symbols that DejaVu Sans draws (✓ ✗ ☐ ○), so nothing shows as an empty box without an emoji font.

Saved progress shows in the live widgets: a question answered before a kernel restart says so ("Answered
before · best score 1/1 · 2 attempts") and has its last answer filled in, and flashcards show their saved
marks. Each student sees the options of a choice question in their own order, stable across sessions
(:mod:`bertedu.teaching.quiz.shuffle`); saved answers name options by id. The static fallback never depends
on progress or on the student (it lists options in the bank's order), so a notebook's saved output is the
same every time and on every machine it runs (nbval compares it). Without a widget front end (GitHub,
nbviewer, HTML export) a widget shows that ``text/html`` / ``text/plain`` fallback: the prompt and the
options, never the answers or explanations.

Introduced in notebook 00.
"""

from __future__ import annotations

import html
import re
import warnings
from collections.abc import Sequence

import ipywidgets as widgets
import traitlets

from bertedu.language import LANGUAGES, UI, get_language, normalize_language, pick, register, t
from bertedu.language.script import display_width
from bertedu.teaching.quiz.banks import Question
from bertedu.teaching.quiz.core import (
    Result,
    blank_label,
    blank_line,
    choice_indices,
    grade,
    missed_text,
    partial_credit_text,
    solution_lines,
)
from bertedu.teaching.quiz.render import emphasis, markdown_to_html, plain_text
from bertedu.teaching.quiz.shuffle import option_order
from bertedu.teaching.quiz.store import answer_record, get_store, option_ids
from bertedu.teaching.quiz.typed import BLANK_CLASS, CHECK_CLASS, TypedValues

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
        self._lang = None if language is None else normalize_language(language)
        self._syncing = False
        self.language = widgets.ToggleButtons(
            options=[(UI["language_label"][lang], lang) for lang in LANGUAGES],
            value=self.lang,
            style={"button_width": "auto"},
            layout=widgets.Layout(width="auto", margin="0 0 0 auto"),
        )
        _hide(self.language, not show_language_toggle)
        self.language.observe(self._on_language_toggle, names="value")
        self.title = widgets.HTML()
        self.header = widgets.HBox([self.title, self.language], layout=widgets.Layout(align_items="center"))
        register(self)

    @property
    def lang(self) -> str:
        """The language this widget shows: its own choice (toggle) or the global one."""
        return self._lang or get_language()

    def set_language(self, lang: str | None) -> None:
        """Show this widget in ``lang`` (``None``: follow :func:`bertedu.teaching.quiz.set_language`)."""
        self._lang = None if lang is None else normalize_language(lang)
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
                f"{t('language_tooltip', self.lang)}: {UI['language_name'][lang]}" for lang in LANGUAGES
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
        self._last_answer: object = None
        self._show_hint = False
        self._show_solution = False
        # What an earlier session saved (e.g. before a kernel restart): shown instead of a blank form.
        self.previous: dict | None = get_store().question(question.notebook, question.id) if record else None
        self.attempts = self.previous["attempts"] if self.previous else 0

        self.order = option_order(question) if question.options else ()
        self.prompt = widgets.HTMLMath()
        self.options_box = self._make_controls()
        self.scoring = widgets.HTML()
        self.submit = widgets.Button(button_style="primary", icon="check")
        self.submit.add_class(CHECK_CLASS)
        self.hint_button = widgets.Button(icon="lightbulb")
        self.solution_button = widgets.Button(icon="book-open", disabled=self.previous is None)
        self.saved = widgets.HTML()
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
            self.scoring,
            self.buttons,
            self.saved,
            self.hint,
            self.feedback,
            self.solution,
        ]
        self.add_class("bertedu-quiz")
        self.add_class(f"bertedu-quiz-{question.id}")  # a handle for browser tests and custom CSS
        if self.previous:
            self._restore_answer(self.previous)
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

    def _fill_controls(self, answer: object) -> None:
        """Put a saved answer back into the controls (as :func:`grade` takes it: bank indices or strings)."""
        raise NotImplementedError

    def _restore_answer(self, entry: dict) -> None:
        """Fill in the last saved answer, when it still fits the question (banks change)."""
        answers = entry.get("answers") or []
        if not answers:
            return
        last = answers[-1]["answer"]
        try:
            answer = self._answer_from_record(last)
            grade(self.question, answer, self.lang)  # raises if it no longer fits
            self._fill_controls(answer)
        except (ValueError, TypeError, IndexError):
            pass

    def _answer_from_record(self, record: list) -> object:
        """A stored answer in the form :func:`grade` expects (choice answers: bank indices)."""
        if self.question.type == "fill":
            return record
        ids = option_ids(record)  # whole numbers from before options had ids name positions a, b, c ...
        if self.question.type == "single":
            if len(ids) != 1:
                raise ValueError(f"a single-choice answer names one option, got {record!r}")
            return self.question.option_index(ids[0])
        return [self.question.option_index(i) for i in ids]

    def _record(self, answer: object) -> list | None:
        """What is saved of an answer: the chosen options' ids, or the typed strings."""
        if self.question.type == "fill":
            return answer_record(answer)
        return [self.question.options[i].id for i in choice_indices(self.question, answer)]

    # -- actions -------------------------------------------------------------------------------------
    def _answer_to_grade(self) -> object:
        """The answer the Check button grades: :attr:`answer` (a fill-in question: what the click brought)."""
        return self.answer

    def check(self) -> Result:
        """Grade the current answer (the Check button). Empty answers only get a request for an answer."""
        answer = self._answer_to_grade()
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
                entry = get_store().record_attempt(
                    self.question.notebook, self.question.id, result.score, answer=self._record(answer)
                )
                self.attempts = entry["attempts"]  # counts attempts from other sessions and widgets too
            except OSError as err:  # a read-only home must not break the quiz (ProgressError says why)
                warnings.warn(f"Your answer was graded but not saved. {err}", stacklevel=2)
        self._render()
        return result

    def toggle_hint(self) -> None:
        """Show or hide the hint."""
        self._show_hint = not self._show_hint
        self._render()

    def toggle_solution(self) -> None:
        """Show or hide the full solution (only after a graded attempt, in this session or an earlier one)."""
        if self.result is None and self.previous is None:
            return
        self._show_solution = not self._show_solution
        self._render()

    # -- rendering -----------------------------------------------------------------------------------
    def _heading_text(self, lang: str) -> str:
        kind = t(self.kind_key, lang)
        return f"{self.heading} · {kind}" if self.heading else kind

    def _parts(self) -> int:
        """How many points a full score is: 1 (single), the correct options (multiple), the blanks (fill)."""
        if self.question.type == "fill":
            return len(self.question.blanks)
        if self.question.type == "multiple":
            return len(self.question.correct_indices)
        return 1

    def score_text(self, score: float) -> str:
        """A score as points, ``"2/3"``, or as a percentage when it is not a whole number of points."""
        n = self._parts()
        points = score * n
        if abs(points - round(points)) < 1e-6:
            return f"{round(points)}/{n}"
        return f"{round(score * 100)}%"

    def _saved_text(self, lang: str) -> str:
        entry = self.previous
        n = entry["attempts"]
        attempts = t("attempts_one", lang) if n == 1 else t("attempts_many", lang, n=n)
        return t("answered_before", lang, score=self.score_text(entry["best"]), attempts=attempts)

    def _render(self) -> None:
        lang = self.lang
        q = self.question
        self.title.value = f"<strong>{_esc(self._heading_text(lang))}</strong>"
        self.prompt.value = markdown_to_html(pick(q.prompt, lang), lang)
        self._relabel_controls()
        how = {"multiple": partial_credit_text(len(q.correct_indices), lang), "single": t("tick_one", lang)}
        self.scoring.value = f"<p><small>{_esc(how[q.type])}</small></p>" if q.type in how else ""
        self.submit.description = t("check", lang)
        self.hint_button.description = t("hint_hide" if self._show_hint else "hint_show", lang)
        self.solution_button.description = t(
            "solution_hide" if self._show_solution else "solution_show", lang
        )
        self.solution_button.tooltip = "" if self.result or self.previous else t("solution_locked", lang)
        self.hint.value = (
            f'<div style="{_BOX}"><strong>{_esc(_heading(t("hint", lang), lang))}</strong> {markdown_to_html(pick(q.hint, lang), lang)}</div>'
            if self._show_hint and q.hint
            else ""
        )
        self.saved.value = (
            f'<p role="status">{emphasis(_esc(self._saved_text(lang)), lang)}</p>'
            if self.previous and self.result is None
            else ""
        )
        if self.result is not None:
            self.result = grade(q, self._last_answer, lang)  # same verdict, texts in the new language
            self.feedback.value = self._feedback_html(self.result, lang)
        else:
            self.feedback.value = ""  # no graded answer yet (drops a stale "please answer" message)
        self.solution.value = self._solution_html(lang) if self._show_solution else ""

    def _feedback_html(self, r: Result, lang: str) -> str:
        head = f"<p><strong>{_esc(r.message)}</strong> · {_esc(t('attempt', lang, n=self.attempts))}</p>"
        items = []
        if r.is_correct and r.options:
            # Answered right: every option's explanation is now useful and gives nothing away.
            return f'<div role="status">{head}{self._solution_body(lang)}</div>'
        for o in r.options:
            if o.selected:
                # the option as it reads in the list above, its Markdown and maths rendered
                verdict = "chose_right" if o.correct else "chose_wrong"
                before, after = t(verdict, lang, option="\0").split("\0")
                line = f"{_esc(before)}{_inline(o.text, lang)}{_esc(after)}"
                items.append(f"<li>{line} {markdown_to_html(o.explanation, lang)}</li>")
        if r.kind == "multiple" and r.missed:  # on a single choice, a wrong pick already says it all
            items.append(f"<li>{_esc(missed_text(len(r.missed), lang))}</li>")
        if r.kind == "multiple" and not r.is_correct:  # the score above: say how it was counted
            items.append(f"<li>{_esc(partial_credit_text(len(self.question.correct_indices), lang))}</li>")
        for b in r.blanks:
            items.append(f"<li>{_esc(blank_line(b, lang))}</li>")
        body = f"<ul>{''.join(items)}</ul>"
        if r.is_correct and r.explanation:
            body += f"<p><strong>{_esc(_heading(t('explanation', lang), lang))}</strong></p>{markdown_to_html(r.explanation, lang)}"
        return f'<div role="status">{head}{body}</div>'

    def _solution_body(self, lang: str, *, explanation: bool = True) -> str:
        rows = "".join(
            f"<li><strong>{_esc(mark)}</strong> {_inline(text, lang)}"
            f"{(' ' + markdown_to_html(exp, lang)) if exp else ''}</li>"
            for mark, text, exp in solution_lines(self.question, lang)
        )
        out = f"<ul>{rows}</ul>"
        text = pick(self.question.explanation, lang)
        if explanation and text:
            out += f"<p><strong>{_esc(_heading(t('explanation', lang), lang))}</strong></p>{markdown_to_html(text, lang)}"
        return out

    def _solution_html(self, lang: str) -> str:
        """The solution, without repeating what the feedback above already shows."""
        r = self.result
        if r is not None and r.is_correct and r.options:  # the feedback already holds the whole solution
            return f'<p role="status">{emphasis(_esc(t("solution_in_feedback", lang)), lang)}</p>'
        shown = r is not None and r.is_correct and bool(r.explanation)  # fill-in: explanation is above
        body = self._solution_body(lang, explanation=not shown)
        return f'<div style="{_BOX}"><p><strong>{_esc(t("solution", lang))}</strong></p>{body}</div>'

    # -- static fallback -----------------------------------------------------------------------------
    def _static_controls(self, lang: str) -> list[str]:
        raise NotImplementedError

    def static_html(self, *, footer: bool = True) -> str:
        lang = self.lang
        items = "".join(f"<li>{c}</li>" for c in self._static_controls(lang))
        note = f"<p>{emphasis(_esc(t('static_quiz', lang)), lang)}</p>" if footer else ""
        return (
            f'<div class="bertedu-quiz-static" style="{_BOX}">'
            f"<p><strong>{_esc(self._heading_text(lang))}</strong></p>"
            f"{markdown_to_html(pick(self.question.prompt, lang), lang)}"
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


def _inline(text: str, lang: str | None = None) -> str:
    """Markdown for a short text inside a list item (no surrounding paragraph); ``lang`` as in markdown_to_html."""
    out = markdown_to_html(text, lang)
    return out[3:-4] if out.startswith("<p>") and out.endswith("</p>") and out.count("<p>") == 1 else out


def _strip_tags(s: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", s))


def _option_boxes(n: int) -> list[widgets.Checkbox]:
    """One unticked checkbox per option (labelled by :func:`_label_option`)."""
    return [
        widgets.Checkbox(value=False, indent=False, layout=widgets.Layout(width="auto")) for _ in range(n)
    ]


def _label_option(box: widgets.Checkbox, text: str, lang: str | None = None) -> None:
    """Label an option's checkbox with its text. The front end typesets the maths of any checkbox label.

    A label that is plain text stays a text label. Any other (maths, Markdown) is an HTML label whose text sits in
    a span titled with :func:`plain_text`: the front end copies the label, TeX and HTML as written, into the
    ``title`` of the label and of the box, and a browser shows the innermost title, so hovering the label shows
    "q_i", not "$q_i$". The box's copy is dropped when the front end draws the widget (``tooltip`` is None); a
    new label (another language) sets it again, so :func:`_clear_box_title` drops it once more.
    """
    plain = plain_text(text)
    rendered = _inline(text, lang)
    is_text = plain == text and rendered == _esc(text)
    # `$` and `\` as character references: the front end looks for maths in the label's source, attributes too
    title = html.escape(plain, quote=True).replace("$", "&#36;").replace("\\", "&#92;")
    label = text if is_text else f'<span title="{title}">{rendered}</span>'
    if box.description == label and box.description_allow_html == (not is_text):
        return
    relabel = bool(box.description)
    with box.hold_sync():  # one message: the front end never shows the HTML as text, or the reverse
        box.description_allow_html = not is_text
        box.description = label
    if relabel and not is_text:
        _clear_box_title(box)


def _clear_box_title(box: widgets.Checkbox) -> None:
    """Make the front end drop the copy of a new label from the box's ``title``: ipywidgets' checkbox removes it
    when ``tooltip`` changes to None (a tooltip is shown only on a checkbox without a label). Two messages."""
    box.tooltip = " "
    box.tooltip = None


class SingleChoiceBoxes(widgets.VBox):
    """The options of a single choice: one native checkbox per option; ticking one clears the others.

    ``value`` is the bank index of the ticked option or ``None``; ``options`` the ``(label as plain text, bank
    index)`` pairs in the order shown; ``checkboxes`` the boxes in bank order.
    """

    value = traitlets.Int(None, allow_none=True)

    def __init__(self, checkboxes: Sequence[widgets.Checkbox], order: Sequence[int]):
        super().__init__([checkboxes[i] for i in order])
        self.checkboxes = list(checkboxes)
        self.order = tuple(order)
        self.labels = ["" for _ in checkboxes]  # plain text, bank order
        for i, box in enumerate(self.checkboxes):
            box.observe(lambda change, i=i: self._ticked(i, change["new"]), names="value")

    @property
    def options(self) -> list[tuple[str, int]]:
        return [(self.labels[i], i) for i in self.order]

    @traitlets.validate("value")
    def _valid_value(self, proposal) -> int | None:
        value = proposal["value"]
        if value is not None and not 0 <= value < len(self.checkboxes):
            raise ValueError(
                f"{value} is not an option index: this question has {len(self.checkboxes)} options"
            )
        return value

    @traitlets.observe("value")
    def _show_value(self, change) -> None:
        for i, box in enumerate(self.checkboxes):
            box.value = i == change["new"]

    def _ticked(self, i: int, ticked: bool) -> None:
        if ticked:
            self.value = i  # unticks the others
        elif self.value == i:
            self.value = None


class SingleChoiceWidget(QuestionWidget):
    """A single-choice question: one native checkbox per option (ticking one clears the others), labelled with
    the option's text; ``options_box.value`` is the chosen option's index."""

    kind_key = "kind_single"

    def _make_controls(self) -> SingleChoiceBoxes:
        self.checkboxes = _option_boxes(len(self.question.options))  # bank order
        return SingleChoiceBoxes(self.checkboxes, self.order)  # shown in this student's order

    def _relabel_controls(self) -> None:
        for i, (box, option) in enumerate(zip(self.checkboxes, self.question.options)):
            text = pick(option.text, self.lang)
            _label_option(box, text, self.lang)
            self.options_box.labels[i] = plain_text(text)

    @property
    def answer(self) -> int | None:
        return self.options_box.value

    def _fill_controls(self, answer: int) -> None:
        self.options_box.value = answer

    def _static_controls(self, lang: str) -> list[str]:
        return [f"○ {_inline(pick(o.text, lang), lang)}" for o in self.question.options]


class MultipleChoiceWidget(QuestionWidget):
    """A multiple-choice question: one native checkbox per option, labelled with the option's text."""

    kind_key = "kind_multiple"

    def _make_controls(self) -> widgets.VBox:
        self.checkboxes = _option_boxes(len(self.question.options))  # bank order
        return widgets.VBox([self.checkboxes[i] for i in self.order])  # shown in this student's order

    def _relabel_controls(self) -> None:
        for box, option in zip(self.checkboxes, self.question.options):
            _label_option(box, pick(option.text, self.lang), self.lang)

    @property
    def answer(self) -> tuple[int, ...]:
        return tuple(i for i, box in enumerate(self.checkboxes) if box.value)

    def _fill_controls(self, answer: list) -> None:
        for i, box in enumerate(self.checkboxes):
            box.value = i in answer

    def _static_controls(self, lang: str) -> list[str]:
        return [f"☐ {_inline(pick(o.text, lang), lang)}" for o in self.question.options]


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
        for box in self.blanks:
            box.add_class(BLANK_CLASS)
        self._units = [widgets.HTML(_esc(b.unit or "")) for b in self.question.blanks]
        rows = [widgets.HBox([box, unit]) for box, unit in zip(self.blanks, self._units)]
        self._typed: list[str] | None = None
        self.typed_values = TypedValues(self._received_typed)
        return widgets.VBox([*rows, self.typed_values])

    def _received_typed(self, values: list[str]) -> None:
        """The boxes' texts as the student saw them when clicking Check (the click follows this message)."""
        if len(values) == len(self.blanks):
            self._typed = values

    def _answer_to_grade(self) -> list[str]:
        """What the click brought, else the boxes' values (the kernel's copy, which may lag behind the page)."""
        typed, self._typed = self._typed, None
        return typed if typed is not None else self.answer

    def _relabel_controls(self) -> None:
        labels = [
            t("field_label", self.lang, label=blank_label(blank, i, self.lang))
            for i, blank in enumerate(self.question.blanks)
        ]
        # One label column as wide as the longest label (a wide character takes about two "ch"), so that the
        # boxes of a question start at the same x (newcomer review, 2026-12-06: each started after its own label).
        width = f"{max(map(display_width, labels), default=0) + 1}ch"
        for box, label in zip(self.blanks, labels):
            box.description = label
            box.style.description_width = width
            box.placeholder = t("blank_placeholder", self.lang)

    @property
    def answer(self) -> list[str]:
        return [box.value for box in self.blanks]

    def _fill_controls(self, answer: list) -> None:
        for box, given in zip(self.blanks, answer):
            box.value = given

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
            f"<p>{emphasis(_esc(t('static_quiz', lang)), lang)}</p></div>"
        )

    def static_text(self) -> str:
        lang = self.lang
        parts = [
            self._section_title(lang),
            *(q.static_text(footer=False) for q in self.questions),
            t("static_quiz", lang),
        ]
        return "\n\n".join(p for p in parts if p)
