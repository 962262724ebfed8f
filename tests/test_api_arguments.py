"""Arguments at the API: ints as reals, wrt= selection, has_aux=True, keyword
arguments, one-element outputs, deep recursion, and errors in the user's code.

Every gradient is checked against central finite differences in float64.
"""

from __future__ import annotations

import traceback

import numpy as np
import pytest
from corpus.finite_diff import as_real, assert_gradient_matches, numerical_gradient

import zygote_py as zp


def check(f, args, grads):
    fd = numerical_gradient(f, args)
    assert len(grads) == len(args)
    for i, (g, want, arg) in enumerate(zip(grads, fd, args)):
        assert_gradient_matches(g, want, as_real(arg), f"arg{i}")


# ------------------------------------------------------------------ ints as reals


def test_int_arguments_are_differentiated_as_reals():
    affine = lambda W, b, x: W * x + b  # noqa: E731  (Tracker's example)
    grads = zp.gradient(affine, 2, 3, 4)
    assert grads == (4.0, 1.0, 2.0) and all(type(g) is float for g in grads)
    (g,) = zp.gradient(lambda x: x * x, 3)
    assert g == 6.0 and type(g) is float
    (g,) = zp.gradient(lambda x: x * 2.5, np.int64(3))
    assert g == 2.5 and type(g) is float
    power = lambda x, k: x ** k  # noqa: E731
    check(power, (1.7, 3), zp.gradient(power, 1.7, 3))


def test_integer_arrays_get_float64_gradients():
    f = lambda x: np.sum(x * x) + x[0] * 2.5  # noqa: E731
    for x in (np.arange(4), np.arange(4, dtype=np.int32), np.arange(4, dtype=np.uint8)):
        (g,) = zp.gradient(f, x)
        assert g.dtype == np.float64 and g.shape == x.shape
        check(f, (x,), (g,))


def test_bools_and_structural_ints_stay_without_gradient():
    assert zp.gradient(lambda x, b: x * b, 2.0, True) == (1.0, None)

    def loop(x, n):
        for _ in range(n):
            x = x * 1.5
        return x

    assert zp.gradient(loop, 2.0, 3) == (1.5 ** 3, None)
    assert zp.gradient(lambda x, i: x[i] * 2.0, np.array([1.0, 2.0]), 1)[1] is None


def test_ints_inside_containers_stay_inactive():
    (g,) = zp.gradient(lambda t: t[0] * t[1], (2.0, 3))
    assert g == (3.0, None)


# ------------------------------------------------------------------ wrt= and has_aux=


def loss(W, b, x):
    return np.sum(np.tanh(W @ x + b) ** 2)


W0, b0, x0 = np.array([[0.3, -0.2], [0.5, 0.1]]), np.array([0.1, -0.3]), np.array([0.7, 1.1])


def test_wrt_selects_arguments():
    full = zp.gradient(loss, W0, b0, x0)
    check(loss, (W0, b0, x0), full)
    gW = zp.gradient(loss, W0, b0, x0, wrt=0)
    assert isinstance(gW, np.ndarray) and np.allclose(gW, full[0])
    gW, gx = zp.gradient(loss, W0, b0, x0, wrt=(0, 2))
    assert np.allclose(gW, full[0]) and np.allclose(gx, full[2])
    (gx,) = zp.gradient(loss, W0, b0, x0, wrt=(-1,))
    assert np.allclose(gx, full[2])
    y, gb = zp.withgradient(loss, W0, b0, x0, wrt=1)
    assert y == pytest.approx(loss(W0, b0, x0)) and np.allclose(gb, full[1])
    y, back = zp.pullback(loss, W0, b0, x0, wrt=(1, 0))
    gb, gW = back(2.0)
    assert np.allclose(gb, 2 * full[1]) and np.allclose(gW, 2 * full[0])


def opaque_loss(a, x):
    return np.i0(a) * x * x  # np.i0 has no derivative rule


def test_wrt_leaves_other_arguments_undifferentiated():
    with pytest.raises(zp.NoDerivativeRule):
        zp.gradient(opaque_loss, 0.5, 3.0)
    gx = zp.gradient(opaque_loss, 0.5, 3.0, wrt=1)
    assert gx == pytest.approx(np.i0(0.5) * 6.0)
    y, back = zp.pullback(opaque_loss, 0.5, 3.0, wrt=(1,))
    assert back(1.0)[0] == pytest.approx(gx)


@pytest.mark.parametrize("wrt", [3, (0, 5), "W", 1.0, True, [0]])
def test_bad_wrt_is_an_error(wrt):
    with pytest.raises(zp.ZygoteError, match="wrt="):
        zp.gradient(loss, W0, b0, x0, wrt=wrt)


def with_aux(W, b, x):
    h = np.tanh(W @ x + b)
    return np.sum(h ** 2), {"hidden": h, "note": "aux"}


