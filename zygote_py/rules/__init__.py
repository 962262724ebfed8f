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
    indexing,
    iterators,
    linalg,
    math_rules,
    nondiff,
    numpy_elementwise,
    operators,
    products,
    reductions,
    registry,
    rule_helpers,
    scans,
    shapes,
    statistics,
    structure,
    ufunc_methods,
)
from zygote_py.rules import complex_rules  # noqa: F401,E402  (last: it marks the rules above)


def supported() -> list[str]:
    """Qualified names ('numpy.sin', 'numpy.ndarray.sum', ...) of everything with a rule."""
    return registry.supported()


def nondifferentiable() -> list[str]:
    """Qualified names ('numpy.argmax', ...) of everything registered as non-differentiable."""
    return registry.nondifferentiable_names()


__all__ = ["nondifferentiable", "registry", "supported"]
