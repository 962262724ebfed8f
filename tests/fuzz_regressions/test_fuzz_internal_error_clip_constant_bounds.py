"""Fuzz regression (internal_error), reduced by hand from a shrunk failure of `python -m fuzz --seed 2026`
(130 programs of that run failed with this signature, e.g. #36).

What zygote_py did:
                                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/ad/splice.py", line 142, in <genexpr>
        if all_scalar or (others and all(_is_scalar_constant(v) for v in others)):
                                         ^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/ad/splice.py", line 71, in _is_scalar_constant
        op = value.defining_op
             ^^^^^^^^^^^^^^^^^
    AttributeError: 'NoneType' object has no attribute 'defining_op'
"""

import numpy as np

from fuzz.oracle import assert_correct


def f(x):
    return np.sum(np.clip(x, -0.5, 0.5))


def make_args():
    return (np.array([-0.54, 0.07, -0.96]),)


def test_fuzz_regression():
    assert_correct(f, make_args())
