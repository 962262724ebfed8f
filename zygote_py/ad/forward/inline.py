"""Forward rules written into the generated code as expressions, and the facts that allow it.

The general forward rules (rules/jvp_common.py) are functions that take None
for a zero tangent and test for it while running.  The transform knows more:
a tangent it never made is statically zero, and a tangent it *dense*-marks is
certainly not None while running (a tangent parameter, the result of an
expression spliced here, a loop slot whose every incoming tangent is dense).
Where every tangent of a call with a registered rule is one or the other, the
call's tangent is spliced as plain IR, so codegen folds it into expressions:

  - the arithmetic operators and matmul: one body per pattern of present
    tangents (rules/jvp_inline.py);
  - one-input elementwise functions: the reverse rule's own body with the
    tangent for the cotangent (`y_dot = x_dot * np.cos(x)`; the Jacobian is
    diagonal), where the rule is right for complex values as written;
  - sums and means: the function applied to the tangent.

A spliced function call is shared with an equal call already made in the same
or an enclosing block (`np.cos(x)` of sin's tangent and the user's own
`np.cos(x)` run once); two of the user's own calls are never merged.
"""

from __future__ import annotations

import operator

import numpy as np

from ...analysis.ranges import UNKNOWN, away_from_zero, finite, op_interval, value_ranges
from ...ir.core import Value
from ...ir.intrinsics import scalar_strong_zero
from ...rules import jvp_inline
from ...runtime.helpers import strong_times, strong_zero
from ..splice import finite_nonzero_constant, rule_ir, scales_by_a_finite_constant

NOT_INLINED = object()

# functions whose calls may be shared (pure, and equal operands give equal results)
_SHARED_OPERATORS = frozenset({operator.add, operator.sub, operator.mul, operator.truediv,
                               operator.neg, operator.pos, operator.pow, operator.matmul})


def shareable(fn) -> bool:
    return isinstance(fn, np.ufunc) or fn in _SHARED_OPERATORS or \
        getattr(fn, "__module__", None) == "math"


# the strong-zero helpers are pure too: two equal ones a rule spliced are computed once
_SHARED_HELPERS = (strong_times, strong_zero)


# the lowered body of each jvp_inline function and reverse rule spliced, per function object,
# for the whole process (as splice.py's _RULE_IR: a function's body never changes, the IR is
# only copied, and two threads filling it store equal IR)
_BODIES: dict = {}


def _body(fn):
    """fn's lowered IR if it is straight-line calls and constants (cached), else None."""
    if fn in _BODIES:
        return _BODIES[fn]
    ir = rule_ir(fn)
    ops = ir.body.ops
    ok = ops and ops[-1].opcode == "return" and all(
        op.opcode == "const" or op.opcode == "call" and not op.regions and len(op.results) == 1
        for op in ops[:-1])
    _BODIES[fn] = ir if ok else None
    return _BODIES[fn]


