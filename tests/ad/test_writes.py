"""Gradients of in-place writes into arrays, against central differences (ad/reverse/writes.py,
runtime/writes.py, frontend/lower_writes.py)."""

import numpy as np
import pytest
from error_cases import mutation
from write_checks import check_writes

import zygote_py as zp

rng = np.random.default_rng(0)
X = rng.normal(size=5)
M = rng.normal(size=(3, 4))


# -- item and slice writes into arrays made in the function ---------------------------------
def fill_loop(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sin(x[i]) * x[i]
    return (out * out).sum()


def fill_loop_while(x):
    out = np.zeros(len(x))
    i = 0
    while i < len(x):
        out[i] = np.exp(x[i]) * x[0]
        i += 1
    return (out * np.arange(len(x))).sum()


def item_2d(m):
    out = np.ones((3, 4))
    out[1, 2] = m[0, 0] * m[2, 3]
    out[0, 0] = out[1, 2] ** 2
    return (out * m).sum()


def slice_write(x):
    y = x * 2.0
    y[1:3] = x[:2] ** 2
    return (y * x).sum()


def negative_step(x):
    y = np.zeros(5)
    y[::-2] = x[:3] * x[1:4]
    return (y ** 2).sum() + y[0]


def mask_write(x):
    y = x * 3.0
    y[y < 0] = 0.0
    return (y * y).sum()


def mask_write_values(x):
    y = np.cos(x)
    mask = x > 0
    y[mask] = x[mask] ** 3
    return (y * x).sum()


def fancy_repeated(x):
    y = np.zeros(4)
    y[np.array([0, 2, 0, 3])] = x[:4] * 2.0  # y[0] = last (x[2] * 2)
    return (y * np.array([1.0, 2.0, 3.0, 4.0])).sum()


def ellipsis_write(x):
    y = np.empty(5)
    y[...] = x * x
    return (y * x).sum()


def broadcast_value(x):
    y = np.ones((3, 5))
    y[1] = x
    y[:, 0] = x[1]
    return (y ** 2).sum()


def aug_item(x):
    y = x.copy()
    y[1] += x[0] * 3.0
    y[2:4] *= x[:2]
    return (y ** 2).sum()


def aug_fancy_buffered(x):
    y = np.zeros(3)
    y[np.array([0, 0, 1])] += x[:3]  # buffered: y[0] gets x[1] only
    return (y * np.array([1.0, 2.0, 3.0])).sum() + (y ** 2).sum()


def read_before_write(x):
    y = x * 1.0
    s = (y * y).sum()  # its adjoint reads y as it was
    y[0] = 10.0
    y[2] = y[1] * y[3]
    return s + (y * y).sum()


def swap_rows(m):
    Y = m * 1.0
    Y[[0, 2]] = Y[[2, 0]]
    return (Y * np.arange(12.0).reshape(3, 4)).sum()


def heat(u0, c):
    u = u0.copy()
    for _ in range(6):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return (u * u).sum()


def heat_double_buffer(u0, c):
    u = u0 * 1.0
    for _ in range(4):
        new = u.copy()
        new[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        u = new
    return (u ** 3).sum()


def gauss_seidel(b):
    A = np.array([[4.0, 1.0, 0.5], [1.0, 5.0, 1.0], [0.5, 1.0, 3.0]])
    x = np.zeros(3)
    for _ in range(5):
        for i in range(3):
            x[i] = (b[i] - A[i] @ x + A[i, i] * x[i]) / A[i, i]
    return (x * x).sum()


def recurrence(x):
    out = np.zeros(len(x))
    out[0] = x[0]
    for i in range(1, len(x)):
        prev = out[i - 1]  # a number: reading it after the write is fine
        out[i] = 0.5 * prev + np.tanh(x[i])
        out[i] += prev * x[i]
    return out.sum() + out[-1] ** 2


def write_in_branch(x):
    y = np.zeros(5)
    for i in range(5):
        if x[i] > 0:
            y[i] = x[i] ** 2
        else:
            y[i] = -x[i]
    return (y * x).sum()


def write_row_loop(m):
    out = np.zeros((3, 4))
    for i in range(3):
        out[i] = m[i] * (i + 1.0)
        out[i, 1:] += out[i, :-1]
    return (out ** 2).sum()


CASES = [fill_loop, fill_loop_while, slice_write, negative_step, mask_write, mask_write_values,
         fancy_repeated, ellipsis_write, broadcast_value, aug_item, aug_fancy_buffered,
         read_before_write, recurrence, write_in_branch]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_writes_into_a_vector(f):
    check_writes(f, X)


@pytest.mark.parametrize("f", [item_2d, swap_rows, write_row_loop], ids=lambda f: f.__name__)
def test_writes_into_a_matrix(f):
    check_writes(f, M)


def test_heat_equation():
    check_writes(heat, np.sin(np.linspace(0, 3, 8)), 0.2)


def test_heat_equation_double_buffered():
    check_writes(heat_double_buffer, np.sin(np.linspace(0, 3, 8)), 0.2)


def test_gauss_seidel():
    check_writes(gauss_seidel, np.array([1.0, 2.0, -1.0]))


def test_pullback_runs_twice():
    _, back = zp.pullback(fill_loop, X.copy())
    first = back(1.0)
    second = back(1.0)
    np.testing.assert_allclose(first[0], second[0])


def nonlinear_heat(u0, c):
    u = u0.copy()
    for _ in range(5):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2]) * u[1:-1]
    return (u * u).sum()


