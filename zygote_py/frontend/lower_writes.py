"""Lowering of in-place writes into arrays, and the alias tracking that makes them exact.

`x[i] = v` becomes `x = write_item(x, i, v)` (runtime/writes.py): the real
write into the real array, whose result is the same object as a new SSA value,
and every name bound to the old value is rebound to it (`z = x` sees the write).
`y op= v` on a name becomes `y = augmented_write(y, y op v)`: in place for an
ndarray, a rebinding for a number, decided by the object while running; where
nothing but the name can reach the array it is a plain rebinding (no one can
tell).  `a.fill(v)`, `np.copyto(a, b)`, a ufunc's `out=a` and `np.add.at(a, ...)`
become whole-array writes of a result computed first.

SSA describes values, not memory, so every other value that may share memory
with the written array is out of date after the write.  The lowerer keeps
*may-alias classes* (a union-find over SSA values): a result joins the class of
its operands unless the op is known to return a new object (arithmetic, NumPy
constructors and reductions, `.copy()`: `FRESH_CALLS`, `FRESH_METHODS`).  Views,
user functions, containers, loop-carried values and branch merges all join.
After a write, every other name bound to a member of the class is rebound to
`view_writeback(m, x)`: the same object, whose elements shared with x (matched by
address while running) changed with them, which the adjoint follows exactly; a
container or object holding the written array is refused when read
(`check_unaliased`).  A name that may be unbound on some path, or that belongs to
the function a nested function is inlined into, is *stale* instead: checked when
it is next read, refused here when the written array is not in scope there or a
loop would carry it into an iteration that read it before the write.

A write into an array that may be a module global or a closure value is
refused; a write into an argument is recorded (`Function.meta["param_writes"]`,
`["param_writes_in_place"]` for `y op= v`), and the function checks on entry that
an argument it writes into shares memory with no other input.  A caller that
calls such a function by name sees the write: `r = f(u)` becomes
`(r, u2) = ArgumentWrites(f, ...)(u)`, a write into u (`argument_writing_call`;
the compiler answers which parameters f writes into).  Called through a value
resolved while running, the function is refused (compiler.py:
refuse_argument_writes; `y op= v` there refuses an array while running).

NumPy's in-place functions become writes too (`in_place_call`): np.put, np.place,
np.putmask, np.put_along_axis and np.fill_diagonal an item write at the positions
NumPy writes; a.sort() and np.copyto(where=) whole writes; a ufunc's output array
(out=, positional, where=) the result written; np.multiply.at / np.divide.at the
value of a rule.  An output array given to another library function or an ndarray
method is refused (`refuse_positional_out`, `check_method_out`).
"""

from __future__ import annotations

import builtins
import functools
import inspect
import operator
import os
import types
from contextlib import contextmanager

import gast
import numpy as np

from ..ir.core import Value, value_block
from ..resolve import FUNCTION, resolve
from ..rules import registry
from ..rules.indexing import _index_cotangent
from ..rules.ufunc_methods import ufunc_at
from ..runtime import alias_checks, containers, iterators, writes
from ..runtime.library_code import is_library_function
from .result_aliases import mutable_constant

# the name under which the threaded variant of a function keeps following an argument's
# array (frontend/lower.py): no Python code can bind it
WRITTEN_SLOT = "<written "


def written_slot(param_name: str) -> str:
    return f"{WRITTEN_SLOT}{param_name}>"

_OPERATOR_FRESH = {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
                   operator.mod, operator.pow, operator.neg, operator.pos, operator.abs,
                   operator.matmul, operator.lt, operator.le, operator.gt, operator.ge,
                   operator.eq, operator.ne, operator.not_, operator.invert, operator.and_,
                   operator.or_, operator.xor, operator.lshift, operator.rshift, operator.truth,
                   operator.contains, operator.is_, operator.is_not}


def _numpy_fresh() -> set:
    names = ['zeros', 'ones', 'empty', 'full', 'zeros_like', 'ones_like', 'empty_like',
             'full_like', 'eye', 'identity', 'arange', 'linspace', 'logspace', 'geomspace',
             'copy', 'concatenate', 'stack', 'vstack', 'hstack', 'dstack', 'column_stack',
             'append', 'insert', 'delete', 'clip', 'tile', 'repeat', 'sort', 'argsort', 'cross',
             'diff', 'convolve', 'correlate', 'interp', 'roll', 'pad', 'outer', 'inner', 'dot',
             'vdot', 'matmul', 'tensordot', 'kron', 'sum', 'mean', 'prod', 'max', 'min', 'amax',
             'amin', 'std', 'var', 'cumsum', 'cumprod', 'argmax', 'argmin', 'all', 'any', 'ptp',
             'median', 'average', 'percentile', 'quantile', 'nansum', 'nanmean', 'nanmax',
             'nanmin', 'trace', 'take', 'take_along_axis', 'searchsorted', 'unique', 'round',
             'around', 'isclose', 'allclose', 'array_equal', 'count_nonzero', 'nonzero',
             'argwhere', 'tril', 'triu', 'shape', 'ndim', 'size', 'where', 'polyval',
             'trapezoid', 'trapz', 'logsumexp']
    out = {getattr(np, n) for n in names if hasattr(np, n)}
    for n in ('norm', 'inv', 'solve', 'det', 'cholesky', 'eigh', 'eigvalsh', 'svd', 'qr', 'pinv', 'slogdet', 'eig', 'lstsq', 'matrix_power'):
        if hasattr(np.linalg, n):
            out.add(getattr(np.linalg, n))
    return out


FRESH_CALLS = _numpy_fresh() | {builtins.len, builtins.int, builtins.float, builtins.bool,
                                builtins.complex, builtins.str, builtins.repr, builtins.isinstance,
                                builtins.type, builtins.range, builtins.abs, builtins.round,
                                builtins.hash, builtins.id, builtins.slice, builtins.print,
                                iterators.type_of, iterators.isinstance_of,
                                writes.check_unaliased, writes.check_distinct_arguments,
                                writes.check_sortable, writes.refuse_array_out,
                                writes.check_output_shape,
                                alias_checks.check_array_method, alias_checks.check_method_is,
                                writes.put_positions,
                                writes.place_positions, writes.diagonal_positions,
                                writes.putmask_positions, writes.along_axis_positions,
                                writes.position_count, containers.note_derived_key,
                                containers.note_derived_keys_of}
# np.array copies unless told copy=False: decided per call (see `_fresh_call`)
FRESH_METHODS = frozenset({'copy', 'sum', 'mean', 'prod', 'max', 'min', 'std', 'var', 'cumsum',
                           'cumprod', 'argmax', 'argmin', 'all', 'any', 'dot', 'flatten',
                           'tolist', 'item', 'clip', 'round', 'nonzero', 'trace', 'argsort',
                           'searchsorted', 'repeat', 'take'})
