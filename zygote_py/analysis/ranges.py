"""Value ranges: where a real value certainly stays finite, or away from zero.

The strong zero (docs/limitations.md) makes a zero tangent entry contribute exactly 0
to a product `d * p` or a quotient `d / b` even where the factor p is infinite or the
divisor b is zero (`0 * inf`, `0 / 0`: nan under IEEE).  Forward mode only needs it
where that can happen: if p is never +-inf and b is never 0, `d * p` and `d / b` are
already 0 wherever d is.  This analysis finds such values, so that forward mode writes
the plain product there (ad/forward/inline.py) and keeps the helper's nan test for
the others.

Each value gets an interval [lo, hi] of the extended reals that holds every entry that
is not nan.  Nan entries are left out on purpose: a nan factor or divisor makes the
primal result nan at that entry as well (`a * nan`, `a / nan`), and forward mode's
tangent of an entry whose primal is nan is never the user's number: it reaches the
output only with the nan itself, or is dropped with it by a selection (np.where,
indexing, a branch), which drops its tangent too.  (An infinite primal entry is
different: np.tanh, np.exp(-x), 1 / x hide it, and there the strong zero matters.)

The intervals are computed in float64 from the operations below; anything else, a
parameter, a loop's carried value, a branch's result, and every value that may be
complex (analysis/complexity.py: sin(1000j) is infinite) is unknown.  "Finite" and
"away from zero" are judged with a wide margin (BIG, TINY), so that the answer holds
in float16 and float32 too, whose overflow and underflow come much sooner.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from ..ir.core import Function, Op, Value

INF = math.inf
UNKNOWN = (-INF, INF)
BIG = 6.0e4  # below float16's largest value (65504): finite in every float dtype
TINY = 1.0e-4  # above float16's smallest normal value (6.1e-5): nonzero in every float dtype


def finite(interval) -> bool:
    """Whether every entry (nan aside) is finite, in any float dtype."""
    lo, hi = interval
    return -BIG <= lo and hi <= BIG


def away_from_zero(interval) -> bool:
    """Whether no entry (nan aside) is zero, in any float dtype."""
    lo, hi = interval
    return lo >= TINY or hi <= -TINY


# -- transfer functions: operand intervals -> the result's ----------------------------------


def _times(x: float, y: float) -> float:
    """An endpoint product; 0 * inf is 0 (the entry it stands for is 0 * finite, or nan)."""
    return 0.0 if x == 0 or y == 0 else x * y


def _hull(*points: float):
    points = [p for p in points if not math.isnan(p)]
    return (min(points), max(points)) if points else UNKNOWN


def _add(a, b):
    return _hull(a[0] + b[0], a[1] + b[1]) if not (INF in (a[1], b[1]) and -INF in (a[0], b[0])) \
        else UNKNOWN


def _sub(a, b):
    return _add(a, _neg(b))


def _neg(a):
    return (-a[1], -a[0])


def _mul(a, b):
    return _hull(_times(a[0], b[0]), _times(a[0], b[1]), _times(a[1], b[0]), _times(a[1], b[1]))


def _square(a):
    lo, hi = a
    if lo >= 0:
        return (lo * lo, hi * hi)
    if hi <= 0:
        return (hi * hi, lo * lo)
    return (0.0, max(lo * lo, hi * hi))


def _div(a, b):
    if not (b[0] > 0 or b[1] < 0):
        return UNKNOWN  # a divisor that may be 0: anything
    inv = (1.0 / b[1], 1.0 / b[0])  # 1 / [lo, hi] for an interval of one sign (1 / inf = 0)
    return _mul(a, inv)


def _monotone(fn):
    def transfer(a):
        with np.errstate(all="ignore"):
            return _hull(float(fn(a[0])), float(fn(a[1])))
    return transfer


def _log(fn, lowest):
    def transfer(a):
        if a[1] <= lowest:
            return UNKNOWN  # nan or -inf only
        with np.errstate(all="ignore"):
            return (float(fn(max(a[0], lowest))), float(fn(a[1])))
    return transfer


def _sqrt(a):
    if a[1] < 0:
        return UNKNOWN
    return (math.sqrt(max(a[0], 0.0)), math.sqrt(a[1]))


def _abs(a):
    lo, hi = a
    if lo >= 0:
        return a
    if hi <= 0:
        return (-hi, -lo)
    return (0.0, max(-lo, hi))


def _bounded(lo, hi):
    return lambda *_: (lo, hi)


_UNARY = {
    operator.neg: _neg, np.negative: _neg, operator.pos: lambda a: a, np.positive: lambda a: a,
    np.square: _square,
    np.exp: _monotone(np.exp), np.expm1: _monotone(np.expm1), np.exp2: _monotone(np.exp2),
    np.log: _log(np.log, 0.0), np.log1p: _log(np.log1p, -1.0), np.log2: _log(np.log2, 0.0),
    np.log10: _log(np.log10, 0.0), np.sqrt: _sqrt,
    np.abs: _abs, np.absolute: _abs, abs: _abs, operator.abs: _abs,
    np.sin: _bounded(-1.0, 1.0), np.cos: _bounded(-1.0, 1.0), np.tanh: _bounded(-1.0, 1.0),
    math.sin: _bounded(-1.0, 1.0), math.cos: _bounded(-1.0, 1.0), math.tanh: _bounded(-1.0, 1.0),
    np.arctan: _bounded(-math.pi / 2, math.pi / 2), math.atan: _bounded(-math.pi / 2, math.pi / 2),
}
_BINARY = {
    operator.add: _add, np.add: _add, operator.sub: _sub, np.subtract: _sub,
    operator.mul: _mul, np.multiply: _mul, operator.truediv: _div, np.divide: _div,
}


def transfer(fn, operands: list[Value], interval_of) -> tuple[float, float]:
    """The interval of `fn(*operands)` (a call with positional operands only), given
    interval_of(value) for its operands."""
    try:
        unary, binary = _UNARY.get(fn), _BINARY.get(fn)
    except TypeError:  # an unhashable callable
        return UNKNOWN
    if unary is not None and len(operands) == 1:
        return unary(interval_of(operands[0]))
    if binary is not None and len(operands) == 2:
        a, b = operands
        if fn in (operator.mul, np.multiply):
            if a is b:
                return _square(interval_of(a))  # x * x is never negative
            if _negation_of(a) is b or _negation_of(b) is a:
                return _neg(_square(interval_of(b)))  # -x * x is never positive
        return binary(interval_of(a), interval_of(b))
    if fn in (operator.pow, np.power) and len(operands) == 2 and _constant(operands[1]) in (2, 2.0):
        return _square(interval_of(operands[0]))
    if fn is np.where and len(operands) == 3:
        return _hull(*interval_of(operands[1]), *interval_of(operands[2]))
    return UNKNOWN


def _negation_of(value: Value):
    """x for a value `-x`, else None."""
    op = value.defining_op
    if op is not None and op.opcode == "call" and op.attrs.get("fn") in (operator.neg, np.negative) \
            and len(op.operands) == 1 and not op.attrs.get("kw"):
        return op.operands[0]
    return None


def _constant(value: Value):
    op = value.defining_op
    return op.attrs["value"] if op is not None and op.opcode == "const" else None


def constant_interval(value) -> tuple[float, float]:
    """A literal's interval: a real number, or a real array of finite entries."""
    if isinstance(value, bool) or type(value) in (int, float) or isinstance(value, np.floating):
        v = float(value)
        return (v, v) if math.isfinite(v) else UNKNOWN
    if type(value) is np.ndarray and value.size and value.dtype.kind in "fiu":
        lo, hi = float(value.min()), float(value.max())
        return (lo, hi) if math.isfinite(lo) and math.isfinite(hi) else UNKNOWN
    return UNKNOWN


