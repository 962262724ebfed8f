"""Pausing Python's cyclic garbage collector while a gradient is compiled.

A build makes tens of thousands of small objects (IR ops and values, AST nodes,
names) that live until it ends.  Each few hundred allocations start a young
collection, and every so often a full one, which walks every object the process
holds: NumPy's, SciPy's and the user's modules included.  Building bench/'s N-body
and LSTM gradients four times in one process took 33-52 ms and 41-63 ms with the
collector on, 33-34 ms and 41-42 ms with it off (docs/performance.md).  Nothing a build makes needs collecting before it ends, so
the collector waits until then.

The collector's switch belongs to the interpreter, not to zygote_py, so this touches
it only when it is on, and turns it back on only if it turned it off: a user who
disabled it keeps it disabled, and a nested build (a callee's, inside its caller's)
finds it off and leaves it alone.  Two threads building at once (two compilers) can
only turn it back on early, never leave it off.
"""

from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def collector_paused():
    """Run the body with the cyclic collector off, if it was on (see the module docstring)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
