"""Nested derivatives: zp.gradient, zp.withgradient, zp.pullback (and its back function),
zp.jvp, zp.jacobian, zp.hessian and zp.hvp called inside a function that zp.gradient,
zp.pullback or zp.jvp differentiates -- to the third order.

Every nested call is built on one primitive, `Inner`: the inner function f at its arguments
xs, with its compiled *pullback form* taking f's closure cells that carry derivatives as
extra inputs.  Every second-order quantity is that pullback form run plainly or run by
forward mode (forward-over-reverse, as zp.hessian does):

- an outer *forward* derivative (tangents xs_dot on xs, f_dot on f's cells) of
  `y, back = pullback(f, *xs)` and `back(g)`: y's tangent is the jvp of f; back is the
  closure `_make_back(f, xs)`, whose call `apply_pullback(f, xs, g)` has a forward
  handler: the pullback program differentiated forward along (xs_dot, f_dot), with g's
  own tangent passed to its back;
- an outer *reverse* derivative of `back(g) = J^T g`, given the cotangent r_bar of its
  result: g's cotangent is J r_bar (a jvp), and xs's and the cells' are
  d/de [J(xs + e r_bar)^T g] -- the pullback program differentiated forward along
  r_bar, back applied to g -- because <r_bar, d/dx (J^T g)> = d/dx <g, J r_bar>;
- an outer reverse derivative of `(y, t) = jvp(f, xs, vs)`, given (y_bar, t_bar):
  vs get J^T t_bar; xs and the cells get J^T y_bar plus d/de [J(xs + e vs)^T t_bar]
  (the same symmetry of second derivatives).

Third derivatives: gradient code that calls one of these rules, differentiated forward
(calls/forward_dispatched.py), needs the tangent of the rule's own back: a third
derivative of f.  Each rule registers it (`fd.register_custom_forward`), read off
`vjp_pairing` -- <J(a)^T s, d>, whose gradient is every result of Inner.forward at once
-- differentiated in reverse (reverse over f's reverse code) and then forward (see
`_third`, and docs/how-it-works.md section 8).

The outer derivative lives in the outer program's tangents or cotangents and the inner
one in the pullback program's cotangents (and, at third order, the pairing's), so they
are never confused: d/dx [x * d/dy (x * y)] is 2x in every combination of modes
(tests/test_nested_modes.py), and its three-level analogue holds
(tests/test_nested_third_order.py).

What is refused (NoDerivativeRule, never a silent zero): keyword arguments (wrt=,
has_aux=), a bound method, callable object or partial whose bound values carry a
derivative, default arguments holding data, a zp.params gradient, a complex tangent on a
real value; at third order, an innermost function whose gradient code reverse mode does
not follow again (a loop, a call resolved while running) and fourth derivatives.

Complex values follow the covector convention (docs/complex.md).  Its pairing
<c, t> = Re(sum(c * t)) is symmetric and has no conjugate, so every identity above holds
for them as written; only reading a tangent off by output elements needs both e_k and
i e_k for a complex output (`_by_output_element`).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import linecache

import numpy as np

from . import context
from .api import call_back as _call_back
from .api import gradient as _gradient
from .api import pullback as _pullback
from .api import withgradient as _withgradient
from .callables import call_plan
from .calls import forward_dispatch as fd
from .calls import reverse_dispatched  # noqa: F401  (reverse over calls gradient code resolved while running)
from .calls.dispatch import active_cells
from .calls.flat_calls import carries_derivative
from .errors import NoDerivativeRule, ZygoteError
from .forward_api import _is_data, dense_tangent, nested_refusal, real_where_real
from .forward_api import hessian as _hessian
from .forward_api import hvp as _hvp
from .forward_api import jacobian as _jacobian
from .forward_api import jvp as _jvp
from .forward_compiler import FORWARD
from .rules.registry import register_custom
from .runtime.built_objects import ObjectLedger
from .tree import accumulate, flatten, unflatten

_UNDERIVED = "has no derivative with respect to its argument"


class Inner:
    """f at xs, compiled in its pullback form with the closure cells that carry derivatives
    as inputs (their cotangents come back last, as a dict by cell name)."""

    def __init__(self, f, xs: tuple, kwargs: dict, what: str, first_active: bool = False):
        self.what = what
        # whether the first parameter is differentiated whatever its type (vjp_pairing's
        # program, whose cotangent is that of the cells of the function it was compiled from)
        self.first_active = first_active
        self.xs = xs
        if kwargs:
            self.refuse("with keyword arguments (wrt=, has_aux=, or the function's own)")
        if context.current().collector is not None:
            self.refuse("inside a zp.params gradient (the inner function may read the parameters)")
        plan = call_plan(f, xs, {})
        fn = plan.fn
        if plan.skip and any(carries_derivative(a) for a in plan.args[:plan.skip]):
            self.refuse("of a bound method, callable object or partial whose bound values "
                        "carry a derivative")
        if plan.has_vararg:
            self.refuse("of a function taking *args")
        defaults = list(fn.__defaults__ or ()) + list((fn.__kwdefaults__ or {}).values())
        if any(_is_data(v) for v in defaults):
            self.refuse("of a function whose default arguments hold numbers or arrays")
        self.plan = plan
        self.fn = fn
        self.own_cells = plan.skip == 0  # f's cells are the compiled function's cells
        self.cells = active_cells(fn)
        if self.cells and not self.own_cells:  # their cotangent would be taken for f's receiver's
            self.refuse("of a bound method or callable object whose function captures values "
                        "that carry a derivative")
        self.ledger = ObjectLedger()
        self.constant_cells: tuple = ()  # cells compiled as constants (see _compile)
        with self.context():
            self.entry = self._compile()

    def _compile(self):
        """The pullback program, f's cells that carry derivatives as inputs.  A cell that
        reaches an argument its rule gives no derivative for (the k of
        scipy.stats.poisson.cdf, captured while only the rate is differentiated) is compiled
        as a constant instead: whether the outer derivative needs its cotangent is not known
        here, so that cotangent is NaN (see split), which shows if it is ever used, and a
        tangent for it is refused (cells_dot).  The same answer run-time dispatch gives for
        such an argument (flat_calls._underived_marks)."""
        fn, plan = self.fn, self.plan
        active = plan.active()
        if self.first_active and active:
            active = (True, *active[1:])
        try:
            return FORWARD.entry(fn, active, "pullback", self.cells, plan.scalars())
        except NoDerivativeRule as err:
            if not self.cells or _UNDERIVED not in err.message:
                raise
            first = err
        for dropped in [(c,) for c in self.cells] + [self.cells]:
            kept = tuple(c for c in self.cells if c not in dropped)
            try:
                entry = FORWARD.entry(fn, active, "pullback", kept, plan.scalars())
            except NoDerivativeRule as err:
                if _UNDERIVED in err.message:
                    continue
                raise
            self.cells, self.constant_cells = kept, dropped
            return entry
        raise first

    def refuse(self, why: str):
        raise NoDerivativeRule(f"zp.{self.what} {why} inside a function being differentiated "
                               "is not supported yet",
                               hint="pass those values as positional arguments of a plain "
                                    "function or lambda")

    def context(self):
        return context.using(compiler=FORWARD, collector=None, reals=False, objects=self.ledger)

    @contextlib.contextmanager
    def told_as_nesting(self):
        """An error inside the generated pullback code, told as a nesting zygote_py does
        not follow (third derivatives, say), not as the generated code's own."""
        try:
            yield
        except ZygoteError as err:
            refusal = nested_refusal(err, self.what)
            if refusal is None:
                raise
            raise refusal from None

    def split(self, bars):
        """(the xs' cotangents, the cells' cotangent dict or None) from the program's back."""
        if bars is None:
            return (None,) * len(self.xs), None
        bars = tuple(bars)
        skip = self.plan.skip
        # a real x's cotangent (and its tangent) is the real part, as zp.pullback hands out
        xs_bars = tuple(real_where_real(b, x) for b, x in zip(bars[skip:skip + len(self.xs)], self.xs))
        cells_bar = bars[-1] if self.cells else None
        if cells_bar is not None:
            cells_bar = {k: v for k, v in cells_bar.items() if v is not None} or None
        if self.constant_cells:
            cells_bar = _add_cells(cells_bar, self.underived_marks())
        return xs_bars, cells_bar

    def underived_marks(self):
        """NaN cotangents for the cells compiled as constants (see _compile) that hold real
        numbers or arrays."""
        marks = {}
        for name, cell in zip(self.fn.__code__.co_freevars, self.fn.__closure__ or ()):
            if name in self.constant_cells:
                value = cell.cell_contents
                if isinstance(value, (float, np.floating)):
                    marks[name] = float("nan")
                elif isinstance(value, np.ndarray) and value.dtype.kind == "f":
                    marks[name] = np.full(value.shape, np.nan)
        return marks or None

    def cells_dot(self, f_dot):
        """f's tangent as the compiled function's cell tangents (refused where it would be lost)."""
        if not fd.has_tangent(f_dot):
            return None
        if not self.own_cells or not isinstance(f_dot, fd.CellTangents):
            self.refuse("of a callable object or bound method that carries a tangent")
        lost = [k for k, v in f_dot.items() if fd.has_tangent(v) and k not in self.cells]
        if lost:
            self.refuse(f"of a closure whose captured {', '.join(lost)} carries a tangent "
                        "zygote_py cannot follow")
        return fd.CellTangents({k: v for k, v in f_dot.items() if k in self.cells})

    def back(self, g):
        """J^T g: (the xs' cotangents, the cells' cotangents)."""
        with self.context():
            _, back = self.entry.fn(*self.plan.args)
            return self.split(back(g))

    def forward(self, xs_dot, f_dot, g, g_dot):
        """The pullback program differentiated forward along (xs_dot, f_dot), its back
        applied to g with tangent g_dot: (y_dot, J^T g split, its tangent split)."""
        y_dot, back, back_dot = self.forward_program(xs_dot, f_dot)
        if g is None and not fd.has_tangent(g_dot):  # only y's tangent is asked for
            return y_dot, self.split(None), self.split(None)
        bars, bars_dot = self.back_forward(back, back_dot, g, g_dot)
        return y_dot, bars, bars_dot

    def forward_program(self, xs_dot, f_dot):
        """(y_dot, back, back_dot): the pullback program run by forward mode."""
        targs = (None,) * self.plan.skip + tuple(xs_dot)
        for x, t in zip(self.xs, xs_dot):
            check_tangent_kind(x, t, self.what)
        cells_dot = self.cells_dot(f_dot)
        with self.context(), self.told_as_nesting():
            (_, back), pair_dot = fd.python_jvp(
                self.entry.fn, cells_dot, self.plan.args, {}, targs, {}, None)
        y_dot, back_dot = pair_dot if pair_dot is not None else (None, None)  # None: all zero
        return y_dot, back, back_dot

    def back_forward(self, back, back_dot, g, g_dot):
        """back(g) of a forward_program run, and its tangent, each split."""
        with self.context(), self.told_as_nesting():
            bars, bars_dot = fd.apply(back, back_dot, (g,), {}, (g_dot,), {}, None)
        return self.split(bars), self.split(bars_dot)


