"""An owned cotangent's region kept instead of zeroed and added back (ad/reverse/kept_regions.py):
`x[I] = x[I] + f(...)` in a loop whose backward owns `x_bar`.

Each case is checked against central differences (write_checks.check_writes).  The
cases around the proof's edges -- the region read scaled, read twice, read under another
index, not read at all, the value's cotangent read after the array changed -- check what
the generated code keeps, so that a proof applied where it does not hold shows up as
wrong numbers here."""

import numpy as np
import pytest
from write_checks import check_writes

import zygote_py as zp

U0 = np.sin(np.linspace(0.0, 3.0, 12)) + 0.1 * np.arange(12)


def heat(u0, c):
    u = u0.copy()
    for _ in range(5):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return (u * u).sum()


def added_last(u0, c):
    """The region's read last in the sum: its cotangent is still the value's own."""
    u = u0.copy()
    for _ in range(5):
        u[1:-1] = c * (u[2:] - 2 * u[1:-1] + u[:-2]) + u[1:-1]
    return np.sum(np.sin(u))


def scaled(u0, c):
    """The region read times a number: what is added back is not the value's cotangent."""
    u = u0.copy()
    for _ in range(5):
        u[1:-1] = 0.9 * u[1:-1] + c * (u[2:] - u[:-2])
    return (u * u).sum()


def read_twice(u0, c):
    u = u0.copy()
    for _ in range(5):
        u[1:-1] = u[1:-1] + c * u[1:-1] + 0.1 * (u[2:] - u[:-2])
    return (u * u).sum()


def added_back_twice(u0, c):
    """Two reads of the region, each passing the value's cotangent on unchanged."""
    u = u0.copy()
    for _ in range(5):
        u[1:-1] = u[1:-1] + u[1:-1] + c * (u[2:] - u[:-2])
    return (u * u).sum()


def other_index_same_elements(u0, c):
    """u[1:11] is u[1:-1] for 12 points, but not the same constant index: not kept."""
    u = u0.copy()
    for _ in range(5):
        u[1:-1] = u[1:11] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return (u * u).sum()


def not_read(u0, c):
    u = u0.copy()
    for _ in range(5):
        u[1:-1] = c * (u[2:] + u[:-2])
    return (u * u).sum()


def cotangent_read_after_a_change(u0, c):
    """The value's cotangent reaches `c * (...)` after `u[:-2] * 0.3` has added into the
    owned array's overlapping region: read as a view there, it would have changed."""
    u = u0.copy()
    for _ in range(5):
        u[1:-1] = c * (u[2:] - 2 * u[1:-1]) + u[:-2] * 0.3 + u[1:-1]
    return (u * u).sum()


def two_writes(u0, c):
    """Two writes a step, on overlapping regions: each keeps its own region only where
    nothing between its zeroing and its add reads or zeroes the array."""
    u = u0.copy()
    for _ in range(4):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        u[2:-2] = u[2:-2] + 0.5 * c * (u[4:] - u[:-4])
    return (u * u).sum()


def region_read_before_another_write(u0, c):
    """The region's cotangent reaches its read (`v = u[1:-1] + 0.0`) only after the backward
    of the write in between has zeroed part of the region: kept, the region would lose
    that part of it."""
    u = u0.copy()
    for _ in range(4):
        v = u[1:-1] + 0.0
        u[2:-2] = 0.5 * u[2:-2] + c * u[3:-1]
        u[1:-1] = v + c
    return (u * u).sum()


def reversed_region(u0, c):
    u = u0.copy()
    for _ in range(5):
        u[-2:0:-1] = u[-2:0:-1] + c * (u[-3::-1] - u[:1:-1])
    return (u * u).sum()


@pytest.mark.parametrize("f", [heat, added_last, scaled, read_twice, added_back_twice,
                               other_index_same_elements,
                               not_read, cotangent_read_after_a_change, two_writes,
                               region_read_before_another_write, reversed_region])
@pytest.mark.parametrize("c", [0.3, -0.45])
def test_numbers(f, c):
    check_writes(f, U0, c)


def test_the_heat_equation_keeps_its_interior_and_reads_it_as_a_view():
    text = zp.grad_source(heat, args=(U0, 0.2))
    assert "= u_bar_1[1:-1]\n" in text, text
    for gone in ("u_bar_1[1:-1] = 0.0", "u_bar_1[1:-1].copy()", "u_bar_1[1:-1] += "):
        assert gone not in text, gone


def test_a_region_added_last_is_kept_too():
    text = zp.grad_source(added_last, args=(U0, 0.2))
    assert "_zp_owned_accumulator" in text and "u_bar_1[1:-1] = 0.0" not in text, text


@pytest.mark.parametrize("f", [scaled, not_read, region_read_before_another_write])
def test_the_region_is_zeroed_where_its_cotangent_is_not_added_back_as_it_is(f):
    text = zp.grad_source(f, args=(U0, 0.2))
    assert "_zp_owned_accumulator" in text and "u_bar_1[1:-1] = 0.0" in text, text


def test_a_cotangent_read_after_the_array_changed_stays_a_copy():
    text = zp.grad_source(cotangent_read_after_a_change, args=(U0, 0.2))
    assert "_zp_owned_accumulator" in text and "u_bar_1[1:-1].copy()" in text, text
    assert "u_bar_1[1:-1] = 0.0" not in text  # (the region is still kept)


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_infinite_and_nan_points_give_what_the_helpers_give(bad):
    """The same program with the helpers (a 2-D array of one row takes them): the same
    infinities and nans, the finite entries equal to rounding."""
    u0 = U0.copy()
    u0[4] = bad
    with np.errstate(all="ignore"):
        kept = zp.gradient(heat, u0.copy(), 0.2)
        helpers = zp.gradient(lambda m0, k: heat(m0[0], k), u0[None, :].copy(), 0.2)
    np.testing.assert_array_equal(np.isnan(kept[0]), np.isnan(helpers[0][0]))
    np.testing.assert_array_equal(np.isinf(kept[0]), np.isinf(helpers[0][0]))
    finite = np.isfinite(kept[0])
    np.testing.assert_allclose(kept[0][finite], helpers[0][0][finite], rtol=1e-13)
