"""Release dead locals early: `del name` after the last statement that reads it.

A Python local lives until its function returns or the name is bound again.  In a
gradient's straight-line code that keeps every value alive to the end: each array of
the forward that the adjoint read long before, each cotangent the adjoint has finished
with, each pullback closure (and the forward arrays it holds) already called.  The
gradient's peak memory is then the sum of all of them; glibc hands those pages back to
the OS when the call ends and takes a page fault for each again at the next call (an
elementwise gradient of 10^6 entries faulted in 27 MB a call for three arrays the
adjoint needed only the shapes of).  Freed at their last read, the same memory serves
the next allocations of the same call.

`release_dead_locals(text)` edits the text of a generated function (and of a pullback
closure defined in it): after each top-level statement it adds `del` for the names whose
last reader that statement is.  A name qualifies only where the answer cannot depend on
control flow: bound exactly once in the whole function, by a top-level assignment; not a
parameter; never read by a nested function or comprehension (a closure would keep or
miss it); and its last reader is not the final `return` (nothing is gained there).  A
name read inside a loop or branch of a top-level statement is released after that whole
statement.  Nothing else changes: the statements and their order stay as they were.

Only for code the reverse compiler builds to run (where codegen/fuse.py also applies):
forward mode's compiled gradients, which zygote_py reads again, keep the plain text.
"""

from __future__ import annotations

import ast
import functools
import re

# Names not worth a line: saved shapes (adjoint.py: fetch_shape), a few bytes each, and
# zygote_py's own flags and tapes (`_zp_spills`, `_zp_tape`: emptied by the adjoint);
# pullbacks (`_zp_back`, holding the forward arrays of their callee) are released.
_SHAPE_NAME = re.compile(r".*_shape(_\d+)?")

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
           ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)


def release_dead_locals(text: str, keep: frozenset = frozenset()) -> str:
    """text (one generated `def`) with `del` statements after the last reads of its locals,
    except the names in keep (numbers, where the line would gain nothing)."""
    tree = ast.parse(text)
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
        return text
    lines = text.splitlines()
    inserts: dict[int, list[str]] = {}  # line number (1-based) -> lines to add after it
    fn = tree.body[0]
    _plan(fn, inserts, keep)
    for stmt in fn.body:  # the pullback form's closure: its own locals
        if isinstance(stmt, ast.FunctionDef):
            _plan(stmt, inserts, keep)
    if not inserts:
        return text
    out = []
    for number, line in enumerate(lines, 1):
        out.append(line)
        out.extend(inserts.get(number, ()))
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def _plan(fn: ast.FunctionDef, inserts: dict[int, list[str]], keep: frozenset) -> None:
    """Add to inserts the `del` lines for fn's own body."""
    body = fn.body
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    params.update(a.arg for a in (fn.args.vararg, fn.args.kwarg) if a is not None)
    excluded = set(params)
    stores: dict[str, int] = {}
    simple_store: dict[str, int] = {}  # name -> index of the top-level assignment binding it
    last_read: dict[str, int] = {}
    for index, stmt in enumerate(body):
        if isinstance(stmt, ast.Assign) and all(_plain_targets(t) for t in stmt.targets):
            for target in stmt.targets:
                for name in _target_names(target):
                    simple_store[name] = index
        for node in _walk_own_scope(stmt, excluded):
            kind = type(node)
            if kind is ast.Name:
                if type(node.ctx) is ast.Load:
                    last_read[node.id] = index
                else:  # Store or Del
                    stores[node.id] = stores.get(node.id, 0) + 1
            elif kind is ast.Global or kind is ast.Nonlocal:
                excluded.update(node.names)
            elif kind is ast.ExceptHandler and node.name:
                excluded.add(node.name)  # bound without a Name node
            elif kind is ast.alias:
                excluded.add((node.asname or node.name).split(".")[0])
    final_return = len(body) - 1 if body and isinstance(body[-1], ast.Return) else len(body)
    releases: dict[int, list[str]] = {}
    for name, index in simple_store.items():
        last = last_read.get(name)
        if name in excluded or name in keep or _SHAPE_NAME.fullmatch(name) \
                or name.startswith("_zp_") and not name.startswith("_zp_back") \
                or stores.get(name) != 1 or last is None or last <= index \
                or last >= final_return or all(isinstance(s, ast.Return) for s in body[last + 1:]):
            continue  # (released just before the return: nothing gained)
        releases.setdefault(last, []).append(name)
    for index, names in releases.items():
        stmt = body[index]
        indent = " " * stmt.col_offset
        inserts.setdefault(stmt.end_lineno, []).append(f"{indent}del {', '.join(sorted(names))}")


def _plain_targets(target: ast.expr) -> bool:
    if isinstance(target, ast.Name):
        return True
    return isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts)


def _target_names(target: ast.expr) -> list[str]:
    return [target.id] if isinstance(target, ast.Name) else [e.id for e in target.elts]


def _walk_own_scope(node: ast.AST, excluded: set[str]):
    """The nodes of node that run in the function's own scope; every name a nested scope
    mentions (a closure, a comprehension) goes into excluded instead.  Expression contexts,
    operators and constants hold no name and are not visited (a walk with
    ast.iter_child_nodes spends most of its time on them)."""
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind in _SCOPE_TYPES:
            if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
                excluded.add(current.name)  # the def binds its name here
            excluded.update(_names_in(current))
            continue
        yield current
        if kind is not ast.Name:
            _push_children(current, stack)


_SCOPE_TYPES = frozenset(_SCOPES)


def _names_in(node: ast.AST):
    """The ids of every Name node in node, nested scopes included."""
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is ast.Name:
            yield current.id
        else:
            _push_children(current, stack)


def _push_children(node: ast.AST, stack: list) -> None:
    """Put node's child nodes that can hold a name on stack (in ast.iter_child_nodes' order)."""
    for field in node._fields:
        child = getattr(node, field, None)
        if type(child) is list:
            stack.extend(item for item in child if _holds_names(type(item)))
        elif _holds_names(type(child)):
            stack.append(child)


@functools.cache
def _holds_names(kind: type) -> bool:
    """Whether a child of this type is visited: an AST node other than an expression
    context, an operator or a constant (none of which can hold a name)."""
    return issubclass(kind, ast.AST) and not issubclass(
        kind, (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop, ast.Constant))
