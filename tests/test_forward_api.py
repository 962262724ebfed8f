"""zp.jacobian (forward, reverse, auto), zp.hessian and zp.hvp against closed forms and
central finite differences; the Hessian is forward mode over the compiled gradient."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import zygote_py as zp

EPS = 1e-5


def fd_hessian(f, x):
    """Central differences of reverse-mode gradients."""
    def grad(z):
        return zp.gradient(f, z)[0]
    n = x.size
    H = np.zeros((n, n))
    for i in range(n):
        e = np.zeros(n)
        e[i] = EPS
        H[:, i] = (grad(x + e) - grad(x - e)) / (2 * EPS)
    return H


def vector_out(x):
    return np.array([x[0] * x[1], np.sin(x[0]), x[1] ** 2, x[0] + x[1]])


@pytest.mark.parametrize("mode", ["forward", "reverse", "auto"])
def test_jacobian_modes_agree_with_the_closed_form(mode):
    x = np.array([0.3, 0.7])
    (J,) = zp.jacobian(vector_out, x, mode=mode)
    expected = np.array([[x[1], x[0]], [np.cos(x[0]), 0.0], [0.0, 2 * x[1]], [1.0, 1.0]])
    np.testing.assert_allclose(J, expected, rtol=1e-12)


def test_jacobian_of_several_arguments_and_shapes():
    A = np.arange(6.0).reshape(2, 3) / 7
    x = np.array([0.2, -0.4, 0.9])
    f = lambda A, x: np.tanh(A @ x)
    fwd = zp.jacobian(f, A, x, mode="forward")
    rev = zp.jacobian(f, A, x, mode="reverse")
    assert fwd[0].shape == (2, 2, 3) and fwd[1].shape == (2, 3)
    for a, b in zip(fwd, rev):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    s = 1 - np.tanh(A @ x) ** 2
    np.testing.assert_allclose(fwd[1], s[:, None] * A, rtol=1e-12)


def test_jacobian_mode_is_checked():
    with pytest.raises(zp.ZygoteError, match="mode"):
        zp.jacobian(vector_out, np.ones(2), mode="sideways")


def test_flux_nested_example_by_forward_over_reverse():
    f = lambda x: 3 * x ** 2 + 2 * x + 1
    assert zp.gradient(f, 2.0)[0] == 14.0
    assert zp.hessian(f, 2.0) == 6.0
    assert zp.jvp(lambda x: zp_grad_poly(x), (2.0,), (1.0,))[1] == 6.0


def zp_grad_poly(x):
    return 6 * x + 2  # the derivative written out: its jvp is the second derivative


def loop(x):
    for i in range(3):
        x = np.sin(x) * x
    return np.sum(x)


def helper_layer(W, x):
    return np.tanh(W @ x)


def mlp(theta):
    W = theta[:6].reshape(2, 3)
    h = helper_layer(W, np.array([0.5, -1.0, 2.0]))
    return np.sum(h ** 2) + np.sum(theta ** 4)


def branchy(x):
    if x[0] > 0:
        return np.sum(np.exp(x) * x)
    return np.sum(x ** 3)


def whiley(x):
    i = 0
    while i < 3:
        x = x * np.cos(x)
        i += 1
    return np.sum(x)


@pytest.mark.parametrize("f, x", [
    (loop, np.array([0.3, 0.7, -0.2])),
    (mlp, np.linspace(-0.5, 0.6, 8)),
    (branchy, np.array([0.3, 0.7, -0.2])),
    (branchy, np.array([-0.3, 0.7, -0.2])),
    (whiley, np.array([0.3, 0.7, -0.2])),
], ids=["for-loop", "mlp-with-a-call", "branch-then", "branch-else", "while-loop"])
def test_hessian_against_finite_differences_of_gradients(f, x):
    H = zp.hessian(f, x)
    np.testing.assert_allclose(H, fd_hessian(f, x), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(H, H.T, rtol=1e-10, atol=1e-12)


def test_hessian_closed_form_quadratic():
    A = np.array([[2.0, 0.5], [0.5, 1.0]])
    b = np.array([0.3, -0.1])
    f = lambda x: 0.5 * x @ A @ x + b @ x
    np.testing.assert_allclose(zp.hessian(f, np.array([1.0, 2.0])), A, rtol=1e-12)


def test_hvp_is_a_hessian_column_combination():
    x = np.array([0.3, 0.7, -0.2])
    v = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(zp.hvp(loop, x, v), zp.hessian(loop, x) @ v, rtol=1e-12)
    # closed form: f = sum(x**3) -> H = diag(6x)
    np.testing.assert_allclose(zp.hvp(lambda z: np.sum(z ** 3), x, v), 6 * x * v, rtol=1e-12)


def test_hessian_through_a_call_resolved_while_running_is_refused_clearly():
    def apply(fn, x):
        return fn(x)

    def loss(x):
        return np.sum(apply(lambda z: np.sin(z) * z, x))

    try:
        H = zp.hessian(loss, np.array([0.3, 0.7]))
    except zp.ZygoteError as err:
        assert "cannot be differentiated again" in str(err) or "resolved while running" in str(err)
    else:  # if it is supported, it must be right
        np.testing.assert_allclose(H, fd_hessian(loss, np.array([0.3, 0.7])), rtol=1e-5, atol=1e-7)


def _contracted_with_an_infinity(a):
    # an einsum operand holds inf, so its cotangent repairs 0 * inf terms (the strong zero's
    # strong_contraction, whose code forward mode cannot read: it has a `with` block)
    e = np.exp(np.array([1000.0, 0.0]) + 0.46)
    m = np.where(np.array([True, False])[:, None], 1.0,
                 a * np.array([[0.79, 0.51, 0.02], [-0.28, 0.61, -0.46]]))
    return np.sum(np.tanh(np.einsum("i,ij->j", e, m))) + np.sum(m * m) * 0.37


def test_a_refusal_inside_zygote_pys_own_helpers_is_told_at_the_users_function():
    with np.errstate(all="ignore"):
        with pytest.raises(zp.ZygoteError) as caught:
            zp.hessian(_contracted_with_an_infinity, 0.139)
    err = caught.value
    assert err.loc is None  # not a caret into zygote_py's source
    assert "the gradient of '_contracted_with_an_infinity' cannot be differentiated again" in str(err)
    assert "with blocks are not supported, in zygote_py/rules/strong_products.py:" in str(err)
    assert "see docs/limitations.md" in str(err)


def test_a_new_custom_rule_reaches_compiled_hessians():
    def bump(x):
        return x ** 3

    def f(x):
        return np.sum(bump(x))

    x = np.array([0.5, 1.5])
    np.testing.assert_allclose(zp.hessian(f, x), np.diag(6 * x), rtol=1e-12)

    @zp.adjoint(bump)
    def _bump_rule(x):  # a (deliberately different) derivative: 2x, not 3x^2
        return bump(x), lambda g: (2 * x * g,)

    try:
        with pytest.raises(zp.ZygoteError):  # not the stale Hessian of x**3
            zp.hessian(f, x)
        assert np.allclose(zp.gradient(f, x)[0], 2 * x)
    finally:
        from zygote_py.rules import registry
        registry._CUSTOM_RULES.pop(bump, None)
        from zygote_py.compiler import COMPILER
        from zygote_py.forward_compiler import FORWARD
        COMPILER.clear()
        FORWARD.clear()


_HELD = np.array([0.5, 2.0])


def _constant_in_x(x):
    return np.sum(_HELD**2) + 3.0


def test_hessian_of_a_function_constant_in_a_float_argument_is_zero():
    # (found by the fuzzer's Hessian oracle: float(None) was a TypeError)
    assert zp.hessian(_constant_in_x, 0.3) == 0.0
    np.testing.assert_array_equal(zp.hessian(_constant_in_x, np.array([0.3, 0.1])), np.zeros((2, 2)))


def _doubling(fn):
    @functools.wraps(fn)  # inspect.signature(wrapper) now reports fn's (v, w=1.0)
    def wrapper(*args, **kwargs):
        return 2.0 * fn(*args, **kwargs)
    return wrapper


@_doubling
def _wrapped_product(v, w=1.0):
    return v * w


def _calls_a_wraps_decorated_function(x):
    return _wrapped_product(x[0], w=x[1]) + _wrapped_product(x[2])


def test_jvp_through_a_functools_wraps_wrapper():
    # the wrapper's own parameters are (*args, **kwargs): binding by the wrapped
    # signature passed v as `args` (an internal TypeError)
    x = np.array([0.7, -0.4, 1.3])
    v = np.array([1.0, 2.0, -0.5])
    _, t = zp.jvp(_calls_a_wraps_decorated_function, (x,), (v,))
    assert t == pytest.approx(2.0 * (x[1] * v[0] + x[0] * v[1]) + 2.0 * v[2])
