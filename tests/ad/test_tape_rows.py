"""Saved arrays kept in tape rows (ad/reverse/tape_rows.py, runtime/tape_rows.py): which
values the forward writes as `t = _zp_tape_row(rows, ...)`, and gradients through them.

Every gradient is checked against central differences, and, bit for bit, against the
same generated code with the rows switched off (MIN_ROW_BYTES raised past every array),
so that a row that aliased another, escaped, or held the wrong iteration's values shows
up as a wrong number."""

import numpy as np
import pytest
from write_checks import check_hessian_writes, check_writes, fd_gradient

import zygote_py as zp
from zygote_py.runtime import tape_rows as runtime_rows

U0 = np.sin(np.linspace(0.0, 3.0, 160)) + 0.01 * np.arange(160)  # 158-float interiors: 1,264 bytes


def heat(u0, c):
    u = u0.copy()
    for _ in range(6):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return (u * u).sum()


def heat_while(u0, c):
    u = u0.copy()
    k = 0
    while k < 6:
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        k += 1
    return (u * u).sum()


def heat_break(u0, c):
    u = u0.copy()
    for k in range(50):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        if k >= 5:
            break
    return (u * u).sum()


def two_saved(u0, c):
    """Two arrays saved a step (both differences are read by c's cotangent)."""
    u = u0.copy()
    for _ in range(5):
        d = u[2:] - u[1:-1]
        e = u[1:-1] - u[:-2]
        u[1:-1] = u[1:-1] + c * d - c * c * e
    return (u * u).sum()


def diffuse_2d(m0, c):
    m = m0.copy()
    for _ in range(4):
        d = np.sin(m) * c
        m = m + d * m
    return (m * m).sum()


def nested(u0, c):
    u = u0.copy()
    for _ in range(2):
        for _ in range(3):
            u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return (u * u).sum()


@pytest.fixture
def without_rows(monkeypatch):
    def run(f, *args):
        with monkeypatch.context() as patch:
            patch.setattr(runtime_rows, "MIN_ROW_BYTES", 1 << 62)
            return zp.gradient(f, *args)
    return run


@pytest.fixture
def rows_made(monkeypatch):
    """The TapeRows the calls made (to see that rows were used)."""
    made = []
    init = runtime_rows.TapeRows.__init__

    def spy(self, expected):
        init(self, expected)
        made.append(self)
    monkeypatch.setattr(runtime_rows.TapeRows, "__init__", spy)
    return made


def _same_bits(a, b):
    for x, y in zip(a, b):
        np.testing.assert_array_equal(np.asarray(x).reshape(-1).view(np.uint8),
                                      np.asarray(y).reshape(-1).view(np.uint8))


@pytest.mark.parametrize("f, rows", [(heat, 6), (heat_while, 8), (heat_break, 50), (two_saved, 5),
                                     (nested, 3)])
def test_rows_are_used_and_change_no_bit(f, rows, rows_made, without_rows):
    text = zp.grad_source(f, args=(U0, 0.3))
    assert "_zp_tape_row(_zp_rows" in text, text
    grads = check_writes(f, U0, 0.3)
    assert rows_made and all(r.shape == (158,) for r in rows_made)
    assert rows_made[0].made == rows  # the range's count; a while loop's first block
    _same_bits(grads, without_rows(f, U0.copy(), 0.3))


def test_the_heat_equation_s_forward():
    text = zp.grad_source(heat, args=(U0, 0.2))
    assert "_zp_rows = _zp_tape_rows(6)" in text, text
    assert "t = _zp_tape_row(_zp_rows, u_1[2:] - 2 * u_1[1:-1] + u_1[:-2])" in text
    assert "_zp_tape.append(t)" in text


def test_a_2d_array(rows_made, without_rows):
    m0 = np.cos(np.arange(144.0)).reshape(12, 12) * 0.3
    assert "_zp_tape_row(" in zp.grad_source(diffuse_2d, args=(m0, 0.2))
    grads = check_writes(diffuse_2d, m0, 0.2)
    assert rows_made[0].shape == (12, 12)
    _same_bits(grads, without_rows(diffuse_2d, m0.copy(), 0.2))


def test_a_float32_array_keeps_its_dtype(rows_made, without_rows):
    u32 = (U0 * 4).astype(np.float32)  # 632 bytes a row: NumPy's cache, no rows
    u32_long = np.resize(u32, 400)  # 1,592 bytes: rows
    for u in (u32, u32_long):
        grads = zp.gradient(heat, u, 0.2)
        assert grads[0].dtype == np.float32
        expected = fd_gradient(heat, (u.astype(np.float64), 0.2), 0)
        np.testing.assert_allclose(grads[0], expected, rtol=2e-3, atol=2e-3)
        _same_bits(grads, without_rows(heat, u.copy(), 0.2))
    assert any(r.dtype == np.float32 for r in rows_made)


