"""Gradients specialised on the array kind of each argument (kinds.array_kinds: the ndim of an
exact real float ndarray, part of the cache key).  With it, `x[i]` of a 1-D float array is a
number (analysis/scalars.py), its cotangent is added inline into an accumulator allocated
once (ad/reverse/calls.py: index_into_outer), and a fill loop's write backward is inline
where the backward owns the written array's cotangent (ad/reverse/writes.py).  Every case is
checked against central differences; the guard cases call a function first with one kind
and then with others, which must compile their own code and give their own right numbers."""

import warnings

import numpy as np
import pytest
from write_checks import check_writes, fd_gradient

import zygote_py as zp
from zygote_py.compiler import COMPILER
from zygote_py.kinds import array_kinds

rng = np.random.default_rng(17)
X = rng.normal(size=7)
M = rng.normal(size=(4, 3))


def fill(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sin(x[i]) * x[i]
    return (out * out).sum()


def test_array_kinds():
    assert array_kinds((X, M, 1.0, np.arange(3), X.astype(np.float32), X + 0j, [X],
                        np.float64(2.0), np.ma.masked_array(X))) == \
        (1, 2, None, None, 1, None, None, None, None)


def test_the_fill_loop_is_inline_both_ways():
    text = zp.grad_source(fill, args=(X,))
    assert "x_bar = _zp_index_accumulator(x)" in text
    assert text.count("x_bar[i_1] += ") == 1  # both reads' cotangents, summed
    assert "_zp_owned_copy(out_bar)" in text and "out_bar_1[i_1] = 0.0" in text
    for gone in ("_zp_accum_index", "_zp_undo_write_split", "_zp_tape.append(out)"):
        assert gone not in text, gone
    # the loss's, outside the loop (joined with its strong zero: codegen/fuse.py)
    assert "_zp_unbroadcast(" not in text and text.count("_zp_summed_strong_times(") == 1
    check_writes(fill, X)


def items_or_rows(x):
    """x[i] is a number for a 1-D x and a row for a 2-D one."""
    s = 0.0
    for i in range(len(x)):
        s = s + np.sum(np.tanh(x[i]) * x[i]) * (i + 1.0)
    return s


def fill_items_or_rows(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sum(np.cos(x[i]) * x[i])
    return (out * np.arange(1.0, len(x) + 1.0)).sum()


def _fd(f, x, h=1e-6):
    return fd_gradient(f, (x,), 0, h)


@pytest.mark.parametrize("f", [items_or_rows, fill_items_or_rows], ids=lambda f: f.__name__)
def test_another_kind_compiles_its_own_code(f):
    # first a 1-D float array (x[i] proven a number), then arrays of other kinds: code built
    # for the first would take rows for numbers (or refuse them); each must be right
    for x in (X, M, X.astype(np.float32), np.arange(1, 6), X[:3].reshape(3, 1, 1), X):
        got = zp.gradient(f, x)[0]
        expected = _fd(f, np.asarray(x, dtype=float))
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=str(x.dtype))
        assert np.shape(got) == np.shape(x)
    keys = [key for key in COMPILER.cache[f] if key[1] == "grad"]
    kinds = {dict(k[5:]).get("arrays") for k in keys if any(type(p) is tuple and p[:1] == ("arrays",)
                                                             for p in k[5:])}
    assert {(1,), (2,), (3,)} <= kinds


def test_a_complex_array_after_a_real_one():
    def f(z):
        s = 0.0
        for i in range(len(z)):
            s = s + np.real(z[i] * np.conj(z[i])) * (i + 1.0)
        return s

    np.testing.assert_allclose(zp.gradient(f, X)[0], 2 * X * np.arange(1.0, 8.0), rtol=1e-12)
    z = X + 1j * X[::-1]
    # autograd's convention (docs/complex.md): d/dx - i d/dy, here 2 conj(z) (i + 1)
    np.testing.assert_allclose(zp.gradient(f, z)[0], 2 * np.conj(z) * np.arange(1.0, 8.0),
                               rtol=1e-12)


def test_a_write_whose_array_is_read_in_the_loop_keeps_the_call():
    def recurrence(x):
        out = np.zeros(len(x))
        for i in range(1, len(x)):
            out[i] = out[i - 1] * 0.5 + np.sin(x[i]) * x[i - 1]
        return (out * out).sum()

    text = zp.grad_source(recurrence, args=(X,))
    assert "_zp_owned_copy" not in text
    check_writes(recurrence, X)


def test_a_pullback_leaves_the_callers_cotangent_alone():
    def filled(x):
        out = np.zeros(len(x))
        for i in range(len(x)):
            out[i] = x[i] * x[i]
        return out

    dy = rng.normal(size=len(X))
    kept = dy.copy()
    y, back = zp.pullback(filled, X)
    first = back(dy)[0]
    second = back(dy)[0]
    np.testing.assert_array_equal(dy, kept)  # the backward zeroes its own copy only
    np.testing.assert_allclose(first, 2 * X * dy, rtol=1e-12)
    np.testing.assert_array_equal(first, second)


def test_a_read_of_a_2d_argument_at_two_ints():
    def f(m):
        out = np.zeros(len(m))
        for i in range(len(m)):
            out[i] = np.exp(m[i, 0]) * m[i, len(m[0]) - 1]
        return (out * out).sum()

    text = zp.grad_source(f, args=(M,))
    assert "m_bar = _zp_index_accumulator(m)" in text and text.count("] += ") == 2
    check_writes(f, M)


def test_an_int_argument_array_is_not_specialised():
    x = np.arange(1, 6)
    np.testing.assert_allclose(zp.gradient(fill, x)[0], _fd(fill, x.astype(float)), rtol=1e-6)
    assert "_zp_accum_index" in zp.grad_source(fill, args=(x,))


def recurrence(x, n):
    out = np.zeros(n)
    out[0] = x
    for i in range(n - 1):
        out[i + 1] = np.sin(out[i]) * 0.9 + x
    return np.sum(out * out)


def test_the_items_of_an_array_the_function_made_are_numbers():
    # np.zeros(n) is a 1-D float64 array whatever n is: out[i] is a number, so the loop's
    # backward has no unbroadcast and no None tests, and adds into out_bar in place
    text = zp.grad_source(recurrence, args=(0.3, 7))
    loop = text[text.index("for i_1 in reversed"):]
    assert "_zp_unbroadcast" not in loop and "is not None" not in loop
    assert "out_bar = _zp_add_index_cotangent(out_bar, " in loop
    expected = (recurrence(0.3 + 1e-6, 7) - recurrence(0.3 - 1e-6, 7)) / 2e-6
    assert zp.gradient(recurrence, 0.3, 7)[0] == pytest.approx(expected, rel=1e-6)


def read_before_the_loop(x):
    out = np.ones(len(x))
    y = (out * x).sum()  # its adjoint reads out as it was here: all ones
    for i in range(len(x)):
        out[i] = x[i] * x[i]
    return y * (out * out).sum()


def read_after_the_loop(x):
    out = np.ones(len(x))
    for i in range(len(x)):
        out[i] = np.cos(x[i]) * 3.0
    return (out * x).sum() * (out * out).sum()


def test_the_overwritten_element_is_saved_only_where_something_reads_it_later():
    # the backward runs the adjoints of the code before the loop after the loop's: there an
    # adjoint reading out needs every write undone; after the loop none does
    kept = zp.grad_source(read_before_the_loop, args=(X,))
    assert "out_saved = out" in kept and "= out_saved_1" in kept
    check_writes(read_before_the_loop, X)
    dropped = zp.grad_source(read_after_the_loop, args=(X,))
    assert "_saved" not in dropped
    check_writes(read_after_the_loop, X)
    y, back = zp.pullback(read_after_the_loop, X)
    np.testing.assert_array_equal(back(1.0)[0], back(1.0)[0])


def test_a_repeated_item_read_is_read_once():
    text = zp.grad_source(fill, args=(X,))
    forward = text[:text.index("_zp_check_scalar")]
    code = [line for line in forward.splitlines() if not line.lstrip().startswith("#")]
    assert sum(line.count("x[i]") for line in code) == 1
    assert text.count("x_bar[i_1] += ") == 1
    check_writes(fill, X)


def write_between(x):
    s = 0.0
    for i in range(len(x)):
        a = x[i]
        x[i] = a * 2.0  # the second read sees the write
        s = s + a * x[i] * np.sin(x[i])
    return s


def call_between(x):
    s = 0.0
    for i in range(len(x)):
        a = x[i]
        double_in_place(x, i)
        s = s + a * x[i]
    return s


def double_in_place(x, i):
    x[i] = x[i] * 2.0


@pytest.mark.parametrize("f", [write_between, call_between], ids=lambda f: f.__name__)
def test_reads_with_a_write_between_are_two_reads(f):
    check_writes(f, X)


def shuffle_between(x):
    s = 0.0
    for i in range(len(x)):
        a = x[i]
        np.random.default_rng(i).shuffle(x)  # a write the lowering does not see as one
        s = s + a * x[i]
    return s


def test_a_call_between_two_reads_keeps_them_apart():
    # only arithmetic and ufuncs of numbers and float arrays may stand between two reads
    # that are merged: anything else might write into the array.  Shuffling an active
    # array moves its values, which no rule follows: refused (its gradient was a silent
    # guess while shuffle was listed as non-differentiable); the value is kept apart
    with pytest.raises(zp.NoDerivativeRule, match="shuffle"):
        zp.withgradient(shuffle_between, X.copy())
    value, _ = zp.withgradient(lambda x: shuffle_between(zp.stop_gradient(x)) + x[0], X.copy())
    assert value == shuffle_between(X.copy()) + X[0]


def squares(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * x[i]
    return s


def test_a_complex_seed_of_a_real_output_gives_the_real_part():
    # a pullback's seed may be complex: a real array's cotangent is its real part
    # (docs/complex.md), taken without NumPy's ComplexWarning (the grad form's seed is real)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, back = zp.pullback(squares, X)
        np.testing.assert_allclose(back(2.0 + 1j)[0], 4.0 * X, rtol=1e-12)
        np.testing.assert_array_equal(back(1j)[0], 0.0 * X)
        _, back = zp.pullback(fill, X)
        np.testing.assert_allclose(back(2.0 + 1j)[0], 2.0 * zp.gradient(fill, X)[0], rtol=1e-12)
    assert "x_bar[i_1] += t" in zp.grad_source(squares, args=(X,))
    assert ".real" in zp.grad_source(squares, args=(X,), mode="pullback")
