"""The pipeline driver and its cache.

`Compiler.entry(fn, active, mode)` runs frontend -> lower -> simplify ->
reverse transform -> codegen -> compile once per function object, set of
active parameters and form ('grad' or 'pullback'), and caches the result.
A cached entry stays valid while the guards recorded during lowering hold:
each global, builtin or closure cell that was resolved to a function or
module at transform time must still hold the same object.  So redefining a
function (a new object) or rebinding a global callee takes effect on the next
call, and a repeated gradient parses and compiles nothing.

Threads share one Compiler and its cache.  A lookup that hits takes no lock
(reading a dict is atomic in CPython, and a cached Entry never changes); a
miss builds under the compiler's re-entrant lock, so one build at a time
fills the cache.  What a build needs while it runs -- the guards it collects
and the pullbacks of recursive callees still being compiled -- lives in a
`Build` made for that one build (and shared only with the builds it starts
for its callees, in the same thread), not on the Compiler.  Observers of the
current Context (context.py) are shown the IR after each stage: the tests
run the verifier that way.
"""

from __future__ import annotations

import threading
import types
import weakref

from . import context
from .ad.implicit import ImplicitParamReads, holds_current_parameter, namespace_get
from .ad.reverse import ReverseTransform
from .analysis.receivers import receiver_facts
from .codegen.generate import compile_generated, generate
from .collector_pause import collector_paused
from .codegen.naming import function_name
from .errors import MutationError, ZygoteError
from .frontend.lower import lower_function
from .frontend.result_aliases import join as join_summaries
from .frontend.lower_expr import _MISSING
from .ir.clone import clone_block
from .ir.core import Function
from .resolve import is_array_or_number
from .rules.registry import qualified_name
from .runtime.helpers import check_scalar
from .runtime.library_code import restated_at_call
from .runtime.outside_containers import plain_value
from .runtime.writes import immutable_value
from .transforms.simplify import simplify


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
        return [(kind, by_old.get(id(where), where) if kind == "cell" or
                 (kind in ("container", "plain") and name is None) else where, name, obj)
                for kind, where, name, obj in self.guards]


class _LateBound:
    """Stands in for a pullback still being compiled (a recursive call).

    The closure cells of generated code that hold it are remembered and given
    the real pullback once it is built: a recursive call then costs one Python
    frame per level, as the primal's does, not two (this object's __call__ is
    also a C-level call), so a gradient recurses as deep as the function can.
    """

    def __init__(self, name):
        self.impl = None
        self.cells: list = []
        self.__name__ = name

    def __call__(self, *args, **kwargs):
        return self.impl(*args, **kwargs)

    def fill(self, impl) -> None:
        self.impl = impl
        for cell in self.cells:
            cell.cell_contents = impl
        self.cells.clear()


class Build:
    """The state of one build, shared with the builds it starts for its callees.

    After the reverse transform has run, the driver asks this object for the
    pullbacks of the callees the transform referred to (ad/reverse/callees.py:
    CalleeRef); their guards join the entry being built.  A callee already being
    built further up (a recursive call) gets a `_LateBound` stand-in, filled
    when its build ends.
    """

    def __init__(self, compiler: Compiler):
        self.compiler = compiler
        # guards of the entries being built (innermost last); callees add theirs to the caller's
        self.guards_stack: list[list] = []
        self.in_progress: dict = {}
        self.returns: dict = {}  # (fn, kinds) -> whether fn returns an array or a number

    def returns_array(self, fn, kinds: tuple) -> bool:
        """Whether the user function fn, called with arguments of these kinds, certainly
        returns an array or a number (analysis/receivers.py on its own IR).  A call
        still being analysed (recursion) is answered False: unknown is always safe."""
        key = (fn, kinds)
        if key in self.returns:
            return self.returns[key]
        self.returns[key] = False
        try:
            ir = self.compiler.lowered_ir(fn)
        except ZygoteError:  # no source: its result is unknown
            return False
        result = ir.body.ops[-1]
        known = receiver_facts(ir, kinds, self.returns_array)[0]
        self.returns[key] = result.opcode == "return" and result.operands[0].id in known
        return self.returns[key]

    def pullback_for(self, fn, active: tuple, implicit: bool = False, kinds: tuple = (),
                     threads: tuple = ()):
        """The pullback of a user function called from transformed code (kinds: what the
        caller knows of each argument, as `kinds.scalar_kinds` would say; threads: the
        parameters it writes into, for a call that sees those writes, runtime/writes.py:
        ArgumentWrites)."""
        key = (fn, active, implicit, kinds, threads)
        if key in self.in_progress:
            return self.in_progress[key]
        if not threads:
            self.compiler.refuse_argument_writes(fn, kinds)
        late = _LateBound(f"{fn.__name__}_pullback")
        self.in_progress[key] = late
        try:
            entry = self.compiler.entry(fn, active, "pullback", (), kinds, implicit=implicit,
                                        build=self, called=not threads, threads=threads)
        finally:
            del self.in_progress[key]
        late.fill(entry.fn)
        self.add_guards(entry.guards)
        return entry.fn

    def add_guards(self, guards) -> None:
        """Guards of a callee, for the entry being built."""
        if self.guards_stack:
            self.guards_stack[-1].extend(guards)


