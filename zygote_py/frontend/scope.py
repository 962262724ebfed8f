"""Name resolution: which names of a function are parameters, locals, cells or globals.

Python decides a name's scope statically: a name bound anywhere in a function
body is local to it.  Comprehensions and nested functions have scopes of their
own, so their bindings are not the enclosing function's locals.  Reads of any
other name go to the closure cell of that name if the function has one, else
to the module's globals, else to builtins.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

import gast

_SCOPE_NODES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef,
                gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)

# Nodes that can bind no name: expression contexts, operators, constants.
_NAMELESS = (gast.expr_context, gast.operator, gast.unaryop, gast.cmpop, gast.boolop, gast.Constant)


def _binding_children(node) -> list:
    """node's child nodes, as gast.iter_child_nodes gives them, less those that can bind no
    name (about two in five of a function's nodes: every Name has its context)."""
    children = []
    for field in node._fields:
        value = getattr(node, field, None)
        if type(value) is list:
            children.extend([item for item in value
                             if isinstance(item, gast.AST) and not isinstance(item, _NAMELESS)])
        elif isinstance(value, gast.AST) and not isinstance(value, _NAMELESS):
            children.append(value)
    return children


@dataclass
class Signature:
    """A def's or lambda's parameters in Python's order, with default expressions."""

    posonly: list[str]
    args: list[str]
    vararg: str | None
    kwonly: list[str]
    kwarg: str | None
    defaults: list[gast.expr]  # for the last len(defaults) of posonly + args
    kw_defaults: list[gast.expr | None]

    @property
    def names(self) -> list[str]:
        names = [*self.posonly, *self.args]
        if self.vararg:
            names.append(self.vararg)
        names += self.kwonly
        if self.kwarg:
            names.append(self.kwarg)
        return names

    @property
    def positional(self) -> list[str]:
        return [*self.posonly, *self.args]


def signature_of(node) -> Signature:
    a = node.args
    return Signature(
        posonly=[x.id for x in a.posonlyargs],
        args=[x.id for x in a.args],
        vararg=a.vararg.id if a.vararg else None,
        kwonly=[x.id for x in a.kwonlyargs],
        kwarg=a.kwarg.id if a.kwarg else None,
        defaults=list(a.defaults),
        kw_defaults=list(a.kw_defaults),
    )


def _store_names(target, out: list[str]) -> None:
    if isinstance(target, gast.Name):
        out.append(target.id)
    elif isinstance(target, (gast.Tuple, gast.List)):
        for elt in target.elts:
            _store_names(elt, out)
    elif isinstance(target, gast.Starred):
        _store_names(target.value, out)


def comprehension_walrus_targets(node) -> list[str]:
    """The names `:=` binds inside a comprehension (at any depth of comprehensions in it):
    Python binds them in the scope that contains the comprehension (PEP 572).  A lambda or
    def inside has a scope of its own."""
    found: list[str] = []

    def walk(inner):
        if isinstance(inner, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)):
            return
        if isinstance(inner, gast.NamedExpr):
            _store_names(inner.target, found)
        for child in _binding_children(inner):
            walk(child)

    for child in _binding_children(node):
        walk(child)
    return found


def bound_names(stmts, include_updates: bool = False) -> list[str]:
    """Names a statement list binds in its own scope, in first-binding order.

    With include_updates, in-place container updates on a name count too
    (`hs.append(h)`, `d[k] = v`): the compiler gives the updated container a
    new SSA version, so for carrying values around loops they are bindings;
    for Python's scoping they are not (`RAN.append(x)` reads a global RAN).
    """
    out: list[str] = []

    def visit(node):
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            out.append(node.name)
            return
        if isinstance(node, gast.Lambda):
            return  # its own scope
        if isinstance(node, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
            out.extend(comprehension_walrus_targets(node))  # their own scopes but for `:=`
            return
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            out.append(node.id)
        if isinstance(node, (gast.Import, gast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    out.append(alias.asname or (alias.name.split(".")[0]
                                                if isinstance(node, gast.Import) else alias.name))
        if include_updates and isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute):
            if node.func.attr in ("append", "extend") and isinstance(node.func.value, gast.Name):
                out.append(node.func.value.id)
        if include_updates and isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Store):
            if isinstance(node.value, gast.Name):
                out.append(node.value.id)
        for child in _binding_children(node):
            visit(child)

    for stmt in stmts:
        visit(stmt)
    seen: dict[str, None] = {}
    for name in out:
        seen.setdefault(name, None)
    return list(seen)


def function_locals(node) -> set[str]:
    """The local names of a def or lambda: its parameters and everything bound in its body."""
    names = set(signature_of(node).names)
    body = node.body if isinstance(node.body, list) else []
    names.update(bound_names(body))
    return names


_BUILTINS = vars(builtins)


def resolve_free(name: str, fn) -> tuple[str, object]:
    """Classify a free name of Python function `fn`: ('cell', cell), ('global', dict), ('builtin', obj)."""
    code = fn.__code__
    if name in code.co_freevars and fn.__closure__ is not None:
        return "cell", fn.__closure__[code.co_freevars.index(name)]
    if name in fn.__globals__:
        return "global", fn.__globals__
    if name in _BUILTINS:
        return "builtin", _BUILTINS[name]
    return "global", fn.__globals__  # a NameError at run time, exactly as in Python
