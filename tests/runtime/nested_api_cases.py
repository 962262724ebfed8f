"""The review's reproduction A1: zp.gradient called inside a differentiated function."""

import numpy as np

import zygote_py as zp


def inner(x):
    return np.sin(x) * x


def derivative_of_inner(x):
    return zp.gradient(inner, x)[0]


def pullback_inside(x):
    return zp.pullback(inner, x)[0]


def hessian_inside(x):
    return zp.hessian(inner, x)