def test_has_aux_returns_the_auxiliary_output_last():
    want = zp.gradient(loss, W0, b0, x0)
    grads, aux = zp.gradient(with_aux, W0, b0, x0, has_aux=True)
    for g, w in zip(grads, want):
        np.testing.assert_allclose(g, w)
    np.testing.assert_allclose(aux["hidden"], np.tanh(W0 @ x0 + b0))
    y, grads, aux = zp.withgradient(with_aux, W0, b0, x0, has_aux=True)
    assert y == pytest.approx(loss(W0, b0, x0)) and aux["note"] == "aux"
    y, back, aux = zp.pullback(with_aux, W0, b0, x0, has_aux=True)
    for g, w in zip(back(3.0), want):
        np.testing.assert_allclose(g, 3.0 * w)
    gW, aux = zp.gradient(with_aux, W0, b0, x0, wrt=0, has_aux=True)
    np.testing.assert_allclose(gW, want[0])


def test_has_aux_with_params():
    W = W0.copy()
    ps = zp.params(W)
    gs, aux = zp.gradient(lambda: with_aux(W, b0, x0), ps, has_aux=True)
    np.testing.assert_allclose(gs[W], zp.gradient(loss, W0, b0, x0)[0])
    assert aux["note"] == "aux"


def test_has_aux_needs_a_pair_and_a_scalar_loss():
    with pytest.raises(zp.ZygoteError, match="pair"):
        zp.gradient(lambda x: x * 2.0, 1.0, has_aux=True)
    with pytest.raises(zp.NonScalarOutput):
        zp.gradient(lambda x: (x * np.ones(2), 0), 1.0, has_aux=True)


# ------------------------------------------------------------------ keywords, outputs


def test_keyword_arguments_reach_f_undifferentiated():
    def scaled(x, scale=1.0, *, shift=0.0):
        return np.sum((x * scale + shift) ** 2)

    x = np.array([0.5, -1.0])
    g = zp.gradient(scaled, x, scale=3.0, shift=0.25)
    assert len(g) == 1
    check(lambda v: scaled(v, scale=3.0, shift=0.25), (x,), g)
    y, grads = zp.withgradient(scaled, x, shift=1.0)
    assert y == scaled(x, shift=1.0)
    y, back = zp.pullback(scaled, x, scale=2.0)
    np.testing.assert_allclose(back(1.0)[0], 2.0 * 2.0 * x * 2.0)


@pytest.mark.parametrize("shape", [(1,), (1, 1), (1, 1, 1)])
def test_one_element_array_output_is_a_scalar(shape):
    f = lambda x: np.sum(x * x).reshape(shape) * np.ones(shape)  # noqa: E731
    x = np.array([0.3, -1.2])
    (g,) = zp.gradient(f, x)
    np.testing.assert_allclose(g, 2 * x)
    y, (g2,) = zp.withgradient(f, x)
    assert y.shape == shape and np.allclose(g2, 2 * x)


def test_other_nonscalar_outputs_still_raise():
    with pytest.raises(zp.NonScalarOutput):
        zp.gradient(lambda x: x * 2.0, np.ones(2))
    with pytest.raises(zp.NonScalarOutput):
        zp.gradient(lambda x: x * np.ones((1, 2)), 1.0)


# ------------------------------------------------------------------ recursion, user errors


def countdown(x, n):
    if n == 0:
        return x
    return np.sin(countdown(x, n - 1)) * 0.5 + x * 0.01


def test_recursion_500_deep():
    args = (0.8, 500)
    grads = zp.gradient(countdown, *args)
    check(countdown, args, grads)
    y, back = zp.pullback(countdown, *args)
    assert back(1.0)[0] == pytest.approx(grads[0])
def singular_helper(y):
    return np.log(y) / np.linalg.inv(np.zeros((2, 2)))[0, 0]


def failing(x):
    y = x * 2.0
    return singular_helper(y) + x


def _user_lines(err):
    return [(f.filename, f.lineno, f.name) for f in traceback.extract_tb(err.__traceback__)
            if f.filename == __file__]


@pytest.mark.parametrize("call", ["gradient", "pullback"])
def test_an_error_in_user_code_points_at_the_users_lines(call):
    with pytest.raises(np.linalg.LinAlgError) as info:
        getattr(zp, call)(failing, 1.0)
    lines = _user_lines(info.value)
    first = failing.__code__.co_firstlineno
    helper = singular_helper.__code__.co_firstlineno
    # the caller's line, then the callee's, in call order
    assert lines[-2:] == [(__file__, first + 2, "failing"), (__file__, helper + 1, "singular_helper")]


def no_backward(x):
    return x * 1.0


@zp.adjoint(no_backward)
def _no_backward_rule(x):
    def back(g):
        raise FloatingPointError("no derivative here")

    return no_backward(x), back


def fails_in_backward(x):
    y = x * 3.0
    return no_backward(y)


def test_an_error_in_the_backward_pass_points_at_the_users_line():
    with pytest.raises(FloatingPointError) as info:
        zp.gradient(fails_in_backward, 0.5)
    lines = _user_lines(info.value)
    assert (__file__, fails_in_backward.__code__.co_firstlineno + 2, "fails_in_backward") in lines


def gradient_inside(x):
    return x


@zp.adjoint(gradient_inside)
def _gradient_inside_rule(x):
    return zp.gradient(failing, x)[0], lambda g: (g,)


def test_nested_gradient_calls_add_the_users_frames_once():
    with pytest.raises(np.linalg.LinAlgError) as info:
        zp.gradient(lambda x: gradient_inside(x) * x, 1.0)
    lines = _user_lines(info.value)
    helper_line = (__file__, singular_helper.__code__.co_firstlineno + 1, "singular_helper")
    assert lines.count(helper_line) == 1
