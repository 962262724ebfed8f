"""Forward mode: the transform of a primal Function into one computing values and tangents."""

from .transform import ForwardTransform

__all__ = ["ForwardTransform"]
