"""Receiver facts: which values are certainly NumPy arrays or numbers.

What `obj.name(...)` and `obj.name` mean is decided by the type of obj (see
zygote_py/resolve.py).  The reverse transform may splice the ndarray rule of
`x.sum()` or `x.T` only where x is known to be an array or a number: a user
class with a method `sum` or a property `T` means something else entirely.
Elsewhere the call goes through run-time dispatch, which sees the object.

Parameters are known from the kinds the compiled code is specialised on
(`kinds.scalar_kinds`: True or False for numbers and arrays, None for other
objects; a parameter with no kind given is taken to be an array, the
compiler's assumption when it has no example arguments, and
`assumed_array_params` says which parameters that assumption matters for;
`*args` and `**kwargs` parameters, a tuple and a dict, are never known).  Known
values then
flow through literals, NumPy functions, arithmetic on known operands,
indexing of known arrays, ndarray methods and attributes with rules, branches
and loops (loop slots are assumed known and the assumption dropped where the
body does not keep it, until nothing changes).
"""

from __future__ import annotations

import builtins
import numbers
import operator

import numpy as np

from ..ir.core import Block, Function, Op
from ..ir.ops import LoopLayout, loop_layout
from ..kinds import is_object_kind
from ..resolve import FUNCTION, resolve
from ..rules import registry

# results of these operators on arrays and numbers are arrays or numbers
_OPERATORS = {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
              operator.mod, operator.pow, operator.neg, operator.pos, operator.matmul, operator.abs,
              abs, float}

# NumPy functions that return tuples or lists of arrays, not one array
_SEQUENCE_RESULTS = {np.split, np.array_split, np.hsplit, np.vsplit, np.dsplit, np.meshgrid,
                     np.broadcast_arrays, np.gradient, np.nonzero, np.where, np.unique,
                     np.histogram,
                     np.atleast_1d, np.atleast_2d, np.atleast_3d, np.linalg.svd, np.linalg.eig,
                     np.linalg.eigh, np.linalg.qr, np.linalg.slogdet, np.linalg.lstsq, np.modf,
                     np.frexp, np.divmod, np.shape, np.unravel_index, np.indices, np.histogram2d,
                     np.histogramdd, np.tril_indices, np.triu_indices, np.diag_indices}


def _known_constant(value) -> bool:
    return isinstance(value, (np.ndarray, np.generic, numbers.Number))


def _numpy_array_function(fn) -> bool:
    """fn is a NumPy function returning one array (or number)."""
    if isinstance(fn, np.ufunc):
        return fn.nout == 1
    try:
        if fn in _SEQUENCE_RESULTS:
            return False
    except TypeError:
        return False
    return (getattr(fn, "__module__", "") or "").startswith("numpy")


def array_values(fn: Function, kinds=()) -> set[int]:
    """Ids of the values of fn that are certainly NumPy arrays or numbers."""
    slots = set()
    _collect_slots(fn.body, slots)
    assumed = set(slots)
    while True:
        known, kept = _forward(fn, kinds, assumed)
        kept &= assumed
        if kept == assumed:
            return known
        assumed = kept


def assumed_array_params(fn: Function) -> list[int]:
    """Indices of the parameters that code compiled with no kinds (no example
    arguments) relies on being arrays or numbers: taking one of them for another
    object changes what a method call or attribute read of some value means, or
    what a called Python function is told of its argument.  Such code is right
    only for arguments that are arrays or numbers there (aot/module.py checks)."""
    assumed = array_values(fn)
    consulted = _consulted_values(fn) & assumed
    if not consulted:
        return []
    out = []
    for i in range(len(fn.params)):
        kinds = tuple(None if j == i else False for j in range(len(fn.params)))
        if consulted - array_values(fn, kinds):
            out.append(i)
    return out


