"""`autograd.scipy`: SciPy's own modules (see ../_aliases.py), except `signal`.

Only `autograd.scipy.signal` is a module of the shim (autograd's generalised
convolve); every other `autograd.scipy.x` name resolves to `scipy.x`.
"""

import scipy as _scipy


def __getattr__(name):
    return getattr(_scipy, name)
