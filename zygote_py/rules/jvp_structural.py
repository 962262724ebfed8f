"""Forward-mode (jvp) rules of the structural functions: dict views, the iterator builtins,
and the helpers generated gradient code calls (what forward mode over a compiled gradient,
zp.hessian, meets at every step).  See jvp_common.py for the signature; the helpers are
linear in the cotangents they move, so most jvps here apply the helper to the tangents.
"""

from __future__ import annotations

import builtins
import itertools

import numpy as np

from .. import errors as registry_errors
from ..runtime import containers, iterators
from ..runtime.helpers import strong_times, strong_zero, strong_zero_kept, summed_strong_times, unbroadcast
from ..runtime.tangent_checks import refuse_key_tangents, refuse_object_iteration
from . import registry
from .jvp_common import _jointly_linear, _positions, add_terms, inspect
from .registry import jvp

# -- dict views: lists of the values' tangents (a loop over them draws from the list) ----------


def jvp_dict_items(dself, y, self):
    if dself is None:
        return None
    return [(None, dself.get(key)) for key in self]


def jvp_dict_values(dself, y, self):
    if dself is None:
        return None
    return [dself.get(key) for key in self]


for _name, _fn in (("items", jvp_dict_items), ("values", jvp_dict_values)):
    _rule = registry.method_rule(dict, _name)
    if _rule is not None:
        _rule.jvp = _fn


# -- iterators ---------------------------------------------------------------------------------
# The tangent of an Items iterator (runtime/iterators.py) is the list of its items' tangents,
# aligned with `Items.items`; a loop over it starts at the iterator's cursor (forward_dispatch).
# zip, enumerate and reversed over lists, tuples and arrays are followed; over an iterator that
# carries a tangent, and the other iterator builtins, forward mode refuses clearly.


def _sequence_tangents(dx, seq):
    """The tangents of seq's items, as a list (None for a zero one)."""
    if isinstance(seq, (dict, str, bytes, range, set, frozenset)):
        return [None] * len(seq)
    if dx is None:
        return [None] * len(seq)
    refuse_object_iteration(seq, dx)
    if isinstance(seq, np.ndarray) and np.shape(dx) != seq.shape:
        dx = np.broadcast_to(dx, seq.shape)
    return list(dx)


def _refuse_items_source(qualname, sources, tangents):
    if any(isinstance(s, iterators.Items) and t is not None for s, t in zip(sources, tangents)):
        raise registry_errors.NoDerivativeRule(
            f"forward mode (zp.jvp) does not follow a derivative through {qualname} of an "
            "iterator yet", hint="make a list of the iterator's items first (list(it))")


def jvp_zip_items(d_iterables, y, *iterables, strict=False):
    tangents = tuple(d_iterables) if d_iterables is not None else (None,) * len(iterables)
    if not any(t is not None for t in tangents):
        return None
    _refuse_items_source("zip", iterables, tangents)
    rows = [_sequence_tangents(t, s) for t, s in zip(tangents, iterables)]
    return [tuple(r) for r in zip(*rows)]


def jvp_enumerate_items(d_iterable, y, iterable, start=0):
    if d_iterable is None:
        return None
    _refuse_items_source("enumerate", (iterable,), (d_iterable,))
    return [(None, t) for t in _sequence_tangents(d_iterable, iterable)]


def jvp_reversed_items(d_sequence, y, sequence):
    if d_sequence is None:
        return None
    return list(reversed(_sequence_tangents(d_sequence, sequence)))


def jvp_iter_items(d_iterable, y, iterable):
    if d_iterable is None:
        return None
    if isinstance(iterable, iterators.Items):
        return d_iterable  # an Items iterator is its own iterator
    _refuse_items_source("iter", (iterable,), (d_iterable,))
    return _sequence_tangents(d_iterable, iterable)


def jvp_for_pass(d_iterable, y, iterable):
    return d_iterable  # the loop reads the tangent from the iterator's cursor on


def jvp_end_ahead(d_items, y, items, depth):
    return d_items


def jvp_list_of_items(d_items, y, items, python_type=builtins.map):
    return None if d_items is None else list(d_items)


def _rows(d_iterables, iterables, qualname):
    """The items' tangents of each iterable (None when none moves), refusing an iterator."""
    tangents = tuple(d_iterables) if d_iterables is not None else (None,) * len(iterables)
    if not any(t is not None for t in tangents):
        return None
    _refuse_items_source(qualname, iterables, tangents)
    return [_sequence_tangents(t, s) for t, s in zip(tangents, iterables)]


