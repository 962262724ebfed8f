"""zygote_py: source-transformation reverse-mode automatic differentiation for Python and NumPy.

Re-exports only; see api.py for the functions and errors.py for the errors.
"""

from .calls import dispatch as _dispatch  # noqa: F401  (imported now, not at the first gradient)
from . import rules as _rules  # noqa: F401  (registers the derivative rules)
from .api import (
    adjoint,
    differentiable,
    grad_source,
    gradient,
    jacobian,
    pullback,
    stop_gradient,
    withgradient,
)
from .forward_api import hessian, hvp, jacobian, jvp  # noqa: F811  (jacobian: forward or reverse)
from . import nested as _nested  # noqa: F401  (registers the nested rules of pullback, jvp, ...)
from .params import Grads, Params, leaf_gradients, params
from .hooks import checkpointed, hook, no_grad, retain, retained
from .tree import StructureError, register_structure
from .allocator import retain_freed_memory
from .errors import (
    MutationError,
    NoDerivativeRule,
    NonScalarOutput,
    SourceUnavailable,
    UnsupportedSyntax,
    ZygoteError,
)

__version__ = "0.1.0"

__all__ = [
    "MutationError",
    "NoDerivativeRule",
    "NonScalarOutput",
    "SourceUnavailable",
    "StructureError",
    "UnsupportedSyntax",
    "Grads",
    "Params",
    "ZygoteError",
    "adjoint",
    "checkpointed",
    "differentiable",
    "grad_source",
    "gradient",
    "hook",
    "hessian",
    "hvp",
    "jacobian",
    "jvp",
    "leaf_gradients",
    "no_grad",
    "params",
    "pullback",
    "register_structure",
    "retain",
    "retain_freed_memory",
    "retained",
    "stop_gradient",
    "withgradient",
]

from .rules.registry import nondifferentiable as _nondiff

_nondiff(stop_gradient)
