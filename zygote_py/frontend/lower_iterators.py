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

Python computes an item of `map`, `filter` or a generator expression when it is
read.  A for loop, any(), all() or next() reading one where it is made runs its
loop as their own (`fused_for`, `fused_reading`), so that holds exactly.  One read
to its end at once (sum, list, sorted, ...) is computed in Python's order.  Any
other is computed when it is made, only where computing an item has no effect
(item_effects.py; otherwise refused), and bracketed by begin_ahead/end_ahead so
that an item raising there is reported as such (runtime/iterators.py).
"""

from __future__ import annotations

import builtins
import copy
import functools
import itertools
import math

import gast

from ..ir.core import Value
from ..runtime import iterators as forms
from ..ir.purity import may_be_iterator
from .item_effects import describe_effect, first_effect
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

    # -- items computed where they are read -----------------------------------------
    # Python's map, filter and generator expressions compute an item when it is read.
    # Where the code that reads them is a for loop, any(), all() or next(), the lowering
    # runs the iterator's loop *as* that loop: `for y in map(f, xs): body` becomes
    # `for v in xs: y = f(v); body`, so each item is computed when the loop reaches it
    # (a break, a return, an item that raises, an effect of f: all as in Python), and its
    # derivative is an ordinary loop's.

    def fused_for(self, node):
        """The for statement node rewritten as a loop over the source of the map(),
        filter() or generator expression it iterates, computing each item where the loop
        reads it; None where node is lowered as it is."""
        if getattr(node, "_zp_comprehension", False):
            return None
        it = node.iter
        if isinstance(it, gast.GeneratorExp):
            return self._fused_generator(node, it)
        obj = self._builtin_called(it)
        if obj is builtins.map and len(it.args) >= 2:
            return self._fused_map(node, it)
        if obj is builtins.filter and len(it.args) == 2:
            return self._fused_filter(node, it)
        if obj is builtins.enumerate and len(it.args) in (1, 2) and self._fusable(it.args[0]) \
                and (len(it.args) == 1 or isinstance(it.args[1], (gast.Constant, gast.Name))):
            return self._fused_enumerate(node, it)
        return None

    def _fusable(self, node) -> bool:
        """node is a map(), filter() or generator expression a loop can run as its own."""
        if isinstance(node, gast.GeneratorExp):
            return self._fusable_generator(node)
        return self._builtin_called(node) in (builtins.map, builtins.filter)

    def _fused_enumerate(self, node, call):
        """for i, y in enumerate(<map, filter or generator>, start): a count of the items
        read, kept by the loop (the count goes up before the body runs, as enumerate's)."""
        k = self._fresh_index()
        at = lambda n: gast.copy_location(n, call)
        count = f"_zp_enum{k}_count"
        item = f"_zp_enum{k}_item"
        load = lambda name: at(gast.Name(name, gast.Load(), None, None))
        store = lambda name: at(gast.Name(name, gast.Store(), None, None))
        start = call.args[1] if len(call.args) == 2 else at(gast.Constant(0, None))
        self.local_names = self.local_names | {count}
        self.stmt(at(gast.Assign([store(count)], start, None)))
        pair = at(gast.Tuple([load(count), load(item)], gast.Load()))
        step = at(gast.Assign([store(count)], at(gast.BinOp(load(count), gast.Add(), at(gast.Constant(1, None)))), None))
        body = [at(gast.Assign([node.target], pair, None)), step, *node.body]
        # (the inner loop over the map, filter or generator is fused in turn by stmt_For)
        return _fused(gast.For(store(item), call.args[0], body, node.orelse, None), node, f"_zp_enum{k}_")

    def lower_fused_for(self, fused) -> None:
        """Lower the loop fused_for made (its scratch names live only while it is lowered)."""
        saved_locals = self.local_names
        scratch = set(bound_scratch(fused))
        self.local_names = self.local_names | scratch
        try:
            self.stmt_For(fused)
        finally:
            self.local_names = saved_locals
            for name in scratch:  # this loop's own (a name of the body's is the body's)
                if name.startswith(fused._zp_scratch):
                    self.env.pop(name, None)

    def fused_reading(self, obj, node):
        """any(...), all(...) or next(...[, default]) of a map(), filter() or generator
        expression, lowered as the loop that reads it and stops at the first item that
        decides (None: lowered as a call)."""
        if node.keywords or any(isinstance(a, gast.Starred) for a in node.args):
            return None
        nargs = len(node.args)
        if not (nargs == 1 or (obj is builtins.next and nargs == 2
                                and isinstance(node.args[1], (gast.Constant, gast.Name)))):
            return None  # (a default with effects would run before the source, not after)
        source = node.args[0]
        if not self._fusable(source):
            return None
        k = self._fresh_index()
        result, item, found = f"_zp_read{k}_result", f"_zp_read{k}_item", f"_zp_read{k}_found"
        at = lambda n: gast.copy_location(n, node)
        load = lambda name: at(gast.Name(name, gast.Load(), None, None))
        store = lambda name: at(gast.Name(name, gast.Store(), None, None))
        assign = lambda name, value: at(gast.Assign([store(name)], value, None))
        const = lambda value: at(gast.Constant(value, None))
        if obj is builtins.next:
            prelude = [assign(found, const(False))]
            if nargs == 2:
                prelude.append(assign(result, node.args[1]))
            body = [assign(result, load(item)), assign(found, const(True)), at(gast.Break())]
        else:  # any stops at the first true item, all at the first false one
            prelude = [assign(result, const(obj is builtins.all))]
            test = load(item) if obj is builtins.any else \
                at(gast.UnaryOp(gast.Not(), load(item)))
            body = [at(gast.If(test, [assign(result, const(obj is builtins.any)), at(gast.Break())], []))]
        loop = at(gast.For(store(item), source, body, [], None))
        stmts = [*prelude, loop]
        if obj is builtins.next and nargs == 1:  # Python's StopIteration when nothing is left
            stop = self.static(StopIteration, "StopIteration", node)
            self.env[f"_zp_read{k}_stop"] = stop
            stmts.append(at(gast.If(at(gast.UnaryOp(gast.Not(), load(found))),
                                    [at(gast.Raise(load(f"_zp_read{k}_stop"), None))], [])))
        saved_locals = self.local_names
        scratch = {result, item, found, f"_zp_read{k}_stop"}
        self.local_names = self.local_names | scratch
        try:
            self.stmts(stmts)
            return self.env[result]
        finally:
            self.local_names = saved_locals
            for name in scratch:
                self.env.pop(name, None)

    def _builtin_called(self, node):
        """The builtin a call node calls by a plain name, with plain positional arguments
        (map and filter are asked about), else None."""
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)) or node.keywords \
                or any(isinstance(a, gast.Starred) for a in node.args):
            return None
        return self._static_object_or_none(node.func)

    def _fresh_index(self) -> int:
        index = self.__dict__.get("_fused_count", 0)
        self._fused_count = index + 1
        return index

    def _fused_map(self, node, call):
        k = self._fresh_index()
        at = lambda n: gast.copy_location(n, call)
        load = lambda name: at(gast.Name(name, gast.Load(), None, None))
        store = lambda name: at(gast.Name(name, gast.Store(), None, None))
        fn_name = f"_zp_map{k}_fn"
        self.env[fn_name] = self.expr_or_function(call.args[0])  # map evaluates it first
        items = [f"_zp_map{k}_item{j}" for j in range(len(call.args) - 1)]
        if len(items) == 1:
            target, source = store(items[0]), call.args[1]
        else:  # map(f, a, b) reads a and b in step and stops with the shorter, as zip does
            self.env[f"_zp_map{k}_zip"] = self.static(builtins.zip, "zip", call)
            target = at(gast.Tuple([store(n) for n in items], gast.Store()))
            source = at(gast.Call(load(f"_zp_map{k}_zip"), list(call.args[1:]), []))
        item = at(gast.Call(load(fn_name), [load(n) for n in items], []))
        body = [at(gast.Assign([node.target], item, None)), *node.body]
        return _fused(gast.For(target, source, body, node.orelse, None), node, f"_zp_map{k}_")

    def _fused_filter(self, node, call):
        k = self._fresh_index()
        at = lambda n: gast.copy_location(n, call)
        load = lambda name: at(gast.Name(name, gast.Load(), None, None))
        fn = self.expr_or_function(call.args[0])
        item = f"_zp_filter{k}_item"
        if self.constant_of(fn, 0) is None:  # filter(None, xs): the true items
            test = load(item)
        else:
            self.env[f"_zp_filter{k}_fn"] = fn
            test = at(gast.Call(load(f"_zp_filter{k}_fn"), [load(item)], []))
        body = [at(gast.If(test, [at(gast.Assign([node.target], load(item), None)), *node.body], []))]
        target = at(gast.Name(item, gast.Store(), None, None))
        return _fused(gast.For(target, call.args[1], body, node.orelse, None), node, f"_zp_filter{k}_")

    def _fusable_generator(self, gen) -> bool:
        return len(gen.generators) == 1 and not gen.generators[0].is_async

    def _fused_generator(self, node, gen):
        """(elt for v in xs if c) read by a for loop: its variables are renamed so that
        they stay out of the loop body's sight, as the generator's own scope keeps them."""
        if not self._fusable_generator(gen):
            return None
        comp = gen.generators[0]
        names = _plain_target_names(comp.target)
        if names is None:
            return None
        k = self._fresh_index()
        renamer = _Renamer({n: f"_zp_gen{k}_{n}" for n in names})
        target = renamer.renamed(comp.target)
        elt = renamer.renamed(gen.elt)
        conds = [renamer.renamed(c) for c in comp.ifs]
        if renamer.blocked:
            return None
        inner = [gast.copy_location(gast.Assign([node.target], elt, None), gen), *node.body]
        for cond in reversed(conds):
            inner = [gast.copy_location(gast.If(cond, inner, []), cond)]
        return _fused(gast.For(target, comp.iter, inner, node.orelse, None), node, f"_zp_gen{k}_")

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

    def iterator_type_call(self, obj, operands, star, kw, node):
        """type(x) of what may be an iterator made here, and isinstance(x, cls) where cls is
        a type no Items class can derive from (types.GeneratorType, ...), answered with
        Python's types (runtime/iterators.py: type_of, isinstance_of); else None."""
        if star or kw or (getattr(self.pyfn, "__module__", None) or "").startswith("zygote_py."):
            return None  # (zygote_py's own rules and helpers never meet one of these iterators)
        if obj is builtins.type and len(operands) == 1 and may_be_iterator(operands[0]):
            return self.call_static(forms.type_of, operands, node)
        if obj is builtins.isinstance and len(operands) == 2:
            classes = self._classes_named(operands[1])
            if any(c in forms.UNSUBCLASSABLE_CLASSES for c in classes if isinstance(c, type)) \
                    or (None in classes and may_be_iterator(operands[0])):
                return self.call_static(forms.isinstance_of, operands, node)
        return None

    def _classes_named(self, value) -> tuple:
        """The classes an isinstance() class argument names (None for one known only
        while running)."""
        op = value.defining_op
        if op is not None and op.opcode == "tuple":
            return tuple(c for item in op.operands for c in self._classes_named(item))
        known = self.constant_of(value, None)
        return known if isinstance(known, tuple) else (known,)

    def map_or_filter(self, obj, node):
        """map(fn, *iterables) / filter(fn, iterable) as a loop building a list, as an iterator."""
        args = node.args
        if node.keywords or any(isinstance(a, gast.Starred) for a in args) \
                or len(args) < 2 or (obj is builtins.filter and len(args) != 2):
            raise self.unsupported(node, f"this call of {obj.__name__}() is not supported",
                                   f"pass a function and {'iterables' if obj is builtins.map else 'an iterable'} "
                                   "positionally, or write a comprehension")
        if self.never_read(node):  # Python computes no item: only fn and the sources are evaluated
            self.expr_or_function(args[0])
            return self.made_but_never_read([self.expr(a) for a in args[1:]], node)
        fn = self.expr_or_function(args[0])
        sources = [self.expr(a) for a in args[1:]]
        ahead = self.begin_items_ahead(node)  # (after what map evaluates when it is made)
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
        items = self.finish_items_ahead(items, ahead, node, f"the function given to {obj.__name__}()")
        return self.call_static(forms.list_of_items, (items, self.static(obj, obj.__name__, node)), node)

    # -- items computed ahead (runtime/iterators.py: begin_ahead) ---------------------
    @property
    def read_at_once(self) -> set:
        """ids of the argument nodes that a call reads to their end at once (sum, list,
        sorted, ...): a map, filter or generator there computes its items as Python's
        would, in order and with nothing in between."""
        return self.__dict__.setdefault("_read_at_once", set())

    def note_read_at_once(self, obj, node) -> None:
        if node.args and not isinstance(node.args[0], gast.Starred) and _reads_to_the_end(obj, node):
            self.read_at_once.add(id(node.args[0]))

    def never_read(self, node) -> bool:
        """node (a map, filter or generator expression) is a statement of its own, or the
        value of `name = ...` where the function reads `name` nowhere: Python computes none
        of its items."""
        parent = self.rebinding_index().parents.get(id(node))
        if isinstance(parent, gast.Expr):
            return True
        if not (isinstance(parent, gast.Assign) and parent.value is node and len(parent.targets) == 1
                and isinstance(parent.targets[0], gast.Name)):
            return False
        name = parent.targets[0].id
        return not any(isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Store)
                       for n in gast.walk(self.node))

    def made_but_never_read(self, sources, node):
        """The iterator over sources (already evaluated) that is never read: iter() of each,
        as Python's map or generator calls it when it is made (a TypeError for a number)."""
        made = [self.call_static(forms.iter_items, (source,), node) for source in sources]
        return made[-1]

    def begin_items_ahead(self, node):
        """The depth begin_ahead returns, where node (a map, filter or generator
        expression) computes its items when it is made, not as they are read; None where
        it is read at once."""
        if id(node) in self.read_at_once:
            return None
        return self.call_static(forms.begin_ahead, (self.const(self.loc(node), node),), node)

    def begin_items_ahead_before(self, built, node):
        """begin_items_ahead for a generator expression whose loop is lowered already
        (built: its list): put before the loop, after the first iterable it evaluates
        when it is made (an error there is Python's own), but before the loop's pass over
        it (an iterator read then is read ahead)."""
        if id(node) in self.read_at_once:
            return None
        loop = built.defining_op
        first = loop
        source = loop.operands[0].defining_op if loop.operands else None
        if source is not None and source.opcode == "call" and source.attrs.get("fn") is forms.for_pass \
                and source.block is loop.block:
            first = source
        block = loop.block
        with self.builder.at(block, block.ops.index(first)), self.builder.at_loc(self.loc(node)):
            if loop.attrs.get("kind") == "iter":  # Python's iter() of it, when it is made
                self.builder.call(forms.check_iterable, (source if first is source else loop).operands[0])
            where = self.builder.const(self.loc(node))
            return self.builder.call(forms.begin_ahead, where)

    def finish_items_ahead(self, items, depth, node, what: str):
        """items (the list the loop built), the bracket begin_ahead opened closed; an error
        where computing an item has an effect, which Python would have only when (and if)
        the item is read."""
        if depth is None:
            return items
        methods = []
        effect = first_effect([items.defining_op], self.has_effects, methods)
        if effect is None:
            for method in methods:  # decided by the receiver while running
                self.guard_ahead_method(method)
        if effect is not None:
            line = f" (line {effect.loc.line})" if effect.loc is not None else ""
            raise self.unsupported(
                node, f"{what} may have an effect: {describe_effect(effect)}{line}, and this iterator "
                "is kept for later, not read where it is made; Python computes each item when it is "
                "read, zygote_py would compute them all now", "read it with a for loop, any(), all() "
                "or next() where it is made (for y in map(f, xs): ...), which compute each item as it "
                "is read, or make a list of it (items = list(...)) if every item is meant to be "
                "computed at once")
        return self.call_static(forms.end_ahead, (items, depth), node)

    def guard_ahead_method(self, op) -> None:
        """Put check_ahead_method(receiver, name, loc) right before the method call op."""
        block = op.block
        with self.builder.at(block, block.ops.index(op)), self.builder.at_loc(op.loc):
            name = self.builder.const(op.attrs["name"])
            loc = self.builder.const(op.loc)
            self.builder.call(forms.check_ahead_method, op.operands[0], name, loc)

    def has_effects(self, fn) -> bool:
        """Whether calling the Python function fn may have an effect (the compiler's answer)."""
        return True if self.function_effects is None else bool(self.function_effects(fn))


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
                return self.call_static(forms.list_of_items, (items, self.static(itertools.starmap, "starmap", node)), node)
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


