"""A dict key that carries a derivative is refused (NoDerivativeRule at the user's line),
in reverse and forward mode: a dict's derivative holds its values' only, so reading the
keys back (`d.items()`, `max(d)`, `next(iter(d))`) once gave a zero gradient and tangent,
silently.  Keys without a derivative -- strings read from an object (every attribute
read of an object is differentiated), indices -- are not refused."""

import numpy as np
import pytest

import zygote_py as zp

X = np.array([0.7, -0.4, 1.3, 0.25])


def keys_from_values(x):
    d = {v: i for i, v in enumerate(x)}
    return sum(k * v for k, v in d.items())


def key_item_assignment(x):
    d = {}
    d[x[0] * 2] = 1.0
    return list(d.keys())[0]


def literal_key(x):
    d = {x[0]: 1.0}
    return max(d) * 2


def float_of_item_key(x):
    d = {float(x[0]): 1.0}
    return next(iter(d))


def tuple_key(x):
    d = {(1, x[1]): 2.0}
    return list(d)[0][1]


class Named:
    def __init__(self, name, w):
        self.name, self.w = name, w


def string_keys_from_an_object(x):
    c = Named("a", x[0])
    d = {c.name: c.w}
    d[c.name + "b"] = c.w * 2.0
    return d["a"] * d["ab"] + x[1]


@pytest.mark.parametrize("f", [keys_from_values, key_item_assignment, literal_key,
                               float_of_item_key, tuple_key])
def test_a_key_with_a_derivative_is_refused(f):
    for run in (lambda: zp.gradient(f, X.copy()), lambda: zp.jvp(f, (X.copy(),), (X.copy(),))):
        with pytest.raises(zp.NoDerivativeRule, match="dict key") as info:
            run()
        assert info.value.loc is not None and info.value.loc.filename == __file__


def test_keys_without_a_derivative_are_not_refused():
    (g,) = zp.gradient(string_keys_from_an_object, X.copy())
    assert np.allclose(g, [4 * X[0], 1.0, 0.0, 0.0])
    y, t = zp.jvp(string_keys_from_an_object, (X.copy(),), (np.array([1.0, 2.0, 0.0, 0.0]),))
    assert y == pytest.approx(2 * X[0] ** 2 + X[1]) and t == pytest.approx(4 * X[0] + 2.0)
