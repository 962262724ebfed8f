"""Functions, methods and attributes whose results carry no derivative.

A call to one of these produces no adjoint: its result is a constant to the
compiler (comparisons, rounding, integer and boolean logic, argmax/argsort,
shapes and sizes, array constructors that take no values, random draws that no argument
moves).  A function is listed here only where its result is constant in every argument
that may carry a derivative (piecewise constant counts): listing one whose values move
with an argument would make its derivative a silent zero.
"""

from __future__ import annotations

import bisect
import builtins
import math
import operator

import numpy as np

from zygote_py.rules import operators
from zygote_py.rules.registry import (
    nondifferentiable,
    nondifferentiable_as,
    nondifferentiable_attrs,
    nondifferentiable_methods,
    since,
)
from zygote_py.runtime import built_objects, complex_guard, containers, helpers, iterators

# --- Python operators ------------------------------------------------------
nondifferentiable(
    operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
    operator.not_, operator.truth, operator.is_, operator.is_not, operator.contains,
    operator.and_, operator.or_, operator.xor, operator.invert, operator.inv,
    operator.lshift, operator.rshift, operator.index, operator.floordiv,
    operator.countOf, operator.indexOf, operator.length_hint,
)

# --- builtins --------------------------------------------------------------
# zip, enumerate, reversed and the other iterator builtins have rules: lowering
# replaces them by the forms in runtime/iterators.py (rules/iterators.py).
nondifferentiable(
    builtins.len, builtins.range, builtins.int, builtins.bool, builtins.round,
    builtins.isinstance, builtins.issubclass, builtins.type,
    builtins.print, builtins.id, builtins.hash,
    builtins.str, builtins.repr, builtins.format, builtins.callable, builtins.hasattr,
    builtins.any, builtins.all, builtins.ord, builtins.chr,
    builtins.slice,  # x[a:b]: the bounds are positions, never differentiated
)

# whether a power's adjoint may divide y by a instead of taking a ** (b - 1): a test
nondifferentiable(operators._quotient_is_slope)

# a check that raises for an update of a list or dict the function did not create
nondifferentiable(containers.refuse_container_update)
nondifferentiable(iterators.begin_ahead)
nondifferentiable(iterators.check_ahead_method)
nondifferentiable(iterators.check_iterable)
nondifferentiable(iterators.type_of)
nondifferentiable(iterators.isinstance_of)
nondifferentiable(containers.require_existing_key)
nondifferentiable(containers.radd_first)
# the positions of a list's items in sorted order (integers), which the rules of sorted and
# list.sort compute in their bodies: met when forward mode runs those bodies (a Hessian)
nondifferentiable(containers.sort_order)
# a check gradient code makes in its backward (a complex operand of a real-only rule): code
# that differentiates gradient code again runs it as it is
nondifferentiable(complex_guard.refuse_complex)
# the flag generated pullback code sets on its back (`back._zp_effects = True`), lowered as a
# call when that code is differentiated again
nondifferentiable(helpers.flag_function)
# whether a back must run (a boolean test generated code makes before calling it), met when
# gradient code is differentiated in reverse once more
nondifferentiable(built_objects.must_run_back)

# --- NumPy's integer and boolean types called as casts (np.int64(x)): integers
nondifferentiable(
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.intp, np.uintp,
)
# listed as NumPy 2 names it (np.bool is np.bool_ there; NumPy 1.x calls it numpy.bool_)
nondifferentiable_as(np.bool_, "numpy.bool")

# --- math ------------------------------------------------------------------
nondifferentiable(
    math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite,
    math.isclose, math.factorial, math.comb, math.perm, math.gcd, math.lcm, math.isqrt,
)

# --- NumPy: rounding, signs, comparisons, logic ----------------------------
nondifferentiable(
    np.sign, np.floor, np.ceil, np.trunc, np.rint, np.fix, np.round, np.around,
    np.floor_divide, np.signbit,
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
    np.count_nonzero, np.unravel_index, np.ravel_multi_index,
    np.diag_indices, np.tril_indices, np.triu_indices,
)

# --- NumPy: constructors that take no differentiable values, and shapes ----
# (np.arange has a rule: its values move with start and step; np.logspace and np.geomspace
# have none: their values move with start and stop, so an active one is refused)
nondifferentiable(
    np.zeros, np.ones, np.empty,
    np.eye, np.identity, np.tri, np.indices, np.zeros_like, np.ones_like, np.empty_like,
    np.shape, np.size, np.ndim, np.broadcast_shapes, np.result_type, np.can_cast,
    np.promote_types, np.iscomplexobj, np.isscalar, np.may_share_memory, np.shares_memory,
)

# --- NumPy: random draws (np.random.* and the methods of Generator/RandomState) --
# Only draws whose values cannot move with an argument: those that take shapes, sizes,
# seeds and integer bounds, and the discrete distributions (integer values, piecewise
# constant in their parameters).  A continuous distribution's draw moves with its
# parameters (rng.normal(mu, sigma) is mu + sigma * z for the same stream), and choice,
# permutation and shuffle move the values they are given: called with an active argument,
# they are refused (no rule), never a silent zero.
_RANDOM = (
    "binomial", "bytes", "geometric", "hypergeometric", "logseries", "multinomial",
    "negative_binomial", "poisson", "rand", "randint", "randn", "random", "random_integers",
    "random_sample", "ranf", "sample", "seed", "standard_cauchy", "standard_exponential",
    "standard_normal", "zipf", "default_rng", "get_state", "set_state",
)
nondifferentiable(*(getattr(np.random, name, None) for name in _RANDOM))
_GENERATOR_METHODS = tuple(
    name for name in _RANDOM + ("integers", "multivariate_hypergeometric", "spawn")
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
# (np.unique and its NumPy 2 forms return values of their argument, np.histogram its bin
# edges, which move with the data unless bins= gives them, np.nextafter a value next to
# its argument, np.sort_complex its values sorted: none of them is constant in an active
# argument, and with no rule they are refused when called with one)
nondifferentiable(
    np.isin,
    np.spacing, np.isnat, np.iscomplex,
    np.tril_indices_from, np.triu_indices_from, np.diag_indices_from, np.mask_indices,
    np.packbits, np.unpackbits, since(np, "bitwise_count", "NumPy 2.0"),
    np.issubdtype, since(np, "isdtype", "NumPy 2.0"), np.iterable, np.linalg.matrix_rank,
)
nondifferentiable(math.ulp)
# positions in a sorted list (integers, piecewise constant in the values searched)
nondifferentiable(bisect.bisect_left, bisect.bisect_right)
nondifferentiable_methods(np.ndarray, "tobytes", "tofile", "nonzero")
nondifferentiable(getattr(np.random, "get_bit_generator", None),
                  getattr(np.random, "set_bit_generator", None))
nondifferentiable_attrs(np.random.Generator, "bit_generator")
