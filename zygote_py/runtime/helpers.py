"""Helpers the generated code and the rule bodies call while running.

Everything here is on the hot path of a gradient, so each function takes the
cheap branch first (same shape, `None`) and allocates only when it must.
`None` is the zero cotangent everywhere: accumulation treats it as identity.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import KeysView

import numpy as np

from ..errors import ZygoteError
from ..tree import accumulate, zeros_like
from .containers import refuse_key_cotangent
from .iterators import Items, read_start

_ndarray = np.ndarray
_float64 = np.float64


def pure(fn):
    """Mark a helper as free of effects: dead-code removal may drop a call of it whose
    result nothing reads (analysis/purity.py).  Only for helpers that neither write into
    an argument nor raise on purpose (check_scalar raises; accum_index writes)."""
    fn._zp_pure = True
    return fn


@pure
def shape_of(x):
    """The NumPy shape of x without converting it (() for Python scalars)."""
    shape = getattr(x, "shape", None)
    if shape is not None:
        return shape
    return np.shape(x)


class ArrayShape:
    """What the shape-reading helpers (unbroadcast, expand_reduced, reduced_size,
    like_input, index cotangents) read of an array: its shape, dtype and ndim.

    The forward saves one in place of an array that the adjoint reads only through those
    helpers (ad/reverse/calls.py), so a loop's tape does not keep the array alive."""

    __slots__ = ("dtype", "ndim", "shape")

    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype
        self.ndim = len(shape)

    def __repr__(self):
        return f"ArrayShape({self.shape}, {self.dtype})"


@pure
def array_shape(x):
    """x's ArrayShape when x is exactly an ndarray; anything else is returned as it is
    (a number, a list, a subclass of ndarray), so the helpers see what they always saw."""
    if type(x) is _ndarray:
        return ArrayShape(x.shape, x.dtype)
    return x


def _nested_like(ga, x):
    """An array cotangent in the form of the (nested) list or tuple x it belongs to."""
    if isinstance(x, (list, tuple)):
        items = [_nested_like(ga[i], item) for i, item in enumerate(x)]
        return items if type(x) is list else tuple(items)
    if isinstance(x, np.ndarray):
        return ga
    return float(np.real(ga)) if isinstance(x, (float, int, bool)) else ga


@pure
def unbroadcast(g, x):
    """Sum the cotangent g down to the shape of the primal x (undoing broadcasting)."""
    if g is None:
        return None
    if (type(g) is _float64 or type(g) is float) and (type(x) is _float64 or type(x) is float):
        return g  # two scalars: nothing was broadcast (the element-by-element loops' case)
    gshape = getattr(g, "shape", ())
    xshape = getattr(x, "shape", None)
    if xshape is None:
        if type(x) in (float, int, bool, complex):
            xshape = ()
        elif isinstance(x, (list, tuple)) and not isinstance(g, (list, tuple)):
            # NumPy took the list as an array (`array * list`): the cotangent in its form
            return _nested_like(unbroadcast(g, np.asarray(x)), x)
        elif isinstance(x, (list, tuple)):
            raise TypeError("zygote_py: + or * of a list/tuple whose type is only known at run time "
                            "(a parameter); convert it with np.asarray, or build it in the function")
        else:
            xshape = np.shape(x)
    if gshape == xshape:
        return g
    if not xshape and type(g) is _ndarray:
        # a number's cotangent from an array (`c * u`): its sum, by the reduction np.sum
        # itself calls, without np.sum's Python layers (a few us in a stepping loop)
        return np.add.reduce(g, axis=tuple(range(g.ndim)))
    extra = len(gshape) - len(xshape)
    if extra < 0:  # g has fewer axes than x (a Python float against an array): broadcast it up
        return np.broadcast_to(g, xshape)
    if extra > 0:
        # (np.sum of an exact ndarray is this reduction, behind two Python layers)
        g = np.add.reduce(g, axis=tuple(range(extra))) if type(g) is _ndarray \
            else np.sum(g, axis=tuple(range(extra)))
    axes = tuple([i for i, n in enumerate(xshape) if n == 1 and g.shape[i] != 1])
    if axes:
        g = _sum_kept(g, axes)
    if g.shape != xshape:  # e.g. g was a scalar and x is an array
        g = np.broadcast_to(g, xshape)
    return g


