"""The public API surface: types of gradients, pullback, jacobian, differentiable, grad_source."""

import numpy as np
import pytest

import zygote_py as zp


def poly(x, y):
    return x ** 3 * y + np.sin(y)


def vector_out(x):
    return np.array([x[0] * x[1], np.sin(x[0])])


def test_gradient_types_follow_arguments():
    gx, gy = zp.gradient(poly, 2.0, 0.5)
    assert type(gx) is float and type(gy) is float
    assert np.isclose(gx, 3 * 4.0 * 0.5) and np.isclose(gy, 8.0 + np.cos(0.5))
    (g32,) = zp.gradient(lambda a: np.sum(a * a), np.ones(3, dtype=np.float32))
    assert g32.dtype == np.float32 and np.allclose(g32, 2.0)
    assert zp.gradient(lambda x, n: x * n, 2.0, 3) == (3.0, 2.0)  # an int is differentiated as a real


def test_pullback_and_jacobian_of_vector_output():
    x = np.array([0.3, 0.7])
    y, back = zp.pullback(vector_out, x)
    assert np.allclose(y, vector_out(x))
    (j,) = zp.jacobian(vector_out, x)
    expected = np.array([[x[1], x[0]], [np.cos(x[0]), 0.0]])
    assert np.allclose(j, expected)
    assert np.allclose(back(np.array([1.0, 0.0]))[0], expected[0])


def test_nonscalar_output_suggests_jacobian():
    with pytest.raises(zp.NonScalarOutput, match="jacobian"):
        zp.gradient(vector_out, np.array([0.3, 0.7]))


@zp.differentiable
def decorated(x):
    return np.tanh(x) * 2.0


def test_differentiable_decorator():
    assert decorated(0.5) == np.tanh(0.5) * 2.0
    assert np.isclose(decorated.grad(0.5)[0], 2.0 * (1 - np.tanh(0.5) ** 2))
    y, back = decorated.pullback(0.5)
    assert np.isclose(back(1.0)[0], decorated.grad(0.5)[0])
    assert "def decorated_grad(x):" in decorated.source()


def test_grad_source_is_readable_and_quotes_the_user_line():
    text = zp.grad_source(poly, wrt="x")
    assert text.startswith("def poly_grad(x, y):")
    assert "# grad of: return x ** 3 * y + np.sin(y)" in text
    compile(text, "<check>", "exec")


def clipped_square(x):
    return x * x


@zp.adjoint(clipped_square)
def _clipped_square_rule(x):
    return x * x, lambda g: (np.clip(2.0 * x * g, -1.0, 1.0),)


def uses_custom(x):
    return clipped_square(x) + np.sin(x)


def test_custom_adjoint_takes_precedence_over_source():
    (g,) = zp.gradient(uses_custom, 3.0)
    assert np.isclose(g, 1.0 + np.cos(3.0))  # the clipped rule, not 2 * x


@pytest.fixture
def restore_frexp():
    from zygote_py.compiler import COMPILER
    from zygote_py.rules import registry

    yield
    registry._CUSTOM_RULES.pop(np.frexp, None)  # other tests expect frexp to have no rule
    COMPILER.clear()


def test_custom_adjoint_for_a_function_without_rule(restore_frexp):
    @zp.adjoint(np.frexp)
    def frexp_rule(x):
        mantissa, exponent = np.frexp(x)
        return (mantissa, exponent), lambda g: (g[0] / 2.0 ** exponent if g[0] is not None else None,)

    def f(x):
        return np.frexp(x)[0] * 3.0

    (g,) = zp.gradient(f, 3.0)
    assert np.isclose(g, 3.0 / 4.0)


def test_stop_gradient_blocks_the_derivative():
    (g,) = zp.gradient(lambda x: x * zp.stop_gradient(x), 3.0)
    assert g == 3.0
