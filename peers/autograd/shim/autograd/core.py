"""autograd.core: the parts with a zygote_py meaning (make_vjp as a pullback)."""

from .differential_operators import make_vjp as _make_vjp
from .extend import defvjp, primitive  # noqa: F401  (autograd.core re-exports them)

# autograd's table of VJP rules.  zygote_py's rules live in its own registry, so
# this table starts empty: a test that removes an entry from it changes nothing.
primitive_vjps: dict = {}


def make_vjp(fun, x):
    """(vjp, ans) for a one-argument fun, as autograd.core.make_vjp."""
    return _make_vjp(fun)(x)
