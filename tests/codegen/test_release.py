"""codegen/release.py: generated gradients `del` their locals after the last statement that
reads them, so a gradient's peak memory is what is live, not everything it computed; and a
call's result the adjoint reads only for its shape is saved as its shape outside loops too
(ad/reverse/adjoint.py: fetch_shape), so the forward releases the array itself.  Every
gradient is checked against central differences; the pass never changes what runs, only
when a name lets go of its object."""

import textwrap
import tracemalloc

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.codegen.release import release_dead_locals


def central_differences(f, x, h=1e-6):
    x = np.array(x, dtype=float)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        out[i] = (f(up) - f(down)) / (2 * h)
    return out


def released(text):
    return release_dead_locals(textwrap.dedent(text))


def dels(text):
    return [line.strip() for line in text.splitlines() if line.strip().startswith("del ")]


# -- the pass on text -------------------------------------------------------------------------
def test_a_local_is_released_after_its_last_read():
    out = released("""\
        def f_grad(x):
            a = x * 2
            b = a + 1
            c = b * b
            return c, (b,)
        """)
    assert dels(out) == ["del a"]
    assert out.index("del a") > out.index("b = a + 1") and out.index("del a") < out.index("c = b")


def test_parameters_rebound_names_and_the_returned_are_kept():
    out = released("""\
        def f_grad(x, y):
            a = x * 2
            a = a + y
            b = a * 3
            c = b + 1
            return c, (b,)
        """)
    assert dels(out) == []  # x, y parameters; a bound twice; b, c read by the return


def test_a_name_a_closure_reads_is_kept():
    out = released("""\
        def f_pullback(x):
            a = x * 2
            b = a + 1
            c = b * 3
            def f_back(dy):
                t = dy * a
                u = t * 2
                v = u + 1
                return (v,)
            return c, f_back
        """)
    assert "del a" not in out
    assert dels(out) == ["del b", "del t"]  # the closure's own locals are released too


def test_a_name_read_in_a_loop_is_released_after_the_loop():
    out = released("""\
        def f_grad(x):
            w = x * 2
            s = 0.0
            for i in range(3):
                s = s + w
            r = s * 2
            return r, (s,)
        """)
    assert dels(out) == ["del w"]
    lines = out.splitlines()
    assert lines[lines.index("    del w") - 1].strip() == "s = s + w"


def test_names_in_comprehensions_and_lambdas_are_kept():
    out = released("""\
        def f_grad(x):
            a = x * 2
            b = [a for _ in range(2)]
            c = lambda: a
            d = b[0] + c()
            e = d * 2
            return e, (e,)
        """)
    assert "a" not in " ".join(dels(out)).split()


def test_shapes_flags_and_kept_names_get_no_line_but_pullbacks_do():
    out = release_dead_locals(textwrap.dedent("""\
        def f_grad(x):
            a = x * 2
            a_shape = _zp_array_shape(a)
            dy_1 = _zp_check_scalar(a, None)
            _zp_spills = True
            y, _zp_back = pb(a)
            g = _zp_back(dy_1)
            h = g + a_shape
            k = h * 2 if _zp_spills else h
            return y, (k,)
        """), keep=frozenset({"dy_1"}))
    assert dels(out) == ["del a", "del _zp_back", "del g"]  # (h: only the return follows)


# -- generated gradients ----------------------------------------------------------------------
def elementwise(x):
    return np.sum(np.sin(x) * np.exp(-(x ** 2)) + np.log1p(x * x))


def test_the_forward_releases_what_the_adjoint_reads_only_for_its_shape():
    x = np.linspace(-1.0, 1.0, 7)
    source = zp.grad_source(elementwise, args=(x,))
    assert "_zp_array_shape(" in source and "del " in source
    (g,) = zp.gradient(elementwise, x)
    np.testing.assert_allclose(g, central_differences(elementwise, x), rtol=1e-7, atol=1e-9)


def test_the_peak_memory_of_a_gradient_is_what_is_live():
    x = np.linspace(-1.0, 1.0, 100_000)
    zp.gradient(elementwise, x)
    tracemalloc.start()
    try:
        zp.gradient(elementwise, x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # sin(x), exp(-x**2), x * x kept for the adjoint, the cotangents alive at once and the
    # gradient: 7 arrays of x's size (13 while every local lived to the end)
    assert peak < 8.5 * x.nbytes


def aliases(x):
    y = x * 1.0
    v = y[1:]  # a view of y, read after y's own last use
    w = v * np.sin(y[:-1])
    z = w + v
    return np.sum(z * z)


def layers(W1, W2, x):
    h = np.tanh(x @ W1)
    hb = h + 0.5  # read only for its shape by the adjoint of +
    out = hb @ W2
    return np.sum(np.exp(-out * out))


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def gates(z):
    i = sigmoid(z[:, :3])
    f = sigmoid(z[:, 3:6])
    c = f * np.tanh(z[:, 6:]) + i
    return np.sum(c * c)


@pytest.mark.parametrize("f, shapes", [(aliases, [(6,)]), (layers, [(4, 5), (5, 3), (2, 4)]),
                                       (gates, [(2, 9)])], ids=["views", "layers", "pullbacks"])
def test_released_gradients_are_right(f, shapes):
    rng = np.random.default_rng(len(shapes))
    args = [rng.standard_normal(s) * 0.8 for s in shapes]
    assert "del " in zp.grad_source(f, args=tuple(args))
    grads = zp.gradient(f, *args)
    for k, g in enumerate(grads):
        def partial(a, k=k):
            return f(*args[:k], a, *args[k + 1:])
        np.testing.assert_allclose(g, central_differences(partial, args[k]), rtol=1e-6, atol=1e-8)
    again = zp.gradient(f, *args)  # a second call: nothing released is needed again
    for g, h in zip(grads, again):
        np.testing.assert_array_equal(g, h)


def test_a_released_gradient_can_be_differentiated_again():
    """The text with `del` lines is Python the compiler accepts: reverse mode over the
    gradient of `gates` (the frontend unbinds a deleted local)."""
    from zygote_py.compiler import COMPILER

    grad_gates = COMPILER.entry(gates, (True,), "grad").fn
    assert "del " in grad_gates._zp_source
    x = np.random.default_rng(3).standard_normal((2, 9)) * 0.7
    w = np.random.default_rng(4).standard_normal((2, 9))

    def directional(z):
        return np.sum(grad_gates(z)[1][0] * w)

    (reverse,) = zp.gradient(directional, x)
    np.testing.assert_allclose(reverse, central_differences(directional, x), rtol=1e-6, atol=1e-8)
