"""Splicing a rule's body into the adjoint at a call site.

A rule is lowered to IR once (cached).  At each call site its ops are copied
with the rule's parameters bound to the call's values; ops that none of the
needed cotangents depend on are dropped before anything is fetched, so an
inactive argument costs neither code nor a saved value.  When every other
argument of an elementwise call is a Python scalar constant, or the call's
output and `a` are known scalars, `unbroadcast(e, a)` is replaced by `e`:
nothing can have broadcast `a` any larger.  (A scalar fill of np.full or
np.where's array condition can: those keep it.)

`_RULE_IR` caches the lowered IR per rule function for the whole process.  It
never changes a result: a rule's body is fixed once the rule is defined, the
cached IR is only ever copied (`clone_op`), never edited, and re-registering
a rule registers a new function object.  It is filled while the compiler's
lock is held (compiler.py); two threads lowering the same rule at once would
store equal IR.
"""

from __future__ import annotations

import operator

import numpy as np

from ..rules.indexing import _index_cotangent
from ..rules.shapes import like_input
from ..runtime import helpers as runtime
from ..ir.builder import IRBuilder, replace_op
from ..ir.intrinsics import scalar_strong_zero
from ..ir.clone import clone_op, replace_all_uses
from ..ir.core import Block, Op, Value
from ..transforms.simplify import fold, simplify

_RULE_IR: dict = {}

# Helpers that read an argument only for its shape, dtype and ndim (or pass it on
# to one that does): the argument positions, by helper.
_SHAPE_POSITIONS = {
    runtime.unbroadcast: (1,),
    runtime.expand_reduced: (1,),
    runtime.reduced_size: (0,),
    like_input: (1,),
    _index_cotangent: (1,),
}


def rule_ir(vjp_fn):
    """The lowered, simplified IR of a rule function (cached per function)."""
    fn = _RULE_IR.get(vjp_fn)
    if fn is None:
        from ..frontend.lower import lower_function

        fn = lower_function(vjp_fn)
        for op in fn.walk():  # the rule's local names would mislabel the user's cotangents
            for result in op.results:
                result.hint = ""
        _inline_module_constants(fn, vjp_fn.__globals__)
        simplify(fn)
        _RULE_IR[vjp_fn] = fn
    return fn


_CONSTANT_TYPES = (int, float, complex, bool, str, bytes, type(None))


def _inline_module_constants(fn, module_globals: dict) -> None:
    """Turn reads of the rule module's numeric constants (`_LN2`) into constants.

    The spliced code runs in the user's module, where the rule module's
    globals are not defined; modules, functions and classes are already
    resolved by lowering, and plain constants are resolved here.
    """
    for op in fn.walk():
        if op.opcode != "global":
            continue
        value = module_globals.get(op.attrs["name"], _ABSENT)
        if type(value) in _CONSTANT_TYPES:
            replace_op(op, "const", (), {"value": value})


_ABSENT = object()


def _known_constant(value):
    """The Python constant a bound argument is known to be, or _ABSENT."""
    if isinstance(value, Value):
        op = value.defining_op
        if op is not None and op.opcode == "const" and not op.attrs.get("static"):
            return op.attrs["value"]
        return _ABSENT
    if value is _ABSENT:
        return _ABSENT
    if isinstance(value, (tuple, dict)):  # a *args tuple or **kwargs dict of the call's values
        items = value.values() if isinstance(value, dict) else value
        known = [_known_constant(item) for item in items]
        if any(item is _ABSENT for item in known):
            return _ABSENT
        return dict(zip(value, known)) if isinstance(value, dict) else tuple(known)
    return value  # a default the call left out


_SCALAR_CONSTANT_TYPES = (int, float, bool, type(None))


def _is_scalar_constant(value) -> bool:
    """Whether a bound argument is a Python scalar (shape ()) known at transform time.

    A bound argument is an IR Value (a constant op when the call site wrote a
    literal) or, for a parameter the call left out, the rule's default itself.
    None counts: as an array it has shape () (np.asarray(None)), and as an
    absent bound (np.clip's a_max=None) it broadcasts nothing.
    """
    if not isinstance(value, Value):
        return type(value) in _SCALAR_CONSTANT_TYPES
    op = value.defining_op
    return op is not None and op.opcode == "const" and type(op.attrs["value"]) in _SCALAR_CONSTANT_TYPES


