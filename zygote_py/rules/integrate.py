"""scipy.integrate.odeint and solve_ivp through an adjoint-sensitivity rule (when SciPy
imports).

y' = f(y, t, *args), y(t_0) = y0, observed at t_0 < t_1 < ... < t_N.  For a loss L of
the observations, the adjoint a(t) = dL/dy(t) solves a' = -a^T df/dy backwards from t_N,
jumping by g_i at each t_i; then
    y0_bar   = a(t_0),
    args_bar = integral of a^T df/dargs over [t_0, t_N],
    t_bar_i  = g_i . f(y_i, t_i) for i >= 1, and t_bar_0 = -a(t_0+) . f(y0, t_0).
The backward pass integrates y, a and the args' running integral together with odeint
(as autograd's and JAX's odeint do), taking a^T df/dy and a^T df/dargs from f's own
reverse-mode pullback, built for f by run-time dispatch.  The result is the derivative of
the exact solution; the forward solution should be computed to a tolerance finer than the
derivative is needed (rtol=, atol=).

solve_ivp(fun, t_span, y0, t_eval=..., args=...) is the same problem started at t_span[0]
and observed at t_eval (which must be given: adaptive output times are not a function of
the inputs one can differentiate); the cotangent reaches it through the result's `.y`.
Its other outputs (`sol` of dense_output, events) are refused.

f must receive everything it differentiates through `args`: a callable that depends on
the inputs otherwise (a closure over an active value) is refused by the transform, and a
call inside a `zp.params` gradient is refused here (f's globals would not be followed).
"""

from __future__ import annotations

import types

import numpy as np

from zygote_py import context
from zygote_py.errors import NoDerivativeRule, ZygoteError
from zygote_py.kinds import scalar_kinds

from zygote_py.rules.scipy_support import Library

# SciPy is optional: this module is imported once the user's code has imported scipy.integrate
# (rules/__init__.py: registry.optional_rules); without SciPy its rules are listed absent
_LIBRARY = Library("scipy.integrate")
_integrate = _LIBRARY.module

_BACKWARD_TOLERANCE = 1e-10


def _pullback_of(func, tfirst):
    """(f(y, t), vjp(y, t, a) -> (f, a^T df/dy, [a^T df/darg for each arg])), from f's
    compiled pullback (the compiler of the running gradient call, as run-time dispatch
    gets it).  f's closure cells are constants here: a closure over an active value is
    refused by the transform (`underived=`)."""
    if not isinstance(func, types.FunctionType) or not _plain_positional(func):
        raise NoDerivativeRule(
            f"the ODE rules differentiate a Python function (def or lambda) taking its "
            f"arguments by position, not {func!r}", None,
            "wrap the derivative function in a def taking (y, t, *args)")
    compiler = context.current().compiler
    if compiler is None:
        raise ZygoteError("an ODE rule ran outside a gradient call, so it has no compiler",
                          hint="call it through zp.gradient / zp.pullback, or inside "
                               "zygote_py.context.using(compiler=...)")

    def evaluate(y, t, args, a):
        operands = (t, y, *args) if tfirst else (y, t, *args)
        if func.__code__.co_argcount != len(operands):
            raise NoDerivativeRule(f"{func.__name__} takes {func.__code__.co_argcount} arguments, "
                                   f"and the ODE passes {len(operands)}", None,
                                   "give it exactly (y, t, *args)")
        active = tuple(_carries(v) for v in operands)
        pullback = compiler.entry(func, active, "pullback", (), scalar_kinds(operands)).fn
        out, back = pullback(*operands)
        bars = back(a) if a is not None else (None,) * len(operands)
        ybar = bars[1] if tfirst else bars[0]
        return np.asarray(out, dtype=np.float64), ybar, list(bars[2:2 + len(args)])

    return evaluate


def _plain_positional(func):
    code = func.__code__
    return not code.co_kwonlyargcount and not code.co_flags & 0x0C


