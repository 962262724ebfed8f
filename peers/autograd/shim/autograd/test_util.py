"""autograd.test_util on zygote_py: check_grads runs autograd's own checks, in both modes and to any order.

As in autograd, `check_grads(f, modes=("fwd", "rev"), order=2)` checks, against
central differences of f along random directions:

- fwd: the jvp (zp.jvp) -- check_jvp;
- rev: the vjp (zp.pullback): <v, vjp(u)> == <u, numeric jvp(v)> -- check_vjp;
- and, at order > 1, recursively, the same checks of the functions
  `(x, v) -> jvp(f, x)(v)` (for fwd) and `(x, g) -> vjp(f, x)(g)` (for rev), at
  order - 1.  Those functions call zp.jvp and zp.pullback *inside* the function
  being differentiated: that is nesting, computed by zygote_py (zygote_py/nested.py),
  never by this shim.

Parts are named by their path: "fwd" and "rev" at order 1; "fwd/fwd" is the
forward check of the jvp function (forward over forward), "fwd/rev" its reverse
check (reverse over forward), "rev/fwd" and "rev/rev" those of the vjp function.
Unlike autograd, every part runs even after one failed (so that each is
counted); the first failure is raised at the end.  Complex values use autograd's
convention (cotangents are covectors, i.e. conjugated), as zygote_py's rules do.

Each check is recorded (see _record.py): `outcome` is the first-order reverse
part (the report's first headline, comparable with earlier runs), `parts` the
outcome of every part.
"""

from __future__ import annotations

from itertools import product

import zygote_py as zp

from . import _vspace as vs
from ._record import describe_exception, describe_value, is_complex, record_check
from .wrap_util import bind_argument, get_name, unary_to_nary

# Set to a list by the peer run's pytest plugin (zp_peer_plugin.py): a check whose
# first-order reverse part passes but another part fails puts that failure here, and the
# plugin fails the test when it ends.  So each test runs every check it ran before parts
# other than the first-order reverse one were checked (the first headline stays
# comparable), and still fails.  None (outside that run): the failure is raised at once.
DEFERRED: list | None = None

TOL = 1e-6
RTOL = 1e-6
EPS = 1e-6


class VJPCheckFailure(AssertionError):
    """The pullback disagrees with finite differences (or has the wrong structure)."""

    zp_check_failure = True


class JVPCheckFailure(AssertionError):
    """The jvp disagrees with finite differences (or has the wrong structure)."""

    zp_check_failure = True


def scalar_close(a, b) -> bool:
    return abs(a - b) < TOL or abs(a - b) / abs(a + b) < RTOL


def make_numerical_jvp(f, x):
    """v -> the central-difference directional derivative of f at x along v."""
    def jvp(v):
        f_plus = f(vs.add(x, vs.scale(v, EPS / 2)))
        f_minus = f(vs.add(x, vs.scale(v, -EPS / 2)))
        return vs.scale(vs.add(f_plus, vs.scale(f_minus, -1.0)), 1.0 / EPS)

    return jvp


def check_vjp(f, x) -> None:
    """Raise VJPCheckFailure unless zygote_py's pullback of f at x matches finite differences."""
    y, back = zp.pullback(f, x)
    x_v, y_v = vs.randn_like(x), vs.randn_like(y)
    (raw,) = back(vs.covector(y_v))
    vjp_y = vs.covector(vs.zeros_where_none(raw, x))
    if not vs.same_structure(vjp_y, x):
        raise VJPCheckFailure(
            f"Derivative (VJP) check of {get_name(f)} failed: the cotangent's structure "
            f"{describe_value(vjp_y)} is not the argument's {describe_value(x)}")
    exact = vs.inner(x_v, vjp_y)
    numeric = vs.inner(y_v, make_numerical_jvp(f, x)(x_v))
    if not scalar_close(numeric, exact):
        raise VJPCheckFailure(
            f"Derivative (VJP) check of {get_name(f)} failed with arg {x}:\n"
            f"analytic: {exact}\nnumeric:  {numeric}")


def check_jvp(f, x) -> None:
    """Raise JVPCheckFailure unless zp.jvp of f at x matches finite differences."""
    x_v = vs.randn_like(x)
    _, exact = zp.jvp(f, (x,), (x_v,))
    numeric = make_numerical_jvp(f, x)(x_v)
    if not vs.same_structure(exact, numeric):
        raise JVPCheckFailure(
            f"Derivative (JVP) check of {get_name(f)} failed: the tangent's structure "
            f"{describe_value(exact)} is not the output's {describe_value(numeric)}")
    v = vs.randn_like(numeric)
    if not scalar_close(vs.inner(exact, v), vs.inner(numeric, v)):
        raise JVPCheckFailure(
            f"Derivative (JVP) check of {get_name(f)} failed with arg {x}:\n"
            f"analytic: {exact}\nnumeric:  {numeric}")


