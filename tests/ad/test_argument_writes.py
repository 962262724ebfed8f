"""Functions that write into the arrays they are passed, called from differentiated code
(docs/mutation.md, "Writes inside called functions"): the caller, and every alias of its
array, sees the write, and the gradient matches central differences (frontend/lower_writes.py:
argument_writing_call, ad/reverse/writes.py, runtime/writes.py: ArgumentWrites)."""

import types

import numpy as np
import pytest
from write_checks import check_hessian_writes, check_jvp_writes, check_writes

import zygote_py as zp
from zygote_py.aot.module import standalone_module
from zygote_py.compiler import COMPILER
from zygote_py.ir.printer import format_function

rng = np.random.default_rng(13)
X = rng.normal(size=6)


# -- the forms --------------------------------------------------------------------------------
def heat_step(u, c):
    u[1:-1] += c * (u[2:] - 2 * u[1:-1] + u[:-2])


def heat(x, c):
    u = np.tanh(x)
    for _ in range(4):
        heat_step(u, c)
    return np.sum(u * u * x)


def scale_first(a, s):
    a[0] = a[0] * s
    a[1:] += np.sin(a[:-1])


def scale_all(a, s):
    scale_first(a, s)  # a helper calling a helper that writes
    a *= 2.0


def nested_helpers(x, s):
    y = x + 0.0
    scale_all(y, s)
    return np.sum(y ** 2)


def smooth(u, n):
    total = 0.0
    for _ in range(n):  # writes in a loop of the callee, which also returns a value
        u[1:-1] = 0.5 * u[1:-1] + 0.25 * (u[2:] + u[:-2])
        total = total + np.sum(u * u)
    return total


def returns_a_value(x):
    u = np.tanh(x)
    t = smooth(u, 3)
    return t * np.sum(u * x)


def scale(v, s):
    v *= s


def views_passed(x, s):
    u = x * 1.0
    scale(u[1:4], s)  # a basic slice
    w = u.reshape(2, 3)
    scale(w[:, 0], s)  # a column of a reshape view
    return np.sum(u * np.cos(u))


def aliases_see_the_write(x):
    u = x * 1.0
    z = u
    v = u[2:]
    scale(u, 3.0)
    return np.sum(z * v[0]) + np.sum(v)


def reset(a):
    a[:] = 0.0


def reset_after_a_read(x, w):
    m = w * 1.0
    y = x * m  # its adjoint reads m as it was: the helper's write is undone first
    reset(m)
    return np.sum(y * y) + np.sum(m)


def reset_an_argument(x, w):
    y = np.sum(x * w)
    reset(w)
    return y + np.sum(w * x)


def multiply_down(u, n):
    if n == 0:
        return 0.0
    u[n - 1] = u[n - 1] * u[n]
    return multiply_down(u, n - 1) + u[0]


def recursion(x):
    u = x + 1.0
    r = multiply_down(u, 4)
    return r + np.sum(u * u)


def fill(out, x):
    out[:] = np.exp(x)


def fill_helper(x):
    out = np.zeros_like(x)
    fill(out, x)
    return np.sum(out * x)


def add_square(u, dt=0.1):
    u += dt * u ** 2


def keywords(x):
    u = x.copy()
    add_square(dt=0.2, u=u)
    add_square(u)
    return np.sum(u)


def add_into(a, b):
    a += b
    b *= 0.5


def two_arrays_written(x, y):
    a = x * 1.0
    b = y * 2.0
    for _ in range(2):
        add_into(a, b)
    return np.sum(a * b) + np.sum(a)


def add_to_number(s, v):
    s += v  # a number is rebound, as in Python: the caller's number is unchanged
    return s


def number_argument(x):
    t = 1.5
    r = add_to_number(t, np.sum(x))
    return r * t


def write_inside_branch(u, flag):
    if flag:
        u[0] = u[1] * u[2]
    else:
        u[-1] = 0.0


def branches(x):
    u = x * 1.0
    write_inside_branch(u, True)
    write_inside_branch(u, False)
    return np.sum(u ** 3)


def ping(u, n):  # mutual recursion: ping writes only through pong
    if n <= 0:
        return 0.0
    return pong(u, n - 1) + u[0]


def pong(u, n):
    u[n] = u[n] * u[n + 1] + 0.5
    return ping(u, n)


def mutual_recursion(x):
    u = x * 1.0
    r = ping(u, 4)
    return r * np.sum(u * x)


def square_up(u, n):
    if n > 0:
        square_up(u, n - 1)  # the recursive call's writes come first
        u[n] += u[n - 1] ** 2


