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
import functools
import numbers
import operator
import types

import numpy as np

from ..ir.core import Block, Function, Op
from ..ir.ops import LoopLayout, loop_layout
from ..kinds import ATTRS, ITEMS, is_object_kind
from ..runtime.writes import ArgumentWrites
from ..resolve import FUNCTION, OPERATOR_METHODS, is_array_or_number, is_plain_operand, resolve
from ..rules import registry
from ..rules.untracked import untracked

from ..runtime import helpers, writes

# results of these operators on arrays and numbers are arrays or numbers (comparisons:
# bool arrays or bools, such as the mask in np.max(x, where=x > 0))
_OPERATORS = {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
              operator.mod, operator.pow, operator.neg, operator.pos, operator.matmul, operator.abs,
              abs, float, operator.lt, operator.le, operator.gt, operator.ge, operator.eq,
              operator.ne}

# NumPy functions that return tuples or lists of arrays, not one array
_SEQUENCE_RESULTS = {np.split, np.array_split, np.hsplit, np.vsplit, np.dsplit, np.meshgrid,
                     np.broadcast_arrays, np.gradient, np.nonzero, np.where, np.unique,
                     np.histogram,
                     np.atleast_1d, np.atleast_2d, np.atleast_3d, np.linalg.svd, np.linalg.eig,
                     np.linalg.eigh, np.linalg.qr, np.linalg.slogdet, np.linalg.lstsq, np.modf,
                     np.frexp, np.divmod, np.shape, np.unravel_index, np.indices, np.histogram2d,
                     np.histogramdd, np.tril_indices, np.triu_indices, np.diag_indices}


def decided_by_operands(fn) -> bool:
    """fn's meaning depends on its operands' types: an operator (their dunder methods) or
    a NumPy function (__array_function__, __array_ufunc__, methods it hands over to)."""
    if isinstance(fn, np.ufunc):
        return True
    try:
        if fn in OPERATOR_METHODS:
            return True
    except TypeError:
        return False
    return (getattr(fn, "__module__", None) or "").startswith("numpy")


def _known_constant(value) -> bool:
    return isinstance(value, (np.ndarray, np.generic, numbers.Number))


# NumPy functions that return objects other than arrays and numbers: their methods are
# their own (a Generator's shuffle writes into its argument), never an ndarray's
_OBJECT_RESULTS = {getattr(np.random, name, None) for name in (
    "default_rng", "get_state", "get_bit_generator")} | {getattr(np, name, None) for name in (
    "printoptions", "get_printoptions", "geterr", "seterr", "geterrcall", "seterrcall",
    "frompyfunc", "result_type", "promote_types", "min_scalar_type", "broadcast_shapes",
    "load", "fromfunction", "fromiter", "iterable")} - {None}


def _numpy_array_function(fn) -> bool:
    """fn is a NumPy function returning one array (or number).  A NumPy class (a
    Generator, np.errstate, np.vectorize, np.finfo) makes an array only when it is an
    array or scalar type itself."""
    if isinstance(fn, np.ufunc):
        return fn.nout == 1
    try:
        if fn in _SEQUENCE_RESULTS or fn in _OBJECT_RESULTS:
            return False
    except TypeError:
        return False
    if isinstance(fn, type):
        return issubclass(fn, (np.ndarray, np.generic))
    return (getattr(fn, "__module__", "") or "").startswith("numpy")


def guards_on_globals(fn: Function, arrays: set[int]) -> list[tuple]:
    """The compiler's guards for the module globals taken to be arrays or numbers: the
    code compiled so is valid only while each still holds one (compiler.py checks)."""
    namespace = getattr(fn.meta.get("pyfn"), "__globals__", None)
    return [("array", namespace, op.attrs["name"], None) for op in fn.walk()
            if op.opcode == "global" and op.result.id in arrays]


def array_values(fn: Function, kinds=()) -> set[int]:
    """Ids of the values of fn that are certainly NumPy arrays or numbers."""
    return receiver_facts(fn, kinds)[0]


def receiver_facts(fn: Function, kinds=(), returns=None) -> tuple[set[int], set[int]]:
    """(arrays, plain): see value_levels."""
    level = value_levels(fn, kinds, returns)
    return {i for i, lv in level.items() if lv == ARRAY}, set(level)


