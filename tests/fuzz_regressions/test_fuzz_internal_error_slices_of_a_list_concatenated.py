"""Fuzz regression (internal_error), from program #147 of `python -m fuzz --seed 5`
(the dict_list_ops family), shrunk by hand.

What zygote_py did:
    TypeError: zygote_py: + or * of a list/tuple whose type is only known at run time
    (a parameter) ... @ runtime/helpers.py:unbroadcast

`d[::-1] + d[1:]` concatenates two slices of a list the function made.  The
analysis of receivers took a slice of a list for an item (a number), so `+` got
the numbers' rule instead of concatenation.  A slice of a list is now a list
(analysis/receivers.py), and `+` / `*` of one takes the sequence rule.
"""

import numpy as np

from fuzz.oracle import assert_correct


def f(a, b, xs):
    d = [a * 2.0, b, np.sin(a)]
    d = d[::-1] + d[1:]
    e = xs[1:] + xs[:1]
    return sum(d) + d[0] * d[-1] + e[0] * 3.0 + sum(d[:2] * 2)


def make_args():
    return (0.3, -0.7, [1.1, 0.4])


def test_fuzz_regression():
    assert_correct(f, make_args())
