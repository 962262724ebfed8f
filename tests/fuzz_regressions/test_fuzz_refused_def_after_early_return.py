"""Fuzz regression (refused although documented as supported), written by hand from the
refusal table of `python -m fuzz --seed 2026` (13 programs of that run were refused this way).

What zygote_py did:
    UnsupportedSyntax: this_file.py:5:5: nested function 'g' is defined conditionally
        if x > 10.0:
        ^
    hint: define it unconditionally

Fixed: a nested function bound on some paths only becomes a closure value where the
paths meet (frontend/lower_stmt.py value_or_undef), refused only if it is read after
that and cannot be made a value there.
"""

from fuzz.oracle import assert_correct


def f(x):
    if x > 10.0:
        return x

    def g(t):
        return t * x

    return g(2.0)


def make_args():
    return (0.3,)


def test_fuzz_regression():
    assert_correct(f, make_args())
