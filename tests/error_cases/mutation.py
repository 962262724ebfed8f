"""In-place writes into arrays; each must raise zp.MutationError pointing at the
line marked `# ERR`."""

import numpy as np

from . import RAN


def setitem(x):
    RAN.append("setitem")
    x[0] = 1.0  # ERR
    return np.sum(x**2)


def setitem_augmented(x, v):
    RAN.append("setitem_augmented")
    x[1] += v  # ERR
    return np.sum(x**2)


def setslice(x, y):
    RAN.append("setslice")
    x[1:3] = y  # ERR
    return np.sum(x * x)


def setslice_augmented(x, y):
    RAN.append("setslice_augmented")
    x[1:3] += y  # ERR
    return np.sum(x)


def setitem_2d(A, v):
    RAN.append("setitem_2d")
    A[0, :] = v  # ERR
    return np.sum(A * A)


def scatter_add(x):
    RAN.append("scatter_add")
    z = np.zeros(3)
    np.add.at(z, [0, 0, 1], x)  # ERR
    return np.sum(z * z)


def maximum_at(x):
    RAN.append("maximum_at")
    z = np.zeros(3)
    np.maximum.at(z, np.array([2, 0, 2]), x)  # ERR
    return np.sum(z * z)


def out_argument(x):
    RAN.append("out_argument")
    z = np.zeros(3)
    np.multiply(x, 2.0, out=z)  # ERR
    return np.sum(z * z)
