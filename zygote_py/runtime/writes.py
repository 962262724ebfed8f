"""In-place writes into arrays: what the generated code calls (docs/mutation.md).

The primal form of `x[i] = v` is `x = write_item(x, i, v, loc)`: the real write,
into the real array, returning the same object, so every alias sees it as in
Python.  The forward a gradient runs saves what the write destroys first
(`saved_region`) and logs the array; the backward, walking the program in
reverse, puts it back (`restore_region`) exactly where the write happened, so
the adjoints of earlier ops read the values they saw.  The cotangent of the
write splits in two: the written region goes to the value written
(`written_value_cotangent`, NumPy's last write wins for repeated indices) and
the rest to the array as it was (`overwritten_cotangent`).  A backward starts
by copying the final state of every array the forward wrote (`snapshot`) and
ends by writing it back (`restore_final`): the caller, the returned value and
a second run of a pullback see what the forward left.

`y += x` on a name is `y = augmented_write(y, y + x, loc)`: in place when y is
an ndarray (with NumPy's casting and shape rules), a rebinding otherwise.

`check_unaliased` is the run-time side of the compiler's alias tracking: a value
that may share memory with an array written since it was made is read only if
it really does not.
"""

from __future__ import annotations

import functools
import sys
import types

import numpy as np

from ..errors import MutationError
from .outside_containers import holds

_ndarray = np.ndarray


def _not_an_array(x, loc, what: str):
    kind = type(x).__name__
    if isinstance(x, (list, dict)):
        hint = f"copy it first ({'list' if isinstance(x, list) else 'dict'}(x)) and modify the copy"
    else:
        hint = "write into a NumPy array the function created or was given"
    return MutationError(f"{what} writes into a {kind} in place, which zygote_py does not "
                         "differentiate", loc, hint)


def write_item(x, index, value, loc=None):
    """x[index] = value, in place; x itself is returned.  x may also be a list (an integer
    index) or a dict the function did not create (runtime/outside_containers.py)."""
    if type(x) is not _ndarray:
        if _container_item(x, index, loc, "item assignment"):
            x[index] = value
            return x
        raise _not_an_array(x, loc, "item assignment")
    x[index] = value
    return x


def _container_item(x, index, loc, what) -> bool:
    """Whether x[index] is an item of a list (an integer index) or a dict, which the
    writes here follow; a list's slice is refused (it may change the list's length)."""
    if type(x) is dict:
        return True
    if type(x) is list:
        if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
            return True
        raise MutationError(f"{what} into a list with a {type(index).__name__} index, which "
                            "zygote_py follows for one item at an integer index", loc,
                            "write one item at a time (xs[i] = v), or build a new list")
    return False


def write_item_augmented(x, index, value, loc=None):
    """x[index] = value where value is `x[index] op v` (x[index] op= v): in place, refused
    with NumPy's own error where NumPy's in-place operator would not cast the result."""
    if type(x) is not _ndarray:
        if _container_item(x, index, loc, "augmented item assignment"):
            x[index] = value
            return x
        raise _not_an_array(x, loc, "augmented item assignment")
    _check_cast(value, x)
    x[index] = value
    return x


def augmented_write(y, new, loc=None, outside=None, argument=False):
    """`y op= v` with new = `y op v`: writes new into y when y is an ndarray (Python's
    ndarray.__iadd__), else returns new (numbers and other immutable values rebind).
    outside names what y may be part of (a module global): an array there is refused.
    argument says y may be an argument's array (compiled code for a function called from
    differentiated code calls `augmented_write_in_callee` there instead)."""
    if type(y) is not _ndarray:
        if isinstance(y, _ndarray):
            raise _not_an_array(y, loc, "augmented assignment")
        if updates_in_place(y):
            raise _in_place_update(y, loc, "y")
        return new
    if outside is not None:
        raise MutationError(f"augmented assignment writes into an array that may be {outside} "
                            "(or a view of it), which would change the program's state "
                            "outside the function", loc, "write into a copy (y = y.copy())")
    shape = getattr(new, "shape", ())
    if shape != y.shape and np.broadcast_shapes(shape, y.shape) != y.shape:
        raise ValueError(f"non-broadcastable output operand with shape {y.shape} doesn't "
                             f"match the broadcast shape {np.broadcast_shapes(shape, y.shape)}")
    _check_cast(new, y)
    y[...] = new
    return y


_IN_PLACE_OPERATORS = ("__iadd__", "__isub__", "__imul__", "__imatmul__", "__itruediv__",
                       "__ifloordiv__", "__imod__", "__ipow__", "__ilshift__", "__irshift__",
                       "__iand__", "__ixor__", "__ior__")


def updates_in_place(y) -> bool:
    """Whether `y op= v` may update y's object in place (a list's +=, a set's |=, a class
    with __iadd__): Python calls that method, not `y op v`, and other references see it."""
    kind = type(y)
    return any(hasattr(kind, name) for name in _IN_PLACE_OPERATORS)


# Exactly these types: a subclass of float or int may define an in-place operator
_IMMUTABLE_TYPES = frozenset({int, float, complex, bool, str, bytes, type(None)})


