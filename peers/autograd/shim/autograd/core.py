"""autograd.core: the parts with a zygote_py meaning (make_vjp as a pullback)."""

from .differential_operators import make_vjp as _make_vjp


def make_vjp(fun, x):
    """(vjp, ans) for a one-argument fun, as autograd.core.make_vjp."""
    return _make_vjp(fun)(x)
