"""Fuzz regression (wrong_gradient, fixed), shrunk from program #537 of `python -m fuzz --seed 9001`
(3 programs of that run failed this way).

What zygote_py did:
    gradient arg0: zygote_py 0.0, finite differences -0.13096151174968992
"""

import numpy as np

from fuzz.oracle import assert_correct


class Layer:

    def __init__(self, W, b):
        pass
G_M = np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
G_S = 0.041

def f(a0, a1):
    acc7 = G_M[1, 1]
    acc7 += G_S ** a0
    return acc7

def make_args():
    return (1, [Layer(np.array([[-0.47, 0.9, -0.36], [0.84, -0.14, 0.94]]), np.array([0.3, 0.94])), Layer(np.array([[-0.1, 0.34, -0.64], [-0.48, 0.53, 0.17]]), np.array([-0.53, -0.87]))])


def test_fuzz_regression():
    assert_correct(f, make_args())