class Compiler:
    """Builds, caches and hands out the compiled gradient forms of Python functions.

    `entry` is the one way in: the cache is looked up without a lock, and a
    miss builds under `_lock` (see the module docstring).
    """

    # long loop tapes spill into typed blocks (runtime/tapes.py); off where the gradient is
    # compiled to be differentiated again (forward_compiler.py)
    spill_tapes = True

    def __init__(self):
        self.cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.lowered: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        # fn -> {threads: (code, IR)}: the threaded variants (frontend/lower.py)
        self.threaded: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        # the lowerings in progress (touched under _lock only): (fn, threads) -> the
        # parameters a recursive call is assumed to write into, their order, those whose
        # assumption was read, and those resting on an assumption of an outer lowering
        self._lowering: dict = {}
        # ... and the result-alias summary a recursive call is assumed to have
        # (frontend/result_aliases.py; at first fresh)
        self._assumed_results: dict = {}
        # ... and whether a recursive call is assumed to have an effect (at first not:
        # frontend/item_effects.py)
        self._assumed_effects: dict = {}
        self._lowering_order: list = []
        self._consulted: set = set()
        self._tainted: set = set()
        # the latest entries per code object: a new function object with the same code
        # (a lambda made in a loop) reuses them with its own cells, compiling nothing
        self.by_code: dict = {}
        # re-entrant: a build asks for its callees' entries, which may be built in turn
        self._lock = threading.RLock()

    def clear(self) -> None:
        """Forget every compiled entry (a new custom rule changes what callers inline)."""
        with self._lock:
            self.cache.clear()
            self.by_code.clear()
            self.lowered.clear()  # (a caller's IR says which callees write into arguments)
            self.threaded.clear()

    # -- front half, cached per function object --------------------------------
    def lowered_ir(self, fn, threads: tuple = ()) -> Function:
        """fn's IR after the cleanup passes; with threads, the variant that also returns the
        arrays of those parameters, which fn writes into (frontend/lower.py)."""
        cache = self.threaded.setdefault(fn, {}) if threads else self.lowered
        cached = cache.get(threads if threads else fn)
        if cached is not None and cached[0] is fn.__code__:
            ir = cached[1]
            if _guards_hold(ir.meta["guards"]):
                return ir
        with self._lock:
            ir, clean = self._lower(fn, threads)
            if clean:
                cache[threads if threads else fn] = (fn.__code__, ir)
        return ir

    def _lower(self, fn, threads: tuple) -> tuple[Function, bool]:
        """Lower fn; which parameters the functions it calls write into is asked of
        `argument_writes`.  A call of a function still being lowered (recursion) is
        answered with an assumption, and fn is lowered again until what it writes into
        agrees with what was assumed.  Returns (ir, whether it may be cached: False when
        it rests on an assumption about a function further up, still being lowered)."""
        key = (fn, threads)
        lowering = self._lowering
        lowering[key] = self._lowering.get((fn, ()), ())
        assumed = self._assumed_results
        assumed[key] = assumed.get((fn, ()), frozenset())
        effects = self._assumed_effects
        effects[key] = effects.get((fn, ()), False)
        self._lowering_order.append(key)
        try:
            while True:
                self._consulted.discard(key)
                ir = lower_function(fn, self.argument_writes_of, threads, self.result_aliases_of,
                                    self.has_effects)
                _show("lowered", ir)
                simplify(ir, check=_pass_checker())  # observers see the IR after every pass
                _show("simplified", ir)
                found = tuple(sorted(set(lowering[key]) | set(written_parameters(ir))))
                summary = join_summaries(assumed[key], ir.meta["result_aliases"])
                effect = effects[key] or bool(ir.meta["effects"])
                if threads or key not in self._consulted or \
                        (found == lowering[key] and summary == assumed[key] and effect == effects[key]):
                    break
                # a recursive call writes more, returns more, or has an effect: lower again
                lowering[key], assumed[key], effects[key] = found, summary, effect
        finally:
            self._lowering_order.pop()
            del lowering[key]
            del assumed[key]
            del effects[key]
            clean = key not in self._tainted
            self._tainted.discard(key)
        return ir, clean

    def argument_writes_of(self, fn) -> tuple:
        """The indices of fn's parameters whose arrays fn (or a function it calls) writes
        into: what a caller's lowering asks for each Python function it calls."""
        key = (fn, ())
        if key in self._lowering:  # recursion: what is assumed so far
            self._consulted.add(key)
            position = self._lowering_order.index(key)
            self._tainted.update(self._lowering_order[position + 1:])
            return self._lowering[key]
        try:
            return written_parameters(self.lowered_ir(fn))
        except Exception:  # noqa: BLE001 - no source, or refused: decided where it is called,
            return ()  # as before this question was asked (an error shows there)

    def result_aliases_of(self, fn):
        """What fn's result may share memory with (its summary, frontend/result_aliases.py;
        None: unknown): what a caller's lowering asks for each Python function it calls."""
        key = (fn, ())
        if key in self._assumed_results:  # recursion: what is assumed so far
            self._consulted.add(key)
            position = self._lowering_order.index(key)
            self._tainted.update(self._lowering_order[position + 1:])
            return self._assumed_results[key]
        try:
            return self.lowered_ir(fn).meta.get("result_aliases")
        except Exception:  # noqa: BLE001 - no source, or refused: unknown (an error shows
            return None  # where it is called)

    def has_effects(self, fn) -> bool:
        """Whether calling fn may have an effect besides its result (its lowered IR's
        summary, frontend/item_effects.py): what a caller's lowering asks of a function
        that computes the items of an iterator ahead of their reading."""
        key = (fn, ())
        if key in self._assumed_effects:  # recursion: what is assumed so far
            self._consulted.add(key)
            position = self._lowering_order.index(key)
            self._tainted.update(self._lowering_order[position + 1:])
            return self._assumed_effects[key]
        try:
            return bool(self.lowered_ir(fn).meta.get("effects", True))
        except Exception:  # noqa: BLE001 - no source, or refused: taken to have one
            return True

    def fresh_ir(self, fn) -> Function:
        """A private copy of the lowered IR, for a caller that wants to edit one (the
        reverse transform does not: it only reads the shared lowered IR)."""
        ir = self.lowered_ir(fn)
        vmap: dict = {}
        body = clone_block(ir.body, vmap)
        copy = Function(ir.name, list(body.args), body, ir.loc, ir.signature, dict(ir.meta))
        return copy

    def writes_arguments_in_place(self, fn) -> bool:
        """Whether fn has a `y op= v` where y may be an argument's array."""
        try:
            return bool(self.lowered_ir(fn).meta.get("param_writes_in_place"))
        except ZygoteError:
            return False

    def refuse_argument_writes(self, fn, kinds: tuple = ()) -> None:
        """A function called from differentiated code where lowering could not see the
        call (a method, a function value: resolved while running) may not write into its
        arguments: the caller's adjoint would not know its array changed (a call lowering
        sees is an ArgumentWrites call, docs/mutation.md).  An argument that is a plain
        number (kinds: `kinds.scalar_kinds`) has no memory to write into."""
        try:
            ir = self.lowered_ir(fn)
        except ZygoteError:
            return  # no source: refused or resolved elsewhere
        writes = [(loc, params) for loc, params in ir.meta.get("param_writes") or ()
                  if not all(i < len(kinds) and kinds[i] is True for i in params)]
        if writes:
            loc = writes[0][0]
            name = getattr(fn, "__name__", "the function")
            raise MutationError(
                f"{name}() writes into an array passed to it, and is called in a way only "
                "resolved while running (a method, a function held in a variable or a "
                "container), where its caller's gradient cannot follow the write; a function "
                "called by its name may write into its arguments", loc,
                f"call it by its name ({name}(...)), write into a copy inside it "
                "(a = a.copy()), or return the new array")

    # -- entries ------------------------------------------------------------------
    def entry(self, fn, active: tuple, mode: str, cells: tuple = (), scalars: tuple = (),
              implicit: bool = False, build: Build | None = None, called: bool = False,
              threads: tuple = (), arrays: tuple = ()) -> Entry:
        """The compiled form of fn for these active parameters (and active closure
        cells, whose cotangents the pullback returns last, as a dict), specialised
        on the kinds of the arguments (scalars, as `kinds.scalar_kinds` says: plain
        scalars, arrays or numbers, other objects; none given: arrays or numbers,
        see analysis/receivers.py).  The implicit variant also
        differentiates reads of globals (see ad/implicit.py).  build is the build
        that needs this entry for a callee (None when called from outside one).  called
        says fn is called from differentiated code: where it may write `y op= v` into an
        argument's array, that form refuses it while running (docs/mutation.md).  threads:
        the threaded variant, for a caller that sees fn's writes into these parameters.
        arrays: the array kinds of the arguments (`kinds.array_kinds`), for a call from
        the API: part of the key, so a call with arrays of another kind (ndim, dtype)
        never runs code built for these, and compiles its own."""
        key = (active, mode, cells, scalars, implicit)
        called = called and self.writes_arguments_in_place(fn)
        if called:
            key += ("called",)
        if threads:
            key += (("threads", threads),)
        if arrays:
            key += (("arrays", arrays),)
        entry = self._cached(fn, key)
        if entry is not None:
            return entry
        with self._lock:
            entry = self._cached(fn, key)  # another thread may have built it meanwhile
            if entry is not None:
                return entry
            sibling = self.by_code.get(fn.__code__, {}).get(key)
            entry = sibling.rebound(fn) if sibling is not None else None
            if entry is None:
                with collector_paused():
                    entry = self._build(fn, active, mode, cells, scalars, implicit,
                                        build or Build(self), called, threads, arrays)
            self.cache.setdefault(fn, {})[key] = entry
            self.by_code.setdefault(fn.__code__, {})[key] = entry
        return entry

    def _cached(self, fn, key) -> Entry | None:
        per_fn = self.cache.get(fn)
        if per_fn is not None:
            entry = per_fn.get(key)
            if entry is not None and entry.valid(fn.__code__):
                return entry
        return None

    def _build(self, fn, active: tuple, mode: str, cells: tuple, scalars: tuple,
               implicit: bool, build: Build, called: bool = False, threads: tuple = (),
               arrays: tuple = ()) -> Entry:
        ir = self.lowered_ir(fn, threads)  # shared: the reverse transform only reads it
        if len(active) != len(ir.params):
            active = tuple(active) + (False,) * (len(ir.params) - len(active))
        guards = list(ir.meta["guards"])
        build.guards_stack.append(guards)
        try:
            reads = ImplicitParamReads(fn.__globals__) if implicit else None
            program = ReverseTransform(ir, list(active), cells, scalars, reads,
                                       build.returns_array, callee=called,
                                       threads=threads, fused_writes=self.spill_tapes,
                                       array_params=arrays, real_seed=mode == "grad").run()
            guards += program.guards
            # the callees' pullbacks, compiled now that the transform is done (their guards join ours)
            pullbacks = {}
            for callee in program.callees:
                try:
                    pullbacks[callee] = build.pullback_for(callee.fn, callee.active, callee.implicit,
                                                           callee.kinds, callee.threads)
                except ZygoteError as err:  # inside a library function: told at the user's call
                    restated = restated_at_call(err, callee.fn, qualified_name(callee.fn),
                                                _call_site(ir, callee.fn))
                    if restated is err:
                        raise
                    raise restated from None
        finally:
            build.guards_stack.pop()
        back_fn = Function("back", list(program.backward.args), program.backward)
        simplify(back_fn)
        _show("forward", program.forward)
        _show("backward", back_fn)  # not closed: it reads forward values (per-op checks only)
        base = function_name(ir.name) if ir.name != "lambda" else "lambda_"
        name = f"{base}_grad" if mode == "grad" else f"{base}_pullback"
        returned = program.forward.body.ops[-1].operands[0].defining_op
        return_loc = (returned.loc if returned is not None else None) or ir.loc
        gen = generate(program, fn, mode, name, check_scalar, return_loc, pullbacks,
                       spill_tapes=self.spill_tapes)
        compiled = compile_generated(gen, fn)
        _await_late_callees(compiled)
        cell_names = {id(cell): name for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ())}
        entry = Entry(compiled, guards, gen.text, fn.__code__, cell_names)
        entry.program = program
        return entry


