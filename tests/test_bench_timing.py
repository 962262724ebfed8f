"""bench/timing.py: `hold` (whether the last result is still referenced while the next
call runs, as a training loop's `g = gradient(...)` keeps it; page faults depend on it)
and `measure_paired` (the NumPy primal timed batch for batch beside the gradient)."""

import importlib.util
import os
import weakref

HERE = os.path.dirname(os.path.abspath(__file__))


def _timing():
    path = os.path.join(HERE, os.pardir, "bench", "timing.py")
    spec = importlib.util.spec_from_file_location("bench_timing", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Result:
    """A result that can be referenced weakly (and holds no cycle: freed at once)."""


def _alive_during_calls(hold):
    """For each call after the first, whether the previous call's result was alive."""
    previous = []
    seen = []

    def fn():
        if previous:
            seen.append(previous[-1]() is not None)
        result = _Result()
        previous.append(weakref.ref(result))
        return result

    _timing().measure(fn, budget_s=0.001, min_reps=3, max_reps=3, hold=hold)
    return seen


def test_hold_keeps_the_last_result_until_the_next_call_returns():
    seen = _alive_during_calls(hold=True)
    assert len(seen) >= 3 and all(seen)


def test_without_hold_each_result_is_released_at_once():
    seen = _alive_during_calls(hold=False)
    assert len(seen) >= 3 and not any(seen)


def test_paired_samples_time_a_primal_batch_before_each_gradient_batch():
    calls = []
    stats = _timing().measure_paired(lambda: calls.append("f"), lambda: calls.append("p"),
                                     budget_s=0.001, min_reps=4, max_reps=4, warmup=1)
    assert calls[:2] == ["p", "f"]  # the warm-up calls
    timed = "".join(calls[2:])
    blocks = [b for b in timed.replace("pf", "p|f").replace("fp", "f|p").split("|") if b]
    assert stats["reps"] == 4 and len(blocks) == 8
    assert [b[0] for b in blocks] == ["p", "f"] * 4 and all(len(set(b)) == 1 for b in blocks)


class _Clock:
    """A stand-in for the `time` module whose clocks move only when a call says so."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now

    process_time = perf_counter


def test_paired_ratio_is_the_median_of_the_samples_ratios():
    timing = _timing()
    clock = timing.time = _Clock()
    costs = iter([4.0, 4.0, 8.0, 4.0, 4.0, 4.0, 12.0])  # one gradient call per sample's batch

    def gradient():
        clock.now += next(costs, 4.0)

    def primal():
        clock.now += 2.0

    stats = timing.measure_paired(gradient, primal, budget_s=100.0, min_reps=5, max_reps=5)
    # the warm-up takes 4 and the five samples' gradients 4, 8, 4, 4, 4 (12 unused):
    # the samples' ratios 2, 4, 2, 2, 2 and their median 2 (their mean would be 2.4)
    assert stats["batch"] == 1 and stats["reps"] == 5
    assert stats["paired_ratios"] == [2.0, 4.0, 2.0, 2.0, 2.0]
    assert stats["paired_ratio"] == 2.0
    assert stats["primal_median_s"] == 2.0 and stats["median_s"] == 4.0
