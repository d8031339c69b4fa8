"""The progress table (``quiz.progress()``) and the reset confirmation (``quiz.reset_progress()``).

Children: :class:`ProgressSummary` has ``table`` and ``refresh_button``; :class:`ResetConfirmation` has
``message``, ``confirm`` and ``cancel`` (see :mod:`bertedu.teaching.quiz.widgets` for the shared base).
Introduced in notebook 00; notebook 09 shows the whole course's progress.
"""

from __future__ import annotations

import ipywidgets as widgets

from bertedu.language import t
from bertedu.teaching.quiz.store import ProgressError, get_store
from bertedu.teaching.quiz.widgets import _esc, _QuizWidget


class ProgressSummary(_QuizWidget):
    """A table of answered questions, scores and known cards per notebook (from the progress file)."""

    def __init__(self, banks, *, language: str | None = None):
        super().__init__(language=language)
        self.banks = list(banks)
        self.table = widgets.HTML()
        self.saved_in = widgets.HTML()
        self.refresh_button = widgets.Button(icon="sync-alt", layout=widgets.Layout(width="auto"))
        self.refresh_button.on_click(lambda _b: self.refresh())
        self.children = [self.header, self.table, widgets.HBox([self.refresh_button, self.saved_in])]
        self.refresh()

    @property
    def rows(self):
        """The :class:`~bertedu.teaching.quiz.store.NotebookProgress` rows, re-read from the file."""
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
        self.title.value = f"<strong>{_esc(t('progress_title', lang))}</strong>"
        self.table.value = self._table_html(lang)  # re-reads the file
        self.refresh_button.description = t("refresh", lang)
        store = get_store()
        note = f"<small>{_esc(t('saved_in', lang, path=str(store.path)))}</small>"
        if store.problem:  # damaged and not movable, or unreadable: say so next to the (empty) table
            note += f"<br><small><strong>{_esc(t('progress_problem', lang))}</strong> {_esc(store.problem)}</small>"
        self.saved_in.value = note

    def static_html(self) -> str:
        lang = self.lang
        return f"<div class='bertedu-quiz-static'><p><strong>{_esc(t('progress_title', lang))}</strong></p>{self._table_html(lang)}</div>"

    def static_text(self) -> str:
        lang = self.lang
        lines = [t("progress_title", lang)]
        for r in self.rows:
            counts = dict(answered=r.answered, total=r.total, score=f"{r.score:.1f}")
            cards = dict(known=r.cards_known, cards=r.cards_total)
            lines.append("  " + t("progress_line", lang, notebook=r.notebook, **counts, **cards))
        return "\n".join(lines)


class ResetConfirmation(_QuizWidget):
    """Asks before erasing progress: ``confirm`` erases, ``cancel`` does nothing."""

    def __init__(self, notebook: str | None, *, language: str | None = None):
        super().__init__(language=language)
        self.notebook = notebook
        self.done: str | None = None  # "erased" or "cancelled"
        self.message = widgets.HTML()
        self.error: str | None = None  # why the last erase failed (e.g. a read-only folder)
        self.confirm = widgets.Button(
            button_style="danger", icon="trash-alt", layout=widgets.Layout(width="auto")
        )
        self.cancel = widgets.Button(layout=widgets.Layout(width="auto"))
        self.confirm.on_click(lambda _b: self._finish(True))
        self.cancel.on_click(lambda _b: self._finish(False))
        self.children = [self.header, self.message, widgets.HBox([self.confirm, self.cancel])]
        self.refresh()

    def _finish(self, erase: bool) -> None:
        if self.done is not None:
            return
        if erase:
            try:
                get_store().reset(self.notebook)
            except ProgressError as err:  # shown in the widget; the buttons stay, to try again
                self.error = str(err)
                self._render()
                return
        self.error = None
        self.done = "erased" if erase else "cancelled"
        self.confirm.disabled = self.cancel.disabled = True
        self._render()

    def _question(self, lang: str) -> str:
        what = t("reset_all", lang) if self.notebook is None else t("reset_one", lang, notebook=self.notebook)
        return t("reset_question", lang, what=what)

    def _render(self) -> None:
        lang = self.lang
        self.title.value = f"<strong>{_esc(t('progress_title', lang))}</strong>"
        if self.error is not None:
            self.message.value = f"<p role='status'>{_esc(t('reset_failed', lang, reason=self.error))}</p>"
        elif self.done == "erased":
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