def check_tangent_kind(x, t, what):
    """A real value moves along real directions only: a complex tangent on it is refused (a
    complex value takes a real or complex one)."""
    if not fd.has_tangent(t):
        return
    if isinstance(x, (tuple, list)) and isinstance(t, (tuple, list)):
        for xi, ti in zip(x, t):
            check_tangent_kind(xi, ti, what)
    elif isinstance(x, dict) and isinstance(t, dict):
        for k, ti in t.items():
            check_tangent_kind(x.get(k), ti, what)
    elif np.iscomplexobj(t) and not np.iscomplexobj(x):
        raise NoDerivativeRule(f"zp.{what} inside a function being differentiated: a complex "
                               "tangent on a real value",
                               hint="make the value complex (x + 0j) to move it along complex "
                                    "directions (docs/complex.md)")


def _add(a, b):
    return accumulate(a, b)


def _add_all(pairs):
    return tuple(_add(a, b) for a, b in pairs)


def _add_cells(*dicts):
    out: dict = {}
    for d in dicts:
        for k, v in (d or {}).items():
            out[k] = _add(out.get(k), v)
    return out or None


# -- zp.pullback and its back function inside a function being differentiated --------------


def _make_back(f, xs):
    """The back function zp.pullback returns inside a function being differentiated: a
    closure over (f, xs), so that reverse mode routes its cotangent to them."""
    def back(g):
        return apply_pullback(f, xs, g)

    return back


def apply_pullback(f, xs, g):
    """back(g) of zp.pullback(f, *xs): the cotangents of xs (a tuple)."""
    return _pullback(f, *xs)[1](g)


def _pullback_rule(f, *xs, **kwargs):
    """zp.pullback's reverse rule: y's cotangent y_bar gives J^T y_bar; the back function's
    cotangent (a dict by cell: 'f', 'xs') is added in."""
    inner = Inner(f, xs, kwargs, "pullback")
    y, _ = _pullback(f, *xs)

    def back(bars):
        y_bar, back_bar = bars if bars is not None else (None, None)
        if y_bar is not None:
            xs_bars, cells_bar = inner.back(y_bar)
        else:
            xs_bars, cells_bar = (None,) * len(xs), None
        back_bar = back_bar or {}
        more_xs = back_bar.get("xs") or (None,) * len(xs)
        return (_add_cells(cells_bar, back_bar.get("f")), *_add_all(zip(xs_bars, more_xs)))

    return (y, _make_back(f, xs)), back


def _apply_pullback_rule(f, xs, g):
    """back(g) = J^T g; given r_bar, g gets J r_bar and (xs, cells) get
    d/de [J(xs + e r_bar)^T g]: one forward pass over the pullback program."""
    inner = Inner(f, tuple(xs), {}, "pullback")
    r = apply_pullback(f, xs, g)

    def back(r_bar):
        if r_bar is None:
            return None, None, None
        r_bar = tuple(r_bar) if isinstance(r_bar, (tuple, list)) else (r_bar,)
        y_dot, _, (xs_dot_bars, cells_dot_bar) = inner.forward(r_bar, None, g, None)
        return cells_dot_bar, tuple(xs_dot_bars), y_dot

    return r, back


def _pullback_forward(args, kwargs, targs, tkwargs, loc):
    """zp.pullback inside a function zp.jvp differentiates: (y, back) and their tangents."""
    f, xs = args[0], tuple(args[1:])
    f_dot, xs_dot = targs[0], fd._padded(targs[1:], len(xs))
    inner = Inner(f, xs, kwargs, "pullback")
    y, back = _pullback(f, *xs)
    if not fd.has_tangent(f_dot) and not any(map(fd.has_tangent, xs_dot)):
        return (y, back), None
    y_dot, _, _ = inner.forward(xs_dot, f_dot, None, None)
    # back as the closure _make_back(f, xs) (the same values: apply_pullback is zp.pullback's
    # back): its tangent holds its captured f's and xs' tangents, and calling it runs
    # apply_pullback, whose forward meaning is _apply_pullback_forward
    return (y, _make_back(f, xs)), (y_dot, fd.closure_tangent(("f", "xs"), f_dot, xs_dot))


