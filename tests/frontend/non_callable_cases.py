"""Functions that call a module-level object that is not callable (test_non_callable.py)."""

import numpy as np


def dead_branch(x):
    if x > 10.0:
        return np(3)  # never runs here: Python raises only when the call runs
    return np.sin(x) * x


def live_branch(x):
    if x > 0.0:
        return np(3) * x
    return x
