"""Fuzz regression (internal_error), shrunk from program #1517 of `python -m fuzz --seed 85005`
(1 programs of that run failed this way).

What zygote_py did:
        p2_bar = _zp_unbroadcast(t_5, p2)
                 ^^^^^^^^^^^^^^^^^^^^^^^^
      File "program.py", line 7, in h0
        return (p1, np.prod(p1 / np.sin(p1)))[1]
        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/runtime/helpers.py", line 36, in unbroadcast
        raise TypeError("zygote_py: + or * of a list/tuple whose type is only known at run time "
    TypeError: zygote_py: + or * of a list/tuple whose type is only known at run time (a parameter); convert it with np.asarray, or build it in the function

A parameter compiled as a list, later holding an array (or the other way): `array op list` is
NumPy's elementwise operation, and unbroadcast now gives the list its cotangent in its
own form (it raised TypeError).
"""

import numpy as np

from fuzz.oracle import assert_correct


def h0(p0, p1, p2=1.0):
    p1 = p2
    return (p1, np.prod(p1 / np.sin(p1)))[1]

def f(a0):
    v10 = h0(1.0, [t11 for t11 in [1.0]], a0)
    v16 = v10
    return v16

def make_args():
    return ([-0.26],)


def test_fuzz_regression():
    assert_correct(f, make_args())
