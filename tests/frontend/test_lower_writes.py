"""Lowering of writes into arrays: what is refused before anything runs, and the
operators of augmented writes (zygote_py/frontend/lower_writes.py)."""

import operator

import numpy as np
import pytest

import zygote_py as zp

G = np.ones(3)
X = np.array([0.3, -0.5, 0.9, 1.2])


def writes_a_global_array(x):
    w = G
    w[0] = x[0]
    return w.sum()


class Holder:
    def __init__(self):
        self.a = np.zeros(3)


def writes_through_an_attribute(h, x):
    h.a[0] = x[0]
    return x.sum()


@pytest.mark.parametrize("f,args,match", [
    (writes_a_global_array, (X,), "module global 'G'"),
    (writes_through_an_attribute, (Holder(), X), "reached through an expression"),
], ids=["global", "attribute"])
def test_refused_before_running(f, args, match):
    before = G.copy()
    with pytest.raises(zp.MutationError, match=match) as info:
        zp.gradient(f, *args)
    assert info.value.loc is not None and info.value.loc.line > 0
    np.testing.assert_array_equal(G, before)


OPS = {"+=": operator.add, "-=": operator.sub, "*=": operator.mul, "/=": operator.truediv,
       "**=": operator.pow}


def _item_form(op):
    src = f"def f(x):\n    y = x * 1.0 + 2.0\n    y[1:3] {op} x[:2]\n    return (y * y).sum()\n"
    return src


def _name_form(op):
    src = (f"def f(x):\n    y = x * 1.0 + 2.0\n    z = y\n    y {op} x\n"
           "    return (z * z).sum()\n")
    return src


@pytest.mark.parametrize("op", list(OPS), ids=list(OPS))
@pytest.mark.parametrize("form", [_item_form, _name_form], ids=["item", "name"])
def test_augmented_operators(tmp_path, op, form):
    import importlib.util
    import sys

    path = tmp_path / f"aug_{form.__name__}_{list(OPS).index(op)}.py"
    path.write_text(form(op))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    from write_checks import check_writes

    check_writes(module.f, X)


def writes_from_a_nested_function(x):
    out = np.zeros(3)

    def put(i, v):
        out[i] = v  # straight-line in the nested function: the caller's `out` sees it

    for i in range(3):
        put(i, x[i] ** 2)
    put(0, out[0] * x[1])
    return (out * x[:3]).sum()


def writes_from_a_loop_of_a_nested_function(x):
    out = np.zeros(3)

    def fill():
        for i in range(3):
            out[i] = x[i]

    fill()
    return out.sum()


def test_a_nested_function_writes_into_an_enclosing_array():
    from write_checks import check_writes

    check_writes(writes_from_a_nested_function, X)


def test_a_nested_function_writing_an_enclosing_array_in_its_own_loop_is_refused():
    with pytest.raises(zp.MutationError, match="not a variable of this function"):
        zp.gradient(writes_from_a_loop_of_a_nested_function, X)


# -- calls of functions that write into their arguments, NumPy's in-place functions ----------
def _bump(a):
    a[0] += 1.0


def calls_bump_on_a_view(x):
    u = x * 1.0
    v = u[1:]
    _bump(v)
    return u.sum() + v.sum()


def _ir(fn):
    from zygote_py.compiler import COMPILER
    from zygote_py.ir.printer import format_function

    return format_function(COMPILER.lowered_ir(fn))


def test_a_call_that_writes_its_argument_rebinds_it_and_its_views():
    text = _ir(calls_bump_on_a_view)
    assert "call _bump_writing(%v" in text  # the call returns (result, the array written)
    assert "unpack n=2" in text
    assert "_zp_view_writeback(%u" in text  # u shares memory with the array written


def _writes_default(out=np.zeros(2)):
    out[0] = 1.0


def calls_default_writer(x):
    _writes_default()
    return x.sum()


def test_a_default_value_written_by_a_callee_is_refused_before_running():
    with pytest.raises(zp.MutationError, match="default value of its parameter 'out'"):
        zp.gradient(calls_default_writer, X.copy())


def positional_output(x):
    y = np.zeros(4)
    np.exp(x, y)
    return (y * x).sum()


def test_a_positional_ufunc_output_is_a_write():
    text = _ir(positional_output)
    assert "_zp_write_item_augmented(%y" in text
    (g,) = zp.gradient(positional_output, X.copy())
    np.testing.assert_allclose(g, np.exp(X) * (1 + X))
