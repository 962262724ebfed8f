"""Every rule's forward-mode (jvp) rule against central finite differences, and every rule
has one (the rule table in rule_specs.py gives the arguments).

One random tangent per differentiable float leaf, all moved at once:
jvp(dx..., y, *args) must equal (f(x + eps dx) - f(x - eps dx)) / (2 eps).
"""

from __future__ import annotations

import inspect
import os
import sys
import warnings
from collections.abc import ItemsView, ValuesView

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))

from rule_harness import EPS, draw, leaves, replace
from rule_specs import SPECS

from zygote_py import context
from zygote_py.errors import NoDerivativeRule
from zygote_py.forward_compiler import FORWARD
from zygote_py.rules import registry

# rules whose jvp refuses forward mode clearly (stateful iterators): checked to refuse
_REFUSED = {"zygote_py.rules.iterators"}


def _tangent_like(value, rng):
    out = value
    for path, leaf in leaves(value):
        e = rng.standard_normal(np.shape(leaf))
        e = float(e) if type(leaf) is float else np.asarray(e, dtype=np.asarray(leaf).dtype)
        out = replace(out, path, e)
    return _zero_non_float(out, value)


def _zero_non_float(t, value):
    """None for parts of value with no float leaf (ints, indices, flags)."""
    if not list(leaves(value)):
        return None
    if isinstance(value, (list, tuple)) and not hasattr(value, "shape"):
        items = [_zero_non_float(ti, vi) for ti, vi in zip(t, value)]
        return items if type(value) is list else tuple(items)
    return t


def _moved(value, t, step):
    if t is None:
        return value
    out = value
    for path, leaf in leaves(value):
        d = t
        for key in path:
            d = d[key]
        if type(leaf) is float:
            out = replace(out, path, leaf + step * float(d))
        elif isinstance(leaf, np.floating):
            out = replace(out, path, type(leaf)(leaf + step * float(d)))
        else:
            out = replace(out, path, (leaf + step * d).astype(leaf.dtype))
    return out


def _flat(y):
    if y is None:
        return []
    if isinstance(y, (ItemsView, ValuesView)):
        y = list(y)
    if isinstance(y, (list, tuple)):
        return [v for item in y for v in _flat(item)]
    if isinstance(y, dict):
        return [v for k in sorted(y, key=repr) for v in _flat(y[k])]
    if isinstance(y, (bool, int, str, np.integer)) or (isinstance(y, np.ndarray) and y.dtype.kind != "f"):
        return []
    return [np.asarray(y, dtype=float)]


def _flat_tangent(t, y):
    if y is None:
        return []
    if isinstance(y, (ItemsView, ValuesView)):
        y = list(y)
    if isinstance(y, (list, tuple)):
        items = t if t is not None else [None] * len(y)
        return [v for ti, yi in zip(items, y) for v in _flat_tangent(ti, yi)]
    if isinstance(y, dict):
        t = t or {}
        return [v for k in sorted(y, key=repr) for v in _flat_tangent(t.get(k), y[k])]
    if isinstance(y, (bool, int, str, np.integer)) or (isinstance(y, np.ndarray) and y.dtype.kind != "f"):
        return []
    return [np.zeros(np.shape(y)) if t is None else np.broadcast_to(np.asarray(t, float), np.shape(y))]


def _checkable(spec):
    rule = spec.rule
    return rule is not None and getattr(rule.vjp, "__module__", "") not in _REFUSED \
        and not spec.copy and rule.jvp is not None


def _selected(specs):
    """The first spec of every rule, and every fifth of the others (the suite's time)."""
    seen, out = set(), []
    for index, spec in enumerate(specs):
        key = spec.qualname
        if key not in seen or index % 5 == 0:
            out.append(spec)
        seen.add(key)
    return out


CHECKED = [s for s in SPECS if _checkable(s)]
if not os.environ.get("ZP_ALL_JVP_SPECS"):  # set it to check every spec of every rule
    CHECKED = _selected(CHECKED)


@pytest.mark.parametrize("spec", CHECKED, ids=[s.id for s in CHECKED])
def test_jvp_matches_finite_differences(spec):
    rng = np.random.default_rng(0)
    rule = spec.rule
    args = draw(spec.args, rng)
    kwargs = draw(spec.kwargs, rng)
    sig = inspect.Signature(list(rule.params))
    bound = sig.bind(*args, **kwargs)
    underived = rule.meta.get("underived", ())  # refused when active: never moved
    tangents = {name: _tangent_like(bound.arguments[name], rng)
                for name in rule.diff if name in bound.arguments and name not in underived}
    if not any(t is not None for t in tangents.values()):
        pytest.skip("no float argument to move")

    def at(step):
        moved = dict(bound.arguments)
        for name, t in tangents.items():
            moved[name] = _moved(moved[name], t, step)
        b = inspect.BoundArguments(sig, moved)
        return spec.primal(b.args, b.kwargs)

    y = spec.primal(args, kwargs)
    dxs = [tangents.get(name) for name in rule.diff]
    with warnings.catch_warnings(), context.using(compiler=FORWARD):
        warnings.simplefilter("ignore")
        if spec.g is not None:  # the reverse rule takes only some outputs' cotangents
            try:
                dy = rule.jvp(*dxs, y, *args, **kwargs)
            except NoDerivativeRule:
                return  # refused clearly: the outputs the rule has no derivative for
        else:
            dy = rule.jvp(*dxs, y, *args, **kwargs)
        plus, minus = at(EPS), at(-EPS)
    fd = [(p - m) / (2 * EPS) for p, m in zip(_flat(plus), _flat(minus))]
    an = _flat_tangent(dy, y)
    assert len(fd) == len(an)
    for a, f in zip(an, fd):
        scale = max(1.0, float(np.max(np.abs(f), initial=0.0)))
        np.testing.assert_allclose(a, f, rtol=1e-5, atol=1e-6 * scale)


# Rules without a forward rule, refused by forward mode (NoDerivativeRule at the call):
# building a frozen SciPy distribution, whose object tangent forward mode does not carry
GRACE: set[str] = {"scipy.stats.dirichlet_frozen", "scipy.stats.multivariate_normal_frozen",
                   "scipy.stats.rv_continuous_frozen", "scipy.stats.rv_discrete_frozen"}


def test_every_rule_has_a_jvp():
    missing = sorted({rule.qualname for rule in registry.all_rules() if rule.jvp is None} - GRACE)
    assert not missing, "rules without a forward-mode (jvp) rule: " + ", ".join(missing)
