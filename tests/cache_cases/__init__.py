"""Functions whose globals the cache tests rebind (kept apart from other tests)."""
import numpy as np


def square(x):
    return x * x


def uses_square(x):
    return square(x) + np.sin(x)
