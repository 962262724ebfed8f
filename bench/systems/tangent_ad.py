"""tangent-ad (the maintained fork of Google's Tangent): source transformation.

Differentiates the same plain NumPy functions as zygote_py.  ``tangent.grad``
does the transform once (inside ``make``, so it counts toward the first call);
the generated function is then called repeatedly.  The worker sets
``TANGENT_DISK_CACHE=0`` so the first call is really cold: tangent-ad otherwise
keeps generated source in ``~/.cache/tangent-ad`` across processes.
"""

import workloads

PACKAGE = "tangent"


def version():
    from importlib.metadata import version as dist_version

    return dist_version("tangent-ad")


def prepare(name, data):
    import tangent

    f, args = workloads.FUNCTIONS[name], data["args"]
    wrt = tuple(range(len(args)))

    extra = tuple(data.get("extra", ()))  # the trip count of W1n and W9: not differentiated

    def make():
        df = tangent.grad(f, wrt=wrt)
        return lambda: df(*args, *extra)

    return make


def to_numpy(result):
    # One wrt index gives a bare value, several give a tuple.
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)
