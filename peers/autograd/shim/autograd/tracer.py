"""autograd.tracer: zygote_py traces nothing, so no value is ever a box."""

from .extend import notrace_primitive, primitive  # noqa: F401


def isbox(x) -> bool:
    return False


def getval(x):
    return x
