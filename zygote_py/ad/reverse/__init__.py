"""The reverse transform (re-exports; see transform.py for the steps and their modules)."""

from .adjoint import ADJOINT_HANDLERS, AdjointBuilder
from .transform import AdjointProgram, ReverseTransform

__all__ = ["ADJOINT_HANDLERS", "AdjointBuilder", "AdjointProgram", "ReverseTransform"]
