"""A random-program fuzzer for zygote_py.

It writes random, smooth, well-defined Python/NumPy programs (real source
files, so zygote_py can read them), runs each one in plain Python, through
`zp.gradient` / `zp.withgradient`, and by central finite differences, and
classifies the outcome (`oracle.py`).  Failures are reduced by a shrinker
(`shrink.py`) and written as small regression files.

Modules:
  types.py      the value types the generator tracks (float, arrays, containers, ...)
  literals.py   random constants and array literals
  exprs.py      typed random expressions: entry point, leaves, shared producers
  producers.py  scalar, vector and matrix producers
  templates.py  table-driven expression templates (more NumPy, builtins, syntax)
  stmts.py      random statements and function bodies
  extra_stmts.py  rarer statements (tuple-returning helpers, factories, mutation probes)
  program.py    whole programs: helpers, a class, `f`, `make_args`
  outcome.py    the outcome kinds and the Outcome record
  slots.py      arguments as slots of floats; central differences over them
  oracle.py     runs a program and classifies what zygote_py did with it
  shrink.py     reduces a failing program while it keeps failing the same way
  runner.py     runs many programs (in parallel), tallies, writes failures
  __main__.py   `python -m fuzz --seed S --count N [--jobs J] [--out DIR]`

This folder is not installed with the package and is not imported by it.
"""
