"""zygote_py: the plain NumPy workloads differentiated by source transformation.

Uses the public contract only: ``zp.gradient(f, *args)`` on every call (the
compiler caches its transform per function object, so steady-state calls
measure the generated adjoint code plus the cache lookup).  The MLP and RNN
functions read their data as globals, so no gradient is spent on it.
"""

import workloads

PACKAGE = "zygote_py"


def version():
    import zygote_py

    return getattr(zygote_py, "__version__", "dev")


def prepare(name, data):
    import zygote_py as zp

    f, args = workloads.FUNCTIONS[name], data["args"]
    extra = tuple(data.get("extra", ()))  # the trip count of W1n and W9: not differentiated
    if extra:
        n = len(args)
        return lambda: (lambda: zp.gradient(f, *args, *extra)[:n])

    def make():
        return lambda: zp.gradient(f, *args)

    return make


def to_numpy(result):
    return tuple(result)
