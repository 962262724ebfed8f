"""Rules for Python's arithmetic operators (module `operator`), the NumPy ufuncs
that share their math, and the differentiable builtins (abs, sum, min, max,
pow, float, list, tuple).

Rule bodies are straight-line code that the compiler inlines (see
`registry.py`); anything that needs a loop lives in a module-level helper
whose name starts with `_` and is called from the body.
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from zygote_py.rules.iterators import read_cotangent
from zygote_py.rules.registry import vjp, vjp_method
from zygote_py.runtime import accum, strong_zero, unbroadcast
from zygote_py.runtime.containers import refuse_key_cotangent
from zygote_py.runtime.helpers import pure
from zygote_py.runtime.iterators import Items, read_start

# ---------------------------------------------------------------------------
# + - * / and unary operators


def _as_sequence(items, like):
    """items (a slice of a list/tuple cotangent) in the sequence type of `like`."""
    return list(items) if type(like) is list else tuple(items)


def _concat_cotangents(g, a, b):
    """Cotangents of a + b for sequences (concatenation): the two halves of g."""
    n = len(a)
    return _as_sequence(g[:n], a), _as_sequence(g[n:], b)


def _repeat_cotangents(g, a, b):
    """Cotangents of seq * n or n * seq (repetition): the repeats' cotangents summed."""
    seq, times = (a, b) if isinstance(a, (list, tuple)) else (b, a)
    n = len(seq)
    total = [None] * n
    for k in range(int(times)):
        for i in range(n):
            total[i] = accum(total[i], g[k * n + i])
    out = _as_sequence(total, seq)
    return (out, None) if seq is a else (None, out)


def _concat_rule(g, y, a, b, out=None, **kwargs):
    """list/tuple + list/tuple (concatenation): g is split between the two."""
    return _concat_cotangents(g, a, b)


def _repeat_rule(g, y, a, b, out=None, **kwargs):
    """list/tuple * n (repetition): the repeats' cotangents are summed."""
    return _repeat_cotangents(g, a, b)


@vjp(operator.add, np.add, sequence=_concat_rule, symmetric=("a", "b"))
def add(g, y, a, b, out=None, **kwargs):
    """Numbers and arrays; the compiler uses the sequence rule when an operand is a list
    or tuple (`sequence=` above), so this stays the cheap numeric form."""
    return unbroadcast(g, a), unbroadcast(g, b)


@vjp(operator.sub, np.subtract)
def subtract(g, y, a, b, out=None, **kwargs):
    """b's cotangent is negated after the sum that undoes its broadcast, on the smaller
    array (`pos[None] - pos[:, None]`: 32 x 3 entries instead of 32 x 32 x 3).  A sum of
    negated terms is the negated sum, rounding included; only an exact zero sum may
    carry the other sign (-(0.0) where the terms' sum was +0.0)."""
    return unbroadcast(g, a), -unbroadcast(g, b)


@vjp(operator.mul, np.multiply, sequence=_repeat_rule, symmetric=("a", "b"))
def multiply(g, y, a, b, out=None, **kwargs):
    """Numbers and arrays (a list/tuple repeated n times uses the sequence rule).  An
    operand may be inf (np.where(p > 0, p * np.log(p), 0) at p = 0): the strong zero."""
    return unbroadcast(strong_zero(g, g * b), a), unbroadcast(strong_zero(g, g * a), b)


@vjp(operator.truediv, np.divide)
def divide(g, y, a, b, out=None, **kwargs):
    ga = strong_zero(g, g / b)  # 0 / 0 where b is 0
    return unbroadcast(ga, a), unbroadcast(strong_zero(ga, -ga * y), b)  # y is inf there


@vjp(operator.neg, np.negative)
def negative(g, y, a, out=None, **kwargs):
    return -g


@vjp(operator.pos, np.positive)
def positive(g, y, a, out=None, **kwargs):
    return g


