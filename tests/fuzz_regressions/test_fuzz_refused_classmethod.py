"""Fuzz regression (refused although documented as supported), written by hand from the
refusal table of `python -m fuzz --seed 2026` (66 programs of that run were refused this way).

What zygote_py did:
    NoDerivativeRule: this_file.py:15:12: no derivative rule for Layer.half_square, which is called here with an active argument
        return Layer.half_square(x)
               ^^^^^^^^^^^^^^^^^^^^
    hint: register one with @zp.adjoint(half_square), or wrap the argument in zp.stop_gradient(...) if no derivative is wanted through it

Fixed: a method called on a class (`cls.square(t)`) is resolved from the class's own
namespace (static method, class method or plain function).
"""

from fuzz.oracle import assert_correct


class Layer:
    @staticmethod
    def square(t):
        return t * t

    @classmethod
    def half_square(cls, t):
        return cls.square(t) * 0.5


def f(x):
    return Layer.half_square(x)


def make_args():
    return (0.3,)


def test_fuzz_regression():
    assert_correct(f, make_args())
