"""Forward mode through in-place writes: the tangents the generated jvp code computes.

Forward mode (ad/forward/writes.py) gives every SSA value of an array its own
tangent, as it does for any value.  A write `x = write_item(x, i, v)` makes a
new SSA value of the same object, and its tangent is x's tangent with the
written region replaced by v's (`x_dot[i] = v_dot`: masks, integer arrays with
NumPy's last write winning, `...`, broadcasting, all as the primal write does
them, because it *is* the same assignment on the tangent).  Every other name
that may share memory with x is rebound by the lowering to
`view_writeback(m, x)`; its tangent takes, element by element, the new tangent
of the elements it shares with x (matched by address, as reverse mode matches
them).  So a view's tangent is always the same view of the base's tangent, and
a write through a view lands in the base's tangent, without forward mode
having to mirror NumPy's memory.

A tangent is a value: the write's tangent is a new array, unless the old
tangent can be updated in place.  That needs two facts: the transform proved
that nothing reads the old tangent after the write (`in_place`), and while
running nothing but the generated code's one variable refers to the array (its
reference count, as runtime/writes.overwritten_cotangent decides; a view of
it, a list or tape holding it, or the caller's seed would count).  A fill loop
then costs O(1) per write.

The helpers of gradient code that save and restore what a write destroys
(saved_region, restore_region, snapshot, ...) need no tangent work of their own
when forward mode runs over a gradient (zp.hessian): each SSA value keeps the
tangent it had when it was made, and the backward reads a value only while the
array holds what it held then, which is what the restores guarantee.
"""

from __future__ import annotations

import inspect
import sys

import numpy as np

from .. import context
from ..errors import NoDerivativeRule, ZygoteError
from ..kinds import scalar_kinds
from . import forward_containers, writes

_ndarray = np.ndarray


def _tangent_dtype(x):
    """The dtype of a tangent for the array x: its own for floats and complex numbers;
    None for integer and boolean arrays, whose values have no derivative (as item_tangent
    decides inline)."""
    kind = x.dtype.kind
    return x.dtype if kind in "fc" else None


def _dense(tangent):
    """A tangent written as an array: lists and tuples of tangents (a list literal
    written into an array), with None for a zero item, made into one array."""
    if isinstance(tangent, (list, tuple)):
        parts = [0.0 if t is None else _dense(t) for t in tangent]
        return np.array(parts)
    return tangent


def _count(a) -> int:
    return sys.getrefcount(a)


def _alone(buffer) -> bool:
    """Whether item_tangent may write into its x_dot: an array owning its memory, writable,
    that nothing but one variable of the generated code refers to (no view of it, no list,
    tape or caller holding it)."""
    return type(buffer) is _ndarray and buffer.base is None and buffer.flags.writeable and \
        _count(buffer) <= _SOLE_REFS


def _refs_as_alone_sees(buffer) -> int:  # _alone's own shape: one call below item_tangent
    return _count(buffer)


def _measure_sole_refs() -> int:
    """The count `_count` sees inside _alone, called from item_tangent, for an array held by
    exactly one variable of the generated code (measured: it differs between Pythons)."""
    seen = []

    def probe_item_tangent(x, index, x_dot, value_dot, in_place=False):
        seen.append(_refs_as_alone_sees(x_dot))

    def generated_code():
        held = np.empty(0)
        probe_item_tangent(None, None, held, None, True)

    generated_code()
    return seen[0]


_SOLE_REFS = _measure_sole_refs()


def _fresh_copy(x, x_dot, dtype):
    if x_dot is None:
        return np.zeros(x.shape, dtype=dtype)
    # C order: writeback_tangent writes through reshape(-1) at flat C positions, which on an
    # F-ordered copy (the tangent of a transpose) would write into a discarded copy
    buffer = np.array(np.broadcast_to(x_dot, x.shape), dtype=np.result_type(x_dot, dtype),
                      copy=True, order="C")
    return buffer


def item_tangent(x, index, x_dot, value_dot, in_place=False):
    """The tangent of x after `x[index] = value` (x already written): x_dot with the region
    replaced by value_dot (None: zero).  Updated in place only when the transform proved the
    old tangent is not read again (in_place) and nothing else holds the array."""
    if type(x) is not _ndarray:
        if type(x) is list or type(x) is dict:  # an item of a list or dict from outside
            return forward_containers.item_tangent(x, index, x_dot, value_dot)
        return None  # (the primal write refused anything else)
    kind = x.dtype.kind
    if kind not in "fc" or (x_dot is None and value_dot is None):
        return None  # integers and booleans have no derivative
    if in_place and x_dot is not None and _alone(x_dot) and x_dot.shape == x.shape:
        buffer = x_dot
    else:
        buffer = _fresh_copy(x, x_dot, x.dtype)
    if value_dot is None:
        buffer[index] = 0
        return buffer
    if type(value_dot) in (list, tuple):
        value_dot = _dense(value_dot)
    if type(value_dot) not in _REAL_SCALARS and buffer.dtype.kind != "c" and \
            np.iscomplexobj(value_dot):
        value_dot = np.real(value_dot)  # the primal write dropped the imaginary part too
    buffer[index] = value_dot
    return buffer


