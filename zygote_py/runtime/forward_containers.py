"""Forward mode through lists and dicts updated in place (docs/mutation.md, "Forward mode").

A list's tangent is a list of its items' tangents, a dict's a dict (None: zero, at any
level), so a container updated in place gets a tangent container that mirrors it, updated
by the same operation -- as a value: each SSA version of the container has its own
tangent, and an update makes a new tangent container (lists and dicts are copied by
their items, so this costs what the primal's functional form costs).

  - `xs = replace_contents(xs, new)` (an update of a list or dict from outside,
    runtime/outside_containers.py): the container now holds new's items, so its tangent
    is new's, which the functional form's forward rule already made;
  - `x = write_item(x, k, v)` on a list or dict (`xs[i] = v`, `d[k] = v`): the tangent
    container with item k replaced by v's tangent;
  - the saves gradient code makes before such a write (forward over reverse:
    `saved_region`, `saved_contents`) take the tangents of what they copy; the restores
    need none (each SSA value keeps the tangent it had when it was made).
"""

from __future__ import annotations


def item_tangent(x, index, x_dot, value_dot):
    """The tangent of the list or dict x after `x[index] = value` (x already written)."""
    if x_dot is None and value_dot is None:
        return None
    if type(x) is dict:
        out = dict(x_dot) if x_dot is not None else {}
        out[index] = value_dot
        return out
    out = list(x_dot) if x_dot is not None else [None] * len(x)
    if len(out) != len(x):
        out = (out + [None] * len(x))[:len(x)]  # (a write never changes a list's length)
    out[index] = value_dot
    return out


def region_tangent(x, x_dot, index):
    """The tangent of runtime/writes.saved_region(x, index) for a list (the item) or a dict
    ((whether the key was there, its value)); x's tangent tells which it is."""
    if x_dot is None:
        return None
    if type(x) is dict or type(x_dot) is dict:
        return (None, x_dot.get(index)) if type(x_dot) is dict else None
    try:
        return x_dot[index]
    except (IndexError, TypeError):
        return None


def contents_tangent(container, container_dot):
    """The tangent of outside_containers.saved_contents: a shallow copy of the tangent."""
    if container_dot is None:
        return None
    return dict(container_dot) if type(container_dot) is dict else list(container_dot)


def overwritten_tangent(g_dot, index):
    """The tangent of writes.overwritten_cotangent(g, index) for a list or dict cotangent."""
    if g_dot is None:
        return None
    if type(g_dot) is dict:
        rest = dict(g_dot)
        rest.pop(index, None)
        return rest
    rest = list(g_dot)
    rest[index] = None
    return rest
