"""The lowering's early-exit flags (break, continue, return inside loops) cannot be
confused with the code's own variables, even ones named like them: generated code,
which is itself differentiated for second derivatives, has variables `_zp_return`
and `_zp_retval`."""

from __future__ import annotations

import numpy as np
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp


def named_like_flags(x, n):
    _zp_return, _zp_retval, _zp_break = 2.0, x * 3.0, x
    for i in range(n):
        if i > 5:
            return _zp_retval
        _zp_break = _zp_break * np.sin(x)
    return _zp_break * _zp_return + _zp_retval


def exits_early(x, n):
    _zp_retval = x * x
    for i in range(n):
        if i == 1:
            return _zp_retval + x
        x = np.cos(x)
    return x


def test_variables_named_like_exit_flags_keep_their_values():
    assert zp.gradient(named_like_flags, 0.4, 3)[0] is not None
    for fn, args in ((named_like_flags, (0.4, 3)), (named_like_flags, (0.4, 8)), (exits_early, (0.7, 4)),
                     (exits_early, (0.7, 1))):
        (g, _) = zp.gradient(fn, *args)
        (fd, _) = numerical_gradient(fn, args)
        assert_gradient_matches(g, fd, args[0], f"{fn.__name__}{args}")
    assert named_like_flags(0.4, 3) == zp.withgradient(named_like_flags, 0.4, 3)[0]
