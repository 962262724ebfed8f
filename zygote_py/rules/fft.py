"""Rules for numpy.fft: the complex transforms (fft, ifft, fft2, ifft2, fftn, ifftn), the
real ones (rfft, irfft, rfft2, irfft2, rfftn, irfftn, hfft, ihfft), fftshift and ifftshift;
fftfreq and rfftfreq move with their sample spacing d only.

Every transform is linear, so its reverse rule is its transpose, under the covector
convention of docs/complex.md (the cotangent of z = u + iv is dL/du - i dL/dv):

- A complex-linear map y = A x pulls g back to A^T g: no conjugates.  The DFT matrix is
  symmetric, so fft's transpose is fft itself (with the same norm), ifft's is ifft; `n`
  and `s` crop or zero-pad the input, whose transpose pads or crops the cotangent back.
- rfft is fft restricted to real input and to the first n//2 + 1 outputs: its transpose
  pads g with zeros to n, applies fft, and keeps the real part (the input is real).
- irfft(c, n) reads only the first K = n//2 + 1 entries of c and is real-linear in their
  real and imaginary parts: y_t = (1/n) sum_k w_k Re(c_k e^{2 pi i k t / n}) with w_k = 2
  except w_0 = 1 and, for even n, w_{n/2} = 1 (the imaginary parts of those two are
  ignored).  Its pullback is c_bar_k = w_k ifft(Re g)_k: the factor 2 of the Hermitian
  weighting is where irfft rules usually go wrong.  The cotangent of a real value may
  carry a meaningless imaginary part (docs/complex.md), hence Re g.
- hfft and ihfft are irfft and rfft of a conjugate with the other norm direction, as
  NumPy defines them.

The n-dimensional transforms are chains of one-dimensional ones, in NumPy's own order
(`_steps`); their transposes walk the chain backwards.  Forward-mode rules (`jvp=`) are
the transforms themselves, applied to the tangent.
"""

from __future__ import annotations

import numpy as np

from zygote_py.rules.registry import vjp

_SWAP_NORM = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}

# ---------------------------------------------------------------------------
# helpers: one-dimensional transposes, and the n-dimensional chains


def _fit(g, length, axis):
    """g cropped or zero-padded along axis to `length` (the transpose of that fitting)."""
    have = g.shape[axis]
    if have == length:
        return g
    if have > length:
        return np.take(g, np.arange(length), axis=axis)
    pad = [(0, 0)] * g.ndim
    pad[axis] = (0, length - have)
    return np.pad(g, pad)


