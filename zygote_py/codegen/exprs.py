"""Building Python expressions (stdlib `ast`) for IR values and static objects.

Operators print infix (`a * b`, `x[1:3]`, `not c`), calls print as the user
wrote them (`np.sin(x)`), and objects the user's namespace cannot name are
bound to closure variables (`_zp_unbroadcast`).
"""

from __future__ import annotations

import ast
import builtins
import operator
import types

from ..ir.intrinsics import lookup as lookup_intrinsic
from ..runtime.helpers import strong_zero

_BINOPS = {operator.add: ast.Add, operator.sub: ast.Sub, operator.mul: ast.Mult,
           operator.truediv: ast.Div, operator.floordiv: ast.FloorDiv, operator.mod: ast.Mod,
           operator.pow: ast.Pow, operator.matmul: ast.MatMult, operator.lshift: ast.LShift,
           operator.rshift: ast.RShift, operator.or_: ast.BitOr, operator.xor: ast.BitXor,
           operator.and_: ast.BitAnd}
_CMPOPS = {operator.lt: ast.Lt, operator.le: ast.LtE, operator.gt: ast.Gt, operator.ge: ast.GtE,
           operator.eq: ast.Eq, operator.ne: ast.NotEq, operator.is_: ast.Is,
           operator.is_not: ast.IsNot}
_UNARY = {operator.neg: ast.USub, operator.pos: ast.UAdd, operator.not_: ast.Not,
          operator.invert: ast.Invert}
_PLAIN = (bool, int, float, complex, str, bytes, type(None), type(Ellipsis))

_MISSING = object()


class Binder:
    """Names for objects in generated code: the user's own expression when it still
    evaluates to the same object, else a closure variable bound to the object."""

    def __init__(self, user_globals: dict, user_cells: dict):
        self.user_globals = user_globals
        self.user_cells = user_cells  # name -> cell of the user's function
        self.bound: dict[str, object] = {}
        self.by_id: dict[int, str] = {}
        self.roots: set[str] = set()
        # the generated function's own local names (the Emitter shares its Names' set):
        # a closure variable of the same name would be hidden by the local
        self.local_names: set[str] = set()

    def _resolve(self, expr: str):
        parts = expr.split(".")
        root = parts[0]
        if root in self.user_cells:
            try:
                obj = self.user_cells[root].cell_contents
            except ValueError:
                return _MISSING
        elif root in self.user_globals:
            obj = self.user_globals[root]
        elif hasattr(builtins, root):
            obj = getattr(builtins, root)
        else:
            return _MISSING
        for part in parts[1:]:
            obj = getattr(obj, part, _MISSING)
            if obj is _MISSING:
                return _MISSING
        return obj

    def expr_for(self, obj, preferred: str | None) -> ast.expr:
        if preferred and _is_dotted(preferred) and preferred.split(".")[0] not in self.local_names \
                and self._resolve(preferred) is obj:  # (a local of that name would hide it)
            root, *attributes = preferred.split(".")
            self.roots.add(root)
            node = ast.Name(root, ast.Load())  # (what ast.parse would give, without parsing)
            for attribute in attributes:
                node = ast.Attribute(node, attribute, ast.Load())
            return node
        return ast.Name(self.bind(obj, preferred), ast.Load())

    def bind(self, obj, preferred: str | None = None) -> str:
        name = self.by_id.get(id(obj))
        if name is not None:
            return name
        base = (preferred or getattr(obj, "__name__", None) or type(obj).__name__).split(".")[-1]
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in base).strip("_") or "obj"
        base = "_zp_" + base.removeprefix("zp_")
        name, n = base, 1
        while self._taken(name):
            n += 1
            name = f"{base}_{n}"
        self.bound[name] = obj
        self.by_id[id(obj)] = name
        return name


    def _taken(self, name: str) -> bool:
        """Whether name already means something in the generated code: an object bound
        here, or a closure cell or global of the user's function (read by its own name).
        Binding such a name would shadow the user's object for every read of it -- as
        when the function differentiated is itself generated code, whose cells are named
        `_zp_h0_pullback`, `_zp_h0_pullback_2`, ... like the objects bound here -- or a
        local of the generated function (`_zp_back`), which would hide it."""
        return name in self.bound or name in self.user_cells or name in self.user_globals \
            or name in self.roots or name in self.local_names


def _is_dotted(text: str) -> bool:
    return all(part.isidentifier() for part in text.split("."))


def constant_expr(value, binder: Binder, in_subscript: bool = False) -> ast.expr:
    if isinstance(value, _PLAIN):
        return ast.Constant(value)
    if isinstance(value, slice):
        parts = [None if p is None else constant_expr(p, binder) for p in (value.start, value.stop, value.step)]
        if in_subscript:
            return ast.Slice(*parts)
        return ast.Call(ast.Name("slice", ast.Load()),
                        [p if p is not None else ast.Constant(None) for p in parts], [])
    if isinstance(value, tuple) and all(isinstance(v, (*_PLAIN, slice, tuple)) for v in value):
        return ast.Tuple([constant_expr(v, binder, in_subscript) for v in value], ast.Load())
    if isinstance(value, types.ModuleType):
        return binder.expr_for(value, value.__name__.split(".")[-1] if value.__name__ == "numpy" else None)
    return binder.expr_for(value, None)


def call_expr(fn, expr_hint, args: list[ast.expr], kw: tuple, star: tuple, binder: Binder) -> ast.expr:
    """`a + b`, `x[i]`, `not c` for operators; `f(a, *b, k=c)` otherwise."""
    if not kw and not star:
        if fn in _BINOPS and len(args) == 2:
            return ast.BinOp(args[0], _BINOPS[fn](), args[1])
        if fn in _CMPOPS and len(args) == 2:
            return ast.Compare(args[0], [_CMPOPS[fn]()], [args[1]])
        if fn in _UNARY and len(args) == 1:
            return ast.UnaryOp(_UNARY[fn](), args[0])
        if fn is operator.getitem and len(args) == 2:
            return ast.Subscript(args[0], args[1], ast.Load())
        if fn is operator.contains and len(args) == 2:
            return ast.Compare(args[1], [ast.In()], [args[0]])
        intrinsic = lookup_intrinsic(fn)
        if intrinsic is not None and intrinsic.python_syntax == "or" and len(args) == 2:
            return ast.BoolOp(ast.Or(), args)
        if intrinsic is not None and intrinsic.python_syntax == "strong_zero" and len(args) == 3 \
                and isinstance(args[0], ast.Name):
            # `r if g else strong_zero(g, r)`: only a zero cotangent calls the helper
            general = binder.expr_for(strong_zero, "_zp_strong_zero")
            return ast.IfExp(args[0], args[1], ast.Call(general, [args[0], args[1]], []))
    func = binder.expr_for(fn, expr_hint)
    return ast.Call(func, *split_arguments(args, kw, star))


def split_arguments(args, kw, star):
    npos = len(args) - len(kw)
    positional = [ast.Starred(a, ast.Load()) if i in star else a for i, a in enumerate(args[:npos])]
    keywords = [ast.keyword(k, a) for k, a in zip(kw, args[npos:])]
    return positional, keywords


def names_read(expr: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
