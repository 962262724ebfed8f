"""Functions zygote_py must refuse, for tests/test_errors.py.

The offending line of each function carries a trailing `# ERR` comment; the
tests read the file to find it, so the expected line numbers cannot drift.
Each function first appends its name to `RAN`: the tests check that nothing
was appended, i.e. that the error came before any of the user's code ran.

`decorated_bad` applies `@zp.differentiable` to bad syntax, so importing it
must fail; nothing here imports it.
"""

RAN: list[str] = []