# builtins that read their first argument to its end before returning (min and max only
# without key=, which would call the key between the items)
_READERS = frozenset((builtins.list, builtins.tuple, builtins.sum, builtins.sorted, builtins.set,
                      builtins.frozenset, builtins.dict, math.fsum))


def _reads_to_the_end(obj, node) -> bool:
    if obj is builtins.min or obj is builtins.max:
        return len(node.args) == 1 and not node.keywords
    if isinstance(getattr(obj, "__self__", None), str) and getattr(obj, "__name__", None) == "join":
        return True  # ", ".join(...) makes a list of its argument first
    try:
        return obj in _READERS
    except TypeError:  # an unhashable callee
        return False


def _fused(loop, node, prefix: str):
    """loop at node's place; prefix: the start of the scratch names it binds."""
    loop._zp_scratch = prefix
    return gast.copy_location(loop, node)


def bound_scratch(node):
    """The scratch names (`_zp_...`) a fused loop binds."""
    for inner in gast.walk(node):
        if isinstance(inner, gast.Name) and inner.id.startswith("_zp_"):
            yield inner.id


def _plain_target_names(target) -> list[str] | None:
    """The names a comprehension target binds, None unless it is made only of names."""
    if isinstance(target, gast.Name):
        return [target.id]
    if isinstance(target, (gast.Tuple, gast.List)):
        names = []
        for elt in target.elts:
            inner = _plain_target_names(elt)
            if inner is None:
                return None
            names.extend(inner)
        return names
    return None


class _Renamer(gast.NodeTransformer):
    """Renames the names of a generator's own scope in a copy of its expressions;
    `blocked` when a nested scope rebinds one of them or `:=` binds a name (the loop
    is then not fused)."""

    def __init__(self, renames: dict):
        self.renames = renames
        self.blocked = False

    def renamed(self, node):
        return self.visit(copy.deepcopy(node))

    def visit_Name(self, node):
        if node.id in self.renames:
            node.id = self.renames[node.id]
        return node

    def visit_NamedExpr(self, node):
        self.blocked = True
        return node

    def _nested_scope(self, node, bound):
        if set(bound) & set(self.renames):
            self.blocked = True
            return node
        return self.generic_visit(node)

    def visit_Lambda(self, node):
        a = node.args
        bound = [p.id for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg)
                 if isinstance(p, gast.Name)]
        return self._nested_scope(node, bound)

    def _comprehension(self, node):
        bound = []
        for comp in node.generators:
            names = _plain_target_names(comp.target)
            if names is None:
                self.blocked = True
                return node
            bound.extend(names)
        return self._nested_scope(node, bound)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension


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
