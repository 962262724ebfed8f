"""A call of a constant that is not callable is Python's TypeError when it runs, and
nothing at all in a branch that does not run (it was an internal VerifyError)."""

import numpy as np
import pytest
from non_callable_cases import dead_branch, live_branch

import zygote_py as zp


def test_not_callable_in_a_branch_that_does_not_run():
    x = 0.7
    (g,) = zp.gradient(dead_branch, x)
    assert g == pytest.approx(np.cos(x) * x + np.sin(x), rel=1e-12)
    h = 1e-6
    fd = (dead_branch(x + h) - dead_branch(x - h)) / (2 * h)
    assert g == pytest.approx(fd, rel=1e-7)


def test_not_callable_when_it_runs_is_pythons_type_error():
    with pytest.raises(TypeError, match="not callable"):
        live_branch(0.5)
    with pytest.raises(TypeError, match="not callable"):
        zp.gradient(live_branch, 0.5)
