"""Rules for the runtime helpers that generated code calls, so that generated
code is itself an input the compiler accepts (gradients of gradients).

A gradient's adjoint calls `unbroadcast`, `expand_reduced`, `accum`, the
container splitters and `accum_index` (zygote_py/runtime/helpers.py).  Without
rules, differentiating that code would descend into the helpers' bodies, which
use imports, loops and in-place writes.  Each helper here is a primitive: it
is linear in the cotangent it moves, and its rule is its transpose
(zygote_py/runtime/transposes.py).  Arguments that only supply a shape or a
structure (`x` in `unbroadcast(g, x)`, `seq` in `accum_index`) are not
differentiable: the helper's result does not depend on their values.

The helpers' first parameter is a cotangent named `g`, which the splicer
reserves for the rule's own incoming cotangent; the rules therefore name the
primal's parameters `ct`, ... (call sites pass them by position, so only the
rule's names change, not the helpers').

`check_scalar` (the seed 1.0 of a gradient), `shape_of`, `reduced_size` and
`normalize_axis` return constants and are registered as non-differentiable.
"""

from __future__ import annotations

from zygote_py.rules.indexing import _index_cotangent
from zygote_py.rules.registry import nondifferentiable, vjp
from zygote_py.runtime import alias_checks, containers, helpers, outside_containers, transposes, writes
from zygote_py.runtime.helpers import expand_reduced, strong_zero_kept, unbroadcast
from zygote_py.runtime.transposes import (
    addend_part,
    broadcast_like,
    indexed_item,
    indexed_loop_item,
    joined_key,
    joined_last,
    joined_tail,
    sum_reduced,
    unpacked_parts,
)

nondifferentiable(helpers.check_scalar, helpers.shape_of, helpers.array_shape, helpers.reduced_size, helpers.normalize_axis,
                  helpers.degrees_of_freedom, helpers.zero_spread)
# the checks behind callees' result-alias summaries (frontend/result_aliases.py)
nondifferentiable(alias_checks.check_array_method, alias_checks.check_method_is)
# the notes of dict keys that may carry a derivative (ad/reverse/containers.py)
nondifferentiable(containers.note_derived_key, containers.note_derived_keys_of)
# the type test and the refusal around an update of a list or dict from outside
# (frontend/lower_containers.py: outside_chain)
nondifferentiable(outside_containers.is_container, outside_containers.refuse_item_update)
# a global or captured list or dict claimed by the function updating it, and the checks of
# other reads of it (frontend/lower_containers.py: ClaimLowering)
nondifferentiable(outside_containers.claim_outside, outside_containers.check_outside_read,
                  outside_containers.check_binding)


# ---------------------------------------------------------------------------
# shapes: unbroadcast <-> broadcast_like, expand_reduced <-> sum_reduced


@vjp(helpers.unbroadcast, diff=("ct",))
def unbroadcast_(g, y, ct, x):
    """Sums ct down to x's shape; the cotangent is broadcast back up to ct's shape."""
    return broadcast_like(g, ct)


@vjp(transposes.broadcast_like, diff=("h",))
def broadcast_like_(g, y, h, like):
    """The transpose of unbroadcast, and unbroadcast is its rule."""
    return unbroadcast(g, h)


@vjp(helpers.expand_reduced, diff=("ct",))
def expand_reduced_(g, y, ct, x, axis=None, keepdims=False):
    """Broadcasts a reduction's cotangent over x; the cotangent is summed back over those axes."""
    return sum_reduced(g, x, axis, keepdims)


@vjp(transposes.sum_reduced, diff=("h",))
def sum_reduced_(g, y, h, x, axis=None, keepdims=False):
    """The transpose of expand_reduced, and expand_reduced is its rule."""
    return expand_reduced(g, x, axis, keepdims)


# ---------------------------------------------------------------------------
# accumulation


@vjp(helpers.accum, diff=("a", "b"))
def accum_(g, y, a, b):
    """a + b (None is zero, containers add elementwise): each addend gets g in its own form."""
    return addend_part(g, a), addend_part(g, b)


@vjp(helpers.accum_owned, diff=("acc", "g"))
def accum_owned_(ct, y, acc, g):
    """acc + g, as accum (the in-place add is into an array only this sum owns)."""
    return addend_part(ct, acc), addend_part(ct, g)


