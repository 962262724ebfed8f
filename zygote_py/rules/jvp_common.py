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

The forward rule of a linear function carries `linear = True`: its Jacobian does not depend
on the values of the arguments, so forward mode over the rule's pullback (gradient code
differentiated again, calls/forward_dispatched.py) knows that only the cotangent moves.

The structural functions (iterators, dict views, the helpers of gradient code) are in
jvp_structural.py; every other rule gets its jvp from jvp_derived.py.  tests/rules/test_jvp_rules.py
checks them all against central finite differences.
"""

from __future__ import annotations

import inspect
import math
import operator

import numpy as np

from .. import errors as registry_errors
from ..runtime.helpers import strong_times, strong_zero
from . import registry
from .linalg import dot_tangent_left, dot_tangent_right, matmul_tangent_left, matmul_tangent_right
from .registry import jvp
from .strong_products import repair_needed, strong_contraction


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


def fit_to(d, y):
    """The tangent d of one operand of `a + b` (or `a - b`), broadcast up to y's shape.

    When only one operand has a tangent, that tangent has the operand's shape, which the
    other operand's broadcasting may have made larger: `np.sum(x + B)` with a vector x and
    a matrix B counts each of x's tangents once per row of B, so the tangent of `x + B`
    must be B's shape.  (Two tangents broadcast against each other when added.)"""
    if isinstance(y, np.ndarray) and np.shape(d) != y.shape:
        # a copy, not a read-only broadcast view: the tangent may reach the user, or a
        # helper of gradient code that adds into its accumulator in place
        return np.broadcast_to(d, y.shape).copy()
    return d


def _as_array_tangent(d, x):
    """The tangent of an operand x of arithmetic that NumPy computed on np.asarray(x) (a
    list or tuple met an ndarray or a NumPy scalar: `[a] + np.array(...)` is an array, not
    a concatenation): the array of its items' tangents, zeros where they have none."""
    if d is None or not _is_sequence(d):
        return d
    return np.asarray(dense(d, x), dtype=np.result_type(np.asarray(x), float))


def _numeric_operands(da, db, y, a, b):
    """(da, db) as tangents of NumPy operands where y, the result, is not a sequence."""
    if _is_sequence(y):
        return da, db
    return _as_array_tangent(da, a), _as_array_tangent(db, b)


# The ufuncs' forward rules take the ufunc's keyword options (order=, casting=, dtype=,
# subok=) and ignore them, as the reverse rules do: they choose the result's layout or
# type, not its derivative.  (out= and where= never reach a rule: the mutation transform
# rewrites them first.)  operator.add and the rest share these rules and pass none.


def jvp_add(da, db, y, a, b, **ufunc_options):
    if _is_sequence(y):  # concatenation (the result decides: `[a] + array` is an array)
        if da is None and db is None:
            return None
        out = list(dense_items(da, a)) + list(dense_items(db, b))
        return out if type(y) is list else tuple(out)
    da, db = _numeric_operands(da, db, y, a, b)
    if da is None:
        return None if db is None else fit_to(db, y)
    if db is None:
        return fit_to(da, y)
    return da + db


def dense_items(dx, seq):
    return dx if dx is not None else [None] * len(seq)


def jvp_sub(da, db, y, a, b, **ufunc_options):
    da, db = _numeric_operands(da, db, y, a, b)
    if da is None:
        return None if db is None else fit_to(-db, y)
    if db is None:
        return fit_to(da, y)
    return da - db


def jvp_mul(da, db, y, a, b, **ufunc_options):
    if _is_sequence(y):  # repetition: seq * n
        seq_dot, n = (da, b) if _is_sequence(a) else (db, a)
        return None if seq_dot is None else (list(seq_dot) * n if type(y) is list else tuple(seq_dot) * n)
    da, db = _numeric_operands(da, db, y, a, b)
    return add_terms(None if da is None else strong_times(da, b),
                     None if db is None else strong_times(db, a))


# Forward mode's strong zero mirrors reverse mode's: a zero tangent entry contributes
# exactly 0, also where the local derivative it multiplies is inf or nan (a * db with
# an infinite a).  The products test for nan once and only then look at the tangent.


