"""Fuzz regression (internal_error), reduced by hand from a shrunk failure of `python -m fuzz --seed 2028`
(1 programs of that run failed with this signature, e.g. #2112).

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "/work/wt/fuzzer/.venv/lib/python3.11/site-packages/numpy/_core/numeric.py", line 1480, in normalize_axis_tuple
        axis = tuple(normalize_axis_index(ax, ndim, argname) for ax in axis)
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "/work/wt/fuzzer/.venv/lib/python3.11/site-packages/numpy/_core/numeric.py", line 1480, in <genexpr>
        axis = tuple(normalize_axis_index(ax, ndim, argname) for ax in axis)
                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
    numpy.exceptions.AxisError: axis 1 is out of bounds for array of dimension 1
"""

import numpy as np

from fuzz.oracle import assert_correct


def h(p):
    return p * 2.0


def f(x):
    return h(*np.sum([x], axis=1))


def make_args():
    return (np.array([0.3, 0.2]),)


def test_fuzz_regression():
    assert_correct(f, make_args())
