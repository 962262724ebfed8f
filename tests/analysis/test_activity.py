"""Activity analysis reads which attributes carry no derivative from the rule
registry (rules/nondiff.py), the one source of those facts (review A3(a))."""

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp
from zygote_py.analysis.activity import attribute_is_nondifferentiable, varied_values
from zygote_py.compiler import COMPILER
from zygote_py.rules import registry


def sum_of_squares_plus_imag(x):
    return np.sum(x * x) + np.sum(x.imag)


def shape_scaled(x):
    return np.sum(x * x) * x.shape[0] + x.ndim


@pytest.mark.parametrize("name", ["shape", "ndim", "dtype", "size", "strides", "flags"])
def test_nondifferentiable_attributes_come_from_the_registry(name):
    assert registry.attr_is_nondifferentiable(np.ndarray, name)
    assert attribute_is_nondifferentiable(name)


@pytest.mark.parametrize("name", ["T", "imag", "real"])  # .imag of a complex array varies
def test_attribute_with_a_rule_is_differentiable(name):
    assert registry.attr_rule(np.ndarray, name) is not None
    assert not attribute_is_nondifferentiable(name)


def test_shape_of_an_active_array_is_not_varied():
    ir = COMPILER.fresh_ir(shape_scaled)
    varied = varied_values(ir, [True])
    shape = [op for op in ir.body.ops if op.opcode == "getattr" and op.attrs["name"] == "shape"]
    assert len(shape) == 1 and shape[0].result.id not in varied


@pytest.mark.parametrize("f", [sum_of_squares_plus_imag, shape_scaled], ids=lambda f: f.__name__)
def test_gradient_through_nondifferentiable_attributes(f):
    x = np.array([1.0, 2.0, -0.5])
    (got,) = zp.gradient(f, x)
    assert_gradient_matches(got, numerical_gradient(f, (x,))[0], x, "x")


def test_review_a3a_gives_two_x():
    x = np.array([1.0, 2.0])
    (got,) = zp.gradient(sum_of_squares_plus_imag, x)
    np.testing.assert_allclose(got, 2 * x, rtol=1e-12)


W_PARAM = np.array([0.5, -1.5, 2.0])


class ReadsGlobal:
    """A method named like a non-differentiable ndarray method, reading a global."""

    def argmax(self, x):
        return np.sum(W_PARAM * W_PARAM * x)


READER = ReadsGlobal()


def calls_reader(x):
    return READER.argmax(x)


def test_method_named_like_a_nondifferentiable_one_reads_implicit_parameters():
    x = np.array([1.0, 2.0, 3.0])
    grads = zp.gradient(lambda: calls_reader(x), zp.params(W_PARAM))
    np.testing.assert_allclose(grads[W_PARAM], 2 * W_PARAM * x, rtol=1e-12)

    def with_w(w):
        return float(np.sum(w * w * x))
    fd = numerical_gradient(with_w, (W_PARAM.copy(),))[0]
    np.testing.assert_allclose(grads[W_PARAM], fd, rtol=1e-6, atol=1e-8)
