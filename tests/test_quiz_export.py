"""A quiz notebook executed by a real kernel: outputs are deterministic (nbval compares them), and its HTML
export without widget state shows the questions but none of the answers or explanations."""

import nbformat
import pytest
from nbclient import NotebookClient
from nbconvert import HTMLExporter

pytestmark = pytest.mark.integration  # a real Jupyter kernel

CELLS = [
    "from bertedu.teaching import quiz",
    'quiz.ask("00_welcome", "show-solution")',
    'quiz.ask("00_welcome", ["set-seed", "quiz-score"])',
    'quiz.flashcards("00_welcome")',
    # answering changes progress.json; displaying the same quizzes again must give the same outputs
    'w = quiz.ask("00_welcome", "show-solution")\nw.options_box.value = w.question.option_index("b")\nr = w.check()\nprint(r.message)',
    'quiz.ask("00_welcome", "show-solution")',
    'quiz.ask("00_welcome", ["set-seed", "quiz-score"])',
    'quiz.flashcards("00_welcome")',
]


def _compared(cell):
    """What nbval compares: every output's text/plain and text/html (widget views are ignored)."""
    return [
        {k: v for k, v in out.get("data", {}).items() if k in ("text/plain", "text/html")} or out.get("text")
        for out in cell.outputs
    ]


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """The notebook executed by a real kernel, without saving widget state (like `make notebooks`)."""
    tmp = tmp_path_factory.mktemp("nb")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(src) for src in CELLS]
    mp = pytest.MonkeyPatch()
    mp.setenv("BERTEDU_HOME", str(tmp / "home"))
    mp.delenv("BERTEDU_LANG", raising=False)
    try:
        NotebookClient(
            nb,
            timeout=120,
            kernel_name="python3",
            store_widget_state=False,
            resources={"metadata": {"path": str(tmp)}},
        ).execute()
    finally:
        mp.undo()
    assert (tmp / "home" / "progress.json").exists()
    return nb


def test_outputs_do_not_depend_on_progress(executed):
    cells = executed.cells
    assert "✓ Correct" in "".join(o.get("text", "") for o in cells[4].outputs)  # however the kernel split it
    for before, after in zip(cells[1:4], cells[5:8]):
        assert _compared(before) and _compared(before) == _compared(after)
    for out in cells[1].outputs:
        assert "application/vnd.jupyter.widget-view+json" in out["data"]
        assert "When can you press" in out["data"]["text/plain"]


def test_html_export_without_widget_state(executed):
    assert "widgets" not in executed.metadata
    body, _ = HTMLExporter().from_notebook_node(executed)
    assert "When can you press" in body and "After three checked attempts" in body
    assert "starts with <code>bertedu.set_seed(0)</code>. What does it do?" in body
    assert "Where is your quiz progress saved" in body
    for secret in ("the solution stays locked", "there is no attempt limit", "0.6667", "In one file"):
        assert secret not in body, secret
    assert 'type="application/vnd.jupyter.widget-view+json"' not in body
