"""Backward loops that own an array cotangent (ad/reverse/owned_slots.py): the heat equation's
`u_bar` added into and zeroed in place by statements, and the overwritten interior neither
saved nor restored where nothing reads the array afterwards.

Every case is checked against central differences (write_checks.check_writes); the cases
where the proof must fail (another reader of the cotangent, a view written, other dtypes
and shapes, an adjoint that reads the array after the restore) check that the helpers or
the restore stay, and that the numbers are right either way."""

import math

import numpy as np
import pytest
from write_checks import check_writes, fd_gradient

import zygote_py as zp

U0 = np.sin(np.linspace(0.0, 3.0, 12)) + 0.1 * np.arange(12)


def heat(u0, c):
    u = u0.copy()
    for _ in range(6):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return (u * u).sum()


def test_the_heat_equation_adds_in_place_and_saves_nothing():
    text = zp.grad_source(heat, args=(U0, 0.2))
    assert "_zp_owned_accumulator(u_bar, u)" in text, text
    for statement in ("u_bar_1[:-2] += ", "u_bar_1[2:] += ", "u_bar_1[1:-1] -= ",
                      "= u_bar_1[1:-1]\n"):
        assert statement in text, statement
    # the interior's cotangent is kept, not zeroed and added back, and read as a view
    # before anything changes it (kept_regions.py)
    for gone in ("_zp_undo_write_split", "_zp_add_index_cotangent", "_zp_save_and_write",
                 "u[1:-1] = u_saved", "u_bar_1[1:-1] = 0.0", "u_bar_1[1:-1].copy()",
                 "u_bar_1[1:-1] += "):
        assert gone not in text, gone
    assert "u_1[1:-1] = t_1" in text and "_zp_log_written(u, _zp_written)" in text
    assert text.count("_zp_tape.append(") == 1  # the stencil's difference, for c's cotangent
    check_writes(heat, U0, 0.2)


def heat_fixed_c(u0):
    u = u0.copy()
    for _ in range(6):
        u[1:-1] = u[1:-1] + 0.2 * (u[2:] - 2 * u[1:-1] + u[:-2])
    return (u * u).sum()


def test_a_write_alone_on_its_tape_pushes_nothing_of_size():
    """Nothing else is taped: the tape keeps its place with None (write_unsaved)."""
    text = zp.grad_source(heat_fixed_c, args=(U0,))
    assert "_zp_write_unsaved(u_1, slice(1, -1, None)" in text, text
    assert "_zp_owned_accumulator" in text and "= u_saved" not in text
    check_writes(heat_fixed_c, U0)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 12])
@pytest.mark.parametrize("c", [0.2, -0.45, 0.0])
def test_numbers_for_lengths_and_coefficients(n, c):
    check_writes(heat, U0[:n].copy(), c)


def test_a_gradient_called_twice_and_the_caller_s_array():
    u0 = U0.copy()
    first = zp.gradient(heat, u0, 0.3)
    second = zp.gradient(heat, u0, 0.3)
    np.testing.assert_array_equal(u0, U0)  # u0.copy() is written, never u0
    np.testing.assert_array_equal(first[0], second[0])
    assert first[1] == second[1]


def test_a_pullback_run_twice():
    y, back = zp.pullback(heat, U0.copy(), 0.2)
    a, b = back(1.0), back(2.0)
    np.testing.assert_allclose(2 * a[0], b[0], rtol=1e-14)
    np.testing.assert_allclose(a[0], fd_gradient(heat, (U0, 0.2), 0), rtol=1e-6, atol=1e-8)


def heat_then_read(u0, c):
    """The loop's array read after it by a later loop: the backward of that loop runs first
    (before the restores), so nothing later reads it."""
    u = u0.copy()
    for _ in range(4):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    s = (u * u).sum()
    for i in range(3):
        s = s + np.sum(u[i:] * u[:len(u) - i])
    return s


def read_then_heat(u0, c):
    """The array read (values, not only its shape) before the stepping loop: that read's
    adjoint runs after the loop's backward and needs the array as it was."""
    u = u0.copy()
    s = np.sum(np.sin(u) * u)
    for _ in range(4):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return s + (u * u).sum()


def read_in_an_earlier_loop(u0, c):
    u = u0.copy()
    s = 0.0
    for _ in range(3):
        s = s + np.sum(u * u * c)
    for _ in range(4):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return s + (u * u).sum()


def product_stencil(u0, c):
    """A rule that reads the array's values in the loop (u[2:] * u[:-2]): the tape keeps views
    of u, which the restore must put back for the earlier iterations' adjoints."""
    u = u0.copy()
    for _ in range(4):
        u[1:-1] = u[1:-1] + c * u[2:] * u[:-2]
    return (u * u).sum()


@pytest.mark.parametrize("f", [read_then_heat, read_in_an_earlier_loop, product_stencil])
def test_the_restore_stays_where_a_later_adjoint_reads_the_array(f):
    text = zp.grad_source(f, args=(U0, 0.2))
    assert "_zp_save_and_write" in text and "u[1:-1] = u_saved" in text, text
    assert "_zp_owned_accumulator" in text  # the cotangent is still the loop's own
    check_writes(f, U0, 0.2)


