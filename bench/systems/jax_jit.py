"""JAX with ``jax.jit(jax.grad(f))``: traced, compiled by XLA, then cached.

The first call includes tracing and XLA compilation (reported in the
"first call" rows); steady state is the compiled program.  Python loops are
unrolled during tracing, which is why the scalar loop compiles slowly.
"""

from systems import jax_common

PACKAGE = jax_common.PACKAGE
version = jax_common.version
to_numpy = jax_common.to_numpy


def prepare(name, data):
    return jax_common.prepare(name, data, jit=True)
