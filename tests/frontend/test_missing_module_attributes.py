"""An attribute a module or class lacks when the function is compiled is read when the
code runs (frontend/lower_expr.expr_Attribute), as Python reads it: a branch that does
not run may name a function another NumPy version has, and a line that runs raises
Python's AttributeError at the user's line.  Both were an UnsupportedSyntax before
anything ran."""

import traceback

import numpy as np
import pytest

import zygote_py as zp


def integrate(x):
    t = np.linspace(0.0, 1.0, len(x))
    if hasattr(np, "not_a_numpy_function"):
        return np.not_a_numpy_function(x ** 2, t)
    return np.sum(np.diff(t) * (x[1:] ** 2 + x[:-1] ** 2) / 2.0)


def misspelled(x):
    return np.sine(x)


def test_a_branch_that_does_not_run_may_name_a_missing_attribute():
    x = np.array([0.5, -1.0, 2.0])
    (g,) = zp.gradient(integrate, x)
    # trapezoid weights on t = 0, 0.5, 1: d/dx_i of sum w_i x_i^2 is 2 w_i x_i
    np.testing.assert_allclose(g, 2.0 * np.array([0.25, 0.5, 0.25]) * x)
    _, t = zp.jvp(integrate, (x,), (np.ones(3),))
    np.testing.assert_allclose(t, np.sum(g))


def test_a_missing_attribute_that_is_read_raises_pythons_error_at_the_users_line():
    with pytest.raises(AttributeError, match="sine") as info:
        zp.gradient(misspelled, np.array([0.5]))
    frames = traceback.extract_tb(info.value.__traceback__)
    assert any(f.filename == __file__ and f.lineno == misspelled.__code__.co_firstlineno + 1
               for f in frames)
