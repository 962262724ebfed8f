"""One module per benchmarked system, all with the same small interface.

Each module defines:

- ``PACKAGE``: the import name whose absence means "not installed".
- ``version()``: the version string of the system.
- ``prepare(name, data)``: convert the workload's data (``workloads.make_data``)
  to the system's arrays (untimed) and return ``make``.  ``make()`` does the
  system's one-time gradient setup (``tangent.grad``, ``jax.jit(jax.grad)``)
  and returns ``grad_fn``; calling ``grad_fn()`` computes the gradient once
  and returns it with any asynchronous work finished.  The first-call latency
  is ``make()`` plus the first ``grad_fn()``, in a fresh process.
- ``to_numpy(result)``: the gradient as a tuple of NumPy values, one per
  differentiated argument, for the correctness check.
- optionally ``check(name, data, result)``: a custom check returning
  ``(ok, max_rel_err, message)`` (the NumPy primal checks the reference
  gradient against finite differences instead).

``SYSTEMS`` maps the command-line name of each system to its module name,
in table column order; ``LABELS`` gives each one's column heading.
"""

SYSTEMS = {
    "numpy": "numpy_primal",
    "zygote_py": "zygote",
    "autograd": "autograd_hips",
    "jax": "jax_eager",
    "jax_jit": "jax_jit",
    "torch": "torch_eager",
    "tangent": "tangent_ad",
}

LABELS = {
    "numpy": "numpy primal",
    "zygote_py": "zygote_py",
    "autograd": "autograd",
    "jax": "jax eager",
    "jax_jit": "jax.jit",
    "torch": "torch eager",
    "tangent": "tangent-ad",
}