def writes_after_recursing(x):
    u = x * 1.0
    square_up(u, 5)
    return np.sum(u * u)


def write_and_view(u):
    u[0] = u[1] * u[2]
    return u[1:4]  # a view of the array written: the caller's later writes reach it


def view_returned(x):
    u = x * 1.0
    r = write_and_view(u)
    u[2] = 7.0 * x[0]
    return np.sum(r * r) + np.sum(u * x)


def sine_until(u, n):
    i = 0
    while i < n:
        u[i] = np.sin(u[i + 1])
        if u[i] > 0.5:
            return i  # an early return from a loop that writes
        i += 1
    return -1


def while_and_early_return(x):
    u = x * 1.0
    k = sine_until(u, 4)
    return np.sum(u * u) * (k + 2)


ARGUMENT_WRITE_CASES = [
    (heat, (X, 0.2)), (nested_helpers, (X, 1.3)), (returns_a_value, (X,)),
    (views_passed, (X, 1.7)), (aliases_see_the_write, (X,)),
    (reset_after_a_read, (X, X[::-1].copy())), (reset_an_argument, (X, X[::-1].copy())),
    (recursion, (np.linspace(0.5, 1.0, 5),)), (fill_helper, (X,)), (keywords, (X,)),
    (two_arrays_written, (X, np.cos(X))), (number_argument, (X,)), (branches, (X,)),
    (mutual_recursion, (X,)), (writes_after_recursing, (X,)), (view_returned, (X,)),
    (while_and_early_return, (X,)),
]


