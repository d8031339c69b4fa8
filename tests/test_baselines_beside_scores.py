"""Every score the training notebooks report stands next to a trivial baseline (issue 27, the content review).

A *results table* (an HTML table output of notebooks 06, 07 or 10 whose header or index names a score metric) must
name a trivial rule in the same table (a row or a column), and that row must have a value under every column
(no "–"). An *asserted model score* (an ``assert`` on a model's accuracy, F1, top-1, ...) must sit in a section
of the notebook (the cells between two headings) that names a baseline. Tables that hold no model scores are
listed in ``NOT_SCORES`` with the reason.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ("06_mini_pretraining", "07_fine_tuning", "10_ablations")
SCORE = re.compile(r"accuracy|acc\.|\bf1\b|macro|top-1|top-5|exact_match|\bNSP\b", re.IGNORECASE)
BASELINE = re.compile(
    r"baseline|bag of words|majority|overlap|trigram|lookup|\brule\b|template|window|jaccard|chance|"
    r"most frequent|random encoder|subject vote",
    re.IGNORECASE,
)
#: cell id -> why its table holds no model score that needs a baseline beside it
NOT_SCORES = {
    "69ff4225": "the sizes of the datasets",
    "2da0a880": "the learning-rate choice on dev: the control of a setting, not a result",
    "variants": "the variants' settings",
    "masking": "the shares of masked tokens, not scores",
    "reduced-settings": "the settings of the two runs",
    "table5": "the paper's Table 5 and our differences to BERT (variant minus BERT, not scores)",
    "table8": "the paper's Table 8 and our differences to BERT",
    "others": "differences to BERT, not scores",
    "compare": "the paper's changes next to ours: differences, not scores",
}


def tables(nb):
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "<table" in data.get("text/html", ""):
                yield index, cell, data.get("text/plain", "")


#: A dev search's table (its test column says it was not used for the choice): the control of a setting
DEV_SEARCH = "(not used for the choice)"


def baseline_problem(text: str) -> str | None:
    """Why a table's plain text fails the rule, or None."""
    if not SCORE.search(text) or DEV_SEARCH in text:
        return None
    if not BASELINE.search(text):
        return "no trivial baseline in the table"
    for line in text.splitlines():
        if re.match(r"\s*(trivial baseline|baseline:)", line) and "–" in line:
            return f"the baseline row has a blank: {line.strip()!r}"
    return None


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_results_table_has_a_baseline(name):
    nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    problems, checked = [], 0
    for index, cell, text in tables(nb):
        if cell.get("id") in NOT_SCORES:
            continue
        problem = baseline_problem(text)
        checked += bool(SCORE.search(text))
        if problem:
            problems.append(f"cell {index} ({cell.get('id')}): {problem}")
    assert not problems, f"{name}: " + "; ".join(problems)
    assert checked or name == "06_mini_pretraining", f"{name}: no results table found: is the scan broken?"


ASSERTED_SCORE = re.compile(  # a bare assert, or a claim of the ledger (claims.check), on a score
    r"(assert|claims\.check\()[^\n]*(\[\"(accuracy|f1|macro_f1|exact_match|token_accuracy|mlm_top1|gen_top1|top1|top5)\"\]|_accuracy\b|accuracy\[)"
)


def asserts_a_score(source: str) -> bool:
    """An assert on a model score that claims a level (a range check such as ``0 <= acc <= 1`` claims none)."""
    lines = [line for line in source.splitlines() if ASSERTED_SCORE.search(line)]
    return any(not re.search(r"\b0\s*<=[^<]*<=\s*1\b", line) for line in lines)


def sections(nb):
    """The cells between two Markdown headings, as lists of (index, cell)."""
    current: list = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("#") and current:
            yield current
            current = []
        current.append((index, cell))
    if current:
        yield current


def cell_text(cell) -> str:
    outs = [o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in cell.get("outputs", [])]
    return cell.source + "\n" + "\n".join(o if isinstance(o, str) else "".join(o) for o in outs)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_asserted_model_score_has_a_baseline_in_its_section(name):
    nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    problems, checked = [], 0
    for section in sections(nb):
        asserted = [i for i, c in section if c.cell_type == "code" and asserts_a_score(c.source)]
        checked += len(asserted)
        if asserted and not any(BASELINE.search(cell_text(c)) for _, c in section):
            heading = section[0][1].source.splitlines()[0]
            problems.append(f"cells {asserted} (section {heading!r})")
    assert not problems, f"{name}: asserted model scores with no baseline in their section: " + "; ".join(
        problems
    )
    assert checked, f"{name}: no asserted score found: is the scan broken?"


def test_the_rule_fails_a_table_without_a_baseline():
    assert baseline_problem("            loss  accuracy\nmini-bert  0.17  0.956\nscratch  0.47  0.778") == (
        "no trivial baseline in the table"
    )
    blank = "   top-1  top-5\nBERT  0.9  0.97\ntrivial baseline  0.785  –"
    assert "blank" in baseline_problem(blank)
    assert baseline_problem("   accuracy\nmini-bert  0.9\nbaseline: bag of words  0.72") is None
    assert baseline_problem("train  dev  test\nsentence  420  90  90") is None  # no score: no rule
    assert asserts_a_score('assert runs["pair"]["accuracy"] > 0.8')
    assert not asserts_a_score('assert all(0 <= r["mlm_accuracy"] <= 1 for r in own)')
