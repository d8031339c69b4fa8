"""The cells of a student edition that the student's work can reach, and the cells they need.

A student edition differs from its reference notebook only in the solution regions: a stubbed function raises
``NotImplementedError``, a stubbed name is ``...``. Strict nbval runs the reference notebook top to bottom. So a
Run All of the student edition can go wrong only in

* the exercise cells themselves (the stub, its ``check``, ``hint`` and ``solution`` calls), and
* cells that use a name a stub binds, directly or through a name such a cell binds ("tainted" cells),

and those cells run only with the cells that define the names they read. :func:`student_slice` returns that set of
cells; every other cell is byte for byte a cell of the reference notebook and reads nothing the student wrote, so it
behaves as it does under nbval. ``tests/test_student_edition.py`` runs every notebook's slice
(``BERTEDU_STUDENT_FULL=1`` runs every notebook whole).

Names are read from the code with :mod:`ast` (IPython syntax is turned into Python first): a cell *binds* the names
it assigns, imports, defines or loops over at its top level, and *reads* every name it loads anywhere (inside its
functions too), so a dependency is never missed, at worst a cell too many runs.
"""

from __future__ import annotations

import ast
import builtins
import re
import symtable

from IPython.core.inputtransformer2 import TransformerManager

BUILTINS = set(dir(builtins)) | {"get_ipython", "display"}  # what every kernel has (IPython's own included)
EXERCISE_CALL = re.compile(r"\b\w+\.\w+\.(?:check|hint|solution)\(")
STUB_MARKERS = ("# YOUR CODE HERE", "# 在这里写你的代码")


def _tree(source: str) -> ast.Module:
    return ast.parse(TransformerManager().transform_cell(source))


def bound_names_of(node: ast.stmt) -> set[str]:
    """Names one top-level statement binds (assignments, imports, def, class, for and with targets)."""
    names: set[str] = set()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        names.add(node.name)
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        names.update((a.asname or a.name).split(".")[0] for a in node.names)
    else:
        names.update(
            n.id for n in _module_level(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        )
        names.update(n.target.id for n in _module_level(node) if isinstance(n, ast.NamedExpr))
    return names


def bound_names(source: str) -> set[str]:
    """Names a cell binds in its own scope."""
    return set().union(*(bound_names_of(node) for node in _tree(source).body))


_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _module_level(node):
    """The nodes of ``node`` that run in the cell's own (global) scope: nested scopes are not entered, except
    for what runs where they are defined (decorators, default values, a comprehension's first iterable)."""
    yield node
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        children = [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]
    elif isinstance(node, ast.Lambda):
        children = [*node.args.defaults, *node.args.kw_defaults]
    elif isinstance(node, ast.ClassDef):
        children = [*node.decorator_list, *node.bases]
    elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        children = [node.generators[0].iter]
    else:
        children = list(ast.iter_child_nodes(node))
    for child in children:
        if child is not None:
            yield from _module_level(child)


def _nested_globals(source: str) -> set[str]:
    """Names that functions, lambdas, classes and comprehensions of the cell read from the global scope."""
    found: set[str] = set()

    def visit(table) -> None:
        for child in table.get_children():
            found.update(s.get_name() for s in child.get_symbols() if s.is_referenced() and s.is_global())
            visit(child)

    visit(symtable.symtable(TransformerManager().transform_cell(source), "<cell>", "exec"))
    return found


def read_names(source: str) -> set[str]:
    """The names a cell reads that an earlier cell must have bound: names loaded in the cell's own scope before
    the cell binds them (statement by statement; a ``for`` or ``with`` statement's own targets count as bound in
    its body), and the globals its functions, lambdas and comprehensions read unless the cell binds them.
    Builtins and what IPython defines in every kernel are left out."""
    tree = _tree(source)
    bound: set[str] = set()
    reads: set[str] = set()
    for statement in tree.body:
        nodes = list(_module_level(statement))
        loads = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        loads |= {
            n.target.id for n in nodes if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)
        }
        if isinstance(statement, ast.For):  # the loop variable is bound before the body reads it
            loads -= {n.id for n in ast.walk(statement.target) if isinstance(n, ast.Name)}
        elif isinstance(statement, ast.With):
            loads -= {
                n.id
                for item in statement.items
                if item.optional_vars
                for n in ast.walk(item.optional_vars)
                if isinstance(n, ast.Name)
            }
        reads |= loads - bound
        bound |= bound_names_of(statement)
    reads |= _nested_globals(source) - bound
    return reads - BUILTINS


def is_exercise_cell(source: str) -> bool:
    return any(marker in source for marker in STUB_MARKERS) or bool(EXERCISE_CALL.search(source))


def student_slice(sources: list[str]) -> list[int]:
    """Indices (into ``sources``, the code cells of a student edition in order) of the cells to run: the exercise
    cells, the cells that read a name the student's work binds (transitively), and every cell that defines a name
    one of those reads (the last definition before the reader, transitively). In notebook order."""
    binds = [bound_names(s) for s in sources]
    reads = [read_names(s) for s in sources]
    needed = {i for i, s in enumerate(sources) if is_exercise_cell(s)}
    tainted = set().union(*(binds[i] for i in needed)) if needed else set()
    for i in range(len(sources)):  # in order: a cell reading a tainted name taints what it binds
        if i not in needed and reads[i] & tainted:
            needed.add(i)
            tainted |= binds[i]
    todo = sorted(needed)
    while todo:  # the definitions they read
        i = todo.pop()
        for name in reads[i]:
            definer = next((j for j in range(i - 1, -1, -1) if name in binds[j]), None)
            if definer is not None and definer not in needed:
                needed.add(definer)
                todo.append(definer)
    return sorted(needed)
