"""Fuzz regression (internal_error, fixed: a name bound on one path only is checked when
read after a write, not written back), shrunk from program #180 of `python -m fuzz --seed 7`
(1 programs of that run failed this way).

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:f_grad:54>", line 23, in f_grad
        _zp_view_writeback(v1, a2_1, 'v1', _zp_SourceLoc_3)
                           ^^
      File "program.py", line 7, in f
        a2 *= sum((a2 for j18, t17 in enumerate([1.0])))
        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
    UnboundLocalError: cannot access local variable 'v1' where it is not associated with a value
"""

import numpy as np

from fuzz.oracle import assert_correct


def f(a0, a1, a2):
    if sum([t for t in [1.0] if t]) < 0.8:
        v1 = sum((a2 for t2 in 1.0))
    a2 *= sum((a2 for j18, t17 in enumerate([1.0])))
    return a2

def make_args():
    return (np.array([[0.55, 0.37, -0.15], [-0.76, 0.7, 0.5]]), np.array([[0.01, 0.98, -0.77], [0.81, -0.1, 0.03]]), 0.634)


def test_fuzz_regression():
    assert_correct(f, make_args())