def jvp_chain_items(d_iterables, y, *iterables):
    rows = _rows(d_iterables, iterables, "itertools.chain")
    return None if rows is None else [t for row in rows for t in row]


def jvp_product_items(d_iterables, y, *iterables, repeat=1):
    """Each tuple's tangent is the tuple of its items' tangents (itertools.product's order)."""
    rows = _rows(d_iterables, iterables, "itertools.product")
    return None if rows is None else list(itertools.product(*rows, repeat=repeat))


def jvp_accumulate_items(d_iterable, d_initial, y, iterable, initial=None):
    """Running sums of the items' tangents (after initial's, when given)."""
    if d_iterable is None and d_initial is None:
        return None
    _refuse_items_source("itertools.accumulate", (iterable,), (d_iterable,))
    running = d_initial
    out = [d_initial] if initial is not None else []
    for t in _sequence_tangents(d_iterable, iterable):
        running = add_terms(running, t)
        out.append(running)
    return out


def jvp_next_item(d_iterator, d_default, y, iterator, default=None):
    """y is (the item, its position in the iterator's items; -1: the default)."""
    position = y[1]
    if position < 0:
        t = d_default
    else:
        t = None if d_iterator is None else d_iterator[position]
    return None if t is None else (t, None)


_SEQUENCES = (list, tuple, np.ndarray, str, bytes, range, dict, type({}.keys()),
              type({}.values()), type({}.items()))


def jvp_list_or_tuple(d_iterable, y, iterable=()):
    """list(xs) / tuple(xs): the items' tangents, in y's form (a closure's tangent, or any
    other item's, passes through as it is); other iterables: the derived jvp."""
    if d_iterable is None:
        return None
    if isinstance(iterable, iterators.Items):  # what is left of an iterator, from its cursor
        tangents = list(d_iterable)[iterators.read_start(iterable):]
    elif isinstance(iterable, _SEQUENCES):
        tangents = _sequence_tangents(d_iterable, iterable)
    else:
        from .jvp_derived import derived_jvp  # (built after this module: the fallback)
        return derived_jvp(registry.function_rule(type(y)))(d_iterable, y, iterable)
    if all(t is None for t in tangents):
        return None
    return list(tangents) if type(y) is list else tuple(tangents)


def jvp_sorted(d_iterable, y, iterable, *, key=None, reverse=False):
    """Each item's tangent goes where sorting put the item (stable, as sorted is); the keys
    of a dict, a string's characters and the like have none."""
    if d_iterable is None:
        return None
    if isinstance(iterable, iterators.Items):  # what is left of an iterator, from its cursor
        start = iterators.read_start(iterable)
        source, tangents = iterable.items[start:], list(d_iterable)[start:]
    else:
        source, tangents = iterable, _sequence_tangents(d_iterable, iterable)
    if all(t is None for t in tangents):
        return None
    return [tangents[k] for k in containers.sort_order(list(source), key, reverse)]



for _primal, _fn in ((iterators.zip_items, jvp_zip_items),
                     (iterators.enumerate_items, jvp_enumerate_items),
                     (iterators.reversed_items, jvp_reversed_items),
                     (iterators.iter_items, jvp_iter_items),
                     (iterators.for_pass, jvp_for_pass),
                     (iterators.list_of_items, jvp_list_of_items),
                     (iterators.end_ahead, jvp_end_ahead),
                     (iterators.chain_items, jvp_chain_items),
                     (iterators.product_items, jvp_product_items),
                     (iterators.accumulate_items, jvp_accumulate_items),
                     (iterators.next_item, jvp_next_item),
                     (builtins.sorted, jvp_sorted),
                     (builtins.list, jvp_list_or_tuple),
                     (builtins.tuple, jvp_list_or_tuple)):
    if registry.function_rule(_primal) is not None:
        jvp(_primal)(_fn)



def _refuse_iterator(rule):
    def jvp_iterator(*rest, **kwargs):
        if all(d is None for d in rest[:len(rule.diff)]):
            return
        raise registry_errors.NoDerivativeRule(
            f"forward mode (zp.jvp) does not follow a derivative through {rule.qualname} yet",
            hint="index the arrays in a range loop instead, or use reverse mode")
    jvp_iterator.__name__ = "jvp_refused_" + rule.qualname.replace(".", "_")
    jvp_iterator.refused = True
    return jvp_iterator



