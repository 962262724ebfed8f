"""Fuzz regression (internal_error), reduced by hand from a shrunk failure of `python -m fuzz --seed 2029`
(1 programs of that run failed with this signature, e.g. #173).

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/api.py", line 104, in withgradient
        y, bars = entry.fn(*full_args)
                  ^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:f_grad:1>", line 57, in f_grad
        dy_2 = _zp_accum(dy_1, _zp_retval_6 * x)
                               ~~~~~~~~~~~~~^~~
    TypeError: unsupported operand type(s) for *: 'NoneType' and 'float'
"""


from fuzz.oracle import assert_correct


def f(x, n):
    return (x * x) ** n + x


def make_args():
    return (0.626, 0)


def test_fuzz_regression():
    assert_correct(f, make_args())