def _apply_pullback_forward(args, kwargs, targs, tkwargs, loc):
    """back(g) = J^T g of a zp.pullback made inside a function zp.jvp differentiates, and its
    tangent d/de J(xs + e xs_dot)^T (g + e g_dot): the pullback program run forward."""
    f, xs, g = args
    f_dot, xs_dot, g_dot = fd._padded(targs, 3)
    xs = tuple(xs)
    value = apply_pullback(f, xs, g)
    xs_dot = tuple(xs_dot) if xs_dot is not None else (None,) * len(xs)
    if not fd.has_tangent(f_dot) and not any(map(fd.has_tangent, xs_dot)):
        # only g moves, and a pullback is linear in g
        return value, (apply_pullback(f, xs, g_dot) if fd.has_tangent(g_dot) else None)
    inner = Inner(f, xs, kwargs, "pullback")
    _, _, (xs_bars_dot, _) = inner.forward(xs_dot, f_dot, g, g_dot)
    return value, tuple(xs_bars_dot)


# -- zp.jvp inside a function being differentiated ---------------------------------------


def _jvp_rule(f, primals, tangents):
    """zp.jvp's reverse rule: tangents get J^T t_bar; primals and f's cells get
    J^T y_bar + d/de [J(primals + e tangents)^T t_bar]."""
    primals, tangents = tuple(primals), tuple(tangents)
    inner = Inner(f, primals, {}, "jvp")
    y, t = _jvp(f, primals, tangents)

    def back(bars):
        y_bar, t_bar = bars if bars is not None else (None, None)
        n = len(primals)
        primal_bars, cells_bar, tangent_bars = (None,) * n, None, (None,) * n
        if t_bar is not None:
            _, (tangent_bars, cells_1), (primal_bars, cells_2) = inner.forward(
                tangents, None, t_bar, None)
            cells_bar = cells_2  # (cells_1, J_c^T t_bar, is not a derivative of t)
        if y_bar is not None:
            more, cells_3 = inner.back(y_bar)
            primal_bars = _add_all(zip(primal_bars, more))
            cells_bar = _add_cells(cells_bar, cells_3)
        return cells_bar, tuple(primal_bars), tuple(tangent_bars)

    return (y, t), back


# -- zp.gradient inside a function being differentiated ---------------------------------


def _gradient_rule(f, *xs, **kwargs):
    """grads = zp.gradient(f, *xs); given grads_bar, xs and f's cells get
    d/de grad(xs + e grads_bar) (the Hessian times grads_bar, and the mixed derivative
    for the captured values): the pullback program run forward along grads_bar, its back
    seeded with 1."""
    inner = Inner(f, xs, kwargs, "gradient")
    grads = _gradient(f, *xs)

    def back(grads_bar):
        n = len(xs)
        grads_bar = tuple(grads_bar) if isinstance(grads_bar, (tuple, list)) else \
            (grads_bar,) if grads_bar is not None else (None,) * n
        if not any(map(fd.has_tangent, grads_bar)):
            return (None,) * (1 + n)
        _, _, (xs_bars, cells_bar) = inner.forward(grads_bar, None, 1.0, None)
        return (cells_bar, *xs_bars)

    return grads, back


def _gradient_forward(args, kwargs, targs, tkwargs, loc):
    """The tangent of zp.gradient(f, *xs) along (xs_dot, f_dot): the pullback program run
    forward along them, its back seeded with 1."""
    f, xs = args[0], tuple(args[1:])
    f_dot, xs_dot = targs[0], tuple(targs[1:]) + (None,) * (len(xs) + 1 - len(targs))
    value = _gradient(f, *xs, **kwargs)
    if not fd.has_tangent(f_dot) and not any(map(fd.has_tangent, xs_dot)):
        return value, None
    inner = Inner(f, xs, kwargs, "gradient")
    _, _, (grads_dot, _) = inner.forward(xs_dot, f_dot, 1.0, None)
    return value, tuple(grads_dot)


# -- zp.withgradient inside a function being differentiated ------------------------------


def _withgradient_rule(f, *xs, **kwargs):
    """(y, grads) = zp.withgradient(f, *xs); given (y_bar, grads_bar): xs and f's cells
    get y_bar * grad + d/de grad(xs + e grads_bar) (the Hessian times grads_bar)."""
    inner = Inner(f, xs, kwargs, "withgradient")
    y, grads = _withgradient(f, *xs)

    def back(bars):
        y_bar, grads_bar = bars if bars is not None else (None, None)
        n = len(xs)
        grads_bar = tuple(grads_bar) if grads_bar is not None else (None,) * n
        xs_bars, cells_bar = (None,) * n, None
        if any(map(fd.has_tangent, grads_bar)):
            _, _, (xs_bars, cells_bar) = inner.forward(grads_bar, None, 1.0, None)
        if y_bar is not None:
            more, more_cells = inner.back(y_bar)
            xs_bars = _add_all(zip(xs_bars, more))
            cells_bar = _add_cells(cells_bar, more_cells)
        return (cells_bar, *xs_bars)

    return (y, grads), back


def _withgradient_forward(args, kwargs, targs, tkwargs, loc):
    f, xs = args[0], tuple(args[1:])
    f_dot, xs_dot = targs[0], tuple(targs[1:]) + (None,) * (len(xs) + 1 - len(targs))
    value = _withgradient(f, *xs, **kwargs)
    if not fd.has_tangent(f_dot) and not any(map(fd.has_tangent, xs_dot)):
        return value, None
    inner = Inner(f, xs, kwargs, "withgradient")
    y_dot, _, (grads_dot, _) = inner.forward(xs_dot, f_dot, 1.0, None)
    return value, (y_dot, tuple(grads_dot))


# -- zp.jacobian inside a function being differentiated ---------------------------------


def _output_basis(y):
    """(index, e_k) for each element k of the array or float y: the basis cotangents."""
    shape = np.shape(y)
    if not shape:
        yield (), 1.0
        return
    for index in np.ndindex(shape):
        e = np.zeros(shape)
        e[index] = 1.0
        yield index, e


def _jacobian_inner(f, xs, kwargs):
    inner = Inner(f, xs, kwargs, "jacobian")
    for x in xs:
        if not isinstance(x, (np.ndarray, float, np.floating)) or np.iscomplexobj(x):
            inner.refuse("of a function of other values than real arrays and floats")
    return inner


def _refuse_complex_output(inner, y):
    """The rows below are read by real basis cotangents: a complex output (whose rows need
    i e_k as well, as zp.jacobian does outside) is refused here."""
    if np.iscomplexobj(y):
        inner.refuse("of a function with a complex output")


def _jacobian_rule(f, *xs, mode="auto", **kwargs):
    """Each Jacobian J_i = dy/dx_i (shape y.shape + x_i.shape); given their cotangents,
    x_j and f's cells get sum_k d/de [J(xs + e d_k)^T e_k], d_k the cotangents' slices at
    output element k: one forward pass of the pullback program per element of y."""
    inner = _jacobian_inner(f, xs, kwargs)
    jacobians = _jacobian(f, *xs, mode=mode, **kwargs)
    y = f(*xs)
    _refuse_complex_output(inner, y)

    def back(bars):
        n = len(xs)
        bars = tuple(bars) if bars is not None else (None,) * n
        xs_bars, cells_bar = (None,) * n, None
        for index, e in _output_basis(y):
            direction = tuple(None if b is None else np.asarray(b)[index] for b in bars)
            if not any(map(fd.has_tangent, direction)):
                continue
            direction = tuple(d if d is None or np.ndim(x) else float(d)
                              for d, x in zip(direction, xs))
            _, _, (more, more_cells) = inner.forward(direction, None, e, None)
            xs_bars = _add_all(zip(xs_bars, more))
            cells_bar = _add_cells(cells_bar, more_cells)
        return (cells_bar, *xs_bars)

    return jacobians, back


