"""Flashcard decks: flip a card, step through the deck, mark a card known or not yet (saved).

A :class:`FlashcardDeck` shows one card at a time; its children (``card``, ``position``, ``status``,
``flip``, ``previous``, ``next``, ``known``, ``unknown``) are described in :mod:`bertedu.teaching.quiz.widgets`,
which holds the shared widget base. Introduced in notebook 00; every notebook ends with a deck.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import ipywidgets as widgets

from bertedu.language import pick, t
from bertedu.teaching.quiz.banks import Flashcard
from bertedu.teaching.quiz.render import emphasis, markdown_to_html, plain_text
from bertedu.teaching.quiz.store import get_store
from bertedu.teaching.quiz.widgets import _BOX, _esc, _inline, _QuizWidget


class FlashcardDeck(_QuizWidget):
    """Flashcards: Flip shows the other side; Previous / Next move (wrapping around); "I know it" / "Not yet"
    records how well you know the card (saved in the progress file, and shown again after a restart)."""

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
        self.previous = widgets.Button(icon="arrow-left")
        self.flip = widgets.Button(button_style="info", icon="sync-alt")
        self.next = widgets.Button(icon="arrow-right")
        self.known = widgets.Button(icon="check")
        self.unknown = widgets.Button(icon="times")
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
            except OSError as err:  # a read-only home must not break the cards (ProgressError says why)
                warnings.warn(f"Your flashcard mark was not saved. {err}", stacklevel=2)
        self._render()

    def saved_mark(self, card: Flashcard) -> bool | None:
        """The mark saved for ``card`` (in this or an earlier session), or ``None``."""
        return get_store().card(card.notebook, card.id) if self.record else None

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
            f"<p><small>{_esc(t(side, lang))}</small></p>{markdown_to_html(text, lang)}</div>"
        )
        self.previous.description = t("previous", lang)
        self.flip.description = t("flip", lang)
        self.next.description = t("next", lang)
        self.known.description = t("known", lang)
        self.unknown.description = t("unknown", lang)
        mark = self.session_marks.get(card.id)
        if mark is not None:
            status = [t("marked_known" if mark else "marked_unknown", lang)]
        else:
            saved = self.saved_mark(card)
            status = (
                []
                if saved is None
                else [t("marked_known_before" if saved else "marked_unknown_before", lang)]
            )
        n_known = sum(self.session_marks.values())
        status.append(t("session_tally", lang, known=n_known, unknown=len(self.session_marks) - n_known))
        saved_marks = [self.saved_mark(c) for c in self.cards]
        if any(m is not None for m in saved_marks):
            status.append(t("saved_tally", lang, known=saved_marks.count(True), n=len(self.cards)))
        self.status.value = f'<span role="status">{_esc(" · ".join(status))}</span>'
        self.help.value = f"<small>{_esc(t('keyboard_help', lang))}</small>"

    def static_html(self) -> str:
        lang = self.lang
        fronts = "".join(f"<li>{_inline(pick(c.front, lang), lang)}</li>" for c in self.cards)
        return (
            f'<div class="bertedu-quiz-static" style="{_BOX}"><p><strong>{_esc(self._deck_title(lang))}</strong></p>'
            f"<ol>{fronts}</ol><p>{emphasis(_esc(t('static_cards', lang, n=len(self.cards))), lang)}</p></div>"
        )

    def static_text(self) -> str:
        lang = self.lang
        lines = [self._deck_title(lang)]
        lines += [f"  {i}. {plain_text(pick(c.front, lang))}" for i, c in enumerate(self.cards, 1)]
        lines.append(t("static_cards", lang, n=len(self.cards)))
        return "\n".join(lines)
