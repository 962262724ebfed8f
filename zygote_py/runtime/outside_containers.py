"""Lists and dicts the function did not create, updated in place (docs/mutation.md).

An update of a container from outside the call (an argument, a list held by an object's
attribute) is lowered as (frontend/lower_containers.py: `outside_update`):

    if is_container(xs, "list"):             # decided by the object, while running
        new = <the functional form on list(xs)>   # xs.append(v): [*xs, v]; the same rules
        xs = replace_contents(xs, new)       # as for a list the function made
    else:
        <the method call, as before>         # another object's method of that name

`replace_contents` writes the new items into the very object, so the caller and every
alias see the update as in Python; the forward saves the items it replaces
(`saved_contents`, a shallow copy) and the backward puts them back where the write
happened (`restore_contents`), as an array write restores what it destroyed.  The
cotangent of the container after the update goes to the new items (the functional form's
rule sends it on to the value appended and to the container as it was).  Item writes and
`del` on such a container (`xs[i] = v`, `d[k] = v`, `del d[k]`) are array writes whose
run-time helpers (runtime/writes.py) also take a list or a dict.
"""

from __future__ import annotations

import gc
import numbers
import os
import sys
import types

import numpy as np

from .. import context
from ..errors import MutationError

_KINDS = {"list": list, "dict": dict}


def is_container(obj, kind: str) -> bool:
    """Whether obj is exactly a list (kind 'list') or a dict ('dict'): a subclass may
    define its own methods, which run as they are."""
    return type(obj) is _KINDS[kind]


def replace_contents(container, new, loc=None):
    """container's items replaced by new's, in place; container itself is returned."""
    if type(container) is list:
        container[:] = new
    elif type(container) is dict:
        container.clear()
        container.update(new)
    else:  # (lowering calls this only after is_container)
        raise MutationError(f"a {type(container).__name__} is not a list or dict", loc)
    return container


def saved_contents(container, log):
    """What replace_contents is about to replace: a shallow copy; the container is logged
    as written (the backward ends by putting back what the forward left)."""
    log[id(container)] = container
    return container.copy()


def restore_contents(container, saved) -> None:
    """Undo replace_contents in the backward: the items it replaced, back in place."""
    replace_contents(container, saved)


def holds(value, target, depth=0, seen=None) -> bool:
    """Whether value, a container or object other than target, holds target (by identity,
    through lists, tuples, dicts and instance attributes)."""
    if value is target and depth:
        return True
    if depth > 6 or isinstance(value, (str, bytes, int, float, complex, bool, type(None))):
        return False
    seen = seen if seen is not None else set()
    if id(value) in seen:
        return False
    seen.add(id(value))
    if isinstance(value, (list, tuple)):
        items = value
    elif isinstance(value, dict):
        items = value.values()
    elif hasattr(value, "__dict__") and not isinstance(value, type) and not callable(value):
        items = list(vars(value).values())
    else:
        return False
    return any(holds(item, target, depth + 1, seen) for item in items)


# the generated code writes out every pending expression before these run (codegen/emit.py)
for _fn in (replace_contents, restore_contents):
    _fn._zp_writes = True


def refuse_item_update(obj, what: str, loc=None) -> None:
    """`obj.attr[k] = v`, or `del xs[k]`, where the container is not a list or dict: an
    array reached through an expression is not followed (its names would not see the
    write), nor is another object's __setitem__ or __delitem__ there."""
    where = "an object reached through an expression" if what.startswith("item") else \
        "an object this function did not create"
    raise MutationError(f"{what} writes into {where} (a {type(obj).__name__}), which zygote_py "
                        "follows for a list or dict only", loc,
                        "name the array first (a = obj.a; a[i] = v) when obj was built in "
                        "this call, or write into a copy and store it back (a = "
                        "obj.a.copy(); a[i] = v; obj.a = a)")


# -- module-level and captured lists and dicts, updated in place -----------------------------
# A function that updates a global (or captured) list or dict by its name, `LOG.append(v)`,
# *claims* it at its entry (frontend/lower_containers.py: claim_outside_names): from then
# on, for the rest of the gradient call, the function holds it as one of its own names and
# its updates and reads are followed exactly as for a list passed in (above).  What would
# break that -- another reference to the object, from which a read would see the new items
# without their derivatives -- is refused, decided from the objects:
#   - at the claim: nothing but its global name (or cell) may refer to the object (its
#     reference count), and no other function of this call may have claimed it;
#   - after it: a read of the global or cell by any other function of the call
#     (check_outside_read), and a call of user code run without derivatives, which could
#     read it (built_objects.check_underived_result), are refused.
class Claim:
    """A global or captured list or dict claimed by one running function."""

    __slots__ = ("loc", "name", "obj")

    def __init__(self, obj, name, loc):
        self.obj = obj  # (holds it: the id stays this object's while the call runs)
        self.name = name
        self.loc = loc


def _references_at_entry(value, name=None, loc=None) -> int:
    return sys.getrefcount(value)  # (as claim_outside's first line counts them)


def _only_the_holder() -> int:
    holder = [[]]
    return _references_at_entry(holder[0], "probe", None)


# what claim_outside counts when nothing but the global name (or the cell) holds the object,
# the value passed as generated code passes it (read where it is passed: `claim(L, ...)`),
# measured once on a list one container holds (the count differs between Python versions)
_ONLY_THE_HOLDER = _only_the_holder()