def _jacobian_forward(args, kwargs, targs, tkwargs, loc):
    """The Jacobians' tangents along (xs_dot, f_dot): row k of J_i' is the x_i part of
    d/de J(xs + e xs_dot)^T e_k, one call of the forward-differentiated back per element."""
    f, xs = args[0], tuple(args[1:])
    f_dot, xs_dot = targs[0], tuple(targs[1:]) + (None,) * (len(xs) + 1 - len(targs))
    value = _jacobian(f, *xs, **kwargs)
    if not fd.has_tangent(f_dot) and not any(map(fd.has_tangent, xs_dot)):
        return value, None
    kwargs = {k: v for k, v in kwargs.items() if k != "mode"}
    inner = _jacobian_inner(f, xs, kwargs)
    y = f(*xs)
    _refuse_complex_output(inner, y)
    _, back, back_dot = inner.forward_program(xs_dot, f_dot)
    out = [np.zeros(np.shape(y) + np.shape(x)) for x in xs]
    for index, e in _output_basis(y):
        _, (rows, _) = inner.back_forward(back, back_dot, e, None)
        for i, row in enumerate(rows):
            if row is not None:
                out[i][index] = row
    return value, tuple(out)


# -- the back function of a zp.pullback made outside, called inside -------------------------


def _call_back_rule(back_all, wrt, f, args, kwargs, dy):
    """back(dy) of a zp.pullback(f, *args) made before (outside) the function being
    differentiated: the same derivatives as apply_pullback."""
    value = _call_back(back_all, wrt, f, args, kwargs, dy)
    if wrt is not None or kwargs:
        raise NoDerivativeRule("the back function of zp.pullback(..., wrt=...) or of a function "
                               "given keyword arguments, called inside a function being "
                               "differentiated, is not supported yet")
    _, back = _apply_pullback_rule(f, tuple(args), dy)

    def back_all_args(r_bar):
        f_bar, args_bar, dy_bar = back(r_bar)
        return None, None, f_bar, args_bar, None, dy_bar

    return value, back_all_args


def _call_back_forward(args, kwargs, targs, tkwargs, loc):
    back_all, wrt, f, xs, f_kwargs, dy = args
    targs = tuple(targs) + (None,) * (6 - len(targs))
    f_dot, xs_dot, dy_dot = targs[2], targs[3], targs[5]
    value = _call_back(back_all, wrt, f, xs, f_kwargs, dy)
    if not fd.has_tangent(f_dot) and not fd.has_tangent(xs_dot):
        # only dy moves, and a pullback is linear in it
        return value, (_call_back(back_all, wrt, f, xs, f_kwargs, dy_dot)
                       if fd.has_tangent(dy_dot) else None)
    if wrt is not None or f_kwargs:
        raise NoDerivativeRule("the back function of zp.pullback(..., wrt=...) or of a function "
                               "given keyword arguments, called inside a function zp.jvp "
                               "differentiates, is not supported yet", loc)
    inner = Inner(f, tuple(xs), {}, "pullback")
    xs_dot = tuple(xs_dot) if xs_dot is not None else (None,) * len(xs)
    _, _, (xs_bars_dot, _) = inner.forward(xs_dot, f_dot, dy, dy_dot)
    return value, tuple(xs_bars_dot)


def _register() -> None:
    register_custom(_pullback, _pullback_rule)
    register_custom(apply_pullback, _apply_pullback_rule)
    register_custom(_jvp, _jvp_rule)
    fd.register_handler(_pullback, _pullback_forward)
    fd.register_handler(apply_pullback, _apply_pullback_forward)
    register_custom(_gradient, _gradient_rule)
    fd.register_handler(_gradient, _gradient_forward)
    register_custom(_withgradient, _withgradient_rule)
    fd.register_handler(_withgradient, _withgradient_forward)
    register_custom(_jacobian, _jacobian_rule)
    fd.register_handler(_jacobian, _jacobian_forward)
    register_custom(_call_back, _call_back_rule)
    fd.register_handler(_call_back, _call_back_forward)


_register()


# -- zp.jvp inside a function zp.jvp differentiates: forward over forward -------------------


def _jvp_forward(args, kwargs, targs, tkwargs, loc):
    """(y, t) = zp.jvp(f, primals, tangents) and its tangent along w = (primals_dot, f_dot)
    and the tangents' own tangents v_dot:  y_dot = J w,  t_dot = J v_dot + D2f[v, w].
    The second-order term is read off the pullback program run forward along w, one
    output element k at a time: D2f[v, w]_k = <d/de J(x + e w)^T e_k, v>.  Exact; it
    costs one call of the forward-differentiated back per element of f's output."""
    f, primals, tangents = args[0], tuple(args[1]), tuple(args[2])
    targs = tuple(targs) + (None,) * (3 - len(targs))
    f_dot = targs[0]
    n = len(primals)
    primals_dot = tuple(targs[1]) if targs[1] is not None else (None,) * n
    tangents_dot = tuple(targs[2]) if targs[2] is not None else (None,) * n
    value = _jvp(f, primals, tangents)
    w_moves = fd.has_tangent(f_dot) or any(map(fd.has_tangent, primals_dot))
    if not w_moves and not any(map(fd.has_tangent, tangents_dot)):
        return value, None
    inner = Inner(f, primals, kwargs, "jvp")
    for x, t in zip(primals, tangents):
        check_tangent_kind(x, t, "jvp")
    y = value[0]
    y_dot, t_dot = None, None
    if any(map(fd.has_tangent, tangents_dot)):
        t_dot = _jvp(f, primals, tuple(_dense_zero(t, x) for t, x in zip(tangents_dot, primals)))[1]
    if w_moves:
        y_dot, back, back_dot = inner.forward_program(primals_dot, f_dot)
        if any(map(fd.has_tangent, tangents)):
            def row(seed):
                _, (xs_bars_dot, _) = inner.back_forward(back, back_dot, seed, None)
                return sum(_pair(b, v) for b, v in zip(xs_bars_dot, tangents))

            t_dot = _add(t_dot, _by_output_element(y, row))
    return value, (y_dot, t_dot)


def _by_output_element(y, row):
    """The tangent in y's structure whose element k is row(e_k), e_k the k-th basis
    cotangent of y (float and complex leaves only; other leaves get no tangent).  A complex
    element is row(e_k) - i row(i e_k): row pairs a cotangent c with a tangent t as
    Re(c t), which gives the real part along e_k and minus the imaginary part along i e_k."""
    leaves, treedef = flatten(y)
    zeros = [_zero_leaf(leaf) for leaf in leaves]
    out = []
    for i, leaf in enumerate(leaves):
        if zeros[i] is None:
            out.append(None)
            continue
        is_complex = np.iscomplexobj(leaf)

        def element(e):
            seed = list(zeros)
            seed[i] = e
            value = row(unflatten(treedef, seed))
            if not is_complex:
                return value
            seed[i] = 1j * e
            return value - 1j * row(unflatten(treedef, seed))

        if np.ndim(leaf) == 0:
            value = element(1.0 + 0j if is_complex else 1.0)
            out.append(complex(value) if is_complex else float(value))
            continue
        result = np.zeros(np.shape(leaf), complex if is_complex else float)
        for index in np.ndindex(np.shape(leaf)):
            e = np.zeros(np.shape(leaf), result.dtype)
            e[index] = 1.0
            result[index] = element(e)
        out.append(result)
    return unflatten(treedef, out)


