"""An explicit int argument is differentiated as a real even where its value
reaches a closure or a method resolved while running (run-time dispatch decides
activity from values, so the call's Context tells it that ints count)."""

import numpy as np
import pytest

import zygote_py as zp
from calls import int_argument_cases as cases


def _d_dn(f, n, x, h=1e-6):
    return (f(n + h, x) - f(n - h, x)) / (2 * h)


@pytest.mark.parametrize("f", [cases.f, cases.g, cases.h], ids=["closure_in_list", "method", "lambda"])
def test_int_argument_derivative_survives_dispatch(f):
    x = np.array([0.99, -0.1])
    dn, _ = zp.gradient(f, 3, x)
    assert isinstance(dn, float)
    assert dn == pytest.approx(_d_dn(f, 3, x), rel=1e-7)
    _, back = zp.pullback(f, 3, x)
    assert back(1.0)[0] == pytest.approx(dn)


def test_outside_such_a_call_ints_stay_inactive():
    from zygote_py import context
    assert context.current().reals is False
