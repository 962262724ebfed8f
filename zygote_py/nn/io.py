"""Saving a model's arrays to an .npz file and loading them back into the same architecture.

Arrays are stored under their attribute paths (`layers.0.weight`, see
tree.py).  `load` copies the stored values into the model's existing arrays in
place, so a `zp.params` set or an optimiser's state that refers to them stays
valid; it checks that the names and shapes match exactly.
"""

from __future__ import annotations

import numpy as np

from .tree import named_arrays

__all__ = ["load", "load_state_dict", "save", "state_dict"]


def state_dict(model):
    """{path: copy of the array} for every float array of model."""
    return {path: arr.copy() for path, arr in named_arrays(model).items()}


def load_state_dict(model, state):
    """Copies state[path] into each array of model, in place; names and shapes must match."""
    mine = named_arrays(model)
    missing = [k for k in mine if k not in state]
    unexpected = [k for k in state if k not in mine]
    if missing or unexpected:
        raise ValueError(f"the saved arrays do not fit this model: missing {missing}, "
                         f"unexpected {unexpected}")
    for path, arr in mine.items():
        value = np.asarray(state[path])
        if value.shape != arr.shape:
            raise ValueError(f"{path}: saved shape {value.shape} != model shape {arr.shape}")
        arr[...] = value
    return model


def save(model, path):
    """Writes model's arrays to path (an .npz file, by np.savez)."""
    np.savez(path, **named_arrays(model))


def load(model, path):
    """Loads arrays saved by `save` into model (same architecture), in place; returns model."""
    with np.load(path) as stored:
        return load_state_dict(model, {k: stored[k] for k in stored.files})
