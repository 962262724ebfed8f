"""Forward mode on complex values: which forward rule runs where a value may be complex.

A tangent of a complex value z = u + iv is the complex number du + i dv, and a jvp is the
R-linear map of the real derivative.  Paired with a cotangent under the covector
convention of reverse mode (docs/complex.md) by

    <c, t> = Re(sum(c * t))          (no conjugate)

the two modes agree: `<vjp(c), t> == <c, jvp(t)>` for every cotangent c and tangent t.
The pairing is symmetric, so a holomorphic f has the *same* body in both modes,
`g * f'(z)` and `t * f'(z)` (no conjugate in either), and every identity of nested
derivatives written for real values (docs/how-it-works.md) holds as it stands.  The
non-holomorphic functions have forward formulas of their own (below): conj(t), Re(t),
Im(t), Re(conj(z) t)/|z|, Im(conj(z) t)/|z|^2.

`forward_rule(rule)` gives the forward rule to run where a value may be complex (the
forward transform where the may-be-complex analysis says so, the forward dispatcher
always); it is right for real values too:

  - a rule with an explicit complex forward rule (`meta["complex_jvp"]`, set here): that;
  - a forward rule known right for complex values as written (`right_for_complex`: the
    arithmetic, linear and bilinear rules of jvp_common and jvp_structural on rules
    declared for complex values, a holomorphic rule's own diagonal body, the derived
    ones, which decide for themselves): the rule's own;
  - any other rule declared for complex values in reverse mode: its own forward rule for
    real values, and for complex ones the forward rule derived from its complex reverse
    body (jvp_derived.py, exact: the transposition holds under the pairing above);
  - a rule not declared for complex values: its own forward rule for real operands, and
    a NoDerivativeRule for a complex operand or tangent (its result may be complex, as
    reverse mode allows: scipy.linalg.sqrtm of a real matrix).

tests/rules/test_complex_jvp_rules.py checks every rule declared for complex values
against central differences along real and imaginary directions and against its vjp.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from ..errors import NoDerivativeRule
from ..runtime.complex_guard import is_complex
from . import registry
from .jvp_derived import derived_jvp


def _any_complex(rest, kwargs) -> bool:
    return any(is_complex(v) for v in rest) or any(is_complex(v) for v in kwargs.values())


def complex_refusal(qualname: str) -> NoDerivativeRule:
    return NoDerivativeRule(
        f"the derivative rule of {qualname} is for real values, and forward mode reaches it "
        "with a complex one; zygote_py refuses rather than return a wrong derivative", None,
        "docs/complex.md lists the rules declared for complex values; compute this step from "
        "the real and imaginary parts (np.real, np.imag)")


def forward_rule(rule):
    """The forward rule of `rule` to run where a value may be complex (see the docstring);
    None where the rule has no forward rule at all.  Kept on the rule with the jvp it was
    made from (`Rule.complex_forward`, a cache that never changes a result: rebuilt when
    the jvp is replaced)."""
    jvp = rule.jvp
    found = rule.complex_forward
    if found is not None and found[0] is jvp:
        return found[1]
    fn = _complex_safe(rule, jvp)
    if fn is not None and rule.takes_array_likes:
        fn = _arrays_for_sequences(rule, fn)
    rule.complex_forward = (jvp, fn)
    return fn


def _arrays_for_sequences(rule, fn):
    """fn, the forward rule of a ufunc or an elementwise rule, given NumPy's array of a list
    or tuple operand and the array of its tangent (zeros for an item without one), as the
    primal read it: the written-out rules compute with their operands' operators."""
    names = [p.name for p in rule.params]
    n = len(rule.diff)
    where = [names.index(name) if name in names else None for name in rule.diff]

    def with_arrays(*rest, **kwargs):
        dxs, y, args = list(rest[:n]), rest[n], list(rest[n + 1:])
        for k, i in enumerate(where):
            if i is not None and i < len(args) and type(args[i]) in (list, tuple):
                if dxs[k] is not None:
                    dxs[k] = _dense_tangent(args[i], dxs[k])
                args[i] = np.asarray(args[i])
        return fn(*dxs, y, *args, **kwargs)

    with_arrays.__name__ = with_arrays.__qualname__ = getattr(fn, "__name__", "jvp")
    if hasattr(fn, "gives_tangent"):
        with_arrays.gives_tangent = fn.gives_tangent
    return with_arrays


