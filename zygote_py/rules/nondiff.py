"""Functions, methods and attributes whose results carry no derivative.

A call to one of these produces no adjoint: its result is a constant to the
compiler (comparisons, rounding, integer and boolean logic, argmax/argsort,
shapes and sizes, array constructors that take no values, random draws).
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from zygote_py.rules.registry import (
    nondifferentiable,
    nondifferentiable_attrs,
    nondifferentiable_methods,
)

# --- Python operators ------------------------------------------------------
nondifferentiable(
    operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
    operator.not_, operator.truth, operator.is_, operator.is_not, operator.contains,
    operator.and_, operator.or_, operator.xor, operator.invert, operator.inv,
    operator.lshift, operator.rshift, operator.index, operator.floordiv,
    operator.countOf, operator.indexOf, operator.length_hint,
)

# --- builtins --------------------------------------------------------------
# zip, enumerate and reversed are listed so that iterating over them is never
# differentiated as a call; the compiler lowers loops over them itself.
nondifferentiable(
    builtins.len, builtins.range, builtins.int, builtins.bool, builtins.round,
    builtins.isinstance, builtins.issubclass, builtins.type, builtins.zip,
    builtins.enumerate, builtins.reversed, builtins.print, builtins.id, builtins.hash,
    builtins.str, builtins.repr, builtins.format, builtins.callable, builtins.hasattr,
    builtins.any, builtins.all, builtins.divmod, builtins.ord, builtins.chr,
    builtins.slice,  # x[a:b]: the bounds are positions, never differentiated
)

# --- math ------------------------------------------------------------------
nondifferentiable(
    math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite,
    math.isclose, math.factorial, math.comb, math.perm, math.gcd, math.lcm, math.isqrt,
)

# --- NumPy: rounding, signs, comparisons, logic ----------------------------
nondifferentiable(
    np.sign, np.floor, np.ceil, np.trunc, np.rint, np.fix, np.round, np.around,
    np.floor_divide, np.heaviside, np.signbit,
    np.isnan, np.isfinite, np.isinf, np.isneginf, np.isposinf, np.isreal, np.isclose,
    np.allclose, np.array_equal, np.array_equiv,
    np.greater, np.less, np.equal, np.not_equal, np.greater_equal, np.less_equal,
    np.logical_and, np.logical_or, np.logical_not, np.logical_xor,
    np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.invert, np.left_shift,
    np.right_shift, np.gcd, np.lcm, np.all, np.any,
)

# --- NumPy: index-valued functions -----------------------------------------
nondifferentiable(
    np.argmax, np.argmin, np.argsort, np.argpartition, np.lexsort, np.nanargmax,
    np.nanargmin, np.argwhere, np.nonzero, np.flatnonzero, np.searchsorted, np.digitize,
    np.count_nonzero, np.unravel_index, np.ravel_multi_index, np.bincount,
    np.diag_indices, np.tril_indices, np.triu_indices,
)

# --- NumPy: constructors that take no differentiable values, and shapes ----
nondifferentiable(
    np.zeros, np.ones, np.empty, np.arange, np.logspace, np.geomspace,
    np.eye, np.identity, np.tri, np.indices, np.zeros_like, np.ones_like, np.empty_like,
    np.shape, np.size, np.ndim, np.broadcast_shapes, np.result_type, np.can_cast,
    np.promote_types, np.iscomplexobj, np.isscalar, np.may_share_memory, np.shares_memory,
)

# --- NumPy: random draws (np.random.* and the methods of Generator/RandomState) --
_RANDOM = (
    "beta", "binomial", "bytes", "chisquare", "choice", "dirichlet", "exponential", "f",
    "gamma", "geometric", "gumbel", "hypergeometric", "laplace", "logistic", "lognormal",
    "logseries", "multinomial", "multivariate_normal", "negative_binomial",
    "noncentral_chisquare", "noncentral_f", "normal", "pareto", "permutation", "poisson",
    "power", "rand", "randint", "randn", "random", "random_integers", "random_sample",
    "ranf", "rayleigh", "sample", "seed", "shuffle", "standard_cauchy",
    "standard_exponential", "standard_gamma", "standard_normal", "standard_t",
    "triangular", "uniform", "vonmises", "wald", "weibull", "zipf", "default_rng",
    "get_state", "set_state",
)
nondifferentiable(*(getattr(np.random, name, None) for name in _RANDOM))
_GENERATOR_METHODS = tuple(
    name for name in _RANDOM + ("integers", "permuted", "multivariate_hypergeometric", "spawn")
    if hasattr(np.random.Generator, name)
)
nondifferentiable_methods(np.random.Generator, *_GENERATOR_METHODS)
nondifferentiable_methods(
    np.random.RandomState, *(name for name in _RANDOM if hasattr(np.random.RandomState, name))
)

# --- ndarray methods and attributes ----------------------------------------
nondifferentiable_methods(
    np.ndarray, "argmax", "argmin", "argsort", "argpartition", "nonzero", "searchsorted",
    "any", "all", "round", "__len__", "__bool__", "__int__", "__index__",
)
nondifferentiable_attrs(
    np.ndarray, "shape", "ndim", "dtype", "size", "itemsize", "nbytes", "strides", "flags",
)

# --- containers: keys, membership, positions ---------------------------------
nondifferentiable_methods(dict, "keys", "__contains__", "__len__")
nondifferentiable_methods(list, "index", "count", "__contains__", "__len__")
nondifferentiable_methods(tuple, "index", "count", "__contains__", "__len__")
nondifferentiable_methods(str, "join", "format", "split", "strip", "lower", "upper", "startswith",
                          "endswith", "replace")

# --- more index-, count- and set-valued functions; real-only parts ----------
# np.imag and np.angle of a real array are constant (0, and 0 or pi).
nondifferentiable(
    np.unique, getattr(np, "unique_values", None), getattr(np, "unique_counts", None),
    getattr(np, "unique_inverse", None), getattr(np, "unique_all", None), np.isin,
    np.histogram, np.histogram_bin_edges, np.histogram2d, np.histogramdd,
    np.spacing, np.nextafter, np.isnat, np.iscomplex, np.imag, np.angle,
    np.tril_indices_from, np.triu_indices_from, np.diag_indices_from, np.mask_indices,
    np.packbits, np.unpackbits, getattr(np, "bitwise_count", None),
    np.issubdtype, getattr(np, "isdtype", None), np.iterable, np.linalg.matrix_rank,
    np.sort_complex,
)
nondifferentiable(math.nextafter, math.ulp)
nondifferentiable_methods(np.ndarray, "tobytes", "tofile", "nonzero")
nondifferentiable_attrs(np.ndarray, "imag")
nondifferentiable(getattr(np.random, "get_bit_generator", None),
                  getattr(np.random, "set_bit_generator", None))
nondifferentiable_attrs(np.random.Generator, "bit_generator")
