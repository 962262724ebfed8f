"""Forward mode through in-place writes (ad/forward/writes.py, runtime/forward_writes.py):
zp.jvp of every write form reverse mode differentiates, against central differences along a
random direction; zp.hessian (forward mode over the compiled gradient, with its saves and
restores) against central differences of reverse-mode gradients; the alias rules reverse
mode enforces; a tangent updated in place only where nothing else can see it."""

import numpy as np
import pytest
import test_writes as W
from write_checks import check_hessian_writes, check_jvp_writes

import zygote_py as zp
from zygote_py.forward_api import _gradient_function
from zygote_py.forward_compiler import FORWARD
from zygote_py.kinds import scalar_kinds

X = W.X
M = W.M


# -- forms not in test_writes.py -------------------------------------------------------------
def views_of_one_base(x):
    y = np.exp(x) * 1.0
    v = y[1:3]
    w = y[:4].reshape(2, 2)
    v[0] = x[3] * v[1]  # lands in y and w (its element 1)
    w[1, 1] = w[0, 0] * x[0]  # lands in y (element 3), not in v
    return np.sum(y * y) + np.sum(v) + np.sum(w.T * w)


def augmented_views(x):
    y = np.exp(x) * 1.0
    t = y.T
    v = y[::2]
    v *= x[1]
    t[0] += 1.0
    return np.sum(y * t * x)


def fancy_last_write_wins(x):
    y = np.cos(x) * 1.0
    y[np.array([0, 2, 0])] = x[[1, 2, 3]] * 3.0  # element 0 takes x[3]'s value
    return np.sum(y ** 3)


def list_value(x):
    y = x * 1.0
    y[0:2] = [x[2], x[3] ** 2]
    return np.sum(y * y)


def scatters(x):
    y = np.zeros(3)
    np.add.at(y, [0, 1, 0], x[:3] * x[1])
    np.subtract.at(y, [2, 2], x[1:3])
    return np.sum(y * y)


def outputs_and_copies(x):
    buf = np.empty(5)
    np.multiply(x, x, out=buf)
    np.exp(buf, out=buf)
    np.add(buf, x, buf)
    a = np.empty(5)
    np.copyto(a, x * 2.0)
    a.fill(x[0])
    np.copyto(a, x, where=x > 0.2)
    return np.sum(buf * x) + np.sum(a * a)


def time_stepping(x):
    pos = x * 1.0
    vel = np.cos(x)
    for _ in range(4):
        vel -= 0.1 * pos  # both in place: every name of them sees it
        pos += vel * 0.1
    return np.sum(pos * pos)


def while_writes(x):
    y = x * 1.0
    i = 0
    while i < 3:
        y[i + 1] = y[i] * x[i]
        i += 1
    return np.sum(y * y)


def integer_array_written(x):
    k = np.arange(5)
    k[0] = 3  # no tangent: an integer array
    y = x * 1.0
    y[k[0]] = x[0]
    return np.sum(y * y)


def nested_function_fills(x):
    def fill_in(n):
        out = np.zeros(n)
        for i in range(n):
            out[i] = x[i] * x[i]
        return out
    return np.sum(fill_in(3) * x[:3])


def old_value_read_after_write(x):
    y = np.sin(x) * 1.0
    s = np.sum(y * y)  # its tangent reads y's tangent before the write
    y[1:3] = x[0] * 2.0
    return s * np.sum(y * x)


FORWARD_CASES = W.CASES + [
    W.aug_alias, W.aug_number, W.zero_then_use, W.torch_seed_scenario, W.argument_aug,
    W.calls_writing_helper, W.view_read_after_write, W.write_through_view,
    W.view_not_overlapping_is_fine, W.view_before_loop, W.alias_by_name,
    W.through_user_function, W.int_buffer, views_of_one_base, augmented_views,
    fancy_last_write_wins, list_value, scatters, outputs_and_copies, time_stepping,
    while_writes, integer_array_written, nested_function_fills, old_value_read_after_write]


@pytest.mark.parametrize("f", FORWARD_CASES, ids=lambda f: f.__name__)
def test_jvp_of_writes_into_a_vector(f):
    check_jvp_writes(f, X)


@pytest.mark.parametrize("f", [W.item_2d, W.swap_rows, W.write_row_loop, W.transposed_write,
                               W.reshaped_and_swapped], ids=lambda f: f.__name__)
def test_jvp_of_writes_into_a_matrix(f):
    check_jvp_writes(f, M)


