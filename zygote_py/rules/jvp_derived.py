"""Forward-mode rules derived from the reverse rules, for every rule not written out.

Two derivations, both exact; the cheaper one that applies is used.

By transposition.  A reverse rule computes `vjp(g) = J^T g`, linear in the cotangent g.  Its
transpose is the jvp: for any tangent dx,

    J dx = gradient over g of  <vjp(g), dx>

since <J^T g, dx> = <g, J dx>.  So the jvp of a rule is the reverse-mode
gradient, with respect to g, of `_contracted` below, which calls the rule and
pairs its cotangents with the tangents -- compiled by zygote_py itself (the
rule bodies and the helpers they call are code it differentiates), at the g
of zeros (any g gives the same answer, the map being linear).  It is exact,
not a finite difference; it costs about two rule evaluations.

By rows.  Where a rule's body is code the reverse transform does not accept (it
writes into arrays in place, say), or the output is small, the Jacobian's rows
are read off the rule itself: `(J dx)_k = <vjp(e_k), dx>` for each element k of
the output, one call of the rule per output element.

Complex values.  The pairing is `<c, t> = Re(sum(c * t))` (a covector times a tangent, no
conjugate: docs/complex.md), under which the transposition reads the same: the covector of
`g -> Re(sum(vjp(g) * dx))` is `J dx`.  So a rule declared for complex values
(`registry.for_complex`, its complex variant where it has one) is transposed with a
complex zero g, and a complex output entry is read by rows twice, along e_k and i e_k:
`(J dx)_k = <vjp(e_k), dx> - i <vjp(i e_k), dx>`.  A rule not declared for complex values
refuses them.

`attach_derived(modules)` gives every rule of the named rule modules without a
jvp its derived one.  Rules registered later (by other modules) are not
touched: tests/rules/test_jvp_rules.py lists any rule left without a jvp.
"""

from __future__ import annotations

import numpy as np

from .. import context
from ..errors import NoDerivativeRule, ZygoteError
from ..kinds import scalar_kinds
from ..runtime.helpers import ArrayShape
from ..tree import flatten, unflatten
from . import registry


def _contracted(vjp, one, g, y, args, kwargs, dxs):
    cts = vjp(g, y, *args, **kwargs)
    if one:
        cts = (cts,)
    total = 0.0
    for ct, dx in zip(cts, dxs):
        total = total + _pair(ct, dx)
    return total


def _contracted_complex(vjp, one, g, y, args, kwargs, dxs):
    """_contracted's pairing for complex values: the real part, Re(sum(ct * dx))."""
    cts = vjp(g, y, *args, **kwargs)
    if one:
        cts = (cts,)
    total = 0.0
    for ct, dx in zip(cts, dxs):
        total = total + _pair(ct, dx)
    return np.real(total)


def _pair(ct, dx):
    if ct is None or dx is None:
        return 0.0
    if isinstance(ct, (list, tuple)):
        total = 0.0
        for a, b in zip(ct, dx):
            total = total + _pair(a, b)
        return total
    if isinstance(ct, dict):
        total = 0.0
        for key in ct:
            total = total + _pair(ct[key], dx.get(key))
        return total
    return np.sum(ct * dx)


_ACTIVE = (False, False, True, False, False, False, False)


class _Unknown(Exception):
    """y holds an object whose cotangent form this module does not know."""


def _zero_cotangent(y):
    """A cotangent of y's structure, all zeros (None where y carries no derivative).
    Raises _Unknown for any other object: a zero there would be a guess."""
    if isinstance(y, np.ndarray):
        kind = y.dtype.kind
        return np.zeros(y.shape) if kind == "f" else np.zeros(y.shape, complex) if kind == "c" \
            else None
    if isinstance(y, (float, np.floating)):
        return 0.0
    if isinstance(y, (complex, np.complexfloating)):
        return 0j
    if y is None or y is Ellipsis or \
            isinstance(y, (bool, int, str, slice, np.integer, np.bool_, ArrayShape)):
        # (an ArrayShape: what a gradient's tape keeps of an array, its shape; `...` and
        # slices: the parts of an index or an einsum sublist)
        return None
    if type(y) is list or isinstance(y, tuple):  # a NamedTuple result's cotangent is a tuple
        items = [_zero_cotangent(v) for v in y]
        return items if type(y) is list else tuple(items)
    if type(y) is dict:
        return {k: _zero_cotangent(v) for k, v in y.items()}
    raise _Unknown(type(y).__name__)