def immutable_value(value, depth: int = 0) -> bool:
    """Nothing can be written into value, nor into anything it holds: a Python number,
    string, bytes or None, a NumPy number or bool, or a tuple (or a named tuple with no
    instance __dict__, in-place operator or item write of its own) of such values.  A
    module global holding one can be passed to a function that does `y op= v` on it, or
    on a number it unpacked from it: that rebinds, where an array would be written into
    (frontend/lower_expr.py: the guard "immutable")."""
    kind = type(value)
    if kind in _IMMUTABLE_TYPES:
        return True
    if isinstance(value, (np.number, np.bool_)):
        return kind.__module__ == "numpy"
    if isinstance(value, tuple) and depth < 16 and (kind is tuple or (
            hasattr(kind, "_fields") and not hasattr(value, "__dict__")
            and not updates_in_place(value) and not hasattr(kind, "__setitem__"))):
        return all(immutable_value(item, depth + 1) for item in value)
    return False


def _in_place_update(y, loc, name):
    return MutationError(
        f"augmented assignment would update this {type(y).__name__} in place (Python calls its "
        "in-place operator), and another name, container or object may hold it", loc,
        f"write `{name} = {name} + v` to make a new value (or update it with a method such as "
        "extend before anything else holds it)")


def augmented_attribute(current, new, loc=None):
    """`obj.name op= v` with current = obj.name and new = `current op v`: numbers and other values without
    an in-place operator rebind obj.name to new, as in Python.  An ndarray (or a list, or
    anything else with an in-place operator) would be updated in place, which every other
    reference to it would see: refused here rather than rebound (a different value)."""
    if isinstance(current, _ndarray) or updates_in_place(current):
        raise _in_place_update(current, loc, "obj.name")
    return new


def augmented_write_in_callee(y, new, loc=None, outside=None, argument=False):
    """augmented_write in a function called from differentiated code, where y may be an
    argument's array: written in place, the caller's adjoint would not know it changed."""
    if type(y) is _ndarray:
        raise MutationError("augmented assignment writes into an array that may be an argument "
                            "of a function called from differentiated code; its caller would "
                            "not see the change in its gradient", loc,
                            "write `y = y + v` (a new array) instead of `y += v` here")
    return augmented_write(y, new, loc, outside)


def _check_cast(value, x) -> None:
    kind = type(value)
    if (kind is float or kind is np.float64 or kind is _ndarray and value.dtype.kind == "f") \
            and x.dtype.kind in "fc":
        return  # a float casts to any float or complex array (same_kind): `x[i] += v`'s case
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        dtype = np.asarray(value).dtype
    if not np.can_cast(dtype, x.dtype, casting="same_kind"):
        raise TypeError(f"Cannot cast ufunc output from {dtype!r} to {x.dtype!r} with casting "
                        "rule 'same_kind'")


# -- the forward's saves and the backward's restores --------------------------------------
def saved_region(x, index, log):
    """A copy of x[index] (what a write is about to destroy); x is logged as written.  For
    a list, the item; for a dict, whether the key was there and its value."""
    if type(x) is list or type(x) is dict:
        log[id(x)] = x
        if type(x) is dict:
            return (index in x, x.get(index))
        try:
            return x[index]
        except (IndexError, TypeError):
            return None  # the write will raise Python's own error
    if type(x) is not _ndarray:
        return None  # the write will refuse it
    log[id(x)] = x
    part = x[index]
    return part.copy() if type(part) is _ndarray else part


def written_like(value, log):
    """What the backward needs of a written value: its shape and dtype, not its elements
    (an array becomes a broadcast view of one zero: no memory)."""
    if type(value) is _ndarray:
        return np.broadcast_to(np.zeros((), dtype=value.dtype), value.shape)
    return value


def saved_whole(y, log):
    """What `y op= v` destroys: all of y when it is an ndarray, else nothing (a rebinding)."""
    if type(y) is not _ndarray:
        return None
    log[id(y)] = y
    return y.copy()


# -- the same, fused: one call a write in each pass (ad/reverse/writes.py) ------------------
# A gradient that runs (not one compiled for forward mode to read again) saves and writes in
# one call, `saved = save_and_write(x, index, value, loc, log)`, and undoes the write in one,
# `value_bar = undo_write(g, index, x, saved)` (then `overwritten_cotangent` as above).  The
# common case -- an index that is an int or a slice into a float array, and a value whose
# cotangent is exactly `g[index]` -- saves only the overwritten part; anything else keeps
# what `written_value_cotangent` needs next to it (`Overwritten`) and takes its general path.
class Overwritten:
    """What a write destroyed (`old`) and the written value's shape and dtype (`like`, as
    written_like gives them): saved where the value's cotangent is more than g[index] (a
    value broadcast into the region, repeated integer indices, an integer array, ...)."""

    __slots__ = ("like", "old")

    def __init__(self, old, like):
        self.old = old
        self.like = like


