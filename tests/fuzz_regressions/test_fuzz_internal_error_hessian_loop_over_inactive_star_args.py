"""Fuzz regression (a Hessian's InternalError), shrunk from programs #745 and #760 of
`python -m fuzz --seed 20261415` (5 programs of that run were refused this way).

What zygote_py did: `zp.hessian` of `f(a) = h(0.3, scale=a)`, where h sums its `*xs` in a
loop, raised "InternalError: the forward transform found a tangent the activity analysis
did not expect".  The call of h is resolved while the gradient runs (its arguments are
spread), so forward mode runs h's compiled pullback with `scale` active and `xs` not.
The loop of that pullback carries a running total that a call resolved while running
returns, and such a call has a tangent even where no operand has one (its back's); the
activity analysis, which looks at operands, did not count the total as varied.  The
loop now carries every value its transformed body yields with a tangent.
"""

import numpy as np
import pytest

import zygote_py as zp


def summed(*xs, scale=1.0):
    total = 0.0
    for x in xs:
        total = total + x
    return total * scale


def summed_while(*xs, scale=1.0):
    total = 0.0
    i = 0
    while i < len(xs):
        total = total + xs[i]
        i += 1
    return total * scale


def linear_in_the_keyword(a):
    return summed(0.3, scale=a)


def squared(a):
    return summed(0.3, 0.2, scale=a) ** 2 + a


def squared_while(a):
    return summed_while(0.3, 0.2, scale=a) ** 2 + a


def cubed_array(x):
    return np.sum(summed(0.3, scale=x) ** 3)


def both_active(a):
    return summed(a, 0.5, scale=a)


def _gradient_differences(f, x, h=1e-5):
    """Central differences of zp.gradient: the Hessian's columns."""
    flat = np.atleast_1d(np.asarray(x, dtype=float)).ravel()
    columns = []
    for j in range(flat.size):
        up, down = flat.copy(), flat.copy()
        up[j] += h
        down[j] -= h
        point = (lambda v: float(v[0])) if np.ndim(x) == 0 else (lambda v: v.reshape(np.shape(x)))
        g_up = np.atleast_1d(zp.gradient(f, point(up))[0]).ravel()
        g_down = np.atleast_1d(zp.gradient(f, point(down))[0]).ravel()
        columns.append((g_up - g_down) / (2 * h))
    return np.stack(columns, axis=1)


@pytest.mark.parametrize("f, x, exact", [
    (linear_in_the_keyword, 0.267, 0.0),
    (squared, 0.267, 2 * 0.5 ** 2),
    (squared_while, 0.267, 2 * 0.5 ** 2),
    (both_active, 0.267, 2.0),
    (cubed_array, np.array([0.4, -0.7, 1.1]), np.diag(6 * 0.3 ** 3 * np.array([0.4, -0.7, 1.1]))),
], ids=lambda v: getattr(v, "__name__", None))
def test_hessian_through_a_loop_over_inactive_star_args(f, x, exact):
    hessian = zp.hessian(f, x)
    np.testing.assert_allclose(hessian, exact, rtol=1e-12, atol=1e-12)
    differences = _gradient_differences(f, x)
    np.testing.assert_allclose(np.reshape(hessian, differences.shape), differences,
                               rtol=1e-6, atol=1e-7)
