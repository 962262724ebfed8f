"""Reduce a failing program while it keeps failing the same way.

The program is parsed with the standard `ast` module and edited greedily:
  1. delete a statement (anywhere: module level, function bodies, branches, loops);
  2. replace an `if`/`for`/`while` by one of its bodies;
  3. replace an expression by one of its sub-expressions (the operand of a
     call or operator, a branch of a ternary, the object of a subscript);
  4. replace a float constant by 1.0 and an array literal by a shorter one.
An edit is kept when the smaller program's outcome has the same kind and the
same signature as the original failure (oracle.Outcome); a program that
becomes invalid or unstable is not "the same failure", so edits never trade a
zygote_py defect for a broken program.  `make_args` and the imports are kept.
"""

from __future__ import annotations

import ast
import copy
import time
from collections.abc import Callable, Iterator

from .oracle import Outcome

PROTECTED_FUNCS = {"make_args"}


def _stmt_lists(tree: ast.AST) -> list[tuple[ast.AST, str]]:
    """Every (node, field) whose value is a list of statements we may edit."""
    found = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.FunctionDef) and node.name in PROTECTED_FUNCS:
            return
        for field in ("body", "orelse", "finalbody"):
            value = getattr(node, field, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                found.append((node, field))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _editable_exprs(tree: ast.AST) -> list[ast.expr]:
    out = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.FunctionDef) and node.name in PROTECTED_FUNCS:
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return
        if isinstance(node, ast.expr) and not isinstance(getattr(node, "ctx", None), ast.Store):
            out.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def _subexpressions(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.Call):
        kids = list(node.args) + [k.value for k in node.keywords]
        if isinstance(node.func, ast.Attribute) and not isinstance(node.func.value, ast.Name):
            kids.append(node.func.value)  # x.sum() -> x
        return kids
    if isinstance(node, (ast.Lambda, ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
        return []  # their bodies read names bound only inside
    return [
        c
        for c in ast.iter_child_nodes(node)
        if isinstance(c, ast.expr) and not isinstance(getattr(c, "ctx", None), ast.Store)
    ]


def _replacements(node: ast.expr) -> list[ast.expr]:
    subs = _subexpressions(node)
    if isinstance(node, ast.Constant) and isinstance(node.value, float) and node.value != 1.0:
        subs.append(ast.Constant(1.0))
    if isinstance(node, ast.List) and len(node.elts) > 1:
        subs += [
            ast.List(elts=node.elts[:1], ctx=ast.Load()),
            ast.List(elts=node.elts[1:], ctx=ast.Load()),
        ]
    return subs


def _deletable(stmt: ast.stmt) -> bool:
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return False
    return not (isinstance(stmt, ast.FunctionDef) and stmt.name in PROTECTED_FUNCS | {"f"})


def _chunk_deletions(lists) -> Iterator[Callable[[ast.Module], bool]]:
    """Delete runs of statements (halves, quarters, ...) of the longer bodies
    first: one check can then remove what would take many single deletions."""
    for li, (node, field) in enumerate(lists):
        n = len(getattr(node, field))
        size = n // 2
        while size >= 2:
            for lo in range(n - size, -1, -size):

                def delete_run(t, li=li, lo=lo, size=size):
                    n_, fld = _stmt_lists(t)[li]
                    body = getattr(n_, fld)
                    keep = [s for s in body[lo : lo + size] if not _deletable(s)]
                    body[lo : lo + size] = keep
                    if not body:
                        body.append(ast.Pass())
                    return True

                yield delete_run
            size //= 2


def _edits(tree: ast.Module) -> Iterator[Callable[[ast.Module], bool]]:
    """Edits as functions applied to a fresh copy of `tree` (located by index
    in the same walk order, so each applies to the copy it is given)."""
    lists = _stmt_lists(tree)
    yield from _chunk_deletions(lists)
    for li in range(len(lists)):
        node, field = lists[li]
        for si in reversed(range(len(getattr(node, field)))):
            stmt = getattr(node, field)[si]
            if not _deletable(stmt):
                continue

            def delete(t, li=li, si=si):
                n, fld = _stmt_lists(t)[li]
                body = getattr(n, fld)
                del body[si]
                if not body and fld != "orelse":
                    body.append(ast.Pass())
                return True

            yield delete
            if isinstance(stmt, (ast.If, ast.For, ast.While)):
                for part in ("body", "orelse"):
                    if getattr(stmt, part):

                        def inline(t, li=li, si=si, part=part):
                            n, fld = _stmt_lists(t)[li]
                            body = getattr(n, fld)
                            body[si : si + 1] = getattr(body[si], part)
                            return True

                        yield inline
    yield from _family_edits(tree)
    n_exprs = len(_editable_exprs(tree))
    for ei in range(n_exprs):
        for ri in range(len(_replacements(_editable_exprs(tree)[ei]))):

            def hoist(t, ei=ei, ri=ri):
                target = _editable_exprs(t)[ei]
                new = _replacements(target)[ri]
                for parent in ast.walk(t):
                    for field, value in ast.iter_fields(parent):
                        if value is target:
                            setattr(parent, field, new)
                            return True
                        if isinstance(value, list) and any(v is target for v in value):
                            value[next(i for i, v in enumerate(value) if v is target)] = new
                            return True
                return False

            yield hoist


def _decorated(tree: ast.AST) -> list[ast.AST]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.decorator_list]


def _classes(tree: ast.AST) -> list[ast.ClassDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]


def _family_edits(tree: ast.Module) -> Iterator[Callable[[ast.Module], bool]]:
    """Edits for the families of fuzz/families.py: drop a decorator (@dataclass, frozen=,
    @property), a base class (`Scaled(Point)`) and the `else:` of a loop."""
    for di, node in enumerate(_decorated(tree)):
        for k in range(len(node.decorator_list)):

            def undecorate(t, di=di, k=k):
                del _decorated(t)[di].decorator_list[k]
                return True

            yield undecorate
    for ci, node in enumerate(_classes(tree)):
        if node.bases:

            def unbase(t, ci=ci):
                _classes(t)[ci].bases = []
                return True

            yield unbase
    loops = [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While)) and n.orelse]
    for li in range(len(loops)):

        def drop_else(t, li=li):
            [n for n in ast.walk(t) if isinstance(n, (ast.For, ast.While)) and n.orelse][li].orelse = []
            return True

        yield drop_else