def _plain_write(x, index, value, old) -> bool:
    """Whether the cotangent of the value of `x[index] = value` is g[index] as it stands
    (what written_value_cotangent computes then, without looking at value again): a float
    or complex array, an int or slice index (or `...`: a.fill, np.copyto, out=), and one
    element written, or a region of the value's own shape."""
    if x.dtype.kind not in "fc" or \
            (type(index) is not int and type(index) is not slice and index is not Ellipsis):
        return False
    if type(old) is not _ndarray:
        return True  # one element (written_value_cotangent returns g[index] whatever value is)
    return type(value) is _ndarray and value.shape == old.shape


def save_and_write(x, index, value, loc, log):
    """saved_region, then write_item: x[index] = value in place, returning what it
    overwrote (an `Overwritten` where the backward needs the value's shape too)."""
    if type(x) is not _ndarray:
        saved = saved_region(x, index, log)
        write_item(x, index, value, loc)
        return saved
    old = x[index]
    log[id(x)] = x
    if type(old) is not _ndarray:  # one element (the fill loop's case): _plain_write, inline
        if (type(index) is int or type(index) is slice) and x.dtype.kind in "fc":
            x[index] = value
            return old
    else:
        old = old.copy()  # (a view of what the write changes)
    saved = old if _plain_write(x, index, value, old) else Overwritten(old, written_like(value, log))
    x[index] = value
    return saved


def write_unsaved(x, index, value, loc, log):
    """save_and_write where no backward puts the overwritten part back (nothing reads the
    array after it: ad/reverse/owned_slots.py): x is logged as written (its final state
    is put back as the backward ends) and written, and nothing is saved."""
    if type(x) is not _ndarray:
        return save_and_write(x, index, value, loc, log)
    log[id(x)] = x
    x[index] = value
    return None


def save_and_write_augmented(x, index, value, loc, log):
    """save_and_write for `x[index] op= v` (value is `x[index] op v`): NumPy's same_kind
    casting is checked first, as write_item_augmented checks it."""
    if type(x) is not _ndarray:
        saved = saved_region(x, index, log)
        write_item_augmented(x, index, value, loc)
        return saved
    _check_cast(value, x)
    return save_and_write(x, index, value, loc, log)


def undo_write(g, index, x, saved):
    """The backward of save_and_write: puts back what the write destroyed and returns the
    cotangent of the value written (None when g is None: no cotangent reached the write,
    or the value has no derivative).  The rest of g goes on through overwritten_cotangent."""
    if type(saved) is Overwritten:
        part = written_value_cotangent(g, index, saved.like, x)
        saved = saved.old
    elif g is None:
        part = None
    elif type(x) is not _ndarray:  # a list's or dict's item (saved by saved_region)
        part = written_value_cotangent(g, index, None, x)
    else:
        part = g[index]
        if type(part) is _ndarray:
            part = part.copy()  # (g's region is zeroed next)
    if type(x) is _ndarray:
        x[index] = saved
    else:
        restore_region(x, index, saved)
    return part


def undo_write_split(g, index, x, saved, wanted):
    """undo_write and overwritten_cotangent in one call: `(the value's cotangent or None
    where not wanted, the rest of g)`.  The generated code unpacks the pair in the same
    statement (`v_bar, x_bar = undo_write_split(x_bar, ...)`: `_zp_unpacked`), so no
    variable holds the pair, and g's reference count is the one overwritten_cotangent
    expects of an array only the caller's variable holds: zeroed in place then."""
    if type(g) is not _ndarray:
        part = undo_write(g, index, x, saved) if wanted else undo_write(None, index, x, saved)
        return part, overwritten_cotangent(g, index)
    if type(x) is _ndarray and type(saved) is not Overwritten:
        # the common case: undo_write's last branch, inline (one call the less an element)
        part = None
        if wanted:
            part = g[index]
            if type(part) is _ndarray:
                part = part.copy()  # (g's region is zeroed next)
        x[index] = saved
    else:
        part = undo_write(g, index, x, saved) if wanted else undo_write(None, index, x, saved)
    probe = []  # held as g is (a variable there, a parameter here): _sole_variable_refs
    if sys.getrefcount(g) <= _refs_seen_by_helper(probe) and g.base is None and g.flags.writeable:
        g[index] = 0
        return part, g
    out = np.array(g, copy=True)  # (overwritten_cotangent's last lines)
    out[index] = 0
    return part, out


def store_item(x, index, value) -> None:
    """`x[index] = value`: a write the forward of a gradient makes inline where the transform
    proved what x is (ad/reverse/writes.py: _float_vector_sources).  The generated code
    writes it as that statement (codegen/emit.py), not as a call."""
    x[index] = value


def log_written(x, log) -> None:
    """x (an array the function made, written inline later) is logged as written once,
    where it is made, instead of at every write."""
    log[id(x)] = x


def restore_region(x, index, saved) -> None:
    """Undo a write in the backward: x[index] = what it held before."""
    if type(x) is _ndarray or type(x) is list:
        x[index] = saved
    elif type(x) is dict:
        present, old = saved
        if present:
            x[index] = old
        else:
            x.pop(index, None)


