"""Nested functions whose free variables change: Python reads them when the function
is called (late binding).  Used by test_late_binding.py; each function takes a float."""

import math

import numpy as np


def _apply(g, v):
    return g(v)


def _apply_all(fs, v):
    return sum(g(v) for g in fs)


# -- right as written: the value a closure captures is the one Python reads ----------------


def default_binds_each_value(x):
    fs = [(lambda t, i=i: t * i + np.sin(t)) for i in range(3)]
    return fs[1](x) + fs[2](x)


def made_after_the_last_assignment(x):
    a = x * 2.0
    g = lambda t: t * a
    a = a + np.cos(x)
    return _apply(g, x)  # the closure is made here, after `a` changed: Python's value


def called_directly_after_a_rebinding(x):
    a = x
    g = lambda t: t * a
    a = x * x
    return g(2.0)  # inlined at the call: reads the current `a`


def def_in_a_loop_called_in_the_body(x):
    s = 0.0
    for k in range(3):
        a = x * (k + 1.0)

        def g(t):
            return t * a + np.tanh(t)

        s = s + g(x)
    return s


def def_after_an_early_return(x):
    if x > 10.0:
        return x

    def g(t):
        return t * x * x

    return g(2.0) + _apply(g, 1.0)


def lambda_in_both_branches(x):
    if x > 0.0:
        g = lambda t: t * np.sin(x)
    else:
        g = lambda t: t * x * x
    return g(2.0) + _apply(g, x)


def def_used_inside_its_branch(x):
    if x > 0.0:

        def g(t):
            return t * x

        y = g(3.0)
    else:
        y = x
    return y * x


def def_in_one_branch_used_after(x):
    g = None
    if x > 0.0:

        def g(t):
            return np.exp(t * x)

    return _apply(g, 0.5) if g is not None else x


# -- refused: a captured variable may change before the closure is called -----------------


def lambdas_in_a_loop(x):
    fs = []
    for i in range(3):
        fs.append(lambda t: t * i)
    return fs[0](x)  # Python: 2 * x, every lambda sees the last i


def lambdas_in_a_comprehension(x):
    fs = [lambda t: t * i for i in range(3)]
    return _apply_all(fs, x)


def closure_stored_then_rebound(x):
    a = 1.0
    g = lambda t: t * a
    h = [g]
    a = 3.0
    return h[0](x)


def def_stored_in_a_loop(x):
    a = x

    def g(t):
        return t * a

    out = []
    for _ in range(3):
        a = a * 2.0
        out.append(g)
    return out[0](1.0)


def def_in_a_loop_read_after_it(x):
    for k in range(3):
        a = x * k

        def g(t):
            return t * a

    return _apply(g, 1.0)


def lambda_capturing_nested_functions(x):
    a = x * 3.0
    g = lambda t: t * a

    def h(t):
        return g(t) * g(t) + np.sin(t * x)

    return _apply(h, x) + _apply(lambda q: h(q) + g(q), 2.0)


def mutually_recursive_nested_functions(x):
    def g(t):
        return t * x if t < 0.5 else h(t - 1.0)

    def h(t):
        return g(t)

    return _apply(h, 2.0)


def lambda_passed_to_a_helper_in_a_loop(x):
    s = 0.0
    for k in range(3):
        u = x * (k + 1.0)
        if _apply(lambda q: q * u, x) > -10.0:
            s += _apply(lambda q: q * u + np.sin(u), 2.0)
        s = s + _apply(lambda q: q / (1.0 + u * u), x) * 2.0
    return s


def lambda_returned_by_a_helper_in_a_loop(x):
    fs = []
    for k in range(3):
        u = x * (k + 1.0)
        fs.append(_keep(lambda q: q * u))
    return fs[0](1.0)


def _keep(g):
    return g


def lambda_into_a_helper_inside_a_math_call(x):
    s = 0.0
    for k in range(2):
        u = x * (k + 1.0)
        # (different parameter names: Python 3.10 cannot tell same-parameter lambdas on one
        # line apart, docs/limitations.md)
        s = s + np.sqrt(2.0 + np.cos(_apply(lambda q: q * u, x))) + math.cos(_apply(lambda r: u, x))
    return s


def lambda_into_a_helper_inside_np_array(x):
    gs = []
    for k in range(2):
        u = x * (k + 1.0)
        gs.append(np.array([_keep(lambda q: q * u)]))
    return gs[0][0](1.0)