def shrink(
    source: str,
    outcome: Outcome,
    classify: Callable[[str], Outcome],
    max_checks: int = 400,
    max_seconds: float = 120.0,
) -> tuple[str, int]:
    """The smallest program found that fails like `outcome`, and the number of
    programs tried."""
    best = ast.unparse(ast.parse(source))
    checks, start = 0, time.monotonic()
    tried: set[str] = set()  # programs already found not to fail the same way

    def same(candidate: str) -> bool:
        got = classify(candidate)
        return got.kind == outcome.kind and got.signature == outcome.signature

    # One pass walks the edits in order; after a kept edit it goes on from the
    # same position in the new program's edit list (restarting from the top
    # would retry every edit that already failed).  Passes repeat while they help.
    progress = True
    while progress:
        progress = False
        tree = ast.parse(best)
        edits = list(_edits(tree))
        position = 0
        while position < len(edits):
            if checks >= max_checks or time.monotonic() - start > max_seconds:
                return best, checks
            edit = edits[position]
            position += 1
            trial = copy.deepcopy(tree)
            try:
                if not edit(trial):
                    continue
                text = ast.unparse(ast.fix_missing_locations(trial))
            except (IndexError, AttributeError, TypeError, ValueError):
                continue
            if len(text) >= len(best) or text in tried:
                continue
            tried.add(text)
            checks += 1
            if same(text):
                best, progress = text, True
                tree = ast.parse(best)
                edits = list(_edits(tree))
                position -= 1
    return best, checks
