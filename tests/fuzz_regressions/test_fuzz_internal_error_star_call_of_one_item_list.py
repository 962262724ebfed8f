"""Fuzz regression (internal_error), reduced by hand from a shrunk failure of `python -m fuzz --seed 2027`
(3 programs of that run failed with this signature, e.g. #166).

What zygote_py did:
                  ^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:f_grad:1>", line 8, in f_grad
        t_2 = _zp_item_cotangent(t_1, 0)
              ^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/runtime/helpers.py", line 105, in item_cotangent
        return g[key]
               ~^^^^^
    TypeError: 'float' object is not subscriptable
"""


from fuzz.oracle import assert_correct


def h(p):
    return p


def f(x):
    return h(*[x]) * 2.0


def make_args():
    return (0.3,)


def test_fuzz_regression():
    assert_correct(f, make_args())
