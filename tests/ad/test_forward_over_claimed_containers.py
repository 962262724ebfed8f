"""Forward mode over the gradient (zp.hessian, zp.hvp) of functions that update a
module-level or captured list or dict in place by name (`LOG.append(v)`: claimed by the
function, runtime/outside_containers.py).

Each column of a Hessian is one call of the gradient with a ledger of its own: it claims
the container afresh, starts from the container's state at the call, and the container
is left as one plain call of f leaves it.  Every Hessian and Hessian-vector product is
checked against central differences of zp.gradient (the container reset before each
evaluation: items that were there before the call are constants); what reverse mode
refuses, forward mode over it refuses in the same words."""

import copy
import gc

import numpy as np
import pytest

import zygote_py as zp

H = 1e-5
X = np.array([0.3, -0.7, 1.1])
V = np.array([0.2, 1.0, -0.4])


def central_hessian(f, x, reset):
    """Central differences of zp.gradient(f) at x, one column per element of x."""
    x = np.asarray(x, dtype=float)
    out = np.zeros(x.shape + x.shape)
    for index in np.ndindex(*x.shape):
        step = np.zeros(x.shape)
        step[index] = H
        reset()
        up = zp.gradient(f, x + step if x.shape else float(x + step))[0]
        reset()
        down = zp.gradient(f, x - step if x.shape else float(x - step))[0]
        out[(Ellipsis, *index)] = (np.asarray(up) - np.asarray(down)) / (2 * H)
    return out


def plain_state(f, x, reset, state):
    reset()
    f(x)
    return copy.deepcopy(state())


def same_state(got, want):
    """The same items, in the same order, of the same types, with the same bits."""
    assert type(got) is type(want), (got, want)
    if isinstance(want, dict):
        assert list(got) == list(want)
        for key in want:
            same_state(got[key], want[key])
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            same_state(g, w)
    elif isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and np.array_equal(got, want), (got, want)
    else:
        assert got == want, (got, want)


def check(f, x, reset, state):
    """zp.hessian and zp.hvp of f at x against central differences, and the container after
    each as a plain call leaves it."""
    want_state = plain_state(f, x, reset, state)
    reset()
    hessian = zp.hessian(f, x)
    same_state(state(), want_state)
    expected = central_hessian(f, x, reset)
    np.testing.assert_allclose(hessian, expected, rtol=1e-6, atol=1e-7)
    direction = V if np.shape(x) else 1.5
    reset()
    product = zp.hvp(f, x, direction)
    same_state(state(), want_state)
    np.testing.assert_allclose(product, expected @ direction if np.shape(x) else expected * 1.5,
                               rtol=1e-6, atol=1e-7)
    return hessian


# -- a module-level list, scalar and array arguments ---------------------------------------
LOG = []


def reset_log():
    LOG[:] = [1.0, 2.0, 3.0]


def every_list_update(x):
    before = sum(LOG) * x
    LOG[0] = x * 3.0
    LOG[1] += x * x
    LOG.insert(1, np.sin(x))
    LOG.remove(3.0)
    LOG.extend([x, 2.0 * x])
    first = LOG.pop(0)
    LOG.reverse()
    return sum(LOG) * first * before + LOG[-1] * x


def total():
    return sum(LOG)


def appends_in_a_loop_then_calls_a_reader(x):
    for _ in range(3):
        LOG.append(LOG[-1] * x)
    return total() * np.cos(x)  # inlined: reads the claimed list with its derivatives


def record(v, log):
    log.append(v * v)


def passes_the_list_on(x):
    LOG.append(x * 2.0)
    record(x, LOG)  # an argument there: its own pullback, differentiated forward
    return sum(LOG) * x


def appends(x):
    LOG.append(np.exp(x))
    return sum(LOG) * x


def claims_in_a_called_function(x):
    return 2.0 * appends(x) * x  # appends claims LOG in its own call


@pytest.mark.parametrize("f", [every_list_update, appends_in_a_loop_then_calls_a_reader,
                               passes_the_list_on, claims_in_a_called_function],
                         ids=lambda f: f.__name__)
def test_a_module_level_list(f):
    check(f, 0.7, reset_log, lambda: LOG)


ARRAYS = []


def reset_arrays():
    ARRAYS[:] = [np.array([0.5, -1.0, 2.0])]


def array_items(x):
    before = np.sum(ARRAYS[0] * x)
    ARRAYS.append(np.sin(x) * x)
    ARRAYS.extend([x * x, np.exp(0.3 * x)])
    ARRAYS[0] = ARRAYS[0] * x
    last = ARRAYS.pop()
    return np.sum(sum(ARRAYS) * x) * before + np.sum(last * ARRAYS[1])


def writes_into_an_array_item(x):
    first = ARRAYS[0]
    first += x  # writes into the array the global list holds: put back between columns
    ARRAYS.append(first * x)
    return np.sum(ARRAYS[0] * ARRAYS[-1]) + np.sum(np.sin(first))


