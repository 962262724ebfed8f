"""Adapters that run other AD libraries' own test suites against zygote_py.

Not part of the installed package: each sub-folder holds a shim that presents
a peer's API on top of zygote_py, and a runner that fetches the peer's tests.
"""
