"""Python lists of numbers handed to NumPy functions (found by autograd's suite)."""

import numpy as np

WEIGHTS = np.array([1.0, 2.0, 3.0, 4.0])


def append_to_a_list(a, b):
    return np.sum(np.sin(np.append(a, b)) * WEIGHTS)


def nested_list_through_array(rows):
    return np.sum(np.array(rows) ** 3)