def _dense_tangent(x, dx):
    """The tangent of np.asarray(x) from x's tangent in x's own form (None: zero)."""
    if dx is None:
        values = np.asarray(x)
        return np.zeros(values.shape, dtype=np.result_type(values, float))
    if type(dx) in (list, tuple):
        return np.asarray([_dense_tangent(xi, di) for xi, di in zip(x, dx)])
    return np.asarray(dx)


registry.choose_forward_rules(forward_rule)  # the forward dispatcher asks registry.forward_rule


def _complex_safe(rule, jvp):
    if jvp is None:
        return None
    explicit = rule.meta.get("complex_jvp")
    if explicit is not None:
        return explicit
    if _right_as_written(rule, jvp):
        return jvp
    declared = registry.for_complex(rule)
    if declared is not None:
        derived = derived_jvp(declared)

        def jvp_real_or_derived(*rest, **kwargs):
            if _any_complex(rest, kwargs):
                return derived(*rest, **kwargs)
            return jvp(*rest, **kwargs)

        fn = jvp_real_or_derived
    else:
        qualname, n = rule.qualname, len(rule.diff)

        def jvp_real_only(*rest, **kwargs):
            # the operands and their tangents, as reverse mode checks the operands: a rule
            # of real values whose result is complex (scipy.linalg.sqrtm of a matrix with
            # negative eigenvalues) keeps its own forward rule
            if _any_complex(rest[:n], kwargs) or _any_complex(rest[n + 1:], {}):
                raise complex_refusal(qualname)
            return jvp(*rest, **kwargs)

        fn = jvp_real_only
    fn.__name__ = fn.__qualname__ = getattr(jvp, "__name__", "jvp") + "_c"
    if hasattr(jvp, "gives_tangent"):
        fn.gives_tangent = jvp.gives_tangent
    return fn


def right_for_complex(fn):
    """Mark a forward rule right for complex values as written."""
    fn.right_for_complex = True
    return fn


# -- the explicit forward rules of the non-holomorphic functions ----------------------------
# Each is right for real values too (tests/rules/test_complex_jvp_rules.py).


def _unit_conj(z, magnitude):
    """conj(z) / |z|, 0 where z == 0 (the real rule's sign(0) = 0)."""
    zero = magnitude == 0
    return np.where(zero, 0.0, np.conj(z) / np.where(zero, 1.0, magnitude))


def jvp_abs(dx, y, x, *args, **kwargs):
    """|z|: Re(conj(z) dz) / |z| (0 at z == 0); a real x: dx sign(x)."""
    if dx is None:
        return None
    if is_complex(x):
        return np.real(_unit_conj(x, y) * dx)
    if not is_complex(dx):
        return dx * np.sign(x)
    raise complex_refusal("abs of a real value with a complex tangent")


def jvp_angle(dz, y, z, deg=False):
    """atan2(v, u): Im(conj(z) dz) / |z|^2 (0 at z == 0); a real z's angle is constant."""
    if dz is None:
        return None
    if not is_complex(z):
        return np.zeros(np.shape(y)) if np.ndim(y) else 0.0
    magnitude = np.abs(z)
    out = np.imag(_unit_conj(z, magnitude) * dz) / np.where(magnitude == 0, 1.0, magnitude)
    return out * (180.0 / np.pi) if deg else out


