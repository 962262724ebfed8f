"""Run-time checks behind the result-alias summaries (frontend/result_aliases.py).

A caller's alias tracking may rest on what a callee's result shares memory with; where
that summary rests on the object that is there while running (a method named like an
ndarray method, a method of a global object's class), these checks confirm it before the
result is used, or raise MutationError.  They compute nothing: no derivative flows
through them (rules/cotangents.py declares them non-differentiable).
"""

from __future__ import annotations

import inspect
import types

import numpy as np

from .. import context
from ..errors import MutationError

_ndarray = np.ndarray



def check_array_method(receiver, name: str, loc=None) -> None:
    """Before `receiver.name(...)` in a function whose result-alias summary takes the
    method, named like an ndarray's, to return a view or copy of its receiver
    (frontend/result_aliases.py): the receiver must be an ndarray or a number."""
    if isinstance(receiver, (_ndarray, np.generic, int, float, complex)):
        return
    raise MutationError(
        f"{type(receiver).__name__}.{name}() is called where zygote_py took the method, named "
        "like an ndarray method, to return its receiver's memory or a new array (to know "
        "what the function's result may share memory with); on this object that cannot be "
        "assumed", loc, "convert the object to an array first (np.asarray), or call the "
        "method outside the function")


def check_method_is(receiver, name: str, fn, loc=None, assumed=None, call=None) -> None:
    """After `receiver.name(...)`, whose result the caller's alias tracking took to be what
    fn, the method found when it was compiled, returns (frontend/result_aliases.py): the
    method called must have been fn, or a method whose result may share memory with no
    more of the call's operands than fn's may (`assumed`, by `summary_positions`; `call`
    is (positional count, keywords)): a subclass overriding a method its base calls on
    `self` (`Module.__call__` calling `self.forward`) usually returns a new value."""
    cls = type(receiver)
    if cls.__getattribute__ is object.__getattribute__ and \
            name not in getattr(receiver, "__dict__", {}):
        found = getattr(cls, name, None)
        if _same_function(found, fn) or _summary_within(found, assumed, call):
            return
    raise MutationError(
        f"{cls.__name__}.{name} is not the method {getattr(fn, '__qualname__', name)} that "
        "was there when this function was compiled, whose result it took to share memory "
        "only with what that method returns", loc,
        "keep the object's class and its methods unchanged while differentiating, or call "
        "the method on an argument")


def _same_function(found, fn) -> bool:
    """found is fn, or a copy of it made from the same source (a standalone module written
    by `zygote-py grad` defines its own copies of the user's classes and functions)."""
    if found is fn:
        return True
    a, b = getattr(found, "__code__", None), getattr(fn, "__code__", None)
    return a is not None and b is not None and \
        getattr(found, "__qualname__", None) == getattr(fn, "__qualname__", None) and \
        a.co_code == b.co_code and a.co_names == b.co_names and \
        a.co_varnames == b.co_varnames


EXTERNAL = "external"  # a summary's mark for "may be a module global or closure value"


def bind_parameters(fn, npos: int, kw: tuple) -> list | None:
    """For a call of fn with npos positional operands then keywords kw: per parameter (in
    fn's order), the operand index passed for it, or None where its default is used.  None
    when the call does not fit."""
    try:
        sig = inspect.signature(fn, follow_wrapped=False)
        bound = sig.bind(*range(npos), **{k: npos + i for i, k in enumerate(kw)}).arguments
    except (TypeError, ValueError):
        return None
    return [bound.get(name) for name in sig.parameters]


def summary_positions(fn, summary, npos: int, kw: tuple):
    """What the result of a call of fn may share memory with, by fn's summary (a set of
    parameter indices and EXTERNAL): the call's operand indices, with EXTERNAL for a module
    global, a closure value or a parameter's default.  None when the call does not fit."""
    binding = bind_parameters(fn, npos, kw)
    if binding is None or summary is None:
        return None
    out = set()
    for item in summary:
        if item == EXTERNAL or binding[item] is None:
            out.add(EXTERNAL)
        else:
            out.add(binding[item])
    return frozenset(out)


def _summary_within(found, assumed, call) -> bool:
    """Whether found, a Python function, returns what may share memory with no more than
    assumed (operand positions) for this call: read from its own summary, which the
    compiler of the gradient call running now lowers it for (never in a standalone
    module, which has no compiler: there the check stays strict)."""
    if assumed is None or call is None or not isinstance(found, types.FunctionType):
        return False
    # (a standalone module's stand-in context has no compiler: getattr, not the attribute,
    # so that this check can be copied into one, where it stays strict)
    compiler = getattr(context.current(), "compiler", None)
    if compiler is None:
        return False
    positions = summary_positions(found, compiler.result_aliases_of(found), *call)
    return positions is not None and positions <= assumed
