"""`import m`, `import a.b as c` and `from m import name` inside a differentiated function
bind static names when it is compiled (frontend/lower_stmt.stmt_Import/ImportFrom), as a
module-level import would: the callees are then resolved and differentiated as usual.
They were an UnsupportedSyntax before."""

import numpy as np
import pytest

import zygote_py as zp


def imports_its_helpers(x):
    import math
    import numpy.linalg as la
    from numpy import tanh as th
    return la.norm(x) + math.sin(x[0]) + np.sum(th(x))


def imports_in_a_branch(x):
    if x[0] > 0:
        from numpy import exp
        return np.sum(exp(x))
    return np.sum(x)


def failing_import(x):
    import not_a_module_anywhere  # noqa: F401
    return x


X = np.array([0.3, -1.2, 2.0])


def _fd(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


@pytest.mark.parametrize("f", [imports_its_helpers, imports_in_a_branch])
def test_imports_inside_a_function(f):
    (g,) = zp.gradient(f, X)
    np.testing.assert_allclose(g, _fd(f, X), rtol=1e-6, atol=1e-8)
    _, t = zp.jvp(f, (X,), (np.ones(3),))
    np.testing.assert_allclose(t, np.sum(_fd(f, X)), rtol=1e-6)


def test_imports_that_cannot_be_followed_are_refused():
    with pytest.raises(zp.UnsupportedSyntax, match="import failed when the function was compiled"):
        zp.gradient(failing_import, X)
