"""Common NumPy: elementwise functions, reductions with axis / keepdims, max,
matrix products (@, dot, matmul), transposes, reshape, concatenate, stack,
where, maximum, broadcasting, constructors mixed with active values."""

import numpy as np

from . import Case, rand, rfloat


def trig(a):
    return np.sum(np.sin(a) * np.cos(a) + np.tan(a / 2.0))


def exp_log(a):
    return np.sum(np.exp(a) - np.log(a))


def log1p_sqrt(a):
    return np.sum(np.log1p(a) * np.sqrt(a))


def tanh_abs(a):
    return np.sum(np.tanh(a)) + np.sum(np.abs(a) ** 1.5)


def power_and_division(a, b):
    return np.sum(a**2 / b + 2.0**a - b**0.5)


def sum_axis(A):
    return np.sum(np.sum(A, axis=0) ** 2) + np.sum(A.sum(axis=1) ** 3)


def sum_keepdims(A):
    return np.sum((A - np.mean(A, axis=1, keepdims=True)) ** 2)


def mean_axis(A, w):
    return np.mean(A, axis=1) @ w + np.mean(A) * 2.0


def sum_negative_axis(T):
    return np.sum(np.sum(T, axis=-1) ** 2) + np.sum(np.sum(T, axis=(0, 2)) ** 2)


def max_reductions(a, A):
    return np.max(a) + np.sum(np.max(A, axis=0)) + np.sum(np.max(A, axis=1, keepdims=True) * A)


def matmul_operator(A, B):
    return np.sum(np.tanh(A @ B))


def dot_function(a, b, A):
    return np.dot(a, b) + np.sum(np.dot(A, a) ** 2)


def matmul_function(A, x):
    return np.sum(np.matmul(A, x) ** 2)


def transpose_attribute(A):
    return np.sum(A.T @ A) + np.sum(A @ A.T * 0.5)


def reshape_method_and_function(a, w):
    return (
        np.sum(a.reshape(2, 3) @ w)
        + np.sum(np.reshape(a, (3, 2)) ** 2)
        + np.sum(a.reshape(-1, 1) * a)
    )


def transpose_function(T, w):
    return np.sum(np.transpose(T, (2, 0, 1)) * w) + np.sum(np.transpose(T[0]) @ T[1])


def concatenate(a, b, w):
    return np.concatenate([a, b]) @ w + np.sum(np.concatenate((a[None], b[:3][None]), axis=0) ** 2)


def stack(a, b):
    s = np.stack([a, b], axis=1)
    return np.sum(s**2 * np.array([1.0, 2.0])) + np.sum(np.stack((a, b)) * a)


def where(a):
    return np.sum(np.where(a > 0, a**2, -a * 3.0))


def maximum(a, b):
    return np.sum(np.maximum(a, 0.1) * a) + np.sum(np.maximum(a, b) ** 2)


def broadcast_column_row(c, r):
    return np.sum(np.sin(c * r) + c - r)


def broadcast_row_onto_matrix(A, r):
    return np.sum((A + r) ** 2 * r)


def broadcast_scalar(x, a):
    return np.sum(x * a + x**2) + np.sum(np.exp(a * x))


def constructors_with_active(x, a):
    return np.sum(np.ones(4) * x + np.zeros_like(a) + np.arange(4.0) @ a * x) + np.sum(
        np.full(a.shape, 2.0) * a
    )


def zero_dim_array_output(a):
    return np.array(np.sum(a**2))


def numpy_scalar_output(a, b):
    return np.dot(a, b)


def float_of_reduction(a):
    return float(np.sum(a)) ** 2


def array_from_python_floats(x, y):
    v = np.array([x, y, x * y])
    return np.sum(v**2)


def outer_product_norm(a, b):
    M = a[:, None] * b[None, :]
    return np.sqrt(np.sum(M**2))


def softplus_sum(a):
    return np.sum(np.log(1.0 + np.exp(a)))


CASES = [
    Case(trig, (rand(5, seed=1),)),
    Case(exp_log, (rand(5, seed=2, low=0.5, high=2.0),)),
    Case(log1p_sqrt, (rand(5, seed=3, low=0.2, high=2.0),)),
    Case(tanh_abs, (np.array([0.4, -0.7, 1.3, -0.2]),)),
    Case(power_and_division, (rand(4, seed=4), rand(4, seed=5, low=0.5, high=1.5))),
    Case(sum_axis, (rand(3, 4, seed=6),)),
    Case(sum_keepdims, (rand(3, 4, seed=7),)),
    Case(mean_axis, (rand(3, 4, seed=8), rand(3, seed=9))),
    Case(sum_negative_axis, (rand(2, 3, 4, seed=10),)),
    Case(max_reductions, (rand(5, seed=11), rand(3, 4, seed=12)), note="random: no ties"),
    Case(matmul_operator, (rand(3, 4, seed=13), rand(4, 2, seed=14))),
    Case(dot_function, (rand(4, seed=15), rand(4, seed=16), rand(3, 4, seed=17))),
    Case(matmul_function, (rand(3, 4, seed=18), rand(4, seed=19))),
    Case(matmul_function, (rand(3, 4, seed=20), rand(4, 2, seed=21)), tag="matrix"),
    Case(transpose_attribute, (rand(3, 2, seed=22),)),
    Case(reshape_method_and_function, (rand(6, seed=23), rand(3, 2, seed=24))),
    Case(transpose_function, (rand(2, 3, 3, seed=25), rand(3, 2, 3, seed=26))),
    Case(concatenate, (rand(3, seed=27), rand(4, seed=28), rand(7, seed=29))),
    Case(stack, (rand(4, seed=30), rand(4, seed=31))),
    Case(where, (np.array([0.3, -0.5, 0.9, -0.1, 0.6]),)),
    Case(
        maximum,
        (np.array([0.5, -0.3, 0.8, 0.0]), np.array([0.2, 0.1, 0.9, -0.4])),
        note="no element near 0.1 or a tie with b",
    ),
    Case(broadcast_column_row, (rand(3, 1, seed=32), rand(1, 4, seed=33))),
    Case(broadcast_row_onto_matrix, (rand(3, 4, seed=34), rand(4, seed=35))),
    Case(broadcast_scalar, (rfloat(36), rand(2, 3, seed=37)), note="float gets a float back"),
    Case(constructors_with_active, (rfloat(38), rand(4, seed=39))),
    Case(zero_dim_array_output, (rand(3, seed=40),)),
    Case(numpy_scalar_output, (rand(3, seed=41), rand(3, seed=42))),
    Case(float_of_reduction, (rand(3, seed=43),)),
    Case(array_from_python_floats, (rfloat(44), rfloat(45))),
    Case(outer_product_norm, (rand(3, seed=46), rand(2, seed=47))),
    Case(softplus_sum, (rand(6, seed=48, low=-3.0, high=3.0),)),
]
