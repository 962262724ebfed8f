"""autograd's differential operators, each mapped onto the zygote_py call that computes it.

`grad`, `value_and_grad`, `elementwise_grad`, `jacobian`, `holomorphic_grad`,
`grad_and_aux`, `make_vjp`, `tensor_jacobian_product`, `multigrad_dict`,
`grad_named` and `checkpoint` map to zp.gradient, zp.withgradient,
zp.pullback and zp.jacobian; `make_jvp` and `deriv` to zp.jvp, `hessian` and
`make_hvp` to zp.hessian and zp.hvp.  `hessian_tensor_product`, `make_ggnvp`
and `make_jvp_reversemode` are autograd's own compositions (a gradient of a
gradient, a pullback of a pullback) on those.

Nesting: an operator called inside a function zygote_py differentiates
(`grad(grad(f))`, `lambda x: x * grad(g)(x)`) runs transformed, so these bodies
and wrap_util's binding are written in the Python zygote_py differentiates:
the zygote_py call is reached directly (it has nested rules of its own, see
zygote_py/nested.py) and nothing else carries a derivative (the zeros for an
unused argument depend on shapes only, through zp.stop_gradient).
"""

from __future__ import annotations

import inspect
from collections import OrderedDict

import numpy as np

import zygote_py as zp

from . import _vspace as vs
from .wrap_util import bind_argument, unary_to_nary


def _ones_like(y):
    # [()] makes a 0-d array a scalar and leaves other arrays alone; a seed carries no derivative
    return np.ones_like(zp.stop_gradient(y))[()]


def _first(cotangents, x):
    """The one argument's cotangent, zeros for zygote_py's None (autograd returns zeros)."""
    return vs.dense(cotangents[0], x)


@unary_to_nary
def grad(fun, x):
    return _first(zp.gradient(fun, x), x)


@unary_to_nary
def value_and_grad(fun, x):
    y, grads = zp.withgradient(fun, x)
    return y, _first(grads, x)


@unary_to_nary
def elementwise_grad(fun, x):
    y, back = zp.pullback(fun, x)
    return _first(back(_ones_like(y)), x)


@unary_to_nary
def holomorphic_grad(fun, x):
    # zygote_py's complex rules hand back g * f'(z), so a seed of 1 gives f'(z), as autograd does.
    y, back = zp.pullback(fun, x)
    return _first(back(_ones_like(y)), x)


@unary_to_nary
def jacobian(fun, x):
    return zp.jacobian(fun, x)[0]


@unary_to_nary
def make_vjp(fun, x):
    y, back = zp.pullback(fun, x)

    def vjp(g):
        return _first(back(g), x)

    return vjp, y


@unary_to_nary
def grad_and_aux(fun, x):
    (loss, aux), back = zp.pullback(fun, x)
    return _first(back((_ones_like(loss), None)), x), aux


@unary_to_nary
def make_jvp(fun, x):
    """v -> (fun(x), the derivative of fun at x along v), by zp.jvp (forward mode)."""
    def jvp(v):
        return zp.jvp(fun, (x,), (v,))

    return jvp


@unary_to_nary
def deriv(fun, x):
    return zp.jvp(fun, (x,), (_ones_like(x),))[1]


@unary_to_nary
def hessian(fun, x):
    """autograd's jacobian(jacobian(fun)); for a scalar fun that is zp.hessian (forward over
    reverse), otherwise the Jacobian of the Jacobian, nested."""
    if np.ndim(zp.stop_gradient(fun(x))) == 0:
        return zp.hessian(fun, x)

    def inner_jacobian(z):
        return zp.jacobian(fun, z)[0]

    return zp.jacobian(inner_jacobian, x)[0]


@unary_to_nary
def make_hvp(fun, x):
    """(v -> H v, the gradient at x), as autograd's make_vjp(grad(fun), x); H v by zp.hvp."""
    def hvp(v):
        return zp.hvp(fun, x, v)

    return hvp, _first(zp.gradient(fun, x), x)


def hessian_tensor_product(fun, argnum=0):
    """autograd's composition: the gradient of <grad fun, tensor> (a gradient of a gradient)."""
    fun_grad = grad(fun, argnum)

    def vector_dot_grad(*args, **kwargs):
        args, vector = args[:-1], args[-1]
        return np.tensordot(fun_grad(*args, **kwargs), vector, np.ndim(vector))

    return grad(vector_dot_grad, argnum)


hessian_vector_product = hessian_tensor_product


@unary_to_nary
def make_jvp_reversemode(fun, x):
    """autograd's trick: the vjp of the vjp at zero cotangent is the jvp (a pullback of a
    function that calls a pullback: reverse over reverse)."""
    y = fun(x)

    def vjp(g):
        return _first(zp.pullback(fun, x)[1](g), x)

    zero = np.zeros_like(y, dtype=np.result_type(y, float))[()]
    _, back = zp.pullback(vjp, zero)

    def vjp_vjp(v):
        return back(v)[0]

    return vjp_vjp


def make_ggnvp(f, g=lambda x: 1.0 / 2 * np.sum(x**2, axis=-1), f_argnum=0):
    """Generalized Gauss-Newton products J^T H_g J v, as autograd composes them: the pullback
    of f, the Hessian-vector product of g (zp.hvp) and f's jvp (zp.jvp)."""
    @unary_to_nary
    def _make_ggnvp(f, x):
        f_x, f_back = zp.pullback(f, x)

        def ggnvp(v):
            jv = zp.jvp(f, (x,), (v,))[1]
            return _first(f_back(zp.hvp(g, f_x, jv)), x)

        return ggnvp

    return _make_ggnvp(f, f_argnum)


def _contracted_with(fun, tensor):
    """x -> tensordot(tensor, fun(x)) over tensor's dimensions (the leading ones of fun's output)."""
    def contracted(x):
        return np.tensordot(tensor, fun(x), axes=np.ndim(tensor))

    return contracted


def tensor_jacobian_product(fun, argnum=0):
    """(*args, tensor) -> the Jacobian of fun left-multiplied by tensor, as autograd defines it."""
    def product(*args, **kwargs):
        *args, tensor = args
        unary_f, x = bind_argument(fun, tuple(args), kwargs, argnum)
        return zp.jacobian(_contracted_with(unary_f, tensor), x)[0]

    return product


vector_jacobian_product = tensor_jacobian_product  # autograd's alias


def grad_named(fun, argname):
    return grad(fun, list(inspect.signature(fun).parameters).index(argname))


def multigrad_dict(fun):
    """Gradients with respect to every positional argument, keyed by parameter name."""
    signature = inspect.signature(fun)

    def gradfun(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        names = list(bound.arguments)
        values = tuple(bound.arguments.values())
        grads = zp.gradient(fun, *values)
        return OrderedDict((n, vs.zeros_where_none(g, v)) for n, g, v in zip(names, grads, values))

    return gradfun


def checkpoint(fun):
    # Recomputing in the backward pass changes memory, not values: fun's gradient is the same.
    return fun


