"""Calls that once crashed the compiler or gave a silently wrong gradient:
literal arguments bound into rules (np.clip's bounds), index-trick objects
(np.r_, np.c_, np.s_), fills, powers at zero, norms of lists, zero spread."""

import numpy as np

from . import Case, rand


def clip_literal_bounds(a):
    return np.sum(np.clip(a, -0.5, 0.5)) + np.sum(np.clip(a, 0.0, 0.5) * a)


def clip_keyword_and_open_bounds(a):
    return np.sum(np.clip(a, a_min=-0.5, a_max=0.5) ** 2) + np.sum(np.clip(a, 0.1, None))


def clip_method_literal_bounds(a):
    return np.sum(a.clip(-0.5, 0.5) * a)


def r_concatenation(a, b):
    w = np.arange(10.0)
    return np.sum(np.r_[a, b[0:2], 2.5, b] * w)


def r_scalars_and_ranges(x, a):
    return np.sum(np.r_[x, 0:3, a * x, -1.0] ** 2)


def c_columns(a, b):
    return np.sum(np.c_[a, b, a * b] * np.arange(12.0).reshape(4, 3))


def r_directive(a, b):
    return np.sum(np.r_["0,2", a, b] * np.arange(8.0).reshape(2, 4))


def s_passes_the_index_through(x):
    return np.s_[x] * 3.0 + np.index_exp[x][0]


def full_of_active_scalar(s):
    return np.sum(np.full(3, s)) + np.sum(np.full((2, 3), s) * np.arange(6.0).reshape(2, 3))


def fulls_of_two_sizes(s, t):
    return np.sum(np.full(3, s)) + np.sum(np.full(2, s * t)) + np.sum(np.full_like(np.ones(4), t))


def where_scalar_branches(s, t):
    mask = np.array([True, False, True, True])
    return np.sum(np.where(mask, s, 0.0)) + np.sum(np.where(mask, 1.5, t) ** 2)


def power_zero_exponent(x, a):
    """x ** 0.0 is 1 everywhere (at 0 too): no nan, no ZeroDivisionError at x == 0."""
    return x**0.0 + np.sum(np.power(a, 0.0)) * x + np.sum(a ** np.array([0.0, 2.0, 1.0]))


def power_of_loop_counter(a):
    """The exponent is the int 0 on the last trip: the base gets no cotangent (None)."""
    s = 0.0
    for i, t in enumerate([1.0, 2.0]):
        s = s + np.min(a) ** i * t
    return s


def norm_of_list(a, b):
    return np.linalg.norm([a, b * 2.0]) + np.linalg.norm((a, b), ord=1) + np.linalg.norm([[a, b], [b, a]])


def std_at_zero_spread(a, s):
    """All values equal: the subgradient 0 (central differences agree), not 0 / 0."""
    return np.std(a) + a.std() * s + np.std(a * 0.0 + s, axis=0) + np.var(a) + s


def einsum_sublists(a, b):
    w = np.arange(4.0).reshape(2, 2)
    return np.sum(np.einsum(a, [0, 1], b, [1, 2]) * w) + np.sum(np.einsum(a, [0, 1], b, [1, 2], [2, 0]) ** 2)


def einsum_sublist_ellipsis(a):
    return np.sum(np.einsum(a, [Ellipsis, 0], a, [Ellipsis, 0], [Ellipsis]) * np.array([1.0, 2.0]))


def transpose_method_axes(T, k):
    """x.transpose(2, 0, 1): the rule's *axes tuple holds the call's values."""
    w = np.arange(24.0).reshape(2, 3, 4)
    return np.sum(T.transpose(2, 0, 1) * w) + np.sum(T.transpose(k, 0, 1) ** 2) + np.sum(np.transpose(T, (2, 0, 1))[0])


def once_nondifferentiable_calls(x, w, s):
    """divmod's remainder, np.bincount's weights and np.heaviside's value at 0 carry
    derivatives (they were registered as non-differentiable: a silent zero)."""
    steps = np.heaviside(np.array([-1.0, 0.0, 2.0, 0.0]), s)
    counts = np.bincount(np.array([0, 1, 1, 3]), weights=w)
    return divmod(x, 0.7)[1] * 2.0 + np.sum(counts * np.arange(4.0)) + np.sum(steps * w)


CASES = [
    Case(clip_literal_bounds, (np.array([-0.9, -0.2, 0.3, 0.7, 0.1]),), note="no element at a bound"),
    Case(clip_keyword_and_open_bounds, (np.array([-0.9, -0.2, 0.3, 0.7, 0.05]),)),
    Case(clip_method_literal_bounds, (np.array([-0.9, -0.2, 0.3, 0.7]),)),
    Case(r_concatenation, (rand(3, seed=301), rand(4, seed=302))),
    Case(r_scalars_and_ranges, (0.7, rand(2, seed=303))),
    Case(c_columns, (rand(4, seed=304), rand(4, seed=305))),
    Case(r_directive, (rand(4, seed=306), rand(4, seed=307))),
    Case(s_passes_the_index_through, (0.4,)),
    Case(full_of_active_scalar, (0.7,)),
    Case(fulls_of_two_sizes, (0.7, -0.4)),
    Case(where_scalar_branches, (0.7, -0.4)),
    Case(where_scalar_branches, (np.float64(0.7), np.float64(-0.4)), tag="numpy-scalars"),
    Case(power_zero_exponent, (0.0, np.array([0.0, 0.6, 0.0]))),
    Case(power_of_loop_counter, (np.array([-0.21, 0.12, 0.82]),)),
    Case(norm_of_list, (0.3, -0.4)),
    Case(std_at_zero_spread, (np.full(3, 0.5), 0.25)),
    Case(einsum_sublists, (rand(2, 3, seed=308), rand(3, 2, seed=309))),
    Case(einsum_sublist_ellipsis, (rand(2, 3, seed=310),)),
    Case(transpose_method_axes, (rand(3, 4, 2, seed=311), 2)),
    Case(once_nondifferentiable_calls, (1.5, rand(4, seed=312), 0.3), note="1.5 is far from a multiple of 0.7"),
]
