"""The baseline: the plain NumPy workload function, no gradient at all.

Every other system's time is reported as a ratio to this one.  Its
"correctness check" validates the hand-written reference gradient (which all
other systems are compared with) against central finite differences.
"""

import numpy as np
import workloads

PACKAGE = "numpy"


def version():
    return np.__version__


def prepare(name, data):
    f, args = workloads.FUNCTIONS[name], workloads.call_args(name, data)

    def make():
        return lambda: f(*args)

    return make


def to_numpy(result):
    return (result,)


def check(name, data, result):
    return workloads.check_reference_fd(name, data["args"])
