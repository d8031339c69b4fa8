"""The claims ledger (bertedu/course/claims.yaml): its entries, the notebooks' calls, and no training result
asserted outside it.

A notebook asserts a training result only through ``claims.check("<id>", value[, reference])``: the margin lives
in the ledger, where ``make bench``'s claims sweep measures it over seeds and CPU kernel sets. The last test
follows every value a notebook computes from a training run (a taint analysis over its code cells, in order)
and fails on a bare ``assert`` over such a value, unless the line says why it is exact on every seed
(``# exact: ...``, e.g. "the loop ran all its steps").
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from bertedu.course import claims

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))

#: Calls whose result is a training run or computed from one: the sources of the taint analysis.
TRAINING_SOURCES = {
    "pretrain",
    "load_course_model",
    "course_eval_history",
    "start_side_runs",
    "result",  # side_runs.result(name)
    "run_course_task",
    "dev_search",
    "learning_curve",
    "run_feature_based",
    "run_minilm",
    "run_ablations",
    "run_variant",
    "load_full_results",
    "fine_tune",
    "reference_band",
    "side_by_side",
    "train_your_parts",
    "diagnose_your_model",
}
#: Sources that return ``(model, tokenizer)``: the tokenizer is trained on the corpus, the same on every seed.
MODEL_AND_TOKENIZER = {"load_course_model"}
#: Methods that put a value into the object they are called on.
MUTATORS = {"append", "extend", "update", "add", "insert", "setdefault"}
CHECK = claims.CHECK_CALL


def code_cells(path: Path) -> list[tuple[str, str]]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [(c.get("id", ""), "".join(c["source"])) for c in nb["cells"] if c["cell_type"] == "code"]


def parse(source: str) -> ast.Module:
    """A code cell as Python (IPython's %magics and !shell lines blanked)."""
    lines = [("" if line.lstrip().startswith(("%", "!")) else line) for line in source.splitlines()]
    return ast.parse("\n".join(lines))


# ----------------------------------------------------------------------------------------------------------
# The ledger and the notebooks' calls


def test_every_entry_is_checked_in_its_cell():
    cells = {(p.stem, cid): src for p in NOTEBOOKS for cid, src in code_cells(p)}
    for claim in claims.ledger().values():
        source = cells.get((claim.notebook, claim.cell))
        assert source is not None, (
            f"{claim.id}: no code cell {claim.cell!r} in notebooks/{claim.notebook}.ipynb"
        )
        assert claim.id in CHECK.findall(source), (
            f"{claim.id}: cell {claim.cell} does not call claims.check on it"
        )


def test_every_check_names_an_entry_of_its_cell_and_reads_its_margin_from_the_ledger():
    ledger = claims.ledger()
    seen = set()
    for path in NOTEBOOKS:
        for cid, source in code_cells(path):
            for node in ast.walk(parse(source)):
                called = ast.unparse(node.func) if isinstance(node, ast.Call) else ""
                if called not in ("claims.check", "claims.observe"):
                    continue
                first = node.args[0] if node.args else None
                assert isinstance(first, ast.Constant), f"{path.name} {cid}: {called} needs a literal id"
                claim = ledger.get(first.value)
                assert claim is not None, f"{path.name} {cid}: {first.value!r} is not in claims.yaml"
                assert (claim.compare == claims.VARIES) == (called == "claims.observe"), (
                    f"{path.name} {cid}: {claim.id} is {claim.compare}: "
                    f"{'observe' if claim.compare == claims.VARIES else 'check'} it"
                )
                assert (claim.notebook, claim.cell) == (path.stem, cid), (
                    f"{claim.id} belongs to cell {claim.cell}"
                )
                assert len(node.args) <= 3 and not node.keywords, (
                    f"{path.name} {cid}: claims.check({first.value!r}, value[, reference]) takes no margin: "
                    "the ledger holds it"
                )
                seen.add(claim.id)
    assert seen == set(ledger), f"entries no notebook checks: {sorted(set(ledger) - seen)}"


def test_the_ledger_has_every_notebook_that_trains():
    notebooks = {claim.notebook for claim in claims.ledger().values()}
    assert {
        "06_mini_pretraining",
        "07_fine_tuning",
        "08_attention_heatmaps",
        "10_ablations",
        "11_capstone",
    } <= notebooks


# ----------------------------------------------------------------------------------------------------------
# No training result asserted outside the ledger


def _names(node: ast.AST) -> set[str]:
    """The free names ``node`` reads: names bound inside it (comprehension variables, lambda arguments) excluded."""
    bound = set()
    for n in ast.walk(node):
        if isinstance(n, ast.comprehension):
            bound |= _targets(n.target)
        elif isinstance(n, ast.Lambda):
            bound |= {a.arg for a in n.args.args}
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - bound


def _calls_source(node: ast.AST) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            func = n.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in TRAINING_SOURCES:
                return True
    return False


def _targets(node: ast.AST) -> set[str]:
    """The names an assignment target binds or changes (``x``, ``x, y``, ``x[k]``, ``x.attr``)."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, (ast.Tuple, ast.List)):
        return set().union(*(_targets(e) for e in node.elts)) if node.elts else set()
    if isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
        return _targets(node.value)
    return set()


def _is_model_and_tokenizer(value: ast.AST) -> bool:
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    return (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) in MODEL_AND_TOKENIZER


class Taint(ast.NodeVisitor):
    """Names computed from a training run, followed through a notebook's cells in order; the asserts over them."""

    def __init__(self):
        self.tainted: set[str] = set()
        self.asserts: list[ast.AST] = []

    def dirty(self, node: ast.AST | None) -> bool:
        return node is not None and (_calls_source(node) or bool(_names(node) & self.tainted))

    def bind(self, targets, value) -> None:
        if not self.dirty(value):
            for target in targets:  # a name bound again to something clean is clean again
                if isinstance(target, (ast.Name, ast.Tuple, ast.List)):
                    self.tainted -= _targets(target)
            return
        for target in targets:
            if _is_model_and_tokenizer(value) and isinstance(target, ast.Tuple) and len(target.elts) == 2:
                self.tainted |= _targets(target.elts[0])  # the model; its tokenizer is not a training result
            else:
                self.tainted |= _targets(target)

    def visit_Assign(self, node):
        self.bind(node.targets, node.value)

    def visit_AugAssign(self, node):
        self.bind([node.target], node.value)

    def visit_AnnAssign(self, node):
        self.bind([node.target], node.value)

    def visit_For(self, node):
        self.bind([node.target], node.iter)
        for _ in range(2):  # a loop can taint a name it read before: go round twice
            for stmt in node.body + node.orelse:
                self.visit(stmt)

    def visit_With(self, node):
        for item in node.items:
            if item.optional_vars is not None:
                self.bind([item.optional_vars], item.context_expr)
        for stmt in node.body:
            self.visit(stmt)

    def visit_FunctionDef(self, node):
        if self.dirty(node):  # a function that reads a training result returns one
            self.tainted.add(node.name)

    def visit_Expr(self, node):  # runs.append(result), curve.extend(...), d.update(...)
        call = node.value
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr in MUTATORS
            and self.dirty(call)
        ):
            self.tainted |= _targets(call.func.value)
        self.generic_visit(node)

    def visit_Assert(self, node):
        if self.dirty(node.test):
            self.asserts.append(node)

    def visit_Call(self, node):  # np.testing.assert_allclose(...), torch.testing.assert_close(...)
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name.startswith("assert") and any(self.dirty(a) for a in node.args):
            self.asserts.append(node)
        self.generic_visit(node)


