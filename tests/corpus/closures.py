"""Nested functions and lambdas that close over variables: over arguments,
over locals computed from them, over arrays, closures made by a factory,
closures passed to helpers, closures wrapped by a helper's closure (a
decorator, nested too), lambdas as corpus functions themselves."""

import math

import numpy as np

from . import Case, rand, rfloat


def _make_scaler(c):
    def scale(v):
        return v * c

    return scale


def _apply(f, x):
    return f(x) * 2.0


_triple = _make_scaler(3.0)


def nested_def_reads_argument(x):
    def inner(y):
        return y * x

    return inner(2.0) + inner(x)


def lambda_over_local(x):
    k = x**2
    f = lambda t: t * k
    return f(3.0) + f(x)


def closure_in_loop(x):
    def step(s):
        return s * x + 1.0

    s = 0.0
    for _ in range(4):
        s = step(s)
    return s


def factory_closure_over_active(x):
    g = _make_scaler(x)
    return g(x) + g(1.5)


def module_level_closure(x):
    return _triple(x) ** 2


def lambda_passed_to_helper(x):
    # one lambda a line: two with the same parameters on one line need Python 3.11+
    return (_apply(lambda t: t * x, 2.0)
            + _apply(lambda t: math.sin(t), x))


def doubly_nested(x, y):
    def a():
        def b():
            return x * y

        return b() + x

    return a() * y


def closure_over_array(W, v):
    f = lambda u: np.tanh(W @ u)
    return np.sum(f(v) ** 2) + np.sum(f(2.0 * v))


def inner_function_with_defaults(x):
    def g(v, p=2):
        return v**p

    return g(x) + g(x, 3)


def closure_sees_later_rebinding(x):
    k = 1.0

    def g(v):
        return v * k

    k = x * 2.0
    return g(x)


def _twice(fn):
    def wrapper(v):
        return 2.0 * fn(v)

    return wrapper


def closure_wrapped_by_helper(x):
    def inner(y):
        return y * x

    w = _twice(inner)  # w holds inner, which holds x: both paths to x count
    return w(x) + np.sin(x)


def _apply_twice(fn, v):
    return fn(fn(v))


_HELPERS = {"apply_twice": _apply_twice}


def closure_passed_at_run_time(x):
    def inner(y):
        return y * x + 0.5

    return _HELPERS["apply_twice"](inner, x)


def decorated_nested_def(x):
    @_twice
    @_twice
    def inner(y):
        return y * np.cos(x)

    return inner(x * x)


CASES = [
    Case(nested_def_reads_argument, (rfloat(1),)),
    Case(lambda_over_local, (rfloat(2),)),
    Case(closure_in_loop, (rfloat(3),)),
    Case(factory_closure_over_active, (rfloat(4),)),
    Case(module_level_closure, (rfloat(5),)),
    Case(lambda_passed_to_helper, (rfloat(6),)),
    Case(doubly_nested, (rfloat(7), rfloat(8))),
    Case(closure_over_array, (rand(3, 4, seed=9), rand(4, seed=10))),
    Case(inner_function_with_defaults, (rfloat(11),)),
    Case(closure_sees_later_rebinding, (rfloat(12),), note="Python closures see the last binding"),
    Case(closure_wrapped_by_helper, (rfloat(16),)),
    Case(closure_passed_at_run_time, (rfloat(17),)),
    Case(decorated_nested_def, (rfloat(18),)),
    Case(lambda x: np.sin(x) * x, (rfloat(13),), tag="sin"),
    Case(lambda x, y: x * y + math.exp(x - y), (rfloat(14), rfloat(15)), tag="two-args"),
]
