"""Data utilities: DataLoader (mini-batches), onehot and onecold.

Batch first: the first axis of every array is the sample axis, so a batch is
`x[indices]`, and onehot gives a (batch, classes) matrix.
"""

from __future__ import annotations

import numpy as np

from .init import as_rng

__all__ = ["DataLoader", "onecold", "onehot"]


class DataLoader:
    """Iterates over mini-batches of `data`, an array or a tuple of arrays of equal length.

    Each batch has the form of `data`: an array, or a tuple of arrays sliced with
    the same indices.  With shuffle=True the order is redrawn from `rng` (a
    Generator or an int seed) at every pass; drop_last leaves out a final short batch.
    """

    def __init__(self, data, batch_size=1, shuffle=True, rng=None, drop_last=False):
        self.is_tuple = isinstance(data, (tuple, list))
        self.data = tuple(data) if self.is_tuple else (data,)
        lengths = {len(a) for a in self.data}
        if len(lengths) != 1:
            raise ValueError(f"all arrays must have the same number of samples, got {sorted(lengths)}")
        self.n = lengths.pop()
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.batch_size = int(batch_size)
        self.shuffle = shuffle
        self.rng = as_rng(rng)
        self.drop_last = drop_last

    def __len__(self):
        full, rest = divmod(self.n, self.batch_size)
        return full if self.drop_last or rest == 0 else full + 1

    def __iter__(self):
        order = self.rng.permutation(self.n) if self.shuffle else np.arange(self.n)
        for k in range(len(self)):
            idx = order[k * self.batch_size:(k + 1) * self.batch_size]
            batch = tuple(np.asarray(a)[idx] for a in self.data)
            yield batch if self.is_tuple else batch[0]

    def __repr__(self):
        return f"DataLoader({self.n} samples, batch_size={self.batch_size}, {len(self)} batches)"


def onehot(labels, classes, dtype=np.float64):
    """One row per label with a 1 in the label's column: shape labels.shape + (k,).

    `classes` is the number of classes k (labels are 0..k-1) or the sequence of
    class labels (labels are looked up in it).
    """
    labels = np.asarray(labels)
    if isinstance(classes, (int, np.integer)):
        index, k = labels.astype(np.intp), int(classes)
        if index.size and (index.min() < 0 or index.max() >= k):
            raise ValueError(f"labels must be in 0..{k - 1}")
    else:
        lookup = {c: i for i, c in enumerate(classes)}
        index = np.vectorize(lookup.__getitem__, otypes=[np.intp])(labels) if labels.size else \
            labels.astype(np.intp)
        k = len(lookup)
    out = np.zeros(labels.shape + (k,), dtype=dtype)
    np.put_along_axis(out, index[..., None], 1, axis=-1)
    return out


def onecold(y, classes=None):
    """The class of each row of scores/probabilities y: the argmax over the last axis
    (mapped through `classes`, a sequence of labels, when given)."""
    index = np.argmax(np.asarray(y), axis=-1)
    if classes is None:
        return index
    return np.asarray(classes)[index]

