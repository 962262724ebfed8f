"""Check a derivative rule against central finite differences.

A `Spec` names a primal (a function, a method `(cls, name)` or an attribute) and
argument generators.  `check(spec, seed)` draws the arguments, runs the primal,
calls the registered rule's `vjp(g, y, *args, **kwargs)` directly with a random
cotangent g shaped like y, and compares, for every differentiable argument and
every float leaf inside it (floats, float arrays, inside lists/tuples/dicts),
<x_bar, e> with <g, (f(x + eps e) - f(x - eps e)) / (2 eps)> in float64, over
all basis directions e of small leaves and a few random ones of larger leaves.

Complex values follow docs/complex.md: a complex output's cotangent g is a covector, the
pairing is <g, y> = Re(sum(g * y)), and a complex leaf is moved in its real and its
imaginary directions (the rule's x_bar pairs with a direction e as Re(sum(x_bar * e))).
"""

from __future__ import annotations

import copy
import inspect
import math
import warnings
from collections.abc import Callable, ItemsView, ValuesView
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from zygote_py import context
from zygote_py.api import _compiler
from zygote_py.rules import registry
from zygote_py.runtime.iterators import Items

EPS = 1e-6
RTOL = 1e-5
ATOL = 1e-7


# ---------------------------------------------------------------------------
# argument generators


class Gen:
    """Draws one argument value from a numpy Generator."""

    def __init__(self, fn: Callable, label: str):
        self.fn = fn
        self.label = label

    def __call__(self, rng):
        return self.fn(rng)

    def __repr__(self):
        return self.label


def _shape_label(shape):
    return "x".join(map(str, shape)) if shape else "()"


def R(*shape, lo=None, hi=None):
    """A float64 array of that shape (normal, or uniform in [lo, hi])."""
    if lo is None:
        return Gen(lambda rng: rng.standard_normal(shape), f"R{_shape_label(shape)}")
    return Gen(lambda rng: rng.uniform(lo, hi, shape), f"U[{lo},{hi}]{_shape_label(shape)}")


def P(*shape):
    """Positive float64 array in [0.5, 2]."""
    return R(*shape, lo=0.5, hi=2.0)


def NZ(*shape):
    """Float64 array bounded away from zero: |x| in [0.5, 2], random signs."""
    def draw(rng):
        return rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    return Gen(draw, f"NZ{_shape_label(shape)}")


def S(lo=None, hi=None):
    """A Python float (normal, or uniform in [lo, hi])."""
    if lo is None:
        return Gen(lambda rng: float(rng.standard_normal()), "S")
    return Gen(lambda rng: float(rng.uniform(lo, hi)), f"S[{lo},{hi}]")


def PS():
    return S(0.5, 2.0)


def A0(lo=None, hi=None):
    """A 0-d float64 array."""
    inner = S(lo, hi)
    return Gen(lambda rng: np.array(inner(rng)), "A0")


def C(*shape):
    """A complex128 array (real and imaginary parts standard normal)."""
    def draw(rng):
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return Gen(draw, f"C{_shape_label(shape)}")


def B(*shape):
    """A boolean mask."""
    return Gen(lambda rng: rng.random(shape) < 0.5, f"B{_shape_label(shape)}")


def F32(*shape):
    return Gen(lambda rng: rng.standard_normal(shape).astype(np.float32), f"F32{_shape_label(shape)}")


def WC(n, *batch):
    """Well-conditioned square matrices (n x n, with leading batch dims)."""
    def draw(rng):
        return rng.standard_normal(batch + (n, n)) * 0.3 + np.eye(n) * 2.0
    return Gen(draw, f"WC{_shape_label(batch + (n, n))}")


def WITH_ZEROS(shape, positions):
    """A normal array with zeros at the given flat positions (for prod)."""
    def draw(rng):
        x = rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)
        x.reshape(-1)[list(positions)] = 0.0
        return x
    return Gen(draw, f"Z{_shape_label(shape)}@{list(positions)}")


def CUSTOM(fn, label):
    return Gen(fn, label)


def draw(template, rng):
    """Instantiate generators inside (nested) lists, tuples and dicts."""
    if isinstance(template, Gen):
        return template(rng)
    if type(template) is list:
        return [draw(t, rng) for t in template]
    if type(template) is tuple:
        return tuple(draw(t, rng) for t in template)
    if type(template) is dict:
        return {k: draw(v, rng) for k, v in template.items()}
    return template


# ---------------------------------------------------------------------------
# specs


