"""A second module with its own globals: implicit parameters are found across modules."""

import numpy as np

V = np.linspace(0.5, 1.5, 4)
SCALE = 2.0


def project(x):
    return np.tanh(V * x) * SCALE


def deep(x):
    return project(x) @ V