def _skip(reason: str):
    import pytest  # only ever reached inside a pytest run

    pytest.skip(reason)


def check_equivalent(x, y) -> None:
    """Same structure and shapes, and equal along a random direction (as autograd's)."""
    assert vs.same_structure(x, y), f"structure mismatch:\nx: {describe_value(x)}\ny: {describe_value(y)}"
    v = vs.randn_like(x)
    assert scalar_close(vs.inner(x, v), vs.inner(y, v)), f"Value mismatch:\nx: {x}\ny: {y}"


def jvp_function(f):
    """(x, v) -> the derivative of f at x along v, by zp.jvp called inside: differentiating
    this function is differentiating zp.jvp (forward or reverse over forward)."""
    def jvp_f(x, v):
        return zp.jvp(f, (x,), (v,))[1]

    jvp_f.__name__ = jvp_f.__qualname__ = f"jvp_{get_name(f)}"
    return jvp_f


def vjp_function(f):
    """(x, g) -> the pullback of f at x applied to g, by zp.pullback called inside:
    differentiating this is differentiating zp.pullback and its back function."""
    def vjp_f(x, g):
        return vs.dense(zp.pullback(f, x)[1](g)[0], x)

    vjp_f.__name__ = vjp_f.__qualname__ = f"vjp_{get_name(f)}"
    return vjp_f


def _run_parts(f, x, modes, order, path: tuple, parts: dict, errors: dict) -> None:
    """autograd's recursion, every part run and its outcome put in parts[name]."""
    checks = (("fwd", check_jvp, jvp_function), ("rev", check_vjp, vjp_function))
    for mode, check, lifted in checks:
        if mode not in modes:
            continue
        name = "/".join((*path, mode))
        try:
            check(f, x)
            parts[name] = "pass"
        except Exception as exc:  # noqa: BLE001  (recorded, re-raised by check_grads)
            parts[name] = "fail" if getattr(exc, "zp_check_failure", False) else "error"
            errors[name] = exc
        if order > 1:
            try:
                y = f(x)
                v = vs.randn_like(x) if mode == "fwd" else vs.randn_like(y)
                unary, xv = bind_argument(lifted(f), (x, v), {}, (0, 1))
            except Exception as exc:  # noqa: BLE001  (f itself failed: every deeper part fails)
                for deeper in _part_names(modes, order - 1):
                    parts[f"{name}/{deeper}"] = "error"
                    errors.setdefault(f"{name}/{deeper}", exc)
                continue
            _run_parts(unary, xv, modes, order - 1, (*path, mode), parts, errors)


def _part_names(modes, order) -> list:
    names = []
    for mode in ("fwd", "rev"):
        if mode in modes:
            names.append(mode)
            if order > 1:
                names += [f"{mode}/{deeper}" for deeper in _part_names(modes, order - 1)]
    return names


@unary_to_nary
def check_grads(f, x, modes=("fwd", "rev"), order=2):
    """autograd's check_grads (see the module docstring): every part runs, each is recorded."""
    assert all(m in ("fwd", "rev") for m in modes)
    parts, errors = {}, {}
    _run_parts(f, x, tuple(modes), order, (), parts, errors)
    entry = {"function": get_name(f), "arg": describe_value(x), "complex": is_complex(x),
             "skipped_parts": [], "modes": list(modes), "order": order, "parts": parts,
             "part_exceptions": {k: describe_exception(e) for k, e in errors.items()}}
    if "rev" in parts:
        entry["outcome"] = parts["rev"]
        if "rev" in errors:
            entry["exception"] = describe_exception(errors["rev"])
    else:
        entry["outcome"] = "skipped"  # no first-order reverse part (a forward-only check)
    record_check(entry)
    if errors:
        first = errors.get("rev") or next(iter(errors.values()))
        if "rev" in errors or DEFERRED is None:
            raise first
        DEFERRED.append(first)


def combo_check(fun, *args, **kwargs):
    """Check every combination of the given arguments and keyword arguments.

    Unlike autograd's, every combination runs even after one fails (so that each
    check is counted); the first failure is raised at the end.
    """
    def _combo_check(*arg_choices, **kwarg_choices):
        kwarg_key_vals = [[(k, v) for v in vals] for k, vals in kwarg_choices.items()]
        first_failure = None
        for combo_args in product(*arg_choices):
            for combo_kwargs in product(*kwarg_key_vals):
                try:
                    check_grads(fun, *args, **kwargs)(*combo_args, **dict(combo_kwargs))
                except Exception as exc:  # noqa: BLE001  (re-raised below, after the others ran)
                    first_failure = first_failure or exc
        if first_failure is not None:
            raise first_failure

    return _combo_check
