"""Whether computing an iterator's items ahead of their reading can be told apart from
computing each when it is read.

A map(), filter() or generator expression kept for later (bound to a name, handed to a
function, zipped) has its items computed when it is made (runtime/iterators.py:
begin_ahead).  That is Python's result exactly when computing an item has no *effect*:
nothing another statement, the caller or the user can see besides the item itself.  An
item that raises is the one other difference, and it is caught while running
(iterators.items_ahead_error).  So the lowering asks `first_effect` of the ops that
compute the items, and refuses the iterator when there is one: a print, random numbers,
a write of an attribute or into an array, an update of a list from outside, next() of
another iterator, a callable value (it may be anything), or a call of a Python function
whose own body has one of those or a method call (`function_has_effects`, which the
compiler answers for each function called: the summary in its lowered IR's
meta["effects"]).  A method call among the ops is decided while running by the receiver
that is there (runtime/iterators.py: check_ahead_method, put before it).  Another iterator read to its end by a loop or a builtin there is
marked while running, and reading it again afterwards is refused (iterator_types.py:
note_read).  An attribute read is taken to have no effect (a property's code is not
seen), as everywhere in the compiler.
"""

from __future__ import annotations

import builtins
import types

from ..ir.ops import loop_layout, opdef
from ..ir.purity import is_pure_callable, reads_an_iterable
from ..runtime import iterators as _iterators
from ..runtime import alias_checks
from ..runtime.outside_containers import check_outside_read
from ..runtime.writes import ArgumentWrites

# zygote_py's run-time forms that only compute a value or raise (never an effect):
# the iterator builtins over the sequences an item's computation makes, and the checks
# the lowering puts before a read of a global container
_EFFECT_FREE_FORMS = frozenset((
    _iterators.zip_items, _iterators.enumerate_items, _iterators.reversed_items,
    _iterators.chain_items, _iterators.product_items, _iterators.accumulate_items,
    _iterators.list_of_items, _iterators.begin_ahead, _iterators.end_ahead,
    _iterators.check_ahead_method, _iterators.check_iterable, check_outside_read, alias_checks.check_method_is,
    alias_checks.check_array_method))
# builtins that only read (an attribute read runs no code of the user's but a property's)
_READING_BUILTINS = frozenset((builtins.getattr, builtins.hasattr, builtins.callable, builtins.id,
                               builtins.hash, builtins.any, builtins.all, builtins.iter,
                               builtins.issubclass, builtins.vars))
# raising is no effect here: an item that raises is reported while running
_RAISING = ("assert", "raise")


def first_effect(ops, function_has_effects, guarded=None):
    """The first op among ops (and the regions they hold) with an effect, else None.

    function_has_effects(fn) says whether calling the Python function fn may have one.
    guarded: a list to put the method calls in, which the caller then checks while
    running (runtime/iterators.py: check_ahead_method) instead of counting them here."""
    for op in _walk(ops):
        if op.opcode == "method" and guarded is not None:
            guarded.append(op)
            continue
        if op.opcode in _RAISING or op.opcode in ("if", "for", "while", "yield", "return"):
            continue  # (the contents of a branch or loop are among the ops walked)
        if opdef(op.opcode).pure is True:
            continue
        if op.opcode == "call" and not _call_has_effects(op.attrs["fn"], op, function_has_effects):
            continue
        if op.opcode == "callv":  # a callable carried unchanged into the loop is the constant
            fn = _constant_callee(op.operands[0])
            if fn is not _UNKNOWN and not _call_has_effects(fn, op, function_has_effects):
                continue
        return op
    return None


def _call_has_effects(fn, op, function_has_effects) -> bool:
    try:
        if fn in _EFFECT_FREE_FORMS:
            return False
    except TypeError:  # an unhashable callee
        return True
    if fn is _iterators.iter_items or fn is _iterators.for_pass or reads_an_iterable(fn):
        # a loop or a builtin reading what may be an iterator: it is read to its end now;
        # an iterator read so is marked, and a later read of it refused while running
        # (runtime/iterators.py: Items.ahead)
        return False
    if is_pure_callable(fn) or fn in _READING_BUILTINS:
        return False
    if isinstance(fn, type) and issubclass(fn, BaseException):
        return False  # the exception an item raises (raising is reported while running)
    if isinstance(fn, types.FunctionType):  # its lowered body says (zygote_py's own helpers too)
        return function_has_effects(fn)
    return True


_UNKNOWN = object()


def _constant_callee(value):
    """The constant a callee value holds, following a loop's carried value that the loop
    leaves unchanged back to its initial value (lowering carries every variable through a
    loop; the cleanup passes drop those later); _UNKNOWN where it is not a constant."""
    for _ in range(64):
        op = value.defining_op
        if op is not None:
            return op.attrs["value"] if op.opcode == "const" else _UNKNOWN
        block = value.owner
        loop = getattr(block, "parent", None)
        if loop is None or loop.opcode not in ("for", "while"):
            return _UNKNOWN
        layout = loop_layout(loop)
        if value not in layout.carried:
            return _UNKNOWN
        k = layout.carried.index(value)
        if block is loop.regions[-1] and layout.yields[k] is not value:
            return _UNKNOWN  # the body rebinds it
        value = layout.inits[k]
    return _UNKNOWN


def _walk(ops):
    for op in ops:
        yield op
        for region in op.regions:
            yield from region.walk()


def describe_effect(op) -> str:
    """The op with an effect, as the user wrote it."""
    fn = op.attrs["fn"] if op.opcode == "call" else \
        _constant_callee(op.operands[0]) if op.opcode == "callv" else _UNKNOWN
    if isinstance(fn, ArgumentWrites):  # a call of a function writing into its arguments
        return f"a call of {fn.fn.__qualname__}(), which has one or may have one"
    if fn is not _UNKNOWN:
        name = getattr(fn, "__qualname__", None) or op.attrs.get("expr") or repr(fn)
        if isinstance(fn, types.FunctionType):
            if not fn.__module__.startswith("zygote_py."):
                return f"a call of {name}(), which has one or may have one"
        return f"{name.removeprefix('_zp_')}()"
    if op.opcode == "method":
        return f".{op.attrs['name']}()"
    if op.opcode == "callv":
        return "a call of a function held in a variable (which may do anything)"
    return f"a {op.opcode}"