def op_interval(op: Op, interval_of) -> tuple[float, float]:
    """The interval of op's one result: a constant, or a call the table above knows."""
    if op.opcode == "const":
        return constant_interval(op.attrs["value"])
    if op.opcode == "call" and len(op.results) == 1 and not op.attrs.get("kw") \
            and not op.attrs.get("star"):
        return transfer(op.attrs.get("fn"), list(op.operands), interval_of)
    return UNKNOWN


def value_ranges(fn: Function, maybe_complex: set[int], numeric=None) -> dict[int, tuple[float, float]]:
    """Value id -> interval, for the values of fn whose interval is known (not UNKNOWN).
    Ops are visited in order, so every operand's interval is final when it is read
    (a loop's carried values and a branch's results stay unknown).  numeric(value):
    whether a value is certainly an array or a number (analysis/receivers.py's ARRAY);
    an op with another operand (a list: `p * 0` repeats it; an object of the user's
    with its own operators) gets no interval."""
    known: dict[int, tuple[float, float]] = {}

    def interval_of(v: Value):
        return known.get(v.id, UNKNOWN)

    def is_numeric(v: Value) -> bool:
        op = v.defining_op
        if op is not None and op.opcode == "const":
            return constant_interval(op.attrs["value"]) != UNKNOWN
        return numeric is None or numeric(v)

    for op in fn.walk():
        if len(op.results) != 1 or op.result.id in maybe_complex \
                or any(x.id in maybe_complex or not is_numeric(x) for x in op.operands):
            continue
        found = op_interval(op, interval_of)
        if found != UNKNOWN:
            known[op.result.id] = found
    return known
