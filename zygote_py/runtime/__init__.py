"""The run-time helpers: what generated code and the derivative rules call while it runs.

`helpers` holds the cotangent helpers (unbroadcast, accum, ...) that generated
code and rule bodies call; they are re-exported here so that rule modules can
write `from zygote_py.runtime import unbroadcast`.  `objects` answers questions
about classes (properties, slots).  Everything here sits below the rules: run-time
dispatch, which decides what a call means from the real object and looks the rules
up, is the layer above them, in zygote_py/calls/.
"""

from .helpers import (  # noqa: F401
    accum,
    accum_index,
    accum_item,
    accum_owned,
    add_into_item,
    add_real_into_item,
    check_scalar,
    degrees_of_freedom,
    expand_reduced,
    index_accumulator,
    item_cotangent,
    make_closure,
    normalize_axis,
    owned_copy,
    reduced_size,
    ArrayShape,
    array_shape,
    shape_of,
    split_key,
    split_last,
    split_tail,
    strong_times,
    strong_zero,
    strong_zero_kept,
    unbroadcast,
    unpack_cotangent,
    zero_spread,
    zeros_if_none,
)
