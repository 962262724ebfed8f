"""Item writes in gradients that run: one call saves and writes (`save_and_write`), one undoes
the write and gives the value its cotangent (`undo_write`), ad/reverse/writes.py.  The common
case saves only the overwritten part; every other case keeps the value's shape next to it
(`Overwritten`) and takes the general path.  Each case here is checked against central
differences, and the run-time choice between the two is checked on the objects themselves."""

import re

import numpy as np
import pytest
from write_checks import check_hessian_writes, check_writes

import zygote_py as zp
from zygote_py.runtime import writes

rng = np.random.default_rng(3)
X = rng.normal(size=6)
M = rng.normal(size=(3, 4))


# -- the generated code ---------------------------------------------------------------------
def fill(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sin(x[i]) * x[i]
    return (out * out).sum()


def heat(u0, c):
    u = u0.copy()
    for _ in range(20):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return (u * u).sum()


def fill_into_copy(x):
    out = x.copy()  # not provably a float vector: the fused calls
    for i in range(len(x)):
        out[i] = np.sin(x[i]) * x[i]
    return (out * out).sum()


def test_a_write_is_one_call_each_way():
    text = zp.grad_source(fill_into_copy, args=(X,))
    assert text.count("_zp_save_and_write(") == 1
    # the pair is unpacked where it is made: no variable keeps out_bar alive (which would
    # make the next write copy it instead of zeroing its element in place)
    assert text.count(", out_bar = _zp_undo_write_split(out_bar, ") == 1
    for gone in ("_zp_saved_region", "_zp_written_like", "_zp_write_item",
                 "_zp_written_value_cotangent", "_zp_restore_region", "_zp_overwritten_cotangent"):
        assert gone not in text
    check_writes(fill_into_copy, X)


def test_heat_equation():
    u0 = np.sin(np.linspace(0.0, 3.0, 9))
    check_writes(heat, u0, 0.2)


def test_a_gradient_for_forward_mode_keeps_the_separate_calls():
    # zp.hessian runs forward mode over the gradient, which knows the separate helpers
    def f(x):
        y = np.zeros(4)
        y[1:3] = x[:2] * x[1:3]
        y[0] = x[3] ** 3
        return (y * y).sum()

    check_hessian_writes(f, X[:4].copy())


# -- the cases the value's cotangent needs its shape for (Overwritten), and the plain ones ---
def broadcast_into_slice(x):
    y = x * 1.5
    y[1:4] = x[0] * x[5]  # one number into three elements: its cotangent is their sum
    return (y * y).sum()


def repeated_indices(x):
    y = np.zeros(4)
    y[[0, 2, 0]] = x[:3] * 2.0  # NumPy's last write wins: x[0] gets nothing
    return (y * np.arange(1.0, 5.0)).sum()


def tuple_index(m):
    a = np.ones((3, 4))
    for i in range(3):
        a[i, i + 1] = m[i, i] * m[i, 0]
    return (a * m).sum()


def row_write(m):
    a = np.zeros((3, 4))
    for i in range(3):
        a[i] = np.tanh(m[i]) * m[(i + 1) % 3]
    return (a * a).sum()


def row_broadcast(m):
    a = m * 2.0
    a[1] = m[0, 0]  # a number into a row
    return (a * m).sum()


def integer_array(x):
    k = np.arange(5)
    k[1] = x[0] * 10.0  # a float into an int array: rounded, no derivative
    return (k * x[:5]).sum()


def mask_write(x):
    y = np.cos(x)
    y[x > 0] = x[x > 0] ** 2
    return (y * y).sum()


def augmented_item(x):
    y = x * 1.0
    for i in range(len(x)):
        y[i] += x[(i + 1) % len(x)] * y[i]
    return (y * y).sum()


def augmented_slice(x):
    y = np.ones(6)
    y[1:4] *= x[2:5]
    y[::2] -= x[0]
    return (y * x).sum()


def whole_writes(x):
    buf = np.zeros(6)
    np.multiply(x, x, out=buf)
    buf.fill(x[0])
    np.copyto(buf, np.sin(x) * buf)
    np.exp(buf, out=buf)
    return (buf * x).sum()


def negative_step(x):
    y = np.zeros(6)
    y[::-2] = x[:3] * x[3:]
    return (y * y).sum()


@pytest.mark.parametrize("f, args", [
    (broadcast_into_slice, (X,)), (repeated_indices, (X,)), (tuple_index, (M,)),
    (row_write, (M,)), (row_broadcast, (M,)), (integer_array, (X,)), (mask_write, (X,)),
    (augmented_item, (X,)), (augmented_slice, (X,)), (negative_step, (X,)),
    (whole_writes, (X,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_write_forms(f, args):
    assert "_zp_save_and_write" in zp.grad_source(f, args=args)
    check_writes(f, *args)


def test_a_pullback_run_twice():
    x = X.copy()
    y, back = zp.pullback(fill, x)
    first, second = back(1.0), back(1.0)
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_allclose(first[0], zp.gradient(fill, x)[0], rtol=1e-12)
    assert y == fill(x)


# -- the run-time choice --------------------------------------------------------------------
@pytest.mark.parametrize("array, index, value, plain", [
    (np.zeros(5), 2, 1.5, True),                       # one element
    (np.zeros(5), slice(1, 3), np.ones(2), True),      # a region of the value's shape
    (np.zeros((3, 2)), 1, np.ones(2), True),           # a row (saved as a copy)
    (np.zeros((2, 2)), Ellipsis, np.ones((2, 2)), True),  # all of it (a.fill, out=, ...)
    (np.zeros((2, 2)), Ellipsis, 1.5, False),          # a number into all of it
    (np.zeros(5), slice(1, 3), 1.5, False),            # a number broadcast into a region
    (np.zeros(5), slice(1, 3), np.ones(1), False),     # an array broadcast into a region
    (np.zeros((3, 2)), (1, 0), 1.5, False),            # a tuple index: the general path
    (np.zeros(5), [0, 0], np.ones(2), False),          # integer indices (may repeat)
    (np.zeros(5), np.array([True, False] * 2 + [True]), np.ones(3), False),  # a mask
    (np.zeros(5, dtype=int), 1, 2.5, False),           # a float into an int array
])
def test_what_the_forward_saves(array, index, value, plain):
    before = array.copy()
    log = {}
    saved = writes.save_and_write(array, index, value, None, log)
    expected = before.copy()
    expected[index] = value
    np.testing.assert_array_equal(array, expected)
    assert log == {id(array): array}
    assert (type(saved) is not writes.Overwritten) == plain
    old = saved.old if type(saved) is writes.Overwritten else saved
    np.testing.assert_array_equal(old, before[index])
    g = np.arange(1.0, array.size + 1).reshape(array.shape)
    like = writes.written_like(value, {})
    reference = writes.written_value_cotangent(g, index, like, expected)
    rest = writes.overwritten_cotangent(g.copy(), index)
    if array.dtype.kind == "f":
        split = writes.undo_write_split(g.copy(), index, array, saved, True)
        np.testing.assert_array_equal(array, before)  # the write is undone
        np.testing.assert_array_equal(split[0], reference)
        np.testing.assert_array_equal(split[1], rest)
        array[index] = value
    part = writes.undo_write(g, index, array, saved)
    np.testing.assert_array_equal(array, before)  # the write is undone
    np.testing.assert_array_equal(part, reference)


def test_the_saved_row_is_a_copy():
    a = np.arange(6.0).reshape(3, 2)
    saved = writes.save_and_write(a, 1, np.array([10.0, 20.0]), None, {})
    np.testing.assert_array_equal(saved, [2.0, 3.0])  # not a view of what was written


def test_lists_and_dicts_take_the_general_helpers():
    xs, log = [1.0, 2.0], {}
    saved = writes.save_and_write(xs, 1, 5.0, None, log)
    assert xs == [1.0, 5.0] and saved == 2.0 and log == {id(xs): xs}
    assert writes.undo_write([0.5, 0.25], 1, xs, saved) == 0.25 and xs == [1.0, 2.0]
    d = {"a": 1.0}
    saved = writes.save_and_write(d, "b", 3.0, None, {})
    assert writes.undo_write({"b": 7.0}, "b", d, saved) == 7.0 and d == {"a": 1.0}


def test_an_augmented_write_checks_numpy_casting():
    k = np.arange(3)
    with pytest.raises(TypeError, match="same_kind"):
        writes.save_and_write_augmented(k, 0, 0.5, None, {})
    assert list(k) == [0, 1, 2]


# -- alias safety is unchanged: the checks around the write still run -----------------------
def argument_written(a):
    a[:] = 0.0
    return (a * a).mean()


def view_of_argument_written(a, x):
    v = a[1:]
    v[0] = x * 3.0
    return (a * a).sum() + (v * x).sum()


def view_of_fresh_array_written(x):
    y = x * 2.0
    v = y[1:4]
    for i in range(3):
        v[i] = np.sin(x[i])
    return (y * y).sum() + (v * x[:3]).sum()


def reshaped_view_written(m):
    a = m * 1.0
    flat = a.reshape(-1)
    flat[::5] = flat[::5] ** 2
    return (a * m).sum()


@pytest.mark.parametrize("f, args", [
    (argument_written, (X,)), (view_of_argument_written, (X, 0.7)),
    (view_of_fresh_array_written, (X,)), (reshaped_view_written, (M,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_aliases_still_followed(f, args):
    check_writes(f, *args)


def test_argument_written_has_gradient_zero():
    a = X.copy()
    (g,) = zp.gradient(argument_written, a)
    np.testing.assert_array_equal(g, np.zeros_like(X))
    np.testing.assert_array_equal(a, np.zeros_like(X))  # the caller sees the write


def test_two_arguments_sharing_memory_still_refused():
    def f(a, b):
        a[0] = b[1] * 2.0
        return (a * b).sum()

    base = X.copy()
    with pytest.raises(zp.MutationError):
        zp.gradient(f, base[:3], base[1:4])


def test_a_cotangent_only_one_variable_holds_is_zeroed_in_place():
    g = np.ones(4)
    out = writes.overwritten_cotangent(g, 2)  # (g: the caller's one variable)
    assert out is g
    np.testing.assert_array_equal(g, [1.0, 1.0, 0.0, 1.0])
    view = g[1:]
    out = writes.overwritten_cotangent(view, 0)  # a view: its base holds the memory
    assert out is not view and view[0] == 1.0
    h = np.ones(3)
    part, rest = writes.undo_write_split(h, 1, np.zeros(3), 0.0, True)
    assert rest is h and part == 1.0 and list(h) == [1.0, 0.0, 1.0]
    held = [h]  # another reference: a copy is zeroed
    part, rest = writes.undo_write_split(h, 0, np.zeros(3), 0.0, False)
    assert rest is not h and part is None and list(held[0]) == [1.0, 0.0, 1.0]


# -- the write the forward makes inline: only where the transform proves what the array is ---
def fill_shifted(x):
    out = np.ones(len(x) + 1)
    for i in range(len(x)):
        out[i + 1] = np.cos(x[i]) * x[i - 1]
    out[0] = x[2]
    return (out * out).sum()


def fill_recurrence(x):
    out = np.ones(len(x) + 1)
    for i in range(len(x)):
        out[i + 1] = np.cos(x[i]) * out[i]  # out[i] may be a view, as far as the lowering knows
    return (out * out).sum()


def fill_two_loops(x):
    out = np.empty(3)
    for i in range(3):
        out[i] = x[i] * x[i + 1]
    for i in range(3):
        out[i] = out[i] * x[0]
    return out.sum()


def fill_argument(x, out):
    for i in range(len(x)):
        out[i] = np.sin(x[i])
    return (out * x).sum()


def fill_copy(x):
    out = x.copy()
    for i in range(len(x)):
        out[i] = out[i] * x[(i + 1) % len(x)]
    return (out * out).sum()


def fill_int_dtype(x):
    out = np.zeros(len(x), dtype=int)
    for i in range(len(x)):
        out[i] = x[i] * 10.0
    return (out * x).sum()


def fill_matrix(m):
    out = np.zeros((3, 4))
    for i in range(3):
        out[i] = m[i] * m[(i + 1) % 3]
    return (out * out).sum()


def fill_like(x):
    out = np.zeros_like(x)
    for i in range(len(x)):
        out[i] = x[i] ** 2
    return (out * x).sum()


def fill_through_a_view(x):
    out = np.zeros(len(x))
    tail = out[1:]
    for i in range(len(x)):
        out[i] = x[i] * 2.0
    return (tail * x[1:]).sum() + (out * out).sum()


def fill_held_in_a_list(x):
    out = np.zeros(len(x))
    held = [out]
    for i in range(len(x)):
        out[i] = x[i] * 3.0
    return (held[0] * x).sum()  # the list holds the written array: it sees the writes


def test_a_container_holding_the_array_sees_the_writes_and_is_not_inline():
    check_writes(fill_held_in_a_list, X)
    assert "_zp_save_and_write(" in zp.grad_source(fill_held_in_a_list, args=(X,))


def fill_or_argument(x, flag):
    out = np.zeros(len(x)) if flag > 0 else x
    for i in range(len(x)):
        out[i] = x[i] * 2.0
    return (out * out).sum()


def fill_indexed_by_array(x):
    out = np.zeros(len(x))
    order = np.arange(len(x))[::-1]
    for k in range(len(x)):
        out[order[k]] = x[k] * x[0]
    return (out * np.arange(len(x))).sum()


def fill_bool_index(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[x[i] > 0] = x[i]
    return (out * x).sum()


@pytest.mark.parametrize("f, args, inline", [
    (fill, (X,), True), (fill_shifted, (X,), True), (fill_recurrence, (X,), False),
    (fill_two_loops, (X,), False),
    (fill_argument, (X, np.zeros(6)), False), (fill_copy, (X,), False),
    (fill_int_dtype, (X,), False), (fill_matrix, (M,), False), (fill_like, (X,), False),
    (fill_through_a_view, (X,), False),
    (fill_or_argument, (X, 1.0), False), (fill_or_argument, (X, -1.0), False),
    (fill_indexed_by_array, (X,), False), (fill_bool_index, (X,), False),
], ids=lambda v: getattr(v, "__name__", None) if callable(v) else None)
def test_inline_write_only_where_proven(f, args, inline):
    text = zp.grad_source(f, args=args)
    assert ("_zp_save_and_write(" not in text) == inline, text
    if inline:
        # the write itself, inline (the overwritten element is saved only where an adjoint
        # reads the array later: tests/ad/test_array_kinds.py)
        assert "_zp_log_written(out, _zp_written)" in text
        assert re.search(r"\n +out(_\d+)?\[[^]]+\] = ", text), text
    check_writes(f, *args, argnums=[0])


@pytest.mark.parametrize("index, value", [(2, 1.5), ((1, 1), 1.5), (slice(0, 2), 1.5),
                                          ([0, 0], np.ones(2))])
def test_the_split_zeroes_a_sole_cotangent_in_place_on_every_path(index, value):
    # plain and Overwritten saves alike: a copy of the whole cotangent per write would make
    # a loop of writes quadratic
    shape = (3, 3) if type(index) is tuple else (5,)
    x = np.zeros(shape)
    saved = writes.save_and_write(x, index, value, None, {})
    g = np.ones(shape)
    part, rest = writes.undo_write_split(g, index, x, saved, True)
    assert rest is g and np.all(g[index] == 0) and not x.any()
