"""The compiler that forward mode (zp.jvp) runs under: reverse mode's, plus forward entries.

`ForwardCompiler.jvp_entry(fn, active, cells, kinds)` lowers fn (the lowered
IR is shared with reverse mode and cached per function object), runs the
forward transform (ad/forward/), generates and compiles the code, and caches
the result per function object, active parameters, active closure cells and
argument kinds.  An entry stays valid while the guards recorded when fn was
lowered hold, as reverse mode's entries do.  Another function object with the same code
and globals (a closure made again: the back function of every run of a pullback program,
which nested derivatives differentiate forward) reuses the compiled code with its own
closure cells, where the guards hold for them, as reverse mode's `Entry.rebound` does.  Being a `Compiler`, it also
builds the pullbacks that reverse mode inside forward mode needs (a Hessian
differentiates a compiled gradient forward: docs/how-it-works.md).

The forward dispatcher (calls/forward_dispatch.py) reaches this compiler only
through the Context (context.py), which zp.jvp sets.
"""

from __future__ import annotations

import copy
import types
import weakref

from .ad.forward import ForwardTransform
from .calls import forward_dispatched  # noqa: F401  (forward over run-time dispatched calls)
from .codegen.forward import generate_forward
from .codegen.generate import compile_generated
from .codegen.naming import function_name
from .collector_pause import collector_paused
from .compiler import Build, Compiler, _guards_hold, _show
from .frontend.lower_containers import defined_in_generated_code
from .transforms.dce import dce


class ForwardEntry:
    __slots__ = ("cell_names", "code", "fn", "guards", "source")

    def __init__(self, fn, guards, source, code, cell_names=None):
        self.fn = fn
        self.guards = guards
        self.source = source
        self.code = code
        self.cell_names = cell_names or {}  # id(cell of the user's function) -> its name

    def rebound(self, pyfn) -> ForwardEntry | None:
        """This entry for pyfn, another function object with the same code and globals: the
        compiled code with pyfn's own closure cells in place of the user cells it was built
        with.  None when a guard on one of the cells does not hold for pyfn's."""
        new_cells = dict(zip(pyfn.__code__.co_freevars, pyfn.__closure__ or ()))
        by_old = {old: new_cells.get(name) for old, name in self.cell_names.items()}
        if pyfn.__globals__ is not self.fn.__globals__ or not _guards_hold(self.guards, by_old):
            return None
        fn = self.fn
        closure = tuple(new_cells[self.cell_names[id(cell)]] if id(cell) in self.cell_names
                        else cell  # a helper the generated code binds
                        for cell in fn.__closure__ or ())
        new_fn = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, None, closure)
        for attr in ("_zp_source", "_zp_generated"):
            if hasattr(fn, attr):
                setattr(new_fn, attr, getattr(fn, attr))
        guards = [(kind, by_old.get(id(where), where) if kind == "cell" or
                   (kind in ("container", "plain") and name is None) else where, name, obj)
                  for kind, where, name, obj in self.guards]
        return ForwardEntry(new_fn, guards, self.source, self.code,
                            {id(cell): name for name, cell in new_cells.items()})

    def detached(self) -> ForwardEntry:
        """This entry with empty cells in place of the user cells it was built with: what
        `rebound` starts from, holding none of the values of the function it was built for.
        (A back function defined in generated code is made again by every run of its
        pullback, and its cells may hold a module-level list that a later gradient call
        claims, which must then be held by nothing else: runtime/outside_containers.py.)"""
        fn = self.fn
        empty = {id(cell): types.CellType() for cell in fn.__closure__ or ()
                 if id(cell) in self.cell_names}
        closure = tuple(empty.get(id(cell), cell) for cell in fn.__closure__ or ())
        new_fn = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, None, closure)
        new_fn._zp_source = fn._zp_source
        gen = new_fn._zp_generated = copy.copy(fn._zp_generated)  # (its binder names the cells)
        gen.binder = copy.copy(gen.binder)
        gen.binder.user_cells = {self.cell_names[old]: cell for old, cell in empty.items()}
        guards = [(kind, empty.get(id(where), where) if kind == "cell" or
                   (kind in ("container", "plain") and name is None) else where, name, obj)
                  for kind, where, name, obj in self.guards]
        return ForwardEntry(new_fn, guards, self.source, self.code,
                            {id(empty[old]): name for old, name in self.cell_names.items()
                             if old in empty})


class ForwardCompiler(Compiler):
    # its gradients are read again by forward mode (zp.hessian): plain list tapes, whose
    # append and pop have rules, rather than spilling ones
    spill_tapes = False

    def __init__(self):
        super().__init__()
        self.forward_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        # code object -> key -> an entry built for some function with that code
        self.forward_by_code: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def clear(self) -> None:
        with self._lock:
            super().clear()
            self.forward_cache.clear()
            self.forward_by_code.clear()

    def jvp_entry(self, fn, active: tuple, cells: tuple = (), kinds: tuple = (),
                  threads: tuple = ()):
        """The compiled forward-mode function of fn (see the module docstring); with threads,
        of its threaded variant, which also returns the arrays it writes into those
        parameters (runtime/forward_writes.py: argument_writes_jvp)."""
        return self.forward_entry(fn, active, cells, kinds, threads).fn

    def forward_entry(self, fn, active: tuple, cells: tuple = (), kinds: tuple = (),
                      threads: tuple = ()) -> ForwardEntry:
        key = (tuple(active), tuple(cells), tuple(kinds), tuple(threads))
        per_fn = self.forward_cache.get(fn)
        entry = per_fn.get(key) if per_fn is not None else None
        if entry is not None and entry.code is fn.__code__ and _guards_hold(entry.guards):
            return entry
        with self._lock:
            sibling = self.forward_by_code.get(fn.__code__, {}).get(key)
            entry = sibling.rebound(fn) if sibling is not None and sibling.code is fn.__code__ \
                else None
            if entry is not None:
                self.forward_cache.setdefault(fn, {})[key] = entry
                return entry
            with collector_paused():
                return self._build_forward(fn, active, cells, kinds, threads, key)

    def _build_forward(self, fn, active, cells, kinds, threads, key) -> ForwardEntry:
        """Transform, generate and compile fn's forward-mode function, and cache it under key
        (the caller holds the lock)."""
        ir = self.lowered_ir(fn, tuple(threads))
        build = Build(self)
        program = ForwardTransform(ir, active, cells, kinds, build.returns_array).run()
        dce(program)  # tangents of values nothing reads (a tuple of shapes' tangents)
        _show("jvp", program)
        base = function_name(ir.name) if ir.name != "lambda" else "lambda_"
        gen = generate_forward(program, fn, f"{base}_jvp")
        compiled = compile_generated(gen, fn)
        compiled.__defaults__ = None  # every parameter is passed (tangents follow the primals)
        compiled.__kwdefaults__ = None
        cell_names = {id(cell): name
                      for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ())}
        entry = ForwardEntry(compiled, list(ir.meta["guards"]), gen.text, fn.__code__,
                             cell_names)
        self.forward_cache.setdefault(fn, {})[key] = entry
        if defined_in_generated_code(fn):  # made again by every run: keep none of its cells
            self.forward_by_code.setdefault(fn.__code__, {})[key] = entry.detached()
            self.lowered.pop(fn, None)  # (its IR names fn itself: the cache would keep it)
        else:
            self.forward_by_code.setdefault(fn.__code__, {})[key] = entry
        return entry


FORWARD = ForwardCompiler()
