"""Python's operator protocol and NumPy's hand-off to objects, while running.

`a + b` means `type(a).__add__(a, b)`, then, if that is missing or returns
NotImplemented, `type(b).__radd__(b, a)` (first, when type(b) is a subclass
of type(a) overriding it); `np.sum(obj)` on an object that is not an ndarray
means `obj.sum(axis=None, out=None)`.  When an operand of such a call is an
object of a user type, the registered rule of `operator.add` or `np.sum` is
not what runs, so neither run-time dispatcher (calls/dispatch.py and the
copy standalone modules carry, aot/standalone_runtime.py) may apply it.  The
decisions are resolve.py's (`operator_candidates`, `numpy_handoff`); this
module runs them, with the dispatcher's own way of differentiating a Python
method passed in (`method_pullback(method, receiver, others) -> (y, back)`,
back giving the receiver's cotangent then the others'), so that both
dispatchers follow one protocol.  What cannot be differentiated exactly (a
builtin method applied to a user object, such as ndarray * obj making an
object array) raises the dispatcher's error (`fail(message, hint)`: a
ZygoteError at the call site in process) rather than returning a number.
"""

from __future__ import annotations

import types

import numpy as np

from ..resolve import OPERATOR_METHODS, is_plain_operand, operator_candidates

_SYMBOLS = {"__add__": "+", "__sub__": "-", "__mul__": "*", "__truediv__": "/",
            "__floordiv__": "//", "__mod__": "%", "__pow__": "** or pow()", "__matmul__": "@",
            "__neg__": "unary -", "__pos__": "unary +", "__abs__": "abs()",
            "__getitem__": "[]"}


def call_operator(fn, operands: tuple, method_pullback, active, fail):
    """(y, back) of fn(*operands) by Python's protocol, or None when the registered rule
    applies (every operand plain).  back(g) gives one cotangent per operand."""
    candidates = operator_candidates(fn, operands)
    if candidates is None:
        return None
    n = len(operands)
    for method, receiver, others, positions in candidates:
        if isinstance(method, types.FunctionType):
            y, back = method_pullback(method, receiver, others)
            if y is NotImplemented:
                continue
            receiver_position = next(i for i in range(n) if i not in positions)
            # keep the mark of a method that builds or writes objects (built_objects.py):
            # its back must run even when no cotangent reaches its result directly
            reordered = _reordered(back, receiver_position, positions, n)
            if getattr(back, "_zp_effects", False):
                reordered._zp_effects = True
            return y, reordered
        bound = method.__get__(receiver, type(receiver)) if hasattr(type(method), "__get__") \
            else method
        y = bound(*others)
        if y is NotImplemented:
            continue
        if any(map(active, operands)):
            kinds = " and ".join(type(v).__name__ for v in operands)
            what = _describe(fn)  # outside the f-string: standalone copies rename names
            raise fail(f"{what} of {kinds} runs the builtin {type(receiver).__name__}"
                       " method on an object of another type, which has no derivative (NumPy, "
                       "for one, applies the operation to the object element by element)",
                       "give the object's class the method (and `__array_ufunc__ = None`, so "
                       "that NumPy defers to it)")
        return y, lambda g: (None,) * n
    kinds = "' and '".join(type(v).__name__ for v in operands)
    what = _describe(fn)
    raise TypeError(f"unsupported operand type(s) for {what}: '{kinds}'")


def _reordered(back, receiver_position: int, positions: tuple, n: int):
    """back(g) -> (receiver's cotangent, *others') -> one cotangent per operand, in order."""
    def per_operand(g):
        receiver_bar, *other_bars = back(g)
        out = [None] * n
        out[receiver_position] = receiver_bar
        for position, bar in zip(positions, other_bars):
            out[position] = bar
        return tuple(out)

    return per_operand


def refuse_object_operands(fn, args: tuple, kwargs: dict, fail) -> None:
    """A NumPy rule is written for arrays and numbers: an object of another type (a user
    array type with __array_ufunc__, an object NumPy would wrap in an object array)
    passed to it is an error, not the rule's number."""
    for value in (*args, *kwargs.values()):
        if not is_plain_operand(value) and not callable(value) and not isinstance(value, np.dtype):
            what = _describe(fn)
            operand = _described_operand(value)  # (outside the f-string: aot/ renames names)
            raise fail(f"{what} is called with {operand}, for which its "
                       "derivative rule (written for arrays and numbers) does not hold",
                       "pass an ndarray (np.asarray(...)), or register a rule with "
                       "@zp.adjoint for a function that takes the object")


def refuse_numpy_object_operands(fn, args: tuple, kwargs: dict, fail) -> None:
    """refuse_object_operands where fn is a NumPy function, a ufunc or a ufunc's method
    (`np.sum([obj, obj])` makes an object array whose arithmetic is the objects' own)."""
    if is_numpy_callable(fn):
        refuse_object_operands(fn, args, kwargs, fail)


def _described_operand(value) -> str:
    """'an object of type W', or 'a list holding W objects' (NumPy makes an object array of
    it, whose arithmetic is the objects' own methods)."""
    if type(value) in (list, tuple):
        held = type(_first_object(value)).__name__  # (outside the f-string: aot/ renames names)
        return f"a {type(value).__name__} holding {held} objects"
    return f"an object of type {type(value).__name__}"


def _first_object(items):
    """The first item, at any depth of lists and tuples, that is not plain."""
    for item in items:
        if not is_plain_operand([item]):
            return _first_object(item) if type(item) in (list, tuple) else item
    return None


def is_numpy_callable(fn) -> bool:
    """fn is a NumPy function, a ufunc or a ufunc's method (np.add.reduce): its rule is
    written for arrays and numbers."""
    return isinstance(fn, np.ufunc) or isinstance(getattr(fn, "__self__", None), np.ufunc) \
        or (getattr(fn, "__module__", None) or "").startswith("numpy")


def _describe(fn) -> str:
    names = OPERATOR_METHODS.get(fn) if isinstance(fn, types.BuiltinFunctionType) else None
    if names is not None:
        return _SYMBOLS.get(names[0], names[0])
    return getattr(fn, "__name__", repr(fn))
