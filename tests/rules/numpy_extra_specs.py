"""Numeric specs (rule_harness) for numpy.fft, scipy.signal and the other NumPy rules of
issue 15; rule_specs.py adds them to its table.  Complex arguments (C) are moved in their
real and imaginary directions, complex outputs paired as Re(sum(g * y)) (docs/complex.md).
"""

from __future__ import annotations

import numpy as np
from rule_harness import CUSTOM, C, F, R, S

fft = np.fft
EXTRA_SPECS = []


def add(*specs):
    EXTRA_SPECS.extend(spec for spec in specs if spec.target is not None)


# ---------------------------------------------------------------------------
# numpy.fft: every transform on real and complex input, with n / s / axes / norm

for norm in (None, "ortho", "forward"):
    for fn in (fft.fft, fft.ifft):
        add(F(fn, R(5), norm=norm), F(fn, C(4), norm=norm), F(fn, C(3, 4), n=6, axis=0, norm=norm),
            F(fn, R(3, 5), n=3, norm=norm))
    add(F(fft.rfft, R(6), norm=norm), F(fft.rfft, R(5), norm=norm),
        F(fft.rfft, R(4, 3), n=7, axis=0, norm=norm), F(fft.rfft, R(2, 7), n=4, norm=norm))
    add(F(fft.irfft, C(4), norm=norm), F(fft.irfft, C(4), n=7, norm=norm),
        F(fft.irfft, C(3, 5), n=4, axis=0, norm=norm), F(fft.irfft, C(2, 3), n=9, norm=norm),
        F(fft.irfft, R(5), norm=norm))
    add(F(fft.hfft, C(4), norm=norm), F(fft.hfft, C(3, 4), n=5, axis=0, norm=norm),
        F(fft.ihfft, R(6), norm=norm), F(fft.ihfft, R(2, 5), n=7, norm=norm))
for fn in (fft.fft2, fft.ifft2, fft.fftn, fft.ifftn):
    add(F(fn, R(3, 4)), F(fn, C(2, 3, 4), s=(5, 2), axes=(0, 2), norm="ortho"),
        F(fn, C(3, 4), axes=(1, 0)))
add(F(fft.fftn, C(2, 3, 4)), F(fft.ifftn, R(3, 4, 2), s=(2, 3), axes=(1, 1), note="repeated axis"))
for fn in (fft.rfft2, fft.rfftn):
    add(F(fn, R(4, 4)), F(fn, R(3, 5)), F(fn, R(2, 3, 5), s=(4, 6), axes=(0, 2), norm="ortho"),
        F(fn, R(3, 4), axes=(1, 0), norm="forward"))
for fn in (fft.irfft2, fft.irfftn):
    add(F(fn, C(4, 3)), F(fn, C(3, 4), s=(3, 5), axes=(0, 1)), F(fn, C(2, 3, 4), s=(5, 4), axes=(0, 2), norm="ortho"),
        F(fn, C(3, 4), axes=(1, 0), norm="forward"))
add(F(fft.rfftn, R(2, 3, 4)), F(fft.irfftn, C(2, 3, 3)))
for fn in (fft.fftshift, fft.ifftshift):
    add(F(fn, R(5)), F(fn, R(4, 5)), F(fn, C(4, 3), axes=1), F(fn, R(3, 4, 5), axes=(0, 2)))

# ---------------------------------------------------------------------------
# scipy.signal (only with SciPy installed)

try:
    import scipy.signal as sig
except ImportError:
    sig = None

if sig is not None:
    for mode in ("full", "same", "valid"):
        for fn in (sig.convolve, sig.correlate):
            add(F(fn, R(6), R(3), mode=mode), F(fn, R(3), R(6), mode=mode),
                F(fn, R(5), R(4), mode=mode, method="direct"),
                F(fn, C(5), C(2), mode=mode, method="fft"), F(fn, R(4, 5), C(2, 3), mode=mode),
                F(fn, C(4, 4), R(3, 2), mode=mode, method="direct"))
        for fn in (sig.fftconvolve, sig.oaconvolve):
            add(F(fn, R(7), R(4), mode=mode), F(fn, C(3, 5), R(3, 2), mode=mode),
                F(fn, R(3, 6), R(1, 3), mode=mode, axes=1), F(fn, C(2, 5), R(2, 3), mode=mode, axes=-1),
                F(fn, R(3, 6), R(3, 4), mode=mode, axes=[1]))
        for fn in (sig.convolve2d, sig.correlate2d):
            add(F(fn, R(4, 5), R(2, 3), mode=mode), F(fn, R(3, 4), R(3, 3), mode=mode),
                F(fn, C(4, 4), C(2, 2), mode=mode))
            for boundary in ("fill", "wrap", "symm"):
                add(F(fn, R(4, 5), R(3, 2), mode=mode, boundary=boundary, fillvalue=S()),
                    F(fn, R(3, 3), R(4, 3), mode="full" if mode == "valid" else mode,
                      boundary=boundary))

# ---------------------------------------------------------------------------
# np.interp with active knots (and its forward rule)


