"""Functions with `with zp.no_grad():` blocks, and the same computations written with
zp.stop_gradient around every value the block computes: the two must have the same
gradient (tests/frontend/test_with_no_grad.py)."""

import numpy as np

import zygote_py as zp
from zygote_py import no_grad

sg = zp.stop_gradient


def scale(v):
    return v * 2.0


class Affine:
    def __init__(self, W):
        self.W = W

    def apply(self, x):
        return self.W @ x


def straight(x, w):
    with zp.no_grad():
        s = np.sum(x * w)
        t = x  # a name bound to an outer value keeps its derivative
    return s * np.sum(x * w) + np.sum(t * t)


def straight_ref(x, w):
    s = sg(np.sum(x * w))
    return s * np.sum(x * w) + np.sum(x * x)


def loop_inside(x, w):
    acc = x
    with no_grad():
        for i in range(3):
            acc = acc * w + i
    return np.sum(acc * x)


def loop_inside_ref(x, w):
    acc = x
    for i in range(3):
        acc = sg(acc * w + i)
    return np.sum(acc * x)


def loop_with_no_iterations(x, w):
    acc = x
    with no_grad():
        for _ in range(0):
            acc = acc * w
    return np.sum(acc * x)  # nothing ran untracked: acc is x itself


def loop_with_no_iterations_ref(x, w):
    return np.sum(x * x)


def inside_loop(x, w):
    h = x
    for _ in range(3):
        h = np.tanh(h * w)
        with zp.no_grad():
            m = np.mean(h)
        h = h - m
    return np.sum(h ** 2)


def inside_loop_ref(x, w):
    h = x
    for _ in range(3):
        h = np.tanh(h * w)
        h = h - sg(np.mean(h))
    return np.sum(h ** 2)


def branch_inside(x, w):
    y = x * w
    with zp.no_grad():
        if np.sum(x) > 0:
            y = y * 3.0
    return np.sum(y * x)


def branch_inside_ref(x, w):
    y = x * w
    if np.sum(x) > 0:
        y = sg(y * 3.0)
    return np.sum(y * x)


def early_return(x, w):
    with zp.no_grad():
        if np.sum(w) > -100:
            return np.sum(x * w) * np.sum(x)
    return np.sum(x)


def early_return_ref(x, w):
    return sg(np.sum(x * w) * np.sum(x))


def helpers_methods_comprehensions(x, w):
    model = Affine(np.outer(w, w))
    with zp.no_grad():
        a = scale(x)  # a module function
        b = model.apply(x)  # a method
        c = [v * v for v in x]  # a comprehension
        d = (lambda v: v * w)(x)  # a lambda, inlined
        e = x.T  # an attribute
        f = x[0]  # an item
    return np.sum(a * x) + np.sum(b * w) + sum(c) * np.sum(x) + np.sum(d * x) + np.sum(e * w) + f * x[1]


def helpers_methods_comprehensions_ref(x, w):
    model = Affine(np.outer(w, w))
    a = sg(scale(x))
    b = sg(model.apply(x))
    c = [sg(v * v) for v in x]
    d = sg(x * w)
    return np.sum(a * x) + np.sum(b * w) + sum(c) * np.sum(x) + np.sum(d * x) + np.sum(sg(x.T) * w) + sg(x[0]) * x[1]


def augmented_and_nested(x, w):
    y = x * 1.0
    with zp.no_grad():
        y += w  # rebinds y to an untracked value
        with zp.no_grad():
            z = y * y
    return np.sum(y * x) + np.sum(z * w)


def augmented_and_nested_ref(x, w):
    y = sg(x * 1.0 + w)
    return np.sum(y * x) + np.sum(sg(y * y) * w)


def appends_to_an_outer_list(x, w):
    items = [x * w]
    with zp.no_grad():
        items.append(x * x)  # an untracked item; the list's earlier item keeps its derivative
    return np.sum(items[0] * x) + np.sum(items[1] * w)


def appends_to_an_outer_list_ref(x, w):
    return np.sum(x * w * x) + np.sum(sg(x * x) * w)


CASES = [
    (straight, straight_ref), (loop_inside, loop_inside_ref),
    (loop_with_no_iterations, loop_with_no_iterations_ref), (inside_loop, inside_loop_ref),
    (branch_inside, branch_inside_ref), (early_return, early_return_ref),
    (helpers_methods_comprehensions, helpers_methods_comprehensions_ref),
    (augmented_and_nested, augmented_and_nested_ref),
    (appends_to_an_outer_list, appends_to_an_outer_list_ref),
]


def while_break_and_iterators(x, w):
    y = x * 1.0
    with zp.no_grad():
        k = 0
        while np.sum(y) < 10 and k < 5:
            y = y * 2.0 + w
            k += 1
            if k > 3:
                break
        for i, (a, b) in enumerate(zip(x, w)):
            y = y + a * b * i
    return np.sum(y * x) + k


def while_break_and_iterators_ref(x, w):
    y = x * 1.0
    k = 0
    while np.sum(y) < 10 and k < 5:
        y = sg(y * 2.0 + w)
        k += 1
        if k > 3:
            break
    for i, (a, b) in enumerate(zip(x, w)):
        y = sg(y + a * b * i)
    return np.sum(y * x) + k


CASES.append((while_break_and_iterators, while_break_and_iterators_ref))


# -- writes and no_grad (frontend/lower_writes.py: AliasClass.untracked) -------------


def write_through_untracked_view(x, w):
    x = x * 1.0
    with zp.no_grad():
        y = x[0:2]
    y[0] = 5.0  # would drop x[1]'s derivative through y: refused
    return np.sum(x * w)


def fill_untracked_buffer(x, w):
    with zp.no_grad():
        buf = np.zeros(3)
    buf[0] = x[0] * w[1]
    buf[1:] = x[1:]
    return np.sum(buf * buf)


def fill_buffer_ref(x, w):
    return (x[0] * w[1]) ** 2 + np.sum(x[1:] ** 2)
