"""Einsum cotangent steps of two operands run by a kernel chosen once per subscripts and
shapes (zygote_py/rules/linalg.py: _with_kernels): a step that sums nothing and is
lettered like one operand as one broadcasting multiply (`_broadcast_product`: the same
numbers as np.einsum), one that is a batch of matrix products as np.matmul
(`_matmul_product`: einsum's numbers to rounding), for transposed letters, size-1 axes,
views, dtypes and non-arrays."""

import math

import numpy as np
import pytest
from derivative_checks import fd_gradient

import zygote_py as zp
from zygote_py.rules import linalg

RNG = np.random.default_rng(31)


@pytest.mark.parametrize("subscripts, recipe", [
    ("ij,ijk->ijk", (1, None, (slice(None), slice(None), None))),
    ("ijk,ij->ijk", (0, None, (slice(None), slice(None), None))),
    ("j,ij->ij", (1, None, (None, slice(None)))),
    ("ji,ijk->ijk", (1, (1, 0), (slice(None), slice(None), None))),
    ("ki,ijk->ijk", (1, (1, 0), (slice(None), None, slice(None)))),
    (",ij->ij", (1, None, (None, None))),
])
def test_recipes(subscripts, recipe):
    assert linalg._broadcast_product(subscripts) == recipe


@pytest.mark.parametrize("subscripts", [
    "ij,ik->ijk",  # an outer product: neither operand is lettered like the result
    "ij,jk->ik",  # a sum
    "ii,i->i",  # a diagonal
    "ij,ij->ji",  # the result in another order than both
    "...i,...i->...i",  # an ellipsis
    "ij,ijk->ij",  # k summed
])
def test_einsum_stays_where_the_product_does_not_apply(subscripts):
    assert linalg._broadcast_product(subscripts) is None


def _operand(letters, size, dtype, transposed):
    shape = tuple(size[c] for c in letters)
    x = (3 * RNG.standard_normal(shape)).astype(dtype)
    if transposed and x.ndim >= 2:
        x = np.ascontiguousarray(np.swapaxes(x, 0, 1)).swapaxes(0, 1)  # same values, other strides
    return x


@pytest.mark.parametrize("subscripts", ["ij,ijk->ijk", "ijk,ij->ijk", "j,ij->ij", "ji,ijk->ijk",
                                        "ki,ijk->ijk", "k,ijk->ijk"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int64])
@pytest.mark.parametrize("transposed", [False, True])
def test_the_product_equals_einsum(subscripts, dtype, transposed):
    size = {"i": 4, "j": 5, "k": 3}
    ins, _ = subscripts.split("->")
    a, b = (_operand(spec, size, dtype, transposed) for spec in ins.split(","))
    steps = linalg._with_kernels(((0, 1, subscripts),), (a.shape, b.shape))
    assert steps[0][3][0] == "multiply"
    got = linalg._contract_pairwise(steps, [a, b])
    want = np.einsum(subscripts, a, b)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_size_one_axes_broadcast_as_einsum_broadcasts_them():
    a = RNG.standard_normal((4, 1))
    b = RNG.standard_normal((4, 5, 3))
    steps = linalg._with_kernels(((0, 1, "ij,ijk->ijk"),), (a.shape, b.shape))
    np.testing.assert_array_equal(linalg._contract_pairwise(steps, [a, b]),
                                  np.einsum("ij,ijk->ijk", a, b))


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_non_arrays_go_to_einsum():
    b = RNG.standard_normal((2, 3))
    steps = linalg._with_kernels(((0, 1, "j,ij->ij"),), ((3,), b.shape))
    np.testing.assert_array_equal(linalg._contract_pairwise(steps, [[1.0, 2.0, 3.0], b]),
                                  np.einsum("j,ij->ij", [1.0, 2.0, 3.0], b))
    m = np.matrix(RNG.standard_normal((2, 3)))  # `*` is a matrix product for np.matrix
    got = linalg._contract_pairwise(linalg._with_kernels(((0, 1, "ij,ij->ij"),), (m.shape, m.shape)),
                                    [m, np.asarray(m)])
    np.testing.assert_array_equal(np.asarray(got), np.asarray(m) ** 2)