def jvp_truediv(da, db, y, a, b, **ufunc_options):
    da, db = _numeric_operands(da, db, y, a, b)
    return add_terms(None if da is None else strong_zero(da, da / b),
                     None if db is None else strong_zero(db, -db * y / b))


def jvp_neg(dx, y, x, **ufunc_options):
    return None if dx is None else -dx


def jvp_pos(dx, y, x, **ufunc_options):
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


def jvp_pow(da, db, y, a, b, **ufunc_options):
    """d(a**b) = b a**(b-1) da (+ log(a) a**b db, by the reverse rule's transpose)."""
    if db is not None or _is_sequence(a) or _is_sequence(b):
        return _pow_derived(da, db, y, a, b, **ufunc_options)
    if da is None:
        return None
    if np.ndim(b) == 0 and b == 0:
        return da * 0.0  # x ** 0 is constant (and 0.0 ** -1 would raise)
    if np.ndim(b) == 0 and b == 2:
        return strong_zero(da, da * (2 * a))
    if not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray):
        return strong_zero(da, da * (b * float(a) ** (b - 1)) if a != 0 else da * (b * _pow_at_zero(b)))
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = b * np.power(np.asarray(a, dtype=float), np.subtract(b, 1))
    return strong_zero(da, da * np.where(np.equal(b, 0), 0.0, slope))  # x ** 0 is constant, at 0 too


