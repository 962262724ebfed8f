"""The pipeline driver and its cache.

`Compiler.entry(fn, active, mode)` runs frontend -> lower -> simplify ->
reverse transform -> codegen -> compile once per function object, set of
active parameters and form ('grad' or 'pullback'), and caches the result.
A cached entry stays valid while the guards recorded during lowering hold:
each global, builtin or closure cell that was resolved to a function or
module at transform time must still hold the same object.  So redefining a
function (a new object) or rebinding a global callee takes effect on the next
call, and a repeated gradient parses and compiles nothing.
"""

from __future__ import annotations

import inspect
import types
import weakref

from .ad.implicit import holds_current_parameter, namespace_get
from .ad.reverse import ReverseTransform
from .codegen.generate import compile_generated, generate
from .errors import SourceLoc, UnsupportedSyntax
from .frontend.lower import lower_function
from .frontend.lower_expr import _MISSING
from .ir.clone import clone_block
from .ir.core import Function
from .ir.verify import verify
from .transforms.simplify import simplify
from .runtime.helpers import check_scalar


class Entry:
    """A compiled function with the guards it depends on and its source text."""

    __slots__ = ("cell_names", "code", "fn", "guards", "program", "source")

    def __init__(self, fn, guards, source, code, cell_names=None):
        self.fn = fn
        self.guards = guards
        self.source = source
        self.code = code
        self.cell_names = cell_names or {}  # id(cell of the user's function) -> its name
        self.program = None

    def valid(self, code) -> bool:
        return code is self.code and _guards_hold(self.guards)

    def rebound(self, pyfn) -> Entry | None:
        """This entry for pyfn, another function object with the same code and globals
        (a lambda made again, say): the compiled code with pyfn's own closure cells.
        None when a guard on one of the cells does not hold for pyfn's."""
        new_cells = dict(zip(pyfn.__code__.co_freevars, pyfn.__closure__ or ()))
        by_old = {old: new_cells.get(name) for old, name in self.cell_names.items()}
        if pyfn.__globals__ is not self.fn.__globals__ or not _guards_hold(self.guards, by_old):
            return None
        fn = self.fn
        closure = tuple(new_cells[name] if name in new_cells else cell
                        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        new_fn = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, pyfn.__defaults__, closure)
        new_fn.__kwdefaults__ = pyfn.__kwdefaults__
        for attr in ("_zp_source", "_zp_generated"):
            if hasattr(fn, attr):
                setattr(new_fn, attr, getattr(fn, attr))
        cell_names = {id(cell): name for name, cell in new_cells.items()}
        entry = Entry(new_fn, self.guards_for(by_old), self.source, self.code, cell_names)
        entry.program = self.program
        return entry

    def guards_for(self, by_old: dict) -> list:
        """The guards, with cells of the old function replaced by the new one's."""
        return [(kind, by_old.get(id(where), where) if kind == "cell" else where, name, obj)
                for kind, where, name, obj in self.guards]


class _LateBound:
    """Stands in for a pullback still being compiled (a recursive call)."""

    def __init__(self, name):
        self.impl = None
        self.__name__ = name

    def __call__(self, *args, **kwargs):
        return self.impl(*args, **kwargs)