def restore_whole(y, saved) -> None:
    if saved is not None:
        y[...] = saved


def snapshot(log) -> list:
    """The final state of every array the forward wrote, taken as the backward starts."""
    return [(x, x.copy()) for x in log.values()]


def restore_final(snapshot_pairs) -> None:
    """Put back what the forward left, as the backward ends."""
    for x, final in snapshot_pairs:
        if type(x) is list:
            x[:] = final
        elif type(x) is dict:
            x.clear()
            x.update(final)
        else:
            x[...] = final


# -- cotangents -----------------------------------------------------------------------------
def _has_integer_array(index) -> bool:
    parts = index if type(index) is tuple else (index,)
    for part in parts:
        if isinstance(part, (list, _ndarray)):
            arr = np.asarray(part)
            if arr.dtype != np.bool_:
                return True
    return False


def written_value_cotangent(g, index, value, x):
    """The cotangent of the value written by x[index] = value: g[index] where this write's
    element survived (for repeated indices only the last one does), summed to value's shape.
    A float written into an integer array is rounded: no derivative."""
    if g is None:
        return None
    if type(x) is list or type(x) is dict:  # one item of a container from outside
        return g.get(index) if type(g) is dict else g[index]
    if x.dtype.kind in "biu" and np.result_type(value).kind in "fc":
        return None
    part = g[index]
    if type(part) is not _ndarray and type(index) is not tuple and \
            not isinstance(index, (list, _ndarray)):
        return part  # one element (the fill loop's case): nothing to sum or copy
    if _has_integer_array(index):
        shape = np.shape(part)
        order = np.arange(int(np.prod(shape)), dtype=np.intp).reshape(shape)
        winner = np.full(g.shape, -1, dtype=np.intp)
        winner[index] = order
        part = np.where(winner[index] == order, part, 0)
    else:
        part = np.array(part, copy=True) if type(part) is _ndarray else part
    return _sum_to(part, value)


