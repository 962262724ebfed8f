"""Nested functions called with `*args`/`**kwargs`, or with `*args`/`**kw` parameters of
their own, are made values and called through run-time dispatch (once refused as
UnsupportedSyntax); gradients and tangents match central finite differences."""

import numpy as np
import pytest

import zygote_py as zp

X = np.array([0.7, -0.4, 1.3, 0.25])


def star_call(x):
    def f(a, b, c, d):
        return a * b + c * d
    return f(*x) + f(x[0], *x[1:])


def double_star_call(x):
    def f(a, b, c=1.0, **kw):
        return a * b + c + sum(kw.values())
    opts = {"c": x[2], "d": x[3]}
    return f(x[0], b=x[1], **opts)


def kwargs_parameter(x):
    def f(a, **kw):
        return a * kw["b"] + len(kw)
    return f(x[0], b=x[1], c=2)


def varargs_parameter(x):
    def f(*args, scale=1.0):
        return scale * sum(a * a for a in args)
    return f(*x) + f(x[0], x[1], scale=x[2])


def lambda_varargs(x):
    g = lambda *a, **k: a[0] * k.get("s", 1.0)  # noqa: E731
    return g(x[0], s=x[1]) + g(x[2])


def _fd(f, h=1e-6):
    return np.array([(f(X + h * e) - f(X - h * e)) / (2 * h) for e in np.eye(4)])


@pytest.mark.parametrize("f", [star_call, double_star_call, kwargs_parameter, varargs_parameter,
                               lambda_varargs])
def test_gradient_and_jvp(f):
    y, (g,) = zp.withgradient(f, X.copy())
    assert y == pytest.approx(f(X))
    assert np.allclose(g, _fd(f), atol=1e-6)
    v = np.array([0.3, -1.2, 0.5, 2.0])
    _, t = zp.jvp(f, (X.copy(),), (v,))
    assert t == pytest.approx(_fd(f) @ v, abs=1e-6)
