"""What runs untracked: `zp.no_grad` and the function its blocks' values pass through.

`no_grad` is defined here, low in the package, because the frontend must know
the object when it meets `with zp.no_grad():` in a differentiated function
(frontend/lower_stmt.py): there every value the block computes is passed
through `untracked`, registered below as having no derivative, so the
block's results carry none and the reverse transform emits nothing for the
block (its ops are never reached by a cotangent).  Outside differentiated
code nothing is tracked, so the context manager does nothing when it runs.

As a decorator, `@zp.no_grad` makes a function whose calls carry no
derivative wherever they are made: the wrapper hands the call to
`run_untracked`, also registered as having no derivative, whether the
compiler meets the wrapper as a callee, as a method of a class, or as the
function given to zp.gradient.
"""

from __future__ import annotations

import functools

from .registry import nondifferentiable


def untracked(x):
    """x itself, carrying no derivative (what `with zp.no_grad():` wraps values in)."""
    return x


def run_untracked(fn, args: tuple, kwargs: dict):
    """fn(*args, **kwargs), whose result carries no derivative."""
    return fn(*args, **kwargs)


nondifferentiable(untracked, run_untracked)


class no_grad:
    """Code that runs untracked: what it computes carries no derivative.

        with zp.no_grad():          # inside a differentiated function
            scale = np.linalg.norm(W)
        @zp.no_grad                  # or a whole function (also @zp.no_grad())
        def statistics(x): ...

    In a `with zp.no_grad():` block every value computed (calls, operators,
    methods, attribute reads, indexing) is a constant to the gradient, as with
    zp.stop_gradient; a name merely rebound to an outer value (`y = x`) or
    a value left untouched by the block keeps its derivative, as in PyTorch.
    Outside differentiated code the block just runs.
    """

    __slots__ = ()

    def __new__(cls, fn=None):
        if fn is None:
            return super().__new__(cls)
        return untracked_function(fn)

    def __call__(self, fn):
        return untracked_function(fn)

    def __enter__(self):
        return None

    def __exit__(self, *exc) -> bool:
        return False

    def __repr__(self) -> str:
        return "zp.no_grad()"


def untracked_function(fn):
    """A function computing what fn does, whose calls carry no derivative."""
    if not callable(fn):
        raise TypeError(f"zp.no_grad decorates a function, not {type(fn).__name__}")

    @functools.wraps(fn)
    def untracked_call(*args, **kwargs):
        return run_untracked(fn, args, kwargs)

    untracked_call._zp_untracked = fn  # what standalone modules refuse (aot/common.py)
    return untracked_call
