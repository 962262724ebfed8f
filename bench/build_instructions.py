"""Instructions a gradient's transform and compile execute, counted by valgrind: a measure
of build cost that does not move with the machine's load, for two trees side by side.

Build times on a shared 2-core machine varied by half between runs of the same tree (the
host's load, not the code), and page faults and the collector add their own noise.  This
script runs each (tree, workload, mode) in a fresh process under valgrind's callgrind
tool, which counts only the instructions executed inside `functools.reduce`, the C
function the child calls the build through (`--toggle-collect`): imports, data and the
interpreter's start are left out.  Two runs of the same tree give the same count to the
million.  Requires valgrind on PATH and an interpreter with its symbols (pyenv's do).

    git archive main | tar -x -C /tmp/base          # the tree to compare against
    python bench/build_instructions.py --tree /tmp/base --tree . --workloads mlp,nbody

Modes: `cold`, the first build in the process (the rules the function uses are lowered
too), and `warm`, a second build after Compiler.clear() (the rules are lowered already);
and, for the generated code rather than the compiler, `grad` and `primal`: three calls of
the gradient (or of the plain NumPy function) after two warm-up calls, with one BLAS thread.
An instruction is not a nanosecond (the gradient's interpreter work and memory traffic
cost more per instruction than the primal's NumPy loops), but the counts move only with
the code, so they show what a change to the generated code or the helpers does.
Prints a markdown table of millions of instructions per workload, mode and tree.

    python bench/build_instructions.py --tree /tmp/base --tree . --workloads nbody --modes grad,primal
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

_CHILD = r"""
import functools, sys
tree, bench, name, mode = sys.argv[1:5]
sys.path[:0] = [tree, bench]
import zygote_py as zp
import zygote_py.api as api
import workloads as W
data = W.make_data(name)
args = W.call_args(name, data)
f = W.FUNCTIONS[name]
if mode in ("grad", "primal"):  # the generated code, in steady state
    call = (lambda: zp.gradient(f, *args)) if mode == "grad" else (lambda: f(*args))
    call()
    call()
    functools.reduce(lambda _, __: call(), range(3), None)
    raise SystemExit
if mode == "warm":
    zp.grad_source(f, args=args)
    api._compiler().clear()
functools.reduce(lambda _, __: zp.grad_source(f, args=args), [0], None)
"""


def count(tree: str, name: str, mode: str) -> int:
    """Instructions executed by one build, or by three calls (callgrind's total inside
    functools.reduce)."""
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "callgrind.out")
        env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                   MKL_NUM_THREADS="1")
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--collect-atstart=no",
             "--toggle-collect=functools_reduce", f"--callgrind-out-file={out}",
             sys.executable, "-c", _CHILD, os.path.abspath(tree), HERE, name, mode],
            check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as file:
            for line in file:
                if line.startswith(("summary:", "totals:")):
                    return int(line.split()[1])
    raise RuntimeError("callgrind wrote no total")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", required=True, help="a checkout (repeat)")
    parser.add_argument("--workloads", default="mlp,nbody,lstm,transformer")
    parser.add_argument("--modes", default="cold,warm")
    args = parser.parse_args(argv)
    names = args.workloads.split(",")
    modes = args.modes.split(",")
    print("| workload | mode | " + " | ".join(args.tree) + " |")
    print("|---|---|" + "---:|" * len(args.tree))
    for name in names:
        for mode in modes:
            counts = [count(tree, name, mode) / 1e6 for tree in args.tree]
            print(f"| {name} | {mode} | " + " | ".join(f"{c:.0f}M" for c in counts) + " |",
                  flush=True)


if __name__ == "__main__":
    main()