@pytest.mark.parametrize("subscripts, shapes, recipe", [
    ("ik,ijk->ij", ((4, 3), (4, 5, 3)), ((0, 1), (4, 1, 3), (0, 2, 1), (4, 3, 5), (4, 5), None)),
    ("ijk,ik->ji", ((4, 5, 3), (4, 3)), ((0, 1, 2), (4, 5, 3), (0, 1), (4, 3, 1), (4, 5), (1, 0))),
    ("ij,ik->ijk", ((4, 5), (4, 3)), ((0, 1), (4, 5, 1), (0, 1), (4, 1, 3), (4, 5, 3), None)),
    ("bhqk,bhkd->bhqd", ((2, 3, 4, 5), (2, 3, 5, 6)),
     ((0, 1, 2, 3), (6, 4, 5), (0, 1, 2, 3), (6, 5, 6), (2, 3, 4, 6), None)),
    ("ij,jk->ik", ((4, 5), (5, 3)), ((0, 1), (1, 4, 5), (0, 1), (1, 5, 3), (4, 3), None)),
])
def test_matmul_recipes(subscripts, shapes, recipe):
    assert linalg._matmul_product(subscripts, *shapes) == recipe


@pytest.mark.parametrize("subscripts, shapes", [
    ("ii,ij->j", ((3, 3), (3, 4))),  # a diagonal
    ("ij,jk->k", ((3, 4), (4, 5))),  # i summed inside the first operand alone
    ("ij,jk->ik", ((3, 1), (4, 5))),  # j broadcast from size 1
    ("...j,jk->...k", ((3, 4), (4, 5))),  # an ellipsis
])
def test_einsum_stays_where_a_matrix_product_does_not_apply(subscripts, shapes):
    assert linalg._matmul_product(subscripts, *shapes) is None


def _random_pairs(count):
    import random

    chooser = random.Random(41)
    letters = "abcde"
    for _ in range(count):
        first = "".join(chooser.sample(letters, chooser.randint(0, 4)))
        second = "".join(chooser.sample(letters, chooser.randint(0, 4)))
        pool = sorted(set(first) | set(second))
        out = "".join(chooser.sample(pool, chooser.randint(0, len(pool))))
        size = {c: chooser.choice([1, 2, 3, 5]) for c in letters}
        yield f"{first},{second}->{out}", size, chooser.choice(["float64", "float32", "complex128",
                                                                   "int64"]), chooser.random() < 0.3


@pytest.mark.parametrize("subscripts, size, dtype, fortran", list(_random_pairs(400)))
def test_every_kernel_gives_einsums_numbers(subscripts, size, dtype, fortran):
    ins, _ = subscripts.split("->")
    first, second = ins.split(",")
    a = (3 * RNG.standard_normal(tuple(size[c] for c in first))).astype(dtype)
    b = (3 * RNG.standard_normal(tuple(size[c] for c in second))).astype(dtype)
    if fortran:  # (other strides; a 0-d array has none to change)
        a, b = (np.asfortranarray(x) if x.ndim else x for x in (a, b))
    got = linalg._contract_pairwise(linalg._with_kernels(((0, 1, subscripts),), (a.shape, b.shape)),
                                    [a, b])
    want = np.einsum(subscripts, a, b)
    assert np.shape(got) == np.shape(want) and np.asarray(got).dtype == np.asarray(want).dtype
    tolerance = 1e-4 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("shape, short", [
    ((32, 32, 3), True), ((64, 4), True), ((16, 4, 2), True), ((8, 7, 3), False),  # 56 < 64
    ((32, 32, 5), False), ((3,), False), ((64, 1), True), ((4, 64), False),
])
def test_which_results_are_laid_out_last_axis_first(shape, short):
    assert linalg._short_last_axis(shape) is short


