"""Forward rules of jointly linear functions whose rule signature lists parameters the
function itself takes by keyword only (np.vstack's dtype=, casting=): the forward
dispatcher passes every argument by position, the rule must pass those by name
(was an internal TypeError: vstack() takes 1 positional argument but 3 were given)."""

import numpy as np
import pytest

import zygote_py as zp


def stacked_vertically(x):
    return np.vstack((x, x * 2.0))


def stacked_horizontally(x):
    return np.hstack((np.sin(x), x * x))


def stacked_rows(x):
    return np.row_stack((x, np.cos(x)))  # deprecated in NumPy 2 (a warning, filtered below)


def concatenated_with_dtype(x):
    return np.concatenate((x, 3.0 * x), dtype=np.float64)


CASES = [stacked_vertically, stacked_horizontally, concatenated_with_dtype]
if hasattr(np, "row_stack"):
    CASES.append(stacked_rows)


def central_difference(f, x, v, h=1e-6):
    return (f(x + h * v) - f(x - h * v)) / (2 * h)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_jvp_matches_central_differences(f):
    rng = np.random.default_rng(5)
    x, v = rng.standard_normal(3), rng.standard_normal(3)
    y, dy = zp.jvp(f, (x,), (v,))
    np.testing.assert_allclose(y, f(x))
    np.testing.assert_allclose(dy, central_difference(f, x, v), rtol=1e-7, atol=1e-9)


def test_hessian_through_a_stack():
    def energy(x):
        return np.sum(np.vstack((x * x, np.sin(x))) ** 2)

    x = np.array([0.3, -0.7, 1.1])
    h = zp.hessian(energy, x)
    expected = np.diag(12 * x ** 2 + 2 * np.cos(2 * x))  # d2/dx2 of x^4 + sin(x)^2
    np.testing.assert_allclose(h, expected, rtol=1e-8, atol=1e-10)