# Python's arithmetic operators broadcast like the ufuncs they call on arrays.
_ELEMENTWISE_OPERATORS = frozenset({
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
    operator.pow, operator.neg, operator.pos, operator.abs})


def _is_elementwise(rule) -> bool:
    """Whether the rule's primal broadcasts its operands to its output's shape."""
    primal = rule.primal
    return isinstance(primal, np.ufunc) or primal in _ELEMENTWISE_OPERATORS \
        or rule.meta.get("elementwise", False)


def _all_scalar_constants(value) -> bool:
    """A bound argument, or every item of a bound *args tuple / **kwargs dict, is a scalar."""
    if isinstance(value, tuple) and not isinstance(value, Value):
        return all(_is_scalar_constant(v) for v in value)
    if isinstance(value, dict):
        return all(_is_scalar_constant(v) for v in value.values())
    return _is_scalar_constant(value)


# The names a rule's first two parameters (g, y) go by in a splice: never a primal parameter's
# name, so a primal may have a parameter called y (np.cov(m, y)) or g.
COTANGENT = "<g>"
OUTPUT = "<y>"


class Splice:
    """The rule's ops copied for one call site, not yet placed in a block."""

    def __init__(self, rule, bound: dict, needed: list[str], scalar=frozenset(),
                 result_is_scalar: bool = False, result_shape=None, shapes=None):
        self.rule = rule
        ir = rule_ir(rule.vjp)
        names = [COTANGENT, OUTPUT, *[p.name for p in rule.params]]
        self.placeholders = {param.id: Value(name) for param, name in zip(ir.params, names)}
        self.param_of = {v.id: name for name, v in zip(names, self.placeholders.values())}
        vmap = dict(self.placeholders)
        # the copy is built in a scratch block, placed at the call site by `place`
        builder = IRBuilder(Block())
        # parameters the call site fixes to constants become constants of the copy
        for param, name in zip(ir.params, names):
            known = _known_constant(bound.get(name, _ABSENT)) if name not in (COTANGENT, OUTPUT) else _ABSENT
            if known is not _ABSENT:
                vmap[param.id] = builder.const(known)
        for op in ir.body.ops[:-1]:
            builder.insert(clone_op(op, vmap))
        # the rule's statement calls (`_unsupported(...)`), by their copies' result ids
        self.statements = {vmap[i].id for i in _statement_results(ir) if i in vmap}
        self.scalar = scalar
        returned = vmap.get(ir.body.ops[-1].operands[0].id, ir.body.ops[-1].operands[0])
        self.outputs: dict[str, Value] = {}
        packed = returned.defining_op
        if len(rule.diff) == 1:
            self.outputs[rule.diff[0]] = returned
        elif packed is not None and packed.opcode == "tuple" and len(packed.operands) == len(rule.diff):
            self.outputs = dict(zip(rule.diff, packed.operands))
        else:
            for i, name in enumerate(rule.diff):
                if name in needed:
                    self.outputs[name] = builder.call(operator.getitem, returned, builder.const(i),
                                                      expr="getitem")
        self.outputs = {k: v for k, v in self.outputs.items() if k in needed}
        self._fold(builder)
        self._elide_unbroadcast(bound, result_is_scalar, result_shape, shapes or {})
        self._elide_strong_zero()
        if result_is_scalar:
            self._inline_strong_zero()
        self._drop_dead()

    def _fold(self, builder: IRBuilder) -> None:
        """Fold the copy with the call site's constants (axis=None, exponent 2, ...)."""
        block = builder.block
        names = list(self.outputs)
        builder.emit("yield", [self.outputs[n] for n in names], 0)
        for _ in range(4):
            mapping: dict = {}
            changed = fold(block, mapping)
            replace_all_uses(block, mapping)
            if not changed:
                break
        self.ops = block.ops[:-1]
        self.outputs = dict(zip(names, block.ops[-1].operands))

    def _elide_unbroadcast(self, bound: dict, result_is_scalar: bool, result_shape=None,
                           shapes=None) -> None:
        """Drop `unbroadcast(e, a)` where nothing can have broadcast `a` larger.

        Exact in three cases: the call's output is a known scalar and so is `a`
        (g and e are scalars too); or the primal is elementwise (output shape =
        the broadcast of its operands) and every other argument of the call,
        inactive ones included (np.where's condition), is a Python scalar; or the
        primal is elementwise and `a` certainly has the output's shape (the same
        shape key, analysis/shapes.py: `u[2:] - 2 * u[1:-1]` of a 1-D float
        argument `u`).  A scalar argument of a shape-making call (np.full(3, s))
        is none of these.
        """
        elementwise = _is_elementwise(self.rule)
        mapping = {}
        for op in self.ops:
            if op.opcode == "call" and op.attrs["fn"] is runtime.unbroadcast and len(op.operands) == 2:
                target = self.param_of.get(op.operands[1].id)
                if target is None or target not in self.rule.diff:
                    continue
                operand = bound.get(target)
                target_scalar = isinstance(operand, Value) and operand.id in self.scalar \
                    or _is_scalar_constant(operand)
                others = [v for n, v in bound.items() if n != target]
                same_shape = elementwise and result_shape is not None and \
                    isinstance(operand, Value) and shapes.get(operand.id) == result_shape
                if result_is_scalar and target_scalar or same_shape or \
                        elementwise and all(_all_scalar_constants(v) for v in others):
                    mapping[op.result.id] = op.operands[0]
        if mapping:
            for op in self.ops:
                op.operands = [mapping.get(v.id, v) for v in op.operands]
            self.outputs = {k: mapping.get(v.id, v) for k, v in self.outputs.items()}

    def _elide_strong_zero(self) -> None:
        """Drop `strong_zero(g, r)` where r is g (or -g) times or over a finite nonzero
        constant (`g * 1.01`, a constant factor of a product): r is 0 exactly where g is,
        and nan only where g is, so there is nothing to correct."""
        mapping = {}
        for op in self.ops:
            if op.opcode != "call" or op.attrs["fn"] is not runtime.strong_zero or len(op.operands) != 2:
                continue
            g, r = op.operands
            if scales_by_a_finite_constant(r, g):
                mapping[op.result.id] = r
        if mapping:
            for op in self.ops:
                op.operands = [mapping.get(v.id, v) for v in op.operands]
            self.outputs = {k: mapping.get(v.id, v) for k, v in self.outputs.items()}

    def _inline_strong_zero(self) -> None:
        """Between known scalars, `strong_zero(g, r)` becomes the intrinsic that codegen
        writes inline (`r if g else ...`): a truth test instead of a call."""
        for op in self.ops:
            if op.opcode == "call" and op.attrs["fn"] is runtime.strong_zero and len(op.operands) == 2:
                g, r = op.operands
                op.operands = [g, r, g]
                op.attrs = {**op.attrs, "fn": scalar_strong_zero, "expr": "scalar_strong_zero"}

    def _drop_dead(self) -> None:
        live = {v.id for v in self.outputs.values()}
        kept = []
        for op in reversed(self.ops):
            if any(r.id in live for r in op.results) or _refuses(op, self.statements):
                kept.append(op)
                for v in op.operands:
                    live.add(v.id)
                for region in op.regions:
                    for inner in region.walk():
                        for v in inner.operands:
                            live.add(v.id)
        self.ops = kept[::-1]
        self.used_params = [name for vid, name in self.param_of.items() if vid in live]
        self.unbound = set(self.used_params)  # parameters still to be bound to values
        self.shape_only = self._read_for_shape_only()

    def _read_for_shape_only(self) -> set[str]:
        """The parameters the kept ops read only through shape-reading helpers
        (`unbroadcast(e, a)`'s a): an ArrayShape of the argument serves as well (see
        runtime/helpers.py), and a loop's tape then need not keep the array."""
        uses: dict[int, bool] = {}
        for top in self.ops:
            for op in _ops_within(top):
                positions = _SHAPE_POSITIONS.get(op.attrs.get("fn")) if op.opcode == "call" else None
                for k, v in enumerate(op.operands):
                    if v.id in self.param_of:
                        shape_read = positions is not None and k in positions and \
                            not op.attrs.get("kw") and not op.attrs.get("star")
                        uses[v.id] = uses.get(v.id, True) and shape_read
        returned = {v.id for v in self.outputs.values()}  # a parameter returned as it is
        return {self.param_of[vid] for vid, only in uses.items() if only and vid not in returned}

    def place(self, block: Block, values: dict[str, Value], loc) -> dict[str, Value]:
        """Append the ops to block with parameters bound to values; return the outputs.

        The ops take the call site's location: the generated code annotates them
        with the user's line, not the rule's."""
        mapping = {self.placeholders_by_name()[name].id: value for name, value in values.items()}
        builder = IRBuilder(block)
        for op in self.ops:
            _substitute(op, mapping)
            op.loc = loc
            for region in op.regions:
                for inner in region.walk():
                    inner.loc = loc
            builder.insert(op)
        return {k: mapping.get(v.id, v) for k, v in self.outputs.items()}

    def placeholders_by_name(self) -> dict[str, Value]:
        return {self.param_of[v.id]: v for v in self.placeholders.values()}


