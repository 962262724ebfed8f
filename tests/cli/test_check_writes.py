"""`zygote-py check` on a function that writes into its argument: every call gets its own
copy of the arguments, so the finite differences see the same inputs as the gradient."""

import numpy as np

from zygote_py.cli.check import gradient_errors


def writes_its_argument(a):
    a[1:] = a[1:] * a[:-1]
    return (a * a).sum()


def test_check_copies_the_arguments_for_every_call():
    a = np.array([0.5, -1.2, 0.8, 2.0])
    _, abs_err, _ = gradient_errors(writes_its_argument, (a,))
    assert abs_err < 1e-6
    np.testing.assert_array_equal(a, [0.5, -1.2, 0.8, 2.0])
