"""Subscript and attribute reads on arrays: integers (negative too), slices
(negative steps), tuples of indices, None, Ellipsis, integer and boolean
index arrays, rows, .T / .shape / .size / .ndim."""

import numpy as np

from . import Case, rand


def basic_slice(a):
    return np.sum(a[1:4] ** 2)


def negative_step_slice(a):
    w = np.arange(len(a))
    return np.sum(a[::-1] * w) + np.sum(a[-1:0:-2])


def stepped_slices(a):
    return np.sum(a[::2] * a[1::2])


def negative_indices(a):
    return a[-1] * a[-2] + a[0]


def tuple_index_2d(A):
    return A[1, 2] * A[0, 1] + np.sum(A[:, 1]) + np.sum(A[-1, ::-1] * A[0])


def slices_2d(A):
    return np.sum(A[1:, :-1] * A[:-1, 1:])


def row_and_column(A, v):
    return np.dot(A[1], v) + np.dot(A[:, 0], A[:, 2])


def none_index(a):
    return np.sum(a[None, :] * a[:, None] * 0.5)


def ellipsis_index(T):
    return np.sum(T[..., 0] ** 2) + np.sum(T[0, ...]) + np.sum(T[..., 1:, 0])


def integer_array_index(a, idx):
    return np.sum(a[idx] ** 2)


def boolean_mask_index(a):
    return np.sum(a[a > 0] ** 2) + np.sum(a[a < 0])


def variable_index(a, i, j):
    return a[i] * a[j] + a[i + 1]


def attributes_of_arrays(A):
    n = A.shape[0]
    m = A.shape[1]
    return np.sum(A.T @ A) / (n * m) + A.size * np.mean(A) + A.ndim


def index_then_scalar_math(a):
    x = float(a[0])
    y = a[1]
    return x * y + x**2


def loop_over_index_pairs(A, pairs):
    s = 0.0
    for i, j in pairs:
        s += A[i, j] ** 2
    return s


CASES = [
    Case(basic_slice, (rand(6, seed=1),)),
    Case(negative_step_slice, (rand(7, seed=2),)),
    Case(stepped_slices, (rand(8, seed=3),)),
    Case(negative_indices, (rand(4, seed=4),)),
    Case(tuple_index_2d, (rand(3, 4, seed=5),)),
    Case(slices_2d, (rand(3, 4, seed=6),)),
    Case(row_and_column, (rand(3, 4, seed=7), rand(4, seed=8))),
    Case(none_index, (rand(4, seed=9),)),
    Case(ellipsis_index, (rand(2, 3, 2, seed=10),)),
    Case(
        integer_array_index,
        (rand(5, seed=11), np.array([0, 3, 3, 1])),
        note="repeated index: cotangents accumulate; the index array gets None",
    ),
    Case(boolean_mask_index, (np.array([0.5, -0.3, 0.8, -0.9, 0.2]),)),
    Case(variable_index, (rand(5, seed=12), 1, -1)),
    Case(attributes_of_arrays, (rand(3, 2, seed=13),)),
    Case(index_then_scalar_math, (rand(3, seed=14),)),
    Case(loop_over_index_pairs, (rand(3, 3, seed=15), [(0, 1), (2, 2), (0, 1)])),
]
