"""Run-time checks behind the result-alias summaries (frontend/result_aliases.py).

A caller's alias tracking may rest on what a callee's result shares memory with; where
that summary rests on the object that is there while running (a method named like an
ndarray method, a method of a global object's class), these checks confirm it before the
result is used, or raise MutationError.  They compute nothing: no derivative flows
through them (rules/cotangents.py declares them non-differentiable).
"""

from __future__ import annotations

import numpy as np

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


def check_method_is(receiver, name: str, fn, loc=None) -> None:
    """After `receiver.name(...)`, whose result the caller's alias tracking took to be what
    fn, the method found when it was compiled, returns (frontend/result_aliases.py): the
    method called must have been fn."""
    cls = type(receiver)
    if _same_function(getattr(cls, name, None), fn) and \
            name not in getattr(receiver, "__dict__", {}) and \
            cls.__getattribute__ is object.__getattribute__:
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
