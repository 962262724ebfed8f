"""Activity analysis: which values depend differentiably on the active inputs.

A value is *varied* when it is computed from an active parameter through ops
that carry derivatives.  Comparisons, integer-valued functions (len, argmax,
floor, shapes) and everything registered as non-differentiable cut the chain.
Loop slots are solved to a fixed point.  Whether a varied value also reaches
the output is decided later, for free: the reverse transform only emits
adjoint code where a cotangent actually arrives.
"""

from __future__ import annotations

import operator
import types

from ..ir.core import Function, Op
from .flow import propagate
from ..resolve import CONSTRUCT, resolve
from ..rules import registry
from ..runtime.writes import ArgumentWrites


def call_is_differentiable(fn) -> bool:
    """Whether a call of fn may propagate derivatives from its arguments."""
    try:
        if registry.is_nondifferentiable(fn):
            return False
    except TypeError:
        return True
    return True


def varied_values(fn: Function, active: list[bool], extra_roots=(), implicit: bool = False,
                  arrays: set[int] | None = None) -> set[int]:
    """Ids of the values of fn that depend differentiably on the active params.

    With implicit (parameters read from globals, see ad/implicit.py), calls of
    Python functions and methods vary even with no varied argument: the
    callee may read a parameter itself.  `arrays` holds the values known to be
    arrays or numbers (analysis/receivers.py; None: all of them): only their
    methods and attributes are judged by the ndarray entries of the registry,
    another object's `.shape` or `.argmax()` may well carry a derivative.
    """

    def array_receiver(op: Op) -> bool:
        return arrays is None or op.operands[0].id in arrays

    varied = {p.id for p, a in zip(fn.params, active) if a}
    varied.update(extra_roots)

    def op_varies(op: Op) -> bool:
        if implicit and may_read_parameters(op, arrays):
            return True
        if op.opcode == "call" and builds_object(op.attrs["fn"]):
            return True  # its attributes may be written with derivatives later (built_objects.py)
        if not any(v.id in varied for v in op.operands):
            return False
        code = op.opcode
        if code == "call":
            fn = op.attrs["fn"]
            return call_is_differentiable(fn) or \
                (arrays is not None and object_operator(fn, op, arrays))
        if code == "getattr":
            return not (array_receiver(op) and attribute_is_nondifferentiable(op.attrs["name"]))
        if code == "method":
            return not (array_receiver(op) and
                        registry.method_is_nondifferentiable(_ndarray(), op.attrs["name"]))
        return code not in ("assert", "raise", "undef", "yield", "return")

    return propagate(fn, varied, op_varies)


def builds_object(fn) -> bool:
    """Calling fn builds an object with transformed code (resolve.CONSTRUCT)."""
    return isinstance(fn, type) and resolve(fn, registry).kind == CONSTRUCT


def object_operator(fn, op: Op, plain) -> bool:
    """An operator with no derivative between numbers and arrays (`//`, `%`, `&`, `~`,
    ...) applied to an operand that may be an object: the object's own method decides,
    and may carry a derivative (decided while running, calls/dispatch.py)."""
    from ..resolve import OPERATOR_METHODS

    try:
        if fn not in OPERATOR_METHODS:
            return False
    except TypeError:
        return False
    return any(v.id not in plain for v in op.operands[:1 if fn is operator.getitem else None])


def attribute_is_nondifferentiable(name: str) -> bool:
    """Whether reading attribute `name` of an array never carries a derivative (x.shape,
    x.imag): as registered in rules/nondiff.py, the one source of these facts."""
    return registry.attr_is_nondifferentiable(_ndarray(), name)


def may_read_parameters(op: Op, arrays: set[int] | None = None) -> bool:
    """A call that runs Python code of the user's (which may read globals); a method of
    a value not among `arrays` (see varied_values) may be the user's whatever its name."""
    code = op.opcode
    if code == "call":
        fn = op.attrs["fn"]
        if type(fn) is ArgumentWrites:  # a call of fn that also returns what it wrote
            fn = fn.fn
        rule = registry.function_rule(fn)
        if rule is not None and rule.meta.get("calls_function"):
            return True  # odeint runs the function it is given (its rule then refuses)
        return isinstance(fn, types.FunctionType) and rule is None \
            and registry.custom_rule(fn) is None and call_is_differentiable(fn)
    if code == "callv":
        return True
    if code == "method":
        return not (arrays is None or op.operands[0].id in arrays) or \
            not registry.method_is_nondifferentiable(_ndarray(), op.attrs["name"])
    return False


def _ndarray():
    import numpy as np

    return np.ndarray