class Inliner:
    """Splices the forward rules above for one ForwardTransform (`tr`)."""

    def __init__(self, tr):
        self.tr = tr
        self.dense: set[int] = set()  # ids of tangent values certainly not None
        self.scopes: list[dict] = [{}]  # shared calls, per enclosing block
        self._ranges: dict | None = None  # primal value id -> interval (analysis/ranges.py)

    # -- facts -------------------------------------------------------------------------
    def is_dense(self, tangent: Value | None) -> bool:
        return tangent is not None and tangent.id in self.dense

    def mark(self, tangent: Value | None) -> None:
        if tangent is not None:
            self.dense.add(tangent.id)

    def is_number(self, value: Value) -> bool:
        """A number (never an array) while running: a literal, or a known scalar."""
        op = value.defining_op
        if op is not None and op.opcode == "const":
            return type(op.attrs["value"]) in (int, float, bool)
        return value.id in self.tr.scalars

    # -- shared calls ------------------------------------------------------------------
    def push(self) -> None:
        self.scopes.append({})

    def pop(self) -> None:
        self.scopes.pop()

    def _lookup(self, key):
        for scope in reversed(self.scopes):
            if key in scope:
                return scope[key]
        return None

    def call(self, attrs: dict, operands: list[Value]) -> Value:
        """A call made by a spliced rule: shared with an equal call seen before."""
        fn = attrs["fn"]
        key = None
        if not attrs.get("kw") and not attrs.get("star") and (shareable(fn) or fn in _SHARED_HELPERS):
            key = (fn, tuple(_operand_key(v) for v in operands))
            found = self._lookup(key)
            if found is not None:
                return found[0]
        result = self.tr.emit("call", operands, attrs=dict(attrs)).result
        if key is not None:
            self.scopes[-1][key] = (result, "spliced")
        return result

    def primal_call(self, op, operands: list[Value]):
        """(the value a spliced rule already computed for the copy of the user's call op
        on operands, or None; the key under which to note the copy, or None)."""
        attrs = op.attrs
        if op.opcode != "call" or len(op.results) != 1 or attrs.get("kw") or attrs.get("star") \
                or not shareable(attrs["fn"]):
            return None, None
        if not all(v.id in self.tr.arrays or self.is_number(v) for v in op.operands):
            return None, None  # an operand that may be an object with operators of its own
        key = (attrs["fn"], tuple(v.id for v in operands))
        found = self._lookup(key)
        if found is not None and found[1] == "spliced":
            return found[0], None
        return None, key

    def note(self, key, value: Value) -> None:
        if key is not None and self._lookup(key) is None:
            self.scopes[-1][key] = (value, "user")

    # -- value ranges: where the strong zero cannot change a product -------------------
    def primal_interval(self, value: Value):
        """The interval of a value of the function being transformed (analysis/ranges.py)."""
        if self._ranges is None:
            tr = self.tr
            self._ranges = value_ranges(tr.fn, tr.maybe_complex,
                                        lambda v: v.id in tr.arrays or v.id in tr.scalars)
        return self._ranges.get(value.id, UNKNOWN)

    def intervals_of(self, op, new) -> dict:
        """Copy id -> interval, for the operands and the result of new (the copy of op)."""
        pairs = list(zip(op.operands, new.operands)) + list(zip(op.results, new.results))
        return {copy.id: self.primal_interval(old) for old, copy in pairs}

    @staticmethod
    def zero_where_zero(r: Value, g: Value, interval_of) -> bool:
        """Whether r is certainly 0 wherever g is (nan entries aside, see ranges.py), so
        that `strong_zero(g, r)` is r: r is g, or r of it negated, times a factor that is
        never infinite, or divided by one that is never 0."""
        if r.id == g.id:
            return True
        op = r.defining_op
        if op is None or op.opcode != "call" or op.attrs.get("kw") or op.attrs.get("star"):
            return False
        fn, operands = op.attrs.get("fn"), op.operands
        if fn in (operator.neg, np.negative) and len(operands) == 1:
            return Inliner.zero_where_zero(operands[0], g, interval_of)
        if fn in (operator.mul, np.multiply) and len(operands) == 2:
            a, b = operands
            return Inliner.zero_where_zero(a, g, interval_of) and finite(interval_of(b)) or \
                Inliner.zero_where_zero(b, g, interval_of) and finite(interval_of(a))
        if fn in (operator.truediv, np.divide) and len(operands) == 2:
            return Inliner.zero_where_zero(operands[0], g, interval_of) and \
                away_from_zero(interval_of(operands[1]))
        return False

    # -- splicing ----------------------------------------------------------------------
    def splice(self, fn, values: list[Value], scalar: bool = False, intervals=None) -> Value:
        """fn's body (straight-line) with its parameters bound to values.  scalar: the
        call's result is a known number, so `strong_zero(d, r)` is written inline as
        `r if d else ...` (the intrinsic reverse mode uses between scalars).  intervals:
        value id -> interval for values (intervals_of); where they show that a zero
        tangent entry already gives 0, the strong zero is left out."""
        ir = _body(fn)
        vmap = {p.id: v for p, v in zip(ir.params, values)}
        ivs = dict(intervals or {})

        def interval_of(v: Value):
            return ivs.get(v.id, UNKNOWN)

        for op in ir.body.ops[:-1]:
            if op.opcode == "const":
                vmap[op.result.id] = self.tr.ir.const(op.attrs["value"])
            elif op.attrs.get("fn") is strong_times and len(op.operands) == 2 \
                    and not op.attrs.get("kw") and not op.attrs.get("star") \
                    and (scalar or finite_nonzero_constant(vmap[op.operands[1].id])
                         or finite(interval_of(vmap[op.operands[1].id]))):
                # between numbers: `d * p` with the inline test; by a finite constant or a
                # factor that is never infinite: no test
                g, p = (vmap[v.id] for v in op.operands)
                r = self.call({"fn": operator.mul, "expr": "mul", "kw": (), "star": ()}, [g, p])
                plain = finite_nonzero_constant(p) or finite(interval_of(p))
                vmap[op.result.id] = r if not scalar or plain else self.tr.emit(
                    "call", [g, r, g], attrs={"fn": scalar_strong_zero, "expr": "scalar_strong_zero"}).result
            elif op.attrs.get("fn") is strong_zero and len(op.operands) == 2 \
                    and not op.attrs.get("kw") and not op.attrs.get("star"):
                g, r = (vmap[v.id] for v in op.operands)
                if scales_by_a_finite_constant(r, g) or self.zero_where_zero(r, g, interval_of):
                    # 0.5 * d, d * sin(x), d / (1 + x * x): 0 wherever d is (nan aside)
                    vmap[op.result.id] = r
                elif scalar:
                    vmap[op.result.id] = self.tr.emit(
                        "call", [g, r, g], attrs={"fn": scalar_strong_zero, "expr": "scalar_strong_zero"}).result
                else:
                    vmap[op.result.id] = self.call(op.attrs, [g, r])
            else:
                vmap[op.result.id] = self.call(op.attrs, [vmap[v.id] for v in op.operands])
            made = vmap[op.result.id]
            if made.id not in ivs and made.defining_op is not None:
                ivs[made.id] = op_interval(made.defining_op, interval_of)
        result = vmap[ir.body.ops[-1].operands[0].id]
        self.mark(result)
        return result

    def tangent(self, rule, op, new, dxs) -> Value | object:
        """The tangent of new (the copy of op, a call of rule's primal) spliced, or
        NOT_INLINED.  dxs: the tangents of rule.diff's parameters (None: zero)."""
        if not all(d is None or self.is_dense(d) for d in dxs):
            return NOT_INLINED
        if op.attrs.get("kw") or op.attrs.get("star"):
            return self._linear(rule, op, new, dxs)
        primal = rule.primal
        operands = list(new.operands)
        try:
            bodies = jvp_inline.BINARY.get(primal)
            unary = jvp_inline.UNARY.get(primal)
        except TypeError:  # an unhashable primal
            return NOT_INLINED
        scalar = len(op.results) == 1 and op.results[0].id in self.tr.scalars
        ivs = self.intervals_of(op, new)
        if bodies is not None and len(operands) == 2 and len(dxs) == 2:
            return self._binary(primal, bodies, new, op.operands, operands, dxs, scalar, ivs)
        if unary is not None and len(operands) == 1:
            return self.splice(unary, [dxs[0], new.result, operands[0]])
        if primal in (operator.pow, np.power) and len(operands) == 2 and dxs[1] is None \
                and _constant(op.operands[1]) in (2, 2.0) and type(_constant(op.operands[1])) in (int, float):
            return self.splice(jvp_inline.power_of_two, [dxs[0], new.result, *operands], scalar, ivs)
        body = getattr(rule.jvp, "diagonal_body", None)
        if body is not None and len(operands) == 1 and _body(body) is not None \
                and len(_body(body).params) >= 3 and _uses_only(_body(body), 3):
            return self.splice(body, [dxs[0], new.result, operands[0]], scalar, ivs)
        return self._linear(rule, op, new, dxs)

    def _binary(self, primal, bodies, new, primal_operands, operands, dxs, scalar=False, ivs=None):
        a, b = operands
        da, db = dxs
        if da is not None and db is not None:
            if a is b and da is db and primal in (operator.mul, np.multiply):
                return self.splice(jvp_inline.square, [da, db, new.result, a, b], scalar, ivs)
            return self.splice(bodies[(True, True)], [da, db, new.result, a, b], scalar, ivs)
        present = (da is not None, db is not None)
        other = primal_operands[1] if da is not None else primal_operands[0]
        body = bodies.get(present + ("number",)) if self.is_number(other) else None
        body = body or bodies[present]
        return self.splice(body, [da if da is not None else db, new.result, a, b], scalar, ivs)

    def _linear(self, rule, op, new, dxs):
        """np.sum(x, axis, keepdims=...) -> np.sum(x_dot, axis, keepdims=...)."""
        allowed = jvp_inline.LINEAR.get(rule.primal) if not isinstance(rule.primal, tuple) else None
        if allowed is None or op.opcode != "call" or op.attrs.get("star") or len(dxs) != 1 \
                or dxs[0] is None:
            return NOT_INLINED
        kw = op.attrs.get("kw", ())
        npos = len(op.operands) - len(kw)
        if npos > 2 or any(k not in allowed for k in kw):
            return NOT_INLINED
        result = self.tr.emit("call", [dxs[0]] + list(new.operands[1:]), attrs=dict(op.attrs)).result
        self.mark(result)
        return result


def _operand_key(value: Value):
    """What makes two spliced calls' operand equal: the same value, or a constant number
    of the same type and value (each splice makes its own constants: `2 * a` twice)."""
    op = value.defining_op
    if op is not None and op.opcode == "const" and type(op.attrs["value"]) in (int, float, bool):
        return ("const", type(op.attrs["value"]), op.attrs["value"])
    return value.id


def _constant(value: Value):
    op = value.defining_op
    return op.attrs["value"] if op is not None and op.opcode == "const" else None


def _uses_only(ir, n: int) -> bool:
    """Whether the body reads none of its parameters past the first n."""
    late = {p.id for p in ir.params[n:]}
    return not any(v.id in late for op in ir.body.ops for v in op.operands)