def claim_outside(value, name: str, loc=None) -> None:
    """At the entry of a function that updates the module-level or captured list or dict
    `name` by that name, value (read from the global or cell where it is passed): claim it
    for this gradient call.  (A standalone module has its own: aot/standalone_runtime.py.)"""
    refs = sys.getrefcount(value)
    if refs > _ONLY_THE_HOLDER:
        # garbage not yet collected may hold it (a cycle left by an earlier call: the code
        # forward mode compiled for a pullback's back, an error's traceback): counted again
        # once nothing unreachable is left, in this same frame (the count is the first's)
        gc.collect()
        refs = sys.getrefcount(value)
    ctx = context.current()
    settle_claim(value, name, loc, refs > _ONLY_THE_HOLDER, ctx.objects,
                 ctx.object_tangents is not None)
    for observer in ctx.observers:  # (zygote-py grad's example run: aot/record.py)
        observer.claimed_container(value)


def settle_claim(value, name: str, loc, held_elsewhere: bool, ledger, forward=False) -> None:
    """The claim of value by ledger's gradient call, refused when ledger is not a gradient
    call's, when a function of the call claimed value already, when value is no longer a
    list or dict, or when something else refers to it (held_elsewhere: its reference
    count, taken by claim_outside).  forward: the call is forward mode's (zp.jvp, a column
    of zp.hessian), which runs a call resolved while the gradient runs twice."""
    kind = type(value).__name__
    if ledger is None:
        raise MutationError(f"{name!r} is updated by differentiated code outside a gradient "
                            "call", loc)
    held = ledger.claims.get(id(value))
    if held is not None:
        where = _line(held.loc)
        raise MutationError(
            f"the {kind} {name!r} is updated here and was already updated with derivatives "
            f"earlier in this gradient call (at {where}), by another call of a "
            "function; zygote_py follows a global or captured list or dict updated and read "
            "within one call of one function" + (
                " (under zp.hessian, a call that the gradient resolves while running, a "
                "method call say, is run a second time by forward mode, and claims it "
                "again)" if forward else ""), loc,
            f"pass {name} to the functions as an argument (or hold it in an object's "
            "attribute) instead of reaching it by its global name" + (
                "; under zp.hessian, update it in a function called by name, not in a "
                "method" if forward else ""))
    if type(value) is not list and type(value) is not dict:  # (rebound since compiled)
        raise MutationError(f"{name!r} holds a {kind} now, not the list or dict the function "
                            "was compiled for", loc, "call the function again")
    if held_elsewhere:
        raise MutationError(
            f"the {kind} {name!r}, which this function updates in place, is also held by "
            "something else (another name, a container, an object, a variable of a running "
            "function, a pullback kept for later), which would see the update without its "
            "derivative", loc,
            f"pass {name} to the function as an argument, or update a copy")
    ledger.claims[id(value)] = Claim(value, name, loc)


def check_binding(now, value, name: str, loc=None) -> None:
    """A read of a claimed module global by the function that claimed it (value: what the
    function holds under that name): now, what the global name holds, must be that object."""
    if now is not value:
        raise MutationError(
            f"the module global {name!r} was rebound while a function that updates it in place "
            "ran (by code run without derivatives); that function follows the object it "
            "held at its entry", loc, f"pass {name} to the function as an argument")


def check_outside_read(value, name: str, loc=None) -> None:
    """A read of a global or cell (one not known to be an array or a number) by a function
    of the gradient call: refused when it is, or holds, a list or dict that a function of
    this call claimed (its derivatives are followed under the claiming function's name only)."""
    ctx = context.current()
    ledger = ctx.objects
    if ledger is None or not ledger.claims:
        return
    for claim in ledger.claims.values():
        if value is claim.obj or holds(value, claim.obj) or _attribute_holds(value, claim.obj):
            kind, where = type(claim.obj).__name__, _line(claim.loc)
            raise MutationError(
                f"{name!r} is (or holds) the {kind} {claim.name!r}, updated "
                f"with derivatives at {where} earlier in this gradient call; this "
                "read would miss their derivatives (zygote_py follows such a list or dict "
                "under the name of the function that updates it)", loc,
                f"pass {claim.name} to this function as an argument, or read it in the "
                "function that updates it")


_PLAIN = (np.ndarray, np.generic, numbers.Number, str, bytes, type(None), slice, range, np.dtype)
_CODE = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.CodeType)


def _attribute_holds(value, target) -> bool:
    """A callable object (a model with __call__, which `holds` passes over) holding target
    in one of its attributes."""
    if not callable(value) or isinstance(value, (type, *_CODE)):
        return False
    attributes = getattr(value, "__dict__", None)
    return isinstance(attributes, dict) and any(
        item is target or holds(item, target) for item in attributes.values())


def plain_value(value) -> bool:
    """Nothing a read of which check_outside_read would refuse: an array, a number, a
    string, None, a slice, a tuple of those, a function or a code object (a function that
    captured a claimed list reads it in its own code, which is checked there), or one of
    zygote_py's own objects (a source location in generated code, say)."""
    if isinstance(value, _PLAIN) or isinstance(value, _CODE):
        return True
    if type(value) is tuple:
        return all(isinstance(item, _PLAIN) for item in value)
    module = getattr(type(value), "__module__", None)  # a descriptor on some C types
    return isinstance(module, str) and module.startswith("zygote_py.")


def _line(loc) -> str:
    """`file.py:12` for a location: a SourceLoc, or a standalone module's "path/file.py:12:5"."""
    if isinstance(loc, str) and loc.count(":") >= 2:
        path, line, _ = loc.rsplit(":", 2)
        return os.path.basename(path) + ":" + line
    if loc is None or getattr(loc, "line", None) is None:
        return "an earlier line"
    return os.path.basename(loc.filename) + ":" + str(loc.line)
