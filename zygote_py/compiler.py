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
import weakref

from .ad.reverse import ReverseTransform
from .codegen.generate import compile_generated, generate
from .errors import SourceLoc, UnsupportedSyntax
from .frontend.lower import lower_function
from .frontend.lower_expr import _MISSING
from .ir.clone import clone_block
from .ir.core import Function
from .ir.verify import verify
from .passes.simplify import simplify
from .runtime import check_scalar


class Entry:
    """A compiled function with the guards it depends on and its source text."""

    __slots__ = ("code", "fn", "guards", "program", "source")

    def __init__(self, fn, guards, source, code):
        self.fn = fn
        self.guards = guards
        self.source = source
        self.code = code

    def valid(self, code) -> bool:
        return code is self.code and _guards_hold(self.guards)


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
        self.in_progress: dict = {}
        self.verify = False  # tests switch this on: the verifier runs after every pass
        # guards of the entries being built (innermost last); callees add theirs to the caller's
        self._guards_stack: list[list] = []

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
    def entry(self, fn, active: tuple, mode: str, cells: tuple = (), scalars: tuple = ()) -> Entry:
        """The compiled form of fn for these active parameters (and active closure
        cells, whose cotangents the pullback returns last, as a dict), specialised
        on which arguments are plain scalars."""
        per_fn = self.cache.get(fn)
        key = (active, mode, cells, scalars)
        if per_fn is not None:
            entry = per_fn.get(key)
            if entry is not None and entry.valid(fn.__code__):
                return entry
        entry = self._build(fn, active, mode, cells, scalars)
        self.cache.setdefault(fn, {})[key] = entry
        return entry

    def _build(self, fn, active: tuple, mode: str, cells: tuple = (), scalars: tuple = ()) -> Entry:
        ir = self.fresh_ir(fn)
        if len(active) != len(ir.params):
            active = tuple(active) + (False,) * (len(ir.params) - len(active))
        guards = list(ir.meta["guards"])
        self._guards_stack.append(guards)
        try:
            program = ReverseTransform(ir, list(active), self, cells, scalars).run()
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
        entry = Entry(compiled, guards, gen.text, fn.__code__)
        entry.program = program
        return entry

    def pullback_for(self, fn, active: tuple):
        """The pullback of a user function called from transformed code."""
        key = (fn, active)
        if key in self.in_progress:
            return self.in_progress[key]
        late = _LateBound(f"{fn.__name__}_pullback")
        self.in_progress[key] = late
        try:
            entry = self.entry(fn, active, "pullback")
        finally:
            del self.in_progress[key]
        late.impl = entry.fn
        if self._guards_stack:
            self._guards_stack[-1].extend(entry.guards)
        return entry.fn

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


def _guards_hold(guards) -> bool:
    for kind, where, name, obj in guards:
        if kind == "global":
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
