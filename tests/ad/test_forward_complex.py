"""Forward mode end to end on complex values (docs/complex.md, rules/jvp_complex.py).

zp.jvp of functions of complex arguments along complex directions matches central
finite differences and agrees with zp.pullback under the pairing <c, t> = Re(sum(c * t)):
<back(c), t> == <c, jvp(t)>.  Functions through the forward transform (spliced and
called rules), through the forward dispatcher (a function passed as a value), and the
non-holomorphic ones (abs, angle, conj, real, imag, var, norm, z * conj(z), max/min).
Rules not declared for complex values are refused at the user's line; nested
derivatives (forward over reverse, a gradient inside a jvp or a pullback) and zp.hvp take
complex values; zp.hessian and a forward zp.jacobian of a complex argument are refused.
"""

from __future__ import annotations

import numpy as np
import pytest

import zygote_py as zp

RNG = np.random.default_rng(11)
EPS = 1e-6


def crand(*shape):
    return RNG.uniform(-1, 1, shape) + 1j * RNG.uniform(-1, 1, shape)


def away(*shape):
    """Real parts in [1, 2): clear of the branch cuts of log, sqrt and powers."""
    return RNG.uniform(1, 2, shape) + 1j * RNG.uniform(-1, 1, shape)


def _moved(args, ts, step):
    return tuple(a + step * t for a, t in zip(args, ts))


def _fd(f, args, ts):
    return (np.asarray(f(*_moved(args, ts, EPS))) - np.asarray(f(*_moved(args, ts, -EPS)))) / (2 * EPS)


def _pair(c, t) -> float:
    return float(np.real(np.sum(np.asarray(c) * np.asarray(t))))


def check(f, args, directions=("real", "imag", "complex")):
    """jvp against finite differences along each kind of direction, and against the pullback."""
    for kind in directions:
        ts = tuple(_direction(a, kind) for a in args)
        y, dy = zp.jvp(f, args, ts)
        want = _fd(f, args, ts)
        scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
        np.testing.assert_allclose(np.asarray(dy), want, rtol=1e-5, atol=1e-6 * scale, err_msg=kind)
        y2, back = zp.pullback(f, *args)
        c = np.asarray(y2)
        c = RNG.standard_normal(c.shape) + (1j * RNG.standard_normal(c.shape) if np.iscomplexobj(c) else 0)
        bars = back(c if np.ndim(y2) else c.item())
        lhs = sum(_pair(b, t) for b, t in zip(bars, ts) if b is not None)
        assert np.isclose(lhs, _pair(c, dy), rtol=1e-7, atol=1e-9), (kind, lhs, _pair(c, dy))


def _direction(a, kind):
    shape = np.shape(a)
    real, imag = RNG.standard_normal(shape), RNG.standard_normal(shape)
    t = real + 0j if kind == "real" else 1j * imag if kind == "imag" else real + 1j * imag
    if not np.iscomplexobj(a):  # a real argument moves along real directions
        t = real
    return t if shape else complex(t) if np.iscomplexobj(a) else float(t)


# -- holomorphic functions, through the transform (spliced and called rules) -----------------


def poly(z):
    return z * z * z - 2.0 * z / (z + 3.0) + np.sin(z) * np.exp(z) - z ** 3 + z ** 2.5


def trig_chain(z):
    return np.sum(np.tanh(np.cos(z)) * np.log(z) + np.sqrt(z) / np.cosh(z))


def matrices(a, b):
    return np.linalg.inv(a) @ b + np.trace(a @ b) * np.linalg.det(a) + np.einsum("ij,jk->ik", a, b)


def loop(z):
    acc = z
    for _ in range(4):
        acc = acc * z + np.sin(acc) / 3.0
    return acc


def branches(z):
    if np.real(z) > 1.5:
        return np.exp(z) * z
    return np.log(z) - z


def mixed_real_and_complex(x, z):
    return x * z + np.exp(1j * x) * np.sum(z) ** 2


def fft_chain(z):
    return np.fft.ifft(np.fft.fft(z) * np.arange(1.0, 5.0)) + np.fft.fftshift(z)


@pytest.mark.parametrize("f,args", [
    (poly, (away(3),)),
    (trig_chain, (away(4),)),
    (matrices, (crand(3, 3) + 3 * np.eye(3), crand(3, 2))),
    (loop, (0.5 * crand(2),)),
    (branches, (away(),)),
    (branches, (complex(1.2, 0.3),)),
    (mixed_real_and_complex, (0.7, crand(3))),
    (fft_chain, (crand(4),)),
], ids=["poly", "trig-chain", "matrices", "loop", "branch-then", "branch-else", "mixed", "fft"])
def test_holomorphic_functions_match_finite_differences_and_the_pullback(f, args):
    check(f, args)


# -- the non-holomorphic functions: R-linear forward formulas ---------------------------------