_REAL_SCALARS = (float, int, np.float64, np.float32)


def augmented_tangent(y, new, new_dot):
    """The tangent of `y op= v` (runtime/writes.augmented_write) given new = `y op v`'s: an
    ndarray is written in place, so it holds new's values (cast to y's dtype, broadcast to
    its shape); anything else is rebound to new, whose tangent it takes."""
    if type(y) is not _ndarray:
        return new_dot
    dtype = _tangent_dtype(y)
    if dtype is None or new_dot is None:
        return None
    if np.iscomplexobj(new_dot) and dtype.kind != "c":
        new_dot = np.real(new_dot)
    return np.array(np.broadcast_to(new_dot, y.shape), dtype=dtype, copy=True)


def same_if_written_tangent(old, new, old_dot, new_dot):
    """The tangent of runtime/writes.same_if_written: new's where y was written in place."""
    return new_dot if new is old else old_dot


def writeback_tangent(m, t, m_dot, t_dot):
    """The tangent of m, another name, after a write into t (runtime/writes.view_writeback):
    the elements m shares with t take t's new tangent; the others keep m's."""
    if m is t:
        return t_dot
    if type(t) is _ndarray and type(m) in (list, tuple, dict):
        return _held_writeback_tangent(m, t, m_dot, t_dot)
    if type(t) in (float, int, complex, bool) or isinstance(t, np.generic):
        return m_dot  # `y op= v` rebound a number: nothing anyone holds changed
    if type(t) is _ndarray and writes._tracked_object(m) and \
            (m_dot is not None or t_dot is not None):
        # reverse mode moves the ledger's derivatives (runtime/writes._move_ledger_slots);
        # forward mode has no per-attribute tangents of such an object to update yet
        raise NoDerivativeRule("forward mode (zp.jvp, zp.hessian, a forward zp.jacobian) does "
                               "not follow a write into an array that an object holds",
                               hint="use reverse mode (zp.gradient) for this function")
    if type(m) is not _ndarray or type(t) is not _ndarray:
        return m_dot  # another container than the one written (view_writeback refused a holder)
    dtype = _tangent_dtype(m)
    if dtype is None:
        return None
    positions = writes.shared_positions(m, t)
    if not positions:  # None: no element shared (False was refused by view_writeback)
        return m_dot
    if m_dot is None and t_dot is None:
        return None
    pos_m, pos_t = positions
    out = _fresh_copy(m, m_dot, dtype)
    # the positions count in C order: a view of out in that order, written through (a
    # tangent copied from a transposed one keeps its layout, and reshape would then copy,
    # leaving out unwritten: the jvp through `buf = np.stack(...).T; buf[0] *= c` was wrong)
    if not out.flags.c_contiguous:  # (never a 0-d array: those are contiguous)
        out = np.ascontiguousarray(out)
    flat = out.reshape(-1)
    flat[pos_m] = 0 if t_dot is None else np.ravel(np.broadcast_to(t_dot, t.shape))[pos_t]
    return out


def _held_writeback_tangent(m, t, m_dot, t_dot):
    """writeback_tangent where m is a list, tuple or dict holding (views of) the written
    array t: each array item's tangent takes t's at the elements it shares with t.  The
    tangent of such a container mirrors it (a list, tuple or dict of tangents, None for
    zero), as runtime/writes.view_writeback's cotangents do."""
    if type(m_dot) not in (list, tuple, dict, type(None)):
        raise NoDerivativeRule(f"forward mode cannot follow a write into an array held by a "
                               f"{type(m).__name__} whose tangent is a "
                               f"{type(m_dot).__name__}", None,
                               "use reverse mode (zp.gradient) for this function")
    out = m_dot
    for path, item in writes._held_items(m):
        positions = writes.shared_positions(item, t) if type(item) is _ndarray else None
        if not positions:
            continue
        item_dot = writes._cotangent_at(m_dot, path)
        if item_dot is None and t_dot is None:
            continue
        dtype = _tangent_dtype(item)
        if dtype is None:
            continue
        new = _fresh_copy(item, item_dot, dtype)
        new.reshape(-1)[positions[0]] = 0 if t_dot is None else \
            np.ravel(np.broadcast_to(t_dot, t.shape))[positions[1]]
        out = writes._with_cotangent_at(_filled(out, m), path, new)
    return out