FRESH_ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype", "nbytes", "itemsize", "strides"})
CONTAINER_OPS = frozenset({"list", "tuple", "dict", "append", "extend", "setitem", "closure"})


class AliasClass:
    """What one may-alias class holds: parameters, a global or cell, containers."""

    __slots__ = ("containers", "external", "opaque", "params", "shared", "untracked")

    def __init__(self):
        self.params: set[int] = set()  # indices of the parameters in it
        self.external: str | None = None  # "the module global 'W'" and the like
        self.containers = False
        self.shared = False  # joined by a view, a container or an unknown call's result
        # joined by a value whose memory may come from where no operand leads (the result
        # of an unknown call, frontend/result_aliases.py): the class has no result summary
        self.opaque = False
        # where a value that may share memory with others was made under `with zp.no_grad():`
        self.untracked = None

    def absorb(self, other: AliasClass) -> None:
        self.params |= other.params
        self.external = self.external or other.external
        self.containers = self.containers or other.containers
        self.shared = self.shared or other.shared
        self.opaque = self.opaque or other.opaque
        self.untracked = self.untracked or other.untracked


class WriteLowering:
    """Mixin of the Lowerer: array writes, augmented assignment on names, alias classes."""

    # -- the union-find ------------------------------------------------------------------
    def alias_root(self, value: Value) -> int:
        parent = self.alias_parent
        vid = value.id
        root = parent.setdefault(vid, vid)
        while root != parent[root]:
            root = parent[root]
        while parent[vid] != root:  # path compression
            parent[vid], vid = root, parent[vid]
        if root not in self.alias_info:
            self.alias_info[root] = AliasClass()
        return root

    def alias_union(self, a: Value, b: Value) -> None:
        const_a, const_b = self.constant_of(a, _NOT_CONST), self.constant_of(b, _NOT_CONST)
        if const_a is not _NOT_CONST or const_b is not _NOT_CONST:
            # literals and static callees alias nothing; memory held as a constant (an
            # array) is outside every class: what is made from it has no result summary
            for const, other in ((const_a, b), (const_b, a)):
                if const is not _NOT_CONST and other is not None and \
                        self.constant_of(other, _NOT_CONST) is _NOT_CONST and \
                        mutable_constant(const):
                    self.alias_class(other).opaque = True
            return
        ra, rb = self.alias_root(a), self.alias_root(b)
        if ra == rb:
            return
        self.alias_parent[rb] = ra
        self.alias_info[ra].absorb(self.alias_info.pop(rb))

    def alias_class(self, value: Value) -> AliasClass:
        return self.alias_info[self.alias_root(value)]

    def closed_classes(self) -> dict[int, frozenset]:
        """value id -> the ids of the values of its may-alias class, for every class that
        nothing from outside the function can reach: no parameter, global, closure value,
        container, view, unknown call's result or no_grad value joined it
        (`Function.meta["closed_classes"]`: ad/reverse/writes.py writes into such an array
        inline where its members also say what the array is)."""
        parent = self.alias_parent
        members: dict[int, set[int]] = {}
        for vid in list(parent):
            root = vid
            while root != parent[root]:
                root = parent[root]
            members.setdefault(root, set()).add(vid)
        out: dict[int, frozenset] = {}
        for root, ids in members.items():
            info = self.alias_info.get(root)
            if info is None or info.params or info.external or info.containers or info.shared \
                    or info.opaque or info.untracked is not None:
                continue
            group = frozenset(ids)
            for vid in ids:
                out[vid] = group
        return out

    def track_aliases(self, op) -> None:
        """Put op's results into the may-alias class of the operands they may share memory with."""
        code = op.opcode
        if code == "undef":
            self.maybe_unbound.add(op.result.id)
            return
        if code == "if":  # either branch's value (the loops are joined where they are lowered)
            for region in op.regions:
                self.alias_carried(region.ops[-1].operands, op.results)
            return
        if code in ("const", "for", "while", "yield", "return") or not op.results:
            return
        if code in ("global", "cell"):
            what = "module global" if code == "global" else "closure variable"
            self.alias_class(op.result).external = f"the {what} {op.attrs['name']!r}"
            return
        if code == "call" and self._fresh_call(op):
            return
        if code == "call" and type(op.attrs["fn"]) is writes.ArgumentWrites:
            self.alias_class(op.result).shared = True  # joined where it is lowered
            self.made_at[op.result.id] = self.root_lowerer().writes_done
            return
        if code == "call" and not op.attrs["star"]:  # the callee's result summary
            fn = op.attrs["fn"]
            summary = self.callee_summary(fn)
            if summary is not None:
                self.join_summarised(op.result, fn, summary, op.operands, op.attrs["kw"],
                                     getattr(fn, "__name__", "the function"))
                self.made_at[op.result.id] = self.root_lowerer().writes_done
                return
        if code == "method" and self.summarised_method(op):  # result_aliases.py
            self.made_at[op.result.id] = self.root_lowerer().writes_done
            return
        if code == "unpack" and _argument_writes_call(op.operands[0]):
            # (result, written arrays...): the written arrays are the arguments (joined by
            # record_write), the result is joined where the call is lowered
            for result in op.results[1:]:
                self.alias_union(result, op.operands[0])
                self.made_at[result.id] = self.root_lowerer().writes_done
            return
        if code == "method" and op.attrs["name"] in FRESH_METHODS and "copy" not in op.attrs["kw"]:
            return
        if code == "getattr" and op.attrs["name"] in FRESH_ATTRIBUTES:
            return
        if code == "getattr" and isinstance(self.constant_of(op.operands[0], None),
                                            (types.ModuleType, type, types.FunctionType)):
            # data held by a module, a class or a function (`config.W`), read while running:
            # state outside the function, as a module global is
            owner = self.constant_of(op.operands[0])
            info = self.alias_class(op.result)
            info.external = f"the attribute {op.attrs['name']!r} of " \
                f"{getattr(owner, '__name__', 'an object')}"
            info.shared = True
            self.made_at[op.result.id] = self.root_lowerer().writes_done
            return
        opaque = self.opaque_result(op)  # result_aliases.py
        operands = op.operands
        if code == "call" and _first_operand_only(op.attrs["fn"]):
            operands = operands[:1]  # x[i] views x, not i; a write copies its value in
        for result in op.results:
            for operand in operands:
                self.alias_union(result, operand)
        if code == "call" and any(op.attrs["fn"] is f for f in _WRITES):
            return  # the same array, written: not a second reference to it
        if code in CONTAINER_OPS:
            self.alias_class(op.result).containers = True
        if opaque:
            self.alias_class(op.result).opaque = True
        self.alias_class(op.result).shared = True
        for result in op.results:  # made before the writes counted so far
            self.made_at[result.id] = self.root_lowerer().writes_done

    def _fresh_call(self, op) -> bool:
        fn = op.attrs["fn"]
        try:
            if fn in _SEQUENCE_OPERATORS:  # lst + [x] holds x: fresh unless a list is added
                return not any(_makes_container(v) or self.kinds.get(v.id) for v in op.operands)
            if fn in _OPERATOR_FRESH:
                return True
            if fn is np.array:
                return "copy" not in op.attrs["kw"]
            return fn in FRESH_CALLS or isinstance(fn, np.ufunc)
        except TypeError:  # an unhashable callee
            return False

    def loc_const(self, node) -> Value:
        """The user's location as an operand (for the run-time helpers' errors), printed in
        the IR by file name and line only."""
        loc = self.loc(node)
        text = f"loc({os.path.basename(loc.filename)}:{loc.line})" if loc is not None else "None"
        return self.emit("const", (), attrs={"value": loc, "expr": text}, node=node).result

    def alias_carried(self, sources, targets) -> None:
        """Values that flow into others around loops and out of branches: one class; a
        variable unbound on some path stays so (no writeback reads it)."""
        for source, target in zip(sources, targets):
            self.alias_union(target, source)
            if source.id in self.maybe_unbound:
                self.maybe_unbound.add(target.id)

    # -- which blocks are open (for dominance of the written array at a stale read) ----------
    @contextmanager
    def at(self, block):
        self.open_blocks.append(block)
        try:
            with self.builder.at(block):
                yield
        finally:
            self.open_blocks.pop()

    def _in_scope(self, value: Value) -> bool:
        block = value_block(value)
        return block is not None and any(block is b for b in self.open_blocks)

    # -- writes ----------------------------------------------------------------------------
    def array_store(self, name: str, current: Value, target, node, value=None, augment=None) -> None:
        """`name[index] = value` (or `name[index] op= rhs`) into an array, in place."""
        current = self.read_for_write(name, current, node)
        index = self.expr(target.slice)
        if augment is not None:
            fn, rhs = augment
            old = self.call_static(operator.getitem, (current, index), node)
            value = self.call_static(fn, (old, self.expr(rhs)), node)
            helper = writes.write_item_augmented
        else:
            helper = writes.write_item
            self.check_unnamed_value(value, current, node)
        keys_guarded = not self.is_loop_row(current) and self.keys_guard_suffices(current)
        if keys_guarded:  # `for k in p: p[k] = v` on an argument: a dict's existing key
            self.guard_existing_key(current, index, node)
        new = self.emit("call", [current, index, value, self.loc_const(node)],
                        attrs={"fn": helper, "expr": "_zp_" + helper.__name__, "kw": (), "star": ()},
                        node=node, hint=name).result
        self.record_write(name, current, new, node, keys_guarded=keys_guarded)

    def augmented_name(self, name: str, fn, rhs_node, node) -> None:
        """`name op= rhs`: in place when name holds an ndarray (decided while running), a
        plain rebinding where nothing else can reach the array (then no one can tell)."""
        current = self.expr(gast.Name(name, gast.Load(), None, None))
        current = self.read_for_write(name, current, node)
        new_value = self.call_static(fn, (current, self.expr(rhs_node)), node)
        if self.only_reference(name, current):
            self.assign(gast.Name(name, gast.Store(), None, None), new_value, node)
            return
        new = self.augmented_write(name, current, new_value, node)
        self.record_write(name, current, new, node, checked_outside=True)

    def augmented_item(self, hint: str, old: Value, fn, rhs_node, node) -> Value:
        """The value `c[k] op= rhs` stores back into the list or dict c, given old = c[k]:
        Python runs `old.__iop__(rhs)`, which writes an ndarray in place, so every other
        name holding (a view of) that array sees the change, exactly as `y op= rhs` on a
        name does; a number is rebound (decided while running: augmented_write)."""
        new_value = self.call_static(fn, (old, self.expr(rhs_node)), node)
        name = f"{hint}_item"
        new = self.augmented_write(name, old, new_value, node)
        # the container is written back too (it may hold the array at other keys, or
        # views of it): the caller reads it again from its name before storing the item
        self.record_write(name, old, new, node, checked_outside=True)
        return new

    def augmented_write(self, name: str, current: Value, new_value: Value, node) -> Value:
        """The value `current op= rhs` leaves: current written in place when it is an ndarray
        (Python's __iop__), new_value otherwise (decided while running)."""
        info = self.alias_class(current)
        operands = [current, new_value, self.loc_const(node)]
        if info.external or info.params:  # a number is rebound; an array there is refused
            # (a global's) or, in a function called from differentiated code, an argument's
            operands += [self.const(info.external, node), self.const(bool(info.params), node)]
        return self.emit("call", operands,
                         attrs={"fn": writes.augmented_write, "expr": "_zp_augmented_write",
                                "kw": (), "star": ()}, node=node, hint=name).result

    def only_reference(self, name: str, value: Value) -> bool:
        """Whether name is the only way to reach value's object: no argument, global,
        view, container or other name may hold it (so rebinding cannot be told apart)."""
        info = self.alias_class(value)
        if info.params or info.external or info.containers or info.shared:
            return False
        root = self.alias_root(value)
        lowerer = self
        while lowerer is not None:
            for key, bound in lowerer.env.items():
                if not isinstance(bound, Value) or (key == name and lowerer is self):
                    continue
                if bound.id in self.alias_parent and self.alias_root(bound) == root:
                    return False
            lowerer = lowerer.parent
        return True

    def whole_write(self, name: str, current: Value, value: Value, helper, node) -> Value:
        """name[...] = value through helper (write_item, or write_item_augmented for NumPy's
        same_kind casting); returns the array written."""
        current = self.read_for_write(name, current, node)
        self.check_unnamed_value(value, current, node)
        everything = self.const(Ellipsis, node)
        new = self.emit("call", [current, everything, value, self.loc_const(node)],
                        attrs={"fn": helper, "expr": "_zp_" + helper.__name__, "kw": (), "star": ()},
                        node=node, hint=name).result
        self.record_write(name, current, new, node)
        return new

    def fill_array(self, name: str, current: Value, value: Value, node) -> Value:
        """`a.fill(v)`: every element of a set to v (as a[...] = v)."""
        self.whole_write(name, current, value, writes.write_item, node)
        return self.const(None, node)

    def in_place_call(self, fn, callee, operands, star, kw, node):
        """`np.copyto(a, b)` and a ufunc's `out=a` on an array a the function names: the
        result computed as a new array, then written into a (NumPy's same_kind casting).
        None when the call is not one of these."""
        if star or not isinstance(node, gast.Call):
            return None
        if fn is np.copyto and not kw and len(operands) == 2:
            with self.written_name(node.args[0], operands[0]) as name:
                if name is None:
                    return None
                self.whole_write(name, operands[0], operands[1], writes.write_item_augmented,
                                 node)
                return self.const(None, node)
        positional = _IN_PLACE_SIGNATURES.get(_identity(fn))
        if positional is not None:
            return self.positions_write(fn, positional, operands, kw, node)
        if fn is np.copyto and kw == ("where",) and len(operands) == 3:
            with self.written_name(node.args[0], operands[0]) as name:
                if name is None:
                    return None
                # dst[...] = np.where(where, src, dst)
                chosen = self.call_static(np.where, (operands[2], operands[1], operands[0]), node)
                self.whole_write(name, operands[0], chosen, writes.write_item_augmented, node)
                return self.const(None, node)
        if fn is _NDARRAY_SORT:  # np.ndarray.sort(a, ...): as a.sort(...)
            target = node.args[0] if node.args else None
            if isinstance(target, gast.Name) and target.id in self.local_names:
                return self.sort_in_place(target.id, operands[0], operands[1:], kw, node)
            return None
        if _ufunc_at(fn) and not kw and len(operands) == 3:
            with self.written_name(node.args[0], operands[0]) as name:
                if name is None:
                    return None
                self.scatter_write(name, fn.__self__, *operands, node)
                return self.const(None, node)
        if _ufunc_at(fn, _PRODUCT_AT) and not kw and len(operands) == 3:
            with self.written_name(node.args[0], operands[0]) as name:
                if name is None:
                    return None
                # a[...] = ufunc_at(ufunc, a, idx, b): the rule's value
                ufunc = self.static(fn.__self__, f"np.{fn.__self__.__name__}", node)
                result = self.call_static(ufunc_at, (ufunc, *operands), node)
                self.whole_write(name, operands[0], result, writes.write_item_augmented, node)
                return self.const(None, node)
        if isinstance(fn, np.ufunc) and None not in kw:
            return self.ufunc_out(fn, callee, operands, kw, node)
        if "out" in kw and None not in kw and _has_out_rule(fn):
            return self.function_out(fn, callee, operands, kw, node)
        return None

    def function_out(self, fn, callee, operands, kw, node):
        """`np.sum(x, axis=0, out=a)` and other NumPy functions with a rule and an `out=`:
        the result computed as without it, then written into a (its shape checked, NumPy's
        same_kind casting); the call's value is a, as NumPy returns it.  None for out=None
        or an output that is not a name of this function (refused by the caller)."""
        npos = len(operands) - len(kw)
        position = npos + kw.index("out")
        target = next((k.value for k in node.keywords if k.arg == "out"), None)
        if isinstance(target, gast.Constant) and target.value is None:
            return None  # out=None: a new array, as without it
        with self.written_name(target, operands[position]) as name:
            array = self.env.get(name) if name is not None else None
            if not isinstance(array, Value):
                return None
            result = self._call_without(fn, callee, operands, kw, (position,), node)
            self.emit("call", [result, array, self.const(fn.__name__, node), self.loc_const(node)],
                      attrs={"fn": writes.check_output_shape, "expr": "_zp_check_output_shape",
                             "kw": (), "star": ()}, node=node)
            return self.whole_write(name, array, result, writes.write_item_augmented, node)

    def ufunc_out(self, fn, callee, operands, kw, node):
        """A ufunc writing its result into an output array, named by `out=a`, `out=(a,)` or
        passed after the inputs (`np.negative(x, a)`): the result computed, then written
        into a (NumPy's same_kind casting); the call's value is a, as NumPy returns it.
        None when the call has no output array; refused where the output is not a name of
        this function or the ufunc has several outputs."""
        npos = len(operands) - len(kw)
        if npos > fn.nin:
            position, target = fn.nin, node.args[fn.nin]
            if npos > fn.nin + 1 or "out" in kw:
                target = None
        elif "out" in kw:
            position = npos + kw.index("out")
            target = next((k.value for k in node.keywords if k.arg == "out"), None)
            if isinstance(target, gast.Tuple) and len(target.elts) == 1:
                target = target.elts[0]
            elif isinstance(target, gast.Constant) and target.value is None:
                return None  # out=None: a new array, as without it
        else:
            return None
        given = operands[position]
        if given.defining_op is not None and given.defining_op.opcode == "tuple" and \
                len(given.defining_op.operands) == 1:
            given = given.defining_op.operands[0]  # out=(a,)
        with self.written_name(target, given) as name:
            if fn.nout != 1 or name is None:
                raise self.mutation_error(
                    node, f"np.{fn.__name__} writes its result into an output array in place, "
                    "which zygote_py follows for a one-output ufunc writing into an array named "
                    "here (a variable of this function, or an item or view of one)",
                    "use the returned value instead of an output array")
            array = self.env.get(name)
            if not isinstance(array, Value):
                return None
            return self._ufunc_out_write(fn, callee, operands, kw, node, position, name, array)

    def _ufunc_out_write(self, fn, callee, operands, kw, node, position, name, array):
        npos = len(operands) - len(kw)
        where_at = npos + kw.index("where") if "where" in kw else None
        where = operands[where_at] if where_at is not None else None
        result = self._call_without(fn, callee, operands, kw, (position, where_at), node)
        if where is not None:  # NumPy leaves the output as it was where `where` is False
            result = self.call_static(np.where, (where, result, array), node)
        return self.whole_write(name, array, result, writes.write_item_augmented, node)

    def _call_without(self, fn, callee, operands, kw, dropped, node) -> Value:
        """fn called with operands (the last len(kw) by keyword) but those at the positions
        dropped (an output array, a `where=`): the result NumPy would write out."""
        npos = len(operands) - len(kw)
        rest = [v for i, v in enumerate(operands) if i not in dropped]
        rest_kw = tuple(k for i, k in enumerate(kw, npos) if i not in dropped)
        owner = getattr(callee, "defining_op", None)
        expr = owner.attrs.get("expr") if owner is not None and owner.opcode == "const" else None
        return self.emit("call", rest, attrs={"fn": fn, "expr": expr, "kw": rest_kw, "star": ()},
                         node=node).result

    @contextmanager
    def written_name(self, target, value):
        """The name under which an in-place call's target array is written: the variable
        itself, or for an item or view of a variable's value (`buf[1]`, `lst[0]`, already
        evaluated to value) a name of its own for the statement, as Python's
        `a = buf[1]; np.add.at(a, ...)` would be (the write's alias tracking then updates
        buf, or the container holding it).  None for anything else (refused by the caller)."""
        if isinstance(target, gast.Name) and target.id in self.local_names:
            yield target.id
            return
        root = target
        while isinstance(root, gast.Subscript):
            root = root.value
        if not (isinstance(target, gast.Subscript) and isinstance(root, gast.Name)
                and root.id in self.local_names and isinstance(value, Value)):
            yield None
            return
        name = f"{root.id}_item"
        while name in self.env or name in self.local_names:
            name += "_"
        self.env[name] = value
        try:
            yield name
        finally:
            self.env.pop(name, None)

    def refuse_positional_out(self, fn, operands, kw, node) -> None:
        """`np.sum(x, 0, None, y)`: a library function (one with a rule, or none needed)
        given its `out` array positionally would write into it behind the gradient's back
        (and the call, pure otherwise, could be dropped): refused, as `out=y` is."""
        npos = len(operands) - len(kw)
        if npos < 2 or isinstance(fn, np.ufunc):
            return
        try:
            if registry.function_rule(fn) is None and not registry.is_nondifferentiable(fn):
                return  # Python source is transformed; anything else is resolved elsewhere
            index = _positional_out(fn)
        except TypeError:  # unhashable
            return
        if index is not None and index < npos and self.constant_of(operands[index], 0) is not None:
            raise self.mutation_error(
                node, "the output array passed positionally writes the result into an "
                "existing array in place", "use the returned value instead")

    def check_method_out(self, receiver: Value, name: str, operands, kw, node) -> None:
        """`x.sum(0, None, y)`, `x.sum(out=y)`: an ndarray method given an output array
        would write into it behind the gradient's back; whether x is an array is decided
        while running (a user's class may have a method of that name), by
        runtime/writes.refuse_array_out."""
        npos = len(operands) - len(kw)
        position = _METHOD_OUT.get(name)
        given = [("out", operands[position])] if position is not None and npos > position else []
        given += [(key, operand) for key, operand in zip(kw, operands[npos:])]  # x.sum(out=y)
        if not hasattr(np.ndarray, name):
            return
        for key, operand in given:
            if key == "out" and self.constant_of(operand, 0) is not None:
                self.emit("call", [receiver, self.const(name, node), self.loc_const(node)],
                          attrs={"fn": writes.refuse_array_out, "expr": "_zp_refuse_array_out",
                                 "kw": (), "star": ()}, node=node)
                return

    def positions_write(self, fn, names, operands, kw, node, receiver=None):
        """`np.put(a, ind, v)`, `np.place(a, mask, vals)`, `np.fill_diagonal(a, val)`: the
        elements NumPy writes, in its order (runtime/writes.py: *_positions, NumPy's own
        checks), written as `a[positions] = np.resize(v, count)` (the values repeated or cut
        to the count, as NumPy does): an item write (with repeats, the last one wins)."""
        bound = _bind_positional(names, operands, kw)
        target = node.args[0] if node.args else None
        if receiver is not None:  # a.put(ind, v): the method's receiver is the array
            target = receiver
            bound = _bind_positional(names[1:], operands, kw)
            if bound is not None:
                bound["a"] = self.env.get(receiver.id)
        if bound is None or not isinstance(target, gast.Name) or target.id not in self.local_names:
            return None
        array, values = bound.get("a"), bound.get("v")
        if array is None or values is None or (fn is np.put and "ind" not in bound) or \
                (fn is np.place and "mask" not in bound):
            return None  # refused as a call that writes into its argument
        shape = self.call_static(np.shape, (array,), node)
        size = self.call_static(np.size, (values,), node)
        if fn is np.put:
            mode = bound.get("mode") or self.const("raise", node)
            where = self.call_static(writes.put_positions, (shape, bound["ind"], mode, size), node)
        elif fn is np.place:
            where = self.call_static(writes.place_positions, (shape, bound["mask"], size), node)
        elif fn is np.putmask:  # values.flat[i % n] for the element at flat position i
            if "mask" not in bound:
                return None
            found = self.call_static(writes.putmask_positions, (shape, bound["mask"], size), node)
            where = self.call_static(operator.getitem, (found, self.const(0, node)), node)
            taken = self.call_static(operator.getitem, (found, self.const(1, node)), node)
            flat = self.call_static(np.ravel, (values,), node)
            written = self.call_static(operator.getitem, (flat, taken), node)
        elif fn is np.put_along_axis:  # a fancy index; the values broadcast as NumPy's do
            if "indices" not in bound or "axis" not in bound:
                return None
            where = self.call_static(writes.along_axis_positions,
                                     (shape, bound["indices"], bound["axis"]), node)
            written = values
        else:
            wrap = bound.get("wrap") or self.const(False, node)
            where = self.call_static(writes.diagonal_positions, (shape, wrap), node)
        if fn is not np.putmask and fn is not np.put_along_axis:
            count = self.call_static(writes.position_count, (where,), node)
            written = self.call_static(np.resize, (values, count), node)
        new = self.emit("call", [array, where, written, self.loc_const(node)],
                        attrs={"fn": writes.write_item, "expr": "_zp_write_item", "kw": (),
                               "star": ()}, node=node, hint=target.id).result
        self.record_write(target.id, array, new, node)
        return self.const(None, node)

    def sort_in_place(self, name: str, array: Value, operands, kw, node) -> Value:
        """`a.sort(axis=-1, kind=None)`: a[...] = np.sort(a, axis, kind), whose rule routes
        the cotangent through the permutation.  `order=` (structured arrays) is refused."""
        bound = _bind_positional(("axis", "kind", "order"), operands, kw)
        if bound is None or "order" in bound:
            raise self.mutation_error(node, "sort(order=...) sorts a structured array, which "
                                      "zygote_py does not differentiate",
                                      "sort a plain array (a.sort(axis=...))")
        self.emit("call", [array, self.loc_const(node)],
                  attrs={"fn": writes.check_sortable, "expr": "_zp_check_sortable", "kw": (),
                         "star": ()}, node=node)
        args = [array, bound.get("axis") or self.const(-1, node)]
        if "kind" in bound:
            args.append(bound["kind"])
        result = self.call_static(np.sort, args, node)
        self.whole_write(name, array, result, writes.write_item, node)
        return self.const(None, node)

    def scatter_write(self, name: str, ufunc, array: Value, index: Value, value: Value, node):
        """`np.add.at(a, idx, v)` (or subtract): unbuffered, every repeat of an index adds.
        Written as a[...] = a +/- (v scattered into zeros with repeats summed), each step
        a differentiable op."""
        part = self.call_static(operator.getitem, (array, index), node)
        shape = self.call_static(np.shape, (part,), node)
        spread = self.call_static(np.broadcast_to, (value, shape), node)
        scattered = self.call_static(_index_cotangent, (spread, array, index), node)
        combine = operator.add if ufunc is np.add else operator.sub
        total = self.call_static(combine, (array, scattered), node)
        self.whole_write(name, array, total, writes.write_item_augmented, node)

    # -- calls of functions that write into the arrays they are passed ---------------------
    def argument_writing_call(self, fn, operands, star, kw, node):
        """`r = f(u, dt)` where f, a Python function, writes into the array of some
        parameters (the compiler says which: `self.argument_writes`): lowered as
        `(r, u2) = ArgumentWrites(f, ...)(u, dt)`, u2 the same array as u after f wrote
        into it, recorded as a write into u (its names, views and aliases follow it).  None
        when fn is not such a function."""
        if self.argument_writes is None or not isinstance(fn, types.FunctionType) or \
                resolve(fn, registry).kind != FUNCTION or is_library_function(fn):
            return None  # (library code, zygote_py's own helpers: as before, refused where
            # its pullback is compiled if it writes into an argument)
        written = tuple(self.argument_writes(fn))
        if not written:
            return None
        name = getattr(fn, "__name__", "the function")
        if self.untracked_depth:  # as a write written out here (record_write) is refused
            raise self.mutation_error(
                node, f"{name}() writes into arrays passed to it, inside `with zp.no_grad():`, "
                "where the written array's derivatives would be dropped",
                "call it outside the no_grad block, or pass it a copy (u.copy())")
        if star or None in kw:
            raise self.mutation_error(
                node, f"{name}() writes into arrays passed to it, and this call spreads "
                "*args or **kwargs, so which arrays it writes into is not known here",
                "pass the arguments one by one")
        sig = inspect.signature(fn, follow_wrapped=False)
        npos = len(operands) - len(kw)
        try:
            bound = sig.bind(*range(npos), **{k: k for k in kw}).arguments
        except TypeError:
            return None  # the call does not fit: refused where it is transformed
        names = list(sig.parameters)
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in sig.parameters.values()):
            raise self.mutation_error(
                node, f"{name}() writes into arrays passed to it and takes *args or **kwargs, "
                "whose pullback is only found while running, where the write cannot be "
                "followed", f"give {name} named parameters only")
        sources, passed = [], []
        for index in written:
            param = sig.parameters[names[index]]
            if param.name not in bound:
                raise self.mutation_error(
                    node, f"{name}() writes into the default value of its parameter "
                    f"{param.name!r}, an array shared by every call",
                    f"pass the array explicitly ({name}(..., {param.name}=...))")
            source = bound[param.name]
            sources.append(source)
            passed.append(operands[source] if type(source) is int else operands[npos + kw.index(source)])
        wrapper = writes.ArgumentWrites(fn, written, sources)
        self.escape_to_call(fn, operands)  # lower_objects.py
        call = self.emit("call", operands, attrs={"fn": wrapper, "expr": f"{name}_writing",
                                                  "kw": kw, "star": ()}, node=node).result
        parts = self.emit("unpack", [call], nresults=1 + len(written),
                          attrs={"n": 1 + len(written), "star": None}, node=node).results
        # the result may be (a view of) the arguments fn's summary names, or any argument
        # when it has none; the arrays written are the arguments themselves (record_write
        # joins each to its own), so a number passed along does not join them unless the
        # result is used
        summary = self.callee_summary(fn)
        if summary is not None:
            self.join_summarised(parts[0], fn, summary, operands, kw, name)
        else:
            self.alias_union(parts[0], call)
            self.alias_class(parts[0]).opaque = True
            if not isinstance(self.rebinding_index().parents.get(id(node)), gast.Expr):
                for operand in operands:
                    self.alias_union(parts[0], operand)
        self.made_at[parts[0].id] = self.root_lowerer().writes_done
        arg_nodes = list(node.args) + [k.value for k in node.keywords]
        for source, old, new in zip(sources, passed, parts[1:]):
            position = source if type(source) is int else npos + kw.index(source)
            arg = arg_nodes[position] if position < len(arg_nodes) else None
            label = arg.id if isinstance(arg, gast.Name) else "the argument"
            new.hint = old.hint or (arg.id if isinstance(arg, gast.Name) else "")
            self.record_write(label, old, new, node)
        return parts[0]

    def threaded_result(self, result: Value, names, node) -> Value:
        """The threaded variant's return value: (result, each written argument's array as
        the function leaves it)."""
        finals = []
        for name in names:
            value = self.env[written_slot(name)]
            if value.id in self.stale:
                self.check_stale(name, value, node)
            finals.append(value)
        return self.emit("tuple", [result, *finals], node=node).result

    def check_unnamed_value(self, value: Value, array: Value, node) -> None:
        """A value written that may view the array and was made before a write into it,
        read without a name (`A[0], A[1] = A[1], A[0]`: the second row written is a view
        the first write changed): checked while running, as a stale name is."""
        made = self.made_at.get(value.id)
        if made is None or made >= self.root_lowerer().writes_done or \
                self.alias_root(value) != self.alias_root(array):
            return
        self.emit("call", [value, array, self.const("the value written", node), self.loc_const(node)],
                  attrs={"fn": writes.check_unaliased, "expr": "_zp_check_unaliased", "kw": (),
                         "star": ()}, node=node)

    def read_for_write(self, name: str, value: Value, node) -> Value:
        if value.id in self.stale:
            self.check_stale(name, value, node)
        return value

    def record_write(self, name: str, old: Value, new: Value, node, checked_outside=False,
                     contents_replaced=False, keys_guarded=False) -> None:
        info = self.alias_class(old)
        if info.untracked is not None:
            # the untracked value's cotangent is dropped, so the part of the array it shares
            # would lose its derivative (PyTorch refuses such a write too)
            raise self.mutation_error(
                node, f"{name!r} may share memory with a value made under zp.no_grad() "
                f"(line {info.untracked}): a write through it would drop derivatives",
                "make the view outside the no_grad block, or write into a copy")
        if info.external and not checked_outside:
            raise self.mutation_error(
                node, f"{name!r} may be {info.external} (or a view of it): writing into it "
                "would change the program's state outside the function",
                f"write into a copy ({name} = {name}.copy())")
        if info.params and not checked_outside:  # an item write: refused in a called function
            self.root_lowerer().param_writes.append((self.loc(node), sorted(info.params)))
        elif info.params:  # y op= v: refused while running there, if y is an array
            self.root_lowerer().param_writes_in_place.append((self.loc(node), sorted(info.params)))
        self.refuse_write_read_lazily(name, old, node)
        if not contents_replaced and not keys_guarded:  # (a list or dict from outside:
            self.refuse_write_while_iterated(name, old, node)  # checked by its caller)
        self.alias_union(old, new)
        self.root_lowerer().writes_done += 1
        loc = self.loc(node)
        written_back: dict[int, Value] = {}
        # `y op= v` may rebind y to a new number instead of writing: the other names holding
        # y's old value then keep it (decided while running: runtime/writes.same_if_written)
        whole = new.defining_op is not None and new.defining_op.opcode == "call" and any(
            new.defining_op.attrs["fn"] is w for w in _WHOLE_WRITES)
        others_new = None
        lowerer = self
        while lowerer is not None:
            for key, bound in list(lowerer.env.items()):
                if not isinstance(bound, Value):
                    continue
                if lowerer is self and key == name and bound is not new:
                    # the name written is bound to the write's result, whatever it held after
                    # reading `old`: in `a += h(a)`, h may have written into a (or rebound
                    # nothing, a being a number), and Python stores a.__iadd__(...) in a
                    lowerer.env[key] = new
                    continue
                if bound is old and whole and not (lowerer is self and key == name):
                    if others_new is None:
                        others_new = self.emit(
                            "call", [old, new], attrs={"fn": writes.same_if_written,
                                                       "expr": "_zp_same_if_written", "kw": (),
                                                       "star": ()}, node=node, hint=key).result
                    lowerer.env[key] = others_new
                elif bound is old:
                    lowerer.env[key] = new
                elif bound is new or bound.id not in self.alias_parent or \
                        self.alias_root(bound) != self.alias_root(new):  # (writebacks join it)
                    continue
                elif lowerer is self and bound.id not in self.maybe_unbound:
                    # what it holds now: the elements it shares with the written array changed
                    if bound.id not in written_back:
                        written_back[bound.id] = self.emit(
                            "call", [bound, new, self.const(key, node), self.loc_const(node)],
                            attrs={"fn": writes.view_writeback, "expr": "_zp_view_writeback",
                                   "kw": (), "star": ()}, node=node, hint=key).result
                        self.same_container(bound, written_back[bound.id])
                    lowerer.env[key] = written_back[bound.id]
                else:  # unbound on some path, or a name of the function this one is inlined
                    # into: checked when it is read
                    self.stale[bound.id] = (new, loc)
            lowerer = lowerer.parent

    def refuse_write_read_lazily(self, name: str, old: Value, node) -> None:
        """A write into an array that an iterator or generator bound to a variable may
        still read (`it = iter(y)`, `g = (t * y[0] for t in p)`): Python's would see the new
        values, zygote_py's took its items when it was made."""
        vid = self.first_of_class(old, self.read_lazily)
        if vid is not None:
            reader = self.read_lazily[vid]
            raise self.mutation_error(
                node, f"{name!r} is written while {reader!r}, an iterator or generator made "
                "from it, may still read it (Python's would see the new values; zygote_py's "
                "took them when it was made)",
                f"make {reader!r} after the write, or write into a copy")

    def refuse_write_while_iterated(self, name: str, old: Value, node) -> None:
        """A write into an array or a list from outside while a for loop iterates over it
        (or over memory it shares), other than through the loop's own row (`for row in A:
        row *= c`): Python's loop reads each item when it gets there, so a write ahead of
        it changes what later iterations see, which the loop's derivatives would not."""
        if not self.is_loop_row(old) and self.first_of_class(old, self.iterated_by_value) is not None:
            raise self.mutation_error(
                node, f"{name!r} is written while a for loop iterates over it (or over "
                "memory it shares), and Python's loop would read the new values",
                "iterate over a copy (for v in list(a), or a.copy()), or loop over "
                "range(len(a)) and index")

    def is_loop_row(self, value: Value) -> bool:
        """value is a for loop's target (`row` in `for row in A`, `for i, row in ...`)."""
        if value.id in self.loop_targets:
            return True
        op = value.defining_op
        if op is not None and op.opcode == "unpack":
            source = op.operands[0].defining_op
            if source is not None and source.opcode == "tuple":
                k = op.results.index(value)
                return k < len(source.operands) and source.operands[k].id in self.loop_targets
        return False

    def first_of_class(self, value: Value, ids) -> int | None:
        """The first of the value ids that is in value's may-alias class, or None."""
        if not ids:
            return None
        root, parent = self.alias_root(value), self.alias_parent
        for vid in ids:
            member = vid
            while member in parent and member != parent[member]:
                member = parent[member]
            if member in parent and member == root:
                return vid
        return None

    def same_container(self, old: Value, new: Value) -> None:
        """new is old's list or dict after a write into an array it holds: the same object,
        so a container made here stays one (its updates are followed, not refused)."""
        kind = self.kind_of(old)
        if kind is None:
            return
        self.consumed.add(old.id)
        self.fresh.add(new.id)
        self.kinds[new.id] = kind
        if old.id in self.escaped:
            self.escaped.add(new.id)

    def check_arguments_at_entry(self, params, node) -> None:
        _entry_check(self, params, node)

    def root_lowerer(self):
        lowerer = self
        while lowerer.parent is not None:
            lowerer = lowerer.parent
        return lowerer

    # -- stale reads ----------------------------------------------------------------------
    def check_stale(self, name: str, value: Value, node) -> None:
        buffer, written_at = self.stale[value.id]
        if buffer is None or not self._in_scope(buffer):
            raise self.mutation_error(
                node, f"{name!r} may share memory with an array written at line "
                f"{written_at.line if written_at else '?'}, so its values may have changed "
                "behind its name", f"take a copy before the write ({name} = ....copy()), or "
                "compute it again after the write")
        self.emit("call", [value, buffer, self.const(name, node), self.loc_const(node)],
                  attrs={"fn": writes.check_unaliased, "expr": "_zp_check_unaliased", "kw": (),
                         "star": ()}, node=node)
        del self.stale[value.id]  # checked once: the next write marks it again

    # -- control flow ---------------------------------------------------------------------
    def merge_stale(self, branch_stales, yields, results) -> None:
        """After an `if`: a value stale in either branch is stale after it; a written array
        that a branch yields is, after the `if`, the `if`'s result."""
        merged = {}
        for stale, values in zip(branch_stales, yields):
            for vid, (buffer, loc) in stale.items():
                merged[vid] = (self._outer_buffer(buffer, values, results), loc)
            for value, result in zip(values, results):
                mark = stale.get(value.id)
                if mark is not None:
                    merged[result.id] = (self._outer_buffer(mark[0], values, results), mark[1])
        self.stale = merged

    def _outer_buffer(self, buffer, values, results):
        """The written array as seen after a region ends: itself if defined outside it, the
        region's result that carries it out, else None (a later read is refused)."""
        if buffer is None or self._in_scope(buffer):
            return buffer
        for value, result in zip(values, results):
            if value is buffer:
                return result
        return None

    def enter_loop_stale(self, inits, arg_lists) -> tuple[dict, dict]:
        """Stale marks of the loop's initial values hold for its block arguments."""
        before = dict(self.stale)
        entry = {}
        for init, *args in zip(inits, *arg_lists):
            mark = before.get(init.id)
            if mark is not None:
                for arg in args:
                    self.stale[arg.id] = mark
                    entry[arg.id] = mark
        return before, entry

    def leave_loop_stale(self, before, entry, names, arg_lists, yields, regions, inits, results,
                         node) -> None:
        """A value stale at the end of an iteration is what the next one starts with: refused
        if the loop reads it (that read was lowered before the write and not checked).  After
        the loop, a result is stale if its initial value or its last yield is."""
        body_stale = self.stale
        for k, (name, value) in enumerate(zip(names, yields)):
            mark = body_stale.get(value.id) if isinstance(value, Value) else None
            if mark is None:
                continue
            args = [arg_list[k] for arg_list in arg_lists]
            if all(entry.get(arg.id) == mark for arg in args):
                continue  # the same mark the loop started with: its reads were checked
            if any(_uses(region, arg) for region in regions for arg in args):
                raise self.mutation_error(
                    node, f"{name!r} may share memory with an array this loop writes, and the "
                    "next iteration reads it", f"compute {name} inside the loop, after the "
                    "write, or take a copy (.copy())")
        self.stale = before
        for k, result in enumerate(results):
            value = yields[k]
            mark = body_stale.get(value.id) if isinstance(value, Value) else None
            if mark is None:
                mark = before.get(inits[k].id)
            if mark is not None:
                self.stale[result.id] = (self._outer_buffer(mark[0], yields, results), mark[1])


