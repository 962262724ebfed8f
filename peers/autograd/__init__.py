"""Run HIPS autograd's own test suite against zygote_py.

`shim/autograd/` is a package importable as `autograd` that maps autograd's
API onto zygote_py; `runner.py` fetches autograd's sdist, runs pytest on its
test files with the shim first on sys.path (one subprocess per file), and
`report.py` turns what the shim and its pytest plugin recorded into a report
of failures grouped by cause (`causes.py`).  Entry point:
`python -m peers.autograd [--sdist PATH]`; see docs/peer-suites.md.
"""
