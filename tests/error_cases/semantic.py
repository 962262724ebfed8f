"""Programs that are valid Python but cannot be differentiated as asked:
a call with no derivative rule, non-scalar and complex outputs, and a
function whose source does not exist."""

import numpy as np

from . import RAN


def frexp_on_active(x):
    RAN.append("frexp_on_active")
    m = np.frexp(x)[0]  # ERR
    return m * x


def frexp_on_constant(x):
    return np.frexp(3.0)[0] * x


def vector_output(x):
    return np.sin(x) * 2.0


def complex_output(x):
    return x * (1.0 + 2.0j)


def make_function_from_string():
    """A function built with exec: it has no source file to read."""
    namespace = {"RAN": RAN}
    exec(  # noqa: S102 -- on purpose: a function with no source file
        "def from_string(x):\n    RAN.append('from_string')\n    return x * x\n",
        namespace,
    )
    return namespace["from_string"]
