"""The autograd shim's operators and check_grads, against central finite differences in float64."""

import json

import numpy as np
import pytest

from peers.autograd.shim.autograd import differential_operators as ops
from peers.autograd.shim.autograd import extend, test_util
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
    assert entry["skipped_parts"] == []
    assert entry["parts"] == {name: "pass" for name in
                              ("fwd", "fwd/fwd", "fwd/rev", "rev", "rev/fwd", "rev/rev")}
    assert entry["arg"] == "tuple(f8(2, 3), f8(3,))"


def test_order_three_runs_every_path(tmp_path, monkeypatch):
    log = tmp_path / "checks.jsonl"
    monkeypatch.setenv("ZP_PEER_CHECKS", str(log))
    test_util.check_grads(np.tanh, modes=["rev"], order=3)(np.array([0.3, -0.4]))
    (entry,) = [json.loads(line) for line in log.read_text().splitlines()]
    # third derivatives: checked against central differences of the second
    assert entry["parts"] == {"rev": "pass", "rev/rev": "pass", "rev/rev/rev": "pass"}


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


def test_forward_only_check_runs_the_forward_parts(tmp_path, monkeypatch):
    log = tmp_path / "checks.jsonl"
    monkeypatch.setenv("ZP_PEER_CHECKS", str(log))
    test_util.check_grads(np.sin, modes=["fwd"])(0.3)
    (entry,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert entry["outcome"] == "skipped"  # no first-order reverse part: not in that count
    assert entry["parts"] == {"fwd": "pass", "fwd/fwd": "pass"}


def test_a_wrong_jvp_fails_the_forward_part(monkeypatch):
    def off_by_a_bit(f, primals, tangents):
        y, t = real_jvp(f, primals, tangents)
        return y, t * 1.001

    real_jvp = test_util.zp.jvp
    monkeypatch.setattr(test_util.zp, "jvp", off_by_a_bit)
    with pytest.raises(AssertionError, match=r"\(JVP\) check of sin failed"):
        test_util.check_jvp(np.sin, np.array([0.5, 1.0]))


def test_second_derivative_operators_against_closed_forms():
    x = np.array([0.3, -0.8])

    def fun(x):
        return np.sum(np.sin(x) * x[0])

    # H = d2/dx2 of x0 * sum(sin x)
    H = np.array([[2 * np.cos(x[0]) - x[0] * np.sin(x[0]), np.cos(x[1])],
                  [np.cos(x[1]), -x[0] * np.sin(x[1])]])
    v = np.array([1.0, 0.5])
    np.testing.assert_allclose(ops.hessian(fun)(x), H, rtol=1e-10)
    np.testing.assert_allclose(ops.make_hvp(fun)(x)[0](v), H @ v, rtol=1e-10)
    np.testing.assert_allclose(ops.hessian_tensor_product(fun)(x, v), H @ v, rtol=1e-10)
    d = ops.grad(ops.grad(lambda t: t ** 3 * np.sin(t)))(0.7)
    assert d == pytest.approx(6 * 0.7 * np.sin(0.7) + 6 * 0.49 * np.cos(0.7)
                              - 0.343 * np.sin(0.7), rel=1e-10)
    assert ops.deriv(np.sin)(0.4) == pytest.approx(np.cos(0.4), rel=1e-12)
    jv = ops.make_jvp(lambda z: np.sin(z) * z, 0)(x)(v)[1]
    np.testing.assert_allclose(jv, (np.cos(x) * x + np.sin(x)) * v, rtol=1e-12)
    np.testing.assert_allclose(ops.make_jvp_reversemode(lambda z: np.sin(z) * z)(x)(v), jv,
                               rtol=1e-10)


def test_ggnvp_is_j_transposed_times_hessian_times_j():
    W = np.array([[0.3, -1.0], [0.5, 0.2], [1.5, 0.4]])
    x, v = np.array([0.3, -0.8]), np.array([1.0, 0.5])

    def f(z):
        return np.tanh(W @ z)

    J = (1 - np.tanh(W @ x) ** 2)[:, None] * W
    # g(y) = 0.5 * sum(y**2): its Hessian is the identity
    np.testing.assert_allclose(ops.make_ggnvp(f)(x)(v), J.T @ (J @ v), rtol=1e-10)


def test_an_operator_called_inside_differentiated_code():
    def scaled_sin(y, x):
        return np.sin(x * y)

    def outer(x):
        return x * ops.grad(scaled_sin)(2.0, x)  # x * x cos(2x)

    x = 0.4
    expected = 2 * x * np.cos(2 * x) - 2 * x * x * np.sin(2 * x)
    assert ops.grad(outer)(x) == pytest.approx(expected, rel=1e-10)
    assert ops.deriv(outer)(x) == pytest.approx(expected, rel=1e-10)


def test_an_operator_on_a_closure_over_the_outer_variable():
    def outer(x):
        return x * ops.grad(lambda y: np.sin(x * y))(2.0)  # x * x cos(2x)

    x = 0.4
    expected = 2 * x * np.cos(2 * x) - 2 * x * x * np.sin(2 * x)
    assert ops.grad(outer)(x) == pytest.approx(expected, rel=1e-10)
    assert ops.deriv(outer)(x) == pytest.approx(expected, rel=1e-10)