@pytest.mark.parametrize("subscripts, recipe", [
    ("ik,ij->ijk", ((None, (slice(None), None, slice(None))), (None, (slice(None), slice(None), None)))),
    ("ki,ij->ijk", (((1, 0), (slice(None), None, slice(None))), (None, (slice(None), slice(None), None)))),
    ("i,k->ik", ((None, (slice(None), None)), (None, (None, slice(None))))),
])
def test_outer_product_recipes(subscripts, recipe):
    (perm_a, expand_a), (perm_b, expand_b) = recipe
    assert linalg._outer_product(subscripts) == (perm_a, expand_a, perm_b, expand_b)


@pytest.mark.parametrize("subscripts", ["ij,ijk->ijk", "ij,jk->ik", "ii,ik->ik", "...i,k->...ik",
                                        "ij,ik->ij"])
def test_an_outer_product_sums_nothing_and_is_lettered_like_neither_operand(subscripts):
    assert linalg._outer_product(subscripts) is None


@pytest.mark.parametrize("subscripts, kind", [
    ("ij,ijk->ijk", "multiply"), ("ijk,ij->ijk", "multiply"), ("ki,ijk->ijk", "multiply"),
    ("ik,ij->ijk", "outer"), ("ki,ji->ijk", "outer"), ("ij,k->ijk", "outer"),
])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int64])
@pytest.mark.parametrize("transposed", [False, True])
def test_a_short_last_axis_gives_einsums_products_laid_out_last_axis_first(subscripts, kind, dtype,
                                                                           transposed):
    # N-body's pairwise (32, 32, 3) cotangents: the same products as np.einsum (a product
    # sums nothing, so exactly the same numbers), in memory as (k, i, j)
    size = {"i": 12, "j": 9, "k": 3}
    ins, _ = subscripts.split("->")
    a, b = (_operand(spec, size, dtype, transposed) for spec in ins.split(","))
    steps = linalg._with_kernels(((0, 1, subscripts),), (a.shape, b.shape))
    assert steps[0][3][0] == kind
    got = linalg._contract_pairwise(steps, [a, b])
    want = np.einsum(subscripts, a, b)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert got.strides[-1] == got.itemsize * got.size // got.shape[-1]  # the last axis outermost


def test_a_size_one_axis_broadcasts_in_the_last_axis_first_product():
    a = RNG.standard_normal((12, 1))
    b = RNG.standard_normal((12, 9, 3))
    c = RNG.standard_normal((1, 3))
    for subscripts, x, y in (("ij,ijk->ijk", a, b), ("ik,ij->ijk", c, RNG.standard_normal((12, 9)))):
        steps = linalg._with_kernels(((0, 1, subscripts),), (x.shape, y.shape))
        assert steps[0][3][-1] is True or steps[0][3][0] == "outer"
        np.testing.assert_array_equal(linalg._contract_pairwise(steps, [x, y]), np.einsum(subscripts, x, y))


def test_nbody_pairwise_cotangents_are_laid_out_last_axis_first():
    t2, d, w = RNG.standard_normal((32, 32)), RNG.standard_normal((32, 32, 3)), RNG.standard_normal(32)
    g, v = RNG.standard_normal((32, 3)), RNG.standard_normal((32, 32))
    d_bar = linalg.einsum_operand_cotangent(g, 1, "ij,ijk,j->ik", t2, d, w)
    np.testing.assert_allclose(d_bar, np.einsum("ik,ij,j->ijk", g, t2, w), rtol=1e-15, atol=0)
    dd_bar = linalg.einsum_operand_cotangent(v, 0, "ijk,ijk->ij", d, d)
    np.testing.assert_array_equal(dd_bar, np.einsum("ij,ijk->ijk", v, d))
    for x in (d_bar, dd_bar):
        assert x.strides == (256, 8, 8192)  # (k, i, j) in memory: the sums over i and j run long


