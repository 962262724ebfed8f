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
