"""Forward rules of the arithmetic ufuncs take the ufunc's keyword options (order=,
casting=, dtype=) and ignore them, as the reverse rules do: `np.multiply(x, b, order="C")`
under zp.jvp was an internal TypeError (jvp_mul() got an unexpected keyword argument
'order').  Every ufunc rule's forward rules accept keywords (checked from the registry),
and each hand-written one is run end to end, forward, reverse and nested."""

import inspect

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.rules import registry


def test_every_ufunc_forward_rule_takes_keyword_options():
    strict = []
    for rule in registry.all_rules():
        if not isinstance(rule.primal, np.ufunc):
            continue
        for forward in {rule.jvp, registry.forward_rule(rule)} - {None}:
            kinds = {p.kind for p in inspect.signature(forward).parameters.values()}
            if inspect.Parameter.VAR_KEYWORD not in kinds:
                strict.append(f"{rule.qualname}: {forward.__qualname__}")
    assert not strict, "forward rules refusing a ufunc's keyword options: " + ", ".join(strict)


B = np.array([0.5, -1.5, 2.0])

CASES = {
    "add": lambda x: np.add(x, B, casting="same_kind"),
    "subtract": lambda x: np.subtract(B, x, order="F"),
    "multiply": lambda x: np.multiply(x, x, order="C"),
    "divide": lambda x: np.divide(B, x + 3.0, order="C"),
    "negative": lambda x: np.negative(x, casting="unsafe"),
    "positive": lambda x: np.positive(x * x, order="K"),
    "power": lambda x: np.power(x + 3.0, 2.5, order="C"),
    "power_of_both": lambda x: np.power(x + 3.0, x, dtype=np.float64),
    "matmul": lambda x: np.matmul(np.outer(x, B), x, order="C"),
}


def central_difference(f, x, v, h=1e-6):
    return (f(x + h * v) - f(x - h * v)) / (2 * h)


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_and_reverse_match_central_differences(name):
    f = CASES[name]
    rng = np.random.default_rng(11)
    x, v = rng.uniform(-1.0, 1.0, 3), rng.standard_normal(3)
    y, dy = zp.jvp(f, (x,), (v,))
    np.testing.assert_allclose(y, f(x))
    np.testing.assert_allclose(dy, central_difference(f, x, v), rtol=1e-7, atol=1e-9)

    def total(x):
        return np.sum(f(x) ** 2)

    (g,) = zp.gradient(total, x)
    np.testing.assert_allclose(g @ v, central_difference(total, x, v), rtol=1e-7, atol=1e-9)
    # nested: forward mode over the gradient, which runs the rules' code again
    h = zp.hessian(total, x)
    hv = central_difference(lambda z: zp.gradient(total, z)[0], x, v)
    np.testing.assert_allclose(h @ v, hv, rtol=1e-6, atol=1e-8)
