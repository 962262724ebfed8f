"""Calls the lowering treats specially, and tiny helpers the lowered code calls.

Some builtins only make sense inside the frame of the function that calls them
(`locals()`, `super()`, `eval`); a transformed function runs in another frame,
so they are refused up front rather than silently doing something else.

Generated gradient code is itself code the compiler accepts.  Its long tapes spill
into typed blocks and refill from them (runtime/tapes.py); that changes how the
values are stored, never which value a pop returns, so differentiating that code
again lowers the two calls to nothing and the tape stays the plain list whose
append and pop have rules.
"""

from __future__ import annotations

import builtins
import functools

from ..runtime.partials import partial_closure

from ..runtime import tapes

_FRAME_BUILTINS = {builtins.locals, builtins.globals, builtins.vars, builtins.eval,
                   builtins.exec, builtins.super, builtins.breakpoint}


def join_strings(parts):
    """An f-string's pieces, already formatted, joined (f-strings carry no derivative)."""
    return "".join(parts)


def substitute_callee(obj):
    """The function a call of obj is compiled as: functools.partial as a closure the
    compiler differentiates (runtime/partials.py), anything else as itself."""
    return partial_closure if obj is functools.partial else obj


def lower_special_call(lowerer, obj, operands, star, kw, node):
    """Lower a call to `obj` specially, or return None for an ordinary call."""
    if obj is tapes.spill_tape or obj is tapes.refill_tape:  # storage only: see the docstring
        return lowerer.const(None, node)
    if obj is tapes.may_spill:  # nothing spills there: no check is needed
        return lowerer.const(False, node)
    objects = lowerer.lower_object_call(obj, operands, star, kw, node)  # lower_objects.py
    if objects is not None:
        return objects
    if obj is builtins.globals and not operands:
        # a function's globals() is its __globals__, which the transformed function shares
        # (codegen/generate.py compiles it over the same dict): generated code that makes a
        # closure passes it on, and differentiating that code again must accept it
        return lowerer.static(lowerer.pyfn.__globals__, "globals", node)
    try:
        special = obj in _FRAME_BUILTINS
    except TypeError:
        special = False
    if special:
        raise lowerer.unsupported(
            node, f"{obj.__name__}() depends on the calling frame, which a transformed function "
            "does not share", "pass the values you need explicitly")
