"""Intrinsics: the compiler's own helper functions that lowered IR calls, declared.

Lowering sometimes needs an operation Python has only as syntax (`a or b`
between early-exit flags).  It calls a small function here instead, and the
facts other stages need are declared beside it rather than attached to the
function object or recognised by its name:

- `pure`: the call may be removed when unused and folded on constants
  (analysis/purity.py);
- `python_syntax`: how codegen writes the call back as Python ("or": `a or b`).

This module sits in ir/ so that frontend/, analysis/, transforms/ and
codegen/ can all import it without an upward import.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Intrinsic:
    fn: object
    pure: bool = True
    python_syntax: str | None = None


INTRINSICS: dict[object, Intrinsic] = {}


def intrinsic(*, pure: bool = True, python_syntax: str | None = None):
    """Declare the decorated function an intrinsic."""
    def register(fn):
        INTRINSICS[fn] = Intrinsic(fn, pure, python_syntax)
        return fn
    return register


def lookup(fn) -> Intrinsic | None:
    try:
        return INTRINSICS.get(fn)
    except TypeError:  # an unhashable callee is never an intrinsic
        return None


def is_pure_intrinsic(fn) -> bool:
    found = lookup(fn)
    return found is not None and found.pure


# The name is printed in the IR's text form (golden files): keep it.
@intrinsic(pure=True, python_syntax="or")
def builtins_or(a, b):
    """Either early-exit flag is set (flags are plain bools)."""
    return a or b


# The strong zero between values known to be scalars (runtime/helpers.py `strong_zero`
# is the general helper; ad/splice.py puts this in its place where a rule's output is a
# known scalar).  Codegen writes it inline, `r if g else strong_zero(g, r)`: only a zero
# cotangent can need the strong zero, so the common case costs one truth test of g and
# no call.  g is passed twice so that it is a named value (read twice, never folded).
@intrinsic(pure=True, python_syntax="strong_zero")
def scalar_strong_zero(g, r, g_again=None):
    """r, or 0 where r is nan (0 * inf, 0 / 0) and the cotangent g is exactly 0."""
    if g != 0 or not math.isnan(r):
        return r
    return type(r)(0.0)