def _knots(n, lo=-1.0, hi=2.0):
    """n sorted knots in [lo, hi], at least 0.2 apart."""
    def draw(rng):
        return np.sort(rng.uniform(lo, hi - 0.2 * n, n)) + 0.2 * np.arange(n)
    return CUSTOM(draw, f"knots{n}")


add(F(np.interp, R(7, lo=-0.9, hi=1.9), _knots(5), R(5)),
    F(np.interp, R(3, 2, lo=-2.0, hi=3.0), _knots(4), R(4)),
    F(np.interp, R(6, lo=-2.0, hi=3.0), _knots(5), R(5), left=S(), right=S()),
    F(np.interp, S(-0.5, 1.5), _knots(3, -1.0, 2.5), [S(), S(), S()]),
    F(np.interp, R(5, lo=-0.5, hi=1.5), [S(-1.0, -0.7), S(0.1, 0.3), S(1.0, 1.4)], R(3)))

# ---------------------------------------------------------------------------
# strided reads, np.block, np.cov / corrcoef, trapezoid / trapz, polyval, eig / eigvals

from numpy.lib.stride_tricks import as_strided, sliding_window_view

newer_trapz = getattr(np, "trapz", None)


def _contiguous(*shape):
    return CUSTOM(lambda rng: rng.standard_normal(shape), f"R{'x'.join(map(str, shape))}")


add(F(sliding_window_view, R(7), 3), F(sliding_window_view, R(4, 5), (2, 3)),
    F(sliding_window_view, C(5, 4), 2, axis=0), F(sliding_window_view, R(3, 6), (2, 2), axis=(1, 1)),
    F(as_strided, R(6), shape=(4, 3), strides=(8, 8), note="overlapping windows"),
    F(as_strided, R(3, 4), shape=(2, 2), strides=(64, 8), note="every other row"),
    F(as_strided, C(5), shape=(3,), strides=(32,)),
    F(as_strided, R(2, 3), shape=(3, 2), strides=(8, 24), note="a transpose"))
add(F(np.block, [R(2, 3), R(2, 2)]), F(np.block, [[R(2, 2), R(2, 3)], [R(1, 5)]]),
    F(np.block, [[C(2, 2), R(2, 1)], [R(1, 2), S()]]), F(np.block, R(3)),
    F(np.block, [[[R(1, 2, 2)], [R(1, 1, 2)]]]))
add(F(np.cov, R(3, 6)), F(np.cov, R(6)), F(np.cov, R(6, 3), rowvar=False),
    F(np.cov, R(2, 5), R(5), bias=True), F(np.cov, R(5, 2), R(5, 1), rowvar=False, ddof=2),
    F(np.cov, R(3, 6), fweights=np.array([1, 2, 1, 3, 1, 1])),
    F(np.cov, R(2, 6), aweights=np.array([0.5, 1.0, 2.0, 1.5, 0.7, 1.2]), ddof=1),
    F(np.corrcoef, R(3, 6)), F(np.corrcoef, R(6), R(6)), F(np.corrcoef, R(6, 2), rowvar=False),
    F(np.corrcoef, R(2, 5), R(1, 5)))
add(F(getattr(np, "trapezoid", None), R(6), dx=S(0.5, 2)), F(getattr(np, "trapezoid", None), R(3, 5), axis=0),
    F(getattr(np, "trapezoid", None), R(3, 5), CUSTOM(lambda rng: np.sort(rng.standard_normal(5)), "sorted5")),
    F(newer_trapz, R(6)), F(newer_trapz, R(3, 5), CUSTOM(lambda rng: np.sort(rng.standard_normal(5)), "sorted5")),
    F(np.polyval, R(4), R(5)), F(np.polyval, [S(), S(), S()], S()), F(np.polyval, R(1), R(3)))


def _pairs(rng):
    """A real 4x4 matrix with two well separated complex-conjugate pairs of eigenvalues.
    (LAPACK's sign of an eigenvector of a random matrix can flip between a +-1e-6 step, a
    discontinuity of NumPy's eig itself: these specs keep away from one.)"""
    blocks = np.zeros((4, 4))
    blocks[:2, :2] = [[1.0, 2.0], [-2.0, 1.0]]
    blocks[2:, 2:] = [[-1.0, 0.7], [-0.7, -1.0]]
    basis = np.eye(4) + 0.3 * rng.standard_normal((4, 4))
    return basis @ blocks @ np.linalg.inv(basis)


def _spread(n, complex_=False, real_spectrum=False, batch=()):
    """Matrices with well separated eigenvalues (real ones: V diag(w) V^-1, w spread)."""
    def draw(rng):
        if real_spectrum:
            v = rng.standard_normal(batch + (n, n)) + 2.0 * np.eye(n)
            w = np.arange(1, n + 1) * 1.5 + rng.uniform(-0.3, 0.3, batch + (n,))
            return (v * w[..., None, :]) @ np.linalg.inv(v)
        a = rng.standard_normal(batch + (n, n))
        if complex_:
            a = a + 1j * rng.standard_normal(batch + (n, n))
        return a
    return CUSTOM(draw, f"eig{n}{'c' if complex_ else ''}{'r' if real_spectrum else ''}{batch}")


