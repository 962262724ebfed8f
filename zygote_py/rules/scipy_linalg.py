"""Rules for scipy.linalg: triangular, Cholesky and LU solves and their factorizations,
solve/inv/det, matrix functions (expm, sqrtm, logm and the trigonometric ones), eigh,
Sylvester and Lyapunov equations, block_diag.

Imported on demand when SciPy is (see scipy_support.py).  Real square matrices (no
leading batch axes, except expm); complex values are refused as for every rule
not declared for them.

Triangles.  Functions that read one triangle of their argument give the exact
derivative of what they compute: zero on the triangle never read.
solve_triangular reads the triangle `lower` names (and not the diagonal with
unit_diagonal=True); cholesky, cho_factor, eigh and solve(assume_a='pos'/'sym')
read one triangle of a symmetric matrix, so the cotangent folds both halves of
the symmetric gradient onto that triangle (see rules/factorizations.py).  The
factor cho_factor returns keeps a's other triangle as it was before SciPy 1.18 (its
cotangent passes straight back to a) and zeroes it from 1.18 on (no derivative):
the rule asks the installed SciPy which.  lu_factor
packs L (strict lower, unit diagonal) and U into one matrix; its pivots are constant.

Matrix functions f (expm, logm, sqrtm, cosm, ...) are primary matrix functions:
the forward rule is the Frechet derivative L_f(A, E) and the reverse rule its
adjoint L_f(A^T, G).  expm uses SciPy's expm_frechet; the others read L_f(A, E)
off f of the block matrix [[A, E], [0, A]] (its upper-right block).  A real matrix
with eigenvalues on the negative real axis has a complex sqrtm and logm (SciPy
returns the principal one): the tangent is then complex, and the cotangent of the
real argument is the real part of the complex one (docs/complex.md's convention:
for real E, Re<G, L(A, E)> = <Re L(A^T, G), E>, L bilinear without conjugates).
"""

from __future__ import annotations

import numpy as np

from zygote_py.rules.factorizations import (
    _cholesky_cotangent,
    _eigh_cotangent,
    _fold_triangle,
    _reciprocal_gaps,
    output_parts,
)
from zygote_py.rules.scipy_support import Library, tangent

LIB = Library("scipy.linalg")
linalg = LIB.module


# ---------------------------------------------------------------------------
# helpers (called from rule bodies)


def _t(x):
    return np.swapaxes(x, -1, -2)


def _triangle(a, lower, strict=False):
    """The triangle of a that `lower` names (without the diagonal: strict)."""
    k = 1 if strict else 0
    return np.tril(a, -k) if lower else np.triu(a, k)


def _symmetric_from(a, lower):
    """The symmetric matrix a function reading one triangle of a sees."""
    tri = _triangle(a, lower)
    return tri + _t(_triangle(a, lower, strict=True))


def _outer(u, v):
    """u v^T for matrices, the outer product for vectors (the right-hand sides' forms)."""
    return np.outer(u, v) if np.ndim(u) == 1 else u @ _t(v)


def _transposes(trans):
    """Whether a solve's trans argument asks for op(A) = A^T (real A: 'C' is 'T')."""
    return trans in (1, 2, "T", "C")


def _solve_triangular_cotangents(g, x, a, trans, lower, unit_diagonal):
    t = _transposes(trans)
    gb = linalg.solve_triangular(a, g, trans=0 if t else 1, lower=lower, unit_diagonal=unit_diagonal)
    ga = -_outer(x, gb) if t else -_outer(gb, x)
    return _triangle(ga, lower, strict=unit_diagonal), gb


def _solve_triangular_tangent(da, db, x, a, b, trans=0, lower=False, unit_diagonal=False,
                              overwrite_b=False, check_finite=True):
    t = _transposes(trans)
    dt = 0.0 if da is None else _triangle(da, lower, strict=unit_diagonal)
    moved = _t(dt) if t and da is not None else dt
    rhs = tangent(db) - (moved @ x if da is not None else 0.0)
    return linalg.solve_triangular(a, np.broadcast_to(rhs, np.shape(x)), trans=trans, lower=lower,
                                   unit_diagonal=unit_diagonal)


