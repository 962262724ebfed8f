"""Side-by-side CPU-time ratios of zygote_py gradients to the NumPy primal, for two trees.

`bench/run.py` measures wall time, which a shared machine distorts: under a load of
10-15 on 2 cores its medians varied several-fold between runs.  This script measures
the CPU time of the process instead (`time.process_time`, which counts the page faults
a gradient takes but not the time it waits for a core), the smallest of N samples, with
one thread and one CPU, each (tree, workload) in a fresh process, the trees interleaved
per workload.  Usage:

    git archive main | tar -x -C /tmp/base          # the tree to compare against
    python bench/cputime.py --tree /tmp/base --tree . --workloads mlp,nbody
    python bench/cputime.py --tree . --retain        # with zp.retain_freed_memory()
    python bench/cputime.py --tree . --hold          # each result kept until the next call

Workloads: those of bench/workloads.py, and `fill` and `heat` of bench/mutation.py.

Prints a markdown table: per workload and tree, primal and gradient CPU time and ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

_CHILD = r"""
import json, os, sys, time
tree, bench, name, n, retain, hold = sys.argv[1:7]
sys.path[:0] = [tree, bench]
import numpy as np
import zygote_py as zp
import workloads as W
if retain == "1" and hasattr(zp, "retain_freed_memory"):
    zp.retain_freed_memory()
elif retain == "1":  # an older tree: the same two mallopt calls
    import ctypes
    libc = ctypes.CDLL("libc.so.6")
    libc.mallopt(-3, 32 * 1024 * 1024)
    libc.mallopt(-1, 1 << 30)
if name in ("fill", "heat"):  # issue 13's write loops (bench/mutation.py)
    import mutation as M
    f, args = M.CASES[name]
else:
    data = W.make_data(name)
    args = W.call_args(name, data)
    f = W.FUNCTIONS[name]
zp.gradient(f, *args)
def best(fn, n):
    out = []
    for _ in range(n):
        t0 = time.process_time()
        kept = fn()  # with --hold, released only when the next call returns
        if hold != "1":
            kept = None  # released at once, inside the timed span
        out.append(time.process_time() - t0)
    return min(out)
for _ in range(2):
    f(*args); zp.gradient(f, *args)
primal = best(lambda: f(*args), int(n))
grad = best(lambda: zp.gradient(f, *args), int(n))
print(json.dumps({"primal": primal, "grad": grad}))
"""

DEFAULT = "mlp,rnn,elementwise,small_ops,scalar_loop_n,nbody,lstm,transformer,fill,heat"
# also: long_loop (W9, a million steps: pass --samples 3)


def _measure(tree: str, name: str, n: int, retain: bool, hold: bool = False) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = [sys.executable, "-c", _CHILD, os.path.abspath(tree), HERE, name, str(n),
           "1" if retain else "0", "1" if hold else "0"]
    if hasattr(os, "sched_setaffinity"):
        cpu = max(os.sched_getaffinity(0))
        cmd = ["taskset", "-c", str(cpu), *cmd] if _has_taskset() else cmd
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def _has_taskset() -> bool:
    return any(os.access(os.path.join(p, "taskset"), os.X_OK)
               for p in os.environ.get("PATH", "").split(os.pathsep))


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tree", action="append", help="a source tree holding zygote_py (repeat)")
    p.add_argument("--workloads", default=DEFAULT)
    p.add_argument("--samples", type=int, default=20, help="samples per cell (the smallest is kept)")
    p.add_argument("--retain", action="store_true", help="call zp.retain_freed_memory() first")
    p.add_argument("--hold", action="store_true",
                   help="keep each result until the next call returns (a training loop's way)")
    opts = p.parse_args(argv)
    trees = opts.tree or ["."]
    print("| workload | " + " | ".join(f"{t} primal | {t} gradient (ratio)" for t in trees) + " |")
    print("|---|" + "---:|---:|" * len(trees))
    for name in opts.workloads.split(","):
        cells = []
        for tree in trees:
            r = _measure(tree, name, opts.samples, opts.retain, opts.hold)
            cells.append(f"{_ms(r['primal'])} | {_ms(r['grad'])} ({r['grad'] / r['primal']:.2f}x)")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
