"""Lowering of iteration: for-loop headers and the iterator builtins as values.

What a call means is decided by the object called, resolved when the code
is lowered (`zip` is the builtin zip only if the name holds it).  A `for`
over `range`, `zip`, `enumerate` or `reversed` called with plain positional
arguments is lowered to a loop of that kind, which reads the sequences by
position and needs no iterator object.  Everywhere else these builtins, and
`iter`, `next`, `itertools.chain`/`product`/`accumulate`, become calls of the
forms in runtime/iterators.py, which return one-shot `Items` iterators with
derivative rules; `map` and `filter` become loops (so the function they apply
is differentiated like any call).  A loop over a value that may be such an
iterator reads it through `for_pass`, which remembers where its cursor stood.
"""

from __future__ import annotations

import builtins
import functools
import itertools

import gast

from ..ir.core import Value
from ..runtime import iterators as forms
from .lower_expr import LocalFunction

# builtin -> its form returning an Items iterator
ITERATOR_FORMS = {
    builtins.zip: forms.zip_items, builtins.enumerate: forms.enumerate_items,
    builtins.reversed: forms.reversed_items, builtins.iter: forms.iter_items,
    itertools.chain: forms.chain_items, itertools.product: forms.product_items,
    itertools.accumulate: forms.accumulate_items,
}
# loops of these kinds read their sequences by position (ir: the `for` op's kind attr)
_LOOP_KINDS = {builtins.range: "range", builtins.zip: "zip", builtins.enumerate: "enumerate",
               builtins.reversed: "reversed"}
# values a for loop can read directly: they are never an Items iterator
_PLAIN_ITERABLES = ("list", "tuple", "dict", "const", "append", "extend", "setitem")
_PLAIN_CALLS = {builtins.list: True, builtins.tuple: True, builtins.sorted: True,
                builtins.range: True, builtins.dict: True}


def _lookup(table, obj):
    try:
        return table.get(obj)
    except TypeError:  # an unhashable callee
        return None


