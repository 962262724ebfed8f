"""Numeric specs (rule_harness) for numpy.fft, scipy.signal and the other NumPy rules of
issue 15; rule_specs.py adds them to its table.  Complex arguments (C) are moved in their
real and imaginary directions, complex outputs paired as Re(sum(g * y)) (docs/complex.md).
"""

from __future__ import annotations

import numpy as np
from rule_harness import C, F, R, S

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
