"""analysis/ranges.py: which real values are certainly finite or away from zero, and
forward mode's strong zero, left out only where those facts make it a no-op.

Each end-to-end program meets an infinite factor or a zero divisor on an entry whose
tangent is zero, behind a function that hides it (np.tanh, np.where): its jvp must be
the finite differences' number there, never nan, whether the strong zero was kept (the
factor may be infinite) or left out (the analysis proved it cannot be)."""

import math
import operator
import warnings

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.analysis.complexity import complex_values
from zygote_py.analysis.ranges import (
    UNKNOWN,
    away_from_zero,
    constant_interval,
    finite,
    value_ranges,
)
from zygote_py.compiler import COMPILER
from zygote_py.forward_compiler import FORWARD
from zygote_py.kinds import scalar_kinds


def ranges_by_hint(fn, n_params=1):
    ir = COMPILER.fresh_ir(fn)
    known = value_ranges(ir, complex_values(ir, [False] * n_params))
    return {op.result.hint: known.get(op.result.id, UNKNOWN)
            for op in ir.walk() if len(op.results) == 1 and op.result.hint}


def bounded_values(x):
    s = np.sin(x)
    g = np.exp(-(x ** 2))
    d = 1 + x * x
    q = s / d
    sig = 1.0 / (1.0 + np.exp(-x))
    e = np.exp(x)
    sq = x * x
    near_zero = np.exp(-x * x) * 1e-6 + 1.0
    return s, g, d, q, sig, e, sq, near_zero


def test_intervals_of_bounded_functions_and_arithmetic():
    r = ranges_by_hint(bounded_values)
    assert r["s"] == (-1.0, 1.0) and finite(r["s"])
    assert r["g"] == (0.0, 1.0) and finite(r["g"]) and not away_from_zero(r["g"])
    assert r["d"] == (1.0, math.inf) and away_from_zero(r["d"]) and not finite(r["d"])
    assert finite(r["q"]) and r["q"] == (-1.0, 1.0)
    assert r["sig"] == (0.0, 1.0)
    assert not finite(r["e"]) and not away_from_zero(r["e"])  # exp of an argument
    assert r["sq"] == (0.0, math.inf)
    assert away_from_zero(r["near_zero"])


def test_arguments_and_complex_values_are_unknown():
    def f(x, z):
        a = np.sin(z)  # z may be complex at the call: sin(1000j) is infinite
        return x, a

    ir = COMPILER.fresh_ir(f)
    known = value_ranges(ir, complex_values(ir, [False, True]))
    hints = {op.result.hint: op.result.id for op in ir.walk() if len(op.results) == 1}
    assert hints["a"] not in known
    assert all(p.id not in known for p in ir.params)


@pytest.mark.parametrize("value, want", [
    (2.0, (2.0, 2.0)), (True, (1.0, 1.0)), (math.inf, UNKNOWN), (math.nan, UNKNOWN),
    (np.array([1.0, -3.0]), (-3.0, 1.0)), (np.array([1.0, np.inf]), UNKNOWN), (1j, UNKNOWN),
    ("text", UNKNOWN), (np.array([]), UNKNOWN)])
def test_constant_intervals(value, want):
    assert constant_interval(value) == want


def test_margins_hold_in_small_float_dtypes():
    assert finite((-6.0e4, 6.0e4)) and not finite((0.0, 7.0e4))  # float16 overflows at 65504
    assert away_from_zero((1e-4, 1.0)) and not away_from_zero((1e-6, 1.0))


# -- forward mode end to end -------------------------------------------------------------------

WIDE = np.array([1000.0, 0.5, -0.3])  # exp(WIDE[0]) is inf


def held_times_overflow(x):
    # `held` has a zero tangent and meets exp(1000) = inf: the strong zero must stay
    # there (a factor that may be infinite), and tanh hides the overflow
    held = x * 0.0 + 1.0
    return np.sum(np.tanh(held * np.exp(WIDE))) + np.sum(np.sin(x))


def bounded_factors(x):
    s = np.sin(x)
    return np.sum(np.tanh(np.exp(x * 800.0) * 0.0 + s * np.where(x > 0.5, 1.0, x) / (1 + x * x)))


def central(f, x, v, h=1e-6):
    return (f(x + h * v) - f(x - h * v)) / (2 * h)


@pytest.mark.parametrize("f, x", [
    (held_times_overflow, np.array([0.9, 0.2, -0.1])),
    (bounded_factors, np.array([0.2, 0.7, -0.4])),
])
def test_a_zero_tangent_against_an_overflow_contributes_zero(f, x):
    v = np.array([0.3, -0.7, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _, dy = zp.jvp(f, (x,), (v,))
        want = central(f, x, v)
    assert np.isfinite(dy) and dy == pytest.approx(want, rel=1e-6, abs=1e-9)


def test_the_strong_zero_is_kept_where_a_factor_may_be_infinite():
    source = FORWARD.forward_entry(held_times_overflow, (True,), (), scalar_kinds((WIDE,))).source
    assert "_zp_strong_times(" in source, source


def test_bounded_factors_and_divisors_take_the_plain_product():
    def f(x):
        return np.sum(np.sin(x) * x + np.tanh(x) * np.exp(-x * x) / (1 + x * x))

    source = FORWARD.forward_entry(f, (True,), (), scalar_kinds((WIDE,))).source
    # the four products by x (an argument: maybe infinite; `x * x` twice, `sin(x) * x`,
    # `-x * x`'s two) keep it; those by sin, tanh, exp(-x * x) and the quotients by
    # 1 + x * x do not
    assert source.count("_zp_strong_times(") == 4 and "_zp_strong_zero(" not in source, source
    x, v = np.array([0.2, -1.3, 0.8]), np.array([1.0, 0.5, -2.0])
    assert zp.jvp(f, (x,), (v,))[1] == pytest.approx(central(f, x, v), rel=1e-6)


def test_an_operand_that_may_be_a_list_or_an_object_gives_no_interval():
    def f(p):
        return p * 0.0, np.sin(p) * 0.0

    ir = COMPILER.fresh_ir(f)
    sin = next(op.result for op in ir.walk() if op.opcode == "call" and op.attrs.get("fn") is np.sin)
    # only np.sin's result is known to be an array or a number (p may be a list: p * 0 is [])
    known = value_ranges(ir, set(), numeric=lambda v: v.id == sin.id)
    products = [op.result for op in ir.walk()
                if op.opcode == "call" and op.attrs.get("fn") is operator.mul]
    assert [p.id in known for p in products] == [False, True]
