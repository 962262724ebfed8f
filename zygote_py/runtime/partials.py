"""`functools.partial(...)` made inside differentiated code, as a closure the compiler sees into.

A `functools.partial` object is built by C code: the compiler cannot route a
cotangent through the arguments it binds (`partial(loss, w)(x)` must give w
its gradient).  The lowering (frontend/runtime_forms.py) therefore compiles
a call of `functools.partial` found inside differentiated code as a call of
`partial_closure` below, whose source is differentiated like the user's:
the bound arguments reach the call through a closure, so their gradients
flow back as they would from any closure.

It behaves as the partial would when called -- bound positional arguments
first, keywords merged with the call's keywords winning -- but it is a plain
function: it has no `.func`, `.args` or `.keywords` (docs/limitations.md).
"""

from __future__ import annotations


def partial_closure(func, /, *args, **keywords):
    """A function that calls func(*args, *more, **{**keywords, **more_keywords})."""
    def bound(*more, **more_keywords):
        merged = dict(keywords)
        merged.update(more_keywords)
        return func(*args, *more, **merged)
    return bound
