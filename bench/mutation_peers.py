"""Issue 13's mutation workloads (bench/mutation.py: a fill loop, n = 10,000, and a 1-D
heat equation, 1,000 steps on 1,000 points) in the peers that can run them, next to
zygote_py, in one process: gradient time over the NumPy primal's.

    pip install -e '.[bench]'            # torch==2.13.0, jax, jaxlib (either may be absent)
    python bench/mutation_peers.py       # prints a markdown table

- PyTorch eager writes into tensors autograd tracks: `out[i] = torch.sin(x[i]) * x[i]`
  and `u[1:-1] = u[1:-1] + c * (...)` on a `u0.clone()` (its version counters accept
  both: no value a backward needs is overwritten).
- JAX has no writes: `out.at[i].set(...)` and `u.at[1:-1].set(...)` in `lax.fori_loop`,
  the gradient under `jax.jit`, in float64; its compile time is reported apart.
- autograd has no item assignment on its boxes, so it cannot run either workload.

Time is CPU time (`time.process_time`), the median of `--repeat` calls, the primal and
every system's gradient called in turn, so that a loaded machine slows them alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mutation import CASES, LABELS  # noqa: E402  (the workloads, as zygote_py runs them)


def _torch_systems():
    try:
        import torch
    except ImportError:
        return {}
    torch.set_num_threads(1)

    def fill(x):
        out = torch.zeros(len(x), dtype=torch.float64)
        for i in range(len(x)):
            out[i] = torch.sin(x[i]) * x[i]
        return (out * out).sum()

    def heat(u0, c):
        u = u0.clone()
        for _ in range(1000):
            u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        return (u * u).sum()

    def gradient(f):
        def run(x, *rest):
            t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
            f(t, *rest).backward()
            return t.grad.numpy()
        return run

    return {"PyTorch eager": {"fill": gradient(fill), "heat": gradient(heat)}}


def _jax_systems():
    try:
        import jax
    except ImportError:
        return {}, {}
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax import lax

    def fill(x):
        n = x.shape[0]
        out = lax.fori_loop(0, n, lambda i, out: out.at[i].set(jnp.sin(x[i]) * x[i]),
                            jnp.zeros(n))
        return (out * out).sum()

    def heat(u0, c):
        def step(_, u):
            return u.at[1:-1].set(u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2]))
        u = lax.fori_loop(0, 1000, step, u0)
        return (u * u).sum()

    compiled, compile_s = {}, {}
    for name, f in (("fill", fill), ("heat", heat)):
        g = jax.jit(jax.grad(f))
        args = CASES[name][1]
        start = time.perf_counter()
        g(*args).block_until_ready()
        compile_s[name] = time.perf_counter() - start
        compiled[name] = lambda *a, g=g: g(*a).block_until_ready()
    return {"JAX jit": compiled}, compile_s


def measure(repeat: int) -> tuple[dict, dict]:
    import zygote_py as zp

    systems = {"zygote_py": {name: (lambda *a, f=f: zp.gradient(f, *a))
                             for name, (f, _) in CASES.items()}}
    systems.update(_torch_systems())
    jax_systems, compile_s = _jax_systems()
    systems.update(jax_systems)
    ratios = {}
    for name, (primal, args) in CASES.items():
        calls = {"primal": primal, **{system: fns[name] for system, fns in systems.items()}}
        reference = np.asarray(zp.gradient(primal, *args)[0])
        for key, call in calls.items():
            out = call(*args)  # compile, warm caches; every peer must agree with zygote_py
            if key not in ("primal", "zygote_py"):
                got = np.asarray(out[0] if isinstance(out, tuple) else out)
                if not np.allclose(got, reference, rtol=1e-9, atol=1e-12):
                    raise AssertionError(f"{key}'s gradient of {name} differs from zygote_py's")
        times = {key: [] for key in calls}
        for _ in range(repeat):
            for key, call in calls.items():
                start = time.process_time()
                call(*args)
                times[key].append(time.process_time() - start)
        p = statistics.median(times["primal"])
        ratios[name] = {"primal_s": p, **{key: statistics.median(times[key]) / p
                                          for key in systems}}
    return ratios, compile_s


def table(ratios: dict, compile_s: dict) -> str:
    systems = [key for key in next(iter(ratios.values())) if key != "primal_s"]
    lines = ["| workload | NumPy primal | " + " | ".join(systems) + " |",
             "|---|---:|" + "---:|" * len(systems)]
    for name, row in ratios.items():
        cells = " | ".join(f"{row[s]:.1f}x" for s in systems)
        lines.append(f"| {LABELS[name]} | {row['primal_s'] * 1e3:.1f} ms | {cells} |")
    if compile_s:
        lines.append("")
        lines.append("JAX jit compile time (first call, apart): " + ", ".join(
            f"{name} {seconds:.2f} s" for name, seconds in compile_s.items()))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    options = parser.parse_args()
    print(table(*measure(options.repeat)))


if __name__ == "__main__":
    main()
