"""Fitting the parameters of an ODE: Lotka-Volterra predator-prey dynamics.

    python examples/lotka_volterra.py [--quick]

    dx/dt = alpha x - beta x y        (prey)
    dy/dt = delta x y - gamma y       (predators)

The solver is a fixed-step fourth-order Runge-Kutta written as a plain Python
loop.  zygote_py differentiates through every step of it (the "discretise,
then optimise" approach), so the four rate constants can be fitted to noisy
observations of a trajectory by gradient descent.  They are optimised in log
space, which keeps them positive.  The script prints the fitted and true
parameters and how far the loss fell.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import zygote_py as zp
from zygote_py import nn

TRUE = np.array([1.5, 1.0, 3.0, 1.0])   # alpha, beta, gamma, delta
U0 = np.array([1.0, 1.0])


def rates(theta, u):
    alpha, beta, gamma, delta = theta[0], theta[1], theta[2], theta[3]
    x, y = u[0], u[1]
    return np.stack([alpha * x - beta * x * y, delta * x * y - gamma * y])


def rk4_step(theta, u, dt):
    k1 = rates(theta, u)
    k2 = rates(theta, u + 0.5 * dt * k1)
    k3 = rates(theta, u + 0.5 * dt * k2)
    k4 = rates(theta, u + dt * k3)
    return u + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


def simulate(theta, u0, dt, n_steps):
    """The trajectory (n_steps + 1, 2), initial state included."""
    u = u0
    path = [u]
    for _ in range(n_steps):
        u = rk4_step(theta, u, dt)
        path.append(u)
    return np.stack(path)


def loss(log_theta, observed, dt):
    return nn.mse(simulate(np.exp(log_theta), U0, dt, observed.shape[0] - 1), observed)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a shorter trajectory, fewer steps")
    parser.add_argument("--iters", type=int, default=None)
    args = parser.parse_args(argv)
    t_end, dt = (4.0, 0.1) if args.quick else (8.0, 0.05)
    iters = args.iters or (80 if args.quick else 400)

    rng = np.random.default_rng(0)
    n_steps = round(t_end / dt)
    observed = simulate(TRUE, U0, dt, n_steps) + 0.02 * rng.standard_normal((n_steps + 1, 2))

    log_theta = np.log(np.array([1.0, 0.7, 2.5, 1.4]))   # a wrong first guess
    opt = nn.Adam(0.03)
    history, start = [], time.perf_counter()
    for it in range(1, iters + 1):
        value, (g, _, _) = zp.withgradient(loss, log_theta, observed, dt)
        opt.update(log_theta, g)   # in place
        history.append(float(value))
        if it % max(1, iters // 5) == 0:
            print(f"iteration {it:4d}  loss {value:.5f}  theta {np.round(np.exp(log_theta), 3)}")
    elapsed = time.perf_counter() - start

    theta = np.exp(log_theta)
    rel_err = float(np.max(np.abs(theta - TRUE) / TRUE))
    print(f"true   alpha, beta, gamma, delta = {TRUE}")
    print(f"fitted alpha, beta, gamma, delta = {np.round(theta, 3)} (largest relative error {rel_err:.1%})")
    print(f"{iters} iterations through a {n_steps}-step RK4 solve in {elapsed:.1f} s; loss "
          f"{history[0]:.4f} -> {history[-1]:.5f} (fell by a factor of {history[0] / history[-1]:.0f})")
    return {"history": history, "theta": theta, "rel_err": rel_err}


if __name__ == "__main__":
    main()