def _random_short_last_axis_pairs(count):
    """Two-operand einsums that sum nothing, with results whose last axis is short (2 to 4)
    behind at least 64 entries: the steps laid out last axis first."""
    import random

    chooser = random.Random(43)
    for _ in range(count):
        out = "".join(chooser.sample("abcd", chooser.randint(2, 4)))
        first = "".join(chooser.sample(out, chooser.randint(1, len(out))))
        rest = [c for c in out if c not in first]  # (every letter of the result is in one)
        shared = chooser.sample(first, chooser.randint(0 if rest else 1, len(first)))
        second = "".join(chooser.sample(rest + shared, len(rest) + len(shared)))
        size = {c: chooser.choice([4, 6, 9]) for c in out}
        size[out[-1]] = chooser.choice([2, 3, 4])
        if math.prod(size[c] for c in out[:-1]) < 64:
            size[out[0]] = 64
        yield f"{first},{second}->{out}", size, chooser.choice(["float64", "complex128", "int64"])


@pytest.mark.parametrize("subscripts, size, dtype", list(_random_short_last_axis_pairs(60)))
def test_random_short_last_axis_products_give_einsums_numbers(subscripts, size, dtype):
    ins, _ = subscripts.split("->")
    first, second = ins.split(",")
    a = (3 * RNG.standard_normal(tuple(size[c] for c in first))).astype(dtype)
    b = (3 * RNG.standard_normal(tuple(size[c] for c in second))).astype(dtype)
    steps = linalg._with_kernels(((0, 1, subscripts),), (a.shape, b.shape))
    kernel = steps[0][3]
    assert kernel[0] == "outer" or kernel[0] == "multiply" and kernel[-1] is True
    got = linalg._contract_pairwise(steps, [a, b])
    want = np.einsum(subscripts, a, b)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_the_last_axis_first_kernel_has_both_derivatives():
    # the kernel is a product: reverse mode takes its rule, forward mode (which runs rule
    # code again for nested derivatives) takes it as bilinear rather than reading its body
    b = RNG.standard_normal((12, 9, 1))

    def h(x):
        return np.sum(np.abs(linalg._multiply_last_first(np.reshape(x, (12, 9, 3)), b)) ** 2)

    def h_complex(x):
        return h(x) + np.sum(np.real(linalg._multiply_last_first(np.reshape(x, (12, 9, 3)) * (1 + 0.5j), b) ** 2))

    x, v = RNG.standard_normal(324), RNG.standard_normal(324)
    for fn in (h, h_complex):
        np.testing.assert_allclose(zp.gradient(fn, x)[0], fd_gradient(fn, x), rtol=1e-6, atol=1e-6)
        _, tangent = zp.jvp(fn, (x,), (v,))
        np.testing.assert_allclose(tangent, (fn(x + 1e-6 * v) - fn(x - 1e-6 * v)) / 2e-6, rtol=1e-6)


def test_a_nested_pullback_over_an_einsum_laid_out_last_axis_first():
    # autograd's convolve checks: the back function of a pullback taken inside the function
    # differentiated, with subscripts built while running (the einsum rule's general form)
    a, c = RNG.standard_normal((12, 9)), RNG.standard_normal((12, 3))
    operands = ("ijk", "ij")

    def f(x):
        subscripts = ",".join(operands) + "->ik"
        d = np.reshape(x, (12, 9, 3)) * (1 + 0.5j)
        _, back = zp.pullback(lambda d_: np.einsum(subscripts, d_, a), d)
        return np.real(np.sum(back(c * (1 - 0.5j))[0] ** 2 * d))

    x = RNG.standard_normal(324) * 0.3
    np.testing.assert_allclose(zp.gradient(f, x)[0], fd_gradient(f, x), rtol=1e-6, atol=1e-6)


def test_three_operand_steps_carry_their_shapes():
    """The kernels of later steps are planned for the shapes of the earlier steps' results."""
    steps = linalg._with_kernels(linalg._pairwise_steps("ik,ijk,j->ij", ((5, 3), (5, 5, 3), (5,))),
                                 ((5, 3), (5, 5, 3), (5,)))
    assert [kernel[0] for *_, kernel in steps] == ["matmul", "multiply"]
    assert steps[0][3][-2:] == ((5, 5), None)