def _sum_to(g, value):
    shape = getattr(value, "shape", None)
    if shape is None:
        shape = np.shape(value)
    gshape = np.shape(g)
    if gshape == shape:
        return g if shape or type(value) is _ndarray else _scalar(g)
    extra = len(gshape) - len(shape)
    if extra > 0:
        g = np.sum(g, axis=tuple(range(extra)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and np.shape(g)[i] != 1)
    if axes:
        g = np.sum(g, axis=axes, keepdims=True)
    if np.shape(g) != shape:
        g = np.broadcast_to(g, shape).copy()
    return g if shape else _scalar(g)


def _scalar(g):
    return g.item() if isinstance(g, (np.generic, _ndarray)) and np.ndim(g) == 0 and \
        not np.iscomplexobj(g) else g


def overwritten_cotangent(g, index):
    """The cotangent of the array before x[index] = v: g with the written region zeroed.

    Zeroed in place when nothing but the generated code's one variable refers to g (its
    reference count says so, as NumPy's own temporary elision decides): a fill loop then
    costs O(1) per write, not a copy of the whole cotangent.  Any other reference (another
    cotangent sharing the array, the caller's seed) makes a copy."""
    if type(g) is _ndarray:
        probe = []  # held as g is (a variable here, a parameter there): _sole_variable_refs
        if sys.getrefcount(g) <= _refs_seen_by_helper(probe) and g.base is None \
                and g.flags.writeable:
            g[index] = 0
            return g
    elif g is None:
        return None
    elif type(g) is dict:  # a dict's item: its old value (if any) got nothing
        rest = dict(g)
        rest.pop(index, None)
        return rest
    elif type(g) is list or type(g) is tuple:
        rest = list(g)
        rest[index] = None
        return rest
    out = np.array(g, copy=True)
    out[index] = 0
    return out


def private_copy(g):
    """g, or where g is an array, a copy of it that nothing else holds: what generated code
    passes to undo_write_split and overwritten_cotangent where g is an expression rather
    than a variable (codegen/emit.py), whose reference count cannot prove g unshared."""
    return g.copy() if type(g) is _ndarray else g


def _refs_seen_by_helper(g) -> int:
    return sys.getrefcount(g)


def _sole_variable_refs() -> int:
    """The reference count overwritten_cotangent sees for an array held by exactly one
    variable of its caller: measured the same way each time (it differs between Python
    versions, and a standalone module may run on another one than wrote it)."""
    probe = []
    return _refs_seen_by_helper(probe)


# -- arrays that share memory with a written one ------------------------------------------
def _addresses(a):
    """The byte address of every element of a, in a's C order."""
    addr = np.full(a.shape, a.__array_interface__["data"][0], dtype=np.int64)
    for axis, (n, stride) in enumerate(zip(a.shape, a.strides)):
        shape = [1] * a.ndim
        shape[axis] = n
        addr = addr + (np.arange(n, dtype=np.int64) * stride).reshape(shape)
    return addr.ravel()


def shared_positions(m, t):
    """(positions in m, positions in t) of the elements the two arrays share (flat C order),
    or None when they share none.  Arrays of different element sizes, or overlapping
    elements that are not the same element, are refused by the caller."""
    if not np.may_share_memory(m, t):
        return None
    if m.dtype != t.dtype:
        return False
    am, at = _addresses(m), _addresses(t)
    order = np.argsort(am, kind="stable")
    sorted_m = am[order]
    where = np.searchsorted(sorted_m, at)
    where = np.minimum(where, len(sorted_m) - 1)
    hit = sorted_m[where] == at if len(sorted_m) else np.zeros(len(at), bool)
    if not hit.any():
        if np.shares_memory(m, t):
            return False  # overlapping, but not element by element
        return None
    if len(np.unique(am)) != len(am) or len(np.unique(at)) != len(at):
        return False  # a self-overlapping view (as_strided)
    pos_t = np.nonzero(hit)[0]
    pos_m = order[where[hit]]
    return pos_m, pos_t


def same_if_written(old, new):
    """What another name holding `old` holds after `y op= v` made `new` of it: new where the
    augmented assignment wrote into old in place (an ndarray: the same object), old where it
    rebound y to a new value (a number), as Python's names do."""
    return new if new is old else old


def view_writeback(m, t, name, loc=None):
    """After a write into t: m, another array the function holds, as it is now (elements
    it shares with t changed with them).  Nothing moves; the gradient follows the memory."""
    if type(m) is _ndarray and type(t) is _ndarray:
        if shared_positions(m, t) is False:
            raise MutationError(f"{name!r} overlaps the written array in a way zygote_py "
                                "cannot follow element by element", loc,
                                f"take a copy ({name} = {name}.copy()) before the write")
        return m
    if (type(t) is list or type(t) is dict) and m is t:
        return m  # the same container under another name: it holds the new items
    if type(t) is _ndarray and _tracked_object(m):
        # an object built in this call holding the written array in an attribute: it
        # holds the same array, now changed; the derivatives its reads gather in the
        # ledger are moved to the written array where they share its memory
        for attribute, item in _attribute_items(m):
            if type(item) is _ndarray:
                if shared_positions(item, t) is False:
                    raise MutationError(f"{name!r}.{attribute} overlaps the written array in "
                                        "a way zygote_py cannot follow element by element",
                                        loc, "store a copy in it before the write")
            else:
                check_unaliased(item, t, f"{name}.{attribute}", loc)
        return m
    if type(t) is _ndarray and type(m) in _HOLDERS:
        # a list, tuple or dict holding the written array (or views of it): it holds the
        # same arrays, now changed; the gradient follows each item's memory as for a name
        for _, item in _held_items(m):
            if type(item) is _ndarray:
                if shared_positions(item, t) is False:
                    raise MutationError(f"{name!r} holds an array that overlaps the written "
                                        "one in a way zygote_py cannot follow element by "
                                        "element", loc, "put a copy in it before the write")
            else:
                check_unaliased(item, t, name, loc)  # an object or closure holding it
        return m
    check_unaliased(m, t, name, loc)
    return m


_HOLDERS = (list, tuple, dict)


def _tracked_object(m) -> bool:
    """m is an object of a user class built (or written) by transformed code in the
    gradient call running now, whose attributes' derivatives live in the object ledger."""
    if type(m) in _HOLDERS or type(m) is _ndarray or isinstance(m, (type, types.ModuleType,
                                                                      types.FunctionType)):
        return False
    ledger = _object_ledger()
    return ledger is not None and ledger.is_tracked(m)


def _object_ledger():
    """runtime/built_objects.py, found among the loaded modules rather than imported: a
    standalone module copies these helpers without zygote_py, and builds no tracked
    objects, so there it is None (and this module stays below built_objects)."""
    return sys.modules.get("zygote_py.runtime.built_objects")


def _attribute_items(m):
    """(name, value) for the attributes stored on the object itself (__dict__ and slots)."""
    items = list(getattr(m, "__dict__", {}).items())
    for cls in type(m).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            if isinstance(slot, str) and slot not in ("__dict__", "__weakref__") and \
                    hasattr(m, slot):
                items.append((slot, getattr(m, slot)))
    return items


def _move_ledger_slots(m, t):
    """For a tracked object m holding the written array t in attributes: the part of each
    attribute's gathered cotangent at the elements it shares with t, taken out of the
    slot and returned as t's (None: nothing gathered there)."""
    slots = _object_ledger().gathered_cotangents(m)
    if not slots:
        return None
    out = None
    for attribute, item in _attribute_items(m):
        part = slots.get(attribute)
        if part is None or type(item) is not _ndarray:
            continue
        pos = shared_positions(item, t)
        if not pos:
            continue
        if out is None:
            out = np.zeros(t.size, dtype=np.result_type(part))
        full = np.array(np.broadcast_to(part, item.shape), copy=True, order="C")
        out[pos[1]] += full.reshape(-1)[pos[0]]
        full.reshape(-1)[pos[0]] = 0
        slots[attribute] = full
    return None if out is None else out.reshape(t.shape)


def _held_items(m, path=()):
    """(path, item) for the items of a list, tuple or dict, through nested ones (their
    cotangents have the same structure: a list, a tuple, a dict with some keys)."""
    keys = m.keys() if type(m) is dict else range(len(m))
    for key in keys:
        item = m[key]
        if type(item) in _HOLDERS:
            yield from _held_items(item, path + (key,))
        else:
            yield path + (key,), item


def _cotangent_at(g, path):
    """The part of a structure's cotangent g at path (None: zero)."""
    for key in path:
        if g is None:
            return None
        if type(g) is dict:
            g = g.get(key)
        elif type(g) is list or type(g) is tuple:
            g = g[key]
        else:
            raise MutationError("the derivative of a container holding a written array has "
                                f"an unexpected form ({type(g).__name__}); please report this")
    return g


def _with_cotangent_at(g, path, part):
    """A copy of the structure cotangent g (None parts stay None) with part at path."""
    key, rest = path[0], path[1:]
    inner = part if not rest else _with_cotangent_at(_cotangent_at(g, (key,)), rest, part)
    if type(g) is dict:
        out = dict(g)
        out[key] = inner
        return out
    out = list(g)
    out[key] = inner
    return tuple(out) if type(g) is tuple else out


def writeback_value_cotangent(g, m, t):
    """The part of m's cotangent g that belongs to the written array t (t's shape)."""
    if type(t) is _ndarray and _tracked_object(m):  # (its g is None: the ledger holds it)
        return _move_ledger_slots(m, t)
    if g is None:
        return None
    if m is t and (type(t) is list or type(t) is dict):
        return g
    if type(m) in _HOLDERS and type(t) is _ndarray:
        out = None
        for path, item in _held_items(m):
            part = _cotangent_at(g, path)
            pos = shared_positions(item, t) if type(item) is _ndarray else None
            if part is None or not pos:
                continue
            if out is None:
                out = np.zeros(t.size, dtype=np.result_type(part))
            out[pos[1]] += np.ravel(np.broadcast_to(part, item.shape))[pos[0]]
        return None if out is None else out.reshape(t.shape)
    pos = shared_positions(m, t) if type(m) is _ndarray and type(t) is _ndarray else None
    if not pos:
        return None
    pos_m, pos_t = pos
    out = np.zeros(t.size, dtype=np.result_type(g))
    out[pos_t] = np.ravel(g)[pos_m]
    return out.reshape(t.shape)


def writeback_rest_cotangent(g, m, t):
    """m's cotangent g less the elements it shares with the written array t."""
    if type(t) is _ndarray and _tracked_object(m):
        _move_ledger_slots(m, t)  # (dropped when t has no derivative: those elements are t's)
        return g
    if g is None:
        return None
    if m is t and (type(t) is list or type(t) is dict):
        return None
    if type(m) in _HOLDERS and type(t) is _ndarray:
        for path, item in _held_items(m):
            part = _cotangent_at(g, path)
            pos = shared_positions(item, t) if type(item) is _ndarray else None
            if part is None or not pos:
                continue
            rest = np.array(np.broadcast_to(part, item.shape), copy=True, order="C")
            rest.reshape(-1)[pos[0]] = 0
            g = _with_cotangent_at(g, path, rest)
        return g
    pos = shared_positions(m, t) if type(m) is _ndarray and type(t) is _ndarray else None
    if not pos:
        return g
    # C order, whatever g's layout: shared_positions counts flat C positions, and
    # reshape(-1) of an F-ordered copy would be a copy that the zeroing never reaches
    out = np.array(g, copy=True, order="C")
    out.reshape(-1)[pos[0]] = 0
    return out


# -- aliases checked while running ---------------------------------------------------------
def _arrays_in(value, depth=0, seen=None):
    if type(value) is _ndarray or isinstance(value, _ndarray):
        yield value
        return
    if depth > 6 or isinstance(value, (str, bytes, int, float, complex, bool, type(None))):
        return
    seen = seen if seen is not None else set()
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, (list, tuple)):
        items = value
    elif isinstance(value, dict):
        items = value.values()
    elif isinstance(value, types.FunctionType):  # a closure holds what it captured
        items = [c.cell_contents for c in value.__closure__ or () if _bound(c)]
        items += list(value.__defaults__ or ()) + list((value.__kwdefaults__ or {}).values())
    elif isinstance(value, functools.partial):
        items = [value.func, *value.args, *value.keywords.values()]
    elif hasattr(value, "__next__") and type(value).__module__ == "builtins":
        yield _OPAQUE  # an iterator: what it will still read cannot be seen
        return
    elif not isinstance(value, type) and not callable(value) and \
            type(value).__module__ not in ("builtins", "numpy") and \
            (hasattr(value, "__dict__") or hasattr(type(value), "__slots__")):
        items = list(getattr(value, "__dict__", {}).values())
        for cls in type(value).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                if hasattr(value, slot):
                    items.append(getattr(value, slot))
    else:
        return
    for item in items:
        yield from _arrays_in(item, depth + 1, seen)


