"""Wall-clock measurement: first call, warm-up, then the median of repeats.

Fast calls are timed in batches (as ``timeit`` does) so that
``time.perf_counter`` resolution and per-sample overhead do not dominate and
the samples spread over the whole budget; each sample is the mean time of
one call within its batch, and the reported time is the median sample.  The number of samples adapts to the cost
of a call so every (system, workload) pair spends a bounded time: at least
``min_reps`` samples (3 even for multi-second calls, e.g. jax eager on the
scalar loop), at most ``max_reps``.

With ``hold``, each call's result stays referenced until the next call returns, as
``g = gradient(...)`` keeps the last step's gradient during the next step of a
training loop.  Without it each result is released at once; glibc then returns the
freed memory to the system at every call and takes page faults to get it back on
the next (docs/performance.md, "Paired ratios and held results").
"""

import math
import statistics
import time

MIN_BATCH_S = 0.01


def time_call(fn):
    """Run ``fn()`` once; return ``(seconds, result)``."""
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


def plan(per_call_s, budget_s, min_reps, max_reps):
    """Choose ``(batch, reps)`` from an estimate of one call's time.

    Calls are batched so that ``max_reps`` samples fill the budget: the
    samples then span the whole budget (about 2 s), so a burst of load from
    elsewhere on the machine spoils a few samples rather than all of them,
    and the median ignores those few."""
    per_call_s = max(per_call_s, 1e-9)
    batch = max(1, int(budget_s / (max_reps * per_call_s)))
    batch = max(batch, math.ceil(MIN_BATCH_S / per_call_s))
    reps = int(budget_s / (batch * per_call_s))
    return batch, max(min_reps, min(max_reps, reps))


def _timed_batch(fn, batch, hold, kept=None):
    """Per-call seconds of ``batch`` calls of ``fn``, and the last result where ``hold``
    (else None: each result released at once, inside the timed span, as a bare ``fn()``
    releases it)."""
    t0 = time.perf_counter()
    for _ in range(batch):
        kept = fn()
        if not hold:
            kept = None
    return (time.perf_counter() - t0) / batch, kept


def _warm_up(fn, warmup, hold):
    """``warmup`` calls of ``fn``: (the last call's seconds, its result where ``hold``)."""
    est = kept = None
    for _ in range(max(1, warmup)):
        est, kept = time_call(fn)
    return est, (kept if hold else None)


def _stats(samples, batch, reps, cpu0, wall0):
    """The summary of a timed loop that started at process time cpu0, wall time wall0."""
    # CPU time of all threads over wall time: ~1 single-threaded, up to the
    # core count when a library's thread pool is busy; well below 1 means the
    # process was waiting for the CPU (another job on the machine).
    cpu_ratio = (time.process_time() - cpu0) / max(time.perf_counter() - wall0, 1e-9)
    q1, _, q3 = statistics.quantiles(samples, n=4) if len(samples) > 1 else samples * 3
    return {
        "median_s": statistics.median(samples),
        "iqr_s": q3 - q1,
        "cpu_ratio": cpu_ratio,  # spread, to spot a noisy measurement in latest.json
        "min_s": min(samples),
        "samples": samples,
        "batch": batch,
        "reps": reps,
    }


def measure(fn, budget_s=2.0, min_reps=3, max_reps=21, warmup=1, hold=False):
    """Median per-call time of ``fn`` after ``warmup`` untimed-for-result calls
    (``hold``: each result kept until the next call returns; see the module's note).

    Returns a dict: ``median_s``, ``min_s``, ``samples`` (per-call seconds),
    ``batch`` (calls per sample), ``reps`` (number of samples)."""
    est, kept = _warm_up(fn, warmup, hold)
    batch, reps = plan(est, budget_s, min_reps, max_reps)
    samples = []
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for _ in range(reps):
        seconds, kept = _timed_batch(fn, batch, hold, kept)
        samples.append(seconds)
    return _stats(samples, batch, reps, cpu0, wall0)


def measure_paired(fn, primal, budget_s=2.0, min_reps=3, max_reps=21, warmup=1, hold=False):
    """``measure(fn)``, with the NumPy primal timed in the same process, batch for batch.

    Each sample times a batch of ``primal`` calls and then a batch of ``fn`` calls, so
    both see the machine in the same state: on this 2-core host the primal's own
    median moved by up to half between two runs minutes apart, and a ratio of two
    medians taken in different processes moved with it.  ``paired_ratio`` is the
    median of the samples' ratios (per-call gradient time over per-call primal time);
    the budget covers both.  Adds ``primal_median_s``, ``paired_ratio`` and
    ``paired_ratios`` to what ``measure`` returns."""
    est_primal, _ = _warm_up(primal, warmup, False)
    est, kept = _warm_up(fn, warmup, hold)
    batch = max(1, math.ceil(MIN_BATCH_S / max(est, 1e-9)))
    batch_primal = max(1, math.ceil(MIN_BATCH_S / max(est_primal, 1e-9)))
    per_rep = batch * est + batch_primal * est_primal
    reps = max(min_reps, min(max_reps, int(budget_s / max(per_rep, 1e-9))))
    samples, primal_samples = [], []
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for _ in range(reps):
        primal_samples.append(_timed_batch(primal, batch_primal, False)[0])
        seconds, kept = _timed_batch(fn, batch, hold, kept)
        samples.append(seconds)
    ratios = [g / p for g, p in zip(samples, primal_samples)]
    return {
        **_stats(samples, batch, reps, cpu0, wall0),
        "primal_median_s": statistics.median(primal_samples),
        "paired_ratio": statistics.median(ratios),
        "paired_ratios": ratios,
    }
