"""The strong zero for products that sum over an axis (zygote_py/rules/strong_products.py).

A zero cotangent (or tangent) entry contributes exactly 0 to a contraction, also
against an infinite entry of the other operand.  Three levels of checks:

- `strong_contraction` against a brute-force sum of the masked terms, with zeros,
  infinities of both signs and nans placed at random in every factor;
- each product's reverse rule end to end: the product meets a +inf entry of a
  constant operand, tanh saturates there (its derivative is exactly 0), and the
  gradient is compared with central finite differences, which see no dependence
  through the saturated entries (before, those gradients were nan);
- forward mode (zp.jvp) through the same programs, where the entries that meet the
  +inf have a zero tangent (np.where holds them at 1), and the forward rules
  themselves with a zero tangent entry against an infinite operand.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.rules import jvp_common
from zygote_py.rules.strong_products import has_nan, strong_contraction

# ---------------------------------------------------------------------------
# strong_contraction against the masked sum of its terms


def masked_terms_sum(expr: str, g, *factors):
    """The einsum expr of (g, *factors), each term with a zero g entry counted 0, the
    others in IEEE arithmetic: the reference the convention defines."""
    ins, out = expr.split("->")
    specs = ins.split(",")
    letters = "".join(dict.fromkeys("".join(specs)))
    with np.errstate(invalid="ignore", over="ignore"):
        terms = np.einsum(f"{','.join(specs)}->{letters}", g, *factors)
        ones = [np.ones_like(f) for f in factors]
        live = np.einsum(f"{','.join(specs)}->{letters}", (g != 0).astype(float), *ones) > 0
        kept = np.where(live, terms, 0.0)
        summed = tuple(k for k, c in enumerate(letters) if c not in out)
        reduced = np.sum(kept, axis=summed)
    reduced_letters = "".join(c for c in letters if c in out)
    return np.einsum(f"{reduced_letters}->{out}", reduced) if reduced_letters != out else reduced


def sprinkle(rng, shape, specials):
    x = rng.standard_normal(shape)
    flat = x.reshape(-1)
    for value in specials:
        flat[rng.integers(flat.size)] = value
    return x


def assert_same_numbers(actual, expected):
    actual, expected = np.asarray(actual), np.asarray(expected)
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected))
    np.testing.assert_array_equal(np.isposinf(actual), np.isposinf(expected))
    np.testing.assert_array_equal(np.isneginf(actual), np.isneginf(expected))
    finite = np.isfinite(expected)
    np.testing.assert_allclose(actual[finite], expected[finite], rtol=1e-12, atol=1e-12)


EXPRESSIONS = [
    ("ij,kj->ik", [(5, 6), (4, 6)]),  # matmul's cotangent of a: g @ b.T
    ("ij,jk->ik", [(5, 6), (6, 3)]),
    ("i,ij->j", [(7,), (7, 3)]),
    ("ij,jk,k->i", [(4, 5), (5, 3), (3,)]),  # three factors
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 3)]),
]


@pytest.mark.parametrize("expr, shapes", EXPRESSIONS, ids=[e for e, _ in EXPRESSIONS])
@pytest.mark.parametrize("seed", range(6))
def test_strong_contraction_is_the_masked_sum_of_the_terms(expr, shapes, seed):
    rng = np.random.default_rng(seed)
    g_specials = [0.0] * 4 + ([np.inf, -np.inf, np.nan] if seed % 3 == 2 else [])
    g = sprinkle(rng, shapes[0], g_specials)
    factor_specials = [[np.inf, -np.inf, 0.0, np.inf] + ([np.nan] if seed % 2 else [])] + [[0.0, np.inf]] * 3
    factors = [sprinkle(rng, s, specials) for s, specials in zip(shapes[1:], factor_specials)]

    def product(g_, *factors_):
        return np.einsum(expr, g_, *factors_)

    with np.errstate(invalid="ignore", over="ignore"):
        plain = product(g, *factors)
    out = strong_contraction(product, plain, g, *factors)
    assert_same_numbers(out, masked_terms_sum(expr, g, *factors))
    kept = ~np.isnan(plain)
    np.testing.assert_array_equal(np.asarray(out)[kept], plain[kept])  # non-nan entries as computed


def test_a_nan_free_product_is_returned_as_it_is():
    r = np.ones((3, 3))
    assert strong_contraction(None, r, r, r) is r
    assert not has_nan(r) and has_nan(np.array([1.0, np.nan])) and has_nan(float("nan"))
    assert not has_nan(np.array([1, 2])) and not has_nan(np.array([np.nan + 0j]))


def test_strong_contraction_keeps_the_scalar_type():
    g, b = np.array([0.0, 1.0]), np.array([np.inf, 2.0])
    with np.errstate(invalid="ignore"):
        plain = np.float64(g @ b)
    out = strong_contraction(lambda g_, b_: g_ @ b_, plain, g, b)
    assert type(out) is np.float64 and out == 2.0


# ---------------------------------------------------------------------------
# reverse rules end to end: a saturated tanh over a product that meets +inf


def central_differences(f, x, h=1e-6):
    x = np.array(x, dtype=float)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        out[i] = (f(up) - f(down)) / (2 * h)
    return out


def with_inf(shape, *positions):
    """A constant operand: moderate values, +inf at the positions."""
    b = 0.3 + 0.1 * np.arange(int(np.prod(shape)), dtype=float).reshape(shape) % 0.7
    for p in positions:
        b[p] = np.inf
    return b


def held_at_one(shape, index):
    """A mask: np.where(mask, 1.0, x) holds these entries at 1 (no tangent, no cotangent)."""
    mask = np.zeros(shape, dtype=bool)
    mask[index] = True
    return mask


B_MATMUL = with_inf((4, 2), (1, 0))
M_COLUMN_1 = held_at_one((3, 4), (slice(None), 1))
B_LEFT = with_inf((2, 3), (0, 1))
M_ROW_1 = held_at_one((3, 4), (1, slice(None)))
B_VEC = with_inf((4, 2), (1, 0))
M_VEC = held_at_one((4,), 1)
M_BATCH = held_at_one((2, 3, 4), (Ellipsis, 1))
B_DOT_ND = with_inf((2, 4, 5), (0, 1, 0))
B_INNER = with_inf((2, 4), (0, 1))
C_POSITIVE = np.array([0.5, 1.5])
C_MIX = np.array([[1.0, 0.5], [0.5, 1.0]])
B_KRON = with_inf((2,), (1,))
B_TENSOR = with_inf((4, 5, 2), (1, 2, 0))
M_TENSOR = held_at_one((3, 4, 5), (slice(None), 1, 2))


def held(x, mask):
    return np.where(mask, 1.0, x)


# Reverse mode: x meets the +inf itself (x > 0, so the sums are +inf and tanh saturates);
# the cotangent of x there is a sum of 0 * inf terms and finite ones.


def matmul_right(x):
    return np.sum(np.tanh(x @ B_MATMUL))


def matmul_left(x):
    return np.sum(np.tanh(B_LEFT @ x))


def matmul_vector(x):
    return np.sum(np.tanh(x @ B_VEC))


def matmul_batched(x):
    return np.sum(np.tanh(np.matmul(x, B_MATMUL)))


def dot_2d(x):
    return np.sum(np.tanh(np.dot(x, B_MATMUL)))


def dot_nd(x):
    return np.sum(np.tanh(np.dot(x, B_DOT_ND)))


def einsum_two(x):
    return np.sum(np.tanh(np.einsum("ij,jk->ik", x, B_MATMUL)))


def einsum_three(x):
    return np.sum(np.tanh(np.einsum("ij,jk,k->i", x, B_MATMUL, C_POSITIVE)))


def tensordot_one(x):
    return np.sum(np.tanh(np.tensordot(x, B_MATMUL, axes=1)))


def tensordot_two(x):
    return np.sum(np.tanh(np.tensordot(x, B_TENSOR, axes=([1, 2], [0, 1]))))


def inner_nd(x):
    return np.sum(np.tanh(np.inner(x, B_INNER)))


def multi_dot(x):
    return np.sum(np.tanh(np.linalg.multi_dot([x, B_MATMUL, C_MIX]))) + np.sum(x * x)


# Forward mode: the entries of x that meet the +inf are held at 1 (a zero tangent), so
# every tangent term against the +inf is 0 * inf.


def matmul_right_held(x):
    return np.sum(np.tanh(held(x, M_COLUMN_1) @ B_MATMUL))


def matmul_left_held(x):
    return np.sum(np.tanh(B_LEFT @ held(x, M_ROW_1)))


def matmul_vector_held(x):
    return np.sum(np.tanh(held(x, M_VEC) @ B_VEC))


def matmul_batched_held(x):
    return np.sum(np.tanh(np.matmul(held(x, M_BATCH), B_MATMUL)))


def dot_2d_held(x):
    return np.sum(np.tanh(np.dot(held(x, M_COLUMN_1), B_MATMUL)))


def dot_nd_held(x):
    return np.sum(np.tanh(np.dot(held(x, M_BATCH), B_DOT_ND)))


def einsum_two_held(x):
    return np.sum(np.tanh(np.einsum("ij,jk->ik", held(x, M_COLUMN_1), B_MATMUL)))


def einsum_three_held(x):
    return np.sum(np.tanh(np.einsum("ij,jk,k->i", held(x, M_COLUMN_1), B_MATMUL, C_POSITIVE)))


def tensordot_one_held(x):
    return np.sum(np.tanh(np.tensordot(held(x, M_COLUMN_1), B_MATMUL, axes=1)))


def tensordot_two_held(x):
    return np.sum(np.tanh(np.tensordot(held(x, M_TENSOR), B_TENSOR, axes=([1, 2], [0, 1]))))


def inner_nd_held(x):
    return np.sum(np.tanh(np.inner(held(x, M_COLUMN_1), B_INNER)))


def outer(x):
    return np.sum(np.tanh(np.outer(x, B_KRON)))


def kron(x):
    return np.sum(np.tanh(np.kron(x, B_KRON)))


def det_overflow(x):
    a = np.where(held_at_one((2, 2), (0, 0)), np.inf, x)
    return np.tanh(np.linalg.det(a)) + np.sum(x)


def vdot(x):
    return np.tanh(np.vdot(x, B_VEC[:, 0])) + np.sum(x * x)


def vecdot(x):
    return np.sum(np.tanh(np.vecdot(x, B_INNER[0]))) + np.sum(x * x)


REVERSE_CASES = [
    (matmul_right, (3, 4)), (matmul_left, (3, 4)), (matmul_vector, (4,)), (matmul_batched, (2, 3, 4)),
    (dot_2d, (3, 4)), (dot_nd, (2, 3, 4)), (einsum_two, (3, 4)), (einsum_three, (3, 4)),
    (tensordot_one, (3, 4)), (tensordot_two, (3, 4, 5)), (inner_nd, (3, 4)), (multi_dot, (3, 4)),
    (outer, (3,)), (kron, (3,)), (det_overflow, (2, 2)), (vdot, (4,)),
]
if hasattr(np, "vecdot"):
    REVERSE_CASES.append((vecdot, (3, 4)))


def point(shape, seed=1):
    return 0.2 + 0.5 * np.random.default_rng(seed).random(shape)


@pytest.mark.parametrize("f, shape", REVERSE_CASES, ids=[f.__name__ for f, _ in REVERSE_CASES])
def test_a_saturated_entry_over_a_product_contributes_zero(f, shape):
    x = point(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        (grad,) = zp.gradient(f, x)
        expected = central_differences(f, x)
    assert np.all(np.isfinite(grad)), grad
    np.testing.assert_allclose(grad, expected, rtol=1e-5, atol=1e-7)


def matvec(x):
    return np.sum(np.tanh(np.matvec(B_LEFT.T @ np.ones((2, 3)), x))) + np.sum(x * x)


def vecmat(x):
    return np.sum(np.tanh(np.vecmat(x, B_MATMUL[:3]))) + np.sum(x * x)


@pytest.mark.skipif(not hasattr(np, "matvec"), reason="np.matvec and np.vecmat: NumPy 2.2")
@pytest.mark.parametrize("f", [matvec, vecmat])
def test_matvec_and_vecmat_take_the_strong_zero(f):
    x = point((3,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        (grad,) = zp.gradient(f, x)
        expected = central_differences(f, x)
    np.testing.assert_allclose(grad, expected, rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------------------
# forward mode: a zero tangent entry against +inf


FORWARD_CASES = [(matmul_right_held, (3, 4)), (matmul_left_held, (3, 4)), (matmul_vector_held, (4,)),
                 (matmul_batched_held, (2, 3, 4)), (dot_2d_held, (3, 4)), (dot_nd_held, (2, 3, 4)),
                 (einsum_two_held, (3, 4)), (einsum_three_held, (3, 4)), (tensordot_one_held, (3, 4)),
                 (tensordot_two_held, (3, 4, 5)), (inner_nd_held, (3, 4))]


@pytest.mark.parametrize("f, shape", FORWARD_CASES, ids=[f.__name__ for f, _ in FORWARD_CASES])
def test_forward_zero_tangent_against_inf_contributes_zero(f, shape):
    x = point(shape)
    v = np.random.default_rng(2).standard_normal(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _, dy = zp.jvp(f, (x,), (v,))
        expected = np.sum(central_differences(f, x) * v)
    assert np.isfinite(dy)
    assert dy == pytest.approx(expected, rel=1e-5, abs=1e-7)


@pytest.mark.parametrize("kind", [float, np.array])
def test_forward_scalar_and_array_multiply_take_the_strong_zero(kind):
    def f(x, w):
        # np.where holds the factor at 1 (its tangent is 0), exp(w) overflows, tanh saturates
        return np.sum(np.tanh(np.where(x > 0, 1.0, x) * np.exp(w)) + x * x)

    x, w = kind(0.5), kind(800.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _, dy = zp.jvp(f, (x, w), (kind(1.0), kind(0.0)))
    assert dy == 1.0  # 2 x: tanh's side does not move (finite differences agree)


def test_forward_rules_with_a_zero_tangent_against_inf():
    b = np.array([[np.inf, 1.0], [2.0, 3.0]])
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    da = np.array([[0.0, 1.0], [0.0, 2.0]])  # zero where it meets b's inf
    expected = np.array([[2.0, 3.0], [4.0, 6.0]])
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(jvp_common.jvp_matmul(da, None, a @ b, a, b), expected)
        np.testing.assert_array_equal(jvp_common.jvp_dot(da, None, a @ b, a, b), expected)
        np.testing.assert_array_equal(jvp_common.jvp_einsum(None, (da, None), a @ b, "ij,jk->ik", a, b),
                                      expected)
        np.testing.assert_array_equal(jvp_common.jvp_mul(da, None, a * b, a, b),
                                      [[0.0, 1.0], [0.0, 6.0]])
        tensordot = zp.rules.registry.function_rule(np.tensordot).jvp
        np.testing.assert_array_equal(tensordot(da, None, None, a, b, 1), expected)
        inner = zp.rules.registry.function_rule(np.inner).jvp
        np.testing.assert_array_equal(inner(da, None, None, a, b.T), expected)
        outer = zp.rules.registry.function_rule(np.outer).jvp
        np.testing.assert_array_equal(outer(np.array([0.0, 1.0]), None, None, a[0], np.array([np.inf, 2.0])),
                                      [[0.0, 0.0], [np.inf, 2.0]])