def _bound(cell) -> bool:
    try:
        return cell.cell_contents is not _Opaque  # (any read: an empty cell raises)
    except ValueError:
        return False


class _Opaque:
    """Stands for what an iterator will still read: it cannot be looked into."""


_OPAQUE = _Opaque


def check_unaliased(value, buffer, name, loc=None) -> None:
    """Refuse a read of value when it shares memory with buffer, an array written since
    value was made (the compiler's data flow would describe value as it was before).
    buffer may also be a list or dict from outside, updated in place: value may not hold it."""
    if type(buffer) is list or type(buffer) is dict:
        if value is not buffer and holds(value, buffer):
            raise MutationError(
                f"{name!r} holds a {type(buffer).__name__} updated in place after it was "
                "made, so what it holds changed behind its name", loc,
                "read it again after the update, or update a copy")
        return
    if type(buffer) is not _ndarray:
        return
    for part in _arrays_in(value):
        if part is _OPAQUE or np.may_share_memory(part, buffer):
            raise MutationError(
                f"{name!r} shares memory with an array written after it was made, so its "
                "values changed behind its name", loc,
                f"take a copy before the write ({name} = ....copy()), or read it again "
                "after the write")


def check_distinct_arguments(values, written, loc=None) -> None:
    """At the entry of a function that writes into its arguments: the arguments (and the
    closure and module values it reads) written into must not share memory with others."""
    for i in written:  # a list or dict written into: no other input may be or hold it
        if type(values[i]) is list or type(values[i]) is dict:
            for j, other in enumerate(values):
                if j != i and (other is values[i] or holds(other, values[i])):
                    raise MutationError(
                        "the function updates a list or dict passed to it that another "
                        "argument (or a global or closure value it reads) also holds", loc,
                        "pass a copy (list(xs), dict(d)) so that the update changes one "
                        "container only")
    parts = [[a for a in _arrays_in(v) if a is not _OPAQUE] for v in values]
    for i in written:
        for array in parts[i]:
            for j, others in enumerate(parts):
                for other in others:
                    if other is array and i == j:
                        continue
                    if np.may_share_memory(array, other):
                        raise MutationError(
                            "the function writes into an argument that shares memory with "
                            "another argument (or a global or closure value it reads)", loc,
                            "pass a copy (x.copy()) so that the write changes one array only")


