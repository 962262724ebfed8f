"""`autograd.scipy.signal`: autograd's own generalised `convolve`, in plain NumPy.

autograd's `convolve(A, B, axes=None, dot_axes=[(), ()], mode="full")` is
not SciPy's: it convolves A and B along paired `axes`, contracts (sums the
products) along paired `dot_axes`, and keeps every other axis of A and of B
as an outer ("ignored") axis.  The result's axes are A's ignored axes, then
B's ignored axes, then the convolved axes in `axes` order.  Along each
convolved axis the modes mean what they mean for `scipy.signal.convolve`:
`full` (length a + b - 1), `valid` (|a - b| + 1, one operand at least as
long as the other along every convolved axis) and `same` (length of A,
centred on the full result).

Written here against that documented behaviour with ordinary NumPy calls
(transpose, pad, sliding_window_view, flip, einsum) so that zygote_py
differentiates it from source like any user function.  Everything else in
`autograd.scipy.signal` is SciPy's (`__getattr__` below).
"""

from __future__ import annotations

import numpy as np
import scipy.signal as _scipy_signal
from numpy.lib.stride_tricks import sliding_window_view

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _other_axes(ndim, conv, dot):
    return [axis for axis in range(ndim) if axis not in conv and axis not in dot]


def convolve(A, B, axes=None, dot_axes=((), ()), mode="full"):
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"convolve: mode {mode!r} is not one of 'full', 'valid', 'same'")
    A = np.asarray(A)
    B = np.asarray(B)
    if axes is None:
        axes = (list(range(A.ndim)), list(range(A.ndim)))
    conv_A = [int(axis) for axis in axes[0]]
    conv_B = [int(axis) for axis in axes[1]]
    dot_A = [int(axis) for axis in dot_axes[0]]
    dot_B = [int(axis) for axis in dot_axes[1]]
    if len(conv_A) != len(conv_B) or len(dot_A) != len(dot_B):
        raise ValueError("convolve: axes and dot_axes must pair the same number of axes of A and B")
    keep_A = _other_axes(A.ndim, conv_A, dot_A)
    keep_B = _other_axes(B.ndim, conv_B, dot_B)
    sizes_A = [A.shape[axis] for axis in conv_A]
    sizes_B = [B.shape[axis] for axis in conv_B]
    if mode == "valid":
        a_longer = all(a >= b for a, b in zip(sizes_A, sizes_B))
        b_longer = all(b >= a for a, b in zip(sizes_A, sizes_B))
        if not (a_longer or b_longer):
            raise ValueError("convolve: in 'valid' mode one array must be at least as long as "
                             "the other along every convolved axis")

    # Standard layouts: A as (kept A, dot, conv), B as (kept B, dot, conv).
    A_std = np.transpose(A, keep_A + dot_A + conv_A)
    B_std = np.transpose(B, keep_B + dot_B + conv_B)
    n_conv = len(conv_A)
    n_dot = len(dot_A)
    n_lead_B = len(keep_B) + n_dot
    conv_axes_B = tuple(range(n_lead_B, n_lead_B + n_conv))

    # Full convolution: zero-pad B by (a - 1) on both sides of each convolved
    # axis, slide a window of A's length over it and take the inner product
    # with A flipped; full[n] = sum_k A[k] B[n - k].
    padding = [(0, 0)] * n_lead_B + [(a - 1, a - 1) for a in sizes_A]
    B_padded = np.pad(B_std, padding)
    windows = sliding_window_view(B_padded, tuple(sizes_A), axis=conv_axes_B)
    A_flipped = np.flip(A_std, axis=tuple(range(len(keep_A) + n_dot, A_std.ndim)))

    letters = iter(_LETTERS)
    kept_A = "".join(next(letters) for _ in keep_A)
    kept_B = "".join(next(letters) for _ in keep_B)
    dots = "".join(next(letters) for _ in range(n_dot))
    outs = "".join(next(letters) for _ in range(n_conv))
    kernel = "".join(next(letters) for _ in range(n_conv))
    spec = f"{kept_A}{dots}{kernel},{kept_B}{dots}{outs}{kernel}->{kept_A}{kept_B}{outs}"
    full = np.einsum(spec, A_flipped, windows)

    if mode == "full":
        return full
    if mode == "valid":
        starts = [min(a, b) - 1 for a, b in zip(sizes_A, sizes_B)]
        lengths = [abs(a - b) + 1 for a, b in zip(sizes_A, sizes_B)]
    else:  # same: A's length, centred as scipy.signal.convolve centres it
        starts = [(b - 1) // 2 for b in sizes_B]
        lengths = list(sizes_A)
    n_kept = len(keep_A) + len(keep_B)
    index = tuple([slice(None)] * n_kept
                  + [slice(start, start + length) for start, length in zip(starts, lengths)])
    return full[index]


def __getattr__(name):
    return getattr(_scipy_signal, name)