def _consulted_values(fn: Function) -> set[int]:
    """Values whose being an array decides something: receivers of methods and
    attribute reads, arguments of Python functions (their pullbacks are compiled
    knowing which arguments are arrays)."""
    out = set()
    for op in fn.walk():
        if op.opcode in ("method", "getattr") and op.operands:
            out.add(op.operands[0].id)
        elif op.opcode == "call" and resolve(op.attrs["fn"], registry).kind == FUNCTION:
            out.update(v.id for v in op.operands)
    return out


def _variadic_params(fn: Function) -> set[int]:
    """Indices of the *args and **kwargs parameters (a tuple and a dict)."""
    sig = fn.signature
    if sig is None:
        return set()
    names = sig.names
    return {names.index(n) for n in (sig.vararg, sig.kwarg) if n}


def _collect_slots(block: Block, slots: set) -> None:
    for op in block.ops:
        if op.opcode in ("for", "while"):
            for k in range(len(op.results)):
                slots.add((id(op), k))
        for region in op.regions:
            _collect_slots(region, slots)


def _forward(fn: Function, kinds, assumed: set) -> tuple[set[int], set]:
    """(known value ids, loop slots whose body keeps them known) under the assumed slots."""
    known: set[int] = set()
    kept: set = set()
    variadic = _variadic_params(fn)
    for i, param in enumerate(fn.params):
        if (i >= len(kinds) or not is_object_kind(kinds[i])) and i not in variadic:
            known.add(param.id)

    def is_known(v) -> bool:
        return v.id in known

    def visit(block: Block) -> None:
        for op in block.ops:
            code = op.opcode
            if code == "if":
                for region in op.regions:
                    visit(region)
                for k, result in enumerate(op.results):
                    if all(is_known(r.ops[-1].operands[k]) for r in op.regions):
                        known.add(result.id)
            elif code in ("for", "while"):
                visit_loop(op)
            elif op.results and _op_gives_array(op, is_known):
                known.update(r.id for r in op.results)

    def visit_loop(op: Op) -> None:
        layout = loop_layout(op)
        if op.opcode == "for":
            _iteration_targets(op, layout, is_known, known)
        for k, init in enumerate(layout.inits):
            if (id(op), k) in assumed and is_known(init):
                known.add(layout.carried[k].id)
                if layout.cond_args:  # a while loop's cond receives the slots too
                    known.add(layout.cond_args[k].id)
        for region in op.regions:
            visit(region)
        for k, result in enumerate(layout.results):
            if layout.carried[k].id in known and is_known(layout.yields[k]):
                kept.add((id(op), k))
                known.add(result.id)

    visit(fn.body)
    return known, kept


def _iteration_targets(op: Op, layout: LoopLayout, is_known, known: set) -> None:
    """Range indices and enumerate counters are ints; items of a known array are known."""
    kind = op.attrs.get("kind")
    targets, iterables = layout.targets, layout.iterables
    if kind == "range":
        known.update(t.id for t in targets)
    elif kind == "enumerate" and targets:
        known.add(targets[0].id)
        if len(targets) > 1 and iterables and is_known(iterables[0]):
            known.add(targets[1].id)
    elif kind in ("iter", "reversed", "zip"):
        for iterable, target in zip(iterables, targets):
            if is_known(iterable):
                known.add(target.id)


def _op_gives_array(op: Op, is_known) -> bool:
    code = op.opcode
    if code == "const":
        return _known_constant(op.attrs["value"])
    if code == "call":
        fn = op.attrs["fn"]
        if fn is builtins.len:
            return True
        if fn is operator.getitem:  # an item or a slice of a known array
            return bool(op.operands) and is_known(op.operands[0])
        if _numpy_array_function(fn):
            return True
        try:
            operator_like = fn in _OPERATORS
        except TypeError:
            return False
        return operator_like and bool(op.operands) and all(is_known(v) for v in op.operands)
    if code == "getattr":
        name = op.attrs["name"]
        return is_known(op.operands[0]) and registry.attr_rule(np.ndarray, name) is not None
    if code == "method":
        name = op.attrs["name"]
        return is_known(op.operands[0]) and name != "tolist" and \
            registry.method_rule(np.ndarray, name) is not None
    return False