def written_parameters(ir: Function) -> tuple:
    """The indices of the parameters whose arrays the lowered function writes into."""
    records = (ir.meta.get("param_writes") or []) + (ir.meta.get("param_writes_in_place") or [])
    return tuple(sorted({i for _, indices in records for i in indices}))


def _await_late_callees(compiled) -> None:
    """Register the cells of compiled that hold a pullback still being built, to be filled."""
    for cell in compiled.__closure__ or ():
        try:
            value = cell.cell_contents
        except ValueError:  # a user's closure cell not assigned yet
            continue
        if isinstance(value, _LateBound) and value.impl is None:
            value.cells.append(cell)


def _call_site(ir, callee):
    """Where ir calls callee (the first such call), for an error about the callee."""
    for op in ir.walk():
        if op.opcode == "call" and op.attrs.get("fn") is callee and op.loc is not None:
            return op.loc
    return None


def _show(stage: str, ir) -> None:
    """Show the current Context's observers a stage's IR (the tests verify it)."""
    for observer in context.current().observers:
        observer.ir_ready(stage, ir)


def _pass_checker():
    """A check run after every cleanup pass when someone observes (None otherwise: free)."""
    if not context.current().observers:
        return None
    return lambda ir: _show("pass", ir)


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
        elif kind == "container":  # a global or cell list or dict the function claims
            if cells and name is None:
                where = cells.get(id(where), where)
            try:
                held = where.get(name, _MISSING) if name is not None else where.cell_contents
            except ValueError:
                return False
            if type(held) is not obj:
                return False
        elif kind == "plain":  # a global or cell value read unchecked (outside_containers.py)
            if cells and name is None:
                where = cells.get(id(where), where)
            try:
                held = where.get(name) if name is not None else where.cell_contents
            except ValueError:
                return False
            if not plain_value(held):
                return False
        elif kind == "immutable":  # a global passed on as data nothing can write into
            if not immutable_value(where.get(name)):
                return False
        elif kind == "plain_attribute":  # module or class data read unchecked (the same)
            if not plain_value(getattr(where, name, None)):
                return False
        elif kind == "array":  # a global the code takes to be an array or a number
            if not is_array_or_number(where.get(name)):
                return False
        else:
            try:
                if where.cell_contents is not obj:
                    return False
            except ValueError:
                return False
    return True


COMPILER = Compiler()