@pytest.mark.parametrize("f", [
    np.abs,
    abs,
    np.angle,
    lambda z: np.angle(z, deg=True),
    np.conj,
    lambda z: z.conj() * z,
    lambda z: z.conjugate(),
    np.real,
    np.imag,
    lambda z: z.real * z.imag,
    lambda z: z * np.conj(z),
    lambda z: np.real(z * np.conj(z)),
    np.var,
    lambda z: np.std(z, ddof=1),
    np.linalg.norm,
    lambda z: np.linalg.norm(z, 1),
    lambda z: np.max(z) * np.min(z),
    lambda z: z.max() + z.min(),
    lambda z: np.sort(z) * z,
    lambda z: np.abs(z) ** 2 + np.angle(z * z),
    lambda z: np.real(z).astype(complex) * z.astype(np.complex128),
], ids=["abs", "builtin-abs", "angle", "angle-deg", "conj", ".conj", ".conjugate", "real", "imag",
        ".real-.imag", "z-conj-z", "abs2", "var", "std", "norm", "norm-1", "max-min",
        ".max-.min", "sort", "abs-angle", "astype"])
def test_non_holomorphic_functions_match_finite_differences_and_the_pullback(f):
    check(lambda z: f(z), (crand(4),))


def test_abs_of_a_complex_scalar_is_the_formula_and_a_real_number():
    z, t = 0.6 + 0.3j, 0.2 - 0.5j
    y, dy = zp.jvp(np.abs, (z,), (t,))
    assert np.isclose(dy, np.real(np.conj(z) * t) / abs(z)) and not np.iscomplexobj(dy)
    _, dy0 = zp.jvp(lambda w: np.abs(w), (0j,), (1 + 1j,))  # at 0: the real rule's sign(0) = 0
    assert dy0 == 0


def test_a_real_input_through_complex_values_has_a_real_tangent():
    f = lambda x: np.abs(np.exp(1j * x)) + np.real(np.exp(1j * x)) * np.imag(np.exp(2j * x))  # noqa: E731
    x = np.array([0.3, -0.4])
    y, dy = zp.jvp(f, (x,), (np.array([1.0, 0.5]),))
    assert not np.iscomplexobj(dy)
    assert np.allclose(dy, _fd(f, (x,), (np.array([1.0, 0.5]),)), atol=1e-6)


# -- the forward dispatcher: a rule decided while running ------------------------------------


def _apply(fn, z):
    return fn(z) * z


def test_a_rule_decided_while_running_takes_complex_values():
    check(lambda z: _apply(np.sin, z), (crand(3),))
    check(lambda z: _apply(np.abs, z), (crand(3),))


# -- refusals -------------------------------------------------------------------------------


def _maximum_of_complex(z):
    return np.maximum(z, 0.1)


def test_a_rule_not_declared_for_complex_values_is_refused_at_the_users_line():
    with pytest.raises(zp.NoDerivativeRule) as info:
        zp.jvp(_maximum_of_complex, (crand(3),), (crand(3),))
    text = str(info.value)
    assert "numpy.maximum" in text and "np.maximum(z, 0.1)" in text and "^" in text
    # real values: the rule's own forward rule
    x = np.array([0.5, -0.3, 0.2])
    assert np.allclose(zp.jvp(_maximum_of_complex, (x,), (np.ones(3),))[1], [1, 0, 1])


def test_a_rule_decided_while_running_refuses_complex_values():
    with pytest.raises(zp.NoDerivativeRule, match="numpy.maximum"):
        zp.jvp(lambda z: _apply(lambda w: np.maximum(w, 0.1), z), (crand(3),), (crand(3),))


def _sign_times(z):
    return np.sign(z) * z


def test_a_function_without_derivative_that_varies_on_complex_values_is_refused():
    with pytest.raises(zp.NoDerivativeRule, match="numpy.sign"):
        zp.jvp(_sign_times, (crand(3),), (crand(3),))
    x = np.array([0.5, -0.3])
    assert np.allclose(zp.jvp(_sign_times, (x,), (np.ones(2),))[1], [1, -1])


def test_a_complex_tangent_on_a_real_value_is_refused():
    with pytest.raises(zp.ZygoteError, match="complex and its primal real"):
        zp.jvp(np.sin, (np.ones(2),), (np.ones(2) * 1j,))


def test_hessian_and_forward_jacobian_of_a_complex_argument_are_refused():
    f = lambda z: np.real(np.sum(z * z))  # noqa: E731
    with pytest.raises(zp.ZygoteError, match="R-bilinear"):
        zp.hessian(f, crand(2))
    with pytest.raises(zp.ZygoteError, match="R-linear"):
        zp.jacobian(np.sin, crand(2), mode="forward")


def test_forward_jacobian_of_a_real_argument_with_a_complex_output():
    f = lambda x: np.exp(1j * x) * x  # noqa: E731
    x = np.array([0.3, -0.7])
    (jac,) = zp.jacobian(f, x, mode="forward")
    want = np.diag(1j * np.exp(1j * x) * x + np.exp(1j * x))
    assert np.allclose(jac, want)


# -- nested derivatives and Hessian-vector products ---------------------------------------------


