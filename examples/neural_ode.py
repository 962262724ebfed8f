"""A neural ODE fitted through scipy.integrate.odeint: learn a vector field from a trajectory.

    python examples/neural_ode.py [--quick]

The vector field dy/dt = W_out tanh(W_in y + b) is a small MLP.  Its trajectory
from y0 is computed by SciPy's own solver, `scipy.integrate.odeint`; zygote_py
differentiates that call with an adjoint-sensitivity rule (a second, backward
solve), not by stepping through the solver, so the gradient with respect to the
MLP's weights costs about one more ODE solve.  The data is a damped rotation;
the script prints how far the loss fell.  Needs SciPy.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.integrate import odeint

import zygote_py as zp
from zygote_py import nn

Y0 = np.array([1.0, 0.0])
TRUE_FIELD = np.array([[-0.1, -2.0], [2.0, -0.1]])  # a damped rotation


def observed_path(times):
    return odeint(lambda y, t: TRUE_FIELD @ y, Y0, times, rtol=1e-10, atol=1e-10)


def mlp_field(y, t, w_in, b_in, w_out):
    return w_out @ np.tanh(w_in @ y + b_in)


def loss(params, times, target):
    path = odeint(mlp_field, Y0, times, args=(params["w_in"], params["b_in"], params["w_out"]),
                  rtol=1e-7, atol=1e-7)
    return np.mean((path - target) ** 2)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a shorter trajectory, fewer steps")
    parser.add_argument("--iters", type=int, default=None)
    args = parser.parse_args(argv)
    hidden, t_end = (6, 1.5) if args.quick else (16, 3.0)
    iters = args.iters or (30 if args.quick else 300)

    rng = np.random.default_rng(0)
    times = np.linspace(0.0, t_end, 12)
    target = observed_path(times)
    params = {"w_in": 0.5 * rng.standard_normal((hidden, 2)), "b_in": np.zeros(hidden),
              "w_out": 0.5 * rng.standard_normal((2, hidden)) / np.sqrt(hidden)}
    opt = nn.Adam(0.1 if args.quick else 0.05)
    history, start = [], time.perf_counter()
    for it in range(1, iters + 1):
        value, (grads, _, _) = zp.withgradient(loss, params, times, target)
        opt.update(params, grads)  # in place
        history.append(float(value))
        if it % max(1, iters // 5) == 0:
            print(f"iteration {it:4d}  loss {value:.6f}")
    elapsed = time.perf_counter() - start
    print(f"{iters} iterations, each an odeint solve and its adjoint, in {elapsed:.1f} s; loss "
          f"{history[0]:.4f} -> {history[-1]:.6f} (fell by a factor of {history[0] / history[-1]:.0f})")
    return {"history": history, "params": params}


if __name__ == "__main__":
    main()
