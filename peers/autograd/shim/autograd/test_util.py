"""autograd.test_util on zygote_py: check_grads compares zygote_py's pullback with finite differences.

The check is autograd's own: for random directions v (argument space) and u
(output space), the pullback's answer must satisfy <v, vjp(u)> ==
<u, (f(x + eps/2 v) - f(x - eps/2 v)) / eps> to 1e-6.  Complex values use
autograd's convention (the cotangent handed in and the one handed back are
covectors, i.e. conjugated); zygote_py's rules follow the same convention
(the pullback of z*z at z is 2z).

zygote_py has no forward mode and no second derivatives yet, so only the
first-order reverse check runs: forward-mode checks and orders above 1 are
recorded as skipped parts of the check (and a check that asks for forward
mode only is a skipped test).  Each check is recorded (see _record.py).
"""

from __future__ import annotations

from itertools import product

import zygote_py as zp

from . import _vspace as vs
from ._record import describe_exception, describe_value, is_complex, record_check
from .wrap_util import get_name, unary_to_nary

TOL = 1e-6
RTOL = 1e-6
EPS = 1e-6


class VJPCheckFailure(AssertionError):
    """The pullback disagrees with finite differences (or has the wrong structure)."""

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


def _skip(reason: str):
    import pytest  # only ever reached inside a pytest run

    pytest.skip(reason)


def check_equivalent(x, y) -> None:
    """Same structure and shapes, and equal along a random direction (as autograd's)."""
    assert vs.same_structure(x, y), f"structure mismatch:\nx: {describe_value(x)}\ny: {describe_value(y)}"
    v = vs.randn_like(x)
    assert scalar_close(vs.inner(x, v), vs.inner(y, v)), f"Value mismatch:\nx: {x}\ny: {y}"


@unary_to_nary
def check_grads(f, x, modes=("fwd", "rev"), order=2):
    """The first-order reverse-mode check; the rest of what autograd checks is recorded as skipped."""
    assert all(m in ("fwd", "rev") for m in modes)
    skipped = []
    if "fwd" in modes:
        skipped.append("fwd")
    if order > 1 and "rev" in modes:
        skipped.append(f"rev order {order}")
    entry = {"function": get_name(f), "arg": describe_value(x), "complex": is_complex(x),
             "skipped_parts": skipped}
    if "rev" not in modes:
        record_check({**entry, "outcome": "skipped"})
        _skip("forward mode: zygote_py has no jvp yet")
    try:
        check_vjp(f, x)
    except Exception as exc:
        outcome = "fail" if isinstance(exc, VJPCheckFailure) else "error"
        record_check({**entry, "outcome": outcome, "exception": describe_exception(exc)})
        raise
    record_check({**entry, "outcome": "pass"})


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
