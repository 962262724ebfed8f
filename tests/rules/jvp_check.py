"""Check a forward-mode rule (`Rule.jvp`, attached with `vjp(..., jvp=...)`) against
central finite differences.

`check_jvp(spec, seed)` draws the spec's arguments (rule_harness), a random tangent for
every float or complex leaf of each differentiable argument (complex leaves get complex
tangents), calls `rule.jvp(*tangents, y, *args, **kwargs)` (one tangent per name in
`rule.diff`, in that order; a dict tangent gives some fields of a result object) and
compares the result with (f(x + eps dx) - f(x - eps dx)) /
(2 eps), all differentiable arguments moved together.
"""

from __future__ import annotations

import inspect

import numpy as np
from rule_harness import draw, leaves, replace

from zygote_py import context
from zygote_py.api import _compiler

EPS = 1e-6
RTOL = 1e-5
ATOL = 1e-7


def _tangent_like(value, rng):
    """A random tangent with value's structure (None where value holds no float leaf)."""
    out = value
    found = False
    for path, leaf in leaves(value):
        found = True
        shape = np.shape(leaf)
        dx = rng.standard_normal(shape)
        if np.iscomplexobj(leaf):
            dx = dx + 1j * rng.standard_normal(shape)
        if type(leaf) is float:
            dx = float(dx)
        out = replace(out, path, dx)
    return out if found else None


def _moved(value, tangent, step):
    out = value
    for (path, leaf), (_, dx) in zip(leaves(value), leaves(tangent)):
        moved = leaf + step * dx
        out = replace(out, path, float(moved) if type(leaf) is float else np.asarray(moved))
    return out


def _flat(y):
    if isinstance(y, (list, tuple)):
        return [v for item in y for v in _flat(item)]
    return [np.asarray(y)]


def check_jvp(spec, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    rule = spec.rule
    assert rule is not None and rule.jvp is not None, f"no forward rule for {spec.qualname}"
    args = draw(spec.args, rng)
    kwargs = draw(spec.kwargs, rng)
    y = spec.primal(args, kwargs)
    sig = inspect.Signature(list(rule.params))
    bound = sig.bind(*args, **kwargs)
    tangents = [_tangent_like(bound.arguments[name], rng) if name in bound.arguments else None
                for name in rule.diff]
    with context.using(compiler=_compiler()):  # for rules that differentiate a given function
        dy = rule.jvp(*tangents, y, *args, **kwargs)

    def at(step):
        moved = dict(bound.arguments)
        for name, dx in zip(rule.diff, tangents):
            if dx is not None:
                moved[name] = _moved(moved[name], dx, step)
        b = inspect.BoundArguments(sig, moved)
        return spec.primal(b.args, b.kwargs)

    plus, minus, got = at(EPS), at(-EPS), dy
    if isinstance(dy, dict):  # a result object's tangent, by the fields that have one
        plus, minus = [plus[k] for k in dy], [minus[k] for k in dy]
        got = list(dy.values())
    plus, minus, got = _flat(plus), _flat(minus), _flat(got)
    assert len(got) == len(plus), f"{spec.id}: jvp gives {len(got)} outputs, primal {len(plus)}"
    for i, (d, p, m) in enumerate(zip(got, plus, minus)):
        fd = (p - m) / (2 * EPS)
        assert np.shape(d) == np.shape(fd), f"{spec.id}[{i}]: shape {np.shape(d)} != {np.shape(fd)}"
        scale = max(1.0, float(np.max(np.abs(fd), initial=0.0)))
        assert np.allclose(d, fd, rtol=RTOL, atol=ATOL * scale + RTOL * scale), (
            f"{spec.id}[{i}]: jvp {d!r} != finite differences {fd!r}")
