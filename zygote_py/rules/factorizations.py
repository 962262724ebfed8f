"""Rules for matrix factorizations and the functions built on them: cholesky, qr,
eigh, eigvalsh, svd, svdvals, pinv, lstsq.

Real arrays, and complex ones for svd/svdvals and eigh/eigvalsh (their complex
variants at the end, in docs/complex.md's covector convention); stacks of
matrices (leading batch axes) work throughout.
The factorizations return several arrays (NumPy's named tuples); their
cotangent `g` arrives as a tuple with None for the unused parts, or as a dict
{field: cotangent} when the function read `result.S` and so on (`output_parts`
turns both into a tuple).

Triangle convention: `cholesky` and `eigh`/`eigvalsh` read only one triangle
of their argument (the lower one by default; the other one is never looked
at).  Their rules give the exact derivative of what NumPy computes: the
cotangent is zero on the unread triangle and the off-diagonal entries of the
read triangle carry both halves of the symmetric gradient.  Against any
symmetric perturbation (the usual case: A = X @ X.T) this agrees with the
symmetrised gradient of JAX and PyTorch; against an arbitrary one it is the
only answer that matches finite differences.

Degenerate inputs are not special-cased: eigh needs distinct eigenvalues when
eigenvectors are used, svd distinct non-zero singular values when U or Vh are
used, qr a full-rank input, pinv/lstsq a full-rank matrix.
"""

from __future__ import annotations

import numpy as np

from zygote_py.errors import NoDerivativeRule
from zygote_py.rules.registry import complex_variant, since, vjp

# ---------------------------------------------------------------------------
# helpers (called from rule bodies)


def output_parts(g, y):
    """The cotangent of a tuple-valued output as a tuple aligned with y (None = zero).

    g is a tuple/list when the function unpacked or indexed the result, and a
    dict {field name: cotangent} when it read the named tuple's attributes.
    """
    if g is None:
        return (None,) * len(y)
    if isinstance(g, dict):
        fields = getattr(y, "_fields", ())
        return tuple(g.get(name, g.get(i)) for i, name in enumerate(fields or range(len(y))))
    return tuple(g)


def _t(x):
    return np.swapaxes(x, -1, -2)


def _zeros_if_none(g, like):
    return np.zeros(like.shape, dtype=like.dtype) if g is None else g


def _fold_triangle(s, lower):
    """Cotangent of a function reading one triangle of A, from a matrix s whose
    symmetric part is the gradient with respect to a symmetric A."""
    both = s + _t(s)
    diag = np.diagonal(s, axis1=-2, axis2=-1)[..., None] * np.eye(s.shape[-1])
    return (np.tril(both, -1) if lower else np.triu(both, 1)) + diag