_NOT_CONST = object()


def _ufunc_at(fn, ufuncs=None) -> bool:
    """np.add.at or np.subtract.at (the ufunc.at forms written as a scatter), or ufunc.at
    of one of ufuncs."""
    owner = getattr(fn, "__self__", None)
    ufuncs = ufuncs or (np.add, np.subtract)
    return any(owner is u for u in ufuncs) and getattr(fn, "__name__", "") == "at"


_PRODUCT_AT = (np.multiply, np.divide)  # ufunc.at with a rule (rules/ufunc_methods.py: ufunc_at)
_SEQUENCE_OPERATORS = {operator.add, operator.mul, operator.concat}
# NumPy's in-place functions written as item writes (positions_write): their parameters,
# with "a" the array written and "v" the values ("val", "vals" in NumPy's own names)
_IN_PLACE_SIGNATURES = {id(np.put): ("a", "ind", "v", "mode"),
                        id(np.place): ("a", "mask", "v"),
                        id(np.putmask): ("a", "mask", "v"),
                        id(np.put_along_axis): ("a", "indices", "v", "axis"),
                        id(np.fill_diagonal): ("a", "v", "wrap")}
_KEYWORD_NAMES = {"arr": "a", "vals": "v", "val": "v", "values": "v"}
_NDARRAY_SORT = np.ndarray.sort
# the position of `out` among the arguments of ndarray methods that take one (NumPy's own
# order, the same in NumPy 1.26 and 2.x, whose method signatures are not always readable)
_METHOD_OUT = {"sum": 2, "mean": 2, "prod": 2, "cumsum": 2, "cumprod": 2, "std": 2, "var": 2,
               "max": 1, "min": 1, "argmax": 1, "argmin": 1, "ptp": 1, "all": 1, "any": 1,
               "clip": 2, "round": 1, "dot": 1, "trace": 4, "take": 2, "choose": 1,
               "compress": 2}


