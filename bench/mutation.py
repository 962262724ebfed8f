"""The mutation benchmarks of issue 13: a fill loop (n = 10,000) and a 1-D heat equation
(1,000 steps on 1,000 points), gradient time and memory against the primal's.

    python bench/mutation.py                        # this checkout
    python bench/mutation.py --against /tmp/base    # interleaved with another checkout

Time: the median CPU time (`time.process_time`) of 15 warm calls, the primal's and the
gradient's calls alternating, so that a loaded machine slows both alike; the ratio is the
thing to compare.  Memory: peak traced allocation (tracemalloc) of one call, the
gradient's against the primal's.

`--against DIR` runs this script on DIR's zygote_py (a `git archive` of another commit)
and on this checkout's, alternating, `--rounds` times, each in a fresh process, and prints
the ratios of every round side by side.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import tracemalloc

import numpy as np


def fill(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sin(x[i]) * x[i]
    return (out * out).sum()


def heat(u0, c):
    u = u0.copy()
    for _ in range(1000):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return (u * u).sum()


def peak(f, *args):
    tracemalloc.start()
    f(*args)
    _, top = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return top


def alternating_cpu_times(primal, gradient, args, repeat=15):
    """Median CPU seconds of primal(*args) and gradient(*args), the calls alternating."""
    p, g = [], []
    for _ in range(repeat):
        for fn, times in ((primal, p), (gradient, g)):
            start = time.process_time()
            fn(*args)
            times.append(time.process_time() - start)
    return statistics.median(p), statistics.median(g)


# name -> (function, arguments); bench/cputime.py runs them by these names
CASES = {
    "fill": (fill, (np.random.default_rng(0).normal(size=10_000),)),
    "heat": (heat, (np.sin(np.linspace(0, 3, 1000)), 0.2)),
}
LABELS = {"fill": "fill loop, n = 10,000", "heat": "heat equation, 1,000 steps x 1,000 points"}


def measure() -> dict:
    import zygote_py as zp

    out = {}
    for name, (f, args) in CASES.items():
        def grad(*a, f=f):
            return zp.gradient(f, *a)

        grad(*args)  # compile
        p, g = alternating_cpu_times(f, grad, args)
        out[name] = {"primal_s": p, "gradient_s": g, "ratio": g / p,
                     "primal_peak": peak(f, *args), "gradient_peak": peak(grad, *args)}
    return out


def table(results: dict) -> str:
    lines = ["| workload | primal | gradient | ratio | primal peak memory | gradient peak memory |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, r in results.items():
        lines.append(f"| {LABELS[name]} | {r['primal_s'] * 1e3:.1f} ms | {r['gradient_s'] * 1e3:.1f} ms "
                     f"| {r['ratio']:.1f}x | {r['primal_peak'] / 1e6:.2f} MB "
                     f"| {r['gradient_peak'] / 1e6:.2f} MB |")
    return "\n".join(lines)


def _run_on(root: str) -> dict:
    """This script's measurements in a fresh process importing zygote_py from root."""
    env = dict(os.environ, PYTHONPATH=root)
    text = subprocess.run([sys.executable, os.path.abspath(__file__), "--json"], env=env,
                          check=True, capture_output=True, text=True, cwd=root).stdout
    return json.loads(text)


def interleaved(base: str, rounds: int) -> str:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    runs = {"before": [], "after": []}
    for _ in range(rounds):
        runs["before"].append(_run_on(base))
        runs["after"].append(_run_on(here))
    lines = ["| workload | before (ratio per round) | after (ratio per round) "
             "| before peak | after peak |", "|---|---|---|---:|---:|"]
    for name in CASES:
        cells = [", ".join(f"{r[name]['ratio']:.1f}x" for r in runs[k]) for k in ("before", "after")]
        medians = [statistics.median(r[name]["ratio"] for r in runs[k]) for k in ("before", "after")]
        peaks = [runs[k][0][name]["gradient_peak"] / 1e6 for k in ("before", "after")]
        lines.append(f"| {LABELS[name]} | {cells[0]} (median {medians[0]:.1f}x) | {cells[1]} "
                     f"(median {medians[1]:.1f}x) | {peaks[0]:.2f} MB | {peaks[1]:.2f} MB |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the measurements as JSON")
    parser.add_argument("--against", metavar="DIR", help="another checkout to interleave with")
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    if options.against:
        print(interleaved(options.against, options.rounds))
    elif options.json:
        print(json.dumps(measure()))
    else:
        print(table(measure()))


if __name__ == "__main__":
    main()
