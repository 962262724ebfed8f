"""Functions that update module-level lists and dicts in place by their names (claimed by
the function: runtime/outside_containers.py), for tests/aot/test_standalone_claims.py.

This module imports only NumPy: the tests import it in an interpreter where zygote_py
cannot be imported, next to the standalone modules written for it.  `reset()` puts every
global back to the state the tests start from."""

import numpy as np

LOG = []
CACHE = {}
ARRAYS = []


def reset():
    LOG[:] = [1.0, 2.0, 3.0]
    CACHE.clear()
    CACHE.update({"w": np.array([1.5, -0.5, 0.25]), "b": 2.0})
    ARRAYS[:] = [np.array([0.5, -1.0, 2.0])]


def state():
    """Copies of the globals, to compare."""
    return [list(LOG), dict(CACHE), [a.copy() for a in ARRAYS]]


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
    return total() * np.cos(x)  # inlined where it is called: reads the new items


def record(v, log):
    log.append(v * v)


def passes_the_list_on(x):
    LOG.append(x * 2.0)
    record(x, LOG)  # an argument there
    return sum(LOG) * x


def appends(x):
    LOG.append(np.exp(x))
    return sum(LOG) * x


def claims_in_a_called_function(x):
    return 2.0 * appends(x) * x


def array_items(x):
    before = np.sum(ARRAYS[0] * x)
    ARRAYS.append(np.sin(x) * x)
    ARRAYS.extend([x * x, np.exp(0.3 * x)])
    ARRAYS[0] = ARRAYS[0] * x
    last = ARRAYS.pop()
    return np.sum(sum(ARRAYS) * x) * before + np.sum(last * ARRAYS[1])


def writes_into_an_array_item(x):
    first = ARRAYS[0]
    first += x  # writes into the array the global list holds
    ARRAYS.append(first * x)
    return np.sum(ARRAYS[0] * ARRAYS[-1]) + np.sum(np.sin(first))


def every_dict_update(x):
    CACHE["s"] = np.sum(x ** 3)
    CACHE.update(t=x * CACHE["w"])
    CACHE["w"] = CACHE["w"] * np.cos(x)
    kept = CACHE.setdefault("u", x[0] * x[1])
    popped = CACHE.pop("b")
    CACHE["s"] += np.sum(x)
    return CACHE["s"] * np.sum(CACHE["t"] * CACHE["w"]) + kept ** 2 * popped


def record_global(v):
    LOG.append(v)


def records_twice_when_large(x):
    record_global(x * 2.0)  # record_global claims LOG in its first call ...
    if x > 1.0:
        record_global(x * x)  # ... and cannot claim it again in the same gradient call
    return x * x


def make_logger():
    history = []

    def logged(x):
        history.append(x * x)
        return sum(history) * x

    return logged


LOGGED = make_logger()


def calls_a_logger(x):
    return LOGGED(x) * 2.0  # the closure claims its captured list
