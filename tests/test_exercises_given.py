"""A find-the-bug exercise's handed-out code is checked with ``given=True``: that check shows the symptom, never the
fix (finding it is the exercise); the student's own attempt that still has the bug gets the fix too.

The handed-out code is read from the notebooks themselves (the code cell before each ``given=True`` check), so a
notebook whose bug changes is tested as it is. Check messages render ``*emphasis*`` in their HTML form.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import re
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from bertedu import language as i18n
from bertedu.teaching.exercises.core import CheckResult, Diagnosis, Exercise

ZH_EMPHASIS_STYLE = i18n.t("emphasis_style", "zh")  # bertedu/language/words.py

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

#: Words of each exercise's fix (English, Chinese): in the message of a student's attempt, never in the handed-out
#: code's check.
FIX_WORDS = {
    "key_mask": ("(B, 1, 1, T)", "(B, 1, 1, T)"),
    "split_heads": ("(B, T, heads, head_dim)", "(B, T, heads, head_dim)"),
    "input_embeddings": ("1e-12", "1e-12"),
    "fix_masking": ("all_special_ids", "all_special_ids"),
    "fix_nsp_loss": ("ignore_index", "ignore_index"),
    "fix_mlm_average": ("divide by", "除以"),
    "merge_heads": (".transpose(1, 2)", ".transpose(1, 2)"),
    "post_ln_layer": ("LN(H + Attn(H))", "LN(H + Attn(H))"),
    "fix_eval_dropout": ("model.eval()", "model.eval()"),
    "fix_head_entropy": ("axis=-1", "axis=-1"),
    "fix_span_loss": ("dim=-1", "dim=-1"),
}
SLOW = {"fix_eval_dropout"}  # builds and runs a small pretraining model


def handed_out_cases() -> list:
    """(notebook, exercise module, exercise name, handed-out source, function name) of every ``given=True`` check."""
    import nbformat

    cases = []
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        sources = "\n".join(cell.source for cell in cells if cell.cell_type == "code")
        module = re.search(r"from bertedu\.teaching\.exercises import (\w+) as ex", sources)
        for i, cell in enumerate(cells):
            call = re.match(r"ex\.(\w+)\.check\((\w+), given=True\)", cell.source.strip())
            if not call:
                continue
            name, function = call.groups()
            code = next(
                c.source for c in reversed(cells[:i]) if re.search(rf"^def {function}\(", c.source, re.M)
            )
            marks = [pytest.mark.slow] if name in SLOW else []
            cases.append(pytest.param(path.name, module.group(1), name, code, function, id=name, marks=marks))
    return cases


CASES = handed_out_cases()


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_language(None)


def test_every_exercise_with_handed_out_code_is_covered():
    assert {case.values[2] for case in CASES} == set(FIX_WORDS)


def handed_out_function(code: str, function: str):
    """The notebook's handed-out function, defined from its cell (anything the cell prints is dropped)."""
    namespace = {"torch": torch, "F": F, "np": np}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "<handed-out cell>", "exec"), namespace)
    return namespace[function]


@pytest.mark.parametrize("notebook, module, name, code, function", CASES)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_handed_out_code_check_shows_the_symptom_not_the_fix(
    lang, notebook, module, name, code, function
):
    i18n.set_language(lang)
    exercise = getattr(importlib.import_module(f"bertedu.teaching.exercises.{module}"), name)
    fn = handed_out_function(code, function)
    passed, diagnosis = exercise.checker(fn)
    assert not passed and isinstance(diagnosis, Diagnosis), f"{notebook}: {diagnosis}"
    fix_word = FIX_WORDS[name][lang == "zh"]

    shown = exercise.check(fn, given=True)
    assert not shown.passed and diagnosis.symptom in shown.message
    assert fix_word not in shown.message, shown.message
    for fix in diagnosis.fixes:
        assert fix not in shown.message, shown.message
    assert f"ex.{name}.hint()" in shown.message  # where to go instead

    attempt = exercise.check(fn)  # the student ran their own check on code that still has the bug
    assert attempt.message == diagnosis and fix_word in attempt.message
    assert all(fix in attempt.message for fix in diagnosis.fixes)


def test_a_plain_message_is_shown_whole_for_handed_out_code():
    ex = Exercise("fix", "p", lambda a: (False, "the answer is 4, not 3"))
    assert ex.check(3, given=True).message == "the answer is 4, not 3"


def test_a_diagnosis_reads_as_symptom_then_fix_and_joins_with_others():
    one, two = Diagnosis("the shape is wrong.", "Transpose it."), Diagnosis("it is nan.", "Clamp the count.")
    assert one == "the shape is wrong. Transpose it." and one.symptom == "the shape is wrong."
    both = Diagnosis.joined(" Also: ", [one, two, "a plain note."])
    assert both == "the shape is wrong. Transpose it. Also: it is nan. Clamp the count. Also: a plain note."
    assert both.symptom == "the shape is wrong. Also: it is nan. Also: a plain note."
    assert both.fixes == ("Transpose it.", "Clamp the count.")
    framed = Diagnosis.framed("{n} problems: {found}", "found", both, n=2)
    assert framed.startswith("2 problems: the shape") and framed.symptom.startswith(
        "2 problems: the shape is wrong."
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_check_messages_render_emphasis_and_code_in_html(lang):
    i18n.set_language(lang)
    result = CheckResult(False, "the *queries* (rows) <not> `x*y*z` keys")
    html = result._repr_html_()
    text = re.sub(r"<code>.*?</code>", "", html)
    assert "*" not in text, html
    assert "&lt;not&gt;" in html and "<code>x*y*z</code>" in html
    emphasised = f'<em style="{ZH_EMPHASIS_STYLE}">queries</em>' if lang == "zh" else "<em>queries</em>"
    assert emphasised in html
    assert "*queries*" in str(result)  # plain text keeps plain text's mark of emphasis


def test_a_message_is_drawn_in_the_language_it_was_written_in():
    i18n.set_language("zh")
    result = CheckResult(False, "你遮住的是*查询*（行）")
    i18n.set_language("en")  # shown again after the course switched to English
    assert f'<em style="{ZH_EMPHASIS_STYLE}">查询</em>' in result._repr_html_()
