"""Fuzz regression (internal_error), reduced by hand from a shrunk failure of `python -m fuzz --seed 2026`
(1 programs of that run failed with this signature, e.g. #320).

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/api.py", line 104, in withgradient
        y, bars = entry.fn(*full_args)
                  ^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:f_grad:5>", line 71, in f_grad
        t_7 = _zp_like_input(t_6 * (_zp_retval_6 / np.sum(t_6, axis=None, keepdims=True, dtype=t_4.dtype)), a)
                                    ~~~~~~~~~~~~~^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    TypeError: unsupported operand type(s) for /: 'NoneType' and 'float'
"""

import numpy as np

from fuzz.oracle import assert_correct


def f(a):
    s = 0.0
    for i, t in enumerate([1.0]):
        s = np.min(a) ** i
    return s


def make_args():
    return (np.array([-0.21, 0.12, 0.82]),)


def test_fuzz_regression():
    assert_correct(f, make_args())
