"""What the student typed, sent with the click on "Check answer" (the fill-in race).

ipywidgets sends a text box's new value and a button's click to the kernel as two messages, and the front end holds a
model's state back while an earlier change of that model is still being processed: while the kernel is busy (a cell
training, say), the click can reach the kernel first and the quiz would grade the old value. :class:`TypedValues` is
a small custom widget (anywidget: its JavaScript is the string :data:`ESM`, no build step) placed inside a question.
Its front end listens for clicks on its question's check button, before the button's own handler runs, and sends
the text the student sees in the question's boxes as a message of its own, which reaches the kernel just before the
click (both travel on the same channel, in order). The question grades those values.

Without a front end (tests, a script) no message comes and the question grades its boxes' values as before.
Introduced in notebook 00.
"""

from __future__ import annotations

from collections.abc import Callable

import anywidget
import traitlets

#: CSS classes the front end looks for: on the check button, and on each text box (in the order of the blanks).
CHECK_CLASS = "bertedu-check"
BLANK_CLASS = "bertedu-blank"
QUESTION_CLASS = "bertedu-quiz"

ESM = """
function render({ model, el }) {
  // A capturing listener on the document runs before the check button's own click handler (ipywidgets'), so the
  // values leave first: the kernel receives them, then the click.
  const [question, check, blank] = ["question_class", "check_class", "blank_class"].map((k) => "." + model.get(k));
  const onClick = (event) => {
    const mine = el.closest(question);
    const button = event.target instanceof Element ? event.target.closest(check) : null;
    if (!mine || !button || button.closest(question) !== mine) return;
    const boxes = mine.querySelectorAll(`${blank} input, ${blank} textarea`);
    model.send({ event: "check", values: Array.from(boxes, (box) => box.value) });
  };
  document.addEventListener("click", onClick, true);
  return () => document.removeEventListener("click", onClick, true);
}
export default { render };
"""


class TypedValues(anywidget.AnyWidget):
    """Calls ``on_values(values)`` with the boxes' texts each time the student clicks the question's check button.

    ``values`` is a list of strings, one per text box in the order of the blanks. Draws nothing.
    """

    _esm = ESM
    question_class = traitlets.Unicode(QUESTION_CLASS).tag(sync=True)
    check_class = traitlets.Unicode(CHECK_CLASS).tag(sync=True)
    blank_class = traitlets.Unicode(BLANK_CLASS).tag(sync=True)

    def __init__(self, on_values: Callable[[list[str]], None], **kwargs):
        super().__init__(**kwargs)
        self._on_values = on_values
        self.on_msg(self._received)

    def _received(self, _widget, content, _buffers) -> None:
        """A message from the front end: ``{"event": "check", "values": [...]}`` (anything else is ignored)."""
        if not isinstance(content, dict) or content.get("event") != "check":
            return
        values = content.get("values")
        if isinstance(values, list) and all(isinstance(v, str) for v in values):
            self._on_values(list(values))