def _has_out_rule(fn) -> bool:
    """fn is a NumPy function (not a ufunc) with a derivative rule and an `out` parameter:
    its `out=a` is the result written into a."""
    if isinstance(fn, np.ufunc) or not (getattr(fn, "__module__", None) or "").startswith("numpy"):
        return False
    try:
        if registry.function_rule(fn) is None:
            return False
        return "out" in inspect.signature(fn).parameters
    except (TypeError, ValueError):  # unhashable, or no signature to read
        return False


def _identity(fn):
    return id(fn)


def _bind_positional(names, operands, kw) -> dict | None:
    """name -> operand for a call of a NumPy function with these parameters (NumPy's
    keyword names mapped by _KEYWORD_NAMES); None when it does not fit."""
    npos = len(operands) - len(kw)
    if npos > len(names):
        return None
    bound = dict(zip(names, operands[:npos]))
    for key, value in zip(kw, operands[npos:]):
        key = _KEYWORD_NAMES.get(key, key)
        if key not in names or key in bound:
            return None
        bound[key] = value
    return bound


def _argument_writes_call(value: Value) -> bool:
    op = value.defining_op
    return op is not None and op.opcode == "call" and type(op.attrs["fn"]) is writes.ArgumentWrites


def _makes_container(value: Value) -> bool:
    op = value.defining_op
    return op is not None and op.opcode in CONTAINER_OPS
