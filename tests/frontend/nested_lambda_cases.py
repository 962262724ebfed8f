"""Lambdas that share a line: each must run its own body (found by the fuzzer)."""


def apply_both(fn, gn):
    return fn(1.0) + gn(2.0)


def two_lambdas_inside_a_lambda(a):
    g = lambda p: apply_both(lambda q: q * p, lambda r: r * r)  # noqa: E731
    return g(a)


def two_lambdas_same_parameters(a):
    g = lambda p: apply_both(lambda q: q * p, lambda q: q * q * p)  # noqa: E731
    return g(a)
