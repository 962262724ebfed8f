"""Fuzz regression (internal_error), shrunk from program #455 of `python -m fuzz --seed 1207`
(1 programs of that run failed this way).

What zygote_py did:
        return compiled(*values, *extra)
               ^^^^^^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:_remove_cotangent_jvp:580>", line 15, in _remove_cotangent_jvp
        t_5 = _zp_next_item(_zp_acc)
              ^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/runtime/iterators.py", line 103, in next_item
        raise TypeError(f"{type(iterator).__name__!r} object is not an iterator")
    TypeError: 'list' object is not an iterator

Fixed: the helper's `next(i for i, ... if ...)` lowered the generator expression as a
list and called next() on it, which is no iterator (user code doing the same was an
internal TypeError in reverse mode too). A generator expression is now a one-shot
iterator wherever it is not handed straight to a library call that reads it once.
"""

import numpy as np

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def f(a0):
    v2 = a0[0]
    p3 = [0, 2.0, np.max(a0)]
    p3.remove(p3[1])
    del p3[0]
    v5 = sum(p3) + len(p3)
    return v5 + np.sum(v2)

def make_args():
    return (np.array([[0.19, 0.1, -0.37], [-0.07, -0.05, 0.49]]),)


def test_fuzz_regression():
    assert_correct(f, make_args())