@pytest.mark.parametrize("f, args", ARGUMENT_WRITE_CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_gradient_matches_central_differences(f, args):
    check_writes(f, *args)


@pytest.mark.parametrize("f, args", ARGUMENT_WRITE_CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_forward_mode_matches_central_differences(f, args):
    """zp.jvp runs the callee's threaded variant forward: the caller's arrays take the
    tangents the callee's writes leave in them (runtime/forward_writes.py)."""
    check_jvp_writes(f, *args)


def test_the_callers_array_is_written_as_by_a_plain_call():
    w = np.cos(X)
    zp.gradient(reset_an_argument, X.copy(), w)
    np.testing.assert_array_equal(w, np.zeros_like(X))


def test_a_pullback_runs_twice():
    y, back = zp.pullback(nested_helpers, X.copy(), 1.3)
    first, second = back(1.0), back(1.0)
    np.testing.assert_array_equal(first[0], second[0])
    assert first[1] == second[1]


def test_implicit_params():
    W = np.cos(X)

    def loss():
        u = W * 1.0
        heat_step(u, 0.3)
        return np.sum(u * u)

    grads = zp.gradient(loss, zp.params(W))
    h = 1e-6
    want = np.zeros_like(W)
    for i in range(len(W)):
        W[i] += h
        up = loss()
        W[i] -= 2 * h
        down = loss()
        W[i] += h
        want[i] = (up - down) / (2 * h)
    np.testing.assert_allclose(grads[W], want, rtol=1e-6, atol=1e-8)


def heat_of_fixed_step(x):
    """A call of a function (heat) whose gradient keeps its callee's back functions on a
    tape, which forward mode over that gradient reads (list() of functions)."""
    return heat(x, 0.2)


@pytest.mark.parametrize("f", [fill_helper, keywords, branches, view_returned,
                               heat_of_fixed_step],
                         ids=lambda f: f.__name__)
def test_hessian_matches_central_differences(f):
    """Forward mode over the gradient, which calls the callees' threaded pullbacks."""
    check_hessian_writes(f, X)


def test_forward_mode_follows_a_write_without_tangents():
    w = np.cos(X)
    y, t = zp.jvp(lambda x: reset_after_a_read(x, w.copy()), (X.copy(),), (np.ones_like(X),))
    h = 1e-6
    want = (reset_after_a_read(X + h, w.copy()) - reset_after_a_read(X - h, w.copy())) / (2 * h)
    assert t == pytest.approx(want, rel=1e-6)


def test_the_ir_shows_the_call_and_the_new_array():
    text = format_function(COMPILER.lowered_ir(heat))
    assert "call heat_step_writing(" in text and "unpack" in text


# -- a scaled-down fluid simulation (autograd's fluidsim example: project writes vx, vy) -----
def project(vx, vy, iterations):
    """Make the velocity field divergence-free, in place (as autograd's example writes it)."""
    h = 1.0 / vx.shape[0]
    div = -0.5 * h * (np.roll(vx, -1, axis=0) - np.roll(vx, 1, axis=0)
                      + np.roll(vy, -1, axis=1) - np.roll(vy, 1, axis=1))
    p = np.zeros(vx.shape)
    for _ in range(iterations):
        p = (div + np.roll(p, 1, axis=0) + np.roll(p, -1, axis=0)
             + np.roll(p, 1, axis=1) + np.roll(p, -1, axis=1)) / 4.0
    vx -= 0.5 * (np.roll(p, -1, axis=0) - np.roll(p, 1, axis=0)) / h
    vy -= 0.5 * (np.roll(p, -1, axis=1) - np.roll(p, 1, axis=1)) / h
    return vx, vy  # the arrays it wrote into, as autograd's example returns them


def advect(f, vx, vy):
    """Move f along the velocity field: bilinear interpolation at the departure points."""
    rows, cols = f.shape
    cell_ys, cell_xs = np.meshgrid(np.arange(rows), np.arange(cols))
    center_xs = (cell_xs - vx).ravel()
    center_ys = (cell_ys - vy).ravel()
    left = np.floor(center_xs).astype(int)
    top = np.floor(center_ys).astype(int)
    rw = center_xs - left
    bw = center_ys - top
    left = np.mod(left, rows)
    right = np.mod(left + 1, rows)
    top = np.mod(top, cols)
    bottom = np.mod(top + 1, cols)
    flat = (1 - rw) * ((1 - bw) * f[left, top] + bw * f[left, bottom]) \
        + rw * ((1 - bw) * f[right, top] + bw * f[right, bottom])
    return np.reshape(flat, (rows, cols))


def simulate(vx, vy, smoke):
    for _ in range(2):
        vx_updated = advect(vx, vx, vy)
        vy_updated = advect(vy, vx, vy)
        vx, vy = project(vx_updated, vy_updated, 4)  # autograd's fluidsim loop
        smoke = advect(smoke, vx, vy)
    return np.sum((smoke - 0.3) ** 2)


def simulate_reading_the_old_names(vx, vy, smoke):
    for _ in range(2):
        vx_new = advect(vx, vx, vy)
        vy_new = advect(vy, vx, vy)
        project(vx_new, vy_new, 3)  # its result unused: the names see the write
        smoke = advect(smoke, vx_new, vy_new) + 0.1 * vx_new
        vx, vy = vx_new, vy_new
    return np.sum((smoke - 0.3) ** 2)


def test_fluid_simulation_projected_in_place():
    n = 5
    vx = 0.3 * np.sin(np.linspace(0.1, 2.0, n * n)).reshape(n, n)
    vy = 0.2 * np.cos(np.linspace(0.3, 1.7, n * n)).reshape(n, n)
    smoke = np.outer(np.linspace(0.0, 1.0, n), np.linspace(1.0, 0.2, n))
    check_writes(simulate, vx, vy, smoke, atol=1e-6)
    check_writes(simulate_reading_the_old_names, vx, vy, smoke, atol=1e-6)


SMOKE0 = np.outer(np.linspace(0.0, 1.0, 5), np.linspace(1.0, 0.2, 5))


def simulate_smoke(vx, vy, smoke, steps):
    """autograd's fluidsim `simulate`: returns the smoke, advected from what was passed."""
    for _ in range(steps):
        vx_updated = advect(vx, vx, vy)
        vy_updated = advect(vy, vx, vy)
        vx, vy = project(vx_updated, vy_updated, 4)
        smoke = advect(smoke, vx, vy)
    return smoke


def smoke_objective(params):
    """autograd's fluidsim objective: the initial smoke is a module global, and project
    writes into what advect returned; advect's result is fresh (its result-alias summary,
    frontend/result_aliases.py), so neither the global nor the arguments are written."""
    vx = np.reshape(params[:25], (5, 5))
    vy = np.reshape(params[25:], (5, 5))
    return np.mean((simulate_smoke(vx, vy, SMOKE0, 2) - 0.5) ** 2)


def test_fluid_simulation_from_a_global_smoke_field():
    params = 0.3 + 0.05 * np.sin(np.arange(50.0))
    before = SMOKE0.copy()
    check_writes(smoke_objective, params, atol=1e-7)
    np.testing.assert_array_equal(SMOKE0, before)
    # advect allocates its result; simulate_smoke returns (what advect made of) its smoke
    assert COMPILER.lowered_ir(advect).meta["result_aliases"] == frozenset()
    assert COMPILER.lowered_ir(simulate_smoke).meta["result_aliases"] == frozenset({2})
    assert not COMPILER.lowered_ir(simulate_smoke).meta["param_writes"]


# -- refused, never a wrong number -------------------------------------------------------------
class Relaxer:
    def relax(self, v):
        v[1:] += 0.5 * v[:-1]


def method_writes_its_argument(x):
    u = x * 1.0
    Relaxer().relax(u)  # resolved while running: its writes cannot be followed
    return np.sum(u * u)


def test_a_method_writing_into_its_argument_is_refused():
    with pytest.raises(zp.MutationError, match="writes into an array passed to it"):
        zp.gradient(method_writes_its_argument, X.copy())


def spread_call(x):
    u = x * 1.0
    args = (u, 2.0)
    scale(*args)
    return np.sum(u)


def test_star_arguments_to_a_writing_function_are_refused():
    with pytest.raises(zp.MutationError, match=r"\*args or \*\*kwargs"):
        zp.gradient(spread_call, X.copy())


def writes_default(x, out=np.zeros(6)):
    out[:] = x
    return out


def default_written(x):
    return np.sum(writes_default(x) ** 2)


def test_writing_into_a_default_value_is_refused():
    with pytest.raises(zp.MutationError, match="default value"):
        zp.gradient(default_written, X.copy())


def same_array_twice(x):
    u = x * 1.0
    add_into(u, u)
    return np.sum(u)


def test_the_same_array_for_two_written_parameters_is_refused():
    with pytest.raises(zp.MutationError, match="shares memory"):
        zp.gradient(same_array_twice, X.copy())


G = np.ones(6)


def writes_a_global(x):
    scale(G, 2.0)
    return np.sum(x * G)


def test_passing_a_global_to_a_writing_function_is_refused():
    with pytest.raises(zp.MutationError, match="module global"):
        zp.gradient(writes_a_global, X.copy())


def _scaler(factor):
    def scale_by(u):
        u *= factor
    return scale_by


W = np.linspace(0.5, 1.0, 6)
scale_by_w = _scaler(W)


def test_a_closure_writing_its_argument_in_a_params_gradient_is_refused():
    def loss():
        u = W * 2.0
        scale_by_w(u)
        return np.sum(u)

    with pytest.raises(zp.MutationError, match="is a closure"):
        zp.gradient(loss, zp.params(W))


def doubles_first(u, *rest):
    u *= 2.0


def star_parameters(x):
    u = x * 1.0
    doubles_first(u, 1)
    return np.sum(u)


def test_a_writing_function_with_star_parameters_is_refused():
    with pytest.raises(zp.MutationError, match=r"takes \*args or \*\*kwargs"):
        zp.gradient(star_parameters, X.copy())


def writes_under_no_grad(x):
    u = x * 1.0
    with zp.no_grad():
        heat_step(u, 0.2)
    return np.sum(u * x)


def test_a_writing_call_under_no_grad_is_refused_as_an_inline_write_is():
    with pytest.raises(zp.MutationError, match="no_grad"):
        zp.gradient(writes_under_no_grad, X.copy())


@pytest.mark.parametrize("f, args", [(heat, (X, 0.2)), (recursion, (np.linspace(0.5, 1.0, 5),)),
                                     (nested_helpers, (X, 1.3))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_standalone_module_agrees(f, args):
    module = types.ModuleType(f.__name__ + "_grad")
    exec(compile(standalone_module(f, args=args), f"<{f.__name__}>", "exec"), module.__dict__)
    got = getattr(module, "grad_" + f.__name__)(*[np.copy(a) for a in args])
    want = zp.gradient(f, *[np.copy(a) for a in args])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


V = np.linspace(0.5, 1.5, 4)


def scale_by_v(u):
    u *= V  # reads a parameter (a module global) while writing into its argument
    u[0] += np.sum(V)


def params_read_inside_the_writing_function():
    u = np.ones(4) * 2.0  # no derivative reaches the call through its arguments
    scale_by_v(u)
    scale_by_v(u)
    return np.sum(u * u)


def test_params_read_inside_a_writing_function():
    grads = zp.gradient(params_read_inside_the_writing_function, zp.params(V))
    h = 1e-6
    want = np.zeros_like(V)
    for i in range(len(V)):
        V[i] += h
        up = params_read_inside_the_writing_function()
        V[i] -= 2 * h
        down = params_read_inside_the_writing_function()
        V[i] += h
        want[i] = (up - down) / (2 * h)
    np.testing.assert_allclose(grads[V], want, rtol=1e-6)
