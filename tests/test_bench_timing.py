"""bench/timing.py's `hold`: whether the last result is still referenced while the next
call runs (a training loop's `g = gradient(...)` keeps it; page faults depend on it)."""

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
    timed = "".join(calls[3:])  # after the warm-up's p, f and the primal's estimate
    blocks = [b for b in timed.replace("pf", "p|f").replace("fp", "f|p").split("|") if b]
    assert stats["reps"] == 4 and len(blocks) == 8
    assert [b[0] for b in blocks] == ["p", "f"] * 4 and all(len(set(b)) == 1 for b in blocks)


def test_paired_ratio_is_the_median_of_the_samples_ratios():
    import time

    stats = _timing().measure_paired(lambda: time.sleep(0.004), lambda: time.sleep(0.002),
                                     budget_s=0.05, min_reps=5, max_reps=5)
    ratios = stats["paired_ratios"]
    assert len(ratios) == 5
    assert stats["paired_ratio"] == sorted(ratios)[2]
    assert 1.4 < stats["paired_ratio"] < 2.8  # 4 ms against 2 ms, with the sleeps' overshoot
    assert 0.0015 < stats["primal_median_s"] < 0.01
