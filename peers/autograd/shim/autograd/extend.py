"""autograd.extend: `primitive` and `defvjp` become a zygote_py custom rule (zp.adjoint).

`primitive(f)` returns f itself (zygote_py keys rules by the function object);
`defvjp(f, maker0, maker1, ...)` registers a rule whose pullback calls
`maker_i(ans, *args, **kwargs)(g)` for argument i, as autograd does.
Forward-mode definitions (`defjvp`) are accepted and unused: zygote_py has no
forward mode.
"""

from __future__ import annotations

import zygote_py as zp


def primitive(f):
    return f


notrace_primitive = primitive


def defvjp(fun, *vjpmakers, argnums=None):
    argnums = tuple(range(len(vjpmakers))) if argnums is None else tuple(argnums)
    makers = dict(zip(argnums, vjpmakers))

    @zp.adjoint(fun)
    def rule(*args, **kwargs):
        ans = fun(*args, **kwargs)

        def back(g):
            return tuple(makers[i](ans, *args, **kwargs)(g) if makers.get(i) is not None else None
                         for i in range(len(args)))

        return ans, back

    return rule


def defvjp_argnum(fun, vjpmaker):
    """One maker for every argument: vjpmaker(argnum, ans, args, kwargs) -> (g -> cotangent)."""
    @zp.adjoint(fun)
    def rule(*args, **kwargs):
        ans = fun(*args, **kwargs)
        return ans, lambda g: tuple(vjpmaker(i, ans, args, kwargs)(g) for i in range(len(args)))

    return rule


def defjvp(fun, *jvpmakers, **kwargs):
    """Accepted so that modules defining both directions import; zygote_py has no forward mode."""