def _zero_leaf(leaf):
    if isinstance(leaf, np.ndarray):
        kind = leaf.dtype.kind
        return np.zeros(leaf.shape) if kind == "f" else \
            np.zeros(leaf.shape, complex) if kind == "c" else None
    if isinstance(leaf, (float, np.floating)):
        return 0.0
    if isinstance(leaf, (complex, np.complexfloating)):
        return 0j
    return None


def _pair(a, b) -> float:
    """<a, b> = Re(sum(a * b)) over matching structures (None is zero): a cotangent paired
    with a tangent, complex ones included (docs/complex.md)."""
    if a is None or b is None:
        return 0.0
    if isinstance(a, (tuple, list)):
        return sum(_pair(ai, bi) for ai, bi in zip(a, b))
    if isinstance(a, dict):
        return sum(_pair(a[k], b.get(k)) for k in a)
    return float(np.real(np.sum(np.asarray(a) * np.asarray(b))))


def _dense_like(t, x):
    """t with zeros in x's structure wherever it is None, at every level (a dict's tangent
    may lack keys, a tuple's hold None items): the directions vjp_pairing indexes."""
    if t is None:
        return dense_tangent(None, x)
    if type(x) is dict and isinstance(t, dict):
        return {k: _dense_like(t.get(k), v) for k, v in x.items()}
    if type(x) in (tuple, list) and isinstance(t, (tuple, list)) and len(t) == len(x):
        return type(x)(_dense_like(ti, xi) for ti, xi in zip(t, x))
    return t


def _dense_zero(t, x):
    """A tangent, zeros (of x's structure) where it is None."""
    return t if t is not None else dense_tangent(None, x)


fd.register_handler(_jvp, _jvp_forward)


# -- third derivatives: forward mode over the back of a nested rule ---------------------------
#
# Gradient code that calls zp.gradient (zp.pullback, zp.jvp, ...) holds `y, back =
# _zp_call(zp.gradient, (f, x), ...)`, back being the nested rule's back: a second derivative
# of f (the pullback program run by forward mode, Inner.forward).  Forward mode over that
# gradient code (a Hessian of it, or any nesting of it under zp.jvp or zp.pullback) needs the
# tangent of back(g): a third derivative of f.  It is read off one function written in the
# Python zygote_py differentiates, `vjp_pairing`, whose *gradient* is every result of
# Inner.forward at once; the forward transform run over that gradient gives their tangents.
# The pullback program of f is itself differentiated in reverse there (reverse over
# reverse); a call that program resolves while running is refused there (no reverse rule).


@functools.cache
def vjp_pairing(nargs: int, skip: int, shapes: tuple = None):
    """The function `(program, a_0 .. a_k, s, d_skip .. d_k) -> <J^T s, d>`: f's pullback
    program run at the arguments a (the first skip of them bound values without a
    direction), its back applied to the cotangent s, the result paired with the directions
    d.  Its gradient is: for a, d/de J(a + e d)^T s; for s, J d; for d, J^T s; for program
    (f's closure cells that carry derivatives), the cells' part of the first.  shapes[i]
    says how argument skip + i is built: None for a float or array, "complex" for a complex
    number or array (paired by Re(sum(c * t)), docs/complex.md), a tuple of those for a
    tuple or list of them (nested), paired leaf by leaf.

    Straight-line source for each arity and structure (no loop, so that its gradient keeps
    no tape of pullbacks, which forward mode could not follow), compiled here and
    registered in linecache, because zygote_py reads the source of what it
    differentiates."""
    shapes = shapes if shapes is not None else (None,) * (nargs - skip)
    params = [f"a{i}" for i in range(nargs)]
    directions = [f"d{i}" for i in range(skip, nargs)]
    name = f"vjp_pairing_{nargs}_{skip}_{abs(hash(shapes))}"
    lines = [f"def {name}(program, {', '.join(params + ['s'] + directions)}):",
             f"    _, back = program({', '.join(params)}{',' if nargs == 1 else ''})",
             "    bars = back(s)",
             "    total = 0.0"]
    counter = iter(range(10 ** 6))

    def pair(bar, direction, shape, indent):
        if shape is None:
            lines.append(f"{indent}total = total + np.sum({bar} * {direction})")
            return
        if shape == "complex":  # <c, t> = Re(sum(c * t)), no conjugate (docs/complex.md)
            lines.append(f"{indent}total = total + np.real(np.sum({bar} * {direction}))")
            return
        for j, part in enumerate(shape):
            b = f"b{next(counter)}"
            lines.append(f"{indent}{b} = {bar}[{j}]")
            lines.append(f"{indent}if {b} is not None:")
            pair(b, f"{direction}[{j}]", part, indent + "    ")

    for i in range(skip, nargs):
        b = f"b{next(counter)}"
        lines += [f"    {b} = bars[{i}]", f"    if {b} is not None:"]
        pair(b, f"d{i}", shapes[i - skip], "        ")
    lines.append("    return total")
    source = "\n".join(lines) + "\n"
    filename = f"<zygote_py-{name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"np": np}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102  (source built above)
    return namespace[name]


def _shape_of(x, inner):
    """vjp_pairing's description of argument x (see there), refusing what it cannot pair."""
    if isinstance(x, (float, np.floating)) or isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return None
    if isinstance(x, (complex, np.complexfloating)) or \
            isinstance(x, np.ndarray) and x.dtype.kind == "c":
        return "complex"
    if type(x) in (tuple, list) and x:
        return tuple(_shape_of(item, inner) for item in x)
    inner.refuse("of a function of other values than real floats and arrays (or tuples and "
                 "lists of them), differentiated to a third order")


def _third(inner: Inner, d, s, xs_dot, f_dot, d_dot, s_dot, y):
    """The tangents, along xs_dot, f_dot (f's cells), d_dot and s_dot, of what
    inner.forward(d, None, s, None) computes: (J d, J^T s [the xs' part],
    d/de J(xs + e d)^T s [the xs' part], its cells' part).  Each is None where zero."""
    n, skip = len(inner.xs), inner.plan.skip
    shapes = tuple(_shape_of(x, inner) for x in inner.xs)
    d = _n_tuple(d, n)
    if s is None:
        s = _dense_zero(None, y)
    d = tuple(_dense_like(di, x) for di, x in zip(d, inner.xs))
    args = tuple(inner.plan.args)
    try:
        # the program is differentiated (its cotangent: that of f's cells) when f's cells
        # carry derivatives; a function argument is not active by its own type
        pairing = Inner(vjp_pairing(len(args), skip, shapes), (inner.entry.fn, *args, s, *d),
                        {}, inner.what, first_active=bool(inner.cells))
    except NoDerivativeRule as err:
        raise NoDerivativeRule(f"zp.{inner.what} differentiated to a third order: "
                               f"{err.message}", None, err.hint) from None
    directions = (inner.cells_dot(f_dot), *(None,) * skip, *_n_tuple(xs_dot, n), s_dot,
                  *_n_tuple(d_dot, n))
    try:
        _, _, (bars_dot, _) = pairing.forward(directions, None, 1.0, None)
    except ZygoteError as err:
        raise NoDerivativeRule(
            f"zp.{inner.what} inside gradient code differentiated again: a third derivative "
            f"of {getattr(inner.fn, '__qualname__', inner.fn)!r} differentiates its gradient "
            f"code in reverse once more, which meets something zygote_py does not follow there "
            f"({err.message})", None,
            "third derivatives need the innermost function's gradient code to make no call "
            "decided while running (pass captured values as arguments); see "
            "docs/limitations.md") from None
    program_dot = bars_dot[0]
    args_dot = tuple(bars_dot[1 + skip:1 + skip + n])
    s_bar_dot = bars_dot[1 + skip + n]
    d_bar_dot = tuple(bars_dot[2 + skip + n:])
    cells_dot = {k: v for k, v in (program_dot or {}).items()
                 if k in inner.cells and v is not None} or None
    return s_bar_dot, d_bar_dot, args_dot, cells_dot


