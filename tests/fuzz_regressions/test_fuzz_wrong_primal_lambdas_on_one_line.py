"""Fuzz regression (wrong_primal), reduced by hand from a shrunk failure of `python -m fuzz --seed 2026`
(3 programs of that run failed with this signature, e.g. #759).

What zygote_py did:
    withgradient value 9.0, plain Python 4.5
"""


from fuzz.oracle import assert_correct


def h(fn, gn):
    return fn(1.0) + gn(2.0)


def f(a):
    g = lambda p: h(lambda q: q * p, lambda r: r * r)
    return g(a)


def make_args():
    return (0.5,)


def test_fuzz_regression():
    assert_correct(f, make_args())