@dataclass
class Spec:
    kind: str  # "f" function, "m" method, "a" attribute
    target: Any  # the function, or (cls, name)
    args: tuple
    kwargs: dict = field(default_factory=dict)
    g: Callable | None = None  # custom cotangent maker (y, rng) -> g
    note: str = ""
    copy: bool = False  # the primal writes into an argument: call it on copies

    @property
    def rule(self):
        if self.kind == "f":
            return registry.function_rule(self.target)
        if self.kind == "m":
            return registry.method_rule(*self.target)
        return registry.attr_rule(*self.target)

    @property
    def qualname(self):
        rule = self.rule
        return rule.qualname if rule is not None else f"<no rule for {self.target!r}>"

    def primal(self, args, kwargs):
        if self.copy:
            args, kwargs = copy.deepcopy(args), copy.deepcopy(kwargs)
        if self.kind == "f":
            return self.target(*args, **kwargs)
        if self.kind == "m":
            return getattr(args[0], self.target[1])(*args[1:], **kwargs)
        return getattr(args[0], self.target[1])

    @property
    def id(self):
        parts = [repr(a) for a in self.args]
        parts += [f"{k}={v!r}" for k, v in self.kwargs.items()]
        text = f"{self.qualname}({', '.join(parts)})"
        if self.note:
            text += f"[{self.note}]"
        return text.replace(" ", "")


def F(fn, *args, g=None, note="", copy=False, **kwargs):
    return Spec("f", fn, args, kwargs, g, note, copy)


def M(cls, name, *args, g=None, note="", **kwargs):
    return Spec("m", (cls, name), args, kwargs, g, note)


def A(cls, name, *args):
    return Spec("a", (cls, name), args)


# ---------------------------------------------------------------------------
# structures of floats


def is_float_leaf(x):
    if type(x) is float or isinstance(x, np.floating):
        return True
    return isinstance(x, np.ndarray) and x.dtype.kind in "fc"


def leaves(obj, path=()):
    """(path, value) of every float leaf inside obj."""
    if is_float_leaf(obj):
        yield path, obj
    elif isinstance(obj, (list, tuple)):
        for i, x in enumerate(obj):
            yield from leaves(x, path + (i,))
    elif isinstance(obj, dict):
        for k, x in obj.items():
            yield from leaves(x, path + (k,))


def replace(obj, path, value):
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(obj, dict):
        out = dict(obj)
        out[head] = replace(obj[head], rest, value)
        return out
    items = list(obj)
    items[head] = replace(obj[head], rest, value)
    if type(obj) is list:
        return items
    if type(obj) is tuple:
        return tuple(items)
    return type(obj)(*items)  # namedtuple


def lookup(ct, path, primal):
    """The cotangent at path (None = zero), checking the containers' kinds on the way."""
    for key in path:
        if ct is None:
            return None
        if type(primal) is list:
            assert type(ct) is list, f"cotangent of a list must be a list, got {type(ct).__name__}"
            assert len(ct) == len(primal)
        elif isinstance(primal, tuple):
            assert isinstance(ct, tuple), f"cotangent of a tuple must be a tuple, got {type(ct).__name__}"
            assert len(ct) == len(primal)
        elif isinstance(primal, dict):
            assert isinstance(ct, dict), f"cotangent of a dict must be a dict, got {type(ct).__name__}"
            if key not in ct:
                return None
        ct = ct[key]
        primal = primal[key]
    return ct


def random_like(y, rng):
    """A random cotangent with y's structure (floats for floats); an iterator's is a list."""
    if isinstance(y, Items):
        y = y.items
    if type(y) is int:  # an index or count: no cotangent
        return None
    if type(y) is float:
        return float(rng.standard_normal())
    if isinstance(y, np.floating):
        return type(y)(rng.standard_normal())
    if isinstance(y, np.ndarray) and y.dtype.kind == "c":
        return rng.standard_normal(y.shape) + 1j * rng.standard_normal(y.shape)
    if isinstance(y, np.ndarray):
        return rng.standard_normal(y.shape).astype(y.dtype if y.dtype.kind == "f" else np.float64)
    if isinstance(y, (list, tuple)):
        items = [random_like(v, rng) for v in y]
        return items if type(y) is list else tuple(items)
    if isinstance(y, dict):
        return {k: random_like(v, rng) for k, v in y.items()}
    raise TypeError(f"no random cotangent for {type(y).__name__}")


def inner(g, y):
    """<g, y> summed over matching leaves (None in g is zero)."""
    if g is None:
        return 0.0
    if isinstance(y, (ItemsView, ValuesView)):
        y = list(y)
    if isinstance(y, Items):
        y = y.items
    if isinstance(y, (list, tuple)):
        return sum(inner(gi, yi) for gi, yi in zip(g, y))
    if isinstance(y, dict):
        return sum(inner(g.get(k), v) for k, v in y.items())
    if np.iscomplexobj(g) or np.iscomplexobj(y):  # the covector pairing (docs/complex.md)
        return float(np.real(np.sum(np.asarray(g) * np.asarray(y))))
    if isinstance(g, dict):  # an object's cotangent: its attributes' (a frozen distribution's)
        return sum(inner(v, getattr(y, k)) for k, v in g.items())
    return float(np.sum(np.asarray(g, dtype=np.float64) * np.asarray(y, dtype=np.float64)))