def _sum_kept(g, axes):
    """np.sum(g, axis=axes, keepdims=True) for unbroadcast's sorted axes.

    Where the summed axes are one run with kept axes on both sides (N-body's pairwise
    differences, (32, 32, 3) summed over the middle axis), NumPy's reduction walks memory
    in short strides: 17 us there, against 3 us for the same sum as a product with a
    vector of ones (one batched matrix product).  Float arrays laid out in order only;
    the sums may differ from np.sum's in the last bits (another order of additions)."""
    first, last = axes[0], axes[-1]
    if type(g) is _ndarray and 0 < first and last < g.ndim - 1 and last - first + 1 == len(axes) \
            and g.dtype.kind == "f" and g.dtype.itemsize in (4, 8) and g.size >= 256 \
            and g.flags.c_contiguous:
        shape = g.shape
        run = math.prod(shape[first:last + 1])
        folded = g.reshape(math.prod(shape[:first]), run, math.prod(shape[last + 1:]))
        summed = np.matmul(np.ones(run, dtype=g.dtype), folded)
        return summed.reshape(shape[:first] + (1,) * len(axes) + shape[last + 1:])
    if type(g) is _ndarray:
        return np.add.reduce(g, axis=axes, keepdims=True)  # np.sum's own reduction
    return np.sum(g, axis=axes, keepdims=True)


def normalize_axis(axis, ndim):
    """A reduction's axis argument as a sorted tuple of non-negative ints."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(sorted(a % ndim if ndim else 0 for a in axis))
    return (axis % ndim if ndim else 0,)


@pure
def expand_reduced(g, x, axis=None, keepdims=False):
    """Broadcast the cotangent of a reduction of x back over the reduced axes."""
    xshape = shape_of(x)
    if not keepdims and axis is not None:
        g = np.expand_dims(g, normalize_axis(axis, len(xshape)))
    return np.broadcast_to(g, xshape)


@pure
def reduced_size(x, axis=None):
    """How many elements of x each output of a reduction over axis combines."""
    xshape = shape_of(x)
    n = 1
    for a in normalize_axis(axis, len(xshape)):
        n *= xshape[a]
    return n


def degrees_of_freedom(x, axis=None, ddof=0, correction=None):
    """The divisor of np.var/np.std over axis, as NumPy takes it: the count less ddof (or
    correction), never below 0, as a NumPy float so that dividing by 0 gives inf or nan,
    as NumPy's own value does, not a ZeroDivisionError."""
    removed = ddof if correction is None else correction
    dtype = getattr(x, "dtype", None)
    real = np.finfo(dtype).dtype.type if dtype is not None and dtype.kind in "fc" else np.float64
    return real(max(reduced_size(x, axis) - removed, 0))  # float32 data keeps float32


def zero_spread(spread, x, axis=None):
    """Where the standard deviation `spread` (reduced axes kept) of x over axis is zero up
    to rounding: the deviations from the mean there are rounding noise (a lane of equal
    values gives a spread of about eps |x|, not 0), and dividing them by the spread
    would make a cotangent of noise; np.std's rule takes the subgradient 0 there."""
    x = np.asarray(x)
    if x.size == 0:
        return np.asarray(spread) == 0
    scale = np.max(np.abs(x), axis=axis, keepdims=True)
    eps = np.finfo(np.result_type(x.dtype, np.float64) if x.dtype.kind not in "fc" else x.dtype).eps
    return np.asarray(spread) <= 8.0 * eps * scale


# -- the strong zero: a zero cotangent contributes exactly zero ----------------------------
#
# A rule multiplies its cotangent g by a local partial; where the forward overflowed or sat
# on a singularity (np.exp of 1e3, np.log(0), np.sqrt(0), x / 0) the partial is inf and
# 0 * inf is nan, although a zero cotangent (np.where's side not selected, a saturated
# tanh) says the output does not depend on that value at all: finite differences give 0.
# Rules whose partial can be non-finite pass their product through `strong_zero`, which
# costs one nan test on the product when it is finite (the common case) and only on the
# non-finite path looks at g.

_PLAIN_FLOATS = (float, np.float64)
_isnan = math.isnan
_isfinite = math.isfinite


