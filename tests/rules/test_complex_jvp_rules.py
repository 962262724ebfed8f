"""Forward mode on complex values, rule by rule (rules/jvp_complex.py, docs/complex.md).

Every rule declared for complex values in reverse mode (`registry.for_complex`) and
listed in the rule table (rule_specs.py) is run with complex arguments: each float leaf
of a differentiable argument gets an imaginary part, and the forward rule that runs
where a value may be complex (`jvp_complex.forward_rule`) must

  - match central finite differences along a real, an imaginary and a random complex
    direction: jvp(t) == (f(z + eps t) - f(z - eps t)) / (2 eps), and
  - agree with the rule's reverse body under the pairing <c, t> = Re(sum(c * t)):
    <vjp(c), t> == <c, jvp(t)> for a random complex cotangent c.

Rules whose specs cannot take complex values as drawn are listed in NOT_COMPLEX_SPECS with
the reason; a rule declared for complex values with no checkable spec fails the coverage
test below.
"""

from __future__ import annotations

import inspect
import os
import sys
import warnings

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))

from rule_harness import draw, leaves, replace
from rule_specs import SPECS

from zygote_py import context
from zygote_py.errors import NoDerivativeRule
from zygote_py.forward_compiler import FORWARD
from zygote_py.rules import registry
from zygote_py.rules.jvp_complex import forward_rule

EPS = 1e-6

# qualname -> why its specs are not drawn with complex values here (each is checked with
# complex values end to end in tests/ad/test_forward_complex.py where it can take them)
NOT_COMPLEX_SPECS = {
    "numpy.fft.rfft": "takes a real signal (NumPy drops an imaginary part)",
    "numpy.fft.rfft2": "takes a real signal", "numpy.fft.rfftn": "takes a real signal",
    "numpy.fft.ihfft": "takes a real signal",
    "numpy.linalg.eigh": "a Hermitian matrix: a complex perturbation of a symmetric one is not",
    "numpy.linalg.eigvalsh": "a Hermitian matrix",
    "numpy.linalg.svd": "singular vectors' phases are arbitrary: the test_complex_rules losses",
    "numpy.real_if_close": "drops the imaginary part only when it is tiny: a different function",
    "numpy.astype": "a cast to the spec's real dtype drops the imaginary part",
    "numpy.ndarray.astype": "a cast to the spec's real dtype drops the imaginary part",
    "numpy.angle": "the table draws it on real values (constant); complex below",
    "numpy.linalg.eig": "eigenvectors' phases are arbitrary: eigvals and end-to-end cases",
    "math.pow": "the math module takes real numbers", "math.fsum": "takes real numbers",
    "numpy.fabs": "a real-only ufunc (NumPy refuses complex input)",
    "numpy.lib.stride_tricks.as_strided": "its strides are in bytes of float64 entries",
}


def _complexified(value, rng):
    out = value
    for path, leaf in leaves(value):
        if type(leaf) is float:
            out = replace(out, path, complex(leaf, 0.5 * rng.standard_normal()))
        else:
            out = replace(out, path, np.asarray(leaf) + 0.5j * rng.standard_normal(np.shape(leaf)))
    return out


def _direction(value, rng, kind):
    """A tangent shaped like value's complex leaves: real, imaginary or random complex."""
    out = value
    for path, leaf in _complex_leaves(value):
        shape = np.shape(leaf)
        real, imag = rng.standard_normal(shape), rng.standard_normal(shape)
        t = real + 0j if kind == "real" else 1j * imag if kind == "imag" else real + 1j * imag
        out = replace(out, path, complex(t) if np.ndim(leaf) == 0 and not isinstance(leaf, np.ndarray)
                      else np.asarray(t))
    return out if list(_complex_leaves(value)) else None


def _is_complex_leaf(x) -> bool:
    return isinstance(x, (complex, np.complexfloating)) or (isinstance(x, np.ndarray) and x.dtype.kind == "c")


def _complex_leaves(obj, path=()):
    if _is_complex_leaf(obj):
        yield path, obj
    elif isinstance(obj, (list, tuple)):
        for i, x in enumerate(obj):
            yield from _complex_leaves(x, path + (i,))


