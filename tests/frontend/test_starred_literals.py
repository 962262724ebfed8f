"""Starred items inside list and tuple literals (`[a, *b, c]`, `(*xs,)`): lowered as
Python builds them, `[a] + list(b) + [c]`, and differentiated end to end against
central finite differences (reverse and forward mode)."""

import numpy as np
import pytest

import zygote_py as zp


def mixed(x, ys):
    a = [x[0], *ys, x[1] * 2.0]
    t = (*a, x[2])
    return sum(a) * t[-1]


def rows_of_an_array(x):
    u = (*x,)  # a 1-D array unpacks into its elements
    return np.sum(np.stack([*u, x[0]]) ** 2)


def from_a_generator(x):
    parts = [np.sin(x[0]), *(v * v for v in x[1:]), 1.0]
    return parts[0] * parts[1] + parts[2] - parts[-1]


def nested_stars(x):
    head, *tail = [*x, *reversed(x)]
    return head * np.prod(np.array([*tail]))


def central(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


X = np.array([0.5, -1.2, 2.0])


@pytest.mark.parametrize("f", [rows_of_an_array, from_a_generator, nested_stars],
                         ids=lambda f: f.__name__)
def test_gradient_and_jvp_match_central_differences(f):
    (g,) = zp.gradient(f, X)
    np.testing.assert_allclose(g, central(f, X), rtol=1e-6, atol=1e-8)
    v = np.array([0.3, -0.4, 0.9])
    y, dy = zp.jvp(f, (X,), (v,))
    assert y == pytest.approx(f(X))
    assert dy == pytest.approx(float(central(f, X) @ v), rel=1e-6)


def test_starred_list_arguments_get_their_gradients():
    ys = [0.3, 0.7]
    gx, gys = zp.gradient(mixed, X, ys)
    np.testing.assert_allclose(gx, central(lambda x: mixed(x, ys), X), rtol=1e-6)
    h = 1e-6
    for i in range(2):
        up = [y + (h if j == i else 0.0) for j, y in enumerate(ys)]
        down = [y - (h if j == i else 0.0) for j, y in enumerate(ys)]
        assert gys[i] == pytest.approx((mixed(X, up) - mixed(X, down)) / (2 * h), rel=1e-6)


def test_the_value_is_python_s():
    assert zp.withgradient(mixed, X, [0.3, 0.7])[0] == pytest.approx(mixed(X, [0.3, 0.7]))


def starred_set(x):
    return len({*x}) * x[0]


def test_a_starred_set_literal_is_refused_clearly():
    with pytest.raises(zp.ZygoteError, match="starred items inside a literal"):
        zp.gradient(starred_set, X)
