"""The reverse transform's driver: a primal `Function` -> an `AdjointProgram`.

The steps, each in its own module:
  1. analysis/: which primal values are certainly arrays or numbers
     (receivers.py: only their methods and attributes get ndarray rules) and
     which depend on the active inputs (activity.py);
  2. adjoint (adjoint.py and the handlers in calls.py, containers.py,
     control.py): the backward block, built by walking the primal in reverse;
     it notes what the forward must add (a `ForwardPlan`), the values it reads
     from inside loops (`Tapes`) and the callees whose pullbacks it calls;
  3. tapes (tapes.py): pops and tape openings placed in the backward;
  4. augment (augment.py): the forward function, built as new IR.
The primal is only read.  Callee pullbacks are left as references
(`CalleeRef`) for the driver of the whole pipeline (compiler.py) to resolve.
"""

from __future__ import annotations

from ...analysis.activity import varied_values
from ...analysis.claims import unneeded_claims
from ...analysis.complexity import complex_values
from ...analysis.receivers import ARRAY, SEQUENCE, guards_on_globals, value_levels
from ...analysis.scalars import repeated_item_reads, scalar_values
from ...analysis.shapes import shape_keys
from ...ir.core import Block, Function
from ...kinds import is_complex_kind
from ...runtime import writes as runtime_writes
from ...runtime.complex_guard import VARY_ON_COMPLEX
from . import calls, containers, control  # noqa: F401  (they register the adjoint handlers)
from .adjoint import AdjointBuilder
from .augment import augment
from .owned_slots import own_loop_cotangents
from .objects import check_underived_calls, effectful_ops, object_reads, written_objects
from .reads import ConstantReads
from .tape_rows import tape_row_values
from .writes import same_object_slots


def _varying_on_complex(fn: Function, varied: set[int], maybe_complex: set[int]) -> list[int]:
    """Results of calls registered as having no derivative that a complex argument varies
    (VARY_ON_COMPLEX), where a varied operand may be complex."""
    return [op.result.id for op in fn.walk()
            if op.opcode == "call" and _in(op.attrs["fn"], VARY_ON_COMPLEX)
            and any(v.id in varied and v.id in maybe_complex for v in op.operands)]


def _in(fn, names: frozenset) -> bool:
    try:
        return fn in names
    except TypeError:  # an unhashable callee
        return False


class AdjointProgram:
    """The result of the reverse transform: forward function + backward block, the
    callees whose pullbacks the forward calls (for the driver to resolve) and the
    guards the transform found (implicit-parameter reads)."""

    def __init__(self, forward: Function, backward: Block, has_grad: list[bool], callees=(),
                 guards=()):
        self.forward = forward
        self.backward = backward
        self.has_grad = has_grad
        self.callees = list(callees)
        self.guards = list(guards)
        self.effects = False  # its back moves derivatives through objects even given None


