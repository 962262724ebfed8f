"""Several lambdas on one line are told apart by their parameters and source
columns; the right body runs, so value and gradient match plain Python."""

import pytest

import zygote_py as zp
from frontend import nested_lambda_cases as cases


def _central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("f", [cases.two_lambdas_inside_a_lambda, cases.two_lambdas_same_parameters])
def test_the_right_lambda_body_runs(f):
    value, (grad,) = zp.withgradient(f, 0.5)
    assert value == pytest.approx(f(0.5), abs=1e-12)
    assert grad == pytest.approx(_central(f, 0.5), rel=1e-7)
