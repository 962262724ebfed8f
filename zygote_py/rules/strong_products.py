"""The strong zero for products that sum over an axis (`@`, dot, einsum, tensordot, ...).

The elementwise rules pass their product through `runtime.strong_zero`: a zero
cotangent entry contributes exactly 0 even where the local partial is inf or nan.
A contraction mixes many products in one sum: the cotangent of `a` in `a @ b` is
`g @ b.T`, whose entry (i, k) sums g[i, j] * b[k, j] over j.  One infinite b[k, j]
against a zero g[i, j] makes the whole entry nan, although that term is 0 under
the strong zero and every other term is finite.

`strong_contraction(product, result, g, *factors)` gives such a product the same
convention.  `product` must be multilinear in (g, *factors): every entry of its
result a sum of terms g[..] * f1[..] * ... * fm[..] with no constant factor (a
sign flip or a scale is applied by the caller, outside).  `result` is
`product(g, *factors)` as computed normally.  When it has no nan (the common case:
one pass over the result) it is returned as it is.  Otherwise its nan entries are
recomputed exactly under the convention: terms whose g entry is 0 count 0, the
others follow IEEE arithmetic.  Each term is one of: 0 (a zero g), finite, +inf,
-inf or nan, and which it is depends only on which class (zero, finite nonzero,
+-inf, nan) each of its factors' entries is in.  Counting the terms of each kind
per output entry is `product` applied to 0/1 (and +-1) indicator arrays, exact
in float64; the finite part is `product` of the factors with their non-finite
entries zeroed.  An entry is then nan if one of its terms is nan or it mixes
+inf and -inf terms, +-inf if it has infinite terms of one sign, else the finite
part.  That costs seven more evaluations of `product`, on the rare path only.

Entries that are not nan in `result` are kept as computed: a nan-free sum has no
0 * inf term, so the strong zero changes nothing there.  Complex products are
returned as computed (the classes above are for real numbers): a nan there stays.
"""

from __future__ import annotations

import math

import numpy as np

_ndarray = np.ndarray


_isnan = math.isnan
_isfinite = math.isfinite


def has_nan(r) -> bool:
    """Whether a product's result holds a nan (one pass, no copy, for a float array)."""
    if type(r) is _ndarray:
        if r.dtype.kind == "f":
            return r.size != 0 and _isnan(np.minimum.reduce(r, None))
        return False  # integers; complex: returned as computed (see the module docstring)
    if type(r) is float:
        return _isnan(r)
    if isinstance(r, (np.floating, np.ndarray)):
        return bool(np.isnan(r).any()) if np.asarray(r).dtype.kind == "f" else False
    return False


def _finite(x) -> bool:
    """Whether every entry of x is finite (one BLAS pass; an overflow of the squares,
    |x| > 1e154, answers False, which only sends the caller to the exact test)."""
    if type(x) is _ndarray:
        return x.dtype.kind not in "fc" or _isfinite(abs(np.vdot(x, x)))
    if type(x) is float:
        return _isfinite(x)
    return bool(np.all(np.isfinite(x))) if np.asarray(x).dtype.kind in "fc" else True


# Below this many entries a product's result is tested itself: the test's fixed cost is
# the call, not the pass.
_SMALL = 4096


def repair_needed(r, *inputs) -> bool:
    """Whether the strong zero may change the product r of the inputs: only a nan in r
    can change, and only where an input is not finite (0 * inf).  A large r made of
    smaller inputs (g @ h.T of two thin matrices) costs a pass over the inputs, not
    over r; otherwise r is tested."""
    if type(r) is not _ndarray or r.dtype.kind != "f":
        return has_nan(r)
    n = r.size
    if n <= _SMALL or n <= sum([np.size(x) for x in inputs]):
        return n != 0 and _isnan(np.minimum.reduce(r, None))
    for x in inputs:
        if not _finite(x):
            return _isnan(np.minimum.reduce(r, None))
    return False


def strong_contraction(product, result, g, *factors):
    """result (= product(g, *factors)), with its nan entries recomputed so that the
    terms whose g entry is exactly 0 count 0.  See the module docstring."""
    if not has_nan(result):
        return result
    if any(np.iscomplexobj(x) for x in (g, *factors)):
        return result
    g = np.asarray(g, dtype=float)
    factors = [np.asarray(f, dtype=float) for f in factors]
    with np.errstate(invalid="ignore", over="ignore"):
        g_live = g != 0  # the terms of a zero g entry count 0: leave them out of every count
        g_nan = np.isnan(g)
        g_fin = np.isfinite(g)
        nan_free = [~np.isnan(f) for f in factors]
        finite = [np.isfinite(f) for f in factors]
        nonzero = [f != 0 for f in factors]

        def count(g_mask, masks):
            return np.asarray(product(g_mask.astype(float), *[m.astype(float) for m in masks]))

        every = count(g_live, [np.ones(f.shape, dtype=bool) for f in factors])
        all_finite = count(g_live & g_fin, finite)
        no_nan_no_zero = count(g_live & ~g_nan, [n & z for n, z in zip(nan_free, nonzero)])
        finite_nonzero = count(g_live & g_fin, [f & z for f, z in zip(finite, nonzero)])
        # terms with no nan factor and (an infinite and a zero factor) are nan too:
        # every - all_finite - no_nan_no_zero + finite_nonzero counts the nan terms
        nan_terms = every - all_finite - no_nan_no_zero + finite_nonzero
        infinite = no_nan_no_zero - finite_nonzero

        def signs(g_mask, masks):
            return np.asarray(product(np.where(g_mask, np.sign(g), 0.0),
                                      *[np.where(m, np.sign(f), 0.0) for m, f in zip(masks, factors)]))

        signed = signs(g_live & ~g_nan, [n & z for n, z in zip(nan_free, nonzero)]) \
            - signs(g_live & g_fin, [f & z for f, z in zip(finite, nonzero)])
        positive = (infinite + signed) / 2
        negative = (infinite - signed) / 2
        finite_part = np.asarray(product(np.where(g_fin, g, 0.0),
                                         *[np.where(m, f, 0.0) for m, f in zip(finite, factors)]))
        repaired = np.where(positive > 0.5, np.inf, np.where(negative > 0.5, -np.inf, finite_part))
        repaired = np.where((nan_terms > 0.5) | ((positive > 0.5) & (negative > 0.5)), np.nan, repaired)
    out = np.asarray(result)
    fixed = np.where(np.isnan(out), repaired.astype(out.dtype, copy=False), out)
    if isinstance(result, np.ndarray):
        return fixed
    return type(result)(fixed[()]) if isinstance(result, (float, np.floating)) else fixed[()]
