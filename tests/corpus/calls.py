"""Calls to user functions: positional and keyword arguments, defaults,
*args and **kwargs (in definitions and at call sites), chains of helpers,
tuple-returning helpers, functions passed as values, module-level lambdas."""

import math

import numpy as np

from . import Case, rand, rfloat


def _square(x):
    return x * x


def _poly(x, a=1.0, b=2.0):
    return a * x * x + b * x


def _scaled_sum(*xs, scale=1.0):
    s = 0.0
    for v in xs:
        s += v
    return s * scale


def _from_kwargs(**kw):
    return kw["a"] * kw["b"] + kw.get("c", 0.5)


def _everything(a, b=2.0, *rest, k=3.0, **extra):
    s = a * b + k
    for v in rest:
        s = s * v
    for name in extra:  # noqa: PLC0206 -- iterating a dict's keys is the point
        s = s + extra[name] * len(name)
    return s


def _inner(x):
    return math.sin(x) * x


def _middle(x, y):
    return _inner(x) + _inner(y) * _square(x)


def _outer(x):
    return _middle(x, 2.0 * x) + _inner(x + 1.0)


def _two_values(x):
    return x * 2.0, x**2


def _apply_twice(f, x):
    return f(x) + f(2.0 * x)


def _soft_relu(x):
    if x > 0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


_cube = lambda v: v**3


def positional(x):
    return _square(x) + _square(x + 1.0)


def keywords(x, y):
    return _poly(x, b=y) + _poly(a=y, x=x)


def defaults(x):
    return _poly(x) + _poly(x, 0.5)


def star_args_definition(x, y, z):
    return _scaled_sum(x, y, z, scale=0.5) * x


def star_args_call_site(xs):
    return _scaled_sum(*xs) * xs[0]


def kwargs_definition(x, y):
    return _from_kwargs(a=x, b=y, c=x * y) + _from_kwargs(b=x, a=1.5)


def kwargs_call_site(d):
    return _from_kwargs(**d)


def all_parameter_kinds(x, y):
    return _everything(x, y, x, 2.0, k=y, alpha=x) + _everything(y)


def star_and_double_star_call(x, y):
    args = (x, y)
    kw = {"k": x * y}
    return _everything(*args, **kw)


def helper_chain(x):
    return _outer(x) * 0.5


def tuple_returning_helper(x):
    a, b = _two_values(x)
    c = _two_values(a)[1]
    return a * b + c


def function_as_argument(x):
    return _apply_twice(math.sin, x) + _apply_twice(_square, x) + _apply_twice(np.tanh, x)


def helper_with_branch(x, y):
    return _soft_relu(x) + _soft_relu(y)


def module_level_lambda(x):
    return _cube(x) + _cube(2.0) * x


def array_through_helpers(a, b):
    return _square(np.sum(a * b)) + np.sum(_poly(a, b=b))


def _double(p):
    return p * 2.0


def star_call_of_one_item(x, a):
    """h(*[x]) and h(*array_of_one): one spread item, regrouped into its sequence."""
    return _double(*[x]) + np.sum(_double(*np.sum([a], axis=1))) + _double(*(x,))


CASES = [
    Case(positional, (rfloat(1),)),
    Case(keywords, (rfloat(2), rfloat(3))),
    Case(defaults, (rfloat(4),)),
    Case(star_args_definition, (rfloat(5), rfloat(6), rfloat(7))),
    Case(star_args_call_site, ([rfloat(8), rfloat(9), rfloat(10)],)),
    Case(kwargs_definition, (rfloat(11), rfloat(12))),
    Case(kwargs_call_site, ({"a": rfloat(13), "b": rfloat(14), "c": rfloat(15)},)),
    Case(kwargs_call_site, ({"a": rfloat(16), "b": rfloat(17)},), tag="default-c"),
    Case(all_parameter_kinds, (rfloat(18), rfloat(19))),
    Case(star_and_double_star_call, (rfloat(20), rfloat(21))),
    Case(helper_chain, (rfloat(22),)),
    Case(tuple_returning_helper, (rfloat(23),)),
    Case(function_as_argument, (rfloat(24),)),
    Case(helper_with_branch, (0.7, -0.4)),
    Case(module_level_lambda, (rfloat(25),)),
    Case(array_through_helpers, (rand(4, seed=26), rand(4, seed=27))),
    Case(star_call_of_one_item, (0.3, np.array([0.3, 0.2]))),
]
