"""A model's arrays by path: what `save`/`load` name and optimisers pair with gradients.

A model is any nest of the structures zygote_py.tree knows (objects with their
instance attributes, slots included; lists, tuples, NamedTuples, dicts and
registered structures); its parameters are the float arrays in it, each once.
The walk itself is `zp.leaf_gradients` (params.py), which also pairs each
array with its entry of a structural gradient and adds up the gradients of
tied arrays.  Paths read
like Python: `layers[0].weight`.
"""

from __future__ import annotations

from ..params import leaf_gradients

__all__ = ["leaf_gradients", "named_arrays"]


def named_arrays(model) -> dict:
    """{path: array} for every float array of model, in order."""
    return {path: array for path, array, _ in leaf_gradients(model)}
