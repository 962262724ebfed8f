"""frontend/lower_stmt.py: if_value.  A conditional expression (`a if c else b`, and the
operands of `and` / `or`) whose side binds names anew -- a walrus, or a call of a function
that writes into an argument's array, which rebinds that argument's names -- is merged as
an `if` statement is: the names leave the op as its results (unbound where the other side
did not bind them), not as values of the region that escape it.

Before, `z = c and (y := 3 * x) > 0; return y * x` had a gradient of 3x where 6x is right
(a silently wrong gradient), and the other forms raised UnboundLocalError in the generated
code (fuzz seed 20261401, program #410)."""

import numpy as np
import pytest

import zygote_py as zp

EPS = 1e-6


def walrus_in_a_ternary(x):
    y = 0.5
    z = (y := x * 2.0) if x > 0 else 1.0
    return y * z + x


def walrus_in_an_and(x):
    z = np.sin(x) > 0 and (y := x * 3.0) > 0
    return y * x if z else x


def walrus_in_a_comprehension_ternary(x):
    y = 1.0
    t = (y := y * x) or 0.0
    return np.sum([(y := y * x) if i > 0 else y for i in range(3)]) + t


def walrus_unbound_on_the_other_side(x):
    z = (y := x * 2.0) if x > 0 else 1.0  # y is read nowhere after: no error either way
    return z * x


def squares_in_place(p):
    v = p
    v *= v


def writing_call_in_a_ternary(a):
    b = a * 1.0
    t = squares_in_place(b) if a[0] > 0 else None
    return np.sum(b * a)


def writing_call_in_an_unconsumed_generator(a0, a1):
    v = (squares_in_place(a0) if t > 1.0 else t for t in np.sum([a0], axis=1))
    return np.sum(a1)


SCALAR_CASES = [walrus_in_a_ternary, walrus_in_an_and, walrus_in_a_comprehension_ternary,
                walrus_unbound_on_the_other_side]


@pytest.mark.parametrize("f", SCALAR_CASES)
@pytest.mark.parametrize("x", [0.7, -0.4])
def test_walrus_inside_a_conditional_expression(f, x):
    value, (grad,) = zp.withgradient(f, x)
    assert value == f(x)
    numeric = (f(x + EPS) - f(x - EPS)) / (2 * EPS)
    assert abs(grad - numeric) < 1e-6
    assert abs(zp.jvp(f, (x,), (1.0,))[1] - numeric) < 1e-6


def test_the_and_case_is_not_the_old_wrong_gradient():
    # 3x^2 on the taken path: 6x, where the old lowering gave 3x
    assert abs(zp.gradient(walrus_in_an_and, 0.7)[0] - 6 * 0.7) < 1e-9


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_call_writing_into_an_argument_inside_a_ternary(sign):
    a = sign * np.array([0.3, -0.5, 0.8])
    (grad,) = zp.gradient(writing_call_in_a_ternary, a)
    numeric = np.array([(writing_call_in_a_ternary(a + EPS * e) -
                         writing_call_in_a_ternary(a - EPS * e)) / (2 * EPS) for e in np.eye(3)])
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)


def test_a_call_writing_into_an_argument_in_an_unconsumed_generator():
    # Python never runs the write (the generator is never read), and neither does zygote_py
    a0 = np.array([-0.57, 0.6, 0.42])
    a1 = np.array([[-0.39, 0.67, 0.98], [0.95, 0.1, -0.9]])
    grads = zp.gradient(writing_call_in_an_unconsumed_generator, a0, a1)
    assert grads[0] is None or not np.any(grads[0])
    np.testing.assert_array_equal(grads[1], np.ones_like(a1))
    np.testing.assert_array_equal(a0, [-0.57, 0.6, 0.42])  # not squared in place