def finite_nonzero_constant(value) -> bool:
    known = _known_constant(value)
    return type(known) in (int, float) and known != 0 and np.isfinite(known)


def _is_value(value, target) -> bool:
    """value is target, or -target."""
    if value is target or (isinstance(value, Value) and isinstance(target, Value) and value.id == target.id):
        return True
    op = value.defining_op if isinstance(value, Value) else None
    return op is not None and op.opcode == "call" and op.attrs.get("fn") is operator.neg \
        and len(op.operands) == 1 and _is_value(op.operands[0], target)


def scales_by_a_finite_constant(r, g) -> bool:
    """r = g * c, c * g or g / c (g possibly negated) for a finite nonzero constant c."""
    op = r.defining_op if isinstance(r, Value) else None
    if op is None or op.opcode != "call" or len(op.operands) != 2:
        return False
    fn, (a, b) = op.attrs.get("fn"), op.operands
    if fn is operator.mul:
        return _is_value(a, g) and finite_nonzero_constant(b) or _is_value(b, g) and finite_nonzero_constant(a)
    if fn is operator.truediv:
        return _is_value(a, g) and finite_nonzero_constant(b)
    return False


def _ops_within(op: Op):
    """op and every op in its regions."""
    yield op
    for region in op.regions:
        yield from region.walk()