class Compiler:
    def __init__(self):
        self.cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.lowered: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        # the latest entries per code object: a new function object with the same code
        # (a lambda made in a loop) reuses them with its own cells, compiling nothing
        self.by_code: dict = {}
        self.in_progress: dict = {}
        self.verify = False  # tests switch this on: the verifier runs after every pass
        # guards of the entries being built (innermost last); callees add theirs to the caller's
        self._guards_stack: list[list] = []

    def clear(self) -> None:
        """Forget every compiled entry (a new custom rule changes what callers inline)."""
        self.cache.clear()
        self.by_code.clear()

    # -- front half, cached per function object --------------------------------
    def lowered_ir(self, fn) -> Function:
        cached = self.lowered.get(fn)
        if cached is not None and cached[0] is fn.__code__:
            ir = cached[1]
            if _guards_hold(ir.meta["guards"]):
                return ir
        ir = lower_function(fn)
        if self.verify:
            verify(ir)
        simplify(ir)
        if self.verify:
            verify(ir)
        self.lowered[fn] = (fn.__code__, ir)
        return ir

    def fresh_ir(self, fn) -> Function:
        """A private copy of the lowered IR (the reverse transform edits it in place)."""
        ir = self.lowered_ir(fn)
        vmap: dict = {}
        body = clone_block(ir.body, vmap)
        copy = Function(ir.name, list(body.args), body, ir.loc, ir.signature, dict(ir.meta))
        return copy

    # -- entries ------------------------------------------------------------------
    def entry(self, fn, active: tuple, mode: str, cells: tuple = (), scalars: tuple = (),
              implicit: bool = False) -> Entry:
        """The compiled form of fn for these active parameters (and active closure
        cells, whose cotangents the pullback returns last, as a dict), specialised
        on which arguments are plain scalars.  The implicit variant also
        differentiates reads of globals (see ad/implicit.py)."""
        per_fn = self.cache.get(fn)
        key = (active, mode, cells, scalars, implicit)
        if per_fn is not None:
            entry = per_fn.get(key)
            if entry is not None and entry.valid(fn.__code__):
                return entry
        sibling = self.by_code.get(fn.__code__, {}).get(key)
        entry = sibling.rebound(fn) if sibling is not None else None
        if entry is None:
            entry = self._build(fn, active, mode, cells, scalars, implicit)
        self.cache.setdefault(fn, {})[key] = entry
        self.by_code.setdefault(fn.__code__, {})[key] = entry
        return entry

    def _build(self, fn, active: tuple, mode: str, cells: tuple = (), scalars: tuple = (),
               implicit: bool = False) -> Entry:
        ir = self.fresh_ir(fn)
        if len(active) != len(ir.params):
            active = tuple(active) + (False,) * (len(ir.params) - len(active))
        guards = list(ir.meta["guards"])
        self._guards_stack.append(guards)
        try:
            implicit_globals = fn.__globals__ if implicit else None
            program = ReverseTransform(ir, list(active), self, cells, scalars, implicit_globals).run()
        finally:
            self._guards_stack.pop()
        back_fn = Function("back", list(program.backward.args), program.backward)
        simplify(back_fn)
        if self.verify:
            verify(program.forward)
        base = ir.name if ir.name != "lambda" else "lambda_"
        name = f"{base}_grad" if mode == "grad" else f"{base}_pullback"
        returned = program.forward.body.ops[-1].operands[0].defining_op
        return_loc = (returned.loc if returned is not None else None) or ir.loc
        gen = generate(program, fn, mode, name, check_scalar, return_loc)
        compiled = compile_generated(gen, fn)
        cell_names = {id(cell): name for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ())}
        entry = Entry(compiled, guards, gen.text, fn.__code__, cell_names)
        entry.program = program
        return entry

    def pullback_for(self, fn, active: tuple, implicit: bool = False, kinds: tuple = ()):
        """The pullback of a user function called from transformed code (kinds: what the
        caller knows of each argument, as `kinds.scalar_kinds` would say)."""
        key = (fn, active, implicit, kinds)
        if key in self.in_progress:
            return self.in_progress[key]
        late = _LateBound(f"{fn.__name__}_pullback")
        self.in_progress[key] = late
        try:
            entry = self.entry(fn, active, "pullback", (), kinds, implicit=implicit)
        finally:
            del self.in_progress[key]
        late.impl = entry.fn
        if self._guards_stack:
            self._guards_stack[-1].extend(entry.guards)
        return entry.fn

    def add_guards(self, guards) -> None:
        """Guards found by the reverse transform, for the entry being built."""
        if self._guards_stack:
            self._guards_stack[-1].extend(guards)

    def bind_params(self, fn, op, loc: SourceLoc | None):
        """For each parameter of fn, the indices of the call operands bound to it."""
        sig = inspect.signature(fn)
        kw = op.attrs.get("kw", ())
        npos = len(op.operands) - len(kw)
        try:
            bound = sig.bind(*range(npos), **{k: npos + i for i, k in enumerate(kw)})
        except TypeError as err:
            raise UnsupportedSyntax(f"this call does not match {fn.__name__}{sig}: {err}", loc,
                                    "check the arguments of the call") from None
        out = []
        for name, param in sig.parameters.items():
            value = bound.arguments.get(name)
            if value is None:
                out.append([])
            elif param.kind == param.VAR_POSITIONAL:
                out.append(list(value))
            elif param.kind == param.VAR_KEYWORD:
                out.append(list(value.values()))
            else:
                out.append([value])
        return out


def _guards_hold(guards, cells: dict | None = None) -> bool:
    """Whether every guard holds (with cells, a map id(cell) -> cell to check instead)."""
    for kind, where, name, obj in guards:
        if cells and kind == "cell":
            where = cells.get(id(where), where)
            if where is None:
                return False
        if kind == "holds":  # an implicit variant: whether a global holds parameters
            if holds_current_parameter(namespace_get(where, name)) is not obj:
                return False
        elif kind == "global":
            if where.get(name, _MISSING) is not obj:
                return False
        else:
            try:
                if where.cell_contents is not obj:
                    return False
            except ValueError:
                return False
    return True


COMPILER = Compiler()