def value_levels(fn: Function, kinds=(), returns=None) -> dict[int, str]:
    """Value id -> ARRAY (certainly an array or a number), SEQUENCE (a list or tuple of
    those) or PLAIN (a builtin constant or container of plain values): never an
    object whose own methods would decide what an operator or a NumPy function does.
    Values not listed may be anything.

    returns(f, kinds) says whether the Python function f, called with arguments of
    these kinds, certainly returns an array or a number (the compiler answers it
    from f's own facts); without it, what a user function returns is unknown."""
    slots = set()
    _collect_slots(fn.body, slots)
    assumed = set(slots)
    while True:
        level, kept = _forward(fn, kinds, assumed, returns)
        kept &= assumed
        if kept == assumed:
            return level
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
    attribute reads, operands of operators and NumPy functions (an object's own
    methods may take those over), arguments of Python functions (their pullbacks
    are compiled knowing which arguments are arrays)."""
    out = set()
    for op in fn.walk():
        if op.opcode in ("method", "getattr") and op.operands:
            out.add(op.operands[0].id)
        elif op.opcode == "call" and (resolve(op.attrs["fn"], registry).kind == FUNCTION
                                      or type(op.attrs["fn"]) is ArgumentWrites
                                      or decided_by_operands(op.attrs["fn"])):
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


def _forward(fn: Function, kinds, assumed: set, returns=None) -> tuple[dict[int, str], set]:
    """(value id -> level, loop slots whose body keeps their level) under the assumed
    slots."""
    level: dict[int, str] = {}
    kept: set = set()
    namespace = getattr(fn.meta.get("pyfn"), "__globals__", {})
    variadic = _variadic_params(fn)
    array_attributes: dict[int, tuple] = {}  # object parameter -> its array attributes
    for i, param in enumerate(fn.params):
        if i in variadic:
            continue
        kind = kinds[i] if i < len(kinds) else False
        if kind == ITEMS:  # a list or tuple of arrays or numbers
            level[param.id] = SEQUENCE
        elif isinstance(kind, tuple) and kind[:1] == (ATTRS,):  # an object holding arrays
            array_attributes[param.id] = kind[1:]
        elif not is_object_kind(kind):  # COMPLEX too; HOLDS_COMPLEX is an object
            level[param.id] = ARRAY

    def is_known(v) -> bool:
        return level.get(v.id) == ARRAY

    def is_plain(v) -> bool:
        return v.id in level

    def is_sequence(v) -> bool:  # its items are arrays or numbers
        return level.get(v.id) in (ARRAY, SEQUENCE)

    def visit(block: Block) -> None:
        for op in block.ops:
            code = op.opcode
            if code == "if":
                for region in op.regions:
                    visit(region)
                for k, result in enumerate(op.results):
                    merged = _meet(level.get(r.ops[-1].operands[k].id) for r in op.regions)
                    if merged is not None:
                        level[result.id] = merged
            elif code in ("for", "while"):
                visit_loop(op)
            elif code == "global":  # its value now; the compiled code guards on its kind
                if is_array_or_number(namespace.get(op.attrs["name"])):
                    level[op.result.id] = ARRAY
            elif code == "getattr" and op.attrs["name"] in \
                    array_attributes.get(op.operands[0].id, ()):
                level[op.result.id] = ARRAY  # as the object held it when the call was made
            elif code == "unpack":
                if is_sequence(op.operands[0]):
                    level.update((r.id, ARRAY) for r in op.results)
                elif level.get(op.operands[0].id) == PLAIN:  # `b, n = x.shape`: as x.shape[0]
                    level.update((r.id, PLAIN) for r in op.results)
                else:
                    _argument_writes_levels(op, level, is_known, is_sequence, returns)
            elif not op.results:
                continue
            elif code == "call" and returns is not None and \
                    _returns_array(op, is_known, is_sequence, returns):
                level[op.result.id] = ARRAY
            elif _op_gives_array(op, is_known, is_plain, is_sequence):
                level.update((r.id, ARRAY) for r in op.results)
            elif _op_gives_sequence(op, is_known, is_plain, is_sequence):
                level.update((r.id, SEQUENCE) for r in op.results)
            elif _op_gives_plain(op, is_known, is_plain):
                level.update((r.id, PLAIN) for r in op.results)

    def visit_loop(op: Op) -> None:
        layout = loop_layout(op)
        if op.opcode == "for":
            _iteration_targets(op, layout, is_sequence, level)
        for k, init in enumerate(layout.inits):
            if (id(op), k) in assumed and is_plain(init):
                level[layout.carried[k].id] = level[init.id]
                if layout.cond_args:  # a while loop's cond receives the slots too
                    level[layout.cond_args[k].id] = level[init.id]
        for region in op.regions:
            visit(region)
        for k, result in enumerate(layout.results):
            carried = level.get(layout.carried[k].id)
            if carried is not None and level.get(layout.yields[k].id) == carried:
                kept.add((id(op), k))
                level[result.id] = carried

    visit(fn.body)
    return level, kept


ARRAY, SEQUENCE, PLAIN = "array", "sequence", "plain"


def _argument_writes_levels(op: Op, level: dict, is_known, is_sequence, returns) -> None:
    """`(r, u2) = ArgumentWrites(f, ...)(u, ...)` unpacked (runtime/writes.py): u2 is the
    very object passed as u, and r what f returns."""
    call = op.operands[0].defining_op
    if call is None or call.opcode != "call" or type(call.attrs["fn"]) is not ArgumentWrites:
        return
    wrapper = call.attrs["fn"]
    npos = len(call.operands) - len(call.attrs.get("kw", ()))
    for source, result in zip(wrapper.sources, op.results[1:]):
        passed = call.operands[source] if type(source) is int else \
            call.operands[npos + call.attrs["kw"].index(source)]
        if passed.id in level:
            level[result.id] = level[passed.id]
    if returns is not None and not call.attrs.get("kw") and not call.attrs.get("star"):
        code = wrapper.fn.__code__
        if code.co_argcount == len(call.operands) and not code.co_kwonlyargcount and \
                not code.co_flags & 0x0C and \
                returns(wrapper.fn, call_kinds(call.operands, is_known, is_sequence)):
            level[op.results[0].id] = ARRAY


def _returns_array(op: Op, is_known, is_sequence, returns) -> bool:
    """A call of a Python function, each operand one positional parameter, that returns
    an array or a number for arguments of these kinds (as its pullback is compiled)."""
    fn = op.attrs["fn"]
    if op.attrs.get("star") or op.attrs.get("kw") or resolve(fn, registry).kind != FUNCTION:
        return False
    code = fn.__code__
    if code.co_argcount != len(op.operands) or code.co_kwonlyargcount or code.co_flags & 0x0C:
        return False
    return returns(fn, call_kinds(op.operands, is_known, is_sequence))


def call_kinds(operands, is_known, is_sequence) -> tuple:
    """What a callee's pullback is compiled knowing of each argument (kinds.scalar_kinds'
    values, False standing for any array or number)."""
    return tuple(False if is_known(v) else ITEMS if is_sequence(v) else None for v in operands)


def _meet(levels) -> str | None:
    """The level of a value that is one of values of these levels."""
    levels = set(levels)
    if None in levels or not levels:
        return None
    return levels.pop() if len(levels) == 1 else PLAIN


def _iteration_targets(op: Op, layout: LoopLayout, is_sequence, level: dict) -> None:
    """Range indices and enumerate counters are ints; items of a known array or of a
    sequence of them are known."""
    kind = op.attrs.get("kind")
    targets, iterables = layout.targets, layout.iterables
    if kind == "range":
        level.update((t.id, ARRAY) for t in targets)
    elif kind == "enumerate" and targets:
        level[targets[0].id] = ARRAY
        if len(targets) > 1 and iterables and is_sequence(iterables[0]):
            level[targets[1].id] = ARRAY
    elif kind in ("iter", "reversed", "zip"):
        for iterable, target in zip(iterables, targets):
            if is_sequence(iterable):
                level[target.id] = ARRAY


@functools.cache
def _gradient_helpers() -> dict:
    """Helpers that generated gradient code calls -> the operand positions whose being
    arrays or numbers makes the result one (forward mode over gradient code, zp.hessian,
    then splices the rules on their results instead of deciding them while running)."""
    from ..rules import indexing, linalg, shapes

    return {helpers.check_scalar: (), helpers.reduced_size: (), helpers.unbroadcast: (0, 1),
            helpers.expand_reduced: (0, 1), helpers.accum: (0, 1), shapes.like_input: (0, 1),
            linalg.matmul_cotangent_a: (0, 1, 2), linalg.matmul_cotangent_b: (0, 1, 2),
            indexing._index_cotangent: (0, 1)}


def _op_gives_array(op: Op, is_known, is_plain, is_sequence) -> bool:
    code = op.opcode
    if code == "const":
        return _known_constant(op.attrs["value"])
    if code == "call":
        fn = op.attrs["fn"]
        if fn is builtins.len:
            return True
        try:
            positions = _gradient_helpers().get(fn)  # a table built once (rules import late)
        except TypeError:  # an unhashable callee
            positions = None
        if positions is not None:
            return not op.attrs.get("star") and not op.attrs.get("kw") and \
                all(i < len(op.operands) and is_known(op.operands[i]) for i in positions)
        if fn is untracked:  # x itself (inside `with zp.no_grad():`)
            return is_known(op.operands[0])

        if fn is writes.write_item or fn is writes.write_item_augmented or \
                fn is writes.view_writeback:
            return is_known(op.operands[0])  # the array written into (an ndarray, or refused)
        if fn is writes.augmented_write:  # y op= v: y written into, or rebound to y op v
            return is_known(op.operands[0]) and is_known(op.operands[1])
        if fn is operator.getitem:  # an item or a slice of a known array; an item of a sequence
            return len(op.operands) == 2 and (is_known(op.operands[0]) or (
                is_sequence(op.operands[0]) and is_known(op.operands[1])
                and not _is_slice(op.operands[1])))  # a slice of a list is a list
        if isinstance(fn, types.BuiltinFunctionType) and fn.__module__ == "math":
            return True  # a float or an int, whatever the argument (its __float__ decides)
        if _numpy_array_function(fn):
            # an object argument may take the call over (np.sum(obj) calls obj.sum())
            return all(is_plain(v) for v in op.operands)
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


def _op_gives_sequence(op: Op, is_known, is_plain, is_sequence) -> bool:
    """Tuples and lists of arrays or numbers: literals, appends, and the NumPy functions
    that return several arrays (np.linalg.slogdet, np.split, ...)."""
    code = op.opcode
    if code in ("tuple", "list"):
        return all(is_known(v) for v in op.operands)
    if code == "append":
        return is_sequence(op.operands[0]) and is_known(op.operands[1])
    if code == "extend":
        return is_sequence(op.operands[0]) and is_sequence(op.operands[1])
    if code == "call":
        fn = op.attrs["fn"]
        if fn is untracked:
            return is_sequence(op.operands[0])
        if fn is operator.getitem:  # a slice of a list or tuple of arrays or numbers
            return len(op.operands) == 2 and is_sequence(op.operands[0]) and \
                not is_known(op.operands[0]) and _is_slice(op.operands[1])
        if fn is operator.add and len(op.operands) == 2:  # concatenation: a list again
            return not any(is_known(v) for v in op.operands) and \
                all(is_sequence(v) for v in op.operands)
        if fn is operator.mul and len(op.operands) == 2:  # repetition by a literal count
            a, b = op.operands
            return is_sequence(a) and not is_known(a) and _is_int_constant(b) or \
                is_sequence(b) and not is_known(b) and _is_int_constant(a)
        try:
            several = fn in _SEQUENCE_RESULTS
        except TypeError:
            return False
        return several and all(is_plain(v) for v in op.operands)
    return False


def _is_int_constant(value) -> bool:
    op = value.defining_op
    return op is not None and op.opcode == "const" and type(op.attrs["value"]) is int


def _is_slice(index) -> bool:
    """The index is a slice (`p[1:]`, `p[::-1]`, `slice(...)`): it takes a part, not an item."""
    op = index.defining_op
    if op is None:
        return False
    if op.opcode == "const":
        return isinstance(op.attrs["value"], slice)
    return op.opcode == "call" and op.attrs.get("fn") is builtins.slice


def _op_gives_plain(op: Op, is_known, is_plain) -> bool:
    """Builtin constants, containers of plain values, and the non-differentiable
    attributes of arrays (x.shape, x.ndim): plain, though not arrays or numbers."""
    code = op.opcode
    if code == "const":
        return _plain_constant(op.attrs["value"])
    if code in ("tuple", "list", "dict"):
        return all(is_plain(v) for v in op.operands)
    if code == "call":  # an item of a plain container, arithmetic on shapes, slices
        fn = op.attrs["fn"]
        if fn is untracked:
            return is_plain(op.operands[0])
        try:
            operator_like = fn is operator.getitem or fn is builtins.slice or fn in _OPERATORS
        except TypeError:
            return False
        return operator_like and bool(op.operands) and all(is_plain(v) for v in op.operands)
    if code == "getattr":
        return is_known(op.operands[0]) and \
            registry.attr_is_nondifferentiable(np.ndarray, op.attrs["name"])
    return False


def _plain_constant(value) -> bool:
    if isinstance(value, (tuple, list)):
        return is_plain_operand(value) and all(_plain_constant(v) for v in value)
    if isinstance(value, dict):
        return is_plain_operand(value) and all(_plain_constant(v) for v in value.values())
    return is_plain_operand(value) and not isinstance(value, (range,))
