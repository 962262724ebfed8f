"""One unsupported construct per function; each must raise zp.UnsupportedSyntax
pointing at the line marked `# ERR`."""

import asyncio
import contextlib
import math

from . import RAN

_COUNTER = 0


def uses_try_except(x):
    RAN.append("uses_try_except")
    try:  # ERR
        y = 1.0 / x
    except ZeroDivisionError:
        y = 0.0
    return y * x


def uses_try_finally(x):
    RAN.append("uses_try_finally")
    y = x
    try:  # ERR
        y = y * 2.0
    finally:
        y = y + 1.0
    return y


def uses_with(x):
    RAN.append("uses_with")
    with contextlib.nullcontext():  # ERR
        y = x * x
    return y


def uses_yield(x):
    RAN.append("uses_yield")
    yield x * x  # ERR


async def uses_async(x):  # ERR
    RAN.append("uses_async")
    await asyncio.sleep(0)
    return x * x


def uses_global(x):
    RAN.append("uses_global")
    global _COUNTER  # ERR
    _COUNTER = _COUNTER + 1
    return x * _COUNTER


def uses_nonlocal(x):
    RAN.append("uses_nonlocal")
    total = 0.0

    def add(v):
        nonlocal total  # ERR
        total = total + v

    add(x * x)
    return total


def uses_del(x):
    # (del of a local at the top level unbinds it; in a branch it would on one path only)
    RAN.append("uses_del")
    tmp = x * 2.0
    y = tmp + x
    if y > 0:
        del tmp  # ERR
    return y


def defines_class(x):
    RAN.append("defines_class")

    class Local:  # ERR
        scale = 2.0

    return x * Local.scale


def uses_match(x, n):
    RAN.append("uses_match")
    match n:  # ERR
        case 1:
            return x
        case _:
            return x * x


def imports_inside(x):
    RAN.append("imports_inside")
    import zygote_py_has_no_such_module  # ERR  (an import that works is followed)

    return x * zygote_py_has_no_such_module.scale


def _helper_with_try(x):
    RAN.append("_helper_with_try")
    try:  # ERR
        return math.sqrt(x)
    except ValueError:
        return 0.0


def calls_helper_with_try(x):
    return _helper_with_try(x) * 2.0
