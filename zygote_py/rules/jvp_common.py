"""Forward-mode (jvp) rules written out for the most used functions.

A jvp rule has the signature `(dx..., y, *primal_params) -> dy`: one tangent per
differentiable parameter of the reverse rule (in the order of `rule.diff`,
None for a zero tangent), the primal output, then the primal's own arguments.
It returns y's tangent (None for zero).  Written here, for speed:

  - arithmetic operators and their ufuncs (add, subtract, multiply, divide,
    negation, powers), with broadcasting; + and * of lists and tuples;
  - unary elementwise functions (NumPy's one-input ufuncs and `math`'s
    one-argument functions): their Jacobian is diagonal, so the reverse rule
    applied to the tangent, `vjp(dx, y, x)`, is exactly the jvp;
  - linear functions (sums, means, reshapes, transposes, indexing), whose jvp
    is the function itself applied to the tangent;
  - bilinear products (matmul, dot): f(da, b) + f(a, db).

Every other rule gets its jvp from jvp_derived.py.  tests/rules/test_jvp_rules.py
checks them all against central finite differences.
"""

from __future__ import annotations

import inspect
import math
import operator

import numpy as np

from .. import errors as registry_errors
from ..runtime import containers, iterators
from . import registry
from .registry import jvp


def _zero_like(x):
    if x is None:
        return None
    if type(x) is dict:
        return {k: _zero_like(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return np.zeros(x.shape, dtype=x.dtype if x.dtype.kind in "fc" else float)
    if isinstance(x, (list, tuple)):
        items = [_zero_like(v) for v in x]
        return items if type(x) is list else tuple(items)
    return 0.0


def dense(dx, x):
    """The tangent dx of x with None (zero) written out as zeros shaped like x."""
    if dx is None:
        return _zero_like(x)
    if isinstance(x, (list, tuple)) and isinstance(dx, (list, tuple)):
        items = [dense(d, v) for d, v in zip(dx, x)]
        return items if type(x) is list else tuple(items)
    return dx


def add_terms(*terms):
    """The sum of the tangent terms that are not None (None if all are)."""
    out = None
    for term in terms:
        if term is not None:
            out = term if out is None else out + term
    return out


def _is_sequence(x) -> bool:
    return type(x) is list or type(x) is tuple or \
        (isinstance(x, (list, tuple)) and not isinstance(x, np.ndarray))


# -- arithmetic ----------------------------------------------------------------------------


def jvp_add(da, db, y, a, b):
    if _is_sequence(a) or _is_sequence(b):  # concatenation
        if da is None and db is None:
            return None
        out = list(dense_items(da, a)) + list(dense_items(db, b))
        return out if type(y) is list else tuple(out)
    return add_terms(da, db)


def dense_items(dx, seq):
    return dx if dx is not None else [None] * len(seq)


def jvp_sub(da, db, y, a, b):
    return add_terms(da, None if db is None else -db)


def jvp_mul(da, db, y, a, b):
    if _is_sequence(a) or _is_sequence(b):  # repetition: seq * n
        seq_dot, n = (da, b) if _is_sequence(a) else (db, a)
        return None if seq_dot is None else (list(seq_dot) * n if type(y) is list else tuple(seq_dot) * n)
    return add_terms(None if da is None else da * b, None if db is None else a * db)


def jvp_truediv(da, db, y, a, b):
    return add_terms(None if da is None else da / b, None if db is None else -db * y / b)


def jvp_neg(dx, y, x):
    return None if dx is None else -dx


def jvp_pos(dx, y, x):
    return dx


for _primal in (operator.add, np.add):
    jvp(_primal)(jvp_add)
for _primal in (operator.sub, np.subtract):
    jvp(_primal)(jvp_sub)
for _primal in (operator.mul, np.multiply):
    jvp(_primal)(jvp_mul)
for _primal in (operator.truediv, np.divide):
    jvp(_primal)(jvp_truediv)
for _primal in (operator.neg, np.negative):
    jvp(_primal)(jvp_neg)
for _primal in (operator.pos, np.positive):
    jvp(_primal)(jvp_pos)


def jvp_pow(da, db, y, a, b):
    """d(a**b) = b a**(b-1) da (+ log(a) a**b db, by the reverse rule's transpose)."""
    if db is not None or _is_sequence(a) or _is_sequence(b):
        return _pow_derived(da, db, y, a, b)
    if da is None:
        return None
    if np.ndim(b) == 0 and b == 0:
        return da * 0.0  # x ** 0 is constant (and 0.0 ** -1 would raise)
    if np.ndim(b) == 0 and b == 2:
        return da * (2 * a)
    if not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray):
        return da * (b * float(a) ** (b - 1)) if a != 0 else da * (b * _pow_at_zero(b))
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = b * np.power(np.asarray(a, dtype=float), np.subtract(b, 1))
    return da * np.where(np.equal(b, 0), 0.0, slope)  # x ** 0 is constant, at 0 too


def _pow_at_zero(b):
    """The derivative's factor 0 ** (b - 1), as NumPy computes it (inf for b < 1)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.power(0.0, b - 1)


def jvp_matmul(da, db, y, a, b):
    return add_terms(None if da is None else da @ b, None if db is None else a @ db)


def jvp_dot(da, db, y, a, b, out=None):
    return add_terms(None if da is None else np.dot(da, b), None if db is None else np.dot(a, db))


def _pow_derived(*args):
    from .jvp_derived import derived_jvp
    return derived_jvp(registry.function_rule(operator.pow))(*args)


for _primal in (operator.pow, np.power):
    jvp(_primal)(jvp_pow)
jvp(operator.matmul)(jvp_matmul)
jvp(np.matmul)(jvp_matmul)
jvp(np.dot)(jvp_dot)


# -- elementwise unary: the reverse rule is the jvp (diagonal Jacobian) ----------------------


def _diagonal(rule):
    vjp_fn = rule.vjp
    complex_ok = rule.complex_ok

    def jvp_elementwise(dx, y, *args, **kwargs):
        if dx is None:
            return None
        if not complex_ok and _is_complex_value(y):  # g * f'(x) is the jvp only where declared
            raise registry_errors.NoDerivativeRule(
                f"forward mode of {rule.qualname} with complex values is not supported",
                hint="use reverse mode for complex values")
        return vjp_fn(dx, y, *args, **kwargs)

    jvp_elementwise.__name__ = f"jvp_{getattr(rule.primal, '__name__', 'elementwise')}"
    jvp_elementwise.__qualname__ = jvp_elementwise.__name__
    return jvp_elementwise


def _is_complex_value(x) -> bool:
    return type(x) is complex or isinstance(x, np.complexfloating) or \
        (isinstance(x, np.ndarray) and x.dtype.kind == "c")


def _is_unary_elementwise(rule) -> bool:
    primal = rule.primal
    if len(rule.diff) != 1 or rule.jvp is not None or rule.meta.get("complex_vjp"):
        return False
    if isinstance(primal, np.ufunc):
        return primal.nin == 1 and primal.nout == 1 and primal not in _NOT_DIAGONAL
    if getattr(primal, "__module__", None) == "math" or primal in _MATH_MODULE:
        return len(rule.params) == 1 and primal not in (math.modf, math.frexp) and \
            rule.params[0].kind in (rule.params[0].POSITIONAL_ONLY, rule.params[0].POSITIONAL_OR_KEYWORD)
    return False


_NOT_DIAGONAL: set = set()  # one-input ufuncs whose rule is not g * f'(x) (none so far)
_MATH_MODULE = {getattr(math, name) for name in dir(math) if callable(getattr(math, name))}

for _rule in list(registry.all_rules()):
    if isinstance(_rule.primal, tuple):
        continue
    try:
        if _is_unary_elementwise(_rule):
            _rule.jvp = _diagonal(_rule)
    except TypeError:  # an unhashable primal
        continue


# -- linear functions: the function of the tangent ----------------------------------------------


def _linear(primal):
    """jvp of a function linear in its one differentiable (first) argument (a sum's
    `initial` is a constant term: the tangent's sum starts at 0)."""
    def jvp_linear(dx, y, x, *args, **kwargs):
        if dx is None:
            return None
        if primal is np.sum and (len(args) >= 5 or kwargs.get("initial") is not None):
            bound = inspect.signature(np.sum).bind(x, *args, **kwargs)
            bound.arguments["initial"] = 0.0
            args, kwargs = bound.args[1:], bound.kwargs
        return primal(dense(dx, x), *args, **kwargs)

    jvp_linear.__name__ = f"jvp_{getattr(primal, '__name__', 'linear')}"
    return jvp_linear


for _primal in (np.sum, np.mean, np.reshape, np.transpose, np.squeeze, np.expand_dims,
                np.ravel, np.swapaxes, np.moveaxis, np.cumsum, np.trace, np.diag, np.flip,
                np.broadcast_to, np.real, np.diff):
    _rule = registry.function_rule(_primal)
    if _rule is not None and _rule.jvp is None and _rule.diff == (_rule.params[0].name,):
        _rule.jvp = _linear(_primal)


_INDEX_TRICKS = (type(np.r_), type(np.c_), type(np.s_))


def _index_item_tangent(d, item, trick):
    """The tangent of one item of np.r_[...] / np.c_[...]: a directive string stays, a
    slice (a range of constants) becomes zeros of its length, data its tangent."""
    if isinstance(item, str):
        return item
    if isinstance(item, slice):
        return np.zeros(len(np.r_[item]))
    return dense(d, item)


def jvp_getitem(da, db, y, a, b):
    if type(a) in _INDEX_TRICKS:  # np.r_[x, y]: linear in the index, which holds the data
        if db is None:
            return None
        items = b if isinstance(b, tuple) else (b,)
        dbs = (tuple(db) if isinstance(db, (tuple, list)) else (None,) * len(items)) \
            if isinstance(b, tuple) else (db,)
        dense_b = tuple(_index_item_tangent(d, v, a) for d, v in zip(dbs, items))
        return a[dense_b if isinstance(b, tuple) else dense_b[0]]
    if da is None:
        return None
    if isinstance(da, dict):
        return da.get(b)
    if isinstance(a, np.ndarray) and not isinstance(da, np.ndarray):
        da = np.broadcast_to(np.asarray(da, dtype=float), a.shape)
    return da[b]


jvp(operator.getitem)(jvp_getitem)


def _method_linear(name):
    def jvp_method(dself, *rest, **kwargs):
        y, obj, *args = rest
        if dself is None:
            return None
        if name == "sum" and (len(args) >= 5 or kwargs.get("initial") is not None):
            bound = inspect.signature(np.sum).bind(obj, *args, **kwargs)
            bound.arguments["initial"] = 0.0
            args, kwargs = bound.args[1:], bound.kwargs
        return getattr(np.asarray(dense(dself, obj)), name)(*args, **kwargs)

    jvp_method.__name__ = f"jvp_ndarray_{name}"
    return jvp_method


for _name in ("sum", "mean", "reshape", "transpose", "ravel", "flatten", "squeeze", "cumsum",
              "swapaxes", "trace", "diagonal", "copy"):
    _rule = registry.method_rule(np.ndarray, _name)
    if _rule is not None and _rule.jvp is None and _rule.diff == ("self",):
        _rule.jvp = _method_linear(_name)


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
    if isinstance(seq, np.ndarray) and np.shape(dx) != seq.shape:
        dx = np.broadcast_to(dx, seq.shape)
    return list(dx)


def _refuse_items_source(qualname, sources, tangents):
    if any(type(s) is iterators.Items and t is not None for s, t in zip(sources, tangents)):
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
    if type(iterable) is iterators.Items:
        return d_iterable  # an Items iterator is its own iterator
    _refuse_items_source("iter", (iterable,), (d_iterable,))
    return _sequence_tangents(d_iterable, iterable)


def jvp_for_pass(d_iterable, y, iterable):
    return d_iterable  # the loop reads the tangent from the iterator's cursor on


def jvp_list_of_items(d_items, y, items):
    return None if d_items is None else list(d_items)



for _primal, _fn in ((iterators.zip_items, jvp_zip_items),
                     (iterators.enumerate_items, jvp_enumerate_items),
                     (iterators.reversed_items, jvp_reversed_items),
                     (iterators.iter_items, jvp_iter_items),
                     (iterators.for_pass, jvp_for_pass),
                     (iterators.list_of_items, jvp_list_of_items)):
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


# -- attributes of arrays: all linear (.T, .mT, .real, .imag) ------------------------------------


def _attr_linear(name):
    def jvp_attr(dself, y, self):
        if dself is None:
            return None
        return getattr(np.asarray(dense(dself, self)), name)

    jvp_attr.__name__ = f"jvp_ndarray_{name}"
    return jvp_attr


for (_cls, _name), _rule in list(registry._ATTR_RULES.items()):
    if _rule.jvp is None and _name in ("T", "mT", "real", "imag"):
        _rule.jvp = _attr_linear(_name)


# -- more linear and bilinear functions ------------------------------------------------------------


def _jointly_linear(primal, rule):
    """jvp of a function linear in all its differentiable arguments together (each given
    as a value; zeros where their tangent is zero)."""
    params = inspect.Signature(list(rule.params))

    def jvp_jointly_linear(*rest, **kwargs):
        n = len(rule.diff)
        dxs, (y, *args) = rest[:n], rest[n:]
        if all(d is None for d in dxs):
            return None
        bound = params.bind(*args, **kwargs)
        for name, d in zip(rule.diff, dxs):
            if name in bound.arguments:
                bound.arguments[name] = dense(d, bound.arguments[name])
        return primal(*bound.args, **bound.kwargs)

    jvp_jointly_linear.__name__ = f"jvp_{getattr(primal, '__name__', 'linear')}"
    return jvp_jointly_linear


for _primal in (np.concatenate, np.stack, np.hstack, np.vstack, np.column_stack, np.dstack,
                np.where, np.tile, np.repeat, np.pad, np.roll, np.rot90, np.tril, np.triu,
                np.atleast_1d, np.atleast_2d, np.take):
    _rule = registry.function_rule(_primal)
    if _rule is None or _rule.jvp is not None or _rule.meta.get("underived"):
        continue
    if any(p.kind is p.VAR_POSITIONAL for p in _rule.params):
        continue
    _rule.jvp = _jointly_linear(_primal, _rule)


def _bilinear(primal):
    def jvp_bilinear(da, db, y, a, b, *args, **kwargs):
        return add_terms(None if da is None else primal(da, b, *args, **kwargs),
                         None if db is None else primal(a, db, *args, **kwargs))

    jvp_bilinear.__name__ = f"jvp_{getattr(primal, '__name__', 'bilinear')}"
    return jvp_bilinear


for _primal in (np.outer, np.inner, np.kron, np.tensordot, np.cross, np.vdot):
    _rule = registry.function_rule(_primal)
    if _rule is not None and _rule.jvp is None and len(_rule.diff) == 2 and \
            _rule.diff == tuple(p.name for p in _rule.params[:2]):
        _rule.jvp = _bilinear(_primal)


def jvp_einsum(d_subscripts, d_operands, y, subscripts, *operands, **kwargs):
    """Multilinear: one term per operand with a tangent (string subscripts)."""
    if not isinstance(subscripts, str) or d_subscripts is not None:
        return _einsum_derived(d_subscripts, d_operands, y, subscripts, *operands, **kwargs)
    if d_operands is None:
        return None
    terms = []
    for i, d in enumerate(d_operands):
        if d is not None:
            ops = list(operands)
            ops[i] = d
            terms.append(np.einsum(subscripts, *ops, **kwargs))
    return add_terms(*terms)


def _einsum_derived(*args, **kwargs):
    from .jvp_derived import derived_jvp
    return derived_jvp(registry.function_rule(np.einsum))(*args, **kwargs)


if registry.function_rule(np.einsum) is not None:
    jvp(np.einsum)(jvp_einsum)



# -- the helpers generated gradient code calls: linear in the cotangents they move -------------
# (what forward mode over a compiled gradient -- zp.hessian -- meets at every step)

_JOINTLY_LINEAR_HELPERS = (
    "zygote_py.runtime.containers.list_insert", "zygote_py.runtime.containers.list_reverse",
    "zygote_py.runtime.containers.list_pop", "zygote_py.runtime.containers.list_clear",
    "zygote_py.runtime.containers.list_setitem", "zygote_py.runtime.containers.list_delitem",
    "zygote_py.runtime.helpers.unbroadcast", "zygote_py.runtime.transposes.broadcast_like",
    "zygote_py.runtime.helpers.expand_reduced", "zygote_py.runtime.transposes.sum_reduced",
    "zygote_py.runtime.helpers.accum", "zygote_py.runtime.helpers.accum_index",
    "zygote_py.runtime.helpers.zeros_if_none", "zygote_py.runtime.helpers.item_cotangent",
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
)


def _multilinear(primal, rule):
    """jvp of a function linear in each differentiable argument separately (a product):
    one term per argument with a tangent, the others at their values."""
    params = inspect.Signature(list(rule.params))

    def jvp_multilinear(*rest, **kwargs):
        n = len(rule.diff)
        dxs, (y, *args) = rest[:n], rest[n:]
        terms = []
        for name, d in zip(rule.diff, dxs):
            if d is None:
                continue
            bound = params.bind(*args, **kwargs)
            if name in bound.arguments:
                bound.arguments[name] = d
                terms.append(primal(*bound.args, **bound.kwargs))
        return add_terms(*terms)

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


_rule = registry.function_rule(containers.list_pop)
if _rule is not None:
    _rule.jvp = jvp_list_pop
