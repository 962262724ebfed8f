"""codegen/emit.py: a variable some path leaves unassigned, moved to another name where
values meet at a loop or branch, is copied without reading it while it is unassigned.

The gradient code of a `for` whose body holds a `while` and an early `return` carries the
`while` condition's temporary, unassigned before the first trip.  Forward mode over that
code (zp.hessian) carried it into the `while` under another name, and the plain copy
`tmp_1 = tmp` raised UnboundLocalError (fuzz seed 20261209, program #8094).  The copy now
reads `locals().get('tmp', UNBOUND)` and unbinds its target again when it was unassigned,
so the generated code fails exactly where Python would, and nowhere else."""

import numpy as np
import pytest

import zygote_py as zp

EPS = 1e-5


def fd_hessian(f, x):
    columns = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = EPS
        columns.append((zp.gradient(f, x + e)[0] - zp.gradient(f, x - e)[0]) / (2 * EPS))
    return np.stack(columns, axis=-1)


def returns_in_the_first_trip(a0):
    for t in a0:
        k = 0
        while k < 2 and t < 3.0:  # (`and`: the condition's temporary is a variable)
            k += 1
            t = t * 0.9 + t
        return t * a0[0]


def carries_an_array_through_both_loops(a0):
    acc = a0 * 1.0
    for i, t in enumerate(np.array([x for x in a0])):
        acc = acc * 0.5 + np.sin(acc)
        k = 0
        while k < 2 and np.sum(acc) < 3.0:
            k += 1
            t = t * 0.9 + t
        v = t - np.sum(a0)
        return v * np.sum(acc)


@pytest.mark.parametrize("f", [returns_in_the_first_trip, carries_an_array_through_both_loops])
def test_hessian_of_a_loop_temporary_carried_into_a_nested_loop(f):
    x = np.array([0.3, -0.2, 0.5])
    H = zp.hessian(f, x)
    expected = fd_hessian(f, x)
    assert np.abs(expected).max() > 0.1  # not a case a zero Hessian passes
    np.testing.assert_allclose(H, expected, rtol=1e-6, atol=1e-8)


def test_hessian_vector_product_agrees():
    x = np.array([0.3, -0.2, 0.5])
    v = np.array([1.0, 0.5, -2.0])
    f = carries_an_array_through_both_loops
    np.testing.assert_allclose(zp.hvp(f, x, v), fd_hessian(f, x) @ v, rtol=1e-6, atol=1e-8)


def test_the_copy_unbinds_its_target_when_the_variable_is_unassigned():
    # the copy's own form, in the forward code zp.hessian ran for the first case above
    import re

    from zygote_py.forward_compiler import FORWARD

    zp.hessian(returns_in_the_first_trip, np.array([0.3, -0.2, 0.5]))
    texts = [entry.source for fn, per_fn in list(FORWARD.forward_cache.items())
             if fn.__name__ == "returns_in_the_first_trip_grad" for entry in per_fn.values()]
    assert texts
    copies = [m for text in texts
              for m in re.finditer(r"\n( *)(\w+(?:, \w+)*) = (.*locals\(\)\.get\('(\w+)'.*)\n"
                                   r"\1if (\w+) is _zp_unbound:\n\1    del \5\n", text)]
    assert copies, "the case no longer makes the copy: find another one"
    for m in copies:
        targets = m.group(2).split(", ")
        values = [v.strip() for v in re.split(r",(?![^(]*\))", m.group(3))]
        k = targets.index(m.group(5))
        assert values[k] == f"locals().get('{m.group(4)}', _zp_unbound)"