for _rule in registry.all_rules():
    if getattr(_rule.vjp, "__module__", None) == "zygote_py.rules.iterators" and _rule.jvp is None:
        _rule.jvp = _refuse_iterator(_rule)


# -- the helpers generated gradient code calls: linear in the cotangents they move -------------
# (what forward mode over a compiled gradient -- zp.hessian -- meets at every step)

_JOINTLY_LINEAR_HELPERS = (
    "zygote_py.runtime.containers.list_insert", "zygote_py.runtime.containers.list_reverse",
    "zygote_py.runtime.containers.list_pop", "zygote_py.runtime.containers.list_clear",
    "zygote_py.runtime.containers.list_setitem", "zygote_py.runtime.containers.list_delitem",
    "zygote_py.runtime.helpers.unbroadcast", "zygote_py.runtime.transposes.broadcast_like",
    "zygote_py.runtime.helpers.expand_reduced", "zygote_py.runtime.transposes.sum_reduced",
    "zygote_py.runtime.helpers.accum", "zygote_py.runtime.helpers.accum_index",
    "zygote_py.runtime.helpers.accum_item",
    "zygote_py.runtime.helpers.accum_owned",
    "zygote_py.runtime.helpers.zeros_if_none", "zygote_py.runtime.helpers.item_cotangent",
    "zygote_py.runtime.helpers.strong_zero_kept",
    "zygote_py.runtime.helpers.unpack_cotangent", "zygote_py.runtime.helpers.split_last",
    "zygote_py.runtime.helpers.split_tail", "zygote_py.rules.indexing._index_cotangent",
    "zygote_py.rules.indexing._diagonal_cotangent", "zygote_py.rules.indexing._take_cotangent",
    "zygote_py.rules.indexing._sort_cotangent", "zygote_py.rules.shapes._repeat_cotangent",
    "zygote_py.rules.structure._partition_cotangent",
    "zygote_py.rules.statistics._quantile_cotangent", "zygote_py.rules.shapes.like_input",
)
_MULTILINEAR_HELPERS = (
    "zygote_py.rules.linalg.matmul_cotangent_a", "zygote_py.rules.linalg.matmul_cotangent_b",
    "zygote_py.rules.linalg.dot_cotangent_a", "zygote_py.rules.linalg.dot_cotangent_b",
    "zygote_py.rules.linalg.outer_cotangent_a", "zygote_py.rules.linalg.outer_cotangent_b",
    "zygote_py.rules.linalg.inner_cotangent_a", "zygote_py.rules.linalg.inner_cotangent_b",
    "zygote_py.rules.linalg.tensordot_cotangent_a", "zygote_py.rules.linalg.tensordot_cotangent_b",
    "zygote_py.rules.linalg.matmul_tangent_left", "zygote_py.rules.linalg.matmul_tangent_right",
    "zygote_py.rules.linalg.dot_tangent_left", "zygote_py.rules.linalg.dot_tangent_right",
    "zygote_py.rules.linalg._multiply_last_first",
)


def _multilinear(primal, rule):
    """jvp of a function linear in each differentiable argument separately (a product):
    one term per argument with a tangent, the others at their values."""
    params = inspect.Signature(list(rule.params))
    positions = _positions(rule)

    def jvp_multilinear(*rest, **kwargs):
        n = len(rule.diff)
        dxs, (_, *args) = rest[:n], rest[n:]
        terms = []
        if not kwargs and positions is not None and len(args) <= positions[1]:
            for i, d in zip(positions[0], dxs):  # all by position: no binding
                if d is not None and i < len(args):
                    terms.append(primal(*args[:i], d, *args[i + 1:]))
            return add_terms(*terms)
        for name, d in zip(rule.diff, dxs):
            if d is None:
                continue
            bound = params.bind(*args, **kwargs)
            if name in bound.arguments:
                bound.arguments[name] = d
                terms.append(primal(*bound.args, **bound.kwargs))
        return add_terms(*terms)

    jvp_multilinear.gives_tangent = True  # a term for every tangent given
    jvp_multilinear.__name__ = f"jvp_{getattr(primal, '__name__', 'multilinear')}"
    return jvp_multilinear