@pytest.mark.parametrize("f, args", [
    (W.heat, (np.sin(np.linspace(0, 3, 8)), 0.2)),
    (W.heat_double_buffer, (np.sin(np.linspace(0, 3, 8)), 0.2)),
    (W.nonlinear_heat, (np.sin(np.linspace(0, 3, 8)), 0.1)),
    (W.gauss_seidel_matrix, (np.array([[4.0, 1.0, 0.5], [1.0, 5.0, 1.0], [0.5, 1.0, 3.0]]),
                             np.array([1.0, 2.0, -1.0]))),
    (W.aug_time_stepping, (X, np.cos(X))),
    (W.argument_fill, (X, np.cos(X))),
    (W.alias_by_branch, (X, -1.0)), (W.alias_by_branch, (X, 1.0)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_jvp_of_simulations_and_arguments(f, args):
    check_jvp_writes(f, *args)


def test_the_pytorch_scenarios_by_forward_mode():
    a = X.copy()
    _, t = zp.jvp(W.torch_seed_scenario, (a,), (np.ones_like(X),))
    assert t == pytest.approx(np.sum((X + 2) / len(X) * 2))
    np.testing.assert_array_equal(a, X)  # b = a + 2 was written, not a
    a = X.copy()
    _, t = zp.jvp(W.zero_then_use, (a,), (np.ones_like(X),))
    assert t == 0.0
    np.testing.assert_array_equal(a, np.zeros_like(X))  # the caller sees the write


# -- Hessians: forward mode over gradient code that saves and restores what writes destroy ----
HESSIAN_CASES = [W.fill_loop, W.slice_write, W.mask_write_values, W.fancy_repeated,
                 W.aug_fancy_buffered, W.read_before_write, W.recurrence, W.write_in_branch,
                 W.aug_alias, W.torch_seed_scenario, W.write_through_view,
                 W.view_before_loop, views_of_one_base, augmented_views, scatters,
                 outputs_and_copies, time_stepping, while_writes, old_value_read_after_write]


@pytest.mark.parametrize("f", HESSIAN_CASES, ids=lambda f: f.__name__)
def test_hessian_of_writes(f):
    check_hessian_writes(f, X)


@pytest.mark.parametrize("f", [W.swap_rows, W.write_row_loop, W.reshaped_and_swapped],
                         ids=lambda f: f.__name__)
def test_hessian_of_writes_into_a_matrix(f):
    check_hessian_writes(f, M)


# -- refused as reverse mode refuses --------------------------------------------------------
def test_a_list_holding_the_written_array_sees_the_write():
    check_jvp_writes(W.list_holding, X)


def test_read_only_views_raise_numpys_error():
    with pytest.raises(ValueError, match="read-only"):
        zp.jvp(W.diagonal_write, (M.copy(),), (np.ones_like(M),))


def test_arguments_sharing_memory_are_refused():
    a = X.copy()
    with pytest.raises(zp.MutationError, match="shares memory"):
        zp.jvp(W.argument_fill, (a, a[::-1]), (np.ones_like(a), np.ones_like(a)))


def _writes_a_global(x):
    _GLOBAL[0] = x[0]
    return np.sum(_GLOBAL * x)


_GLOBAL = np.zeros(5)


def test_a_global_array_is_not_written():
    with pytest.raises(zp.MutationError, match="not a variable of this function"):
        zp.jvp(_writes_a_global, (X.copy(),), (np.ones_like(X),))


class _Holder:
    def __init__(self, a):
        self.a = a


def _attribute_write(x, h):
    h.a = x * 2.0
    return np.sum(h.a * x)


def test_attribute_writes_are_followed():
    # (forward mode follows attribute writes: tests/calls/test_forward_objects.py)
    h = _Holder(1.0)
    y, t = zp.jvp(_attribute_write, (X.copy(), h), (np.ones_like(X), None))
    assert np.isclose(y, np.sum(2.0 * X * X)) and np.isclose(t, np.sum(4.0 * X))
    assert np.array_equal(h.a, 2.0 * X)  # the caller sees the write


# -- the tangent is updated in place only where nothing else can see it ----------------------
def _source(f, *args):
    return FORWARD.forward_entry(f, (True,) * len(args), (), scalar_kinds(args)).source


def test_a_fill_loop_updates_its_tangent_in_place():
    source = _source(W.fill_loop, X)
    assert "out_dot = _zp_item_tangent(out, i, out_dot, " in source and ", True)" in source


def test_a_tangent_read_after_the_write_is_copied():
    """In read_before_write's gradient the backward reads y as it was before the first write
    (the restores put it back), so forward mode over that code keeps y's tangent: the first
    write's tangent may not be made in place (the Hessian above depends on it).  y as it
    was between the writes is read only for its shape, saved before the second write
    (adjoint.py: fetch_shape), so that write's tangent may be updated in place."""
    grad_fn = _gradient_function(W.read_before_write, X)
    source = FORWARD.forward_entry(grad_fn, (True,), (), scalar_kinds((X,))).source
    calls = [line.strip() for line in source.splitlines()
             if "_zp_item_tangent(" in line and not line.lstrip().startswith("#")]
    assert len(calls) == 2 and calls[0].endswith("(y_1, 0, y_dot, None, False)")


def test_the_callers_tangent_is_never_written():
    t = np.ones_like(X)
    x = X.copy()
    zp.jvp(W.argument_aug, (x,), (t,))
    np.testing.assert_array_equal(t, np.ones_like(X))


def _stencil_vector(x):
    u = np.tanh(x) * 1.0
    for _ in range(2):
        u[1:-1] += 0.3 * (u[2:] - 2 * u[1:-1] + u[:-2]) * u[1:-1]
    return u


def test_forward_jacobian_of_writes_agrees_with_central_differences():
    (J,) = zp.jacobian(_stencil_vector, X.copy(), mode="forward")
    h = 1e-6
    want = np.stack([(_stencil_vector(X + h * e) - _stencil_vector(X - h * e)) / (2 * h)
                     for e in np.eye(len(X))], axis=-1)
    np.testing.assert_allclose(J, want, rtol=1e-6, atol=1e-8)
    (J_reverse,) = zp.jacobian(_stencil_vector, X.copy(), mode="reverse")
    np.testing.assert_allclose(J, J_reverse, rtol=1e-12, atol=1e-14)