def _n_tuple(t, n):
    return tuple(t) if t is not None else (None,) * n


def _gradient_back_forward(args, kwargs, targs, tkwargs, loc):
    """zp.gradient in gradient code differentiated forward: its tangent, and that of its
    rule's back(grads_bar) = d/de grad(xs + e grads_bar) (a third derivative of f)."""
    _, grads_dot = _gradient_forward(args, kwargs, targs, tkwargs, loc)
    f, xs = args[0], tuple(args[1:])
    f_dot, xs_dot = targs[0], _n_tuple(targs[1:], len(xs))
    inner = Inner(f, xs, kwargs, "gradient")
    n = len(xs)

    def back_tangent(grads_bar, grads_bar_dot):
        grads_bar, grads_bar_dot = _as_n(grads_bar, n), _as_n(grads_bar_dot, n)
        if not any(map(fd.has_tangent, grads_bar + grads_bar_dot)):
            return None
        _, _, bars_dot, cells_dot = _third(inner, grads_bar, 1.0, xs_dot, f_dot,
                                           grads_bar_dot, None, 1.0)
        return (cells_dot, *bars_dot)

    return grads_dot, back_tangent


def _withgradient_back_forward(args, kwargs, targs, tkwargs, loc):
    _, pair_dot = _withgradient_forward(args, kwargs, targs, tkwargs, loc)
    f, xs = args[0], tuple(args[1:])
    f_dot, xs_dot = targs[0], _n_tuple(targs[1:], len(xs))
    inner = Inner(f, xs, kwargs, "withgradient")
    n = len(xs)

    def back_tangent(bars, bars_dot):
        y_bar, grads_bar = bars if bars is not None else (None, None)
        y_bar_dot, grads_bar_dot = bars_dot if bars_dot is not None else (None, None)
        grads_bar, grads_bar_dot = _as_n(grads_bar, n), _as_n(grads_bar_dot, n)
        xs_out, cells_out = (None,) * n, None
        if any(map(fd.has_tangent, grads_bar + grads_bar_dot)):
            _, _, xs_out, cells_out = _third(inner, grads_bar, 1.0, xs_dot, f_dot,
                                             grads_bar_dot, None, 1.0)
        xs_out, cells_out = _add_back_tangent(inner, xs_out, cells_out, y_bar, y_bar_dot,
                                              xs_dot, f_dot)
        return (cells_out, *xs_out)

    return pair_dot, back_tangent


def _add_back_tangent(inner, xs_out, cells_out, y_bar, y_bar_dot, xs_dot, f_dot):
    """(xs_out, cells_out) plus the tangent of inner.back(y_bar) = J^T y_bar along
    (xs_dot, f_dot, y_bar_dot): the pullback program run forward (a second derivative)."""
    if y_bar is None and not fd.has_tangent(y_bar_dot):
        return xs_out, cells_out
    _, _, (more, more_cells) = inner.forward(xs_dot, f_dot, y_bar, y_bar_dot)
    return _add_all(zip(xs_out, more)), _add_cells(cells_out, more_cells)


def _pullback_back_forward(args, kwargs, targs, tkwargs, loc):
    """zp.pullback in gradient code differentiated forward: (y, back) and their tangents, and
    the tangent of its rule's back((y_bar, back_bar)) -- J^T y_bar plus what the back
    function's own cotangent gives to f and xs -- a second derivative of f."""
    _, pair_dot = _pullback_forward(args, kwargs, targs, tkwargs, loc)
    f, xs = args[0], tuple(args[1:])
    f_dot, xs_dot = targs[0], _n_tuple(targs[1:], len(xs))
    inner = Inner(f, xs, kwargs, "pullback")
    n = len(xs)

    def back_tangent(bars, bars_dot):
        y_bar = bars[0] if bars is not None else None
        y_bar_dot, back_bar_dot = bars_dot if bars_dot is not None else (None, None)
        xs_out, cells_out = _add_back_tangent(inner, (None,) * n, None, y_bar, y_bar_dot,
                                              xs_dot, f_dot)
        back_bar_dot = back_bar_dot or {}
        xs_out = _add_all(zip(xs_out, _n_tuple(back_bar_dot.get("xs"), n)))
        return (_add_cells(cells_out, back_bar_dot.get("f")), *xs_out)

    return pair_dot, back_tangent


def _apply_pullback_back_forward(args, kwargs, targs, tkwargs, loc):
    """back(g) of a nested zp.pullback, in gradient code differentiated forward: its tangent,
    and that of its rule's back(r_bar) = (d/de J(xs + e r_bar)^T g for f's cells and xs,
    J r_bar for g) -- a third derivative of f."""
    _, value_dot = _apply_pullback_forward(args, kwargs, targs, tkwargs, loc)
    f, xs, g = args[0], tuple(args[1]), args[2]
    f_dot, xs_dot, g_dot = fd._padded(targs, 3)
    xs_dot = _n_tuple(xs_dot, len(xs))
    inner = Inner(f, xs, kwargs, "pullback")
    n = len(xs)

    def back_tangent(r_bar, r_bar_dot):
        r_bar, r_bar_dot = _as_n(r_bar, n), _as_n(r_bar_dot, n)
        jd_dot, _, bars_dot, cells_dot = _third(inner, r_bar, g, xs_dot, f_dot, r_bar_dot,
                                                g_dot, g)
        return cells_dot, tuple(bars_dot), jd_dot

    return value_dot, back_tangent


def _jvp_back_forward(args, kwargs, targs, tkwargs, loc):
    """zp.jvp in gradient code differentiated forward: (y, t) and their tangents, and the
    tangent of its rule's back((y_bar, t_bar)) -- a third derivative of f."""
    value, pair_dot = _jvp_forward(args, kwargs, targs, tkwargs, loc)
    f, primals, tangents = args[0], tuple(args[1]), tuple(args[2])
    targs = tuple(targs) + (None,) * (3 - len(targs))
    f_dot = targs[0]
    n = len(primals)
    primals_dot, tangents_dot = _n_tuple(targs[1], n), _n_tuple(targs[2], n)
    inner = Inner(f, primals, kwargs, "jvp")
    y = value[0]

    def back_tangent(bars, bars_dot):
        y_bar, t_bar = bars if bars is not None else (None, None)
        y_bar_dot, t_bar_dot = bars_dot if bars_dot is not None else (None, None)
        primal_out, cells_out, tangent_out = (None,) * n, None, (None,) * n
        if t_bar is not None or fd.has_tangent(t_bar_dot):
            _, tangent_out, primal_out, cells_out = _third(
                inner, tangents, t_bar, primals_dot, f_dot, tangents_dot, t_bar_dot, y)
        primal_out, cells_out = _add_back_tangent(inner, primal_out, cells_out, y_bar,
                                                  y_bar_dot, primals_dot, f_dot)
        return cells_out, tuple(primal_out), tuple(tangent_out)

    return pair_dot, back_tangent


def _as_n(t, n):
    """A cotangent (or tangent) of n arguments as a tuple of n (a lone one for n == 1)."""
    if t is None:
        return (None,) * n
    if isinstance(t, (tuple, list)) and len(t) == n and not (n == 1 and isinstance(t, list)):
        return tuple(t)
    return (t,)


