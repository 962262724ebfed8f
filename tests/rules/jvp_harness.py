"""Check a forward-mode rule (the `jvp=` of a registered rule) against central finite
differences.

A jvp rule is `(dx..., y, *primal_params) -> dy`: one tangent per differentiable
parameter, in the order of `rule.diff` (None: that argument does not move), then the
primal output and the primal's arguments.  `check_jvp(spec, seed)` draws the spec's
arguments and, for each differentiable argument that is a float or float array, a
random direction; it compares <g, jvp> with <g, (f(x + eps d) - f(x - eps d)) / 2 eps>
for a random g shaped like the output, moving one argument at a time (the others'
tangents None) and then all of them together.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
from zygote_py import context
from zygote_py.api import _compiler
from rule_harness import ATOL, EPS, RTOL, draw, inner, is_float_leaf, random_like


def _direction(value, rng):
    """A random tangent shaped like value: floats and float arrays, inside tuples and lists
    (None for the other items); None when nothing in value can move."""
    if type(value) is float:
        return float(rng.standard_normal())
    if is_float_leaf(value):
        return rng.standard_normal(np.shape(value))
    if isinstance(value, (tuple, list)):
        items = [_direction(item, rng) for item in value]
        return type(value)(items) if any(d is not None for d in items) else None
    return None


def _step(value, direction, eps):
    if direction is None:
        return value
    if isinstance(value, (tuple, list)):
        return type(value)(_step(v, d, eps) for v, d in zip(value, direction))
    return value + eps * direction if type(value) is float else np.asarray(value) + eps * direction


def _moved(spec, sig, bound, names, directions, eps):
    moved = dict(bound.arguments)
    for name in names:
        moved[name] = _step(moved[name], directions[name], eps)
    b = inspect.BoundArguments(sig, moved)
    return spec.primal(b.args, b.kwargs)


def check_jvp(spec, seed: int = 0) -> int:
    """Compare the spec's rule's jvp with finite differences; return the checks made."""
    rng = np.random.default_rng(seed)
    rule = spec.rule
    args = draw(spec.args, rng)
    kwargs = draw(spec.kwargs, rng)
    y = spec.primal(args, kwargs)
    g = spec.g(y, rng) if spec.g is not None else random_like(y, rng)
    sig = inspect.Signature(list(rule.params))
    bound = sig.bind(*args, **kwargs)
    movable = {name: _direction(bound.arguments[name], rng) for name in rule.diff
               if name in bound.arguments and name not in rule.meta.get("underived", ())}
    movable = {name: d for name, d in movable.items() if d is not None}
    groups = [[name] for name in movable] + ([list(movable)] if len(movable) > 1 else [])
    for group in groups:
        tangents = [movable[name] if name in group else None for name in rule.diff]
        # a compiler in context, as a gradient call installs: for rules that differentiate
        # a function they are given (odeint's right-hand side)
        with warnings.catch_warnings(), context.using(compiler=_compiler()):
            warnings.simplefilter("error")
            dy = rule.jvp(*tangents, y, *args, **kwargs)
        if isinstance(y, np.ndarray):
            assert np.shape(dy) == y.shape, f"tangent shape {np.shape(dy)} != output shape {y.shape}"
        plus = _moved(spec, sig, bound, group, movable, EPS)
        minus = _moved(spec, sig, bound, group, movable, -EPS)
        fd = (inner(g, plus) - inner(g, minus)) / (2 * EPS)
        an = _inner_tangent(g, dy)
        scale = max(1.0, abs(fd), abs(an))
        assert abs(fd - an) <= RTOL * scale + ATOL, f"moving {group}: jvp gives {an!r}, finite differences {fd!r}"
    return len(groups)


def _inner_tangent(g, dy):
    """<g, dy>: a None tangent (or None part of a tuple) is zero."""
    if dy is None or g is None:
        return 0.0
    if isinstance(g, (tuple, list)):
        return sum(_inner_tangent(gi, di) for gi, di in zip(g, dy))
    if np.iscomplexobj(g) or np.iscomplexobj(dy):  # the covector pairing, as `inner` pairs
        return float(np.real(np.sum(np.asarray(g) * np.asarray(dy))))
    return float(np.sum(np.asarray(g, np.float64) * np.asarray(dy, np.float64)))
