"""autograd's differential operators, each mapped onto the zygote_py call that computes it.

`grad`, `value_and_grad`, `elementwise_grad`, `jacobian`, `holomorphic_grad`,
`grad_and_aux`, `make_vjp`, `tensor_jacobian_product`, `multigrad_dict`,
`grad_named` and `checkpoint` have a zygote_py equivalent (gradient,
withgradient, pullback, jacobian).  Forward mode and second derivatives
(`make_jvp`, `deriv`, `hessian`, `make_hvp`, `hessian_tensor_product`,
`make_ggnvp`) do not exist in zygote_py yet: they skip the test that uses them.
"""

from __future__ import annotations

import inspect
from collections import OrderedDict

import numpy as np

import zygote_py as zp

from . import _vspace as vs
from .wrap_util import bind_argument, unary_to_nary


def _ones_like(y):
    return np.ones_like(y)[()]  # [()] makes a 0-d array a scalar and leaves other arrays alone


def _first(cotangents, x):
    """The one argument's cotangent, zeros for zygote_py's None (autograd returns zeros)."""
    return vs.zeros_where_none(cotangents[0], x)


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
    return (lambda g: _first(back(g), x)), y


@unary_to_nary
def grad_and_aux(fun, x):
    (loss, aux), back = zp.pullback(fun, x)
    return _first(back((_ones_like(loss), None)), x), aux


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


def _not_in_zygote_py(name: str, what: str):
    def unavailable(*args, **kwargs):
        import pytest  # only ever reached inside a pytest run

        pytest.skip(f"autograd.{name}: zygote_py has no {what} yet")

    unavailable.__name__ = name
    return unavailable


make_jvp = _not_in_zygote_py("make_jvp", "forward mode (jvp)")
deriv = _not_in_zygote_py("deriv", "forward mode (jvp)")
make_jvp_reversemode = _not_in_zygote_py("make_jvp_reversemode", "nested pullbacks")
hessian = _not_in_zygote_py("hessian", "second derivatives")
make_hvp = _not_in_zygote_py("make_hvp", "second derivatives")
hessian_tensor_product = _not_in_zygote_py("hessian_tensor_product", "second derivatives")
hessian_vector_product = hessian_tensor_product
make_ggnvp = _not_in_zygote_py("make_ggnvp", "second derivatives")
