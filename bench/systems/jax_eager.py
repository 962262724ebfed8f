"""JAX without ``jit``: ``jax.grad`` executed op by op (eager).

The definitions live in ``jax_common``.  Eager JAX dispatches every primitive
separately, so a 1000-step scalar loop takes seconds; the timing harness caps
its repeats at the minimum (3).
"""

from systems import jax_common

PACKAGE = jax_common.PACKAGE
version = jax_common.version
to_numpy = jax_common.to_numpy


def prepare(name, data):
    return jax_common.prepare(name, data, jit=False)
