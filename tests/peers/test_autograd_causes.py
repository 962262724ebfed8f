"""Failures grouped by cause: each kind of recorded exception lands in its category."""

import pytest

from peers.autograd.causes import classify, classify_collection_error


def exception(kind, message, frames=(), zygote_error=False, check_failure=False):
    return {"type": kind, "message": message, "frames": [list(f) for f in frames],
            "zygote_error": zygote_error, "check_failure": check_failure}


@pytest.mark.parametrize("recorded, complex_input, expected", [
    (exception("NoDerivativeRule", "no derivative rule for numpy.linalg.slogdet, which is called here",
               zygote_error=True), False, ("no rule", "no rule for numpy.linalg.slogdet")),
    (exception("UnsupportedSyntax", "try/except is not supported", zygote_error=True), False,
     ("unsupported syntax", "unsupported syntax: try/except is not supported")),
    (exception("MutationError", "writing into an array (x[0] = v)", zygote_error=True), False,
     ("zygote_py error", "MutationError: writing into an array (x[N] = v)")),
    (exception("VJPCheckFailure", "check failed", check_failure=True), False,
     ("wrong gradient", "wrong gradient: test_numpy.py::test_sum")),
    (exception("VJPCheckFailure", "check failed", check_failure=True), True,
     ("wrong gradient", "wrong gradient (complex input): test_numpy.py::test_sum")),
    (exception("TypeError", "bad operand", [("test_numpy.py", "fun", 3), ("zygote_py/api.py", "finalize", 34),
                                            ("numeric.py", "asarray", 9)]), False,
     ("internal error", "internal error in zygote_py/api.py:finalize: TypeError: bad operand")),
    (exception("ValueError", "shapes", [("<zygote_py:f_grad:1>", "f_grad", 4)]), False,
     ("internal error", "internal error in generated code: ValueError: shapes")),
    (exception("AttributeError", "'float' object has no attribute 'shape'",
               [("test_numpy.py", "test_sum", 9), ("zygote_py/api.py", "_run", 193),
                ("<zygote_py:fun_grad:1>", "fun_grad", 4), ("test_numpy.py", "fun", 3)]), False,
     ("test code error", "the test's own code raised AttributeError: 'float' object has no attribute 'shape'")),
    (exception("AttributeError", "no attribute 'shape'",
               [("test_numpy.py", "test_sum", 9), ("<zygote_py:fun_grad:1>", "fun_grad", 4),
                ("numeric.py", "asarray", 9)]), False,
     ("internal error", "internal error in generated code: AttributeError: no attribute 'shape'")),
    (exception("AssertionError", "assert 1.0 == 2.0", [("test_numpy.py", "test_sum", 4)]), False,
     ("test assertion", "test assertion: test_numpy.py::test_sum")),
    (exception("NoDerivativeRule", "zp.jvp inside a function being differentiated: forward mode "
               "over the inner function's gradient code meets something it does not follow "
               "(forward mode over a gradient reaches zygote_py.api.pullback, a call)",
               zygote_error=True), False,
     ("third derivatives", "third derivatives (refused: zygote_py nests to order two)")),
    (exception("NoDerivativeRule", "zp.jvp inside a function being differentiated: forward mode "
               "over the inner function's gradient code meets something it does not follow "
               "(starred items inside a literal are not supported)", zygote_error=True), False,
     ("nested differentiation", "forward mode over an inner gradient: starred items inside a "
                                "literal are not supported")),
    (exception("AttributeError", "no attribute 'foo'", [("shim:autograd/core.py", "make_vjp", 4)]), False,
     ("shim", "shim: AttributeError: no attribute 'foo'")),
])
def test_classify(recorded, complex_input, expected):
    assert classify(recorded, "test_numpy.py::test_sum[3]", complex_input) == expected


def test_collection_error_names_the_import_that_failed():
    message = "ImportError while importing\nE   ModuleNotFoundError: No module named 'autograd.foo'\n"
    assert classify_collection_error(message) == (
        "collection error", "collection error: ModuleNotFoundError: No module named 'autograd.foo'")


def test_zygote_py_meeting_the_shim_is_nested_differentiation():
    in_shim = exception("MutationError", "assigning to the attribute .__name__", zygote_error=True)
    in_shim["loc"] = "shim:autograd/wrap_util.py"
    called_back = exception("NonScalarOutput", "gradient needs a real scalar output", [
        ("test_jacobian.py", "test", 1), ("<zygote_py:fun_pullback:1>", "fun_pullback", 3),
        ("shim:autograd/wrap_util.py", "nary_f", 70), ("zygote_py/api.py", "gradient", 9)],
        zygote_error=True)
    for recorded in (in_shim, called_back):
        assert classify(recorded, "t.py::t")[0] == "nested differentiation"
    plain = exception("NonScalarOutput", "gradient needs a real scalar output",
                      [("shim:autograd/wrap_util.py", "nary_f", 70), ("zygote_py/api.py", "gradient", 9)],
                      zygote_error=True)
    assert classify(plain, "t.py::t")[0] == "zygote_py error"
