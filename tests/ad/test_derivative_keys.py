"""A dict key that carries a derivative is refused (NoDerivativeRule at the user's line):
a dict's derivative holds its values' only, so reading the keys back (`d.items()`,
`max(d)`, `next(iter(d))`) once gave a zero gradient and tangent, silently.  Forward mode
refuses a key with a tangent where it is put in; reverse mode notes such float keys
while running and refuses where a nonzero derivative reaches one read back.  Keys without
a derivative -- strings read from an object (every attribute read of an object is
differentiated), indices, constant float keys -- are not refused, and iterating a dict
gives its keys, whose cotangents once went into the values (a wrong gradient)."""

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


def zipped_keys(x):
    d = dict(zip(x, x * 3))
    return sum(d) + sum(d.values())


def updated_with_pairs(x):
    d = {0.5: 1.0}
    d.update(zip(x[:2], [1.0, 2.0]))
    return sum(d)


def setdefault_key(x):
    d = {}
    d.setdefault(x[0] * 2, 3.0)
    return next(iter(d))


def comprehension_over_zip(x):
    d = {k: v for k, v in zip(x, x * 2)}
    return sum(d)


@pytest.mark.parametrize("f", [keys_from_values, key_item_assignment, literal_key,
                               float_of_item_key, tuple_key, zipped_keys, updated_with_pairs,
                               setdefault_key, comprehension_over_zip])
def test_a_key_with_a_derivative_is_refused(f):
    for run in (lambda: zp.gradient(f, X.copy()), lambda: zp.jvp(f, (X.copy(),), (X.copy(),))):
        with pytest.raises(zp.NoDerivativeRule, match="dict key|'key'") as info:
            run()
        assert info.value.loc is not None and info.value.loc.filename == __file__


def test_keys_without_a_derivative_are_not_refused():
    (g,) = zp.gradient(string_keys_from_an_object, X.copy())
    assert np.allclose(g, [4 * X[0], 1.0, 0.0, 0.0])
    y, t = zp.jvp(string_keys_from_an_object, (X.copy(),), (np.array([1.0, 2.0, 0.0, 0.0]),))
    assert y == pytest.approx(2 * X[0] ** 2 + X[1]) and t == pytest.approx(4 * X[0] + 2.0)


# -- iterating a dict gives its keys: their cotangents are not its values' --------------------


def loop_over_keys_reading_values(x):
    d = {1: x[0], 2: x[1]}
    s = 0.0
    for k in d:  # k * d[k]: the key's cotangent once went into the value at that position
        s = s + k * d[k]
    return s


def loop_over_constant_float_keys(x):
    d = {1.0: x[0], 2.0: x[1]}
    s = 0.0
    for k in d:
        s = s + k * x[2]
    return s + d[1.0]


def sums_of_keys(x):
    d = {1.0: x[0], 2.0: x[1]}
    return sum(d) * x[2] + max(d.keys()) * x[3]


def named_values(x):
    d = dict(zip(["a", "b", "c", "d"], x))
    d.update(e=x[0] * 2)
    s = 0.0
    for k in d:
        s = s + d[k] * len(k)
    return s + sum(v for k, v in d.items() if k != "a")


def _fd(f, h=1e-6):
    return np.array([(f(X + h * e) - f(X - h * e)) / (2 * h) for e in np.eye(4)])


@pytest.mark.parametrize("f", [loop_over_keys_reading_values, loop_over_constant_float_keys,
                               sums_of_keys, named_values])
def test_keys_read_back_give_the_values_their_own_cotangents(f):
    (g,) = zp.gradient(f, X.copy())
    assert np.allclose(g, _fd(f), atol=1e-6)
    v = np.array([0.3, -1.2, 0.5, 2.0])
    _, t = zp.jvp(f, (X.copy(),), (v,))
    assert t == pytest.approx(_fd(f) @ v, abs=1e-6)