def _hermitian_weights(n, ndim, axis):
    """w_k of irfft's real output, shaped to broadcast along axis: 1 for the zero frequency
    (and the Nyquist one of an even n), 2 for the others."""
    weights = np.full(n // 2 + 1, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    shape = [1] * ndim
    shape[axis] = weights.size
    return np.reshape(weights, shape)


def _step_cotangent(g, kind, n, axis, in_length, norm):
    """The transpose of one 1-D step `kind` (fft, ifft, rfft or irfft) of length n, whose
    input had `in_length` entries along axis."""
    if kind == "fft":
        return _fit(np.fft.fft(g, axis=axis, norm=norm), in_length, axis)
    if kind == "ifft":
        return _fit(np.fft.ifft(g, axis=axis, norm=norm), in_length, axis)
    if kind == "rfft":
        return _fit(np.real(np.fft.fft(_fit(g, n, axis), axis=axis, norm=norm)), in_length, axis)
    spectrum = np.fft.ifft(np.real(g), axis=axis, norm=norm)
    half = np.take(spectrum, np.arange(n // 2 + 1), axis=axis)
    return _fit(half * _hermitian_weights(n, g.ndim, axis), in_length, axis)


def _step_length(kind, n):
    return n // 2 + 1 if kind == "rfft" else n


def _transpose_chain(g, shape, steps, norm):
    """The cotangent of an input of `shape` from g of the output of the 1-D steps (applied
    first to last): each step's transpose, last to first."""
    shapes = [tuple(shape)]
    for kind, n, axis in steps:
        current = list(shapes[-1])
        current[axis] = _step_length(kind, n)
        shapes.append(tuple(current))
    g = np.asarray(g)
    for (kind, n, axis), in_shape in zip(reversed(steps), reversed(shapes[:-1])):
        g = _step_cotangent(g, kind, n, axis, in_shape[axis], norm)
    return g


def _cooked(a, s, axes, inverse_real=False):
    """NumPy's (s, axes) of an n-dimensional transform, axes made non-negative."""
    shape = np.shape(a)
    ndim = len(shape)
    if s is None:
        axes = list(range(ndim)) if axes is None else [int(ax) % ndim for ax in axes]
        s = [shape[ax] for ax in axes]
        if inverse_real:
            s[-1] = (shape[axes[-1]] - 1) * 2
    else:
        s = list(s)
        axes = list(range(ndim - len(s), ndim)) if axes is None else [int(ax) % ndim for ax in axes]
        s = [shape[ax] if n == -1 else n for n, ax in zip(s, axes)]
    return s, axes


def _one_step(a, kind, n, axis):
    """The chain of one 1-D transform, with NumPy's default length."""
    length = np.shape(a)[axis]
    if n is None:
        n = (length - 1) * 2 if kind == "irfft" else length
    return [(kind, n, axis % np.ndim(a))]


def _complex_steps(a, s, axes, kind):
    """fftn/ifftn: the last axis first (NumPy's _raw_fftnd)."""
    s, axes = _cooked(a, s, axes)
    return [(kind, n, ax) for n, ax in reversed(list(zip(s, axes)))]


def _rfftn_steps(a, s, axes):
    s, axes = _cooked(a, s, axes)
    return [("rfft", s[-1], axes[-1])] + [("fft", n, ax) for n, ax in
                                          reversed(list(zip(s[:-1], axes[:-1])))]


def _irfftn_steps(a, s, axes):
    s, axes = _cooked(a, s, axes, inverse_real=True)
    return [("ifft", n, ax) for n, ax in zip(s[:-1], axes[:-1])] + [("irfft", s[-1], axes[-1])]


def _like_kind(ct, a):
    """A real input's cotangent is real (its imaginary part is meaningless)."""
    return ct if np.iscomplexobj(a) else np.real(ct)


def _chain_cotangent(g, a, steps, norm):
    return _like_kind(_transpose_chain(g, np.shape(a), steps, norm), a)


def _hfft_cotangent(g, a, n, axis, norm):
    """hfft(a) = irfft(conj(a), n, norm swapped): conj of irfft's pullback."""
    steps = _one_step(a, "irfft", n, axis)
    return _like_kind(np.conj(_transpose_chain(g, np.shape(a), steps, _SWAP_NORM[norm])), a)


def _ihfft_cotangent(g, a, n, axis, norm):
    """ihfft(a) = conj(rfft(a, n, norm swapped)): rfft's pullback of conj(g)."""
    steps = _one_step(a, "rfft", n, axis)
    return np.real(_transpose_chain(np.conj(g), np.shape(a), steps, _SWAP_NORM[norm]))


def _shift_cotangent(g, axes, inverse):
    """fftshift rolls by n//2 and ifftshift by -(n//2): the transpose rolls back."""
    return np.fft.fftshift(g, axes) if inverse else np.fft.ifftshift(g, axes)


# ---------------------------------------------------------------------------
# forward-mode rules: a linear map's tangent is the map of the tangent


def fft_jvp(da, y, a, n=None, axis=-1, norm=None, out=None):
    return np.fft.fft(da, n, axis, norm)


def ifft_jvp(da, y, a, n=None, axis=-1, norm=None, out=None):
    return np.fft.ifft(da, n, axis, norm)


def rfft_jvp(da, y, a, n=None, axis=-1, norm=None, out=None):
    return np.fft.rfft(np.real(da), n, axis, norm)


def irfft_jvp(da, y, a, n=None, axis=-1, norm=None, out=None):
    return np.fft.irfft(da, n, axis, norm)


def hfft_jvp(da, y, a, n=None, axis=-1, norm=None, out=None):
    return np.fft.hfft(da, n, axis, norm)


def ihfft_jvp(da, y, a, n=None, axis=-1, norm=None, out=None):
    return np.fft.ihfft(np.real(da), n, axis, norm)


def fft2_jvp(da, y, a, s=None, axes=(-2, -1), norm=None, out=None):
    return np.fft.fft2(da, s, axes, norm)


def ifft2_jvp(da, y, a, s=None, axes=(-2, -1), norm=None, out=None):
    return np.fft.ifft2(da, s, axes, norm)


def rfft2_jvp(da, y, a, s=None, axes=(-2, -1), norm=None, out=None):
    return np.fft.rfft2(np.real(da), s, axes, norm)


def irfft2_jvp(da, y, a, s=None, axes=(-2, -1), norm=None, out=None):
    return np.fft.irfft2(da, s, axes, norm)


def fftn_jvp(da, y, a, s=None, axes=None, norm=None, out=None):
    return np.fft.fftn(da, s, axes, norm)


def ifftn_jvp(da, y, a, s=None, axes=None, norm=None, out=None):
    return np.fft.ifftn(da, s, axes, norm)


def rfftn_jvp(da, y, a, s=None, axes=None, norm=None, out=None):
    return np.fft.rfftn(np.real(da), s, axes, norm)


def irfftn_jvp(da, y, a, s=None, axes=None, norm=None, out=None):
    return np.fft.irfftn(da, s, axes, norm)


def fftshift_jvp(dx, y, x, axes=None):
    return np.fft.fftshift(dx, axes)


def ifftshift_jvp(dx, y, x, axes=None):
    return np.fft.ifftshift(dx, axes)


# ---------------------------------------------------------------------------
# rules (all take complex values: complex_ok; out= is refused)

_OPTIONS = {"diff": ("a",), "complex_ok": True, "unsupported": ("out",)}


@vjp(np.fft.fft, jvp=fft_jvp, **_OPTIONS)
def fft(g, y, a, n=None, axis=-1, norm=None, out=None):
    """The DFT matrix is symmetric: fft of g, fitted back to a's length."""
    return _chain_cotangent(g, a, _one_step(a, "fft", n, axis), norm)


@vjp(np.fft.ifft, jvp=ifft_jvp, **_OPTIONS)
def ifft(g, y, a, n=None, axis=-1, norm=None, out=None):
    return _chain_cotangent(g, a, _one_step(a, "ifft", n, axis), norm)


@vjp(np.fft.rfft, jvp=rfft_jvp, **_OPTIONS)
def rfft(g, y, a, n=None, axis=-1, norm=None, out=None):
    """Re(fft(g padded to n)), fitted back to a's length."""
    return _chain_cotangent(g, a, _one_step(a, "rfft", n, axis), norm)


@vjp(np.fft.irfft, jvp=irfft_jvp, **_OPTIONS)
def irfft(g, y, a, n=None, axis=-1, norm=None, out=None):
    """w_k ifft(Re g)_k on the n//2 + 1 entries irfft reads (w = 1, 2, ..., 2, [1])."""
    return _chain_cotangent(g, a, _one_step(a, "irfft", n, axis), norm)


@vjp(np.fft.hfft, jvp=hfft_jvp, **_OPTIONS)
def hfft(g, y, a, n=None, axis=-1, norm=None, out=None):
    return _hfft_cotangent(g, a, n, axis, norm)


@vjp(np.fft.ihfft, jvp=ihfft_jvp, **_OPTIONS)
def ihfft(g, y, a, n=None, axis=-1, norm=None, out=None):
    return _ihfft_cotangent(g, a, n, axis, norm)


@vjp(np.fft.fft2, jvp=fft2_jvp, **_OPTIONS)
def fft2(g, y, a, s=None, axes=(-2, -1), norm=None, out=None):
    return _chain_cotangent(g, a, _complex_steps(a, s, axes, "fft"), norm)


@vjp(np.fft.ifft2, jvp=ifft2_jvp, **_OPTIONS)
def ifft2(g, y, a, s=None, axes=(-2, -1), norm=None, out=None):
    return _chain_cotangent(g, a, _complex_steps(a, s, axes, "ifft"), norm)


@vjp(np.fft.fftn, jvp=fftn_jvp, **_OPTIONS)
def fftn(g, y, a, s=None, axes=None, norm=None, out=None):
    """Separable: the 1-D transposes, in the reverse of NumPy's order (repeated axes too)."""
    return _chain_cotangent(g, a, _complex_steps(a, s, axes, "fft"), norm)


@vjp(np.fft.ifftn, jvp=ifftn_jvp, **_OPTIONS)
def ifftn(g, y, a, s=None, axes=None, norm=None, out=None):
    return _chain_cotangent(g, a, _complex_steps(a, s, axes, "ifft"), norm)


@vjp(np.fft.rfft2, jvp=rfft2_jvp, **_OPTIONS)
def rfft2(g, y, a, s=None, axes=(-2, -1), norm=None, out=None):
    return _chain_cotangent(g, a, _rfftn_steps(a, s, axes), norm)


@vjp(np.fft.irfft2, jvp=irfft2_jvp, **_OPTIONS)
def irfft2(g, y, a, s=None, axes=(-2, -1), norm=None, out=None):
    return _chain_cotangent(g, a, _irfftn_steps(a, s, axes), norm)


@vjp(np.fft.rfftn, jvp=rfftn_jvp, **_OPTIONS)
def rfftn(g, y, a, s=None, axes=None, norm=None, out=None):
    """rfft along the last axis, then fft along the others; transposed in reverse."""
    return _chain_cotangent(g, a, _rfftn_steps(a, s, axes), norm)


@vjp(np.fft.irfftn, jvp=irfftn_jvp, **_OPTIONS)
def irfftn(g, y, a, s=None, axes=None, norm=None, out=None):
    """ifft along all but the last axis, then irfft along it; transposed in reverse."""
    return _chain_cotangent(g, a, _irfftn_steps(a, s, axes), norm)


@vjp(np.fft.fftshift, diff=("x",), complex_ok=True, jvp=fftshift_jvp)
def fftshift(g, y, x, axes=None):
    """A permutation: its transpose is ifftshift."""
    return _shift_cotangent(g, axes, False)


@vjp(np.fft.ifftshift, diff=("x",), complex_ok=True, jvp=ifftshift_jvp)
def ifftshift(g, y, x, axes=None):
    return _shift_cotangent(g, axes, True)


def fftfreq_jvp(dd, y, n, d=1.0, **kwargs):
    return -y * (dd / d)


@vjp(np.fft.fftfreq, np.fft.rfftfreq, diff=("d",), jvp=fftfreq_jvp)
def fftfreq(g, y, n, d=1.0, **kwargs):
    """y = k / (n d): d's cotangent is -sum(g y) / d; n counts the frequencies."""
    return -np.sum(g * y) / d
