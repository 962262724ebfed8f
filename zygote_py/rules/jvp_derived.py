"""Forward-mode rules derived from the reverse rules, for every rule not written out.

A reverse rule computes `vjp(g) = J^T g`, linear in the cotangent g.  Its
transpose is the jvp: for any tangent dx,

    J dx = gradient over g of  <vjp(g), dx>

since <J^T g, dx> = <g, J dx>.  So the jvp of a rule is the reverse-mode
gradient, with respect to g, of `_contracted` below, which calls the rule and
pairs its cotangents with the tangents -- compiled by zygote_py itself (the
rule bodies and the helpers they call are code it differentiates), at the g
of zeros (any g gives the same answer, the map being linear).  It is exact,
not a finite difference; it costs about two rule evaluations and is used for
the rules jvp_common.py does not write out.  Real values only: a complex value
reaching a derived jvp is refused (reverse mode handles complex numbers).

`attach_derived(modules)` gives every rule of the named rule modules without a
jvp its derived one.  Rules registered later (by other modules) are not
touched: tests/rules/test_jvp_rules.py lists any rule left without a jvp.
"""

from __future__ import annotations

import numpy as np

from .. import context
from ..errors import NoDerivativeRule, ZygoteError
from ..kinds import scalar_kinds
from . import registry


def _contracted(vjp, one, g, y, args, kwargs, dxs):
    cts = vjp(g, y, *args, **kwargs)
    if one:
        cts = (cts,)
    total = 0.0
    for ct, dx in zip(cts, dxs):
        total = total + _pair(ct, dx)
    return total


def _pair(ct, dx):
    if ct is None or dx is None:
        return 0.0
    if isinstance(ct, (list, tuple)):
        total = 0.0
        for a, b in zip(ct, dx):
            total = total + _pair(a, b)
        return total
    if isinstance(ct, dict):
        total = 0.0
        for key in ct:
            total = total + _pair(ct[key], dx.get(key))
        return total
    return np.sum(ct * dx)


_ACTIVE = (False, False, True, False, False, False, False)


def _zero_cotangent(y):
    """A cotangent of y's structure, all zeros (None where y carries no derivative)."""
    if isinstance(y, np.ndarray):
        return np.zeros(y.shape) if y.dtype.kind in "fb" or y.dtype.kind in "iu" else None
    if isinstance(y, (float, np.floating)):
        return 0.0
    if isinstance(y, (list, tuple)):
        items = [_zero_cotangent(v) for v in y]
        return items if type(y) is list else tuple(items)
    return None


def _is_complex(x) -> bool:
    if isinstance(x, (list, tuple)):
        return any(map(_is_complex, x))
    if isinstance(x, dict):
        return any(map(_is_complex, x.values()))
    return np.iscomplexobj(x) if isinstance(x, (np.ndarray, np.generic, complex)) else False


def derived_jvp(rule):
    """The jvp of rule by transposing its reverse rule (see the module docstring)."""

    def jvp_derived(*rest, **kwargs):
        n = len(rule.diff)
        dxs, (y, *args) = list(rest[:n]), rest[n:]
        if all(d is None for d in dxs):
            return None
        if _is_complex(y) or _is_complex(args) or _is_complex(dxs):
            raise NoDerivativeRule(f"forward mode of {rule.qualname} with complex values is not "
                                   "supported", hint="use reverse mode for complex values")
        vjp_fn = rule.vjp
        sequence = rule.meta.get("sequence")
        if sequence is not None and any(isinstance(a, (list, tuple)) for a in args):
            vjp_fn = sequence
        g = _zero_cotangent(y)
        if g is None:
            return None
        compiler = context.current().compiler
        if compiler is None:
            raise ZygoteError(f"the derived jvp of {rule.qualname} ran outside zp.jvp",
                              hint="call it inside zp.jvp, or under "
                                   "zygote_py.context.using(compiler=...)")
        values = (vjp_fn, n == 1, g, y, tuple(args), dict(kwargs), tuple(dxs))
        with context.using(collector=None):
            entry = compiler.entry(_contracted, _ACTIVE, "grad", (), scalar_kinds(values))
            _, grads = entry.fn(*values)
        return grads[2]

    jvp_derived.__name__ = "jvp_derived_" + rule.qualname.replace(".", "_")
    jvp_derived.derived = True
    return jvp_derived


def attach_derived(modules) -> None:
    for rule in registry.all_rules():
        if rule.jvp is None and getattr(rule.vjp, "__module__", None) in modules:
            rule.jvp = derived_jvp(rule)


_THIS_PACKAGE = ("containers", "cotangents", "factorizations", "index_tricks", "indexing",
                 "iterators", "linalg", "math_rules", "nondiff", "numpy_elementwise",
                 "operators", "products", "reductions", "rule_helpers", "scans", "shapes",
                 "statistics", "structure", "complex_rules")
attach_derived({f"zygote_py.rules.{name}" for name in _THIS_PACKAGE})