def test_hvp_of_a_complex_argument_is_the_derivative_of_the_gradient():
    f = lambda z: np.real(np.sum(np.sin(z) * np.conj(z)))  # noqa: E731
    z, v = crand(3), crand(3)
    hv = zp.hvp(f, z, v)
    assert np.allclose(hv, _fd(lambda w: zp.gradient(f, w)[0], (z,), (v,)), atol=1e-6)


@pytest.mark.parametrize("fun", [np.abs, np.angle, lambda z: np.real(np.sin(z) * np.conj(z))],
                         ids=["abs", "angle", "sin-abs2"])
def test_the_gradient_of_a_complex_function_differentiated_again(fun):
    """autograd's test_complex.py: check_grads(lambda x: grad(fun)(x)) at a complex x, by
    forward mode (a gradient inside zp.jvp) and reverse mode (inside zp.pullback)."""
    check(lambda z: zp.gradient(fun, z)[0], (complex(1.1, 1.3),))


def test_a_pullback_and_a_jvp_inside_forward_and_reverse_mode():
    f = lambda z: np.sin(z) * z  # noqa: E731
    z, g = crand(3), crand(3)
    check(lambda w, c: zp.pullback(f, w)[1](c)[0], (z, g))
    check(lambda w, v: zp.jvp(f, (w,), (v,))[1], (z, crand(3)))


def test_perturbations_stay_apart_with_complex_values():
    """d/dz [z * d/dw (z * w)] = 2z at complex points, in both modes."""
    h = lambda z: z * zp.jvp(lambda w: z * w, (1.0 + 0j,), (1.0 + 0j,))[1]  # noqa: E731
    z = complex(0.4, -0.9)
    assert np.isclose(zp.jvp(h, (z,), (1.0 + 0j,))[1], 2 * z)
    assert np.isclose(zp.pullback(h, z)[1](1.0 + 0j)[0], 2 * z)


def test_reverse_jacobian_of_a_real_argument_with_a_complex_output():
    """Row k is back(e_k) - i back(i e_k): the imaginary parts are kept (they were dropped)."""
    f = lambda x: np.exp(1j * x[0]) * x  # noqa: E731
    x = np.array([0.3, -0.7])
    (rev,) = zp.jacobian(f, x, mode="reverse")
    (fwd,) = zp.jacobian(f, x, mode="forward")
    want = np.stack([_fd(f, (x,), (e,)) for e in np.eye(2)], axis=-1)
    assert np.iscomplexobj(rev) and np.allclose(rev, want, atol=1e-6) and np.allclose(fwd, want, atol=1e-6)
    with pytest.raises(zp.ZygoteError, match="R-linear"):
        zp.jacobian(np.sin, crand(2), mode="reverse")


def test_a_nested_jacobian_with_a_complex_output_is_refused():
    f = lambda x: np.exp(1j * x)  # noqa: E731
    with pytest.raises(zp.NoDerivativeRule, match="complex output"):
        zp.jvp(lambda x: zp.jacobian(f, x)[0], (np.array([0.3, 0.1]),), (np.ones(2),))


def test_a_real_rule_with_a_complex_result_keeps_its_forward_rule():
    """scipy.linalg.sqrtm of a real matrix with a negative eigenvalue is complex (SciPy's
    principal root): its operands are real, so its own forward rule runs, as reverse mode
    runs its reverse rule."""
    linalg = pytest.importorskip("scipy.linalg")
    a = np.array([[-2.0, 0.3], [0.1, 1.0]])
    t = np.array([[0.5, -1.0], [0.2, 0.7]])
    y, dy = zp.jvp(lambda m: linalg.sqrtm(m), (a,), (t,))
    assert np.iscomplexobj(dy)
    assert np.allclose(dy, _fd(linalg.sqrtm, (a,), (t,)), atol=1e-6)


def test_forward_and_reverse_over_the_pullback_of_a_norm_along_an_axis():
    """autograd's test_norm_axis_complex at order 2: the norm's forward rule is derived by
    transposition there (an output of more than four entries) with a real g, whose raw
    cotangent must be read as its real part."""
    g = RNG.standard_normal(6)
    check(lambda z: zp.pullback(lambda w: np.linalg.norm(w, axis=0), z)[1](g)[0], (crand(3, 6),),
          directions=("complex",))


def test_forward_over_the_pullback_of_a_hermitian_eigendecomposition():
    """The helper that splits a tuple output's cotangent (factorizations.output_parts) is
    declared for complex values: eigh's gradient code is followed forward."""
    a = crand(3, 3)
    a = a + a.conj().T
    t = crand(3, 3)
    t = t + t.conj().T

    def loss(m):
        w, v = np.linalg.eigh(m)
        return np.sum(w * np.arange(3.0)) + np.sum(np.abs(v))

    back_of = lambda m: zp.pullback(loss, m)[1](1.0)[0]  # noqa: E731
    _, d = zp.jvp(back_of, (a,), (t,))
    assert np.allclose(d, _fd(back_of, (a,), (t,)), atol=1e-5)
