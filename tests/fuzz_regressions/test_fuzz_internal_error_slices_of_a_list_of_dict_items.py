"""Fuzz regression (internal_error), shrunk from program #445 of `python -m fuzz --seed 1208`
(the dict_list_ops family).

What zygote_py did:
    TypeError: zygote_py: + or * of a list/tuple whose type is only known at run time
    (a parameter) ... @ runtime/helpers.py:unbroadcast

`d2[::1] + d2[1:]` where d2 is a list literal whose item is read out of a dict: the
analysis of receivers could not say the item is a number, so it did not call d2 a
list of numbers, and `+` of its two slices took the numbers' rule.  The reverse
transform now sees from the code itself that a slice of a list literal is a list
and that `+` of two lists concatenates (ad/reverse/calls.py, _is_sequence).
"""

import numpy as np

from fuzz.oracle import assert_correct


def f(a0, a1):
    v1 = a0
    d2 = [dict(a=1.0, b={'p': v1, 'q': v1}['q'])['b'], np.sum(a1)]
    d2 = d2[::1] + d2[1:]
    v3 = sum(d2) + d2[0] * d2[-1]
    return v3


def make_args():
    return (0.996, np.array([0.68, 0.09]))


def test_fuzz_regression():
    assert_correct(f, make_args())
