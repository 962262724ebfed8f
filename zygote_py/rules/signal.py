"""Rules for scipy.signal's convolutions: convolve, correlate (modes full/same/valid, any
method), fftconvolve and oaconvolve (axes too), convolve2d and correlate2d (boundary fill,
wrap and symm, and a differentiable fillvalue).  Registered only when SciPy imports.

A convolution is bilinear; each cotangent is the transpose of the map in one argument,
under the covector convention of docs/complex.md (no conjugates: the transposes are
convolutions with flipped operands).  The output of mode 'same' or 'valid' is a window of
the 'full' output, so g is first placed into a zero 'full' array at the window's offset
(`_embed`).  correlate(a, v) is convolve(a, flip(conj(v))): conjugating v makes it
antilinear in v, whose cotangent is conj(flip(...)) of the kernel's.  convolve2d's boundary
handling is a convolution of the padded input P (np.pad with the boundary's mode, s2 - 1 on
each side) in 'valid' mode; P's cotangent goes back to in1 through the padding's transpose
(a crop for 'fill', a scatter-add for 'wrap' and 'symm') and, for 'fill', to fillvalue
(the sum over the padding).
"""

from __future__ import annotations

import numpy as np

from zygote_py.rules.scipy_support import Library
from zygote_py.rules.shapes import padding_transpose

# SciPy is optional: this module is imported once the user's code has imported scipy.signal
# (rules/__init__.py: registry.optional_rules); without SciPy its rules are listed absent
_LIBRARY = Library("scipy.signal")
_signal = _LIBRARY.module

_PAD_MODES = {"fill": "constant", "wrap": "wrap", "symm": "symmetric", "circular": "wrap",
              "symmetric": "symmetric"}

# ---------------------------------------------------------------------------
# helpers


def _like_kind(ct, x):
    """A real argument's cotangent is real (docs/complex.md)."""
    return ct if np.iscomplexobj(x) else np.real(ct)


def _flip(x, axes=None):
    return np.flip(x, axis=axes)