def test_no_restore_where_the_array_is_read_after_the_loop():
    text = zp.grad_source(heat_then_read, args=(U0, 0.2))
    assert "_zp_save_and_write" not in text and "u_saved" not in text, text
    check_writes(heat_then_read, U0, 0.2)


# -- the proofs that must fail: the helpers stay, the numbers are right ----------------------
def heat_with_whole_read(u0, c):
    """u read whole in the loop: its cotangent gets an addend that is no region."""
    u = u0.copy()
    s = 0.0
    for _ in range(4):
        s = s + np.sum(u) * c
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return s + (u * u).sum()


def heat_through_an_alias(u0, c):
    """Another name for the array, read in the loop."""
    u = u0.copy()
    w = u
    for _ in range(4):
        u[1:-1] = u[1:-1] + c * (w[2:] - 2 * w[1:-1] + w[:-2])
    return (w * u).sum()


def heat_in_a_list(u0, c):
    """Copies of the interior kept in a list the loss reads."""
    u = u0.copy()
    kept = []
    for _ in range(4):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        kept.append(u[1:-1].copy())
    return sum(np.sum(k * k) for k in kept) + (u * u).sum()


def heat_through_a_view(u0, c):
    """The write goes through a view of the array."""
    u = u0.copy()
    inner = u[1:-1]
    for _ in range(4):
        inner[:] = inner + c * (u[2:] - 2 * inner + u[:-2])
    return (u * u).sum()


def heat_broadcast_value(u0, c):
    """A number written into the region (not of the region's shape): saved with its form."""
    u = u0.copy()
    for _ in range(3):
        u[1:-1] = u[1:-1] * c
        u[2:4] = c
    return (u * u).sum()


def heat_two_names(u0, c):
    """The array under a second name, rebound every step."""
    u = u0.copy()
    v = u
    for _ in range(4):
        u[1:-1] = u[1:-1] + c * (v[2:] - 2 * v[1:-1] + v[:-2])
        v = u
    return (u * v).sum()


def heat_summed_states(u0, c):
    """Every state added into another array: a cotangent addend that is no region."""
    u = u0.copy()
    s = u0 * 0.0
    for _ in range(4):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        s = s + u
    return (s * s).sum()


def heat_swapped(u0, c):
    """Two arrays that trade places every step."""
    u = u0.copy()
    w = u0.copy()
    for _ in range(4):
        u[1:-1] = u[1:-1] + c * (w[2:] - 2 * w[1:-1] + w[:-2])
        u, w = w, u
    return (u * w).sum()


def heat_view_kept(u0, c):
    """A view of the array made before the loop and read after it."""
    u = u0.copy()
    inner = u[2:-2]
    for _ in range(4):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return (u * u).sum() + (inner * inner * inner).sum()


def heat_2d(m0, c):
    m = m0.copy()
    for _ in range(3):
        m[1:-1, :] = m[1:-1, :] + c * (m[2:, :] - 2 * m[1:-1, :] + m[:-2, :])
    return (m * m).sum()


@pytest.mark.parametrize("f", [heat_with_whole_read, heat_through_an_alias, heat_in_a_list,
                               heat_through_a_view, heat_broadcast_value, heat_two_names,
                               heat_summed_states, heat_swapped, heat_view_kept])
def test_numbers_where_the_chain_is_not_owned_or_partly_owned(f):
    check_writes(f, U0, 0.3)


def test_a_2d_array_keeps_the_helpers():
    m0 = np.cos(np.arange(12.0)).reshape(4, 3)
    text = zp.grad_source(heat_2d, args=(m0, 0.2))
    assert "_zp_owned_accumulator" not in text and "_zp_undo_write_split" in text
    check_writes(heat_2d, m0, 0.2)


def test_an_int_array_keeps_the_helpers():
    u0 = np.arange(8)
    text = zp.grad_source(heat, args=(u0, 0.2))
    assert "_zp_owned_accumulator" not in text
    got = zp.gradient(heat, u0, 0.2)
    # u0.copy() of an int array: the writes round to ints, so u0's derivative is its own
    # rounding's; c's derivative through the rounded writes is 0
    assert got[1] in (None, 0.0)


def test_a_complex_array_keeps_the_helpers():
    z0 = (U0 + 0.5j * U0[::-1]).copy()

    def heat_abs(u0, c):
        u = u0.copy()
        for _ in range(3):
            u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        return np.sum(np.abs(u) ** 2)

    text = zp.grad_source(heat_abs, args=(z0, 0.2))
    assert "_zp_owned_accumulator" not in text
    grads = zp.gradient(heat_abs, z0, 0.2)
    h = 1e-6
    expected_c = (heat_abs(z0.copy(), 0.2 + h) - heat_abs(z0.copy(), 0.2 - h)) / (2 * h)
    np.testing.assert_allclose(grads[1], expected_c, rtol=1e-6)


