"""A helper for the SciPy tests: zp.gradient of a function against central finite
differences, every argument."""

from __future__ import annotations

from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp


def check_gradient(f, *args, rtol=1e-5, atol=1e-7):
    got = zp.gradient(f, *args)
    fd = numerical_gradient(f, args)
    for i, (g, n, a) in enumerate(zip(got, fd, args)):
        assert_gradient_matches(g, n, a, f"{f.__name__} argument {i}", atol=atol, rtol=rtol)
    return got
