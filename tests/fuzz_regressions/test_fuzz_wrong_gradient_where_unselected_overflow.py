"""Fuzz regression (wrong_gradient), shrunk from program #862 of `python -m fuzz --seed 83003`
(1 programs of that run failed this way).

What zygote_py did:
    gradient arg1[(1,)]: zygote_py nan, finite differences 0.0

Open: np.where selects 1.0 where cosh(a1 * a1) overflows; the unselected side gets a
cotangent of exactly 0, and cosh's rule multiplies it by sinh(...) = inf: 0 * inf is
nan (JAX and PyTorch give nan here too).  The fix is a "strong zero" in the
elementwise rules (a zero cotangent stays zero whatever the derivative); until then
this stays a strict xfail (docs/limitations.md, "Semantic differences to know").
"""

import numpy as np
import pytest

from fuzz.oracle import assert_correct

G_S = 1.0

def f(a0, a1):
    d1 = {'a': G_S, 'b': G_S}
    for t2 in d1.values():
        a1 = a1 + a1 + a1
        a1 = np.square(a1)
    v8 = np.where([t9 - t9 for t9 in a1], np.cosh(a1 * a1), 1.0)
    v13 = v8
    return np.sum(v13)

def make_args():
    return (1, np.array([0.18, 0.54, 0.55]))


@pytest.mark.xfail(strict=True, reason="0 * inf = nan through the unselected side of np.where (open)")
def test_fuzz_regression():
    assert_correct(f, make_args())
