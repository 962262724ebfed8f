"""`out=` on NumPy functions with a rule (reductions and scans: `np.sum(M, axis=0,
out=a)`, `np.mean`, `np.max`, `np.cumsum`, `np.prod`): the result computed as without it,
then written into a, which every alias sees, as NumPy does.  They were refused; ufuncs'
`out=` already worked (test_in_place_call_targets.py)."""

import numpy as np
import pytest
from derivative_checks import assert_gradient_and_jvp, assert_hessian

import zygote_py as zp

X = np.array([0.7, -0.4, 1.3, 0.25])
V = np.array([0.3, -1.2, 0.5, 2.0])


def sum_out(x):
    out = np.empty(4)
    np.sum(np.outer(x, x), axis=0, out=out)
    return np.sum(out * x)


def mean_then_max_out(x):
    m = np.outer(x, x[::-1])
    out = np.empty(4)
    np.mean(m, axis=1, out=out)
    r = np.max(m, axis=0, out=out)  # returns out itself
    return np.sum(out * x) + r[0] * 2


def into_views(x):
    buf = np.zeros(6)
    np.sum(np.outer(x, x), axis=0, out=buf[1:5])
    np.cumsum(x * 2, out=buf[:4])
    return np.sum(buf * buf)


def into_a_zero_dim_array(x):
    a = np.zeros(())
    held = [a]
    np.prod(x + 2.0, out=a)
    return held[0] * 2 + a


CASES = [sum_out, mean_then_max_out, into_views, into_a_zero_dim_array]


@pytest.mark.parametrize("f", CASES)
def test_gradient_jvp_and_hessian(f):
    assert_gradient_and_jvp(f, X, V, value=True)
    assert_hessian(f, X)


def test_an_output_of_another_shape_fails_as_numpy_does():
    def f(x):
        out = np.empty(1)  # NumPy refuses it; a write would broadcast into it
        np.sum(np.outer(x, x), axis=0, out=out)
        return out[0]

    with pytest.raises(ValueError):
        f(X)
    with pytest.raises(ValueError, match="shape"):
        zp.gradient(f, X.copy())


def test_an_output_that_is_not_named_here_is_still_refused():
    def f(x):
        return np.sum(np.sum(np.outer(x, x), axis=0, out=np.empty(4)))

    with pytest.raises(zp.MutationError, match="out="):
        zp.gradient(f, X.copy())