# -- functions that write into the arrays they are passed (docs/mutation.md) ---------------
class ArgumentWrites:
    """A call of fn, a Python function that writes into some of its parameters' arrays,
    made where the caller can see the write: calling this returns `(fn's result, the
    objects passed for those parameters...)`, the same objects the caller passed, now
    written.  The caller binds them as new values of its arrays (a write, to its alias
    tracking and its adjoint); the reverse transform calls the pullback of fn's
    *threaded* variant, whose IR returns the same tuple (frontend/lower.py), so the
    cotangents of the arrays after the call flow back through fn's own writes.

    params are the written parameters' indices in fn's signature, sources where the
    call passes each (a position among the positional arguments, or a keyword name)."""

    __slots__ = ("__name__", "fn", "params", "sources")
    _zp_writes = True  # generated code writes out pending expressions before the call

    def __init__(self, fn, params: tuple, sources: tuple):
        self.fn = fn
        self.params = tuple(params)
        self.sources = tuple(sources)
        self.__name__ = getattr(fn, "__name__", "function")

    def __call__(self, *args, **kwargs):
        result = self.fn(*args, **kwargs)
        return (result, *[args[s] if type(s) is int else kwargs[s] for s in self.sources])

    def __eq__(self, other):
        return type(other) is ArgumentWrites and other.fn is self.fn and \
            other.params == self.params and other.sources == self.sources

    def __hash__(self):
        return hash((id(self.fn), self.params, self.sources))

    def __repr__(self):
        return f"ArgumentWrites({self.__name__}, params={self.params}, sources={self.sources})"


def log_written_arguments(*values_and_log) -> None:
    """Before a call that writes into arrays it is passed (the values; the write log comes
    last): note them as written by this function too (its backward ends by putting back
    what the forward left in them)."""
    *values, log = values_and_log
    for value in values:
        if type(value) is _ndarray or type(value) is list or type(value) is dict:
            log[id(value)] = value


def snapshot_except(log, kept) -> list:
    """snapshot in the threaded pullback of a function that writes into its arguments
    (kept): the arrays sharing memory with them are left out, so they stay as its backward
    leaves them (as they were when it was called), which its caller's backward goes on
    reading; the caller puts back their final state at its end."""
    arrays = [a for a in kept if type(a) is _ndarray]
    return [(x, x.copy()) for x in log.values()
            if not any(x is a for a in kept) and not (
                type(x) is _ndarray and any(np.may_share_memory(x, a) for a in arrays))]


