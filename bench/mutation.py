"""The mutation benchmarks of issue 13: a fill loop (n = 10,000) and a 1-D heat equation
(1,000 steps on 1,000 points), gradient time and memory against the primal's.

    python bench/mutation.py                        # this checkout
    python bench/mutation.py --against /tmp/base    # interleaved with another checkout

Time: the median CPU time (`time.process_time`) of 15 warm calls, the primal's and the
gradient's calls alternating, so that a loaded machine slows both alike; the ratio is the
thing to compare.  Memory: peak traced allocation (tracemalloc) of one call, the
gradient's against the primal's.

`--against DIR` imports DIR's zygote_py (a `git archive` of another commit) under another
name next to this checkout's, and calls the primal and the two gradients in turn, in one
process (separate processes differ by more than the change measured: their heaps and
moments differ); it prints the median ratio over `--rounds` rounds and their range.
"""

import argparse
import json
import os
import statistics
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


def _import_renamed(root: str, name: str = "zygote_before"):
    """root's zygote_py package, copied to a temporary folder under another name (every
    `zygote_py` in its text renamed), imported next to this checkout's: both run in one
    process, on the same heap, at the same moments."""
    import importlib
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="zp_before_")
    target = os.path.join(folder, name)
    shutil.copytree(os.path.join(root, "zygote_py"), target,
                    ignore=shutil.ignore_patterns("__pycache__"))
    for dirpath, _, files in os.walk(target):
        for file in files:
            if file.endswith(".py"):
                path = os.path.join(dirpath, file)
                with open(path) as handle:
                    text = handle.read()
                with open(path, "w") as handle:
                    handle.write(text.replace("zygote_py", name))
    sys.path.insert(0, folder)
    return importlib.import_module(name)


def interleaved(base: str, rounds: int, repeat: int = 15) -> str:
    """The primal, base's gradient and this checkout's, called in turn `repeat` times a
    round; the median of each round's ratios, and their range over the rounds."""
    import zygote_py as after

    before = _import_renamed(base)
    lines = ["| workload | primal | before | after | before peak | after peak |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, (f, args) in CASES.items():
        ratios = {"before": [], "after": []}
        primal_times = []
        for zp in (before, after):
            zp.gradient(f, *args)  # compile
        for _ in range(rounds):
            times = {"primal": [], "before": [], "after": []}
            for _ in range(repeat):
                for key, call in (("primal", f), ("before", before.gradient),
                                  ("after", after.gradient)):
                    start = time.process_time()
                    call(*args) if key == "primal" else call(f, *args)
                    times[key].append(time.process_time() - start)
            p = statistics.median(times["primal"])
            primal_times.append(p)
            for key, values in ratios.items():
                values.append(statistics.median(times[key]) / p)
        cells = [f"{statistics.median(r):.1f}x ({min(r):.1f}-{max(r):.1f})"
                 for r in (ratios["before"], ratios["after"])]
        peaks = [peak(zp.gradient, f, *args) / 1e6 for zp in (before, after)]
        lines.append(f"| {LABELS[name]} | {statistics.median(primal_times) * 1e3:.1f} ms "
                     f"| {cells[0]} | {cells[1]} | {peaks[0]:.2f} MB | {peaks[1]:.2f} MB |")
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
