"""Intrinsics are declared in one registry: purity and how codegen writes them
come from the declaration, never from a function's name."""

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.analysis.purity import is_constant_foldable, is_pure_callable
from zygote_py.ir import intrinsics
from zygote_py.ir.intrinsics import INTRINSICS, lookup


def test_builtins_or_is_declared_pure_and_written_as_or():
    flag_or = intrinsics.builtins_or
    declared = lookup(flag_or)
    assert declared is INTRINSICS[flag_or]
    assert declared.pure and declared.python_syntax == "or"
    assert is_pure_callable(flag_or) and is_constant_foldable(flag_or)
    assert flag_or(False, True) is True and flag_or(0, 0) == 0


def test_unhashable_callees_are_not_intrinsics():
    assert lookup([]) is None


def builtins_or(a, b):  # a user function that happens to share the intrinsic's name
    return a + b


def uses_lookalike(x):
    k = builtins_or(2.0, 3.0)
    return x * k


def test_a_user_function_named_like_an_intrinsic_is_called_not_rewritten():
    assert lookup(builtins_or) is None
    assert not is_constant_foldable(builtins_or)
    for x in (0.5, -2.0):
        (g,) = zp.gradient(uses_lookalike, x)
        eps = 1e-6
        expected = (uses_lookalike(x + eps) - uses_lookalike(x - eps)) / (2 * eps)
        assert g == pytest.approx(expected, rel=1e-8) and g == pytest.approx(5.0)


def test_early_exit_flags_still_generate_or():
    def first_big(xs):
        total = 0.0
        for x in xs:
            if x < 0.0:
                continue
            if total > 5.0:
                break
            total = total + x * x
        return total

    source = zp.grad_source(first_big)
    assert " or " in source and "builtins_or" not in source
    xs = np.array([1.0, -2.0, 2.0, 7.0, 4.0])  # 1 + 4 = 5 is not > 5; 1 + 4 + 49 is: stop
    (g,) = zp.gradient(first_big, xs)
    assert np.allclose(g, [2.0, 0.0, 4.0, 14.0, 0.0])
