"""May-be-complex analysis: which values of a function may hold complex numbers.

A rule not declared right for complex values (rules/complex_rules.py) must
never meet one unnoticed; this analysis says where one may turn up, so that
the reverse transform picks the complex variant of a rule or guards the call
(docs/complex.md).  It is conservative: a value is *maybe complex* when

- it is a parameter whose argument held a complex value at the first call
  (compiled code is specialised on that, kinds.scalar_kinds);
- it is a complex constant (1j, a complex array) or a complex dtype
  (complex, np.complex128, 'complex64') -- so astype(complex), dtype=complex
  and np.exp(1j * x) are covered;
- it comes from a source the transform cannot see into: a module global or
  closure cell read, a call of a callable value, a NumPy FFT or scimath
  function, np.linalg.eig or eigvals (a real matrix may have complex
  eigenvalues), a user function whose code (or a function it names) mentions
  complex numbers;
- it is computed from a maybe-complex value, except by the few functions
  whose result is real whatever their input (abs, real, imag, angle, ...).

Loops are solved to a fixed point, as in activity.py.
"""

from __future__ import annotations

import builtins
import operator
import types

import numpy as np

from ..ir.core import Function, Op
from .flow import propagate

# functions whose result is real whatever their argument
_REAL_RESULT = frozenset({
    np.real, np.imag, np.abs, np.absolute, builtins.abs, operator.abs, np.angle,
    np.linalg.norm, np.var, np.std, np.isreal, np.iscomplex, np.iscomplexobj, np.isfinite,
    np.isnan, np.isinf, np.shape, np.ndim, np.size, len, operator.eq, operator.ne,
    operator.lt, operator.le, operator.gt, operator.ge, operator.not_, operator.truth,
    operator.is_, operator.is_not, operator.contains, isinstance, builtins.float, builtins.int,
    builtins.bool, builtins.str, builtins.repr, builtins.range,
})
_REAL_ATTRS = frozenset({"real", "imag", "shape", "ndim", "size", "dtype", "itemsize", "nbytes",
                         "strides", "flags", "__class__", "__name__"})
# names whose mention in a user function's code means it may make a complex value
_COMPLEX_NAMES = frozenset({"complex", "complex64", "complex128", "complex256", "csingle",
                            "cdouble", "clongdouble", "complexfloating", "fft", "emath", "scimath",
                            "astype", "view", "sqrt_complex", "eig", "eigvals"})
_COMPLEX_DTYPE_STRINGS = ("complex", "c8", "c16", "c32", "F", "D", "G")


def is_complex_constant(value) -> bool:
    """A complex number or array, or a complex dtype (as a type, dtype or string)."""
    if isinstance(value, (complex, np.complexfloating)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "c"
    if isinstance(value, str):
        return value.startswith(_COMPLEX_DTYPE_STRINGS)
    if isinstance(value, np.dtype):
        return value.kind == "c"
    if isinstance(value, type):  # complex, np.complex128 (not np.integer: an abstract type)
        return issubclass(value, (complex, np.complexfloating))
    if isinstance(value, (tuple, list)):
        return any(is_complex_constant(v) for v in value)
    return False


def code_may_make_complex(fn, _seen=None) -> bool:
    """Whether a Python function's code, or a function it names, mentions complex values."""
    seen = _seen if _seen is not None else set()
    code = getattr(fn, "__code__", None)
    if code is None or code in seen:
        return False
    seen.add(code)
    if _code_mentions_complex(code):
        return True
    namespace = getattr(fn, "__globals__", {})
    for name in _names(code):
        target = namespace.get(name)
        if isinstance(target, types.FunctionType) and code_may_make_complex(target, seen):
            return True
    return False


def _code_mentions_complex(code: types.CodeType) -> bool:
    if _COMPLEX_NAMES.intersection(code.co_names):
        return True
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if _code_mentions_complex(const):
                return True
        elif is_complex_constant(const):
            return True
    return False


def _names(code: types.CodeType):
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _produces_complex(fn) -> bool:
    module = getattr(fn, "__module__", None) or ""
    return module.startswith(("numpy.fft", "numpy.lib.scimath", "numpy.emath")) or \
        fn in (np.linalg.eig, np.linalg.eigvals, builtins.complex) or \
        (isinstance(fn, type) and issubclass(fn, np.complexfloating))


def complex_values(fn: Function, complex_params: list[bool]) -> set[int]:
    """Ids of the values of fn that may hold complex numbers."""
    maybe = {p.id for p, c in zip(fn.params, complex_params) if c}

    def from_operands(op: Op) -> bool:
        return any(v.id in maybe or _is_complex_const(v) for v in op.operands)

    def op_may_be_complex(op: Op) -> bool:
        code = op.opcode
        if code == "const":
            return is_complex_constant(op.attrs["value"])
        if code in ("global", "cell", "callv"):
            return True  # a run-time value the transform cannot see into
        if code == "getattr":
            return op.attrs["name"] not in _REAL_ATTRS and from_operands(op)
        if code == "call":
            callee = op.attrs["fn"]
            try:
                if callee in _REAL_RESULT:
                    return False
            except TypeError:  # an unhashable callee
                pass
            if _produces_complex(callee):
                return True
            if isinstance(callee, types.FunctionType) and code_may_make_complex(callee):
                return True
            return from_operands(op)
        if code in ("assert", "raise", "undef", "yield", "return"):
            return False
        return from_operands(op)

    return propagate(fn, maybe, op_may_be_complex)


def _is_complex_const(value) -> bool:
    op = value.defining_op
    return op is not None and op.opcode == "const" and is_complex_constant(op.attrs["value"])