def _eig_cotangent(y, rng):
    w, v = y
    def draw(like):
        out = rng.standard_normal(like.shape)
        return out + 1j * rng.standard_normal(like.shape) if np.iscomplexobj(like) else out
    return (draw(w), draw(v))


def _eig_values_only(y, rng):
    w, v = y
    return (rng.standard_normal(w.shape) + 1j * rng.standard_normal(w.shape), np.zeros_like(v))


L = np.linalg
add(F(L.eigvals, _spread(4)), F(L.eigvals, _spread(3, complex_=True)),
    F(L.eigvals, _spread(3, real_spectrum=True)), F(L.eigvals, _spread(3, batch=(2,))),
    F(L.eig, _spread(3, real_spectrum=True), g=_eig_cotangent, note="real spectrum"),
    # eigenvalues only: which entry of a complex eigenvector LAPACK makes real can change
    # within a finite-difference step here on some LAPACK builds (NumPy 2.5's); the
    # eigenvector cotangents are checked on the matrices below
    F(L.eig, CUSTOM(_pairs, "pairs4"), g=_eig_values_only, note="complex pairs"),
    F(L.eig, _spread(3, complex_=True), g=_eig_cotangent),
    F(L.eig, _spread(3, batch=(2,)), g=_eig_cotangent),
    F(L.eig, _spread(3), g=lambda y, rng: (_eig_cotangent(y, rng)[0], None), note="values only"),
    F(L.eig, _spread(3, complex_=True), g=lambda y, rng: (None, _eig_cotangent(y, rng)[1]),
      note="vectors only"))

# ---------------------------------------------------------------------------
# scipy.integrate.odeint (adjoint method; the derivative of the exact solution, so the
# forward solve is asked for a fine tolerance)

try:
    from scipy import integrate
except ImportError:
    integrate = None


def damped_pendulum(y, t, theta, w):
    return np.array([y[1], -theta * np.sin(y[0]) - w[0] * y[1] + w[1] * t])


def logistic_growth(t, y, r):
    return r * y * (1.0 - y)


def _named(fn):
    """A function argument with a stable label (a test id must not hold an address)."""
    return CUSTOM(lambda rng: fn, fn.__name__)


if integrate is not None:
    _TIMES = CUSTOM(lambda rng: np.sort(rng.uniform(0.0, 2.0, 4)), "times4")
    _RATES = CUSTOM(lambda rng: rng.uniform(0.5, 2.0, 2), "rates2")
    add(F(integrate.odeint, _named(damped_pendulum), R(2), _TIMES, args=(S(0.5, 1.5), _RATES),
          rtol=1e-12, atol=1e-12),
        F(integrate.odeint, _named(logistic_growth), CUSTOM(lambda rng: rng.uniform(0.1, 0.3, 1), "y0"),
          np.linspace(0.0, 1.0, 3), args=(S(0.5, 1.5),), tfirst=True, rtol=1e-12, atol=1e-12))


def _ivp_field(t, y, theta, w):
    return np.array([y[1], -theta * np.sin(y[0]) - w[0] * y[1] + w[1] * t])


if integrate is not None:
    add(F(integrate.solve_ivp, _named(_ivp_field), (0.0, 1.5), R(2), t_eval=np.array([0.3, 0.9, 1.5]),
          args=(S(0.5, 1.5), CUSTOM(lambda rng: rng.uniform(0.5, 2.0, 2), "rates2")), rtol=1e-12,
          atol=1e-12, g=lambda y, rng: {"y": rng.standard_normal(y.y.shape)}),
        F(integrate.solve_ivp, _named(logistic_growth), (0.0, 1.0), [S(0.1, 0.3)], method="LSODA",
          t_eval=np.array([0.0, 0.5, 1.0]), args=(S(0.5, 1.5),), rtol=1e-12, atol=1e-12,
          g=lambda y, rng: {"y": rng.standard_normal(y.y.shape)}))


# ---------------------------------------------------------------------------
# np.gradient (uniform and coordinate spacings, both edge orders, several axes: a tuple
# output) and np.real_if_close (of real values, and of complex ones far from real)

_COORDS7 = CUSTOM(lambda rng: np.cumsum(rng.uniform(0.5, 1.5, 7)), "coords7")
add(F(np.gradient, R(7)), F(np.gradient, R(7), 0.3, edge_order=2), F(np.gradient, R(7), _COORDS7),
    F(np.gradient, R(7), _COORDS7, edge_order=2), F(np.gradient, R(2)),
    F(np.gradient, R(5, 4), 0.5, 2.0), F(np.gradient, R(5, 4), axis=0),
    F(np.gradient, R(4, 3, 5), axis=(0, -1), edge_order=2))
add(F(np.real_if_close, R(3, 2)), F(np.real_if_close, C(3)))  # nearly real: test_numpy_extra_end_to_end