def _statement_results(ir) -> set[int]:
    """Result ids of the calls a rule's body makes as statements, their value unused.
    Rule bodies are pure, so such a call is there for its effect: to refuse
    (`_unsupported(...)`)."""
    ops = [op for top in ir.body.ops for op in _ops_within(top)]
    used = {v.id for op in ops for v in op.operands}
    return {op.result.id for op in ops
            if op.opcode == "call" and len(op.results) == 1 and op.result.id not in used}


def _refuses(op: Op, statements: set[int]) -> bool:
    """Whether op is, or holds, a refusal: `raise`, or a statement call of the rule's.
    Dropping it as dead code would turn a refusal into a wrong number."""
    for inner in _ops_within(op):
        if inner.opcode == "raise":
            return True
        if inner.opcode == "call" and any(r.id in statements for r in inner.results):
            return True
    return False


def _substitute(op: Op, mapping: dict[int, Value]) -> None:
    op.operands = [mapping.get(v.id, v) for v in op.operands]
    for region in op.regions:
        for inner in region.walk():
            inner.operands = [mapping.get(v.id, v) for v in inner.operands]


def bind_call(rule, op: Op, operands: list[Value]):
    """Map a call op's operands to the rule's parameter names (None if it doesn't fit)."""
    kw = op.attrs.get("kw", ())
    if op.attrs.get("star") or None in kw:
        return None
    npos = len(operands) - len(kw)
    try:
        bound = rule.bind(tuple(operands[:npos]), dict(zip(kw, operands[npos:])))
    except TypeError:
        return None
    return bound