def gauss_seidel_matrix(A, b):
    x = np.zeros(3)
    for _ in range(4):
        for i in range(3):
            x[i] = (b[i] - A[i] @ x + A[i, i] * x[i]) / A[i, i]
    return (x * x).sum()


def test_nonlinear_heat_equation_reads_restored_values():
    check_writes(nonlinear_heat, np.sin(np.linspace(0, 3, 8)), 0.1)


def test_gauss_seidel_differentiates_the_matrix():
    A = np.array([[4.0, 1.0, 0.5], [1.0, 5.0, 1.0], [0.5, 1.0, 3.0]])
    check_writes(gauss_seidel_matrix, A, np.array([1.0, 2.0, -1.0]))


# -- augmented assignment on names: Python's in-place semantics ------------------------------
def aug_alias(x):
    y = x * 2.0
    z = y
    y += x  # z is y: it sees the write
    return (z * x).sum()


def aug_alias_in_list(x):
    y = x * 2.0
    held = [y]
    y *= x
    return (held[0] * 1.0).sum()


def aug_time_stepping(pos, vel):
    pos = pos.copy()
    for _ in range(5):
        vel = vel - 0.1 * pos
        pos += vel * 0.1
    return (pos ** 2).sum()


def aug_number(x):
    total = 0.0
    for i in range(len(x)):
        total += x[i] ** 2
    return total


def test_augmented_assignment_writes_into_the_array_every_alias_sees():
    check_writes(aug_alias, X)
    x = X.copy()
    assert aug_alias(x) == pytest.approx(((x * 2 + x) * x).sum())


def test_augmented_assignment_on_an_array_held_by_a_list():
    try:
        check_writes(aug_alias_in_list, X)
    except zp.MutationError:
        pass  # refused is allowed; a wrong number is not


def test_augmented_time_stepping():
    check_writes(aug_time_stepping, X, np.cos(X))


def test_augmented_assignment_on_numbers_rebinds():
    check_writes(aug_number, X)


# -- writes into arguments -----------------------------------------------------------------
def zero_then_use(a):
    a[:] = 0.0
    return (a * a).mean()


def torch_seed_scenario(a):
    b = a + 2
    loss = (b * b).mean()
    b[0] = 1000.0
    return loss


def argument_fill(a, x):
    for i in range(len(x)):
        a[i] = a[i] * x[i]
    return (a ** 2).sum()


def argument_aug(a):
    a += 1.0
    return (a * a).sum()


def test_leaf_overwritten_has_zero_gradient():
    a = X.copy()
    (g,) = zp.gradient(zero_then_use, a)
    np.testing.assert_array_equal(g, np.zeros(5))
    np.testing.assert_array_equal(a, np.zeros(5))  # the caller sees the write


def test_pytorch_seed_scenario():
    a = X.copy()
    (g,) = zp.gradient(torch_seed_scenario, a)
    np.testing.assert_allclose(g, (X + 2) / len(X) * 2)
    np.testing.assert_array_equal(a, X)


