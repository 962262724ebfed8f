"""The workloads in ``jax.numpy``, shared by the jax eager and jax.jit systems.

Written the way JAX users write them: parameters in a tuple (a pytree)
differentiated with ``jax.grad`` w.r.t. argument 0, data passed as ordinary
arguments (under ``jit`` that keeps the 800 kB MLP batch out of the compiled
program's constants).  The Python ``for`` loops are kept as in the NumPy
source: under ``jit`` they unroll, which is what a user gets without
rewriting the loop as ``lax.scan``/``fori_loop``.
"""

import os

# Use the CPU backend without probing for accelerators (probing prints
# warnings and adds start-up time).  Must be set before jax is imported.
os.environ.setdefault("JAX_PLATFORMS", "cpu")

from systems import restated  # noqa: E402

PACKAGE = "jax"


def version():
    import jax

    return jax.__version__


def _jax():
    import jax

    # float64 like every other system; must precede any array creation.
    jax.config.update("jax_enable_x64", True)
    return jax


def functions():
    _jax()
    import jax.numpy as jnp

    def scalar_loop(x):
        for _ in range(1000):
            x = jnp.sin(x) * x + 0.5 * jnp.cos(x) / (1 + x * x)
        return x

    def mlp_loss(params, x, y):
        W1, b1, W2, b2, W3, b3 = params
        h1 = jnp.tanh(x @ W1 + b1)
        h2 = jnp.tanh(h1 @ W2 + b2)
        logits = h2 @ W3 + b3
        z = logits - jnp.max(logits, axis=1, keepdims=True)
        logp = z - jnp.log(jnp.sum(jnp.exp(z), axis=1, keepdims=True))
        return -jnp.sum(y * logp) / 128.0

    def rnn_loss(params, xs):
        W_h, W_x, b = params
        h = jnp.zeros((xs.shape[1], W_h.shape[0]))
        for t in range(xs.shape[0]):
            h = jnp.tanh(h @ W_h.T + xs[t] @ W_x.T + b)
        return jnp.sum(h**2)

    def elementwise(x):
        return jnp.sum(jnp.sin(x) * jnp.exp(-(x**2)) + jnp.log1p(x * x))

    def small_ops(x):
        for _ in range(200):
            x = jnp.tanh(x * 1.01 + 0.1)
        return jnp.sum(x)

    return {
        "scalar_loop": scalar_loop,
        "mlp": mlp_loss,
        "rnn": rnn_loss,
        "elementwise": elementwise,
        "small_ops": small_ops,
    }


def prepare(name, data, jit):
    """Shared ``prepare`` for both jax systems; ``jit`` wraps the gradient."""
    jax = _jax()
    import jax.numpy as jnp

    if name in restated.NAMES:
        return _prepare_restated(jax, jnp, name, data, jit)
    f = functions()[name]
    args, consts = data["args"], data["consts"]
    dev = [jnp.asarray(a) for a in args]
    if name == "scalar_loop":
        call_args = (args[0],)  # a Python float, as in the NumPy workload
    elif name == "mlp":
        call_args = (tuple(dev), jnp.asarray(consts["x"]), jnp.asarray(consts["y"]))
    elif name == "rnn":
        call_args = (tuple(dev), jnp.asarray(consts["xs"]))
    else:
        call_args = tuple(dev)

    def make():
        g = jax.grad(f)
        if jit:
            g = jax.jit(g)
        # JAX dispatches asynchronously: wait for the result inside the timing.
        return lambda: jax.block_until_ready(g(*call_args))

    return make


def _prepare_restated(jax, jnp, name, data, jit):
    """The larger workloads.  The trip count of W1n is static under ``jit`` (the loop
    unrolls, as W1's does).  W9's million steps would unroll into a million-op program:
    there JAX gets ``lax.fori_loop``, the loop JAX users write for it, eager and jit."""
    if name == "long_loop":
        def fn(x, n):
            def step(_, x):
                return jnp.sin(x) * x + 0.5 * jnp.cos(x) / (1 + x * x)
            return jax.lax.fori_loop(0, n, step, x)
    else:
        fn = restated.build(restated.numpy_like(jnp))[name]
    params = tuple(jnp.asarray(a) for a in data["args"])
    rest = tuple(jnp.asarray(c) for c in data["consts"].values()) + tuple(data.get("extra", ()))
    n_static = len(data.get("extra", ()))
    static = tuple(range(1 + len(rest) - n_static, 1 + len(rest)))

    def make():
        g = jax.grad(lambda params, *more: fn(*params, *more))
        if jit:
            g = jax.jit(g, static_argnums=static)
        return lambda: jax.block_until_ready(g(params, *rest))

    return make


def to_numpy(result):
    import numpy as np

    if isinstance(result, (tuple, list)):
        return tuple(np.asarray(r) for r in result)
    return (np.asarray(result),)