def _is_complex(x) -> bool:
    if isinstance(x, (list, tuple)):
        return any(map(_is_complex, x))
    if isinstance(x, dict):
        return any(map(_is_complex, x.values()))
    return np.iscomplexobj(x) if isinstance(x, (np.ndarray, np.generic, complex)) else False


_ROWS_UP_TO = 4  # outputs this small are read by rows: cheaper than compiling the transposition


def _size(g) -> int:
    return sum(int(np.size(leaf)) for leaf in flatten(g)[0] if leaf is not None)


def _by_transposition(vjp_fn, n, g, y, args, kwargs, dxs, complex_values=False):
    compiler = context.current().compiler
    if compiler is None:
        raise ZygoteError("a derived jvp ran outside zp.jvp",
                          hint="call it inside zp.jvp, or under zygote_py.context.using(compiler=...)")
    values = (vjp_fn, n == 1, g, y, tuple(args), dict(kwargs), tuple(dxs))
    contracted = _contracted_complex if complex_values else _contracted
    with context.using(collector=None):
        entry = compiler.entry(contracted, _ACTIVE, "grad", (), scalar_kinds(values))
        _, grads = entry.fn(*values)
    # the compiled gradient's raw cotangent of a real g may be complex (a real value that
    # met complex ones): its real part is the derivative (as tree.finalize hands it out)
    return _real_where_real(grads[2], g) if complex_values else grads[2]


def _real_where_real(t, like):
    """t with its leaves' real parts where like's leaves are real."""
    if t is None or like is None:
        return t
    if isinstance(like, (list, tuple)) and isinstance(t, (list, tuple)):
        items = [_real_where_real(a, b) for a, b in zip(t, like)]
        return items if type(t) is list else tuple(items)
    if isinstance(like, dict) and isinstance(t, dict):
        return {k: _real_where_real(v, like.get(k)) for k, v in t.items()}
    if not np.iscomplexobj(like) and np.iscomplexobj(t):
        return np.real(t) if isinstance(t, np.ndarray) else float(np.real(t))
    return t


def _contract(vjp_fn, n, g, y, args, kwargs, dxs) -> float:
    cts = vjp_fn(g, y, *args, **kwargs)
    if n == 1:
        cts = (cts,)
    return float(sum(_pair_now(ct, dx) for ct, dx in zip(cts, dxs)))


def _pair_now(ct, dx) -> float:
    if ct is None or dx is None:
        return 0.0
    if isinstance(ct, (list, tuple)):
        return sum(_pair_now(a, b) for a, b in zip(ct, dx))
    if isinstance(dx, (list, tuple)):  # the array cotangent of a list given to a ufunc
        return sum(_pair_now(ct[i], b) for i, b in enumerate(dx))
    if isinstance(ct, dict):
        return sum(_pair_now(v, dx.get(k)) for k, v in ct.items())
    if np.iscomplexobj(ct) or np.iscomplexobj(dx):  # the pairing Re(sum(ct * dx))
        return float(np.real(np.sum(np.asarray(ct) * np.asarray(dx))))
    return float(np.sum(np.asarray(ct, dtype=float) * np.asarray(dx, dtype=float)))


