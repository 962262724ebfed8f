"""Fuzz regression (internal_error), shrunk from program #806 of `python -m fuzz --seed 1201`
(1 programs of that run failed this way).

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/runtime/forward_dispatch.py", line 359, in _python
        return compiled(*values, *extra)
               ^^^^^^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:f_pullback_jvp:775>", line 21, in f_pullback_jvp
        _zp_write_item_augmented(buf17, 1, t_1, _zp_SourceLoc_3_1)
                                                ^^^^^^^^^^^^^^^^^
    UnboundLocalError: cannot access local variable '_zp_SourceLoc_3_1' where it is not associated with a value

Found by the Hessian check of fuzz/forward_oracle.py: the gradient itself was
right; forward mode over the generated gradient read the source location bound for
the augmented write `buf17[1] += a1` as a local it never assigned.  On the merged
code the Hessian is refused clearly instead (NoDerivativeRule: forward mode does not
follow writes into arrays), which the oracle accepts; kept as a regression test
against the internal error coming back.
"""

import numpy as np

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def f(a0, a1):
    if a0 > 1.0:
        a1 += a1
    v15 = 1.0
    v16 = v15 + 1.0
    buf17 = np.append(v15, 0.5)
    buf17[1] += a1
    return v15 + v16

def make_args():
    return (0.183, -0.384)


def test_fuzz_regression():
    assert_correct(f, make_args())