def _carries(value):
    """Floats and float arrays carry a derivative (the state, the parameters)."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "fc"
    return isinstance(value, (float, np.floating))


def _as_vector(x, size):
    return np.zeros(size) if x is None else np.ravel(np.asarray(x, dtype=np.float64))


def _odeint_cotangents(g, ys, func, y0, t, args, tfirst, rtol, atol):
    if context.current().collector is not None:
        raise NoDerivativeRule(
            "scipy.integrate.odeint's rule does not follow zp.params through the derivative "
            "function", None, "pass the parameters through odeint's args= and take an explicit "
            "gradient (zp.gradient(loss, params...))")
    evaluate = _pullback_of(func, tfirst)
    args = tuple(args) if isinstance(args, (tuple, list)) else (args,)
    arrays = [np.asarray(a, dtype=np.float64) for a in args]
    sizes = [a.size for a in arrays]
    n = np.size(y0)
    times = np.asarray(t, dtype=np.float64)
    g = np.real(np.reshape(np.asarray(g), (times.size, n)))
    ys = np.reshape(np.asarray(ys, dtype=np.float64), (times.size, n))
    tol = _BACKWARD_TOLERANCE if rtol is None else min(_BACKWARD_TOLERANCE, float(np.min(rtol)))
    atol_back = _BACKWARD_TOLERANCE if atol is None else min(_BACKWARD_TOLERANCE, float(np.min(atol)))

    def augmented(state, time):
        y = state[:n]
        a = state[n:2 * n]
        f, ybar, argbars = evaluate(y, time, args, -a)
        pieces = [np.ravel(f), _as_vector(ybar, n)]
        pieces += [_as_vector(bar, size) for bar, size in zip(argbars, sizes)]
        return np.concatenate(pieces)

    a = g[-1].copy()
    integral = np.zeros(sum(sizes))
    t_bar = np.zeros(times.size)
    t_bar[-1] = float(g[-1] @ np.ravel(evaluate(ys[-1], times[-1], args, None)[0]))
    for i in range(times.size - 1, 0, -1):
        state = np.concatenate([ys[i], a, integral])
        path = _integrate.odeint(augmented, state, [times[i], times[i - 1]], rtol=tol,
                                 atol=atol_back, tfirst=False)
        a = path[-1, n:2 * n]
        integral = path[-1, 2 * n:]
        if i - 1 > 0:
            t_bar[i - 1] = float(g[i - 1] @ np.ravel(evaluate(ys[i - 1], times[i - 1], args, None)[0]))
        else:
            t_bar[0] = -float(a @ np.ravel(evaluate(ys[0], times[0], args, None)[0]))
        a = a + g[i - 1]
    if times.size == 1:
        a = g[0]
    y0_bar = np.reshape(a, np.shape(y0))
    y0_bar = float(y0_bar) if isinstance(y0, float) else y0_bar
    offsets = np.cumsum([0] + sizes)
    args_bar = tuple(_like_arg(integral[lo:hi], arg) for lo, hi, arg in
                     zip(offsets[:-1], offsets[1:], args))
    return y0_bar, _like_arg(t_bar, t), args_bar


def _solve_ivp_cotangents(g, result, fun, t_span, y0, t_eval, dense_output, events, args,
                          options):
    if t_eval is None or dense_output or events is not None:
        raise NoDerivativeRule(
            "scipy.integrate.solve_ivp's rule needs fixed output times (t_eval=) and no "
            "dense_output or events", None, "pass t_eval=, and read the solution from .y")
    gy = g.get("y") if isinstance(g, dict) else getattr(g, "y", None)
    other = [k for k in (g if isinstance(g, dict) else {}) if k not in ("y", "t") and
             g[k] is not None]
    if other:
        raise NoDerivativeRule(f"solve_ivp's rule differentiates only the result's .y, not "
                               f"{', '.join(map(str, other))}", None, "read the solution from .y")
    args = () if args is None else tuple(args)
    n = np.size(y0)
    times = np.asarray(t_eval, dtype=np.float64)
    ys = np.asarray(result.y, dtype=np.float64).T
    gys = np.zeros((times.size, n)) if gy is None else np.real(np.asarray(gy)).T
    start = float(t_span[0])
    if times.size == 0 or times[0] != start:  # observe y0 at the start too (with no cotangent)
        times = np.concatenate([[start], times])
        ys = np.concatenate([np.reshape(np.asarray(y0, dtype=np.float64), (1, n)), ys])
        gys = np.concatenate([np.zeros((1, n)), gys])
    y0_bar, _, args_bar = _odeint_cotangents(gys, ys, fun, np.asarray(y0, dtype=np.float64),
                                             times, args, True, options.get("rtol"),
                                             options.get("atol"))
    y0_bar = _like_y0(y0_bar, y0)
    return y0_bar, (args_bar if args else None)


def _like_y0(bar, y0):
    if isinstance(y0, list):
        return [float(v) for v in np.ravel(bar)]
    return float(np.ravel(bar)[0]) if isinstance(y0, float) else np.reshape(bar, np.shape(y0))


def solve_ivp_jvp(dy0, dargs, result, fun, t_span, y0, method="RK45", t_eval=None,
                  dense_output=False, events=None, vectorized=False, args=None, **options):
    """odeint's forward sensitivities from t_span[0], read at t_eval: the tangent of .y."""
    args = () if args is None else tuple(args)
    times = np.concatenate([[float(t_span[0])], np.asarray(t_eval, dtype=np.float64)])
    n = np.size(y0)
    path = np.concatenate([np.reshape(np.asarray(y0, dtype=np.float64), (1, n)),
                           np.asarray(result.y, dtype=np.float64).T])
    tangent = odeint_jvp(dy0, None, dargs, path, fun, y0, times, args=args, tfirst=True)
    return {"y": np.reshape(tangent, (times.size, n))[1:].T}


