"""Derivative rules, one module per domain; importing this package registers them all.

`supported()` lists the qualified names of everything with a reverse rule and
`nondifferentiable()` everything registered as carrying no derivative.  The
decorators that register rules (`vjp`, `vjp_method`, `vjp_attr`) and the
registration call `nondifferentiable(*primals)` live in `zygote_py.rules.registry`;
`python -m zygote_py.rules.table` regenerates the table of docs/rules.md from them.
"""

from zygote_py.rules import (  # noqa: F401  (importing registers the rules)
    containers,
    cotangents,
    factorizations,
    fft,
    indexing,
    iterators,
    linalg,
    math_rules,
    nondiff,
    numpy_elementwise,
    numpy_extra,
    operators,
    products,
    reductions,
    registry,
    rule_helpers,
    scans,
    shapes,
    statistics,
    structure,
    untracked,
    ufunc_methods,
)
from zygote_py.rules import complex_rules  # noqa: F401,E402  (last: it marks the rules above)
# forward-mode rules: those written out first, then the derived ones for the rest
from zygote_py.rules import jvp_common, jvp_structural, jvp_derived  # noqa: F401,E402,I001
# complex values in forward mode: the non-holomorphic functions' forward rules, and which
# forward rule runs where a value may be complex (forward_rule)
from zygote_py.rules import jvp_complex  # noqa: F401,E402

# SciPy is optional: each module's rules are imported once the user's code has imported it
# (or when all rules are listed), never with zygote_py itself (rules/scipy_support.py)
registry.optional_rules("scipy.special", "zygote_py.rules.scipy_special")
registry.optional_rules("scipy.linalg", "zygote_py.rules.scipy_linalg")
registry.optional_rules("scipy.stats", "zygote_py.rules.scipy_stats")
registry.optional_rules("scipy.signal", "zygote_py.rules.signal")
registry.optional_rules("scipy.integrate", "zygote_py.rules.integrate")


def supported() -> list[str]:
    """Qualified names ('numpy.sin', 'numpy.ndarray.sum', ...) of everything with a rule."""
    return registry.supported()


def nondifferentiable() -> list[str]:
    """Qualified names ('numpy.argmax', ...) of everything registered as non-differentiable."""
    return registry.nondifferentiable_names()


__all__ = ["nondifferentiable", "registry", "supported"]
