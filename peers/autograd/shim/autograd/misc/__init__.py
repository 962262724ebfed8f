"""autograd.misc: `flatten` (plain NumPy) and `const_graph` (skips: it is autograd's trace cache)."""

from .flatten import flatten


def const_graph(fun, *args, **kwargs):
    import pytest  # only ever reached inside a pytest run

    pytest.skip("autograd.misc.const_graph caches autograd's traced graph; zygote_py traces nothing")


__all__ = ["const_graph", "flatten"]