def test_an_einsum_attention_gradient():
    def attention(x):
        q = np.reshape(x[:48], (2, 2, 4, 3))
        k = np.reshape(x[48:], (2, 2, 4, 3))
        s = np.einsum("bhqd,bhkd->bhqk", q, k)
        a = np.exp(s - np.max(s, axis=-1, keepdims=True))
        a = a / np.sum(a, axis=-1, keepdims=True)
        return np.sum(np.einsum("bhqk,bhkd->bhqd", a, k) ** 2)

    x = RNG.standard_normal(96)
    np.testing.assert_allclose(zp.gradient(attention, x)[0], fd_gradient(attention, x),
                               rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("k", [0, 1, 2])
def test_nbody_cotangents_equal_the_one_loop_einsum(k):
    a, d, w = RNG.standard_normal((6, 6)), RNG.standard_normal((6, 6, 3)), RNG.standard_normal(6)
    g = RNG.standard_normal((6, 3))
    direct = [np.einsum("ik,ijk,j->ij", g, d, w), np.einsum("ik,ij,j->ijk", g, a, w),
              np.einsum("ik,ij,ijk->j", g, a, d)][k]
    np.testing.assert_allclose(linalg.einsum_operand_cotangent(g, k, "ij,ijk,j->ik", a, d, w),
                               direct, rtol=1e-12, atol=1e-12)
    v = RNG.standard_normal((6, 6))
    np.testing.assert_array_equal(linalg.einsum_operand_cotangent(v, 0, "ijk,ijk->ij", d, d),
                                  np.einsum("ij,ijk->ijk", v, d))


@pytest.mark.parametrize("bodies", [5, 12])  # 12: the (12, 12, 3) cotangents laid out last axis first
def test_gradient_against_central_differences(bodies):
    m = RNG.random(bodies) + 0.5

    def accel(x):
        p = np.reshape(x, (bodies, 3))
        d = p[None, :, :] - p[:, None, :]
        r2 = np.einsum("ijk,ijk->ij", d, d) + 0.01
        return np.sum(np.einsum("ij,ijk,j->ik", r2 ** -1.5, d, m) ** 2)

    x = RNG.standard_normal(3 * bodies)
    np.testing.assert_allclose(zp.gradient(accel, x)[0], fd_gradient(accel, x), rtol=1e-6, atol=1e-7)


def test_a_greedy_path_runs_as_kernels():
    """Where ordering the contraction pays (a chain of matrices), the greedy path's pairs
    run by the kernels (no path to re-validate at every call), with einsum's numbers."""
    a, b, c = RNG.standard_normal((50, 60)), RNG.standard_normal((60, 80)), RNG.standard_normal((80, 40))
    g = RNG.standard_normal((50, 40))
    _, path, steps, _ = linalg._cotangent_recipe("ij,jk,kl->il", 0, (g.shape, a.shape, b.shape, c.shape))
    assert path is False and [kernel[0] for *_, kernel in steps] == ["matmul", "matmul"]
    wants = [np.einsum("il,jk,kl->ij", g, b, c), np.einsum("il,ij,kl->jk", g, a, c),
             np.einsum("il,ij,jk->kl", g, a, b)]
    for k, want in enumerate(wants):
        np.testing.assert_allclose(linalg.einsum_operand_cotangent(g, k, "ij,jk,kl->il", a, b, c),
                                   want, rtol=1e-10, atol=1e-10)


def test_steps_along_a_path():
    assert linalg._steps_along("il,jk,kl->ij", ["einsum_path", (1, 2), (0, 1)]) == (
        (1, 2, "jk,kl->jl"), (0, 1, "il,jl->ij"))
    assert linalg._steps_along("ii,ij,j->i", ["einsum_path", (0, 1), (0, 1)]) is None  # a diagonal
    assert linalg._steps_along("ij,jk,k->i", ["einsum_path", (0, 1, 2)]) is None  # three at once