def _by_rows(vjp_fn, n, g, y, args, kwargs, dxs):
    """J dx read off the reverse rule one output entry at a time: <vjp(e_k), dx>."""
    leaves, treedef = flatten(g)

    def row(i, e):
        probe = list(leaves)
        probe[i] = e
        return _contract(vjp_fn, n, unflatten(treedef, probe), y, args, kwargs, dxs)

    def entry(i, e):  # a complex entry: its real part along e_k, its imaginary part along i e_k
        return row(i, e) - 1j * row(i, 1j * e) if np.iscomplexobj(leaves[i]) else row(i, e)

    out = list(leaves)
    for i, leaf in enumerate(leaves):
        if isinstance(leaf, np.ndarray):
            rows = np.zeros(leaf.shape, leaf.dtype)
            for index in np.ndindex(leaf.shape):
                e = np.zeros(leaf.shape, leaf.dtype)
                e[index] = 1.0
                rows[index] = entry(i, e)
            out[i] = rows
        elif leaf is not None:
            out[i] = entry(i, 1.0 + 0j if np.iscomplexobj(leaf) else 1.0)
    return unflatten(treedef, out)


def derived_jvp(rule):
    """The jvp of rule by transposing its reverse rule (see the module docstring)."""

    def jvp_derived(*rest, **kwargs):
        n = len(rule.diff)
        dxs, (y, *args) = list(rest[:n]), rest[n:]
        if all(d is None for d in dxs):
            return None
        complex_values = _is_complex(y) or _is_complex(args) or _is_complex(kwargs) \
            or _is_complex(dxs)
        vjp_fn = rule.vjp
        if complex_values:  # the rule's body for complex values, if it is declared for them
            declared = registry.for_complex(rule)
            if declared is None:
                raise NoDerivativeRule(
                    f"the derivative rule of {rule.qualname} is for real values, and forward "
                    "mode reaches it with a complex one; zygote_py refuses rather than return "
                    "a wrong derivative", hint="docs/complex.md lists the rules declared for "
                    "complex values; compute this step from np.real and np.imag")
            vjp_fn = declared.vjp
        if rule.takes_array_likes and any(type(a) in (list, tuple) for a in args):
            # np.maximum([1.0, x], 0.5): the rule reads NumPy's array of the list
            args = [np.asarray(a) if type(a) in (list, tuple) else a for a in args]
        sequence = rule.meta.get("sequence")
        if sequence is not None and any(isinstance(a, (list, tuple)) for a in args):
            if complex_values:
                raise NoDerivativeRule(f"forward mode of {rule.qualname} over a list of complex "
                                       "values is not supported", hint="pass an array")
            vjp_fn = sequence
        try:
            g = _zero_cotangent(y)
        except _Unknown as err:
            raise NoDerivativeRule(f"forward mode of {rule.qualname} is not supported (its result "
                                   f"holds a {err})", hint="use reverse mode here") from None
        if g is None:
            return None
        transposable = "transpose_complex" if complex_values else "transpose"
        try:
            if _size(g) > _ROWS_UP_TO and state[transposable]:
                try:
                    return _by_transposition(vjp_fn, n, g, y, args, kwargs, dxs, complex_values)
                except ZygoteError:  # the rule's body is not code reverse mode accepts
                    state[transposable] = False
            return _by_rows(vjp_fn, n, g, y, args, kwargs, dxs)
        except NotImplementedError as err:  # the reverse rule refuses one of the outputs
            raise NoDerivativeRule(f"forward mode of {rule.qualname}: {err}") from None

    # per rule: whether its body can be transposed by the compiler (for real, complex values)
    state = {"transpose": True, "transpose_complex": True}

    jvp_derived.__name__ = "jvp_derived_" + rule.qualname.replace(".", "_")
    jvp_derived.derived = True
    jvp_derived.right_for_complex = True  # complex values: the declared body, or a refusal
    return jvp_derived


def attach_derived(modules) -> None:
    for rule in registry.all_rules():
        if rule.jvp is None and getattr(rule.vjp, "__module__", None) in modules:
            rule.jvp = derived_jvp(rule)


_THIS_PACKAGE = ("containers", "cotangents", "factorizations", "index_tricks", "indexing",
                 "iterators", "linalg", "math_rules", "nondiff", "numpy_elementwise",
                 "operators", "products", "reductions", "rule_helpers", "scans", "shapes",
                 "statistics", "structure", "complex_rules", "ufunc_methods")
attach_derived({f"zygote_py.rules.{name}" for name in _THIS_PACKAGE})
