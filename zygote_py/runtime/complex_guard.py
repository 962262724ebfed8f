"""The run-time refusal of complex values where a rule is not declared for them.

Generated code calls `refuse_complex` before a rule that is real-only
(rules/complex_rules.py) wherever the may-be-complex analysis could not rule
a complex operand out; the run-time dispatcher calls it for rules it applies
while running.  It decides from the objects that are really there.
"""

from __future__ import annotations

import numpy as np

from ..errors import NoDerivativeRule
from ..kinds import found_attribute

_ndarray = np.ndarray

# registered as having no derivative, yet varying with a complex argument (sign(z) = z/|z|)
VARY_ON_COMPLEX = frozenset({np.sign, np.round, np.around, np.rint, np.fix, np.unique,
                             np.sort_complex})


def is_complex(x) -> bool:
    """A complex number or array, or a list/tuple holding one (cheap: no structure walk)."""
    t = type(x)
    if t is float or t is int or x is None:
        return False
    if t is _ndarray:
        return x.dtype.kind == "c"
    if isinstance(x, (complex, np.complexfloating)):
        return True
    if t is list or t is tuple:
        return any(is_complex(v) for v in x)
    dtype = found_attribute(x, "dtype")  # (never the class's own __getattr__: user code)
    return dtype is not None and getattr(dtype, "kind", "") == "c"


def refuse_complex(qualname, loc, *operands):
    """Raise NoDerivativeRule when an operand of a real-only rule is complex."""
    for x in operands:
        if is_complex(x):
            raise complex_error(qualname, loc)


def complex_error(qualname, loc) -> NoDerivativeRule:
    return NoDerivativeRule(
        f"the derivative rule of {qualname} is for real values, and it is called here with a "
        "complex one; zygote_py refuses rather than return a wrong gradient", loc,
        "docs/complex.md lists the rules declared for complex values; compute this step from "
        "the real and imaginary parts (np.real, np.imag), or register a rule with @zp.adjoint")
