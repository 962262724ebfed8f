"""Functions whose lines end in ways the block finder must get right (read as text by
tests/frontend/test_source_blocks.py; the layout of this file is the subject)."""

import abc
import functools


def one_line(x): return x + 1.0


def trailing_pass(x):
    y = x * 2.0
    if y > 0:
        return y
    else:
        pass


def trailing_string(x):
    y = x * 3.0
    return y
    """a string after the return: no instruction"""


def dedented_continuation(x):
    return (x +
1.0)


def multi_line_string(x):
    s = """first
second"""
    return x * len(s)


@functools.cache
def decorated(x):
    return x * 4.0


class Holder(abc.ABC):
    @abc.abstractmethod
    def only_a_docstring(self):
        """Nothing but this: the body makes no instruction past its first line."""

    def method(self, x):
        def inner(z):
            return z * x
        return inner(x)   # a comment after


def with_nested_lambda(x):
    f = lambda t: (t *
                   2.0)
    return f(x)
    # a comment at the end, indented


def last_in_file(x):
    return x - 1.0