def directions(leaf, rng):
    shape = np.shape(leaf)
    size = int(np.prod(shape))
    parts = (1.0, 1j) if np.iscomplexobj(leaf) else (1.0,)
    for part in parts:
        if size <= 4:
            for i in range(size):
                e = np.zeros(size)
                e[i] = 1.0
                yield e.reshape(shape) * part
        else:
            for _ in range(3):
                yield rng.standard_normal(shape) * part


def perturbed(leaf, e, step):
    if type(leaf) is float:
        return leaf + step * float(e)
    if isinstance(leaf, np.floating):
        return type(leaf)(leaf + step * float(e))
    return (leaf + step * e).astype(leaf.dtype)


# ---------------------------------------------------------------------------
# the check


def call_rule(spec, args, kwargs, g, y):
    """Call the rule as the compiler would: + and * of lists/tuples use the rule's
    sequence form (the compiler picks it when an operand is a list or tuple)."""
    rule = spec.rule
    vjp = rule.vjp
    if rule.meta.get("sequence") and any(isinstance(a, (list, tuple)) for a in args):
        vjp = rule.meta["sequence"]
    out = vjp(g, y, *args, **kwargs)
    if len(rule.diff) == 1:
        return (out,)
    assert isinstance(out, tuple) and len(out) == len(rule.diff), (
        f"rule must return {len(rule.diff)} cotangents, got {out!r}"
    )
    return out


def _call_moved(spec, sig, bound, name, new_value):
    """The primal with one argument replaced."""
    moved = dict(bound.arguments)
    moved[name] = new_value
    b = inspect.BoundArguments(sig, moved)
    return spec.primal(b.args, b.kwargs)


def check(spec: Spec, seed: int = 0) -> int:
    """Compare the rule with finite differences; return how many directions were checked."""
    rng = np.random.default_rng(seed)
    rule = spec.rule
    assert rule is not None, f"no rule registered for {spec.target!r}"
    args = draw(spec.args, rng)
    kwargs = draw(spec.kwargs, rng)
    y = spec.primal(args, kwargs)
    g = spec.g(y, rng) if spec.g is not None else random_like(y, rng)
    # a rule that differentiates a function it is given (odeint) asks run-time dispatch,
    # which needs the compiler a gradient call would install
    with warnings.catch_warnings(), context.using(compiler=_compiler()):
        warnings.simplefilter("error")  # a rule must not warn (nan, divide by zero, deprecations)
        cts = call_rule(spec, args, kwargs, g, y)

    rule.bind(tuple(args), dict(kwargs))  # the compiler binds call sites this way
    sig = inspect.Signature(list(rule.params))
    bound = sig.bind(*args, **kwargs)
    checked = 0
    for name, ct in zip(rule.diff, cts):
        if name not in bound.arguments:  # left at its default: a constant
            continue
        if name in rule.meta.get("underived", ()):  # refused when active: NaN, never a number
            assert all(lookup(ct, path, bound.arguments[name]) is None or
                       np.all(np.isnan(lookup(ct, path, bound.arguments[name])))
                       for path, _ in leaves(bound.arguments[name])), f"{name}: an underived cotangent"
            continue
        value = bound.arguments[name]
        for path, leaf in leaves(value):
            ct_leaf = lookup(ct, path, value)
            if ct_leaf is not None:
                assert np.shape(ct_leaf) == np.shape(leaf), (
                    f"{name}{list(path)}: cotangent shape {np.shape(ct_leaf)} != {np.shape(leaf)}"
                )
                if type(leaf) is float:
                    assert not isinstance(ct_leaf, np.ndarray), (
                        f"{name}{list(path)}: a float's cotangent should be a float, got a 0-d array"
                    )
                assert np.all(np.isfinite(ct_leaf)), f"{name}{list(path)}: non-finite cotangent"
            for e in directions(leaf, rng):
                f_plus = _call_moved(spec, sig, bound, name, replace(value, path, perturbed(leaf, e, EPS)))
                f_minus = _call_moved(spec, sig, bound, name, replace(value, path, perturbed(leaf, e, -EPS)))
                fd = (inner(g, f_plus) - inner(g, f_minus)) / (2 * EPS)
                an = 0.0 if ct_leaf is None else float(np.real(np.sum(np.asarray(ct_leaf) * e)))
                scale = max(1.0, abs(fd), abs(an))
                assert abs(fd - an) <= RTOL * scale + ATOL, (
                    f"{name}{list(path)}: rule gives {an!r}, finite differences {fd!r}"
                )
                checked += 1
    return checked


__all__ = [
    "A0",
    "CUSTOM",
    "F32",
    "NZ",
    "PS",
    "WC",
    "WITH_ZEROS",
    "A",
    "B",
    "C",
    "F",
    "M",
    "P",
    "R",
    "S",
    "Spec",
    "call_rule",
    "check",
    "draw",
    "math",
    "random_like",
]