def _window_offsets(s1, s2, axes, mode, same_shift):
    """Where the 'same' or 'valid' output sits in the 'full' one, axis by axis (0 for axes
    not convolved).  'same' is centred ((s2 - 1) // 2; correlate2d's own centring is s2 // 2);
    'valid' starts at min(s1, s2) - 1, whichever operand SciPy swaps in."""
    offsets = []
    for ax in range(len(s1)):
        if ax not in axes or mode == "full":
            offsets.append(0)
        elif mode == "same":
            offsets.append(s2[ax] // 2 if same_shift else (s2[ax] - 1) // 2)
        else:
            offsets.append(min(s1[ax], s2[ax]) - 1)
    return offsets


def _embed(g, s1, s2, axes, mode, same_shift=False):
    """g placed in a zero array shaped like the 'full' output."""
    g = np.asarray(g)
    full = [s1[ax] + s2[ax] - 1 if ax in axes else g.shape[ax] for ax in range(len(s1))]
    out = np.zeros(full, dtype=np.result_type(g, np.float64))
    offsets = _window_offsets(s1, s2, axes, mode, same_shift)
    window = tuple(slice(o, o + n) for o, n in zip(offsets, g.shape))
    out[window] = g
    return out


def _sum_to_shape(x, shape):
    """Sum the axes where the argument had length 1 (fftconvolve broadcasts the others)."""
    axes = tuple(ax for ax, n in enumerate(shape) if n == 1 and x.shape[ax] != 1)
    return np.sum(x, axis=axes, keepdims=True) if axes else x


def _conv_axes(in1, axes):
    ndim = np.ndim(in1)
    if axes is None:
        return list(range(ndim))
    axes = [axes] if np.ndim(axes) == 0 else list(axes)
    return sorted(int(ax) % ndim for ax in axes)


def _convolve_cotangents(g, in1, in2, mode, axes, correlation):
    """Both cotangents of convolve(in1, k) along axes, k = in2 or (correlation)
    flip(conj(in2)), the output window given by mode."""
    in1 = np.asarray(in1)
    in2 = np.asarray(in2)
    kernel = np.conj(_flip(in2, axes)) if correlation else in2
    full = _embed(g, in1.shape, in2.shape, axes, mode)
    g1 = _signal.fftconvolve(full, _flip(kernel, axes), mode="valid", axes=axes)
    gk = _signal.fftconvolve(full, _flip(in1, axes), mode="valid", axes=axes)
    gk = _sum_to_shape(gk, kernel.shape)
    g2 = np.conj(_flip(gk, axes)) if correlation else gk
    return _like_kind(_sum_to_shape(g1, in1.shape), in1), _like_kind(g2, in2)


def _convolve2d_cotangents(g, in1, in2, mode, boundary, fillvalue, correlation):
    """convolve2d / correlate2d: the window of convolve(P, k, 'valid'), P = in1 padded by
    s2 - 1 on each side with the boundary's values."""
    in1 = np.asarray(in1)
    in2 = np.asarray(in2)
    kernel = np.conj(_flip(in2)) if correlation else in2
    pad_mode = _PAD_MODES[boundary]
    widths = [(n - 1, n - 1) for n in in2.shape]
    fill = {"constant_values": fillvalue} if pad_mode == "constant" else {}
    padded = np.pad(in1, widths, mode=pad_mode, **fill)
    full = _embed(g, in1.shape, in2.shape, (0, 1), mode, same_shift=correlation)
    p_bar = _signal.convolve(full, _flip(kernel), mode="full")
    g1 = padding_transpose(p_bar, in1.shape, widths, pad_mode)
    gk = _flip(_signal.convolve(padded, _flip(full), mode="valid"))
    g2 = np.conj(_flip(gk)) if correlation else gk
    outside = np.pad(np.zeros(in1.shape), widths, mode="constant", constant_values=1.0)
    g_fill = np.sum(p_bar * outside) if pad_mode == "constant" else 0.0
    g_fill = complex(g_fill) if np.iscomplexobj(fillvalue) else float(np.real(g_fill))
    return _like_kind(g1, in1), _like_kind(g2, in2), g_fill


def _bilinear_tangent(primal, d1, d2, in1, in2, **options):
    """The tangent of a bilinear primal(in1, in2): primal(d1, in2) + primal(in1, d2)."""
    out = 0.0
    if d1 is not None:
        out = out + primal(d1, in2, **options)
    if d2 is not None:
        out = out + primal(in1, d2, **options)
    return out


# ---------------------------------------------------------------------------
# forward-mode rules


def convolve_jvp(d1, d2, y, in1, in2, mode="full", method="auto"):
    return _bilinear_tangent(_signal.convolve, d1, d2, in1, in2, mode=mode, method=method)


def correlate_jvp(d1, d2, y, in1, in2, mode="full", method="auto"):
    return _bilinear_tangent(_signal.correlate, d1, d2, in1, in2, mode=mode, method=method)


def fftconvolve_jvp(d1, d2, y, in1, in2, mode="full", axes=None):
    return _bilinear_tangent(_signal.fftconvolve, d1, d2, in1, in2, mode=mode, axes=axes)


def oaconvolve_jvp(d1, d2, y, in1, in2, mode="full", axes=None):
    return _bilinear_tangent(_signal.oaconvolve, d1, d2, in1, in2, mode=mode, axes=axes)


def _conv2d_tangent(primal, d1, d2, dfill, in1, in2, mode, boundary, fillvalue):
    """Bilinear in (in1, in2) given the fill; linear in (in1, fillvalue) given in2."""
    out = _bilinear_tangent(primal, d1, d2, in1, in2, mode=mode, boundary=boundary,
                            fillvalue=fillvalue)
    if d1 is not None:  # the fill's part was counted with d1: take it out of that term
        out = out - primal(np.zeros(np.shape(in1)), in2, mode=mode, boundary=boundary,
                           fillvalue=fillvalue)
    if dfill is not None and _PAD_MODES[boundary] == "constant":
        out = out + primal(np.zeros(np.shape(in1)), in2, mode=mode, boundary=boundary,
                           fillvalue=1.0) * dfill
    return out


def convolve2d_jvp(d1, d2, dfill, y, in1, in2, mode="full", boundary="fill", fillvalue=0):
    return _conv2d_tangent(_signal.convolve2d, d1, d2, dfill, in1, in2, mode, boundary, fillvalue)


def correlate2d_jvp(d1, d2, dfill, y, in1, in2, mode="full", boundary="fill", fillvalue=0):
    return _conv2d_tangent(_signal.correlate2d, d1, d2, dfill, in1, in2, mode, boundary, fillvalue)


# ---------------------------------------------------------------------------
# rules


@_LIBRARY.rule("convolve", complex_ok=True, jvp=convolve_jvp)
def convolve(g, y, in1, in2, mode="full", method="auto"):
    """N-d, every mode and method: g (in the full output) convolved with the other
    operand flipped, 'valid' part."""
    return _convolve_cotangents(g, in1, in2, mode, _conv_axes(in1, None), False)


@_LIBRARY.rule("correlate", complex_ok=True, jvp=correlate_jvp)
def correlate(g, y, in1, in2, mode="full", method="auto"):
    """convolve(in1, flip(conj(in2))): in2's cotangent is conj(flip(...)) of that kernel's."""
    return _convolve_cotangents(g, in1, in2, mode, _conv_axes(in1, None), True)


@_LIBRARY.rule("fftconvolve", complex_ok=True, jvp=fftconvolve_jvp)
def fftconvolve(g, y, in1, in2, mode="full", axes=None):
    """Along `axes`; the other axes broadcast (their cotangents summed back)."""
    return _convolve_cotangents(g, in1, in2, mode, _conv_axes(in1, axes), False)


@_LIBRARY.rule("oaconvolve", complex_ok=True, jvp=oaconvolve_jvp)
def oaconvolve(g, y, in1, in2, mode="full", axes=None):
    return _convolve_cotangents(g, in1, in2, mode, _conv_axes(in1, axes), False)


@_LIBRARY.rule("convolve2d", diff=("in1", "in2", "fillvalue"), complex_ok=True,
     jvp=convolve2d_jvp)
def convolve2d(g, y, in1, in2, mode="full", boundary="fill", fillvalue=0):
    """Boundaries fill (fillvalue differentiable), wrap and symm, through the padding."""
    return _convolve2d_cotangents(g, in1, in2, mode, boundary, fillvalue, False)


@_LIBRARY.rule("correlate2d", diff=("in1", "in2", "fillvalue"), complex_ok=True,
     jvp=correlate2d_jvp)
def correlate2d(g, y, in1, in2, mode="full", boundary="fill", fillvalue=0):
    """convolve2d with flip(conj(in2)); 'same' is centred at s2 // 2, as SciPy does."""
    return _convolve2d_cotangents(g, in1, in2, mode, boundary, fillvalue, True)
