"""The mutation benchmarks of issue 13: a fill loop (n = 10,000) and a 1-D heat equation
(1,000 steps on 1,000 points), gradient time and memory against the primal's.

    python bench/mutation.py

Time: best of 5 warm runs.  Memory: peak traced allocation (tracemalloc) of one call,
the gradient's against the primal's.
"""

import time
import tracemalloc

import numpy as np

import zygote_py as zp


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


def best(f, *args, repeat=5):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def peak(f, *args):
    tracemalloc.start()
    f(*args)
    _, top = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return top


# name -> (function, arguments); bench/cputime.py runs them by these names
CASES = {
    "fill": (fill, (np.random.default_rng(0).normal(size=10_000),)),
    "heat": (heat, (np.sin(np.linspace(0, 3, 1000)), 0.2)),
}


def main():
    cases = [("fill loop, n = 10,000", *CASES["fill"]),
             ("heat equation, 1,000 steps x 1,000 points", *CASES["heat"])]
    print("| workload | primal | gradient | ratio | primal peak memory | gradient peak memory |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, f, args in cases:
        zp.gradient(f, *args)  # compile
        p, g = best(f, *args), best(lambda *a, f=f: zp.gradient(f, *a), *args)
        mp, mg = peak(f, *args), peak(lambda *a, f=f: zp.gradient(f, *a), *args)
        print(f"| {name} | {p * 1e3:.1f} ms | {g * 1e3:.1f} ms | {g / p:.1f}x "
              f"| {mp / 1e6:.2f} MB | {mg / 1e6:.2f} MB |")


if __name__ == "__main__":
    main()