@vjp(operator.mod, np.remainder)
def remainder(g, y, a, b, out=None, **kwargs):
    """a % b = a - b * floor(a / b): d/da = 1, d/db = -floor(a / b) (away from the jumps)."""
    return unbroadcast(g, a), unbroadcast(-g * (a // b), b)


@vjp(np.fmod, math.fmod)
def fmod(g, y, a, b, out=None, **kwargs):
    """fmod(a, b) = a - b * trunc(a / b): d/da = 1, d/db = -trunc(a / b)."""
    return unbroadcast(g, a), unbroadcast(-g * np.trunc(a / b), b)


# ---------------------------------------------------------------------------
# powers


@pure
def _pow_exponent_cotangent(g, y, a):
    """g * d(a**b)/db = g * a**b * log(a), taken as 0 where a <= 0 (no real log).

    Only reached when the exponent is active, and never warns or makes nan for
    bases that are zero or negative.
    """
    if isinstance(a, (float, int)):
        return strong_zero(g, g * y * math.log(a)) if a > 0 else 0.0 * g
    a = np.asarray(a)
    return strong_zero(g, g * y * np.log(np.where(a > 0, a, 1.0)))


# Below this many elements a**(b - 1) costs less than _quotient_is_slope's two reductions.
_QUOTIENT_SLOPE_MIN_SIZE = 256


@pure
def _quotient_is_slope(y, a) -> bool:
    """Whether y / a is a ** (b - 1) to rounding, for y = a ** b (b a float): then the base's
    cotangent takes one division instead of a second power, which costs 20-25 ns an
    element in libm (N-body's `r2 ** -1.5`, whose adjoint needed `r2 ** -2.5`).

    Only for a real float array y of at least _QUOTIENT_SLOPE_MIN_SIZE elements, all of one
    sign, normal and finite.  That rules out every point where the two differ: a == 0
    (y is 0 or inf), a == inf (y is 0 or inf), y overflowed or underflowed where
    a ** (b - 1) did not, a nan anywhere (the reductions give nan and the tests fail), and
    a subnormal y, which has lost digits that a ** (b - 1) keeps.  Nothing else is
    allocated: two reductions over y."""
    if type(y) is not np.ndarray or y.dtype.kind != "f" or y.size < _QUOTIENT_SLOPE_MIN_SIZE \
            or type(a) is not np.ndarray or a.shape != y.shape:
        return False
    limits = np.finfo(y.dtype)  # (NumPy caches it per dtype)
    tiny, largest = limits.tiny, limits.max
    low = np.minimum.reduce(y, None)
    high = np.maximum.reduce(y, None)
    if low > 0:
        return bool(low >= tiny and high <= largest)
    return bool(high <= -tiny and low >= -largest)


@vjp(operator.pow, np.power, builtins.pow, math.pow)
def power(g, y, a, b, out=None, **kwargs):
    """Integer exponents take the cheap special cases (folded away for constant
    exponents).  An int exponent is active only when passed to the API explicitly
    (ints are differentiated as reals there): its cotangent is computed then, and
    dropped with the rest of the unused adjoint otherwise."""
    if isinstance(b, int):
        gb = unbroadcast(_pow_exponent_cotangent(g, y, a), b)
        if b == 2:
            return g * 2 * a, gb
        if b == 1:
            return g, gb
        if b == 0:
            return None, gb
        if b == -1:
            return strong_zero(g, -g * y * y), gb
        if b == 3:
            return g * 3 * a * a, gb
        return strong_zero(g, g * b * a ** (b - 1)), gb
    gb = unbroadcast(_pow_exponent_cotangent(g, y, a), b)
    if isinstance(b, float):
        if b == 0.0:  # a ** 0.0 is 1 for every a, 0.0 ** 0.0 included: no base cotangent
            return None, gb
        if isinstance(a, (float, int)) and a == 0 and b < 1:
            return strong_zero(g, g * b * math.inf), gb  # the slope of 0.0 ** b (0 < b < 1) is infinite
        if not isinstance(a, (float, int)) and _quotient_is_slope(y, a):
            return unbroadcast(strong_zero(g, g * b * (y / a)), a), gb
        return unbroadcast(strong_zero(g, g * b * a ** (b - 1)), a), gb
    # where the exponent is 0 the base's cotangent is 0, not 0 * 0 ** -1 (nan)
    return unbroadcast(strong_zero(g, g * b * a ** np.where(b == 0, 1.0, b - 1)), a), gb


@vjp(np.float_power)
def float_power(g, y, a, b, out=None, **kwargs):
    ga = unbroadcast(strong_zero(g, g * b * np.float_power(a, b - 1)), a)
    gb = unbroadcast(_pow_exponent_cotangent(g, y, a), b)
    return ga, gb


# ---------------------------------------------------------------------------
# abs


@vjp(operator.abs, builtins.abs, np.absolute, np.fabs)
def absolute(g, y, a, out=None, **kwargs):
    """The derivative of |a| is taken as 0 at a == 0 (sign(0) = 0)."""
    return g * np.sign(a)


# ---------------------------------------------------------------------------
# builtins over sequences


def _sum_cotangent(g, items, start=0):
    """Cotangent of builtins.sum's iterable: each item gets g (unbroadcast to its shape);
    its piece of g where a list or tuple start made the sum a concatenation."""
    if type(start) is list or type(start) is tuple:
        return _concatenation_cotangent(g, items, start)
    kind = type(items)
    if kind is list:
        _refuse_own_addition(items, start)
        return [unbroadcast(g, x) for x in items]
    if kind is tuple:
        _refuse_own_addition(items, start)
        return tuple(unbroadcast(g, x) for x in items)
    if isinstance(items, np.ndarray):
        return np.broadcast_to(g, items.shape)
    read = _items_read(items)
    _refuse_own_addition(read, start)
    return read_cotangent([unbroadcast(g, x) for x in read], items)


def _refuse_own_addition(items, start) -> None:
    """sum(items, start) adds with Python's `+`: an item or start whose class defines its
    own `__add__`/`__radd__` (a user's vector class, an ndarray subclass with its own
    protocol) makes each step that method, which need not be addition, so "each item
    gets g" would be a guess.  Refused; the loop written out is differentiated."""
    for x in (start, *items):
        if type(x) not in _PLAIN_ADDENDS and not _adds_as_builtin(x):
            raise NotImplementedError(
                f"zygote_py: no derivative rule for sum() of {type(x).__name__} objects, "
                f"which add with their own __add__/__radd__; write the loop "
                f"(`total = start` then `total = total + item` for each item)")


_PLAIN_ADDENDS = frozenset((int, float, complex, bool, np.ndarray, np.float64, np.float32))


def _adds_as_builtin(x) -> bool:
    """x is a number or an array whose `+` is its base type's (a subclass that keeps it)."""
    if isinstance(x, np.generic):
        return True
    cls = type(x)
    for base in (np.ndarray, float, int, complex):
        if isinstance(x, base):
            return cls.__add__ is base.__add__ and cls.__radd__ is base.__radd__ and (
                base is not np.ndarray or cls.__array_ufunc__ is np.ndarray.__array_ufunc__)
    return False


@vjp(builtins.sum, math.fsum, diff=("iterable", "start"))
def sum_(g, y, iterable, start=0):
    """sum(xs) over a list/tuple gives a list/tuple cotangent; over an array, g per row;
    with a list or tuple start (`sum(rows, [])`), a concatenation: g split among them."""
    return _sum_cotangent(g, iterable, start), \
        None if isinstance(start, int) else _start_cotangent(g, start)


def _start_cotangent(g, start):
    """sum's start: g's first len(start) items for a concatenation, else g summed to it."""
    if type(start) is list or type(start) is tuple:
        return None if g is None else _piece(list(g), start, 0)
    return unbroadcast(g, start)


def _piece(parts, seq, offset):
    part = parts[offset:offset + len(seq)]
    return part if type(seq) is list else tuple(part)


def _concatenation_cotangent(g, iterable, start):
    """The items' cotangent of sum(items, start) that concatenated lists or tuples: each
    item's is g's next len(item) items after start's, in its own form."""
    if g is None:
        return None
    items = list(iterable) if type(iterable) in (list, tuple) else _items_read(iterable)
    parts = list(g)
    item_bars = []
    offset = len(start)
    for item in items:
        item_bars.append(_piece(parts, item, offset))
        offset += len(item)
    if type(iterable) is list or type(iterable) is tuple:
        return type(iterable)(item_bars)
    return read_cotangent(item_bars, iterable)


def _items_read(items):
    """The items a builtin read from a dict view or an iterator (from where it began)."""
    if isinstance(items, Items):
        return items.items[read_start(items):]
    return list(items)


def _position_of(items, y):
    """Index of the item min/max returned: by identity, else the first equal one."""
    for i, x in enumerate(items):
        if x is y:
            return i
    for i, x in enumerate(items):
        if x == y:
            return i
    return None


def _choice_cotangent(g, y, args):
    """Cotangent of builtins.min/max: all of g to the chosen item (the first on ties)."""
    if len(args) == 1:
        items = args[0]
        if isinstance(items, np.ndarray):
            z = np.zeros(items.shape, dtype=np.result_type(items.dtype, float))
            z[int(np.argmax(items == y))] = g
            return (z,)
        if type(items) not in (list, tuple):
            read = _items_read(items)
            out = [None] * len(read)
            i = _position_of(read, y)
            if i is not None:
                out[i] = g
            return (read_cotangent(out, items),)
        out = [None] * len(items)
        i = _position_of(items, y)
        if i is not None:
            out[i] = g
        return (out if type(items) is list else tuple(out),)
    out = [None] * len(args)
    i = _position_of(args, y)
    if i is not None:
        out[i] = g
    return tuple(out)


@vjp(builtins.max, diff=("args",), underived=("default",))
def max_(g, y, *args, key=None, default=None):
    """max(a, b, ...) or max(iterable): the cotangent is a tuple with one entry per
    positional argument; the chosen item gets all of g (the first one on ties, as
    Python's max itself returns the first maximal item)."""
    return _choice_cotangent(g, y, args)


@vjp(builtins.min, diff=("args",), underived=("default",))
def min_(g, y, *args, key=None, default=None):
    """Like max_: the item min returned (the first on ties) gets all of g."""
    return _choice_cotangent(g, y, args)


@vjp(builtins.float, diff=("x",))
def float_(g, y, x=0.0):
    """float(x): a float cotangent, or an array of x's shape for a size-1 array."""
    if isinstance(x, np.ndarray):
        return np.full(x.shape, g, dtype=x.dtype)
    return float(g)


def _sequence_cotangent(g, iterable):
    """Cotangent of list(xs) / tuple(xs): g (a list or tuple) in xs's own form."""
    kind = type(iterable)
    if kind is list:
        return list(g)
    if kind is tuple:
        return tuple(g)
    if isinstance(iterable, np.ndarray):
        sub = iterable.shape[1:]
        zero = np.zeros(sub, dtype=np.result_type(iterable.dtype, float))  # complex stays complex
        return np.stack([zero if gi is None else np.broadcast_to(gi, sub) for gi in g])
    return None if g is None else read_cotangent(list(g), iterable)


@vjp(builtins.list, builtins.tuple, diff=("iterable",))
def sequence(g, y, iterable=()):
    """list(xs) / tuple(xs) of a list, tuple or array: the cotangent takes xs's form."""
    return _sequence_cotangent(g, iterable)


# ---------------------------------------------------------------------------
# dict methods (the cotangent of a dict is a dict of the cotangents of its values)


def _dict_from_items(g, d, position):
    """{key: cotangent} from the per-item cotangents of iterating d.items() / d.values().

    g lists one cotangent per item in iteration order (None where none);
    for items() each is a (key, value) pair's cotangent, and position=1 picks
    the value's.
    """
    out = {}
    for key, gi in zip(d, g):
        if gi is not None and position is not None:
            refuse_key_cotangent(key, gi[0])  # the key's own: dropped, or refused
            gi = gi[position]
        if gi is not None:
            out[key] = gi
    return out


@vjp_method(dict, "items")
def dict_items(g, y, self):
    return _dict_from_items(g, self, 1)


@vjp_method(dict, "values")
def dict_values(g, y, self):
    return _dict_from_items(g, self, None)


@vjp_method(dict, "get", diff=("self", "default"))
def dict_get(g, y, self, key, default=None):
    """d.get(key, default): the entry's cotangent if the key is there, else default's."""
    if key in self:
        return {key: g}, None
    return None, g


@vjp_method(dict, "copy")
@vjp_method(list, "copy")
def container_copy(g, y, self):
    return g
