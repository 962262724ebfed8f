"""The autograd shim's operators and check_grads, against central finite differences in float64."""

import json

import numpy as np
import pytest

from peers.autograd.shim.autograd import differential_operators as ops
from peers.autograd.shim.autograd import extend, test_util
from peers.autograd.shim.autograd.misc import flatten
from peers.autograd.shim.autograd.wrap_util import bind_argument


@pytest.fixture(autouse=True)
def _fixed_directions():
    """check_grads draws its random directions from NumPy's global generator, as autograd's does."""
    np.random.seed(0)


def central_difference(f, x, h=1e-6):
    x = np.asarray(x, dtype=float)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = h
        grad[i] = (f(x + step) - f(x - step)) / (2 * h)
    return grad


def loss(a, b, scale=1.0):
    return scale * np.sum(np.sin(a) * b ** 2)


A = np.array([[0.3, -1.2, 0.7], [1.1, 0.4, -0.5]])
B = np.array([0.9, -0.6, 1.3])


@pytest.mark.parametrize("argnum", [0, 1])
def test_grad_matches_finite_differences_for_each_argnum(argnum):
    g = ops.grad(loss, argnum)(A, B, scale=2.5)
    args = [A, B]

    def along(x):
        return loss(*[x if i == argnum else a for i, a in enumerate(args)], scale=2.5)

    np.testing.assert_allclose(g, central_difference(along, args[argnum]), rtol=1e-6, atol=1e-8)


def test_value_and_grad_and_tuple_argnum():
    value, (ga, gb) = ops.value_and_grad(loss, (0, 1))(A, B)
    assert value == pytest.approx(loss(A, B))
    np.testing.assert_allclose(ga, central_difference(lambda a: loss(a, B), A), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gb, central_difference(lambda b: loss(A, b), B), rtol=1e-6, atol=1e-8)


def test_elementwise_grad_and_jacobian():
    x = np.array([0.2, -0.7, 1.5])
    np.testing.assert_allclose(ops.elementwise_grad(np.tanh)(x), 1 - np.tanh(x) ** 2, rtol=1e-12)
    jac = ops.jacobian(lambda v: np.outer(v, v).ravel())(x)
    numeric = np.stack([central_difference(lambda v, k=k: np.outer(v, v).ravel()[k], x)
                        for k in range(9)])
    np.testing.assert_allclose(jac, numeric, rtol=1e-6, atol=1e-8)


def test_unused_argument_gets_zeros_not_none():
    g = ops.grad(lambda a, b: np.sum(a * 2.0), 1)(A, B)
    assert isinstance(g, np.ndarray) and g.shape == B.shape and not g.any()


def test_bind_argument_passes_the_constants_and_keywords():
    unary, x = bind_argument(loss, (A, B), {"scale": 3.0}, 1)
    assert x is B
    assert unary(B * 2) == pytest.approx(loss(A, B * 2, scale=3.0))


def test_check_grads_records_a_passing_check(tmp_path, monkeypatch):
    log = tmp_path / "checks.jsonl"
    monkeypatch.setenv("ZP_PEER_CHECKS", str(log))
    test_util.check_grads(loss, (0, 1))(A, B, scale=0.5)
    (entry,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert entry["outcome"] == "pass"
    assert entry["skipped_parts"] == ["fwd", "rev order 2"]
    assert entry["arg"] == "tuple(f8(2, 3), f8(3,))"


def test_check_grads_catches_a_wrong_rule(tmp_path, monkeypatch):
    log = tmp_path / "checks.jsonl"
    monkeypatch.setenv("ZP_PEER_CHECKS", str(log))

    def doubled(x):
        return x * 2.0

    extend.defvjp(extend.primitive(doubled), lambda ans, x: lambda g: g * 2.001)
    with pytest.raises(AssertionError, match=r"\(VJP\) check of doubled failed"):
        test_util.check_grads(doubled, modes=["rev"])(1.0)
    (entry,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert entry["outcome"] == "fail" and entry["exception"]["check_failure"]


def test_a_correct_custom_rule_passes():
    def cube(x):
        return x ** 3

    extend.defvjp(cube, lambda ans, x: lambda g: g * 3 * x ** 2)
    test_util.check_grads(cube, modes=["rev"], order=1)(np.array([0.5, -1.5]))


def test_complex_check_uses_autograds_covector_convention():
    test_util.check_grads(lambda z: z * z * (0.5 - 2j), modes=["rev"], order=1)(0.3 + 0.8j)


def test_complex_convention_accepts_autograds_rule_for_abs_and_rejects_the_unconjugated_one():
    def modulus(z):
        return np.abs(z)

    extend.defvjp(modulus, lambda ans, z: lambda g: g * np.conj(z) / ans)  # autograd's own rule
    test_util.check_grads(modulus, modes=["rev"], order=1)(0.6 + 0.3j)

    def modulus_unconjugated(z):
        return np.abs(z)

    extend.defvjp(modulus_unconjugated, lambda ans, z: lambda g: g * z / ans)  # what zygote_py returned before docs/complex.md
    with pytest.raises(AssertionError, match="VJP"):
        test_util.check_grads(modulus_unconjugated, modes=["rev"], order=1)(0.6 + 0.3j)


def test_forward_only_check_is_skipped():
    with pytest.raises(pytest.skip.Exception, match="forward mode"):
        test_util.check_grads(np.sin, modes=["fwd"])(0.3)


def test_second_derivatives_skip_the_test():
    with pytest.raises(pytest.skip.Exception, match="second derivatives"):
        ops.hessian(loss)


def test_combo_check_runs_every_combination_before_raising(tmp_path, monkeypatch):
    log = tmp_path / "checks.jsonl"
    monkeypatch.setenv("ZP_PEER_CHECKS", str(log))

    def shifted(x):
        return x + 1.0

    extend.defvjp(shifted, lambda ans, x: lambda g: g * 0.0)  # wrong: the derivative is 1
    with pytest.raises(AssertionError):
        test_util.combo_check(shifted, (0,), modes=["rev"])([0.5, 1.5, 2.5])
    outcomes = [json.loads(line)["outcome"] for line in log.read_text().splitlines()]
    assert outcomes == ["fail", "fail", "fail"]


def test_flatten_round_trips_a_nest():
    value = {"b": (np.arange(3.0), 2.0), "a": [np.ones((2, 2))]}
    vector, unflatten = flatten(value)
    assert vector.shape == (8,)
    back = unflatten(vector * 2)
    np.testing.assert_array_equal(back["a"][0], 2 * np.ones((2, 2)))
    np.testing.assert_array_equal(back["b"][0], 2 * np.arange(3.0))
    assert float(back["b"][1]) == 4.0


def test_tensor_jacobian_product_contracts_the_leading_output_dimensions():
    x = np.array([0.4, -0.9, 1.7, 0.2])
    tensor = np.array([[1.0, -2.0, 0.5], [0.3, 0.0, 2.0]])

    def fun(v):
        return np.sin(np.outer(np.arange(1.0, 7.0), v)).reshape(2, 3, 4)

    got = ops.tensor_jacobian_product(fun)(x, tensor)
    numeric = np.stack([central_difference(
        lambda v, j=j: np.tensordot(tensor, fun(v), axes=2)[j], x) for j in range(4)])
    np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-8)
