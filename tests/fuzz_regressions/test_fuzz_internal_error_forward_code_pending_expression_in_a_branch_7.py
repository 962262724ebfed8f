"""Fuzz regression (internal_error), shrunk from program #5668 of `python -m fuzz --seed 20261201`
(1 programs of that run failed this way).

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/runtime/forward_dispatch.py", line 438, in _python
        return compiled(*values, *extra)
               ^^^^^^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:f_pullback_jvp:1093>", line 109, in f_pullback_jvp
        tmp_19 = _zp_jvp_call(_zp_call, None, (_zp_add, (v1_2, v2), (None, None), _zp_loc_4_1), (None, (None, v2_dot), None, None), (None, None, None, None), _zp_SourceLoc_6)
                                                                    ^^^^^^^^^^^^
    UnboundLocalError: cannot access local variable '_zp_loc_4_1' where it is not associated with a value
Fixed: the code generator wrote a pending expression of the enclosing block (a
cell read, an attribute read) inside the branch or loop body whose write flushed it,
so the name was unbound on the other paths. Expressions pending when a region that
writes starts are now written out before it (codegen/emit.py `region_flushes`).
"""

import numpy as np

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass
G_M = [1.0, 1.0, 1.0]

def f(a0, a1, a2):
    v1 = max([2])
    v2 = np.sum(np.stack(list(map(lambda t3: t3 * a0, np.minimum(G_M, G_M)))))
    if sum((a for a, b in zip(a1, a1))) < 0.32:
        v1 -= a1
    d8 = [sum((a for a, b in itertools.product(a1[:2], a1))), sum((sum((a for a, b in zip(a1, a1))) for t14 in a1[:2]))]
    v9 = sum(d8)
    return v1 + v2 + v9

def make_args():
    return (-0.933, np.array([0.13, 0.59, -0.38]), 0.223)



def test_fuzz_regression():
    assert_correct(f, make_args())
