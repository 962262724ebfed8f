"""Calls of library functions that have no rule and whose source the compiler
cannot differentiate (a try/except in the standard library, a with block in SciPy)."""

import statistics

import numpy as np

from . import RAN


def stdlib_fmean(x):
    RAN.append("stdlib_fmean")
    return statistics.fmean([x, 2.0 * x]) * x  # ERR


def stdlib_mean_through_helper(x):
    RAN.append("stdlib_mean_through_helper")
    return statistics.mean([x, 2.0 * x])  # ERR


def scipy_zscore(x):
    import_scipy = __import__("scipy.stats").stats  # zscore has no rule (logsumexp has one now)
    RAN.append("scipy_zscore")
    return import_scipy.zscore(x)[0] * 2.0  # ERR


def own_helper_with_try(x):
    try:
        return x * 2.0
    except ValueError:
        return x


def calls_own_helper(x):
    return own_helper_with_try(x) + np.sin(x)
