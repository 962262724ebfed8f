"""`autograd.scipy`: SciPy's own modules (see ../_aliases.py), except `signal`.

Only `autograd.scipy.signal` is a module of the shim (autograd's generalised
convolve); every other `autograd.scipy.x` name resolves to `scipy.x`.
"""

import importlib

import scipy as _scipy


def __getattr__(name):
    if name == "signal":  # `from autograd.scipy import signal`: the shim's module, not SciPy's
        return importlib.import_module(f"{__name__}.signal")
    return getattr(_scipy, name)