def test_int_and_complex_arrays():
    def scaled_heat(x, c):
        u = x * c
        for _ in range(4):
            u[1:-1] = u[1:-1] + 0.2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        return np.sum(np.abs(u) ** 2)

    ints = np.arange(200) % 7
    got = zp.gradient(scaled_heat, ints, 0.7)[1]
    h = 1e-6
    np.testing.assert_allclose(got, (scaled_heat(ints, 0.7 + h) - scaled_heat(ints, 0.7 - h)) / (2 * h),
                               rtol=1e-6)
    z = U0 + 0.5j * U0[::-1]
    got = zp.gradient(scaled_heat, z, 0.7)[1]
    np.testing.assert_allclose(got, (scaled_heat(z, 0.7 + h) - scaled_heat(z, 0.7 - h)) / (2 * h),
                               rtol=1e-6)


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_infinite_and_nan_values_change_no_bit(bad, without_rows):
    u0 = U0.copy()
    u0[[3, 90]] = bad
    with np.errstate(all="ignore"):
        _same_bits(zp.gradient(heat, u0.copy(), 0.2), without_rows(heat, u0.copy(), 0.2))
        _same_bits(zp.gradient(heat, U0.copy(), bad), without_rows(heat, U0.copy(), bad))


def test_a_pullback_run_twice_and_a_gradient_called_twice():
    y, back = zp.pullback(heat, U0.copy(), 0.2)
    a, b = back(1.0), back(2.0)
    np.testing.assert_allclose(2 * a[0], b[0], rtol=1e-14)
    np.testing.assert_allclose(2 * a[1], b[1], rtol=1e-14)
    _same_bits(zp.gradient(heat, U0.copy(), 0.2), zp.gradient(heat, U0.copy(), 0.2))
    np.testing.assert_allclose(a[1], fd_gradient(heat, (U0, 0.2), 1), rtol=1e-6)


def test_a_hessian():
    def small(u0):
        u = u0.copy()
        for _ in range(3):
            u[1:-1] = u[1:-1] + 0.3 * (u[2:] - 2 * u[1:-1] + u[:-2]) * u[1:-1]
        return (u * u).sum()

    check_hessian_writes(small, U0[:6].copy())


# -- values that must not go into rows: the row would escape or be written -------------------
def kept_in_a_list(u0, c):
    u = u0.copy()
    ds = []
    for _ in range(4):
        d = u[2:] - u[:-2]
        ds.append(d)
        u[1:-1] = u[1:-1] + c * d
    return (u * u).sum() + sum(np.sum(d * d) for d in ds)


def written_into(u0, c):
    u = u0.copy()
    for _ in range(4):
        d = u[2:] - u[:-2]
        u[1:-1] = u[1:-1] + c * d
        d[0] = 0.0
        u[1:-1] = u[1:-1] + c * d
    return (u * u).sum()


def carried_out(u0, c):
    u = u0.copy()
    d = u[2:] * 0.0
    for _ in range(4):
        d = c * (u[2:] - u[:-2]) + d * u[1:-1]
        u[1:-1] = u[1:-1] + c * d
    return (u * u).sum() + np.sum(d * d)


def viewed(u0, c):
    u = u0.copy()
    for _ in range(4):
        d = u[2:] - u[:-2]
        u[1:-1] = u[1:-1] + c * d[::-1].copy()
    return (u * u).sum()


def summed_by_method(u0, c):
    u = u0.copy()
    s = 0.0
    for _ in range(4):
        d = u[2:] - u[:-2]
        u[1:-1] = u[1:-1] + c * d
        s = s + (d * d).sum()
    return (u * u).sum() + s


@pytest.mark.parametrize("f", [kept_in_a_list, written_into, carried_out, viewed])
def test_values_that_escape_or_are_written_keep_their_arrays(f):
    text = zp.grad_source(f, args=(U0, 0.2))
    assert "d = _zp_tape_row" not in text, text  # (a temporary of the same line may be)
    check_writes(f, U0, 0.2)


def test_numbers_where_a_method_reads_the_value(without_rows):
    grads = check_writes(summed_by_method, U0, 0.2)
    _same_bits(grads, without_rows(summed_by_method, U0.copy(), 0.2))


def fill(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sin(x[i]) * x[i]
    return (out * out).sum()


def test_a_loop_over_numbers_pays_nothing():
    assert "_zp_tape_row" not in zp.grad_source(fill, args=(U0,))