def _nonzero_everywhere(g):
    """Whether the cotangent g has no zero entry, found more cheaply than strong_zero's
    pass over its product: g is a nonzero number, or an array broadcast along some axes
    (stride 0: a reduction's cotangent spread back over what it reduced), whose distinct
    entries are checked instead of all of them.  False means "not known", never "has a
    zero".  (nan is not 0: a nan cotangent keeps r, as the general path does.)"""
    kind = type(g)
    if kind is float or kind is _float64 or kind is int:
        return g != 0
    if kind is _ndarray and g.size and 0 in g.strides and g.dtype.kind in "fc":
        distinct = g[tuple(0 if stride == 0 else slice(None) for stride in g.strides)]
        return bool(distinct.all()) if type(distinct) is _ndarray else distinct != 0
    return False


@pure
def strong_zero(g, r):
    """r (= g times a local partial), with 0 wherever g is exactly 0.

    Only entries that came out nan can differ (0 * inf, 0 / 0), so a product without
    nan is returned as it is after one test.  g may be smaller than r (a scalar
    cotangent against an array partial): NumPy broadcasting lines them up."""
    kind = type(r)
    if kind in _PLAIN_FLOATS:
        if g != 0 or not _isnan(r):
            return r
        return kind(0.0)
    if kind is _ndarray:
        if _nonzero_everywhere(g):
            return r  # only entries where g is 0 can change: none, so no pass over r
        if r.dtype.kind == "f" and r.size:
            low = np.minimum.reduce(r, axis=None)  # nan if any entry is nan: one pass, no copy
            if not _isnan(low):
                return r
        elif not (r.dtype.kind == "c" and np.isnan(r).any()):
            return r
        return np.where(np.asarray(g) == 0, np.zeros((), r.dtype), r)
    if r is None or g is None or kind is int or kind is bool:
        return r
    if not isinstance(r, (complex, np.generic, np.ndarray)):
        return r  # a user's object (its own __mul__): nothing NumPy can test
    values = np.asarray(r)  # other scalars (complex, float32, 0-d) and array subclasses
    if not np.isnan(values).any():
        return r
    fixed = np.where(np.asarray(g) == 0, np.zeros((), values.dtype), values)
    if isinstance(r, np.ndarray):
        return fixed
    return complex(fixed) if kind is complex else fixed[()]


@pure
def strong_times(g, p):
    """g * p with the strong zero in g: `strong_zero(g, g * p)` in one call, so that g is
    read once and the generated code can write `strong_times(x_dot * c, b)` as one
    expression (forward mode's products; an array temporary less than naming g)."""
    kind = type(p)
    if kind is int or (kind is float or kind is _float64) and _isfinite(p):
        # a finite number: g * p is nan only where g is (0 * p is 0), and a nan g is not
        # 0, so the strong zero would keep every entry; no pass over the product
        return g * p
    return strong_zero(g, g * p)


@pure
def summed_strong_times(g, p, x):
    """`unbroadcast(strong_times(g, p), x)` in one call (codegen/fuse.py joins the two): the
    cotangent of a number x from a product with an array, `c * u`'s c.

    Where x is a number and g, p are float64 arrays of one shape laid out in order, the
    sum of g * p is their dot product, one BLAS pass and no product array.  When that sum
    is not nan, no term g_i * p_i is nan, so the strong zero changes nothing and the sum
    is the answer (its last bits may differ from NumPy's pairwise sum of g * p).  A nan
    sum, or any other operands, take the two calls' own path."""
    kind = type(x)
    if kind is float or kind is _float64 or kind is int:
        if type(g) is _ndarray:
            if type(p) is _ndarray and g.dtype.type is _float64 and p.dtype.type is _float64 \
                    and g.shape == p.shape:
                if g.ndim == 1:
                    total = g.dot(p)
                elif g.flags.c_contiguous and p.flags.c_contiguous:
                    total = g.reshape(-1).dot(p.reshape(-1))
                else:
                    total = None
                if total is not None and not _isnan(total):
                    return total
        elif type(g) in _PLAIN_FLOATS and type(p) in _PLAIN_FLOATS:
            # three numbers (a loop over items): strong_zero's and unbroadcast's first lines
            r = g * p
            return r if g != 0 or not _isnan(r) else type(r)(0.0)
    r = g * p  # strong_times' own lines, without its call
    kind = type(p)
    if not (kind is int or (kind is float or kind is _float64) and _isfinite(p)):
        r = strong_zero(g, r)
    return unbroadcast(r, x)