def _reciprocal_gaps(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it."""
    gaps = w[..., None, :] - w[..., :, None]
    eye = np.eye(w.shape[-1], dtype=bool)
    return np.where(eye, 0.0, 1.0 / np.where(eye, 1.0, gaps))


def _cholesky_cotangent(g, y, upper):
    """A = L L^T: S = L^-T Phi(L^T L_bar) L^-1 (Phi: lower triangle, halved diagonal)."""
    low = _t(y) if upper else y
    gl = _t(g) if upper else g
    p = _t(low) @ gl
    p = np.tril(p) - 0.5 * np.diagonal(p, axis1=-2, axis2=-1)[..., None] * np.eye(p.shape[-1])
    x = np.linalg.solve(_t(low), p)
    s = _t(np.linalg.solve(_t(low), _t(x)))
    return _fold_triangle(s, not upper)


def _qr_square_or_tall(gq, gr, q, r):
    """m >= n: A_bar = (Q_bar + Q copyltu(M)) R^-T with M = R R_bar^T - Q_bar^T Q."""
    m = r @ _t(gr) - _t(gq) @ q
    copyltu = np.tril(m) + _t(np.tril(m, -1))
    b = gq + q @ copyltu
    return _t(np.linalg.solve(r, _t(b)))


def _qr_cotangent(g, y, a, mode):
    a = np.asarray(a)
    rows, cols = a.shape[-2], a.shape[-1]
    if mode == "r":
        q, r = np.linalg.qr(a)
        gq, gr = None, g
    elif mode in ("reduced", "complete") and (mode == "reduced" or rows == cols):
        q, r = y
        gq, gr = output_parts(g, y)
    else:
        raise NotImplementedError(f"zygote_py: no derivative rule for np.linalg.qr(mode={mode!r}) "
                                  "of a non-square matrix")
    gq = _zeros_if_none(gq, q)
    gr = _zeros_if_none(gr, r)
    if rows >= cols:
        return _qr_square_or_tall(gq, gr, q, r)
    # Wide A = [X | Y]: X = Q R[:, :m] is a square QR, Y = Q R[:, m:].
    gv = gr[..., :, rows:]
    gx = _qr_square_or_tall(gq + a[..., :, rows:] @ _t(gv), gr[..., :, :rows], q, r[..., :, :rows])
    return np.concatenate([gx, q @ gv], axis=-1)


def _eigh_cotangent(gw, gv, w, v, lower):
    """A = V diag(w) V^T: S = V (diag(w_bar) + F * (V^T V_bar)) V^T."""
    if gw is None and gv is None:
        return None
    inner = 0.0 if gv is None else _reciprocal_gaps(w) * (_t(v) @ gv)
    if gw is not None:
        inner = inner + gw[..., None] * np.eye(w.shape[-1])
    return _fold_triangle(v @ inner @ _t(v), lower)


def _svd_cotangent(gu, gs, gvh, u, s, vh):
    """Reduced SVD A = U diag(s) Vh (Townsend, "Differentiating the SVD", 2016)."""
    if gu is None and gs is None and gvh is None:
        return None
    v = _t(vh)
    inner = 0.0
    if gs is not None:
        inner = gs[..., None] * np.eye(s.shape[-1])
    if gu is None and gvh is None:
        return u @ inner @ vh
    f = _reciprocal_gaps(s * s)
    out = 0.0
    if gu is not None:
        utgu = _t(u) @ gu
        inner = inner + (f * (utgu - _t(utgu))) * s[..., None, :]
        proj = gu - u @ utgu  # (I - U U^T) U_bar
        out = out + (proj / s[..., None, :]) @ vh
    if gvh is not None:
        gv = _t(gvh)
        vtgv = _t(v) @ gv
        inner = inner + s[..., :, None] * (f * (vtgv - _t(vtgv)))
        proj = gv - v @ vtgv  # (I - V V^T) V_bar
        out = out + u @ _t(proj / s[..., None, :])
    return u @ inner @ vh + out


def _svd_rule_cotangent(g, y, a, full_matrices, compute_uv, hermitian):
    if hermitian:
        raise NoDerivativeRule("no derivative rule for np.linalg.svd(hermitian=True)", None,
                               "call np.linalg.svd without hermitian=True")
    if not compute_uv:
        u, _, vh = np.linalg.svd(a, full_matrices=False)
        return (u * g[..., None, :]) @ vh
    u, s, vh = y
    if full_matrices and u.shape[-1] != vh.shape[-2]:
        raise NotImplementedError("zygote_py: no derivative rule for np.linalg.svd(full_matrices=True) "
                                  "of a non-square matrix; pass full_matrices=False")
    gu, gs, gvh = output_parts(g, y)
    return _svd_cotangent(gu, gs, gvh, u, s, vh)


def _pinv_cotangent(g, p, a):
    """P = pinv(A) of full rank: the adjoint of dP = -P dA P + P P^T dA^T (I - A P)
    + (I - P A) dA^T P^T P (Golub and Pereyra)."""
    pt = _t(p)
    gt = _t(g)
    left = -(pt @ g @ pt)
    mid = (gt - a @ (p @ gt)) @ (p @ pt)
    right = (pt @ p) @ (gt - (gt @ p) @ a)
    return left + mid + right


def _lstsq_cotangents(g, y, a, b):
    """x = pinv(a) b and residuals = |a x - b|^2 per column; rank and s carry none."""
    gx, gres, _, gs = output_parts(g, y)
    if gs is not None:
        raise NotImplementedError("zygote_py: no derivative rule for the singular values of "
                                  "np.linalg.lstsq; use np.linalg.svdvals")
    x = y[0]
    vector = np.ndim(b) == 1
    x2 = x[:, None] if vector else x
    b2 = b[:, None] if vector else b
    ga = 0.0
    gb = 0.0
    if gx is not None:
        p = np.linalg.pinv(a)
        gx2 = gx[:, None] if vector else gx
        gb = gb + p.T @ gx2
        ga = ga + _pinv_cotangent(gx2 @ b2.T, p, a)
    if gres is not None and np.size(gres):
        resid = a @ x2 - b2
        ga = ga + 2.0 * (resid * gres) @ x2.T
        gb = gb - 2.0 * resid * gres
    gb = np.reshape(gb, np.shape(b)) if np.ndim(gb) else None
    return (ga if np.ndim(ga) else None), gb


# ---------------------------------------------------------------------------
# rules


@vjp(np.linalg.cholesky, diff=("a",))
def cholesky(g, y, a, *, upper=False):
    """Reads the lower triangle of a (the upper one with upper=True); see the module notes."""
    return _cholesky_cotangent(g, y, upper)


@vjp(np.linalg.qr, diff=("a",))
def qr(g, y, a, mode="reduced"):
    """Modes 'reduced' and 'r' for any shape (full rank), 'complete' for square a."""
    return _qr_cotangent(g, y, a, mode)


@vjp(np.linalg.eigh, diff=("a",))
def eigh(g, y, a, UPLO="L"):
    """Reads one triangle of a (UPLO); eigenvalues must be distinct if V is used."""
    gw, gv = output_parts(g, y)
    return _eigh_cotangent(gw, gv, y[0], y[1], UPLO == "L")


@vjp(np.linalg.eigvalsh, diff=("a",))
def eigvalsh(g, y, a, UPLO="L"):
    """The eigenvalues alone: A_bar = V diag(w_bar) V^T folded onto the triangle read."""
    w, v = np.linalg.eigh(a, UPLO)
    return _eigh_cotangent(g, None, w, v, UPLO == "L")


@vjp(np.linalg.svd, diff=("a",))
def svd(g, y, a, full_matrices=True, compute_uv=True, hermitian=False):
    """Distinct non-zero singular values when U or Vh are used; full_matrices=True
    only for square a (the extra columns of U or Vh are not determined by a)."""
    return _svd_rule_cotangent(g, y, a, full_matrices, compute_uv, hermitian)


@vjp(since(np.linalg, "svdvals", "NumPy 2.0"), diff=("x",))
def svdvals(g, y, x):
    """A_bar = U diag(s_bar) Vh: defined for every input with distinct singular values."""
    return _svd_rule_cotangent(g, y, x, False, False, False)


@vjp(np.linalg.pinv, diff=("a",))
def pinv(g, y, a, rcond=None, hermitian=False, **kwargs):
    """Full-rank a (the pseudo-inverse jumps where the rank changes)."""
    return _pinv_cotangent(g, y, a)


@vjp(np.linalg.lstsq, diff=("a", "b"))
def lstsq(g, y, a, b, rcond=None):
    """Full-rank a: the solution and the residuals are differentiable."""
    return _lstsq_cotangents(g, y, a, b)


# ---------------------------------------------------------------------------
# complex variants (docs/complex.md).  Each formula is derived for X with
# dL = Re tr(X^H dA) and returns conj(X), the covector; the covectors of U and Vh
# come in as conj(U_bar) and Vh_bar = V_bar^T the same way.  For real input each
# reduces to the real rule's formula above.


def _h(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _complex_svd_cotangent(gu, gs, gvh, u, s, vh):
    """A = U S V^H (reduced).  The phases of the singular vectors are arbitrary, so
    the loss must not depend on them (|U|, U S V^H, ...); the gauge is fixed with
    V^H dV's diagonal zero, which leaves U's the imaginary part i Im(U^H U_bar)_ii / s_i."""
    if gu is None and gs is None and gvh is None:
        return None
    k = s.shape[-1]
    eye = np.eye(k)
    inner = 0.0 if gs is None else np.real(gs)[..., None] * eye
    if gu is None and gvh is None:
        return np.conj(u @ inner @ vh)
    f = _reciprocal_gaps(s * s)
    v = _h(vh)
    out = 0.0
    if gu is not None:
        u_bar = np.conj(gu)
        pu = _h(u) @ u_bar
        j = f * pu
        inner = inner + (j + _h(j)) * s[..., None, :]
        inner = inner + (1j * np.imag(np.diagonal(pu, axis1=-2, axis2=-1)) / s)[..., None] * eye
        out = out + ((u_bar - u @ pu) / s[..., None, :]) @ vh  # (I - U U^H) U_bar S^-1 V^H
    if gvh is not None:
        v_bar = np.swapaxes(gvh, -1, -2)
        pv = _h(v) @ v_bar
        kk = f * pv
        inner = inner + s[..., :, None] * (kk + _h(kk))
        out = out + (u / s[..., None, :]) @ _h(v_bar - v @ pv)  # U S^-1 V_bar^H (I - V V^H)
    return np.conj(u @ inner @ vh + out)


@complex_variant(np.linalg.svd)
def complex_svd(g, y, a, full_matrices=True, compute_uv=True, hermitian=False):
    """Complex a: distinct non-zero singular values when U or Vh are used, a loss that
    does not depend on their phases; full_matrices=True only for square a."""
    if not np.iscomplexobj(a):
        return _svd_rule_cotangent(g, y, a, full_matrices, compute_uv, hermitian)
    if hermitian:
        raise NoDerivativeRule("no derivative rule for np.linalg.svd(hermitian=True)", None,
                               "call np.linalg.svd without hermitian=True")
    if not compute_uv:
        u, _, vh = np.linalg.svd(a, full_matrices=False)
        return np.conj((u * np.real(g)[..., None, :]) @ vh)
    u, s, vh = y
    if full_matrices and u.shape[-1] != vh.shape[-2]:
        raise NotImplementedError("zygote_py: no derivative rule for np.linalg.svd(full_matrices=True) "
                                  "of a non-square matrix; pass full_matrices=False")
    gu, gs, gvh = output_parts(g, y)
    return _complex_svd_cotangent(gu, gs, gvh, u, s, vh)


@complex_variant(getattr(np.linalg, "svdvals", None))  # NumPy 2.0 on
def complex_svdvals(g, y, x):
    if not np.iscomplexobj(x):
        return _svd_rule_cotangent(g, y, x, False, False, False)
    u, _, vh = np.linalg.svd(x, full_matrices=False)
    return np.conj((u * np.real(g)[..., None, :]) @ vh)


def _fold_hermitian(s, lower):
    """The cotangent of a function reading one triangle of a Hermitian A (LAPACK takes
    the other triangle as its conjugate and the diagonal as real), from s with
    dL = Re tr(s^H dH); returned as the X of dL = Re tr(X^H dA)."""
    both = s + _h(s)
    diag = np.real(np.diagonal(s, axis1=-2, axis2=-1))[..., None] * np.eye(s.shape[-1])
    return (np.tril(both, -1) if lower else np.triu(both, 1)) + diag


def _complex_eigh_cotangent(gw, gv, w, v, lower):
    """A = V diag(w) V^H: s = V (diag(w_bar) + F * (V^H V_bar)) V^H, folded onto the
    triangle read; the loss must not depend on the eigenvectors' phases."""
    if gw is None and gv is None:
        return None
    inner = 0.0 if gv is None else _reciprocal_gaps(w) * (_h(v) @ np.conj(gv))
    if gw is not None:
        inner = inner + np.real(gw)[..., None] * np.eye(w.shape[-1])
    return np.conj(_fold_hermitian(v @ inner @ _h(v), lower))


@complex_variant(np.linalg.eigh)
def complex_eigh(g, y, a, UPLO="L"):
    """Complex Hermitian a, one triangle read (UPLO); distinct eigenvalues if V is used."""
    gw, gv = output_parts(g, y)
    if not np.iscomplexobj(a):
        return _eigh_cotangent(gw, gv, y[0], y[1], UPLO == "L")
    return _complex_eigh_cotangent(gw, gv, y[0], y[1], UPLO == "L")


@complex_variant(np.linalg.eigvalsh)
def complex_eigvalsh(g, y, a, UPLO="L"):
    w, v = np.linalg.eigh(a, UPLO)
    if not np.iscomplexobj(a):
        return _eigh_cotangent(g, None, w, v, UPLO == "L")
    return _complex_eigh_cotangent(g, None, w, v, UPLO == "L")