def _pow_at_zero(b):
    """The derivative's factor 0 ** (b - 1), as NumPy computes it (inf for b < 1)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.power(0.0, b - 1)


def jvp_matmul(da, db, y, a, b, **ufunc_options):
    if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):  # a user's own __matmul__
        return add_terms(None if da is None else da @ b, None if db is None else a @ db)
    return add_terms(None if da is None else matmul_tangent_left(da, b),
                     None if db is None else matmul_tangent_right(a, db))


def jvp_dot(da, db, y, a, b, out=None):
    return add_terms(None if da is None else dot_tangent_left(da, b),
                     None if db is None else dot_tangent_right(a, db))


def _pow_derived(*args, **ufunc_options):
    from .jvp_derived import derived_jvp
    # np.power's rule (the same body as operator.pow's): a list operand can only have come
    # from np.power (`list ** 2` raises), whose rule reads NumPy's array of it
    return derived_jvp(registry.function_rule(np.power))(*args, **ufunc_options)


for _primal in (operator.pow, np.power):
    jvp(_primal)(jvp_pow)
jvp(operator.matmul)(jvp_matmul)
jvp(np.matmul)(jvp_matmul)
jvp(np.dot)(jvp_dot)


# -- elementwise unary: the reverse rule is the jvp (diagonal Jacobian) ----------------------


def _array_tangent(dx, x):
    """The tangent of a (nested) list or tuple that NumPy takes as an array, as that array
    (None items are zeros of their item's shape)."""
    if type(dx) not in (list, tuple):
        return dx
    items = [np.zeros(np.shape(xi)) if d is None else _array_tangent(d, xi) for d, xi in zip(dx, x)]
    return np.asarray(items, dtype=float)


def _diagonal(rule):
    vjp_fn = rule.vjp
    complex_ok = rule.complex_ok

    def jvp_elementwise(dx, y, *args, **kwargs):
        if dx is None:
            return None
        if type(dx) in (list, tuple) and args:  # np.exp2([1.0, p]): NumPy made an array of it
            dx = _array_tangent(dx, args[0])
        if not complex_ok and _is_complex_value(y):  # g * f'(x) is the jvp only where declared
            raise registry_errors.NoDerivativeRule(
                f"forward mode of {rule.qualname} with complex values is not supported",
                hint="use reverse mode for complex values")
        return vjp_fn(dx, y, *args, **kwargs)

    jvp_elementwise.gives_tangent = True
    jvp_elementwise.__name__ = f"jvp_{getattr(rule.primal, '__name__', 'elementwise')}"
    jvp_elementwise.__qualname__ = jvp_elementwise.__name__
    # the forward transform splices this reverse rule's body as the jvp expression where
    # the call's tangent is certainly not None (ad/forward/inline.py); only where complex
    # values are right as written (a math function refuses them itself)
    if complex_ok or getattr(rule.primal, "__module__", None) == "math" or rule.primal in _MATH_MODULE:
        jvp_elementwise.diagonal_body = vjp_fn
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

    jvp_linear.gives_tangent = True
    jvp_linear.linear = True
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
        da = np.broadcast_to(np.asarray(da, dtype=np.result_type(da, float)), a.shape)
    return da[b]


jvp_getitem.linear = True
jvp(operator.getitem)(jvp_getitem)


def _method_linear(name):
    def jvp_method(dself, *rest, **kwargs):
        _y, obj, *args = rest
        if dself is None:
            return None
        if name == "sum" and (len(args) >= 5 or kwargs.get("initial") is not None):
            bound = inspect.signature(np.sum).bind(obj, *args, **kwargs)
            bound.arguments["initial"] = 0.0
            args, kwargs = bound.args[1:], bound.kwargs
        return getattr(np.asarray(dense(dself, obj)), name)(*args, **kwargs)

    jvp_method.gives_tangent = True
    jvp_method.linear = True
    jvp_method.__name__ = f"jvp_ndarray_{name}"
    return jvp_method


for _name in ("sum", "mean", "reshape", "transpose", "ravel", "flatten", "squeeze", "cumsum",
              "swapaxes", "trace", "diagonal", "copy"):
    _rule = registry.method_rule(np.ndarray, _name)
    if _rule is not None and _rule.jvp is None and _rule.diff == ("self",):
        _rule.jvp = _method_linear(_name)


# -- attributes of arrays: all linear (.T, .mT, .real, .imag) ------------------------------------


def _attr_linear(name):
    def jvp_attr(dself, y, self):
        if dself is None:
            return None
        return getattr(np.asarray(dense(dself, self)), name)

    jvp_attr.gives_tangent = True
    jvp_attr.linear = True
    jvp_attr.__name__ = f"jvp_ndarray_{name}"
    return jvp_attr


for (_cls, _name), _rule in list(registry._ATTR_RULES.items()):
    if _rule.jvp is None and _name in ("T", "mT", "real", "imag"):
        _rule.jvp = _attr_linear(_name)


# -- more linear and bilinear functions ------------------------------------------------------------


def _positions(rule):
    """(the indices of rule.diff's parameters, the number of leading positional
    parameters), or None where a differentiable parameter is not among those."""
    names = []
    for p in rule.params:
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            break
        names.append(p.name)
    if any(name not in names for name in rule.diff):
        return None
    return tuple(names.index(name) for name in rule.diff), len(names)


def _keyword_only(primal) -> frozenset:
    """The names the function itself takes by keyword only (empty where its signature
    cannot be read, e.g. a builtin without one)."""
    try:
        signature = inspect.signature(primal)
    except (TypeError, ValueError):
        return frozenset()
    return frozenset(p.name for p in signature.parameters.values() if p.kind is p.KEYWORD_ONLY)


def _jointly_linear(primal, rule):
    """jvp of a function linear in all its differentiable arguments together (each given
    as a value; zeros where their tangent is zero)."""
    params = inspect.Signature(list(rule.params))
    positions = _positions(rule)
    # The rule's signature may list as positional what the function itself takes by
    # keyword only (np.vstack's dtype=, casting=): those are passed by name.
    keyword_only = _keyword_only(primal)
    by_position = positions[1] if positions is not None else 0
    if keyword_only:
        names = [p.name for p in rule.params]
        by_position = min(by_position, next(
            (i for i, name in enumerate(names) if name in keyword_only), len(names)))

    def jvp_jointly_linear(*rest, **kwargs):
        n = len(rule.diff)
        dxs, (_, *args) = rest[:n], rest[n:]
        if all(d is None for d in dxs):
            return None
        if not kwargs and positions is not None and len(args) <= by_position:
            # all by position (gradient code calls its helpers so): no binding
            for i, d in zip(positions[0], dxs):
                if i < len(args):
                    args[i] = dense(d, args[i])
            return primal(*args)
        bound = params.bind(*args, **kwargs)
        for name, d in zip(rule.diff, dxs):
            if name in bound.arguments:
                bound.arguments[name] = dense(d, bound.arguments[name])
        if not keyword_only:
            return primal(*bound.args, **bound.kwargs)
        positional = [v for name, v in bound.arguments.items() if name not in keyword_only]
        named = {name: v for name, v in bound.arguments.items() if name in keyword_only}
        return primal(*positional, **named)

    jvp_jointly_linear.gives_tangent = True
    jvp_jointly_linear.linear = True
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
    """jvp of a product of two arrays (no constant coefficient: np.cross's signs are
    tested apart), with the strong zero in each tangent (rules/strong_products.py)."""
    def jvp_bilinear(da, db, y, a, b, *args, **kwargs):
        left = right = None
        if da is not None:
            left = primal(da, b, *args, **kwargs)
            if primal is not np.cross and repair_needed(left, da, b):
                left = strong_contraction(lambda d_, b_: primal(d_, b_, *args, **kwargs), left, da, b)
        if db is not None:
            right = primal(a, db, *args, **kwargs)
            if primal is not np.cross and repair_needed(right, db, a):
                right = strong_contraction(lambda d_, a_: primal(a_, d_, *args, **kwargs), right, db, a)
        return add_terms(left, right)

    jvp_bilinear.gives_tangent = True
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
            term = np.einsum(subscripts, *ops, **kwargs)
            others = [op for j, op in enumerate(operands) if j != i]
            if repair_needed(term, d, *others):  # the strong zero in d (rules/strong_products.py)
                term = strong_contraction(_einsum_with(subscripts, operands, i, kwargs), term, d, *others)
            terms.append(term)
    return add_terms(*terms)


def _einsum_with(subscripts, operands, i, kwargs):
    """np.einsum(subscripts, ...) as a function of (operand i, the other operands)."""
    def product(d, *others):
        return np.einsum(subscripts, *others[:i], d, *others[i:], **kwargs)
    return product


def jvp_amax(da, y, a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """The transpose of the reverse rule (rules/reductions.py: ties share the cotangent
    evenly): the mean of the tangents of the extremal elements along the axis."""
    if da is None:
        return None
    if out is not None or where is not None or not isinstance(a, np.ndarray) or \
            not isinstance(da, np.ndarray):  # lists, out=, where=: the reverse rule's transpose
        dy = _amax_derived(da, y, a, axis=axis, out=out, keepdims=keepdims, initial=initial,
                           where=where)
        return dy if dy is not None else np.zeros(np.shape(y))  # a tangent when given one
    yk = y if keepdims or axis is None else np.expand_dims(y, axis)
    hit = np.equal(a, yk)
    count = np.sum(hit, axis=axis, keepdims=keepdims, dtype=np.result_type(y, float))
    if initial is not None:
        count = np.maximum(count, 1)
    return np.sum(np.where(hit, da, 0.0), axis=axis, keepdims=keepdims) / count


def jvp_ndarray_max(dself, y, self, axis=None, out=None, keepdims=False, initial=None, where=None):
    return jvp_amax(dself, y, self, axis, out, keepdims, initial, where)


def _amax_derived(*args, **kwargs):
    from .jvp_derived import derived_jvp
    return derived_jvp(registry.function_rule(np.max))(*args, **kwargs)


for _primal in (np.max, np.amax, np.min, np.amin):
    if registry.function_rule(_primal) is not None:
        jvp(_primal)(jvp_amax)
for _name in ("max", "min"):
    if registry.method_rule(np.ndarray, _name) is not None:
        jvp((np.ndarray, _name))(jvp_ndarray_max)


def gives_tangent(fn, positions=True):
    """Mark a forward rule that returns a tangent (never None) whenever one of its tangents
    (or one at the given positions) is not None: the forward transform then knows its
    result's tangent is there (ad/forward/inline.py) and writes the rules after it as
    expressions."""
    fn.gives_tangent = positions
    return fn


for _fn in (jvp_add, jvp_sub, jvp_mul, jvp_truediv, jvp_neg, jvp_pos, jvp_matmul, jvp_dot,
            jvp_amax, jvp_ndarray_max):
    gives_tangent(_fn)
gives_tangent(jvp_getitem, (0,))  # the indexed value's tangent: da[b] (an index's: maybe none)


def _einsum_derived(*args, **kwargs):
    from .jvp_derived import derived_jvp
    return derived_jvp(registry.function_rule(np.einsum))(*args, **kwargs)


if registry.function_rule(np.einsum) is not None:
    jvp(np.einsum)(jvp_einsum)