def _step(value, t, eps):
    if t is None:
        return value
    out = value
    for path, leaf in _complex_leaves(value):
        d = t
        for key in path:
            d = d[key]
        out = replace(out, path, leaf + eps * d)
    return out


def _flat(y):
    """The float and complex leaves of y, as complex arrays."""
    if isinstance(y, (list, tuple)):
        return [v for item in y for v in _flat(item)]
    if isinstance(y, (bool, int, str, np.integer)) or y is None or \
            (isinstance(y, np.ndarray) and y.dtype.kind not in "fc"):
        return []
    return [np.asarray(y, dtype=complex)]


def _flat_tangent(t, y):
    if isinstance(y, (list, tuple)):
        items = t if t is not None else [None] * len(y)
        return [v for ti, yi in zip(items, y) for v in _flat_tangent(ti, yi)]
    if isinstance(y, (bool, int, str, np.integer)) or y is None or \
            (isinstance(y, np.ndarray) and y.dtype.kind not in "fc"):
        return []
    if t is None:
        return [np.zeros(np.shape(y), complex)]
    return [np.broadcast_to(np.asarray(t, dtype=complex), np.shape(y))]


def _cotangent_like(y, rng):
    if isinstance(y, (list, tuple)):
        return type(y)(_cotangent_like(v, rng) for v in y) if not hasattr(y, "_fields") \
            else tuple(_cotangent_like(v, rng) for v in y)
    if isinstance(y, np.ndarray) and y.dtype.kind in "fc":
        g = rng.standard_normal(y.shape)
        return g + 1j * rng.standard_normal(y.shape) if y.dtype.kind == "c" else g
    if isinstance(y, (float, np.floating)):
        return float(rng.standard_normal())
    if isinstance(y, (complex, np.complexfloating)):
        return complex(rng.standard_normal(), rng.standard_normal())
    return None


def _pair(c, t) -> float:
    if c is None or t is None:
        return 0.0
    if isinstance(c, (list, tuple)):
        return sum(_pair(a, b) for a, b in zip(c, t))
    return float(np.real(np.sum(np.asarray(c) * np.asarray(t))))


def _candidates():
    out, seen = [], set()
    for spec in SPECS:
        rule = spec.rule
        if rule is None or spec.copy or spec.g is not None or rule.jvp is None:
            continue
        if registry.for_complex(rule) is None or spec.qualname in NOT_COMPLEX_SPECS:
            continue
        if spec.qualname in seen:  # the first spec of each rule (the suite's time)
            continue
        seen.add(spec.qualname)
        out.append(spec)
    return out


CANDIDATES = _candidates()


def _prepared(spec, rng):
    rule = spec.rule
    args = draw(spec.args, rng)
    kwargs = draw(spec.kwargs, rng)
    sig = inspect.Signature(list(rule.params))
    bound = sig.bind(*args, **kwargs)
    for name in rule.diff:
        if name in bound.arguments:
            bound.arguments[name] = _complexified(bound.arguments[name], rng)
    return rule, sig, bound


@pytest.mark.parametrize("spec", CANDIDATES, ids=[s.id for s in CANDIDATES])
def test_complex_jvp_matches_finite_differences_and_the_vjp(spec):
    rng = np.random.default_rng(3)
    rule, sig, bound = _prepared(spec, rng)
    args, kwargs = bound.args, bound.kwargs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = spec.primal(args, kwargs)
    if not list(_complex_leaves([bound.arguments.get(n) for n in rule.diff])):
        pytest.skip("no float argument to move")
    for kind in ("real", "imag", "complex"):
        tangents = {name: _direction(bound.arguments[name], rng, kind)
                    for name in rule.diff if name in bound.arguments}
        dxs = [tangents.get(name) for name in rule.diff]

        def at(step):
            moved = dict(bound.arguments)
            for name, t in tangents.items():
                moved[name] = _step(moved[name], t, step)
            b = inspect.BoundArguments(sig, moved)
            return spec.primal(b.args, b.kwargs)

        with warnings.catch_warnings(), context.using(compiler=FORWARD):
            warnings.simplefilter("ignore")
            dy = forward_rule(rule)(*dxs, y, *args, **kwargs)
            plus, minus = at(EPS), at(-EPS)
        fd = [(p - m) / (2 * EPS) for p, m in zip(_flat(plus), _flat(minus))]
        an = _flat_tangent(dy, y)
        assert len(fd) == len(an)
        for a, f in zip(an, fd):
            scale = max(1.0, float(np.max(np.abs(f), initial=0.0)))
            np.testing.assert_allclose(a, f, rtol=1e-5, atol=1e-6 * scale, err_msg=kind)
        # the reverse body for complex values, paired with the same tangent
        c = _cotangent_like(y, rng)
        cts = registry.for_complex(rule).vjp(c, y, *args, **kwargs)
        cts = (cts,) if len(rule.diff) == 1 else cts
        lhs = sum(_pair(ct, dx) for ct, dx in zip(cts, dxs))
        rhs = _pair(c, dy)
        assert np.isclose(lhs, rhs, rtol=1e-7, atol=1e-9), (kind, lhs, rhs)