fd.register_custom_forward(_gradient, _gradient_back_forward)
fd.register_custom_forward(_withgradient, _withgradient_back_forward)
fd.register_custom_forward(_pullback, _pullback_back_forward)
fd.register_custom_forward(apply_pullback, _apply_pullback_back_forward)
fd.register_custom_forward(_jvp, _jvp_back_forward)


# -- zp.hessian and zp.hvp inside a function being differentiated --------------------------


def _hessian_inner(f, x, what):
    inner = Inner(f, (x,), {}, what)
    if not isinstance(x, (float, np.floating, np.ndarray)) or np.iscomplexobj(x):
        inner.refuse("of a function of other values than a real float or array")
    return inner


def _hessian_forward(args, kwargs, targs, tkwargs, loc):
    """H = zp.hessian(f, x) and its tangent along (x_dot, f_dot): column j of the tangent is
    d/de H(x + e x_dot) e_j, a third derivative of f, one _third call per element of x."""
    f, x = args
    f_dot, x_dot = fd._padded(targs, 2)
    value = _hessian(f, x, **kwargs)
    if not fd.has_tangent(f_dot) and not fd.has_tangent(x_dot):
        return value, None
    inner = _hessian_inner(f, x, "hessian")
    if np.ndim(x) == 0:
        _, _, (column,), _ = _third(inner, (1.0,), 1.0, (x_dot,), f_dot, (None,), None, 1.0)
        return value, 0.0 if column is None else float(column)
    out = np.zeros(np.shape(x) + np.shape(x))
    for index in np.ndindex(np.shape(x)):
        e = np.zeros(np.shape(x))
        e[index] = 1.0
        _, _, (column,), _ = _third(inner, (e,), 1.0, (x_dot,), f_dot, (None,), None, 1.0)
        if column is not None:
            out[(Ellipsis, *index)] = column
    return value, out


def _hvp_forward(args, kwargs, targs, tkwargs, loc):
    """zp.hvp(f, x, v) = H v and its tangent H v_dot + d/de H(x + e x_dot) v."""
    f, x, v = args
    f_dot, x_dot, v_dot = fd._padded(targs, 3)
    value = _hvp(f, x, v, **kwargs)
    if not any(map(fd.has_tangent, (f_dot, x_dot, v_dot))):
        return value, None
    inner = _hessian_inner(f, x, "hvp")
    _, _, (tangent,), _ = _third(inner, (v,), 1.0, (x_dot,), f_dot, (v_dot,), None, 1.0)
    return value, (dense_tangent(tangent, x) if isinstance(x, np.ndarray) else tangent)


def _hessian_rule(f, x, **kwargs):
    """zp.hessian's reverse rule: given H_bar, x gets sum_j D3f[e_j, H_bar[..., j]] (and
    f's cells the same mixed derivative), one _third call per element of x."""
    inner = _hessian_inner(f, x, "hessian")
    value = _hessian(f, x, **kwargs)

    def back(h_bar):
        if h_bar is None:
            return None, None
        if np.ndim(x) == 0:
            _, _, (x_bar,), cells_bar = _third(inner, (1.0,), 1.0, (float(h_bar),), None,
                                               (None,), None, 1.0)
            return cells_bar, x_bar
        x_bar, cells_bar = None, None
        h_bar = np.asarray(h_bar, dtype=float)
        for index in np.ndindex(np.shape(x)):
            e = np.zeros(np.shape(x))
            e[index] = 1.0
            direction = h_bar[(Ellipsis, *index)]
            if not np.any(direction):
                continue
            _, _, (more,), more_cells = _third(inner, (e,), 1.0, (direction,), None, (None,),
                                               None, 1.0)
            x_bar = _add(x_bar, more)
            cells_bar = _add_cells(cells_bar, more_cells)
        return cells_bar, x_bar

    return value, back


def _hvp_rule(f, x, v, **kwargs):
    """zp.hvp's reverse rule: given r_bar, v gets H r_bar and x gets D3f[v, r_bar]."""
    inner = _hessian_inner(f, x, "hvp")
    value = _hvp(f, x, v, **kwargs)

    def back(r_bar):
        if r_bar is None:
            return None, None, None
        _, _, (x_bar,), cells_bar = _third(inner, (v,), 1.0, (r_bar,), None, (None,), None, 1.0)
        v_bar = _hvp(f, x, r_bar)
        return cells_bar, x_bar, v_bar

    return value, back


fd.register_handler(_hessian, _hessian_forward)
fd.register_handler(_hvp, _hvp_forward)
register_custom(_hessian, _hessian_rule)
register_custom(_hvp, _hvp_rule)


def _call_back_back_forward(args, kwargs, targs, tkwargs, loc):
    """back(dy) of a zp.pullback made outside, in gradient code differentiated forward: as
    apply_pullback's (its rule is _apply_pullback_rule's)."""
    _, value_dot = _call_back_forward(args, kwargs, targs, tkwargs, loc)
    back_all, wrt, f, xs, f_kwargs, dy = args
    if wrt is not None or f_kwargs:
        raise NoDerivativeRule("the back function of zp.pullback(..., wrt=...) or of a function "
                               "given keyword arguments, differentiated to a third order, is "
                               "not supported yet", loc)
    targs = fd._padded(targs, 6)
    _, inner_back = _apply_pullback_back_forward(
        (f, tuple(xs), dy), {}, (targs[2], targs[3], targs[5]), {}, loc)

    def back_tangent(r_bar, r_bar_dot):
        f_out, xs_out, dy_out = inner_back(r_bar, r_bar_dot)
        return None, None, f_out, xs_out, None, dy_out

    return value_dot, back_tangent


def _jacobian_back_forward(args, kwargs, targs, tkwargs, loc):
    """zp.jacobian in gradient code differentiated forward: the tangent of its rule's back,
    sum_k d/de J(xs + e d_k)^T e_k over the output elements k (d_k the cotangents' slices
    there), one third-order pass (_third) per element of f's output."""
    _, value_dot = _jacobian_forward(args, kwargs, targs, tkwargs, loc)
    f, xs = args[0], tuple(args[1:])
    n = len(xs)
    f_dot, xs_dot = targs[0], _n_tuple(targs[1:], n)
    inner = _jacobian_inner(f, xs, {k: v for k, v in kwargs.items() if k != "mode"})
    y = f(*xs)

    def back_tangent(bars, bars_dot):
        bars, bars_dot = _n_tuple(bars, n), _n_tuple(bars_dot, n)
        xs_out, cells_out = (None,) * n, None
        for index, e in _output_basis(y):
            direction = _slices(bars, index, xs)
            direction_dot = _slices(bars_dot, index, xs)
            if not any(map(fd.has_tangent, direction + direction_dot)) and \
                    not any(map(fd.has_tangent, xs_dot)) and not fd.has_tangent(f_dot):
                continue
            _, _, more, more_cells = _third(inner, direction, e, xs_dot, f_dot, direction_dot,
                                            None, y)
            xs_out = _add_all(zip(xs_out, more))
            cells_out = _add_cells(cells_out, more_cells)
        return (cells_out, *xs_out)

    return value_dot, back_tangent


def _slices(bars, index, xs):
    """The Jacobians' cotangents (or tangents) at output element index, one per argument."""
    return tuple(None if b is None else
                 (np.asarray(b)[index] if np.ndim(x) else float(np.asarray(b)[index]))
                 for b, x in zip(bars, xs))


fd.register_custom_forward(_call_back, _call_back_back_forward)
fd.register_custom_forward(_jacobian, _jacobian_back_forward)


