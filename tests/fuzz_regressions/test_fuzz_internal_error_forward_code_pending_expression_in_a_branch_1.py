"""Fuzz regression (internal_error), shrunk from program #4014 of `python -m fuzz --seed 20261201`
(2 programs of that run failed this way).

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/runtime/forward_dispatch.py", line 438, in _python
        return compiled(*values, *extra)
               ^^^^^^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:f_grad_jvp:69>", line 28, in f_grad_jvp
        dy_1 = _zp_check_scalar(_zp_retval, _zp_return_loc_1)
                                            ^^^^^^^^^^^^^^^^
    UnboundLocalError: cannot access local variable '_zp_return_loc_1' where it is not associated with a value
Fixed: the code generator wrote a pending expression of the enclosing block (a
cell read, an attribute read) inside the branch or loop body whose write flushed it,
so the name was unbound on the other paths. Expressions pending when a region that
writes starts are now written out before it (codegen/emit.py `region_flushes`).
"""


from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def f(a0):
    if 1.0 < a0 < 5.0:
        a0 *= a0
    else:
        return a0

def make_args():
    return (0.423,)



def test_fuzz_regression():
    assert_correct(f, make_args())