def test_a_float32_array_keeps_its_dtype():
    u32 = U0.astype(np.float32)
    grads = zp.gradient(heat, u32, 0.2)
    assert grads[0].dtype == np.float32
    expected = fd_gradient(heat, (U0, 0.2), 0)  # the float64 problem's derivative
    np.testing.assert_allclose(grads[0], expected, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(grads[1], fd_gradient(heat, (U0, 0.2), 1), rtol=1e-4)


# -- the strong zero: a zero cotangent against inf --------------------------------------------
def heat_of_the_head(u0, c):
    """Two steps, a loss of the first three points: the last points cannot reach it."""
    u = u0.copy()
    for _ in range(2):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return (u[:3] * u[:3]).sum()


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
def test_an_infinite_point_the_loss_cannot_see(bad):
    u0 = U0.copy()
    u0[9] = bad  # its stencil is inf or nan where the cotangent is exactly 0
    grads = zp.gradient(heat_of_the_head, u0, 0.2)
    finite = U0.copy()
    finite[9] = 0.0  # the same function on every point the loss can reach
    np.testing.assert_allclose(grads[0], fd_gradient(heat_of_the_head, (finite, 0.2), 0),
                               rtol=1e-6, atol=1e-9)
    assert grads[0][9] == 0.0
    np.testing.assert_allclose(grads[1], fd_gradient(heat_of_the_head, (finite, 0.2), 1), rtol=1e-6)


@pytest.mark.parametrize("c", [math.inf, math.nan])
def test_an_infinite_coefficient_gives_what_the_helpers_give(c):
    with np.errstate(all="ignore"):
        grads = zp.gradient(heat_of_the_head, U0.copy(), c)
        # the same program with the helpers (a 2-D array of one row takes them)
        rows = zp.gradient(lambda m0, k: heat_of_the_head(m0[0], k), U0[None, :].copy(), c)
    np.testing.assert_array_equal(np.isnan(grads[0]), np.isnan(rows[0][0]))
    finite = ~np.isnan(grads[0])
    np.testing.assert_array_equal(grads[0][finite], rows[0][0][finite])


# -- random stencils: every owned chain, restore kept or dropped, against differences ----------
def _slice_text(start: int, end: int) -> str:
    return f"{start or ''}:{-end if end else ''}"


def random_stencil(seed: int) -> str:
    """A loop writing one slice of u from shifted slices of it (all of one length), with
    optional reads of u's values before the loop, in it (products, sines) and after it,
    and a second write of one element: some chains own the cotangent and drop the restore,
    some keep it, some keep the helpers."""
    rng = np.random.default_rng(seed)
    trim = int(rng.integers(1, 4))
    pairs = [(s, trim - s) for s in range(trim + 1)]
    ws, we = pairs[int(rng.integers(len(pairs)))]
    terms = []
    for _ in range(int(rng.integers(1, 4))):
        s, e = pairs[int(rng.integers(len(pairs)))]
        read = f"u[{_slice_text(s, e)}]"
        kind = int(rng.integers(6))
        coef = round(float(rng.uniform(-0.4, 0.4)), 2)
        if kind == 0:
            terms.append(f"{coef} * {read}")
        elif kind == 1:  # c's cotangent reads the slice: a view of u on the tape
            terms.append(f"c * {read}")
        elif kind >= 4:  # c's cotangent reads a new array (the heat equation's difference)
            s2, e2 = pairs[int(rng.integers(len(pairs)))]
            terms.append(f"c * ({read} - 2.0 * u[{_slice_text(s2, e2)}])")
        elif kind == 2:  # reads u's values: its tape keeps a view, the restore stays
            s2, e2 = pairs[int(rng.integers(len(pairs)))]
            terms.append(f"{coef} * {read} * u[{_slice_text(s2, e2)}]")
        else:
            terms.append(f"{coef} * np.sin({read})")
    lines = ["import numpy as np", "", "", "def f(u0, c):", "    u = u0.copy()"]
    before = rng.random() < 0.3
    if before:
        lines.append("    s = np.sum(np.cos(u) * u)")
    lines.append(f"    for _ in range({int(rng.integers(1, 4))}):")
    lines.append(f"        u[{_slice_text(ws, we)}] = u[{_slice_text(ws, we)}] + "
                 + " + ".join(terms))
    if rng.random() < 0.3:
        lines.append("        u[0] = u[1] * 0.5 + c")
    loss = ["(u * u).sum()", "np.sum(np.sin(u))", "(u[:3] * u[:3]).sum()"][int(rng.integers(3))]
    lines.append(f"    return {loss}" + (" + s" if before else ""))
    return "\n".join(lines) + "\n"


def test_random_stencils(tmp_path):
    import importlib.util

    owned = dropped = 0
    for seed in range(60):
        source = random_stencil(seed)
        path = tmp_path / f"stencil_{seed}.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(f"_owned_stencil_{seed}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        text = zp.grad_source(module.f, args=(U0, 0.3))
        owned += "_zp_owned_accumulator" in text
        dropped += "u_saved" not in text
        try:
            check_writes(module.f, U0, 0.3)
        except AssertionError as err:
            raise AssertionError(f"seed {seed}:\n{source}\n{text}") from err
    assert owned >= 30 and dropped >= 4, (owned, dropped)  # both paths are exercised