class IteratorLowering:
    """Mixin of the Lowerer: loop headers, iterator builtins, map and filter."""

    def for_iteration(self, iter_node):
        """(kind, iterable values, number of targets) for a for loop's iterator."""
        if isinstance(iter_node, gast.Call) and isinstance(iter_node.func, gast.Name):
            callee = self.expr_or_function(iter_node.func)
            plain = not iter_node.keywords and not any(isinstance(a, gast.Starred) for a in iter_node.args)
            kind = _lookup(_LOOP_KINDS, self.constant_of(callee, None)) if plain and _is_value(callee) else None
            nargs = len(iter_node.args)
            if kind is not None and (kind == "range" or (kind == "zip" and nargs)
                                     or (kind == "enumerate" and nargs in (1, 2))
                                     or (kind == "reversed" and nargs == 1)):
                args = [self.expr(a) for a in iter_node.args]
                if kind == "enumerate" and len(args) == 1:
                    args.append(self.const(0, iter_node))
                return kind, args, len(args) if kind == "zip" else (2 if kind == "enumerate" else 1)
            value = self.lower_call(iter_node, callee)
        else:
            value = self.expr(iter_node)
        return "iter", [self.loop_source(value, iter_node)], 1

    def loop_source(self, value, node):
        """value, read through for_pass unless it is known not to be an iterator."""
        op = value.defining_op
        if op is None and value.owner is self.root_block:  # a parameter of the function
            return value
        if op is not None and op.opcode in _PLAIN_ITERABLES:
            return value
        if op is not None and op.opcode == "call" and _lookup(_PLAIN_CALLS, op.attrs.get("fn")):
            return value
        return self.call_static(forms.for_pass, (value,), node)

    def iterator_call(self, obj, operands, star, kw, node):
        """A call of an iterator builtin as a value, lowered to its form (or None)."""
        if obj is builtins.next:
            if star or kw or len(operands) not in (1, 2):
                raise self.unsupported(node, "next() takes an iterator and an optional default",
                                       "call next(it) or next(it, default)")
            pair = self.emit("call", list(operands), node=node,
                             attrs={"fn": forms.next_item, "expr": "next_item", "kw": (), "star": ()}).result
            return self.emit("unpack", [pair], nresults=2, node=node, attrs={"n": 2, "star": None}).results[0]
        form = _lookup(ITERATOR_FORMS, obj)
        if form is None:
            return None
        if obj is itertools.accumulate and (len(operands) - len(kw) != 1 or set(kw) - {"initial"}):
            raise self.unsupported(node, "itertools.accumulate with a function is not supported",
                                   "write the running total as a loop")
        if obj is builtins.iter and (len(operands) != 1 or star or kw):
            raise self.unsupported(node, "iter(callable, sentinel) is not supported",
                                   "write the loop with while")
        return self.emit("call", list(operands), node=node, attrs={
            "fn": form, "expr": form.__name__, "kw": kw, "star": star}).result

    def map_or_filter(self, obj, node):
        """map(fn, *iterables) / filter(fn, iterable) as a loop building a list, as an iterator."""
        args = node.args
        if node.keywords or any(isinstance(a, gast.Starred) for a in args) \
                or len(args) < 2 or (obj is builtins.filter and len(args) != 2):
            raise self.unsupported(node, f"this call of {obj.__name__}() is not supported",
                                   f"pass a function and {'iterables' if obj is builtins.map else 'an iterable'} "
                                   "positionally, or write a comprehension")
        fn = self.expr_or_function(args[0])
        sources = [self.expr(a) for a in args[1:]]
        if len(sources) == 1:
            source = sources[0]
        else:
            source = self.emit("call", sources, node=node, attrs={
                "fn": forms.zip_items, "expr": "zip_items", "kw": (), "star": ()}).result
        names = [f"_zp_item{k}" for k in range(len(sources))]
        load = lambda name: gast.copy_location(gast.Name(name, gast.Load(), None, None), node)
        store = lambda name: gast.copy_location(gast.Name(name, gast.Store(), None, None), node)
        target = store(names[0]) if len(names) == 1 else \
            gast.copy_location(gast.Tuple([store(n) for n in names], gast.Store()), node)
        if obj is builtins.map:
            elt = gast.copy_location(gast.Call(load("_zp_fn"), [load(n) for n in names], []), node)
            ifs = []
        else:
            elt = load(names[0])
            test = load(names[0]) if self.constant_of(fn, 0) is None else \
                gast.copy_location(gast.Call(load("_zp_fn"), [load(names[0])], []), node)
            ifs = [test]
        generator = gast.comprehension(target=target, iter=load("_zp_source"), ifs=ifs, is_async=0)
        comp = gast.copy_location(gast.ListComp(elt=elt, generators=[generator]), node)
        saved_env, saved_locals = dict(self.env), self.local_names
        self.local_names = self.local_names | {"_zp_fn", "_zp_source"}
        self.env.update({"_zp_fn": fn, "_zp_source": source})
        try:
            items = self.comprehension(comp, "list")
        finally:
            self.env, self.local_names = saved_env, saved_locals
        return self.call_static(forms.list_of_items, (items,), node)


    def reduce_or_starmap(self, obj, node):
        """functools.reduce(fn, iterable[, initial]) as the loop it runs, and
        itertools.starmap(fn, iterable) as map over the unpacked items: the function is
        then differentiated at each step like any call in a loop."""
        args = node.args
        arity = (2, 3) if obj is functools.reduce else (2,)
        if node.keywords or any(isinstance(a, gast.Starred) for a in args) or len(args) not in arity:
            raise self.unsupported(node, f"this call of {obj.__name__}() is not supported",
                                   "pass the function and the iterable (and the initial value) "
                                   "positionally, or write the loop")
        load = lambda name: gast.copy_location(gast.Name(name, gast.Load(), None, None), node)
        store = lambda name: gast.copy_location(gast.Name(name, gast.Store(), None, None), node)
        call = lambda fn, *a: gast.copy_location(gast.Call(load(fn), list(a), []), node)
        fn = self.expr_or_function(args[0])
        source = self.expr(args[1])
        scratch = {"_zp_fn": fn, "_zp_source": source,
                   "_zp_iter": self.static(builtins.iter, "iter", node),
                   "_zp_next": self.static(builtins.next, "next", node)}
        saved_locals = self.local_names
        self.local_names = self.local_names | set(scratch) | {"_zp_acc", "_zp_item", "_zp_it"}
        self.env.update(scratch)
        try:
            if obj is itertools.starmap:
                arity = _fixed_arity(fn)
                if arity is None:  # fn(*item), resolved when it runs
                    target = store("_zp_item")
                    elt = call("_zp_fn", gast.copy_location(gast.Starred(load("_zp_item"), gast.Load()), node))
                else:  # a nested function (inlined): its parameters, unpacked from each item
                    names = [f"_zp_arg{k}" for k in range(arity)]
                    self.local_names = self.local_names | set(names)
                    target = gast.copy_location(gast.Tuple([store(n) for n in names], gast.Store()), node)
                    elt = call("_zp_fn", *[load(n) for n in names])
                generator = gast.comprehension(target=target, iter=load("_zp_source"), ifs=[], is_async=0)
                comp = gast.copy_location(gast.ListComp(elt=elt, generators=[generator]), node)
                items = self.comprehension(comp, "list")
                return self.call_static(forms.list_of_items, (items,), node)
            if len(args) == 3:
                self.env["_zp_acc"] = self.expr(args[2])
                loop_over = load("_zp_source")
            else:  # the first item starts the total (an empty iterable: Python's error)
                self.stmt(gast.copy_location(gast.Assign([store("_zp_it")], call("_zp_iter", load("_zp_source")), None), node))
                self.stmt(gast.copy_location(gast.Assign([store("_zp_acc")], call("_zp_next", load("_zp_it")), None), node))
                loop_over = load("_zp_it")
            step = gast.copy_location(gast.Assign([store("_zp_acc")], call("_zp_fn", load("_zp_acc"), load("_zp_item")), None), node)
            self.stmt(gast.copy_location(gast.For(store("_zp_item"), loop_over, [step], [], None), node))
            return self.env["_zp_acc"]
        finally:
            for name in [*scratch, "_zp_acc", "_zp_item", "_zp_it",
                         *(n for n in self.env if n.startswith("_zp_arg"))]:
                self.env.pop(name, None)
            self.local_names = saved_locals


def _fixed_arity(fn) -> int | None:
    """The number of parameters of a nested function that takes exactly that many
    positional arguments (no defaults, *args, keyword-only or **kwargs), else None."""
    if not isinstance(fn, LocalFunction):
        return None
    a = fn.node.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.defaults:
        return None
    return len(a.posonlyargs) + len(a.args)


def _is_value(callee) -> bool:
    return isinstance(callee, Value)