def jvp_conj(dx, y, x, *args, **kwargs):
    """conj is antilinear: conj(dz)."""
    return None if dx is None else np.conj(dx)


def jvp_ndarray_conj(dself, y, self):
    return None if dself is None else np.conj(dself)


def jvp_imag(dx, y, val):
    """Im is R-linear: Im(dz) (0 for a real value)."""
    return None if dx is None else np.imag(dx)


def jvp_pow_complex(da, db, y, a, b, *args, **kwargs):
    """a ** b, holomorphic in both: b a^(b-1) da + a^b log(a) db (the principal log); the
    real rule where nothing is complex."""
    from .jvp_common import jvp_pow
    if not (is_complex(a) or is_complex(b) or is_complex(da) or is_complex(db)):
        return jvp_pow(da, db, y, a, b)
    out = None
    if da is not None:
        if np.ndim(b) == 0 and b == 0:
            out = da * 0.0
        else:
            out = da * (b * np.power(a, np.subtract(b, 1)))
    if db is not None:
        if is_complex(a):
            term = db * (y * np.log(a))
        else:  # a real base: the real rule's log, 0 where a <= 0 (rules/operators.py)
            positive = np.asarray(a) > 0
            term = db * (y * np.where(positive, np.log(np.where(positive, a, 1.0)), 0.0))
        out = term if out is None else out + term
    return out


def _set_forward(primals, fn, replace_jvp: bool) -> None:
    """fn is right for real and complex values: the complex forward rule of each primal's
    rule, and (replace_jvp) its forward rule for real values as well."""
    right_for_complex(fn)
    for primal in primals:
        for rule in registry._rules_of(primal):
            rule.meta["complex_jvp"] = fn
            if replace_jvp:
                rule.jvp = fn


_set_forward((np.absolute, builtins.abs, operator.abs), jvp_abs, replace_jvp=True)
_set_forward((np.angle,), jvp_angle, replace_jvp=True)
_set_forward((np.conjugate,), jvp_conj, replace_jvp=True)
_set_forward(((np.ndarray, "conj"), (np.ndarray, "conjugate")), jvp_ndarray_conj, replace_jvp=True)
_set_forward((np.imag,), jvp_imag, replace_jvp=True)
# the real powers keep their forward rule (and its spliced forms); complex ones get this
_set_forward((operator.pow, np.power, builtins.pow), jvp_pow_complex, replace_jvp=False)


# -- forward rules right for complex values as written ----------------------------------------
# The arithmetic, linear and multilinear forward rules written out in jvp_common.py and
# jvp_structural.py, the FFTs' and convolutions' (linear and bilinear maps), are right for complex values wherever
# their rule is declared for them (holomorphic, or linear with real coefficients); jvp_pow
# is not (it takes float(a)): powers get jvp_pow_complex above.  A holomorphic rule whose
# forward rule is its own reverse body (g f'(z): the SciPy special functions) is right
# too, the pairing being symmetric.

_AS_WRITTEN_MODULES = frozenset({"zygote_py.rules.jvp_common", "zygote_py.rules.jvp_structural",
                                 "zygote_py.rules.fft", "zygote_py.rules.signal"})
# linear forward rules of numpy_extra.py, by name (that module's eig rules are left to the
# derivation from their reverse bodies)
_AS_WRITTEN_FUNCTIONS = frozenset({"zygote_py.rules.numpy_extra.sliding_window_view_jvp",
                                   "zygote_py.rules.numpy_extra.block_jvp"})


def _right_as_written(rule, jvp) -> bool:
    if not rule.complex_ok:
        return False
    if getattr(jvp, "right_for_complex", False):
        return True
    if jvp is rule.vjp:
        return bool(rule.meta.get("complex_ok"))
    module = getattr(jvp, "__module__", None)
    return module in _AS_WRITTEN_MODULES or \
        f"{module}.{getattr(jvp, '__qualname__', '')}" in _AS_WRITTEN_FUNCTIONS