@pure
def strong_zero_kept(h, g, r):
    """The cotangent (or tangent) h of r moved through `strong_zero(g, r)`: h where the
    entry was kept, 0 where the strong zero replaced a nan (it is constant there)."""
    if h is None:
        return None
    if type(r) in _PLAIN_FLOATS and type(h) in _PLAIN_FLOATS:
        return h if (g != 0 or not _isnan(r)) else type(h)(0.0)
    if _nonzero_everywhere(g):
        return h  # every entry was kept
    nan = np.isnan(r)
    if not np.any(nan):
        return h
    zeroed = nan & (np.asarray(g) == 0)
    return np.where(zeroed, np.zeros((), np.result_type(h)), h)


@pure
def zeros_if_none(g, x):
    """g, or zeros shaped like the primal x when g is None (a loop needs a value)."""
    if g is not None:
        return g
    return zeros_like(x)


def flag_function(fn, name: str, value):
    """`back._zp_effects = True` in pullback code that is differentiated again (nested
    derivatives; frontend/lower_objects.py lowers it to this call, registered as
    non-differentiable): a flag on a function the code just made, set directly."""
    setattr(fn, name, value)


class UNBOUND:
    """The value generated code passes for a captured variable that is unassigned on the
    path taken (bound under an `if` that did not run): make_closure gives it an empty cell,
    so the nested function fails as Python's would, only if it reads the variable.  (A
    class, never instantiated: a marker that standalone modules copy like any helper.)"""


def make_closure(code, module_globals, captured, defaults=(), kwdefaults=None):
    """A nested function as a value: its code over fresh cells holding the captured values
    (an empty cell for UNBOUND)."""
    import types

    cells = tuple(types.CellType() if v is UNBOUND else types.CellType(v) for v in captured)
    fn = types.FunctionType(code, module_globals, code.co_name, tuple(defaults) or None, cells)
    if kwdefaults:
        fn.__kwdefaults__ = dict(kwdefaults)
    return fn


# -- cotangents of containers ---------------------------------------------------
@pure
def item_cotangent(g, key):
    """The cotangent of one element of a tuple/list/dict whose cotangent is g."""
    if g is None:
        return None
    if type(g) is dict:
        return g.get(key)
    return g[key]


@pure
def unpack_cotangent(x, parts, star):
    """The cotangent of x from those of the targets of `a, *b, c = x`."""
    if all(p is None for p in parts):
        return None
    if star is not None:
        starred = parts[star]
        n_star = len(x) - (len(parts) - 1)
        starred = list(starred) if starred is not None else [None] * n_star
        parts = [*parts[:star], *starred, *parts[star + 1:]]
    if isinstance(x, _ndarray):
        return np.stack([zeros_if_none(p, x[i]) for i, p in enumerate(parts)])
    if isinstance(x, list):
        return list(parts)
    return tuple(parts)


@pure
def split_last(g):
    """(cotangent of the list before append, cotangent of the appended item)."""
    if g is None:
        return None, None
    return g[:-1], g[-1]


@pure
def split_tail(g, items):
    """(cotangent of the list before extend, cotangent of the items it was extended by)."""
    if g is None:
        return None, None
    if isinstance(items, Items):  # the items extend read, from where it began reading
        start = read_start(items)
        n = len(items.items) - start
        head, tail = g[:len(g) - n], list(g[len(g) - n:])
        return head, [None] * start + tail
    n = len(items)
    head, tail = g[:len(g) - n], g[len(g) - n:]
    if isinstance(items, _ndarray):
        tail = np.stack([zeros_if_none(t, items[i]) for i, t in enumerate(tail)]) if n else None
    elif isinstance(items, tuple):
        tail = tuple(tail)
    return head, tail


@pure
def split_key(g, key):
    """(cotangent of the dict before d[key] = v, cotangent of v)."""
    if g is None or key not in g:
        return g, None
    rest = dict(g)
    return rest, rest.pop(key)