def _cholesky_factor_tangent(da, factor, lower):
    """The tangent of the factor (L with lower, else U = L^T) from that of a's read triangle."""
    low = factor if lower else _t(factor)
    s = _symmetric_from(da, lower)
    x = linalg.solve_triangular(low, s, lower=True)
    z = _t(linalg.solve_triangular(low, _t(x), lower=True))  # L^-1 S L^-T
    phi = np.tril(z) - 0.5 * np.diag(np.diagonal(z))
    dlow = low @ phi
    return dlow if lower else _t(dlow)


def _keeps_other_triangle():
    """Whether cho_factor leaves a's other triangle in its result (SciPy before 1.18) or
    zeroes it (1.18 on): asked of the installed SciPy itself, once."""
    if linalg is None:
        return False
    c, _ = linalg.cho_factor(np.array([[4.0, 1.0], [1.0, 4.0]]), lower=True)
    return bool(c[0, 1] == 1.0)


_CHO_FACTOR_KEEPS_OTHER_TRIANGLE = _keeps_other_triangle()


def _other_triangle(m, lower):
    """The strict triangle cho_factor does not compute: a's own entries (passed through) on
    SciPy versions that leave it, zero (no derivative) where it is zeroed."""
    return _triangle(m, not lower, strict=True) if _CHO_FACTOR_KEEPS_OTHER_TRIANGLE else 0.0


def _cho_factor_cotangent(g, y, a, lower):
    gc = output_parts(g, y)[0]
    if gc is None:
        return None
    factor = _triangle(y[0], lower)
    folded = _cholesky_cotangent(_triangle(gc, lower), factor, not lower)
    return folded + _other_triangle(gc, lower)


def _cho_factor_tangent(da, y, a, lower=False, overwrite_a=False, check_finite=True):
    dfactor = _cholesky_factor_tangent(da, _triangle(y[0], lower), lower)
    return _triangle(dfactor, lower) + _other_triangle(da, lower), None


def _cho_solve_cotangents(g, x, c_and_lower, b):
    c, lower = c_and_lower
    gb = linalg.cho_solve(c_and_lower, g)
    abar = -_outer(gb, x)
    sym = abar + _t(abar)
    factor = _triangle(c, lower)
    gc = _triangle(sym @ factor, True) if lower else _triangle(factor @ sym, False)
    return (gc, None), gb


def _cho_solve_tangent(dcl, db, x, c_and_lower, b, overwrite_b=False, check_finite=True):
    c, lower = c_and_lower
    rhs = tangent(db)
    if dcl is not None and dcl[0] is not None:
        f = _triangle(c, lower)
        df = _triangle(dcl[0], lower)
        da = df @ _t(f) + f @ _t(df) if lower else _t(df) @ f + _t(f) @ df
        rhs = rhs - da @ x
    return linalg.cho_solve(c_and_lower, np.broadcast_to(rhs, np.shape(x)))


def _row_order(piv):
    """The rows of A in the order of L U: A[order] = L U for LAPACK's swap list piv."""
    order = np.arange(len(piv))
    for i, p in enumerate(piv):
        order[i], order[p] = order[p], order[i]
    return order


def _lu_parts(lu):
    n = lu.shape[-1]
    return np.tril(lu, -1) + np.eye(n), np.triu(lu)


def _lu_factor_cotangent(g, y, a):
    """A[order] = L U: A_bar[order] = L^-T (tril_-1(L^T L_bar) + triu(U_bar U^T)) U^-T."""
    glu = output_parts(g, y)[0]
    if glu is None:
        return None
    low, up = _lu_parts(y[0])
    m = np.tril(_t(low) @ np.tril(glu, -1), -1) + np.triu(np.triu(glu) @ _t(up))
    x = linalg.solve_triangular(low, m, trans=1, lower=True, unit_diagonal=True)
    x = _t(linalg.solve_triangular(up, _t(x), lower=False))
    ga = np.zeros_like(x)
    ga[_row_order(y[1])] = x
    return ga


def _lu_factor_tangent(da, y, a, overwrite_a=False, check_finite=True):
    low, up = _lu_parts(y[0])
    f = linalg.solve_triangular(low, da[_row_order(y[1])], lower=True, unit_diagonal=True)
    f = _t(linalg.solve_triangular(up, _t(f), trans=1, lower=False))  # L^-1 P^T dA U^-1
    return low @ np.tril(f, -1) + np.triu(f) @ up, None