class ReverseTransform:
    """The reverse transform of fn for the active parameters (and active closure cells,
    whose cotangents are returned last, as a dict).  reads says what reads of module
    data mean: constants by default, parameters in the implicit variant (../implicit.py)."""

    def __init__(self, fn: Function, active: list[bool], active_cells=(), scalar_params=(),
                 reads: ConstantReads | None = None, returns=None, callee: bool = False,
                 threads: tuple = (), fused_writes: bool = False, array_params: tuple = (),
                 real_seed: bool = False):
        self.fn = fn
        # the threaded variant of a function that writes into these parameters' arrays: its
        # back always runs (given None too), undoes the writes and leaves those arrays as
        # they were at the call (runtime/writes.py: snapshot_except)
        self.threads = tuple(threads)
        self.active = active
        self.active_cells = tuple(active_cells)
        self.guards: list[tuple] = []  # what the result depends on beyond the lowered IR's guards
        reads = reads or ConstantReads()
        # closure cells holding active values are inputs too (the function's own cotangent)
        self.cell_reads = {op.attrs["name"]: op.result for op in fn.body.ops
                           if op.opcode == "cell" and op.attrs["name"] in self.active_cells}
        roots = [v.id for v in self.cell_reads.values()]
        read_roots, guards = reads.roots(fn)
        roots += read_roots
        self.guards += guards
        # values whose methods and attributes the ndarray rules describe (the rest: dispatch)
        # returns(f, kinds): whether a called user function returns an array (the driver knows)
        levels = value_levels(fn, scalar_params, returns)
        arrays = {i for i, level in levels.items() if level == ARRAY}
        self.guards += guards_on_globals(fn, arrays)
        varied = varied_values(fn, active, extra_roots=roots, implicit=reads.implicit,
                               arrays=arrays)
        # arguments that held complex values (no kinds: real, as grad_source without args shows)
        maybe_complex = complex_values(fn, [is_complex_kind(k) for k in scalar_params])
        varying = _varying_on_complex(fn, varied, maybe_complex)
        if varying:  # np.sign(z) of a complex z does vary: a cotangent must reach its refusal
            varied = varied_values(fn, active, extra_roots=roots + varying,
                                   implicit=reads.implicit, arrays=arrays)
        # objects written here, or by the user code they are passed to, with derivatives: their
        # later attribute reads must be differentiated even when they were not active inputs
        roots = roots + varying
        strongly = set(varied)  # varied because of the inputs themselves
        written = [i for i in object_reads(fn, set(levels)) if i not in varied] + \
            written_objects(fn, varied, set(levels))
        while written:  # a newly varied object may make more calls' operands varied
            roots = roots + written
            varied = varied_values(fn, active, extra_roots=roots, implicit=reads.implicit,
                                   arrays=arrays)
            written = written_objects(fn, varied, set(levels))
        # array_params: the ndim of each argument that is a real float ndarray (kinds.py:
        # array_kinds, part of the cache key): its items read at int indices are numbers
        float_arrays: dict[int, int] = {}
        scalars = scalar_values(fn, list(scalar_params) or [False] * len(fn.params),
                                array_params, float_arrays)
        self.builder = AdjointBuilder(fn, varied, scalars, reads, arrays, set(levels),
                                      {i for i, level in levels.items() if level == SEQUENCE})
        self.builder.maybe_complex = maybe_complex
        # values certainly exact real float ndarrays: id -> ndim (kinds.array_kinds)
        self.builder.float_arrays = float_arrays
        # which arrays certainly share a shape (unbroadcast between them is dropped)
        self.builder.shapes = shape_keys(fn, array_params, scalars)
        self.builder.real_seed = real_seed  # the grad form (its seed is check_scalar's)
        # varied only because an object may have been written in the call (a read of cfg.k
        # of a global cfg): rules without a derivative for them check while running
        self.builder.weakly_varied = varied - strongly
        # called from differentiated code: `y op= v` into an argument's array is refused there
        self.builder.plan.callee = callee
        self.builder.plan.fused_writes = fused_writes  # (augment.py: absorb_write)
        if fused_writes:  # an array a loop only writes into is read as the one it entered with
            self.builder.same_object = same_object_slots(fn)
            # `np.sin(x[i]) * x[i]`: the second read is the first's number (forward, tape
            # and adjoint alike: augment.py skips it, the adjoint adds its cotangent to the
            # first's)
            repeats = repeated_item_reads(fn, float_arrays, scalars)
            self.builder.plan.merged_reads = repeats
            self.builder.merged_reads = {op.result.id: first for op in fn.walk()
                                         if id(op) in repeats for first in (repeats[id(op)],)}
        self.builder.effectful = effectful_ops(fn, varied, set(levels), arrays)
        self.builder.plan.dropped = unneeded_claims(fn, varied)  # (analysis/claims.py)
        if reads.runs_calls_plainly():
            check_underived_calls(fn, varied, set(levels), self.builder.plan)
        containers.note_derived_keys(fn, varied, self.builder.plan)

    def run(self) -> AdjointProgram:
        builder, fn = self.builder, self.fn
        result = fn.body.ops[-1].operands[0]
        if builder.effectful or self.threads:  # its back may be run with no cotangent
            builder.maybe_none.add(builder.backward.args[0].id)
        if result.id in builder.varied:
            builder.set_bar(result, builder.backward.args[0])
        if result.id in builder.varied or builder.effectful or self.threads:
            builder.adjoint_block(fn.body)
        outputs = []
        for param, active in zip(fn.params, self.active):
            outputs.append(builder.bar(param) if active else None)
        if self.active_cells:
            names, bars = [], []
            for name in self.active_cells:
                bar = builder.bar(self.cell_reads[name]) if name in self.cell_reads else None
                if bar is not None:
                    names.append(builder.const(name))
                    bars.append(bar)
            pairs = [v for pair in zip(names, bars) for v in pair]
            outputs.append(builder.emit("dict", pairs).result)
        none = None
        values = []
        for out in outputs:
            if out is None:
                none = none or builder.const(None)
                values.append(none)
            else:
                values.append(out)
        packed = builder.emit("tuple", values).result
        log = builder.plan.write_log
        if log is not None:  # the backward undid the writes: put back what the forward left
            with builder.ir.at(builder.backward, 0), builder.ir.at_loc(None):
                if self.threads:  # the written arguments stay as they were at the call
                    kept = builder.emit("tuple", [fn.params[i] for i in self.threads]).result
                    final = builder.call(runtime_writes.snapshot_except, log, kept,
                                         expr="_zp_snapshot_except", hint="_zp_final")
                else:
                    final = builder.call(runtime_writes.snapshot, log, expr="_zp_snapshot",
                                         hint="_zp_final")
            with builder.ir.at_loc(None):
                builder.call(runtime_writes.restore_final, final, expr="_zp_restore_final")
        builder.emit("return", [packed], 0)
        builder.tapes.place(builder.backward, builder.mirror)
        own_loop_cotangents(builder)  # (the backward is complete: owned_slots.py)
        builder.plan.tape_rows = tape_row_values(builder)  # (tape_rows.py)
        forward = augment(fn, builder.plan, builder.tapes, builder.backward)
        program = AdjointProgram(forward, builder.backward, [o is not None for o in outputs],
                                 builder.callees, self.guards)
        program.effects = bool(builder.effectful)
        return program
