"""if / elif / else with branches chosen by the input values, several returns,
assert, pass, print, and values defined differently on each branch."""

import math

import numpy as np

from . import Case, rand, rfloat


def piecewise(x):
    if x < -1.0:
        y = -x * 2.0
    elif x < 1.0:
        y = x * x + 1.0
    else:
        y = math.exp(x - 1.0) * 2.0
    return y * x


def branch_on_array_sum(a):
    if np.sum(a) > 0:
        return np.sum(a**2)
    else:
        return np.sum(np.exp(a))


def several_returns(x, y):
    if x > y:
        return x * y
    if x > 0:
        return x + y * y
    return x - y * y


def nested_if(x, y):
    if x > 0:
        if y > 0:
            z = x * y
        else:
            z = x - y
    else:
        if y > 0:
            z = x + y
        else:
            z = -x * y
    return z * z


def defined_on_each_branch(x):
    if x > 0:
        y = math.sin(x)
        k = 1
    else:
        y = math.cos(x)
        k = 2
    return y * k + x


def reassigned_on_one_branch(x, y):
    z = x * y
    if x > 0.5:
        z = z + x**2
    return z * y


def if_without_else_on_array(a, w):
    h = a * w
    if np.max(a) > 0.5:
        h = np.tanh(h)
    return np.sum(h**2)


def assert_and_pass(x):
    assert x > 0, "x must be positive"
    if x > 10:
        pass
    else:
        x = x * 2
    return x**2


def print_side_effect(x):
    print("value:", x)
    return x * x


def return_in_elif(x):
    if x > 2.0:
        return x
    elif x > 0.0:
        return math.sqrt(x)
    return x**3


def early_return_constant_then_value(x, n):
    if n == 0:
        return 0.0
    return x * n


CASES = [
    Case(piecewise, (-1.6,), tag="left"),
    Case(piecewise, (0.3,), tag="middle"),
    Case(piecewise, (1.4,), tag="right"),
    Case(branch_on_array_sum, (rand(5, seed=1) + 0.8,), tag="positive"),
    Case(branch_on_array_sum, (rand(5, seed=2) - 0.8,), tag="negative"),
    Case(several_returns, (0.9, 0.2), tag="first"),
    Case(several_returns, (0.3, 0.8), tag="second"),
    Case(several_returns, (-0.6, 0.4), tag="third"),
    Case(nested_if, (0.5, 0.7), tag="pp"),
    Case(nested_if, (0.5, -0.7), tag="pn"),
    Case(nested_if, (-0.5, 0.7), tag="np"),
    Case(nested_if, (-0.5, -0.7), tag="nn"),
    Case(defined_on_each_branch, (0.8,), tag="pos"),
    Case(defined_on_each_branch, (-0.8,), tag="neg"),
    Case(reassigned_on_one_branch, (0.9, rfloat(3)), tag="taken"),
    Case(reassigned_on_one_branch, (0.1, rfloat(4)), tag="skipped"),
    Case(if_without_else_on_array, (rand(4, seed=5) + 0.7, rand(4, seed=6)), tag="taken"),
    Case(if_without_else_on_array, (rand(4, seed=7) * 0.2, rand(4, seed=8)), tag="skipped"),
    Case(assert_and_pass, (1.3,)),
    Case(assert_and_pass, (12.0,), tag="pass"),
    Case(print_side_effect, (1.25,)),
    Case(return_in_elif, (2.5,), tag="if"),
    Case(return_in_elif, (0.7,), tag="elif"),
    Case(return_in_elif, (-0.7,), tag="fallthrough"),
    Case(
        early_return_constant_then_value,
        (rfloat(9), 0),
        tag="zero",
        note="the gradient is zero: None or 0.0; n sits on the branch's threshold n == 0, "
        "so it is left out of the finite differences",
        wrt=(0,),
    ),
    Case(early_return_constant_then_value, (rfloat(10), 3), tag="nonzero"),
]
