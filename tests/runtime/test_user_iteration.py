"""Objects of a user class iterated through their own __iter__ (which runs untransformed):
a derivative that would have to pass through one is refused at the user's line, in
both modes -- never a zero tangent (forward mode once gave 0.0 for `next(iter(seq))`),
never an internal TypeError (the for loop's adjoint once took `len(seq)`)."""

import pytest

import zygote_py as zp


class Seq:
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter(self.items)

    def __len__(self):
        return len(self.items)


class Stream:  # no __len__
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter(self.items)


def loop_over_stream(x):
    s = 0.0
    for v in Stream([x, 2.0 * x]):
        s = s + v
    return s


def generator_over_stream(x):
    return sum(v for v in Stream([x, 2.0 * x]))


def second_by_next(x):
    it = iter(Seq([x, 2.0 * x]))
    next(it)
    return next(it)


def zipped(x):
    return sum(zip(Stream([x, 2.0 * x]), [1.0, 2.0]), ())[2]


def unpacked(x):
    a, b = Stream([x, 2.0 * x])
    return b


def summed(x):
    return sum(Stream([x, 2.0 * x]))


def loop_over_argument(x, s):
    return sum(v * x for v in s)


@pytest.mark.parametrize("f", [loop_over_stream, generator_over_stream, second_by_next, unpacked,
                               summed])
def test_reverse_refuses_at_the_user_line(f):
    with pytest.raises(zp.ZygoteError) as info:
        zp.gradient(f, 1.5)
    assert info.value.loc is not None and info.value.loc.filename == __file__
    assert "Stream" in str(info.value) or "Seq" in str(info.value)


def test_reverse_refuses_an_argument_object_whose_items_get_a_derivative():
    with pytest.raises(zp.ZygoteError, match="Stream that a for loop iterated") as info:
        zp.gradient(loop_over_argument, 1.5, Stream([1.0, 2.0]))
    assert info.value.loc is not None and info.value.loc.line > 0


def test_an_inactive_object_argument_is_iterated_as_python_does():
    # only x is differentiated: the object's items carry no derivative
    assert zp.gradient(loop_over_argument, 1.5, Stream([1.0, 2.0]), wrt=0) == pytest.approx(3.0)
    assert zp.jvp(loop_over_argument, (1.5, Stream([1.0, 2.0])), (1.0, None)) == \
        pytest.approx((4.5, 3.0))


@pytest.mark.parametrize("f", [loop_over_stream, generator_over_stream, second_by_next, zipped,
                               unpacked])
def test_forward_refuses_instead_of_a_zero_tangent(f):
    with pytest.raises(zp.ZygoteError, match="iteration over a (Stream|Seq)") as info:
        zp.jvp(f, (1.5,), (1.0,))
    assert info.value.loc is not None and info.value.loc.filename == __file__