@pytest.mark.parametrize("f", [array_items, writes_into_an_array_item], ids=lambda f: f.__name__)
def test_a_list_of_arrays_every_column_from_the_state_at_the_call(f):
    hessian = check(f, X, reset_arrays, lambda: ARRAYS)
    assert np.count_nonzero(np.abs(hessian) > 1e-3) >= 3  # (columns depend on the items before)


# -- a module-level dict -------------------------------------------------------------------
CACHE = {}


def reset_cache():
    CACHE.clear()
    CACHE.update({"w": np.array([1.5, -0.5, 0.25]), "b": 2.0})


def every_dict_update(x):
    CACHE["s"] = np.sum(x ** 3)
    CACHE.update(t=x * CACHE["w"])
    CACHE["w"] = CACHE["w"] * np.cos(x)
    kept = CACHE.setdefault("u", x[0] * x[1])
    popped = CACHE.pop("b")
    CACHE["s"] += np.sum(x)
    return CACHE["s"] * np.sum(CACHE["t"] * CACHE["w"]) + kept ** 2 * popped


def test_a_module_level_dict():
    check(every_dict_update, X, reset_cache, lambda: CACHE)


# -- a captured list -----------------------------------------------------------------------
def make_logger():
    history = []

    def logged(x):
        history.append(x * x)
        history.insert(0, np.cos(x))
        history[-1] = history[-1] * x
        return sum(history) * history[0]

    return logged


def test_a_captured_list():
    logged = make_logger()
    cell = logged.__closure__[0]

    def reset():
        cell.cell_contents[:] = [0.5]

    check(logged, 0.7, reset, lambda: cell.cell_contents)


# -- again and again: nothing is left holding the container -------------------------------
def passes_the_list_to_a_new_function(x):
    LOG.append(x * 3.0)
    record_square(x, LOG)
    return sum(LOG) * x


def record_square(v, log):
    log.append(v * v * 0.5)


def test_hessians_in_a_row_each_claim_the_list_afresh():
    """The first Hessian compiles forward the back function of record_square's pullback,
    made for that run, which holds the list (and is left as garbage in a cycle); a claim
    that finds more references than the name counts again once garbage is collected."""
    was_enabled = gc.isenabled()
    gc.disable()  # (the claim must not rely on the collector having run)
    try:
        values = []
        for _ in range(3):
            reset_log()
            values.append(zp.hessian(passes_the_list_to_a_new_function, 0.7))
            reset_log()
            values.append(zp.gradient(passes_the_list_to_a_new_function, 0.7)[0])
    finally:
        if was_enabled:
            gc.enable()
    assert values[0::2] == [values[0]] * 3 and values[1::2] == [values[1]] * 3
    assert values[0] == pytest.approx(6.0 + 3.0 * 0.7, rel=1e-12)  # d2/dx2 (6 + 3x + x^2/2) x
    reset_log()
    _, back = zp.pullback(passes_the_list_to_a_new_function, 0.7)
    reset_log()
    with pytest.raises(zp.MutationError, match="also held by something else"):
        zp.hessian(passes_the_list_to_a_new_function, 0.7)  # a pullback kept holds it
    del back


# -- what reverse mode refuses is refused ---------------------------------------------------
def record_global(v):
    LOG.append(v)


def records_twice(x):
    record_global(x)
    record_global(x * x)
    return x


READERS = [total]


def appends_then_calls_a_reader_held_in_a_list(x):
    LOG.append(x * 2.0)
    return READERS[0]() * x  # compiled on its own: it would miss the new item's derivative


@pytest.mark.parametrize("f, match", [
    (records_twice, "already updated with derivatives earlier"),
    (appends_then_calls_a_reader_held_in_a_list, "ran without derivatives"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_what_reverse_mode_refuses_is_refused(f, match):
    reset_log()
    with pytest.raises(zp.MutationError, match=match):
        zp.gradient(f, 0.7)
    reset_log()
    with pytest.raises(zp.MutationError, match=match):
        zp.hessian(f, 0.7)


class Accumulator:
    def add(self, x):
        LOG.append(x * x)
        return sum(LOG) * x


ACCUMULATOR = Accumulator()


def appends_in_a_method(x):
    return ACCUMULATOR.add(x) * 2.0  # resolved while the gradient runs


def test_a_method_that_claims_is_followed_under_hessians():
    """Forward mode over a call the gradient resolves while running runs it once (the
    hesswrite branch: forward mode runs the callee's pullback program itself), so the
    method claims the list once per column, from the state at the call."""
    reset_log()
    assert zp.gradient(appends_in_a_method, 0.7)[0] == pytest.approx(2 * (6.0 + 3 * 0.49))
    reset_log()
    H = zp.hessian(appends_in_a_method, 0.7)
    after = list(LOG)
    reset_log()
    appends_in_a_method(0.7)
    assert after == LOG  # what one plain call leaves

    def gradient_at(x):
        reset_log()
        return zp.gradient(appends_in_a_method, x)[0]

    h = 1e-6
    assert H == pytest.approx((gradient_at(0.7 + h) - gradient_at(0.7 - h)) / (2 * h), rel=1e-6)