def _like_arg(values, arg):
    if isinstance(arg, (float, int)) and not isinstance(arg, bool):
        return float(values[0])
    if isinstance(arg, list):
        return [float(v) for v in values]
    return np.reshape(values, np.shape(arg))


def _jacobians(evaluate, y, time, args, n):
    """f and its Jacobians in y and in each arg (rows from n pullbacks of one call)."""
    rows = [evaluate(y, time, args, np.eye(n)[k]) for k in range(n)]
    f = rows[0][0]
    jy = np.stack([_as_vector(r[1], n) for r in rows])
    jargs = [np.stack([_as_vector(r[2][j], np.size(a)) for r in rows]) for j, a in enumerate(args)]
    return f, jy, jargs


def odeint_jvp(dy0, dt, dargs, y, func, y0, t, args=(), Dfun=None, col_deriv=0, full_output=0,
               ml=None, mu=None, rtol=None, atol=None, tcrit=None, h0=0.0, hmax=0.0, hmin=0.0,
               ixpr=0, mxstep=0, mxhordr=12, mxords=5, printmessg=0, tfirst=False):
    """Forward sensitivities: s' = df/dy s + df/dargs dargs, s(t_0) = dy0 - f(y0, t_0) dt_0,
    and dy_i = s(t_i) + f(y_i, t_i) dt_i."""
    evaluate = _pullback_of(func, tfirst)
    args = tuple(args) if isinstance(args, (tuple, list)) else (args,)
    n = np.size(y0)
    times = np.asarray(t, dtype=np.float64)
    ys = np.reshape(np.asarray(y, dtype=np.float64), (times.size, n))
    dts = np.zeros(times.size) if dt is None else np.asarray(dt, dtype=np.float64)
    dargs = (None,) * len(args) if dargs is None else tuple(dargs)
    darg_vectors = [_as_vector(d, np.size(a)) for d, a in zip(dargs, args)]

    def sensitivities(state, time):
        f, jy, jargs = _jacobians(evaluate, state[:n], time, args, n)
        ds = jy @ state[n:] + sum((j @ d for j, d in zip(jargs, darg_vectors)), np.zeros(n))
        return np.concatenate([np.ravel(f), ds])

    s0 = _as_vector(dy0, n) - np.ravel(evaluate(ys[0], times[0], args, None)[0]) * dts[0]
    path = _integrate.odeint(sensitivities, np.concatenate([ys[0], s0]), times,
                             rtol=_BACKWARD_TOLERANCE, atol=_BACKWARD_TOLERANCE)
    out = path[:, n:]
    moved = np.stack([np.ravel(evaluate(ys[i], times[i], args, None)[0]) * dts[i]
                      for i in range(times.size)])
    return np.reshape(out + moved, np.shape(y))



@_LIBRARY.rule("odeint", diff=("y0", "t", "args"), underived=("func",),
     unsupported=("full_output",), calls_function=True, jvp=odeint_jvp)
def odeint(g, y, func, y0, t, args=(), Dfun=None, col_deriv=0, full_output=0, ml=None,
           mu=None, rtol=None, atol=None, tcrit=None, h0=0.0, hmax=0.0, hmin=0.0, ixpr=0,
           mxstep=0, mxhordr=12, mxords=5, printmessg=0, tfirst=False):
    """The adjoint method: y0, the times and the parameters passed in args."""
    return _odeint_cotangents(g, y, func, y0, t, args, tfirst, rtol, atol)


@_LIBRARY.rule("solve_ivp", diff=("y0", "args"), underived=("fun", "t_span", "t_eval"),
     calls_function=True, jvp=solve_ivp_jvp)
def solve_ivp(g, y, fun, t_span, y0, method="RK45", t_eval=None, dense_output=False,
              events=None, vectorized=False, args=None, **options):
    """The adjoint method for the result's .y at t_eval: y0 and the parameters in args."""
    return _solve_ivp_cotangents(g, y, fun, t_span, y0, t_eval, dense_output, events, args,
                                 options)