@vjp(helpers.accum_index, diff=("acc", "ct"))
def accum_index_(g, y, acc, seq, i, ct, reverse=False):
    """Functionally acc + (ct placed at item i of seq).

    The helper writes into acc in place, which is sound because the generated
    code owns acc and rebinds it to the result; this rule reads neither acc's
    nor ct's values (only ct's shape), so the write cannot disturb it.
    """
    return addend_part(g, acc), indexed_item(g, seq, i, ct, reverse)


@vjp(helpers.accum_item, diff=("acc", "ct"))
def accum_item_(g, y, acc, seq, i, ct, reverse=False):
    """Functionally acc + (ct placed at item i of seq; nothing for a dict's key), as
    accum_index."""
    return addend_part(g, acc), indexed_loop_item(g, seq, i, ct, reverse)


@vjp(helpers.zeros_if_none, diff=("ct",))
def zeros_if_none_(g, y, ct, x):
    """ct, or zeros shaped like x: the cotangent passes through to ct when it was there."""
    return None if ct is None else g


# ---------------------------------------------------------------------------
# the strong zero (a zero cotangent contributes exactly zero; runtime/helpers.py)


@vjp(helpers.strong_zero, diff=("r",))
def strong_zero_(g, y, ct, r):
    """r passes where it was kept; where a zero cotangent ct replaced a nan, nothing."""
    return strong_zero_kept(g, ct, r)


@vjp(helpers.strong_times, diff=("g", "p"))
def strong_times_(ct, y, g, p):
    """strong_zero(g, g * p): the product's rule where the entry was kept, nothing where
    a zero g replaced a nan."""
    kept = strong_zero_kept(ct, g, g * p)
    return unbroadcast(helpers.strong_times(kept, p), g), unbroadcast(helpers.strong_times(kept, g), p)


@vjp(helpers.summed_strong_times, diff=("g", "p"))
def summed_strong_times_(ct, y, g, p, x):
    """unbroadcast(strong_times(g, p), x) (codegen/fuse.py's join): ct spread back over the
    product, then strong_times' rule."""
    product = g * p
    kept = strong_zero_kept(broadcast_like(ct, product), g, product)
    return unbroadcast(helpers.strong_times(kept, p), g), unbroadcast(helpers.strong_times(kept, g), p)


@vjp(helpers.strong_zero_kept, diff=("h",))
def strong_zero_kept_(g, y, h, ct, r):
    """Linear in h, a mask: its own transpose."""
    return strong_zero_kept(g, ct, r)


# ---------------------------------------------------------------------------
# containers: each splitter's rule is the matching join


@vjp(helpers.item_cotangent, diff=("ct",))
def item_cotangent_(g, y, ct, key):
    """ct[key]: the cotangent is g written at key of a container shaped like ct."""
    return None if ct is None else _index_cotangent(g, ct, key)


@vjp(helpers.unpack_cotangent, diff=("parts",))
def unpack_cotangent_(g, y, x, parts, star):
    """The targets' cotangents assembled into x's form; the cotangent is split back per target."""
    return unpacked_parts(g, x, parts, star)


@vjp(helpers.split_last, diff=("ct",))
def split_last_(g, y, ct):
    """(ct[:-1], ct[-1]): the two cotangents are joined back into one list's."""
    return joined_last(g, ct)


@vjp(helpers.split_tail, diff=("ct",))
def split_tail_(g, y, ct, items):
    """(head, tail) of a list's cotangent after extend: joined back into one list's."""
    return joined_tail(g, ct, items)


@vjp(helpers.split_key, diff=("ct",))
def split_key_(g, y, ct, key):
    """(the rest of a dict's cotangent, the entry at key): the entry is put back."""
    return joined_key(g, ct, key)



@vjp(writes.augmented_attribute, diff=("new",))
def augmented_attribute_(g, y, current, new, loc=None):
    """`obj.name op= v` rebinding obj.name to new (an in-place update is refused first)."""
    return g


@vjp(writes.same_if_written, diff=("old", "new"))
def same_if_written_(g, y, old, new):
    """The cotangent goes to whichever of old and new the name holds (the same object when
    `y op= v` wrote in place)."""
    if new is old:
        return None, g
    return g, None