_WHOLE_WRITES = (writes.augmented_write, writes.augmented_write_in_callee)
_WRITES = (writes.write_item, writes.write_item_augmented, writes.augmented_write,
           writes.view_writeback)
_VIEW_OF_FIRST = (operator.getitem, *_WRITES)


def _first_operand_only(fn) -> bool:
    return any(fn is f for f in _VIEW_OF_FIRST)


def _uses(block, value: Value) -> bool:
    for op in block.walk():
        if any(operand is value for operand in op.operands):
            return True
    return False


def _entry_check(lowerer, params, node) -> None:
    """At the function's entry: the arguments written into share memory with no other input
    (argument, closure variable or module global the function reads)."""
    body = lowerer.root_block
    index = 0
    while index < len(body.ops) and body.ops[index].opcode == "cell":
        index += 1
    cells = [op.result for op in body.ops[:index]]
    names = []
    namespace = lowerer.pyfn.__globals__
    for op in body.walk():  # (a name not defined now is not read at entry: no NameError)
        if op.opcode == "global" and op.attrs["name"] not in names and op.attrs["name"] in namespace:
            names.append(op.attrs["name"])
    records = lowerer.param_writes + lowerer.param_writes_in_place
    written = sorted({i for _, indices in records for i in indices})
    loc = records[0][0]
    with lowerer.builder.at(body, index):
        reads = [lowerer.builder.emit("global", (), attrs={"name": n}, hints=[n]).result for n in names]
        values = lowerer.builder.emit("tuple", [*params, *cells, *reads]).result
        lowerer.builder.call(writes.check_distinct_arguments, values,
                             lowerer.builder.const(tuple(written)),
                             lowerer.builder.emit("const", (), attrs={"value": loc, "expr": "loc"}).result,
                             expr="_zp_check_distinct_arguments")


@functools.lru_cache(maxsize=1024)  # asked at every call of a library function; a
def _positional_out(fn) -> int | None:  # function's signature does not change
    """The position of fn's `out` parameter where it may be passed positionally, else None
    (also where fn has no signature to read)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    for index, param in enumerate(params):
        if param.name == "out":
            return index if param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD) \
                else None
    return None
