"""Explicit int arguments that reach code resolved while running (found by the fuzzer)."""

import numpy as np
def f(a0, a1):
    v1 = a1
    fs4 = [lambda p6: a0]
    v8 = sum((fn7(v1) for fn7 in fs4))
    return v8

class S:
    def scale(self, n, x):
        return n * np.sum(x)

def g(n, x):
    return S().scale(n, x)

def h(n, x):
    t = lambda q: q * n
    return t(2.0) + np.sum(x)
