"""A shim importable as `autograd` that maps HIPS autograd's API onto zygote_py.

Only for running autograd's own test suite against zygote_py (see
peers/autograd/runner.py).  `autograd.numpy` is plain NumPy and
`autograd.scipy` plain SciPy (zygote_py differentiates NumPy calls by
their rules, so the test functions are written against the real modules);
the differential operators are in differential_operators.py, check_grads in
test_util.py, `primitive`/`defvjp` (custom rules via zp.adjoint) in extend.py.
"""

from . import _aliases
from .builtins import dict, isinstance, list, tuple, type
from .differential_operators import (
    checkpoint,
    deriv,
    elementwise_grad,
    grad,
    grad_and_aux,
    grad_named,
    hessian,
    hessian_tensor_product,
    hessian_vector_product,
    holomorphic_grad,
    jacobian,
    make_ggnvp,
    make_hvp,
    make_jvp,
    make_vjp,
    multigrad_dict,
    tensor_jacobian_product,
    value_and_grad,
    vector_jacobian_product,
)
from .extend import primitive

__all__ = [
    "checkpoint", "deriv", "dict", "elementwise_grad", "grad", "grad_and_aux", "grad_named",
    "hessian", "hessian_tensor_product", "hessian_vector_product", "holomorphic_grad",
    "isinstance", "jacobian", "list", "make_ggnvp", "make_hvp", "make_jvp", "make_vjp",
    "multigrad_dict", "primitive", "tensor_jacobian_product", "tuple", "type", "value_and_grad",
    "vector_jacobian_product",
]

if __name__ == "autograd":  # imported as the real name (not as peers.autograd.shim.autograd in tests)
    _aliases.install()
