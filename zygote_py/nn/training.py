"""The training loop (Flux's `train!`) and the early-stopping callback.

    history = train(loss, ps, data, opt, epochs=10, callbacks=[EarlyStopping(...)])

Two forms, like `Optimiser.update`:

  implicit  ps = zp.params(model); loss(*batch) reads the model itself
            (Flux's style); each step is zp.withgradient(lambda: loss(*batch), ps)
  structural ps is the model; loss(model, *batch); each step is
            zp.withgradient(loss, model, *batch) and the model's gradient is used

`data` is any re-iterable of batches (a DataLoader, a list); a batch that is a
tuple is spread into loss's arguments.  After each epoch every callback is
called as `callback(epoch, mean_loss)`; one returning True stops training.
Progress is a tqdm bar when tqdm is installed, otherwise one line per epoch
(verbose=False: silent).  Returns the list of mean training losses per epoch.
"""

from __future__ import annotations

import math
import sys
import time

from .. import api

__all__ = ["EarlyStopping", "train"]


def _params_type():
    try:
        from ..params import Params
    except ImportError:  # implicit parameters not available in this build
        return None
    return Params


def _progress(total, verbose):
    if not verbose:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="batch", dynamic_ncols=True, leave=True)


def train(loss, ps, data, opt, epochs=1, callbacks=(), verbose=True):
    """Trains for `epochs` passes over data; returns the mean loss of each epoch."""
    params_type = _params_type()
    implicit = params_type is not None and isinstance(ps, params_type)
    try:
        per_epoch = len(data)
    except TypeError:
        per_epoch = None
    bar = _progress(per_epoch * epochs if per_epoch is not None else None, verbose)
    history = []
    try:
        for epoch in range(1, epochs + 1):
            start, total, count = time.perf_counter(), 0.0, 0
            for batch in data:
                args = batch if isinstance(batch, tuple) else (batch,)
                if implicit:
                    value, grads = api.withgradient(lambda args=args: loss(*args), ps)
                else:
                    value, (grads, *_) = api.withgradient(loss, ps, *args)
                value = float(value)
                if not math.isfinite(value):  # stop before the update spoils the parameters
                    raise FloatingPointError(f"the loss became {value} in epoch {epoch}")
                opt.update(ps, grads)
                total, count = total + value, count + 1
                if bar is not None:
                    bar.update(1)
                    bar.set_postfix(epoch=epoch, loss=f"{total / count:.4g}", refresh=False)
            mean = total / max(count, 1)
            history.append(mean)
            if verbose and bar is None:
                print(f"epoch {epoch}/{epochs}  loss {mean:.5g}  ({time.perf_counter() - start:.2f} s)",
                      file=sys.stdout, flush=True)
            stop = False
            for cb in callbacks:  # every callback sees every epoch, even after one says stop
                stop = bool(cb(epoch, mean)) or stop
            if stop:
                break
    finally:
        if bar is not None:
            bar.close()
    return history


class EarlyStopping:
    """Stops training when a metric has not improved by min_delta for `patience` epochs.

    The metric is `monitor()` (for example a validation loss) when given, else the
    epoch's training loss; lower is better (mode='max' for accuracies).  `best` and
    `best_epoch` record the best value seen and when.
    """

    def __init__(self, patience=5, min_delta=0.0, monitor=None, mode="min"):
        if mode not in ("min", "max"):
            raise ValueError(f"mode must be 'min' or 'max', got {mode!r}")
        self.patience, self.min_delta, self.monitor, self.mode = patience, min_delta, monitor, mode
        self.best, self.best_epoch, self.wait = None, 0, 0

    def __call__(self, epoch, loss):
        value = float(self.monitor()) if self.monitor is not None else float(loss)
        signed = value if self.mode == "min" else -value
        if self.best is None or signed < (self.best if self.mode == "min" else -self.best) - self.min_delta:
            self.best, self.best_epoch, self.wait = value, epoch, 0
            return False
        self.wait += 1
        return self.wait >= self.patience