# -- third derivatives through a call gradient code resolved while running -------------------
#
# calls/reverse_dispatched.py makes `y, back = dispatch.call(f, operands, ...)` in gradient
# code differentiable in reverse; forward mode over that, with the operands moving, needs a
# third derivative of f (the tangent of d/de J(x + e r_bar)^T g).  For a registered rule or a
# Python function called by position on floats and arrays, it is `_third` on a wrapper
# `lambda a0, ..: f(a0, ..)` whose callee the compiler resolves statically (the rule's body
# spliced, the function transformed).  A nested rule as the callee (zp.gradient called in
# gradient code that is differentiated three more times) would be a fourth derivative.


def _make_call_wrapper(f, n: int, params: tuple, constants: tuple, keywords: tuple):
    """The function of the operands at positions params (of n) that calls f with them and
    constants[i] at every other position i, as source the frontend reads (registered in
    linecache, like vjp_pairing).  f and the constants are the globals `callee` and
    `constants` of its own namespace: a global that holds code is resolved when the wrapper
    is compiled, so a registered rule's body is spliced and a Python function transformed."""
    names = ", ".join(f"a{i}" for i in params)
    passed = ", ".join((f"{keywords[i]}=" if keywords[i] is not None else "") +
                       (f"a{i}" if i in params else _constant_text(constants[i], i))
                       for i in range(n))
    # one name (and linecache file) per distinct source: the frontend reads it from there
    name = f"dispatched_call_{n}_{abs(hash((names, passed)))}"
    source = (f"def {name}({names}):\n"
              f"    return callee({passed}{',' if n == 1 else ''})\n")
    filename = f"<zygote_py-{name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"callee": f, "constants": constants}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102  (source built above)
    return namespace[name]


def _constant_text(value, i: int) -> str:
    """A constant operand as the wrapper's source writes it: a literal where it is a plain
    number, string or None (so that `a0 ** 2` is the spliced rule, not a call the compiler
    cannot type), else a read of the constants tuple."""
    if _is_literal(value):
        return repr(value)
    return f"constants[{i}]"


def _is_literal(value) -> bool:
    """A plain number, string or None, or a tuple or list of them (axes=[(1,), (0,)])."""
    if value is None or type(value) in (bool, int, float, str):
        return True
    return type(value) in (tuple, list) and all(map(_is_literal, value))


def _resolves_while_running(fn) -> bool:
    """Whether the compiled program fn still calls run-time dispatch (`_zp_call`): then a
    third derivative through it would come back here for the same call."""
    codes = [fn.__code__]
    while codes:
        code = codes.pop()
        names = (*code.co_names, *code.co_freevars)  # generated code binds its helpers as cells
        if "_zp_call" in names or "_zp_call_method" in names:
            return True
        codes.extend(c for c in code.co_consts if hasattr(c, "co_names"))
    return False


@functools.lru_cache(maxsize=256)
def _cached_wrapper(f, n: int, params: tuple, constants: tuple, keywords: tuple, exact: tuple):
    # exact (_exact_key of constants) only keys the cache: constants that are equal but
    # not the same (1, 1.0 and True; 0.0 and -0.0) each get their own wrapper
    return _make_call_wrapper(f, n, params, constants, keywords)


def _exact_key(value):
    """What tells value apart from every other constant equal to it: a literal's type and
    text (x[True] is not x[1]), recursively; any other object's identity (the cache holds
    the object, so the identity is not reused while the entry lives)."""
    if type(value) in (tuple, list):
        return (type(value), tuple(map(_exact_key, value)))
    if _is_literal(value):
        return (type(value), repr(value))
    return ("object", id(value))


def _call_wrapper(f, operands: tuple, params: tuple, keywords: tuple):
    """The wrapper of f for these operands (keywords[i]: the keyword operand i is passed by,
    None for a positional one), the same function object for the same callee and constants
    where they are hashable (its compiled program is cached per function object): a cache
    that never changes a result."""
    constants = tuple(None if i in params else o for i, o in enumerate(operands))
    try:
        return _cached_wrapper(f, len(operands), params, constants, keywords,
                               _exact_key(constants))
    except TypeError:  # an unhashable constant or callee
        return _make_call_wrapper(f, len(operands), params, constants, keywords)


def _pairable(x) -> bool:
    """A float, a float array, or a non-empty tuple or list of them (what vjp_pairing pairs)."""
    if isinstance(x, (float, np.floating)) or isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return True
    return type(x) in (tuple, list) and bool(x) and all(map(_pairable, x))


# the wrapper programs whose third derivative _dispatched_third is computing, in this context
_THIRD_THROUGH: contextvars.ContextVar[frozenset] = contextvars.ContextVar(
    "zygote_py_third_through", default=frozenset())


def _dispatched_third(helper, hargs, g, r_bar, hargs_dot, g_dot, r_bar_dot, loc):
    """reverse_dispatched's third-order provider: the tangent of apply_dispatched's rule's back
    (None, (.., d/de J(x + e r_bar)^T g, ..), J r_bar) along the operands' tangents, g_dot and
    r_bar_dot, by _third on the call's wrapper."""
    from .calls import dispatch

    def refuse(why):
        return NoDerivativeRule(
            f"a third derivative through a call gradient code resolved while running, {why}, "
            "is not supported yet", loc,
            "make the innermost call a plain function of arrays called by position, or stop "
            "at second derivatives there")

    if helper is not dispatch.call:
        raise refuse("a method call")
    f, operands, spec, _ = hargs
    operands = tuple(operands)
    spec = tuple(spec)
    if any(how in ("*", "**") for how in spec):
        raise refuse("with *args or **kwargs")
    if fd.handler_for(f) is not None or fd.custom_forward_for(f) is not None:
        raise refuse(f"of {getattr(f, '__name__', f)} (a derivative nested four deep)")
    from .rules.registry import custom_rule
    if custom_rule(f) is not None:
        raise refuse("of a function with a custom rule (@zp.adjoint)")
    if carries_derivative(f):
        raise refuse("of a function whose captured values carry a derivative")
    n = len(operands)
    callee_dot, operands_dot = hargs_dot[0], _n_tuple(hargs_dot[1], n)
    r_bar, r_bar_dot = _n_tuple(r_bar, 1 + n), _n_tuple(r_bar_dot, 1 + n)
    if fd.has_tangent(callee_dot) or fd.has_tangent(r_bar[0]) or fd.has_tangent(r_bar_dot[0]):
        raise refuse("of a callee that carries a derivative")
    params = tuple(i for i, o in enumerate(operands) if _pairable(o))
    for i in range(n):
        if i not in params and any(map(fd.has_tangent, (operands_dot[i], r_bar[1 + i],
                                                        r_bar_dot[1 + i]))):
            raise refuse("with a derivative on an operand other than floats and float arrays")
    inner = Inner(_call_wrapper(f, operands, params, spec), tuple(operands[i] for i in params),
                  {}, "gradient")
    key = id(inner.entry.fn)
    active = _THIRD_THROUGH.get()
    if key in active and _resolves_while_running(inner.entry.fn):
        # the wrapper's program resolves the same call while running again, and that call
        # asks for this third derivative once more: it would never end
        raise refuse(f"of {getattr(f, '__name__', f)!r}, whose meaning is decided while running "
                     "even with its operands known")
    y = f(*operands)
    token = _THIRD_THROUGH.set(active | {key})
    try:
        s_bar_dot, _, params_dot, _ = _third(
            inner, tuple(r_bar[1 + i] for i in params), g, tuple(operands_dot[i] for i in params),
            None, tuple(r_bar_dot[1 + i] for i in params), g_dot, y)
    finally:
        _THIRD_THROUGH.reset(token)
    args_dot = [None] * n
    for i, t in zip(params, params_dot):
        args_dot[i] = t
    return None, (None, tuple(args_dot), None, None), s_bar_dot


reverse_dispatched.register_third(_dispatched_third)
