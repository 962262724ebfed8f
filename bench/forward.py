"""Forward mode and Hessians: zp.jvp against the NumPy primal, zp.hessian against the peers.

Usage (from the repository root)::

    python bench/forward.py                 # both tables (about 2 minutes)
    python bench/forward.py --jvp           # jvp of W1-W5 as a ratio to the primal
    python bench/forward.py --hessian --systems zygote_py,autograd

**jvp.** For each of the five workloads W1-W5 of ``workloads.py``: the plain
NumPy function and ``zp.jvp(f, args, tangents)`` (every argument moving along a
fixed random direction) are timed side by side in a fresh process per workload
(the primal before and after the jvp, each the median of repeats,
``timing.measure``), in ``--rounds`` rounds; each workload keeps its best
round's ratio jvp / primal.  The jvp is checked against the
hand-derived gradient (``workloads.reference_grad``): it must equal the sum of
``<grad_i, tangent_i>`` to 1e-7 relative.

**Hessians.** Two problems, each written once per system in its own idiom:

- ``mlp100``: the loss of a 6-10-3 tanh MLP (no output bias) on a batch of 32,
  mean squared error, as a function of its 100 parameters in one flat vector
  (unpacked by slicing and reshaping inside the function): a 100 x 100 Hessian;
- ``recurrence50``: a float x, 50 steps of W1's body
  ``x = sin(x) x + 0.5 cos(x) / (1 + x^2)``: the second derivative.

Systems: ``zygote_py`` (``zp.hessian``: forward over the compiled gradient),
``autograd`` (``autograd.hessian``), ``jax`` (``jax.hessian``, eager),
``jax_jit`` (``jax.jit(jax.hessian(f))``), ``torch`` (``torch.func.hessian``).
Each runs in a fresh process held to one thread and one CPU, so its **first
call** (every one-time cost: zygote_py's transforms, jit's tracing and XLA
compilation) is reported apart from the steady state.  Every Hessian is
checked against central differences of zygote_py's reverse-mode gradient
(relative error below 1e-5, else the cell shows "wrong").  A peer that is not
installed shows "not installed".
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [ROOT, HERE]

MARKER = "FORWARD_JSON "
JVP_WORKLOADS = ["scalar_loop", "mlp", "rnn", "elementwise", "small_ops"]
LABELS = {"scalar_loop": "W1", "mlp": "W2", "rnn": "W3", "elementwise": "W4", "small_ops": "W5"}
SYSTEMS = ["zygote_py", "autograd", "jax", "jax_jit", "torch"]
PACKAGES = {"zygote_py": "zygote_py", "autograd": "autograd", "jax": "jax", "jax_jit": "jax",
            "torch": "torch"}
PROBLEMS = ["mlp100", "recurrence50"]


# --------------------------------------------------------------------------
# jvp of W1-W5
# --------------------------------------------------------------------------


def jvp_table(opts) -> str:
    """One fresh process per workload and round (as run.py: no workload's memory or caches
    touch another's timing); each workload keeps its best round's ratio."""
    best: dict = {}
    for _ in range(opts.rounds):
        for name in opts.workloads:
            res = _spawn(["--jvp-worker", name, "--budget", str(opts.budget),
                          "--threads", str(opts.threads)], opts.timeout)
            if res.get("status") != "ok":
                best.setdefault(name, res)
            elif best.get(name, {}).get("status") != "ok" or res["ratio"] < best[name]["ratio"]:
                best[name] = res
    rows = ["| workload | numpy primal | zp.jvp | ratio |", "|---|---:|---:|---:|"]
    for name in opts.workloads:
        res = best[name]
        if res.get("status") == "ok":
            rows.append(f"| {LABELS[name]} `{name}` | {_fmt(res['primal_s'])} | "
                        f"{_fmt(res['jvp_s'])} | {res['ratio']:.2f}x |")
        else:
            rows.append(f"| {LABELS[name]} `{name}` | | {res.get('status')}: "
                        f"{res.get('error', '')} | |")
    return "\n".join(rows)


def jvp_worker(name, budget):
    """In a fresh process: check zp.jvp of one workload, then time it and the primal."""
    import numpy as np
    import timing
    import workloads

    import zygote_py as zp

    data = workloads.make_data(name)
    f, args = workloads.FUNCTIONS[name], data["args"]
    rng = np.random.default_rng(1)
    tangents = tuple(rng.standard_normal(np.shape(a)) if np.ndim(a) else 0.3 for a in args)
    _, dy = zp.jvp(f, args, tangents)
    ref = workloads.reference_grad(name, args)
    expected = sum(float(np.sum(g * t)) for g, t in zip(ref, tangents))
    err = abs(float(dy) - expected) / max(abs(expected), 1e-300)
    if not err < 1e-7:
        return {"status": "wrong", "error": f"relative error {err:.1e}"}
    primal = functools.partial(f, *args)
    forward = functools.partial(zp.jvp, f, args, tangents)
    p1 = timing.measure(primal, budget)["median_s"]
    j = timing.measure(forward, budget)["median_s"]
    p2 = timing.measure(primal, budget)["median_s"]  # the primal on both sides of the jvp
    p = min(p1, p2)
    return {"status": "ok", "primal_s": p, "jvp_s": j, "ratio": j / p, "rel_err": err}


def _spawn(args, timeout):
    """Run this file with args in a fresh process; its report (the MARKER line) as a dict."""
    cmd = [sys.executable, os.path.abspath(__file__), *args]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False,
                             env=dict(os.environ, JAX_PLATFORMS="cpu"), timeout=timeout)
        line = [ln for ln in out.stdout.splitlines() if ln.startswith(MARKER)][-1]
        return json.loads(line[len(MARKER):])
    except (subprocess.TimeoutExpired, IndexError) as exc:
        return {"status": "fails", "error": type(exc).__name__}


# --------------------------------------------------------------------------
# Hessians: the problems, per system
# --------------------------------------------------------------------------


def problem_data(problem):
    """(x, constants) as NumPy values, from a fixed seed (workloads.make_hessian_data)."""
    import workloads

    return workloads.make_hessian_data(problem)


def numpy_problem(problem, consts):
    """The plain NumPy function (it reads its constants as module globals, as W2 does)."""
    import workloads

    return workloads.HESSIAN_FUNCTIONS[problem]


def make_hessian(system, problem):
    """A function computing the Hessian (returned as NumPy) once per call."""
    import numpy as np

    x, consts = problem_data(problem)
    if system == "zygote_py":
        import zygote_py as zp

        f = numpy_problem(problem, consts)
        return lambda: zp.hessian(f, x)
    if system == "autograd":
        import autograd
        import autograd.numpy as anp

        f = _restated(anp, problem, consts)
        return lambda: autograd.hessian(f)(x)
    if system in ("jax", "jax_jit"):
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        import jax

        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp

        f = _restated(jnp, problem, {k: jnp.asarray(v) for k, v in consts.items()})
        h = jax.hessian(f)
        if system == "jax_jit":
            h = jax.jit(h)
        xj = jnp.asarray(x)
        return lambda: np.asarray(h(xj).block_until_ready())
    if system == "torch":
        import torch
        from torch.func import hessian

        if os.environ.get("BENCH_THREADS"):
            torch.set_num_threads(int(os.environ["BENCH_THREADS"]))
        f = _restated(_TorchNumpy(torch), problem,
                      {k: torch.tensor(v, dtype=torch.float64) for k, v in consts.items()})
        xt = torch.tensor(x, dtype=torch.float64)
        h = hessian(f)
        return lambda: h(xt).numpy()
    raise ValueError(system)


class _TorchNumpy:
    """The few NumPy names the problems use, as torch functions."""

    def __init__(self, torch):
        self.sin, self.cos, self.tanh, self.mean = torch.sin, torch.cos, torch.tanh, torch.mean
        self.reshape = torch.reshape


def _restated(xp, problem, consts):
    """The problem written with the array module xp (autograd.numpy, jax.numpy, torch)."""
    if problem == "mlp100":
        X, Y = consts["X"], consts["Y"]

        def mlp100(theta):
            W1 = xp.reshape(theta[:60], (6, 10))
            b1 = theta[60:70]
            W2 = xp.reshape(theta[70:100], (10, 3))
            out = xp.tanh(X @ W1 + b1) @ W2
            return xp.mean((out - Y) ** 2)

        return mlp100

    def recurrence50(x):
        for _ in range(50):
            x = xp.sin(x) * x + 0.5 * xp.cos(x) / (1 + x * x)
        return x

    return recurrence50


def reference_hessian(problem):
    """Central differences of zygote_py's reverse-mode gradient, column by column."""
    import numpy as np

    import zygote_py as zp

    x, consts = problem_data(problem)
    f = numpy_problem(problem, consts)
    eps = 1e-5
    if np.ndim(x) == 0:
        return (zp.gradient(f, x + eps)[0] - zp.gradient(f, x - eps)[0]) / (2 * eps)
    cols = []
    for j in range(x.size):
        e = np.zeros(x.size)
        e[j] = eps
        cols.append((zp.gradient(f, x + e)[0] - zp.gradient(f, x - e)[0]) / (2 * eps))
    return np.stack(cols, axis=-1)


def worker(system, problem, budget):
    """Run in a fresh process: time the first call, then the steady state."""
    import importlib

    try:
        importlib.import_module(PACKAGES[system])
    except ModuleNotFoundError:
        return {"status": "not installed"}
    import timing

    try:
        first_s, (hess_fn, h) = timing.time_call(lambda: _first(system, problem))
        stats = timing.measure(hess_fn, budget)
    except Exception as exc:  # noqa: BLE001 - a failing system is a result
        return {"status": "fails", "error": f"{type(exc).__name__}: {exc}"[:300]}
    return {"status": "ok", "first_s": first_s, "median_s": stats["median_s"],
            "hessian": [float(v) for v in __import__("numpy").ravel(h)]}


def _first(system, problem):
    fn = make_hessian(system, problem)
    return fn, fn()


def hessian_table(opts) -> str:
    import numpy as np

    results = {}
    for problem in PROBLEMS:
        ref = np.ravel(reference_hessian(problem))
        for system in opts.systems:
            res = _spawn(["--worker", system, "--problem", problem, "--budget",
                          str(opts.budget), "--threads", str(opts.threads)], opts.timeout)
            if res["status"] == "ok":
                err = np.linalg.norm(np.asarray(res["hessian"]) - ref) / np.linalg.norm(ref)
                res["max_rel_err"] = float(err)
                if not err < 1e-5:
                    res["status"] = "wrong"
            results[(problem, system)] = res
            print(problem, system, _cell(res), _first_cell(res), flush=True)
    head = "| Hessian | " + " | ".join(opts.systems) + " |"
    rows = [head, "|---|" + "---:|" * len(opts.systems)]
    for problem in PROBLEMS:
        rows.append(f"| `{problem}` | " + " | ".join(_cell(results[(problem, s)])
                                                 for s in opts.systems) + " |")
    rows.append("| **first call** | " + " | " * len(opts.systems))
    for problem in PROBLEMS:
        rows.append(f"| `{problem}` | " + " | ".join(_first_cell(results[(problem, s)])
                                                 for s in opts.systems) + " |")
    notes = [f"{p} {s}: {r.get('error', '')}" for (p, s), r in results.items()
             if r["status"] == "fails"]
    return "\n".join(rows + ([""] + notes if notes else []))


def _cell(res):
    return _fmt(res["median_s"]) if res["status"] == "ok" else res["status"]


def _first_cell(res):
    return _fmt(res["first_s"]) if res["status"] == "ok" else res["status"]


def _fmt(seconds):
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--jvp", action="store_true", help="only the jvp table")
    p.add_argument("--hessian", action="store_true", help="only the Hessian table")
    p.add_argument("--workloads", default=",".join(JVP_WORKLOADS))
    p.add_argument("--systems", default=",".join(SYSTEMS))
    p.add_argument("--rounds", type=int, default=3, help="alternating jvp/primal rounds")
    p.add_argument("--budget", type=float, default=1.0, help="seconds of samples per cell")
    p.add_argument("--timeout", type=float, default=300.0, help="per Hessian worker process")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--problem", help=argparse.SUPPRESS)
    p.add_argument("--jvp-worker", help=argparse.SUPPRESS)
    p.add_argument("--threads", type=int, default=1,
                   help="threads and CPUs for every process (0: the libraries' defaults)")
    opts = p.parse_args(argv)
    if opts.threads:  # before NumPy loads (see worker.pin_threads and docs/performance.md)
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BENCH_THREADS"):
            os.environ[name] = str(opts.threads)
    import worker as gradient_worker  # noqa: F401 - pins this process to BENCH_THREADS CPUs

    if opts.worker:
        print(MARKER + json.dumps(worker(opts.worker, opts.problem, opts.budget)), flush=True)
        return
    if opts.jvp_worker:
        print(MARKER + json.dumps(jvp_worker(opts.jvp_worker, opts.budget)), flush=True)
        return
    opts.workloads = [w for w in opts.workloads.split(",") if w]
    opts.systems = [s for s in opts.systems.split(",") if s]
    both = not opts.jvp and not opts.hessian
    if opts.jvp or both:
        print(jvp_table(opts), flush=True)
    if opts.hessian or both:
        print(hessian_table(opts), flush=True)


if __name__ == "__main__":
    main()
