"""Fuzz regression (wrong_gradient), reduced by hand from a shrunk failure of `python -m fuzz --seed 2026`
(30 programs of that run failed with this signature, e.g. #126).

What zygote_py did:
    gradient arg0: zygote_py 0.0, finite differences 2.999999999611422
"""


from fuzz.oracle import assert_correct


def f(x):
    d = {k: t * t for k, t in zip("abc", [x, 2.0 * x, 3.0])}
    return sum(list(d.values()))


def make_args():
    return (0.3,)


def test_fuzz_regression():
    assert_correct(f, make_args())
