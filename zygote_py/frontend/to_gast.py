"""Converting a standard `ast` subtree to gast, as gast.ast_to_gast does, in 60% of its time.

Every function the compiler reads, the user's and each derivative rule's, is parsed with
`ast` and converted to gast (frontend/source.py); gast's converter dispatches each node
through a NodeTransformer, looks its class up by name and builds it from a dict of keyword
arguments, which made it a fifth of the time taken to lower a rule.  This converter makes
the same tree: for each `ast` class, once, it looks up the gast class and the fields to
convert, and then makes each node with `__new__` and the parsed node's own attribute dict
(copied, its fields' nodes and lists converted), without a constructor call.

What it copies is what gast's own converter copies, node for node: the `ast` node's fields
(converted) and its location attributes.  The exceptions are the classes gast's converter
has a method of its own for.  Those are reproduced here for the installed Python (a
parameter `arg` becomes a `Name` with the `Param` context; `Name` gains `annotation` and
`type_comment`; a named `except` clause's name becomes a `Name`; before 3.12 a def or
class gains empty `type_params`).  Any other class with a method of its own (the type
parameters of 3.12) is handed to gast's converter whole.

tests/frontend/test_to_gast.py checks that both converters give equal trees, location
attributes included, for a sample of every syntax form, zygote_py's rule modules and
standard-library modules (and, once, for the 282,306 defs, classes and lambdas of the
standard library, NumPy and zygote_py).  Where the installed gast is not 0.7, the version
this was checked against (0.5 and 0.6 leave `type_params` out differently), gast's own
converter is used.
"""

from __future__ import annotations

import ast

import gast
from gast.ast3 import Ast3ToGAst

# Classes whose conversion this module writes out itself (the rest, generically).
_OWN = frozenset({"Name", "arg", "ExceptHandler", "FunctionDef", "AsyncFunctionDef", "ClassDef"})


def _gast_version_checked() -> bool:
    """Whether the installed gast is a version this converter was checked against (read
    from gast's own version module: importlib.metadata would take tens of milliseconds)."""
    try:
        from gast.version import __version__

        major, minor = (int(part) for part in __version__.split(".")[:2])
    except (ImportError, ValueError):  # (no version module, or an unusual version string)
        return False
    return (major, minor) == (0, 7)


def _plan(kind: type):
    """How to convert nodes of this `ast` class: (gast class or None, fields, attributes),
    or a function to call on the node."""
    name = kind.__name__
    if name not in _OWN and hasattr(Ast3ToGAst, "visit_" + name):
        return gast.ast_to_gast  # gast converts this one its own way: let it
    target = getattr(gast, name, None)
    return target, kind._fields, kind._attributes


class _Converter:
    """One conversion: the plan per class (looked up once) and the conversion itself."""

    def __init__(self):
        self.plans: dict[type, object] = {}

    def convert(self, node):
        kind = type(node)
        plan = self.plans.get(kind)
        if plan is None:
            plan = self.plans[kind] = _plan(kind)
        if type(plan) is not tuple:
            return plan(node)
        target, fields, _ = plan
        if kind.__name__ in _OWN:
            return self._own(node, kind.__name__, target, fields)
        if target is None:  # not part of gast's tree (gast drops it too)
            return None
        # a parsed node's __dict__ holds its fields and location attributes, which are
        # what gast copies: taken whole, with the fields' nodes and lists converted
        values = dict(node.__dict__)
        for field in fields:
            value = values.get(field)
            if type(value) is list:
                values[field] = self.items(value)
            elif isinstance(value, ast.AST):
                values[field] = self.convert(value)
        new = target.__new__(target)
        new.__dict__ = values
        return new

    def items(self, values: list) -> list:
        return [self.convert(item) if isinstance(item, ast.AST)
                else self.items(item) if type(item) is list else item for item in values]

    def value(self, value):
        if isinstance(value, ast.AST):
            return self.convert(value)
        if type(value) is list:
            return self.items(value)
        return value

    def _own(self, node, name, target, fields):
        # (nodes made with __new__ and their __dict__: gast's constructor, a Python
        # function, costs four times as much, and a Name is every other node)
        if name == "Name":
            values = {"id": node.id, "ctx": self.convert(node.ctx), "annotation": None,
                      "type_comment": None}
            target = _GAST_NAME
        elif name == "arg":
            values = {"id": node.arg, "ctx": _GAST_PARAM.__new__(_GAST_PARAM),
                      "annotation": self.value(node.annotation),
                      "type_comment": self.value(node.type_comment)}
            target = _GAST_NAME
        elif name == "ExceptHandler" and node.name:
            named = _GAST_NAME.__new__(_GAST_NAME)
            named.__dict__ = {"id": node.name, "ctx": _GAST_STORE.__new__(_GAST_STORE),
                              "annotation": None, "type_comment": None}
            values = {"type": self.value(node.type), "name": named, "body": self.value(node.body)}
        else:  # a def or class, or an unnamed except clause: its fields as they are
            values = {field: self.value(getattr(node, field)) for field in fields
                      if hasattr(node, field)}
            if "type_params" in target._fields and not hasattr(node, "type_params"):
                values["type_params"] = []  # (before 3.12; gast's defs and classes have them)
        for attribute in type(node)._attributes:
            if hasattr(node, attribute):
                values[attribute] = getattr(node, attribute)
        new = target.__new__(target)
        new.__dict__ = values
        return new


_GAST_NAME, _GAST_PARAM, _GAST_STORE = gast.Name, gast.Param, gast.Store


_CHECKED = _gast_version_checked()


def to_gast(node: ast.AST) -> gast.AST:
    """The gast tree of an `ast` subtree, equal to gast.ast_to_gast(node)."""
    if not _CHECKED:
        return gast.ast_to_gast(node)
    return _Converter().convert(node)