def unledgered_asserts(cells: list[tuple[str, str]]) -> list[str]:
    """``cell: line`` of every assert over a training result without an ``# exact: <why>`` comment."""
    taint, found = Taint(), []
    for cid, source in cells:
        taint.asserts = []
        tree = parse(source)
        for stmt in tree.body:
            taint.visit(stmt)
        lines = source.splitlines()
        for node in taint.asserts:
            text = "\n".join(lines[node.lineno - 1 : node.end_lineno])
            if not re.search(r"#\s*exact:\s*\S", text):
                found.append(f"{cid}: {lines[node.lineno - 1].strip()}")
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_training_result_is_asserted_outside_the_ledger(path):
    found = unledgered_asserts(code_cells(path))
    assert not found, (
        f"{path.name} asserts training results outside the claims ledger (bertedu/course/claims.yaml): "
        "use claims.check with a ledger entry, or say why the assert is exact on every seed "
        "(`# exact: ...`):\n  " + "\n  ".join(found)
    )


def test_the_taint_analysis_finds_an_assert_on_a_training_result():
    cells = [
        ("a", "run = pretrain(config)\nhistory = [r for r in run.history]\nacc = history[-1]['acc']"),
        (
            "b",
            "assert acc > 0.8\nassert len(history) == 100  # exact: one record per step\nassert config.steps == 100",
        ),
        ("c", "def top(m):\n    return run.model(m)\nassert top(1) == 'x'"),
        ("d", "curve = []\ncurve.append(acc)\nassert curve[0] > 0"),
        ("e", "model, tok = load_course_model()\nassert tok.vocab_size == 511\nassert model.config.x == 2"),
        ("f", "assert all(acc > 0 for acc in [1, 2])\nacc = 3\nassert acc == 3"),
    ]
    assert unledgered_asserts(cells) == [
        "b: assert acc > 0.8",
        "c: assert top(1) == 'x'",
        "d: assert curve[0] > 0",
        "e: assert model.config.x == 2",
    ]


# ----------------------------------------------------------------------------------------------------------
# claims.check itself


