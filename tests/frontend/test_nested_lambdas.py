"""Several lambdas on one line are told apart by their parameters and source
columns; the right body runs, so value and gradient match plain Python."""

import sys
import types

import pytest

import zygote_py as zp
from frontend import nested_lambda_cases as cases
from zygote_py.compiler import COMPILER
from zygote_py.frontend import source


def _central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


# same parameters: told apart by code positions, which CPython records from 3.11
SAME_PARAMETERS = pytest.param(cases.two_lambdas_same_parameters, marks=pytest.mark.skipif(
    sys.version_info < (3, 11), reason="co_positions is new in Python 3.11"))


@pytest.mark.parametrize("f", [cases.two_lambdas_inside_a_lambda, SAME_PARAMETERS])
def test_the_right_lambda_body_runs(f):
    value, (grad,) = zp.withgradient(f, 0.5)
    assert value == pytest.approx(f(0.5), abs=1e-12)
    assert grad == pytest.approx(_central(f, 0.5), rel=1e-7)


def test_same_parameters_refused_without_code_positions(monkeypatch):
    # Python 3.10 records no instruction positions: refuse rather than guess a body
    monkeypatch.setattr(source, "_positions", lambda code: [])
    COMPILER.clear()  # compiled entries are shared by code object: lower afresh
    f = cases.two_lambdas_same_parameters
    fresh = types.FunctionType(f.__code__, f.__globals__)
    with pytest.raises(zp.ZygoteError, match="cannot tell which"):
        zp.gradient(fresh, 0.5)
    value, (grad,) = zp.withgradient(cases.two_lambdas_inside_a_lambda, 0.5)  # parameters differ
    assert grad == pytest.approx(_central(cases.two_lambdas_inside_a_lambda, 0.5), rel=1e-7)
