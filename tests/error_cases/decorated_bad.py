"""`@zp.differentiable` transforms at decoration time, so importing this module
must raise zp.UnsupportedSyntax."""

import zygote_py as zp

from . import RAN


@zp.differentiable
def decorated_with_try(x):
    RAN.append("decorated_with_try")
    try:  # ERR
        return 1.0 / x
    except ZeroDivisionError:
        return 0.0