def test_every_rule_declared_for_complex_values_is_checked_here():
    """A rule declared for complex values in reverse mode has a complex forward check (a
    spec above, or a reason in NOT_COMPLEX_SPECS), or is a helper of gradient code
    (checked through forward over reverse in tests/ad/test_forward_complex.py)."""
    from zygote_py.rules.complex_rules import GRADIENT_HELPERS
    checked = {s.qualname for s in CANDIDATES} | set(NOT_COMPLEX_SPECS) | set(GRADIENT_HELPERS)
    declared = {r.qualname for r in registry.all_rules() if registry.for_complex(r) is not None}
    assert not sorted(declared - checked)


def test_a_rule_not_declared_for_complex_values_refuses_them_in_forward_mode():
    rule = registry.function_rule(np.maximum)
    z = np.array([0.3 + 0.1j, -0.2 + 1j])
    with pytest.raises(NoDerivativeRule, match="numpy.maximum"):
        forward_rule(rule)(z, None, np.maximum(z, 0.1), z, 0.1)
    x = np.array([0.3, -0.2])  # real values: the rule's own forward rule
    assert np.allclose(forward_rule(rule)(np.ones(2), None, np.maximum(x, 0.1), x, 0.1), [1, 0])


def _crand(rng, *shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


# (primal, complex arguments, keyword arguments): outputs larger than jvp_derived's rows
# threshold, real (norm, var, std of complex entries) and complex (prod, inv)
_DERIVED = [
    (np.linalg.norm, lambda rng: (_crand(rng, 3, 6),), {"axis": 0}),
    (np.var, lambda rng: (_crand(rng, 3, 6),), {"axis": 0}),
    (np.std, lambda rng: (_crand(rng, 6, 3),), {"axis": 1}),
    (np.prod, lambda rng: (_crand(rng, 3, 6),), {"axis": 0}),
    (np.linalg.inv, lambda rng: (_crand(rng, 3, 3) + 3 * np.eye(3),), {}),
]


@pytest.mark.parametrize("primal,make,kwargs", _DERIVED, ids=["norm", "var", "std", "prod", "inv"])
def test_derived_jvp_by_transposition_and_by_rows_on_complex_values(primal, make, kwargs):
    """Both derivations of jvp_derived.py (the compiled transposition, with a real or
    complex g, and the rows along e_k and i e_k) against finite differences."""
    from zygote_py.rules import jvp_derived

    rng = np.random.default_rng(5)
    args = make(rng)
    t = _crand(rng, *np.shape(args[0]))
    declared = registry.for_complex(registry.function_rule(primal))
    y = primal(*args, **kwargs)
    g = jvp_derived._zero_cotangent(y)
    fd = (primal(args[0] + EPS * t, *args[1:], **kwargs)
          - primal(args[0] - EPS * t, *args[1:], **kwargs)) / (2 * EPS)
    with context.using(compiler=FORWARD):
        by_transposition = jvp_derived._by_transposition(declared.vjp, 1, g, y, args, kwargs,
                                                         (t,), True)
        by_rows = jvp_derived._by_rows(declared.vjp, 1, g, y, args, kwargs, (t,))
    for got in (by_transposition, by_rows):
        assert np.iscomplexobj(got) == np.iscomplexobj(y)
        np.testing.assert_allclose(got, fd, rtol=1e-5, atol=1e-6)