def test_check_compares_as_its_entry_says(monkeypatch, tmp_path):
    ledger = tmp_path / "claims.yaml"
    ledger.write_text(
        "- {id: a, notebook: n, cell: c, statement: 'x is at least 0.5', metric: m, compare: at_least, margin: 0.5}\n"
        "- {id: b, notebook: n, cell: c, statement: 'x ahead of y by 0.1', metric: m, compare: ahead, margin: 0.1,"
        " reference: y}\n"
        "- {id: c, notebook: n, cell: c, statement: 'x within', metric: m, compare: between, margin: [0.2, 0.4]}\n"
        "- {id: d, notebook: n, cell: c, statement: 'the word', metric: m, compare: equals, margin: reads}\n"
    )
    monkeypatch.setattr(claims, "LEDGER", ledger)
    claims.ledger.cache_clear()
    try:
        assert claims.check("a", 0.5).id == "a"
        with pytest.raises(claims.ClaimFailed, match="x is at least 0.5"):
            claims.check("a", 0.49)
        claims.check("b", 0.7, 0.6)
        with pytest.raises(claims.ClaimFailed):
            claims.check("b", 0.69, 0.6)
        with pytest.raises(TypeError, match="needs"):
            claims.check("b", 0.7)
        claims.check("c", 0.3)
        with pytest.raises(claims.ClaimFailed):
            claims.check("c", 0.41)
        claims.check("d", "reads")
        with pytest.raises(claims.ClaimFailed):
            claims.check("d", "eats")
        with pytest.raises(KeyError, match="add an entry"):
            claims.check("nope", 1.0)
        record = tmp_path / "record.jsonl"
        monkeypatch.setenv(claims.RECORD_ENV, str(record))
        monkeypatch.setenv("BERTEDU_SEED_OFFSET", "3")
        claims.check("a", 0.4)  # misses, but the sweep records instead of raising
        claims.check("b", 0.75, 0.6)
        rows = [json.loads(line) for line in record.read_text().splitlines()]
        assert [(r["id"], r["holds"], r["seed_offset"]) for r in rows] == [("a", False, 3), ("b", True, 3)]
        assert rows[0]["slack"] == pytest.approx(-0.1) and rows[1]["slack"] == pytest.approx(0.05)
    finally:
        claims.ledger.cache_clear()


def test_an_entry_that_varies_is_observed_never_asserted(monkeypatch, tmp_path):
    ledger = tmp_path / "claims.yaml"
    ledger.write_text(
        "- {id: v, notebook: n, cell: c, statement: 'x varies with the seed', metric: m, compare: varies,"
        " margin: null}\n"
        "- {id: a, notebook: n, cell: c, statement: 'x is at least 0.5', metric: m, compare: at_least, margin: 0.5}\n"
    )
    monkeypatch.setattr(claims, "LEDGER", ledger)
    claims.ledger.cache_clear()
    try:
        assert claims.observe("v", 0.0).id == "v" and claims.observe("v", 1e9, 3.0).id == "v"
        with pytest.raises(TypeError, match="observe"):
            claims.check("v", 0.7)
        with pytest.raises(TypeError, match="check"):
            claims.observe("a", 0.7)
        record = tmp_path / "record.jsonl"
        monkeypatch.setenv(claims.RECORD_ENV, str(record))
        claims.observe("v", 0.25, 0.5)
        (row,) = [json.loads(line) for line in record.read_text().splitlines()]
        assert (row["id"], row["value"], row["reference"], row["holds"], row["slack"]) == (
            "v",
            0.25,
            0.5,
            True,
            None,
        )
        assert claims.CHECK_CALL.findall('claims.observe("v", x)\nclaims.check("a", y)') == ["v", "a"]
    finally:
        claims.ledger.cache_clear()


@pytest.mark.parametrize(
    "entry, error",
    [
        (
            "{id: a, notebook: n, cell: c, statement: s, metric: m, compare: varies, margin: 0.1}",
            "margin is null",
        ),
        (
            "{id: a, notebook: n, cell: c, statement: s, metric: m, compare: bigger, margin: 1}",
            "unknown comparison",
        ),
        ("{id: a, notebook: n, cell: c, statement: s, metric: m, compare: between, margin: 1}", "low, high"),
        ("{id: a, notebook: n, cell: c, statement: s, metric: m, compare: ahead, margin: 1}", "say what"),
        (
            "{id: a, notebook: n, cell: c, statement: s, metric: m, compare: at_least, margin: x}",
            "needs a number",
        ),
        ("{id: a, notebook: n, cell: c, statement: s, compare: at_least, margin: 1}", "missing fields"),
    ],
)
def test_a_malformed_entry_is_refused(monkeypatch, tmp_path, entry, error):
    ledger = tmp_path / "claims.yaml"
    ledger.write_text(f"- {entry}\n")
    monkeypatch.setattr(claims, "LEDGER", ledger)
    claims.ledger.cache_clear()
    try:
        with pytest.raises(ValueError, match=error):
            claims.ledger()
    finally:
        claims.ledger.cache_clear()