def accum_owned(acc, g):
    """acc + g for a loop's accumulator that the adjoint owns (ad/reverse/adjoint.py:
    add_loop_slot): it starts as None, the first cotangent is copied into an array of its
    own, and later ones are added into that array in place, so a loop that reads a weight
    every step does not allocate a fresh sum of the weight's size every step.  Anything
    but an ndarray, and a sum that would change its dtype or shape, goes through accum."""
    if g is None:
        return acc
    if acc is None:
        return g.copy(order="K") if type(g) is _ndarray else g  # (a transpose stays one: fast adds)
    # (plain comparisons, no np.broadcast_shapes or np.result_type: this runs every step)
    owned = type(acc) is _ndarray
    same = owned and type(g) is _ndarray and g.shape == acc.shape and g.dtype == acc.dtype
    if same or owned and type(g) is float and acc.dtype.kind in "fc":
        np.add(acc, g, out=acc)
        return acc
    return accum(acc, g)


def accum_index(acc, seq, i, g, reverse=False):
    """Add g into the cotangent accumulator of seq at item i, in place (acc is owned).

    acc is created here on first use and only ever touched by this function,
    so writing into it cannot disturb any other value.
    """
    if g is None:
        return acc
    if type(i) is int and type(acc) is _ndarray and type(seq) is _ndarray and not reverse \
            and (type(g) is _float64 or type(g) is float) and acc.dtype.kind == "f":
        # the fill loop's case (`x[i]` of a float array, a real float): added in place, as below
        acc[i] += g
        return acc
    if isinstance(seq, Items):  # a loop over an iterator it did not make: from where it was read
        i += read_start(seq)
        seq = seq.items
    if reverse:
        i = len(seq) - 1 - i
    if isinstance(seq, _ndarray):
        if acc is None:
            acc = np.zeros(seq.shape, dtype=np.result_type(seq.dtype, np.float64))
        if acc.dtype.kind == "f" and (type(g) is complex or getattr(g, "dtype", acc.dtype).kind == "c"):
            g = np.real(g)  # a real array's cotangent is the real part (docs/complex.md)
        if _is_basic_index(i):
            acc[i] += g
        else:  # integer arrays and masks: repeated indices must add up
            np.add.at(acc, i, g)
        return acc
    if type(seq) is dict:
        acc = {} if acc is None else acc
        acc[i] = accum(acc.get(i), g)
        return acc
    if acc is None:
        if not hasattr(type(seq), "__len__"):
            _refuse_iterated_object(seq)
        acc = [None] * len(seq)
    if type(i) is slice:
        for j, gj in zip(range(len(seq))[i], g):
            acc[j] = accum(acc[j], gj)
    else:
        acc[i] = accum(acc[i], g)
    return acc


def accum_item(acc, seq, i, g, reverse=False):
    """A loop's accumulation of the cotangent g of its item i into its iterable's (as
    accum_index, whose accumulator it shares with the loop's index reads `seq[k]`): the items
    of a dict, or of its keys view, are its keys, whose cotangents are not the values' (added
    to the value at that position they were a wrong gradient: `for k in d: s += k * d[k]`);
    they are dropped, or refused for a float key (containers.refuse_key_cotangent)."""
    if isinstance(seq, (dict, KeysView)):
        if g is not None:
            keys = reversed(seq) if reverse else iter(seq)
            refuse_key_cotangent(next(itertools.islice(keys, i, None)), g)
        return acc
    return accum_index(acc, seq, i, g, reverse)


def _refuse_iterated_object(seq):
    """A for loop iterated an object of a user class through its own __iter__, which runs
    as plain Python: where its items went inside the object is not known."""
    raise ZygoteError(f"cannot send a derivative back through a {type(seq).__name__} that a "
                      "for loop iterated (its __iter__ runs untransformed, so where each item "
                      "came from inside it is not known)", None,
                      "iterate over the list, tuple or array the object holds")


def owned_copy(g):
    """A private copy of the cotangent g of a real float array, which the backward loop it
    enters then writes into in place (ad/reverse/writes.py: _owns_loop_cotangent).  A
    complex g (a pullback's complex seed) gives its real part, a real array's cotangent
    (docs/complex.md), as undo_write_split's callers would take it."""
    if type(g) is not _ndarray:
        return g
    return g.real.copy() if g.dtype.kind == "c" else g.copy()


def owned_accumulator(g, like):
    """A private array holding the cotangent g of the array like, which the backward loop
    it enters then adds into and zeroes in place (ad/reverse/owned_slots.py): like's
    shape, in the dtype that g plus a cotangent of like has (accum's), zeros for None,
    and always a fresh array, even where g has that shape and dtype already."""
    shape, dtype = like.shape, like.dtype
    if g is None:
        return np.zeros(shape, dtype)
    if type(g) is _ndarray and g.shape == shape and g.dtype == dtype:
        return g.copy()
    out = np.empty(shape, np.result_type(g, dtype))
    np.copyto(out, g)  # (g broadcast as accum would add it; NumPy's error where it cannot)
    return out