def test_argument_writes():
    check_writes(argument_fill, X, np.cos(X))
    check_writes(argument_aug, X)


def test_argument_aliasing_another_argument_is_refused():
    a = X.copy()
    with pytest.raises(zp.MutationError, match="shares memory"):
        zp.gradient(argument_fill, a, a)
    with pytest.raises(zp.MutationError, match="shares memory"):
        zp.gradient(argument_fill, a, a[::-1])


def _helper_writes(a):
    a[0] = 0.0
    return a.sum()


def calls_writing_helper(x):
    y = x * 1.0
    s = _helper_writes(y)
    return s + (y * y).sum()


def test_a_called_function_writing_its_argument_is_seen_by_its_caller():
    check_writes(calls_writing_helper, X)


# -- views ---------------------------------------------------------------------------------
def view_read_after_write(x):
    y = x * 1.0
    v = y[1:3]
    y[1] = 5.0
    return (v * x[:2]).sum()


def write_through_view(x):
    y = x * 1.0
    v = y[1:3]
    v[0] = 5.0
    return (y * x).sum()


def view_not_overlapping_is_fine(x):
    y = x * 1.0
    first = y[0]
    y[1:] = y[1:] * 2.0
    return first * (y * x).sum()


def transposed_write(m):
    y = m * 1.0
    t = y.T
    t[0] = 1.0
    return (y * m).sum()


@pytest.mark.parametrize("f", [view_read_after_write, write_through_view],
                         ids=lambda f: f.__name__)
def test_views_follow_the_memory_exactly(f):
    check_writes(f, X)


def test_a_transposed_view_written_changes_its_base():
    check_writes(transposed_write, M)


def reshaped_and_swapped(m):
    y = m * 1.0
    flat = y.reshape(-1)
    flat[3] = flat[0] * 2.0
    s = y.swapaxes(0, 1)
    s[1] *= m[0, 0]
    r = y.ravel()
    r[-1] = r[1] ** 2
    return (y * m).sum() + (flat * flat).sum()


def test_reshape_ravel_and_swapaxes_views():
    check_writes(reshaped_and_swapped, M)


def test_scalar_read_before_write_is_fine():
    check_writes(view_not_overlapping_is_fine, X)


def diagonal_write(m):
    d = np.diagonal(m * 1.0)
    d[0] = 1.0
    return d.sum()


def broadcast_write(x):
    b = np.broadcast_to(x, (2, 5))
    b[0, 0] = 1.0
    return b.sum()


@pytest.mark.parametrize("f,arg", [(diagonal_write, M), (broadcast_write, X)],
                         ids=["diagonal", "broadcast_to"])
def test_read_only_views_raise_numpys_error(f, arg):
    with pytest.raises(ValueError, match="read-only"):
        zp.gradient(f, arg.copy())


