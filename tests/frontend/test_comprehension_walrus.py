"""`:=` inside a comprehension binds in the function's scope (PEP 572).  Such a name once
was no local of the function (scope.py skipped comprehensions) and was dropped when the
comprehension ended, so its reads inside and after the comprehension were an internal
NameError.  It is now a local carried around the comprehension's loop."""

import numpy as np
import pytest
from derivative_checks import assert_gradient_and_jvp, assert_hessian

import zygote_py as zp

X = np.array([0.7, -0.4, 1.3, 0.25])
V = np.array([0.3, -1.2, 0.5, 2.0])


def in_a_filter(x):
    return sum(z for v in x if (z := v * 3) > 0)


def in_a_list_filter(x):
    return sum([z * z for v in x if (z := v * 3) > 0])


def read_after(x):
    ys = [(w := v * 2) + 1 for v in x]
    return sum(ys) + w * w


def max_then_last(x):
    return max((z := v * v) for v in x) + z


def nested(x):
    rows = [[(p := a * b) for b in x[:2]] for a in x[2:]]
    return sum(sum(r) for r in rows) + p * 3


def in_a_dict(x):
    d = {i: (t := v * v) for i, v in enumerate(x) if v > 0}
    return sum(d.values()) + t


CASES = [in_a_filter, in_a_list_filter, read_after, max_then_last, nested, in_a_dict]
MAYBE_UNBOUND_AFTER = (read_after, max_then_last, nested)


@pytest.mark.parametrize("f", CASES)
def test_gradient_jvp_and_hessian(f):
    assert_gradient_and_jvp(f, X, V, value=True)
    if f in MAYBE_UNBOUND_AFTER:
        # read after a loop that may not run: the gradient checks whether the name is
        # bound (locals()), which forward mode over it refuses, as after a for loop
        with pytest.raises(zp.ZygoteError, match="locals"):
            zp.hessian(f, X.copy())
        return
    assert_hessian(f, X)


def test_an_empty_comprehension_leaves_the_name_unbound_as_python_does():
    def f(x):
        ys = [(w := v) for v in x if v > 10]
        return sum(ys) + w

    with pytest.raises((NameError, UnboundLocalError, zp.ZygoteError)):
        f(X)
    with pytest.raises((NameError, UnboundLocalError, zp.ZygoteError)):
        zp.gradient(f, X.copy())