def _filled(m_dot, m):
    """m_dot with every None standing for a nested list, tuple or dict made explicit."""
    if m_dot is None:
        return _empty_tangent(m)
    if type(m) is dict:
        return {k: _filled(m_dot.get(k), v) if type(v) in (list, tuple, dict) else m_dot.get(k)
                for k, v in m.items()}
    parts = [_filled(d, v) if type(v) in (list, tuple, dict) else d for d, v in zip(m_dot, m)]
    return tuple(parts) if type(m) is tuple else parts


def _empty_tangent(m):
    """A tangent of m's structure with every part zero (None)."""
    if type(m) is dict:
        return {k: _empty_tangent(v) if type(v) in (list, tuple, dict) else None
                for k, v in m.items()}
    parts = [_empty_tangent(v) if type(v) in (list, tuple, dict) else None for v in m]
    return tuple(parts) if type(m) is tuple else parts


def region_tangent(x_dot, index):
    """The tangent of runtime/writes.saved_region(x, index): a copy of x_dot[index]."""
    if x_dot is None:
        return None
    if type(x_dot) is list or type(x_dot) is dict:  # an item of a list or dict from outside
        return forward_containers.region_tangent(x_dot, x_dot, index)
    part = x_dot[index]
    return part.copy() if type(part) is _ndarray else part


def whole_tangent(y, y_dot):
    """The tangent of runtime/writes.saved_whole(y): a copy of y's tangent (y an array)."""
    if y_dot is None or type(y) is not _ndarray:
        return None  # (saved_whole saves nothing of what is not an array)
    return np.array(y_dot, copy=True)


def linear_tangent(fn, g_dot, *rest):
    """The tangent of fn(g, *rest) for a function linear in g (the cotangent helpers of
    gradient code: written_value_cotangent, overwritten_cotangent, the writeback splits):
    fn of g's tangent.  g_dot is copied first, so an in-place shortcut of fn cannot touch
    a tangent something else holds."""
    if g_dot is None:
        return None
    if type(g_dot) is _ndarray:
        g_dot = g_dot.copy()
    return fn(g_dot, *rest)


# -- functions that write into the arrays they are passed (runtime/writes.ArgumentWrites) -----
def _varies(t) -> bool:
    if t is None:
        return False
    if type(t) in (list, tuple):
        return any(map(_varies, t))
    if type(t) is dict:
        return any(map(_varies, t.values()))
    return True


def argument_writes_jvp(wrapper, wrapper_dot, args: tuple, tangents: tuple, spec: tuple, loc):
    """`(r, *written) = ArgumentWrites(f, ...)(*args)` in forward mode: the forward-mode
    program of f's threaded variant (the same body, returning its result and the written
    arguments' arrays as it leaves them, frontend/lower.py) gives the tangents of all of
    them, so the caller's names of those arrays take their tangents after the call."""
    fn = wrapper.fn
    compiler = context.current().compiler
    jvp_entry = getattr(compiler, "jvp_entry", None)
    if jvp_entry is None:
        raise ZygoteError("forward-mode code ran outside zp.jvp", loc,
                          "call generated forward code through zp.jvp")
    if "*" in spec or "**" in spec:
        raise NoDerivativeRule(f"forward mode does not follow a call of {wrapper.__name__}() "
                               "with *args or **kwargs that writes into its arguments", loc,
                               "pass the arguments one by one")
    npos = sum(1 for s in spec if s is None)
    kwargs = {s: a for s, a in zip(spec[npos:], args[npos:])}
    tkwargs = {s: t for s, t in zip(spec[npos:], tangents[npos:]) if t is not None}
    sig = inspect.signature(fn, follow_wrapped=False)  # the parameters of fn's own code
    bound = sig.bind(*args[:npos], **kwargs)
    bound.apply_defaults()
    values = list(bound.arguments.values())
    tbound = sig.bind_partial(*tangents[:npos], **tkwargs).arguments
    param_tangents = [tbound.get(name) for name in sig.parameters]
    active = tuple(_varies(t) for t in param_tangents)
    if not any(active):
        return wrapper(*args[:npos], **kwargs), None
    compiled = jvp_entry(fn, active, (), scalar_kinds(values), threads=wrapper.params)
    return compiled(*values, *[t for t, a in zip(param_tangents, active) if a])


def overwritten_cotangent(g, index):
    """runtime/writes.overwritten_cotangent in forward-mode code over a gradient: g with the
    written region zeroed, always on a copy (the tangent code around it may still read g)."""
    if g is None:
        return None
    if type(g) is list or type(g) is tuple or type(g) is dict:
        return writes.overwritten_cotangent(g, index)  # (a copy for these)
    out = np.array(g, copy=True)
    out[index] = 0
    return out


# generated code writes out its pending expressions before a call that may write into an
# array they read (codegen/emit.py): item_tangent may write into the old tangent
item_tangent._zp_writes = True