def _lu_solve_cotangents(g, x, lu_and_piv, b, trans):
    t = _transposes(trans)
    gb = linalg.lu_solve(lu_and_piv, g, trans=0 if t else 1)
    abar = -_outer(x, gb) if t else -_outer(gb, x)
    low, up = _lu_parts(lu_and_piv[0])
    pa = abar[_row_order(lu_and_piv[1])]  # P^T A_bar
    glu = np.tril(pa @ _t(up), -1) + np.triu(_t(low) @ pa)
    return (glu, None), gb


def _lu_solve_tangent(dlp, db, x, lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    rhs = tangent(db)
    if dlp is not None and dlp[0] is not None:
        low, up = _lu_parts(lu_and_piv[0])
        dlu = dlp[0]
        da = np.zeros_like(dlu)
        da[_row_order(lu_and_piv[1])] = np.tril(dlu, -1) @ up + low @ np.triu(dlu)
        rhs = rhs - ((_t(da) if _transposes(trans) else da) @ x)
    return linalg.lu_solve(lu_and_piv, np.broadcast_to(rhs, np.shape(x)), trans=trans)


def _symmetric_kind(assume_a):
    """False for a general solve, True for one that reads a symmetric matrix's triangle."""
    if assume_a in (None, "gen", "general"):
        return False
    if assume_a in ("sym", "her", "pos", "symmetric", "hermitian", "positive definite"):
        return True
    raise NotImplementedError(f"zygote_py: no derivative rule for scipy.linalg.solve(assume_a={assume_a!r})")


def _solve_cotangents(g, x, a, lower, assume_a, transposed):
    if _symmetric_kind(assume_a):
        gb = linalg.solve(a, g, lower=lower, assume_a=assume_a)
        return _fold_triangle(-_outer(gb, x), lower), gb
    gb = linalg.solve(a, g, transposed=not transposed)
    return (-_outer(x, gb) if transposed else -_outer(gb, x)), gb


def _solve_tangent(da, db, x, a, b, lower=False, overwrite_a=False, overwrite_b=False,
                   check_finite=True, assume_a=None, transposed=False):
    symmetric = _symmetric_kind(assume_a)
    rhs = tangent(db)
    if da is not None:
        moved = _symmetric_from(da, lower) if symmetric else (_t(da) if transposed else da)
        rhs = rhs - moved @ x
    rhs = np.broadcast_to(rhs, np.shape(x))
    if symmetric:
        return linalg.solve(a, rhs, lower=lower, assume_a=assume_a)
    return linalg.solve(a, rhs, transposed=transposed)


def _band_entries(l_and_u, n):
    """(row in the band storage, row, column) of every entry inside the band of an n x n matrix."""
    lower, upper = l_and_u
    return [(upper + i - j, i, j) for i in range(n) for j in range(max(0, i - lower), min(n, i + upper + 1))]


def _band_to_full(l_and_u, ab):
    n = ab.shape[-1]
    full = np.zeros((n, n), dtype=np.result_type(ab, float))
    for k, i, j in _band_entries(l_and_u, n):
        full[i, j] = ab[k, j]
    return full


def _full_to_band(l_and_u, a, shape):
    ab = np.zeros(shape, dtype=a.dtype)
    for k, i, j in _band_entries(l_and_u, shape[-1]):
        ab[k, j] = a[i, j]
    return ab


def _solve_banded_cotangents(g, x, l_and_u, ab, b):
    full = _band_to_full(l_and_u, np.asarray(ab))
    gb = np.linalg.solve(full.T, g)
    return _full_to_band(l_and_u, -_outer(gb, x), np.shape(ab)), gb


def _solve_banded_tangent(dab, db, x, l_and_u, ab, b, overwrite_ab=False, overwrite_b=False,
                          check_finite=True):
    full = _band_to_full(l_and_u, np.asarray(ab))
    rhs = tangent(db) - (0.0 if dab is None else _band_to_full(l_and_u, np.asarray(dab)) @ x)
    return np.linalg.solve(full, np.broadcast_to(rhs, np.shape(x)))


def _frechet_by_blocks(f, a, e):
    """L_f(a, e): the upper-right block of f([[a, e], [0, a]]), e scaled to a's size."""
    n = a.shape[-1]
    scale = max(float(np.linalg.norm(a)), 1e-300) / max(float(np.linalg.norm(e)), 1e-300)
    big = np.block([[a, e * scale], [np.zeros_like(a), a]])
    out = f(big)
    if np.iscomplexobj(out) and not np.iscomplexobj(e):
        # SciPy may hand back a complex array with zero imaginary part; a real
        # matrix whose f is really complex keeps its complex derivative.
        if np.max(np.abs(np.imag(out))) <= 1e-10 * max(1.0, float(np.max(np.abs(out)))):
            out = np.real(out)
    return out[:n, n:] / scale


def _real_part_for(arg, cotangent):
    """A real argument's share of a complex cotangent: its real part (docs/complex.md)."""
    return cotangent if np.iscomplexobj(arg) else np.real(cotangent)


def _expm_frechet(a, e):
    """Frechet derivative of expm, over leading batch axes."""
    if a.ndim == 2:
        return linalg.expm_frechet(a, e, compute_expm=False)
    flat_a = a.reshape((-1,) + a.shape[-2:])
    flat_e = np.broadcast_to(e, a.shape).reshape(flat_a.shape)
    out = np.stack([linalg.expm_frechet(x, y, compute_expm=False) for x, y in zip(flat_a, flat_e)])
    return out.reshape(a.shape)


def _sqrtm_cotangent(g, y, A):
    """Y^T X + X Y^T = G; Y complex (a real A with negative eigenvalues) solves in complex."""
    return _real_part_for(A, linalg.solve_sylvester(_t(y), _t(y), g))


def _sqrtm_tangent(da, y, A, disp=None, blocksize=None):
    return linalg.solve_sylvester(y, y, da)


def _block_diag_cotangents(g, arrs):
    parts = []
    row = col = 0
    for arr in arrs:
        rows, cols = np.atleast_2d(arr).shape
        part = g[row:row + rows, col:col + cols]
        parts.append(float(part.reshape(())) if type(arr) is float else part.reshape(np.shape(arr)))
        row += rows
        col += cols
    return tuple(parts)


def _block_diag_tangent(darrs, y, *arrs):
    return linalg.block_diag(*(np.zeros(np.shape(a)) if d is None else d
                               for d, a in zip(darrs, arrs)))


def _eigh_rule_cotangent(g, y, a, lower, eigvals_only):
    if eigvals_only:
        w, v = np.linalg.eigh(a, "L" if lower else "U")
        return _eigh_cotangent(g, None, w, v, lower)
    gw, gv = output_parts(g, y)
    return _eigh_cotangent(gw, gv, y[0], y[1], lower)


def _eigh_tangent(da, y, a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False,
                  overwrite_b=False, type=1, check_finite=True, subset_by_index=None,
                  subset_by_value=None, driver=None):
    w, v = np.linalg.eigh(a, "L" if lower else "U")
    p = _t(v) @ _symmetric_from(da, lower) @ v
    dw = np.diagonal(p, axis1=-2, axis2=-1).copy()
    if eigvals_only:
        return dw
    return dw, v @ (_reciprocal_gaps(w) * p)


def _eigvalsh_tangent(da, y, a, b=None, *, lower=True, overwrite_a=False, overwrite_b=False,
                      type=1, check_finite=True, subset_by_index=None, subset_by_value=None,
                      driver=None):
    return _eigh_tangent(da, y, a, lower=lower, eigvals_only=True)


def _sylvester_cotangents(g, x, a, b):
    gq = linalg.solve_sylvester(_t(a), _t(b), g)
    return -(gq @ _t(x)), -(_t(x) @ gq), gq


def _sylvester_tangent(da, db, dq, x, a, b, q):
    rhs = tangent(dq) - (0.0 if da is None else da @ x) - (0.0 if db is None else x @ db)
    return linalg.solve_sylvester(a, b, np.broadcast_to(rhs, np.shape(x)))


def _lyapunov_cotangents(g, x, a):
    gq = linalg.solve_continuous_lyapunov(_t(a), g)
    return -(gq @ _t(x) + _t(gq) @ x), gq


def _lyapunov_tangent(da, dq, x, a, q):
    rhs = tangent(dq) - (0.0 if da is None else da @ x + x @ _t(da))
    return linalg.solve_continuous_lyapunov(a, np.broadcast_to(rhs, np.shape(x)))


# ---------------------------------------------------------------------------
# solves and factorizations


@LIB.rule("solve_triangular", diff=("a", "b"), jvp=_solve_triangular_tangent)
def solve_triangular(g, y, a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     check_finite=True):
    """Reads the triangle `lower` names (its strict part with unit_diagonal); trans 0, 1, 2."""
    return _solve_triangular_cotangents(g, y, a, trans, lower, unit_diagonal)


def _cholesky_tangent(da, y, a, lower=False, overwrite_a=False, check_finite=True):
    return _cholesky_factor_tangent(da, y, lower)


@LIB.rule("cholesky", diff=("a",), jvp=_cholesky_tangent)
def cholesky(g, y, a, lower=False, overwrite_a=False, check_finite=True):
    """Reads the upper triangle of a (the lower one with lower=True)."""
    return _cholesky_cotangent(g, y, not lower)


@LIB.rule("cho_factor", diff=("a",), jvp=_cho_factor_tangent)
def cho_factor(g, y, a, lower=False, overwrite_a=False, check_finite=True):
    """The factor's triangle as cholesky; the other triangle is a's own, passed through."""
    return _cho_factor_cotangent(g, y, a, lower)


@LIB.rule("cho_solve", diff=("c_and_lower", "b"), jvp=_cho_solve_tangent)
def cho_solve(g, y, c_and_lower, b, overwrite_b=False, check_finite=True):
    """In the factor (its triangle) and b; the cotangent of (c, lower) is (c_bar, None)."""
    return _cho_solve_cotangents(g, y, c_and_lower, b)


@LIB.rule("lu_factor", diff=("a",), jvp=_lu_factor_tangent)
def lu_factor(g, y, a, overwrite_a=False, check_finite=True):
    """Square a; the pivots are constant (the derivative of the packed L and U)."""
    return _lu_factor_cotangent(g, y, a)


@LIB.rule("lu_solve", diff=("lu_and_piv", "b"), jvp=_lu_solve_tangent)
def lu_solve(g, y, lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """In the packed factors and b; trans 0, 1, 2."""
    return _lu_solve_cotangents(g, y, lu_and_piv, b, trans)


@LIB.rule("solve", diff=("a", "b"), jvp=_solve_tangent)
def solve(g, y, a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True,
          assume_a=None, transposed=False):
    """General a (also transposed=True), or 'sym'/'pos'/'her' (reads one triangle); other
    assume_a values are refused."""
    return _solve_cotangents(g, y, a, lower, assume_a, transposed)


@LIB.rule("solve_banded", diff=("ab", "b"), jvp=_solve_banded_tangent)
def solve_banded(g, y, l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, check_finite=True):
    """In the band (entries of ab outside the matrix get zero) and b."""
    return _solve_banded_cotangents(g, y, l_and_u, ab, b)


def _inv_tangent(da, y, a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    return -(y @ da @ y)


@LIB.rule("inv", diff=("a",), unsupported=("assume_a",), jvp=_inv_tangent)
def inv(g, y, a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    """A general matrix (assume_a= is refused)."""
    return -(_t(y) @ g @ _t(y))


def _det_tangent(da, y, a, overwrite_a=False, check_finite=True):
    return y * np.trace(np.linalg.solve(a, da), axis1=-2, axis2=-1)


@LIB.rule("det", diff=("a",), jvp=_det_tangent)
def det(g, y, a, overwrite_a=False, check_finite=True):
    """det(a) inv(a)^T (a invertible)."""
    return np.expand_dims(g * y, (-2, -1)) * _t(np.linalg.inv(a))


# ---------------------------------------------------------------------------
# matrix functions


def _expm_tangent(dA, y, A):
    return _expm_frechet(A, dA)


@LIB.rule("expm", jvp=_expm_tangent)
def expm(g, y, A):
    """The adjoint of the Frechet derivative, L(A^T, G); leading batch axes too."""
    return _expm_frechet(_t(A), g)


@LIB.rule("sqrtm", diff=("A",), unsupported=("disp",), jvp=_sqrtm_tangent)
def sqrtm(g, y, A, disp=None, blocksize=None):
    """Y^T X + X Y^T = G (a Sylvester equation); its real part when Y is complex."""
    return _sqrtm_cotangent(g, y, A)


def _logm_tangent(dA, y, A, disp=None):
    return _frechet_by_blocks(linalg.logm, A, dA)


@LIB.rule("logm", diff=("A",), unsupported=("disp",), jvp=_logm_tangent)
def logm(g, y, A, disp=None):
    """The principal logarithm; its real part when the logarithm is complex."""
    return _real_part_for(A, _frechet_by_blocks(linalg.logm, _t(A), g))


def _cosm_tangent(dA, y, A):
    return _frechet_by_blocks(linalg.cosm, A, dA)


@LIB.rule("cosm", jvp=_cosm_tangent)
def cosm(g, y, A):
    return _frechet_by_blocks(linalg.cosm, _t(A), g)


def _sinm_tangent(dA, y, A):
    return _frechet_by_blocks(linalg.sinm, A, dA)


@LIB.rule("sinm", jvp=_sinm_tangent)
def sinm(g, y, A):
    return _frechet_by_blocks(linalg.sinm, _t(A), g)


def _tanm_tangent(dA, y, A):
    return _frechet_by_blocks(linalg.tanm, A, dA)


@LIB.rule("tanm", jvp=_tanm_tangent)
def tanm(g, y, A):
    return _frechet_by_blocks(linalg.tanm, _t(A), g)


def _coshm_tangent(dA, y, A):
    return _frechet_by_blocks(linalg.coshm, A, dA)


@LIB.rule("coshm", jvp=_coshm_tangent)
def coshm(g, y, A):
    return _frechet_by_blocks(linalg.coshm, _t(A), g)


def _sinhm_tangent(dA, y, A):
    return _frechet_by_blocks(linalg.sinhm, A, dA)


@LIB.rule("sinhm", jvp=_sinhm_tangent)
def sinhm(g, y, A):
    return _frechet_by_blocks(linalg.sinhm, _t(A), g)


def _tanhm_tangent(dA, y, A):
    return _frechet_by_blocks(linalg.tanhm, A, dA)


@LIB.rule("tanhm", jvp=_tanhm_tangent)
def tanhm(g, y, A):
    return _frechet_by_blocks(linalg.tanhm, _t(A), g)


# ---------------------------------------------------------------------------
# eigenvalues, equations, block matrices


@LIB.rule("eigh", diff=("a",), unsupported=("b", "subset_by_index", "subset_by_value"),
          jvp=_eigh_tangent)
def eigh(g, y, a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False,
         type=1, check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    """The standard problem (b= refused); reads one triangle; distinct eigenvalues if V is used."""
    return _eigh_rule_cotangent(g, y, a, lower, eigvals_only)


@LIB.rule("eigvalsh", diff=("a",), unsupported=("b", "subset_by_index", "subset_by_value"),
          jvp=_eigvalsh_tangent)
def eigvalsh(g, y, a, b=None, *, lower=True, overwrite_a=False, overwrite_b=False, type=1,
             check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    """The standard problem (b= refused); reads one triangle."""
    return _eigh_rule_cotangent(g, y, a, lower, True)


@LIB.rule("solve_sylvester", jvp=_sylvester_tangent)
def solve_sylvester(g, y, a, b, q):
    """AX + XB = Q: Q_bar solves A^T Q_bar + Q_bar B^T = G; A_bar = -Q_bar X^T, B_bar = -X^T Q_bar."""
    return _sylvester_cotangents(g, y, a, b)


@LIB.rule("solve_continuous_lyapunov", jvp=_lyapunov_tangent)
def solve_continuous_lyapunov(g, y, a, q):
    """AX + XA^T = Q."""
    return _lyapunov_cotangents(g, y, a)


@LIB.rule("block_diag", diff=("arrs",), jvp=_block_diag_tangent)
def block_diag(g, y, *arrs):
    """A tuple: each block's part of g, in its argument's shape (a 1-D argument is one row)."""
    return _block_diag_cotangents(g, arrs)