# -- the writes tests/test_errors.py once expected to be refused --------------------------
@pytest.mark.parametrize("f,args", [
    (mutation.setitem, (np.array([0.5, -0.2, 0.3]),)),
    (mutation.setitem_augmented, (np.array([0.5, -0.2, 0.3]), 0.7)),
    (mutation.setslice, (np.array([0.5, -0.2, 0.3, 0.9]), np.array([0.1, 0.4]))),
    (mutation.setslice_augmented, (np.array([0.5, -0.2, 0.3, 0.9]), np.array([0.1, 0.4]))),
    (mutation.setitem_2d, (np.arange(6.0).reshape(2, 3), np.array([1.0, 2.0, 3.0]))),
    (mutation.out_argument, (np.array([0.5, -0.2, 0.3]),)),
    (mutation.scatter_add, (np.array([0.5, -0.2, 0.3]),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_writes_into_arguments_once_refused(f, args):
    check_writes(f, *args)


# -- aliases the compiler cannot follow exactly: refused (or checked while running) -----------
def view_before_loop(x):
    y = x * 1.0
    v = y[1:3]
    s = 0.0
    for i in range(3):
        s = s + v.sum()
        y[1] = s * x[i]
    return s


def alias_by_name(x):
    y = x * 1.0
    z = y
    z[0] = 7.0 * x[1]  # y is z: it sees the write exactly
    return (y * x).sum()


def alias_by_branch(x, c):
    y = x * 1.0
    w = y if c > 0 else np.zeros(5)
    w[0] = 3.0
    return (y * x).sum()


def list_holding(x):
    y = x * 1.0
    lst = [y, 2.0]
    y[0] = 5.0
    return lst[0].sum()


def _identity(a):
    return a


def through_user_function(x):
    y = x * 1.0
    z = _identity(y)
    z[0] = 5.0
    return (y * x).sum()


def int_buffer(x):
    out = np.zeros(5, dtype=int)
    out[1] = x[0] * 10.0
    return (out * x).sum()


def test_a_view_made_before_a_loop_that_writes_its_base():
    check_writes(view_before_loop, X)


def test_another_name_for_the_array_sees_the_write():
    check_writes(alias_by_name, X)


def test_a_branch_merge_follows_the_array_taken():
    check_writes(alias_by_branch, X, -1.0, argnums=[0])  # w is a new array: y is untouched
    check_writes(alias_by_branch, X, 1.0, argnums=[0])  # w is y


def test_an_array_returned_by_a_function_follows_the_memory():
    check_writes(through_user_function, X)


def test_a_list_holding_the_written_array_sees_the_write():
    # lst[0] is y, written after the list was made: it reads 5.0 and y's other elements
    assert zp.withgradient(list_holding, X.copy())[0] == list_holding(X.copy())
    check_writes(list_holding, X)


def test_a_float_written_into_an_int_array_has_no_derivative():
    check_writes(int_buffer, X)


def _step(t, dt):
    t += dt  # a number: rebound, the caller's value is untouched
    return t * t


def calls_number_updating_helper(x):
    return _step(x[0], x[1]) + _step(2.0, x[2])


def test_a_called_function_updating_a_number_argument_is_fine():
    check_writes(calls_number_updating_helper, X)


def _shift(a, d):
    a += d  # an array: written into the caller's array
    return a.sum()


def calls_array_updating_helper(x):
    y = x * 1.0
    s = _shift(y, 1.0)
    return s + (y * y).sum()


def test_a_called_function_updating_an_array_argument_in_place_is_seen_by_its_caller():
    check_writes(calls_array_updating_helper, X)  # (tests/ad/test_argument_writes.py: more)
    check_writes(_shift, X, 1.0)


class _Shifter:
    def shift(self, a, d):
        a += d


def calls_array_updating_method(x):
    y = x * 1.0
    _Shifter().shift(y, 1.0)  # a method, resolved while running: not followed
    return (y * y).sum()


def test_a_method_updating_an_array_argument_in_place_is_refused():
    with pytest.raises(zp.MutationError, match="argument of a function called"):
        zp.gradient(calls_array_updating_method, X.copy())


def closure_value(x):
    y = x * 1.0
    f = lambda: (y * y).sum()  # a closure used as a value
    fs = [f]
    y[0] = 3.0
    return fs[0]()


def iterator_over_rows(m):
    y = m * 1.0
    rows = iter(y)
    first = next(rows)
    y[1] = 0.0
    return first.sum() + next(rows).sum()


def dict_argument(d, x):
    d["a"] = x
    return x.sum()


def test_a_closure_holding_the_written_array_is_refused():
    with pytest.raises(zp.MutationError, match="shares memory"):
        zp.gradient(closure_value, X.copy())


def test_an_iterator_over_the_written_array_is_refused():
    with pytest.raises(zp.MutationError):
        zp.gradient(iterator_over_rows, M.copy())


def test_item_assignment_into_a_dict_argument_is_followed():
    # (refused before lists and dicts from outside were followed: tests/frontend/
    # test_outside_containers.py has every form)
    d = {"a": 1.0}
    (g,) = zp.gradient(dict_argument, d, X.copy(), wrt=(1,))
    np.testing.assert_allclose(g, np.ones_like(X))
    assert d["a"] is not None and np.array_equal(d["a"], X)


def scatter_add(x):
    acc = np.zeros(4)
    idx = np.array([0, 2, 0, 3, 0])
    np.add.at(acc, idx, x)  # unbuffered: acc[0] gets x[0] + x[2] + x[4]
    np.subtract.at(acc, np.array([1, 1]), x[0] * x[1])
    return (acc * acc * np.array([1.0, 2.0, 3.0, 4.0])).sum()


def test_ufunc_at_scatter_adds_every_repeat():
    check_writes(scatter_add, X)


def swap_by_unpacking(m):
    Y = m * 1.0
    Y[0], Y[1] = Y[1], Y[0]  # rows are views: NumPy leaves both rows equal to the old row 1
    return (Y * m).sum()


def swap_numbers_by_unpacking(x):
    y = x * 1.0
    y[0], y[1] = y[1], y[0]  # items are numbers: a real swap
    return (y * x).sum()


def test_swapping_rows_by_unpacking_is_refused_while_running():
    with pytest.raises(zp.MutationError, match="shares memory"):
        zp.gradient(swap_by_unpacking, M.copy())


def test_swapping_items_by_unpacking():
    check_writes(swap_numbers_by_unpacking, X)


def writes_nobody_differentiates(w):
    y = np.ones(3) * 2.0
    s = (y * w * w).sum()  # its adjoint reads y as it was here
    if w[0] > -100.0:
        y[0] = 100.0
    i = 0
    while i < 3:
        y[i] = y[i] * 7.0
        i += 1
    return s + y.sum() * 0.0


def test_writes_no_cotangent_reaches_are_still_undone():
    check_writes(writes_nobody_differentiates, np.array([0.5, -1.0, 2.0]))


def test_pullback_leaves_the_written_argument_as_the_call_did():
    a = X.copy()
    y, back = zp.pullback(argument_fill, a, np.cos(X))
    after_call = a.copy()
    expected = X.copy()
    argument_fill(expected, np.cos(X))
    np.testing.assert_array_equal(after_call, expected)
    first = back(1.0)
    np.testing.assert_array_equal(a, after_call)  # back() puts the final state back
    second = back(1.0)
    np.testing.assert_allclose(first[0], second[0])
    np.testing.assert_allclose(first[1], second[1])


W_PARAM = np.array([0.4, -0.3, 1.1])


def _loss_with_buffer(x):
    h = np.zeros(3)
    for i in range(3):
        h[i] = W_PARAM[i] * x[i]
    h[h < 0] = 0.0
    return (h * h).sum()


def test_implicit_params_through_a_function_that_writes():
    x = np.array([1.0, 2.0, -0.5])
    grads = zp.gradient(lambda: _loss_with_buffer(x), zp.params(W_PARAM))
    h = np.maximum(W_PARAM * x, 0.0)
    np.testing.assert_allclose(grads[W_PARAM], 2 * h * x)


def jacobian_of_writes(x):
    out = np.zeros(3)
    for i in range(3):
        out[i] = np.sin(x[i]) * x[(i + 1) % 3]
    out[0] += out[2]
    return out


def test_jacobian_runs_the_pullback_once_per_row():
    x = np.array([0.3, 0.7, -0.4])
    J = zp.jacobian(jacobian_of_writes, x)
    J = J[0] if isinstance(J, tuple) else J
    h = 1e-6
    fd = np.stack([(jacobian_of_writes(x + h * e) - jacobian_of_writes(x - h * e)) / (2 * h)
                   for e in np.eye(3)], axis=1)
    np.testing.assert_allclose(J, fd, atol=1e-8)


G_ARRAY = np.array([1.0, 2.0, 3.0])


def writes_argument_and_reads_global(a):
    a[0] = 5.0
    return (a * G_ARRAY).sum()


def test_an_argument_that_is_a_global_read_is_refused():
    with pytest.raises(zp.MutationError, match="shares memory"):
        zp.gradient(writes_argument_and_reads_global, G_ARRAY)
    check_writes(writes_argument_and_reads_global, np.array([0.5, 0.1, -0.2]))


def writes_in_for_loops_nobody_differentiates(w):
    y = np.ones(3) * 2.0
    s = (y * w * w).sum()
    for i in range(3):
        y[i] = 5.0 + i
    for row in [0, 2]:
        y[row] = -1.0
        if row > 0:
            break
    return s


def test_for_loops_no_cotangent_reaches_are_undone():
    check_writes(writes_in_for_loops_nobody_differentiates, np.array([0.5, -1.0, 2.0]))
