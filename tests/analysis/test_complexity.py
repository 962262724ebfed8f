"""The may-be-complex analysis (zygote_py/analysis/complexity.py): which values of
a function may hold complex numbers.  It must never miss one (a real-only rule
would then meet a complex value unguarded), and it keeps real code free of checks."""

import numpy as np

from zygote_py.analysis.complexity import code_may_make_complex, complex_values, is_complex_constant
from zygote_py.compiler import COMPILER

TABLE = np.ones(3)


def _returned_may_be_complex(fn, complex_params) -> bool:
    ir = COMPILER.lowered_ir(fn)
    returned = ir.body.ops[-1].operands[0]
    return returned.id in complex_values(ir, complex_params)


def real_only(x, y):
    return np.sin(x) * y + np.abs(x) ** 2


def literal(x):
    return np.abs(x * 1j) + np.exp(2j * x)


def cast(x):
    return x.astype(complex) * 2.0


def dtype_keyword(x):
    return np.zeros(3, dtype=np.complex64) + x


def reads_a_global(x):
    return x * TABLE


def _helper(x):
    return x * np.exp(0.5j)


def calls_a_complex_helper(x):
    return _helper(x) + 1.0


def loop_carried(x):
    z = x
    for _ in range(3):
        z = z * (1 + 1j) if x > 0 else z
    return z


def real_part(x):
    return np.real(x * 1j) + np.abs(x) + x.imag


def test_real_code_has_no_complex_values():
    ir = COMPILER.lowered_ir(real_only)
    assert complex_values(ir, [False, False]) == set()


def test_a_complex_argument_reaches_what_is_computed_from_it():
    assert _returned_may_be_complex(real_only, [True, False])
    assert _returned_may_be_complex(real_only, [False, True])


def test_complex_literals_casts_and_dtypes_are_sources():
    assert _returned_may_be_complex(literal, [False])
    assert _returned_may_be_complex(cast, [False])
    assert _returned_may_be_complex(dtype_keyword, [False])


def test_unseen_values_and_complex_helpers_may_be_complex():
    assert _returned_may_be_complex(reads_a_global, [False])
    assert _returned_may_be_complex(calls_a_complex_helper, [False])
    assert code_may_make_complex(calls_a_complex_helper)  # through the helper it names
    assert not code_may_make_complex(real_only)


def test_loops_and_branches_carry_complexity():
    assert _returned_may_be_complex(loop_carried, [False])


def test_real_valued_functions_cut_the_chain():
    assert not _returned_may_be_complex(real_part, [True])


def test_complex_constants():
    assert all(is_complex_constant(v) for v in (1j, np.complex64(1), np.ones(2, complex), complex,
                                                np.complex128, "complex64", np.dtype("c16")))
    assert not any(is_complex_constant(v) for v in (1.0, float, "float64", np.ones(2), None, "x"))