# -- NumPy's in-place functions, as item writes (frontend/lower_writes.py: in_place_call) ------
# Each returns the index (a tuple of integer arrays, in the order NumPy writes) of the
# elements the function writes; it runs the real function on a probe array first, so an
# argument NumPy refuses is refused with NumPy's own error.  No derivative flows through them.
def put_positions(shape, ind, mode, values_size):
    """The elements `np.put(a, ind, v, mode)` writes (a of this shape), in NumPy's order
    (none when v is empty, as in NumPy)."""
    size = int(np.prod(shape))
    probe = np.zeros(size, dtype=bool)
    np.put(probe, ind, True, mode=mode)  # NumPy's checks (an index out of bounds, a mode)
    flat = np.asarray(ind, dtype=np.intp).ravel()
    if int(values_size) == 0:
        flat = flat[:0]
    if mode == "wrap":
        flat = np.mod(flat, size)
    elif mode == "clip":
        flat = np.clip(flat, 0, size - 1)
    else:
        flat = np.where(flat < 0, flat + size, flat)
    return np.unravel_index(flat, shape)


def place_positions(shape, mask, values_size):
    """The elements `np.place(a, mask, vals)` writes, in order (the True entries of mask)."""
    probe = np.zeros(shape, dtype=bool)
    np.place(probe, mask, np.ones(max(int(values_size), 0), dtype=bool))  # NumPy's checks
    return np.nonzero(np.reshape(np.asarray(mask, dtype=bool), shape))


def diagonal_positions(shape, wrap=False):
    """The elements `np.fill_diagonal(a, val, wrap)` writes, in order."""
    probe = np.zeros(shape, dtype=bool)
    np.fill_diagonal(probe, True, wrap=wrap)  # NumPy's checks (equal dimensions, ndim >= 2)
    return np.nonzero(probe)


def along_axis_positions(shape, indices, axis):
    """The index `np.put_along_axis(a, indices, values, axis)` assigns through (a fancy
    index: with repeats the last write wins, as there)."""
    probe = np.zeros(shape, dtype=bool)
    np.put_along_axis(probe, indices, True, axis)  # NumPy's checks
    flat = np.arange(int(np.prod(shape))).reshape(shape)
    if axis is None:
        flat, axis = flat.ravel(), 0
    return np.unravel_index(np.take_along_axis(flat, np.asarray(indices), axis), shape)


def putmask_positions(shape, mask, values_size):
    """The elements `np.putmask(a, mask, values)` writes (the True entries of mask, in
    order) and, for each, the flat position in a: values are taken at that position
    modulo their count (`values.flat[i % n]`)."""
    probe = np.zeros(shape, dtype=bool)
    np.putmask(probe, mask, np.ones(max(int(values_size), 1), dtype=bool))  # NumPy's checks
    where = np.nonzero(np.broadcast_to(np.asarray(mask, dtype=bool), shape))
    if int(values_size) == 0:  # nothing is written, as in NumPy
        where = tuple(w[:0] for w in where)
    flat = np.ravel_multi_index(where, shape) if len(shape) else np.zeros(0, dtype=np.intp)
    return where, np.mod(flat, max(int(values_size), 1))


def check_sortable(a, loc=None) -> None:
    """`a.sort()` is followed for NumPy arrays: a list (or another object) sorted in place
    is refused, never sorted behind the gradient's back."""
    if type(a) is not _ndarray:
        kind = type(a).__name__
        raise MutationError(f"{kind}.sort() sorts a {kind} in place, which zygote_py follows "
                            "for NumPy arrays only", loc,
                            "sort a copy (xs = sorted(xs)), or sort a NumPy array")


def refuse_array_out(receiver, name, loc=None) -> None:
    """`x.name(..., out)` or `x.name(out=y)` with an output array, on a NumPy array or
    number: it would write into that array behind the gradient's back."""
    if isinstance(receiver, (_ndarray, np.generic)):
        raise MutationError(f"ndarray.{name}() is given an output array (its out argument), "
                            "which it would write into in place", loc,
                            "use the returned value instead")


def check_output_shape(result, out, name, loc=None) -> None:
    """`np.sum(x, axis=0, out=a)`, compiled as the result computed and then written into a:
    NumPy refuses an output array of another shape (the write would broadcast into it)."""
    if np.shape(result) != np.shape(out):
        raise ValueError(f"{name}(..., out=...): the output array has shape {np.shape(out)}, "
                         f"but the result has shape {np.shape(result)}")


def position_count(index) -> int:
    """How many elements an index from the functions above selects."""
    return int(np.size(index[0]))


# the generated code writes out every pending expression before these run (codegen/emit.py)
for _fn in (write_item, write_item_augmented, augmented_write, augmented_write_in_callee,
            restore_region, restore_whole, restore_final, save_and_write, save_and_write_augmented,
            write_unsaved, undo_write, undo_write_split, store_item):
    _fn._zp_writes = True
# its pair is unpacked in the statement that calls it (codegen/emit.py: inlinable)
undo_write_split._zp_unpacked = True
# they zero g's region in place when its reference count proves only the caller's variable
# holds it: generated code passes g as a local variable or through private_copy (emit.py)
undo_write_split._zp_counted_operands = overwritten_cotangent._zp_counted_operands = (0,)
store_item._zp_store = True  # written as `x[index] = value` (codegen/emit.py)