for _rule in list(registry.all_rules()):
    if _rule.jvp is not None or isinstance(_rule.primal, tuple):
        continue
    if _rule.qualname in _JOINTLY_LINEAR_HELPERS:
        _rule.jvp = _jointly_linear(_rule.primal, _rule)
    elif _rule.qualname in _MULTILINEAR_HELPERS:
        _rule.jvp = _multilinear(_rule.primal, _rule)



def jvp_list_pop(d_items, y, items, index=-1):
    """(the list without the item, the item): the same on the tangent list."""
    if d_items is None:
        return None
    rest = list(d_items)
    item = rest.pop(index)
    return rest, item


def jvp_strong_zero(d_r, y, g, r):
    """Linear in r: the tangent passes where the entry was kept."""
    return strong_zero_kept(d_r, g, r)


_rule = registry.function_rule(strong_zero)
if _rule is not None:
    _rule.jvp = jvp_strong_zero


def jvp_strong_times(dg, dp, y, g, p):
    """The product's tangent where the entry was kept, 0 where a zero g replaced a nan."""
    if dg is None and dp is None:
        return None
    term = add_terms(None if dg is None else strong_times(dg, p), None if dp is None else strong_times(dp, g))
    return strong_zero_kept(term, g, g * p)


_rule = registry.function_rule(strong_times)
if _rule is not None:
    _rule.jvp = jvp_strong_times


def jvp_summed_strong_times(dg, dp, y, g, p, x):
    """unbroadcast(strong_times(g, p), x): strong_times' tangent, summed to x's shape."""
    if dg is None and dp is None:
        return None
    return unbroadcast(jvp_strong_times(dg, dp, None, g, p), x)


_rule = registry.function_rule(summed_strong_times)
if _rule is not None:
    _rule.jvp = jvp_summed_strong_times

_rule = registry.function_rule(containers.list_pop)
if _rule is not None:
    _rule.jvp = jvp_list_pop


def _sequence_of_sequence(primal, rule):
    """list(x) / tuple(x): of a list or tuple, the same items, so the tangent is the same
    items' tangents, whatever the items are (functions on a gradient's tape, Ellipsis in
    an index); of anything else (an array, an iterator), the jvp derived from the reverse
    rule (jvp_derived.py, made on first use: that module attaches its jvps after this one)."""
    derived = []

    def jvp_sequence(d_iterable, y, iterable=()):
        if d_iterable is None:
            return None
        if type(iterable) in (list, tuple) and type(d_iterable) in (list, tuple) and \
                len(d_iterable) == len(iterable):
            return primal(d_iterable)
        if not derived:
            from .jvp_derived import derived_jvp
            derived.append(derived_jvp(rule))
        return derived[0](d_iterable, y, iterable)

    jvp_sequence.__name__ = f"jvp_{primal.__name__}"
    return jvp_sequence


for _primal in (list, tuple):
    _rule = registry.function_rule(_primal)
    if _rule is not None and _rule.jvp is None and _rule.diff == ("iterable",):
        _rule.jvp = _sequence_of_sequence(_primal, _rule)


# -- dicts built from pairs: a key with a tangent is refused (a dict's tangent is keyed by its
# keys, and holds its values' tangents only; reverse mode: ad/reverse/containers.py)


def _checking_keys(fn, pairs_position):
    """The jvp of fn's rule (dict or dict_update): the pairs argument at pairs_position
    (among the arguments after y) checked for key tangents, then the jvp derived from the
    reverse rule (jvp_derived.py, made on first use: that module attaches its jvps after
    this one, and importing it here would change which rules it finds without one)."""
    rule = registry.function_rule(fn)
    n = len(rule.diff)  # the tangents come first, then y, then the arguments
    derived = []

    def jvp_keys_checked(*rest, **kwargs):
        args = rest[n + 1:]
        if len(args) > pairs_position:
            refuse_key_tangents(args[pairs_position], rest[pairs_position])
        if not derived:
            from .jvp_derived import derived_jvp

            derived.append(derived_jvp(rule))
        return derived[0](*rest, **kwargs)

    return jvp_keys_checked


registry.function_rule(builtins.dict).jvp = _checking_keys(builtins.dict, 0)
registry.function_rule(containers.dict_update).jvp = _checking_keys(containers.dict_update, 1)