def index_accumulator(seq):
    """Zeros for the item cotangents of the real float array seq, of the dtype accum_index
    gives them: allocated once before a loop whose reads `seq[i]` add into it inline
    (add_into_item, ad/reverse/calls.py: index_into_outer)."""
    return np.zeros(seq.shape, dtype=np.result_type(seq.dtype, np.float64))


def add_into_item(acc, index, g) -> None:
    """`acc[index] += g`: what accum_index does for a real float accumulator, a basic index
    and a real cotangent g that is not None, written by the generated code as that
    statement (codegen/emit.py).  acc is an accumulator the adjoint owns
    (index_accumulator)."""
    acc[index] += g


def add_real_into_item(acc, index, g) -> None:
    """`acc[index] += g.real`: add_into_item where g may be complex (a pullback's complex
    seed makes it so): a real array's cotangent is the real part (docs/complex.md), as
    accum_index takes it."""
    acc[index] += g.real


def subtract_from_item(acc, index, g) -> None:
    """`acc[index] -= g`: add_into_item of -g (a difference's cotangent, `-g * 2`), the same
    numbers (a - b is a + (-b), and (-x) * k is -(x * k)) with one array operation less
    (ad/reverse/owned_slots.py)."""
    acc[index] -= g


add_into_item._zp_writes = add_real_into_item._zp_writes = True  # pending expressions first
subtract_from_item._zp_writes = True
add_into_item._zp_add_store = "plain"  # written as `acc[index] += g`
add_real_into_item._zp_add_store = "real"  # written as `acc[index] += g.real`
subtract_from_item._zp_add_store = "minus"  # written as `acc[index] -= g`


def _is_basic_index(index) -> bool:
    parts = index if type(index) is tuple else (index,)
    return all(p is None or p is Ellipsis or type(p) in (int, slice) or isinstance(p, np.integer)
               for p in parts)


@pure
def accum(a, b):
    """a + b where either may be None (zero), and structures add child by child
    (tree.accumulate; two arrays or two floats are added here, without a call)."""
    if a is None:
        return b
    if b is None:
        return a
    kind = type(a)
    if (kind is _ndarray or kind is float or kind is _float64) and type(b) is not list \
            and type(b) is not tuple:
        return a + b  # (tree.accumulate's own answer for these, without the call)
    # structures, and a list's cotangent met in two forms (an array from a NumPy rule, a
    # list with None items from an item read): tree.accumulate adds them item by item
    return accumulate(a, b)


def check_scalar(y, loc):
    """The seed cotangent 1.0 for a real scalar output (ones for a one-element real
    array); NonScalarOutput otherwise."""
    if type(y) is float:
        return 1.0
    if isinstance(y, (np.floating, np.integer, int)) and not isinstance(y, bool):
        return 1.0
    if isinstance(y, _ndarray) and y.shape == () and y.dtype.kind in "fiu":
        return 1.0
    if isinstance(y, _ndarray) and y.size == 1 and y.dtype.kind in "fiu":
        # a one-element array (shape (1,), (1, 1)) is a scalar loss, as autograd takes it
        return np.ones_like(y, dtype=y.dtype if y.dtype.kind == "f" else np.float64)
    from ..errors import NonScalarOutput

    if isinstance(y, (complex, np.complexfloating)) or (isinstance(y, _ndarray) and y.dtype.kind == "c"):
        raise NonScalarOutput("gradient needs a real scalar output, but the function returned a "
                              f"complex value ({y!r})", loc,
                              "return the real part, abs(...), or a real loss built from it")
    shape = getattr(y, "shape", None)
    what = f"an array of shape {shape}" if shape is not None else f"a {type(y).__name__}"
    raise NonScalarOutput(f"gradient needs a real scalar output, but the function returned {what}",
                          loc, "use zp.jacobian(f, ...) for every output's gradient, or "
                          "zp.pullback(f, ...) to pull back a cotangent of your choice; "
                          "or reduce the output (np.sum, np.mean) to a scalar loss")
