"""Lowering of updates to the lists and dicts a function creates itself.

A list or dict built by the function (a literal, `list(...)`, `dict(...)`, a
comprehension, `.copy()`) is known to be one when the code is lowered: the
kind is recorded per SSA value (`Lowerer.kinds`) and carried through `if`
and loops like `Lowerer.fresh`.  Its methods that modify it (`p.insert(0, v)`,
`d.update(o)`), item assignment and `del p[i]` become calls of the
functional forms in runtime/containers.py that return a new container, and
the name is rebound to it: the adjoint then sees each version as its own
value, with its own rule.  The same updates of a container from outside (an argument,
an attribute's) are written back in place (`outside_update`), and a module-level or
captured list or dict updated by its name is claimed at the function's entry and
then treated as such an argument (`ClaimLowering`, docs/mutation.md).
"""

from __future__ import annotations

import builtins
import inspect
import operator
import types

import gast

from ..errors import ZygoteError
from ..ir.core import Value
from ..runtime import containers as forms
from ..runtime import iterators as _iterators
from ..runtime import outside_containers as outside
from ..runtime.built_objects import set_attribute
from ..runtime.iterators import end_ahead, for_pass, list_of_items
from .scope import function_locals, resolve_free

# method name -> (functional form, whether it returns (new container, result))
LIST_METHODS = {
    "insert": (forms.list_insert, False), "reverse": (forms.list_reverse, False),
    "pop": (forms.list_pop, True), "remove": (forms.list_remove, False),
    "sort": (forms.list_sort, False), "clear": (forms.list_clear, False),
}
DICT_METHODS = {
    "update": (forms.dict_update, False), "setdefault": (forms.dict_setdefault, True),
    "pop": (forms.dict_pop, True), "clear": (forms.dict_clear, False),
}
# the methods of list and dict that modify the receiver (Python's own list)
MUTATING = {"list": {"append", "extend", "insert", "reverse", "pop", "remove", "sort", "clear",
                     "__setitem__", "__delitem__", "__iadd__", "__imul__"},
            "dict": {"update", "setdefault", "pop", "popitem", "clear", "__setitem__",
                     "__delitem__", "__ior__"}}
_FORM_KINDS = {**{f: "list" for f, _ in LIST_METHODS.values()},
               **{f: "dict" for f, _ in DICT_METHODS.values()},
               forms.list_setitem: "list", forms.list_delitem: "list", forms.dict_delitem: "dict",
               builtins.list: "list", builtins.dict: "dict", builtins.sorted: "list"}


# the updating methods followed on a list or dict from outside the function (outside_update)
OUTSIDE_METHODS = {"list": frozenset({"append", "extend", *LIST_METHODS}),
                   "dict": frozenset(DICT_METHODS)}
_COPIES = {"list": builtins.list, "dict": builtins.dict}
_ABSENT = object()


def _describe(receiver) -> str:
    return receiver.id if isinstance(receiver, gast.Name) else f"{_describe(receiver.value)}.{receiver.attr}" \
        if isinstance(receiver, gast.Attribute) else "the container"


def _hint_of(receiver) -> str:
    return receiver.id if isinstance(receiver, gast.Name) else \
        receiver.attr if isinstance(receiver, gast.Attribute) else ""


_LIVE_VIEWS = ("items", "values", "keys")  # a dict's views, which read it while iterated


# (itertools.product takes its arguments whole when it is made, so it is not among them)
_LAZY_FORMS = frozenset((_iterators.iter_items, _iterators.zip_items,
                         _iterators.enumerate_items, _iterators.reversed_items,
                         _iterators.chain_items, _iterators.accumulate_items, list_of_items))


def _reads_lazily(fn) -> bool:
    """fn is a form of runtime/iterators.py standing for a builtin iterator that Python
    reads from its arguments step by step (iter, zip, enumerate, map, ...)."""
    try:
        return fn in _LAZY_FORMS
    except TypeError:  # an unhashable callee
        return False


class ContainerLowering:
    """Mixin of the Lowerer: in-place updates of containers the function created."""

    def note_kind(self, op) -> None:
        """Record the container kind of a freshly emitted op's result, if it makes one."""
        kind = None
        if op.opcode in ("list", "append", "extend"):
            kind = "list"
        elif op.opcode in ("dict", "setitem"):
            kind = "dict"
        elif op.opcode == "call":
            try:
                kind = _FORM_KINDS.get(op.attrs.get("fn"))
            except TypeError:  # an unhashable callee
                kind = None
        if kind is not None:
            self.kinds[op.results[0].id] = kind

    def surely_a_sequence(self, value) -> bool:
        """value is a list or tuple whatever runs: a literal, a list made here, or the
        result of list(...), tuple(...) or sorted(...)."""
        if not isinstance(value, Value):
            return False
        if self.kind_of(value) == "list":
            return True
        op = value.defining_op
        if op is None:
            return False
        if op.opcode in ("list", "tuple"):
            return True
        if op.opcode == "const":
            return type(op.attrs.get("value")) in (list, tuple)
        return op.opcode == "call" and op.attrs.get("fn") in (builtins.list, builtins.tuple,
                                                              builtins.sorted)

    def kind_of(self, value) -> str | None:
        """'list' or 'dict' for a container this function created, else None."""
        if not isinstance(value, Value) or value.id not in self.fresh:
            return None
        return self.kinds.get(value.id)

    def carry_kinds(self, sources, targets) -> None:
        for source, target in zip(sources, targets):
            kind = self.kinds.get(source.id)
            if kind is not None:
                self.kinds[target.id] = kind

    def start_iterating(self, iterables) -> tuple[set[int], set[int]]:
        """Mark the containers a for loop iterates (through for_pass too) until it ends:
        (the ids newly iterated, those newly iterated for more than a dict's keys)."""
        added = set()
        sources = self._read_sources(iterables)
        for source in sources:
            if source not in self.iterated:
                added.add(source)
        self.iterated.update(added)
        keys = self._keys_read(iterables)
        by_value = {s for s in sources if s not in keys and s not in self.iterated_by_value}
        self.iterated_by_value.update(by_value)
        self.iterated_if_dict.update(self._arguments_iterated(iterables) & added)
        for value in iterables:  # `for v in obj.items`: the attribute read, by its name
            op = value.defining_op
            if op is not None and op.opcode == "call" and op.attrs.get("fn") is for_pass:
                value = op.operands[0]
            if value.defining_op is not None and value.defining_op.opcode == "getattr":
                self.iterated_attributes.append(value)
        return added, by_value

    def _keys_read(self, iterables) -> set[int]:
        """The ids of iterables of which a for loop reads only a dict's keys: `for k in d`
        over a dict made here, and `for k in d.keys()`."""
        keys = set()
        for value in iterables:
            op = value.defining_op
            if op is not None and op.opcode == "call" and op.attrs.get("fn") is for_pass:
                value, op = op.operands[0], op.operands[0].defining_op
            if op is not None and op.opcode == "method" and op.attrs.get("name") == "keys" \
                    and len(op.operands) == 1:
                keys.update((value.id, op.operands[0].id))
            elif self.kind_of(value) == "dict":
                keys.add(value.id)
        return keys

    def _arguments_iterated(self, iterables) -> set[int]:
        """The ids of arguments a for loop iterates directly (`for k in p`): their keys if
        p is a dict, which only require_existing_key can tell, while running."""
        found = set()
        for value in iterables:
            op = value.defining_op
            if op is not None and op.opcode == "call" and op.attrs.get("fn") is for_pass:
                value, op = op.operands[0], op.operands[0].defining_op
            if op is None and self.kind_of(value) is None and value.id in self.alias_parent \
                    and self.alias_class(value).params:
                found.add(value.id)
        return found

    def keys_guard_suffices(self, value: Value) -> bool:
        """An item write into value (`p[k] = v`) is kept exactly by require_existing_key:
        every container of its alias class a loop iterates now is a dict read for its keys
        or an argument iterated directly (`for k in p`), and at least one is the latter."""
        iterated = [m for m in self.iterated if self.first_of_class(value, (m,)) is not None]
        by_value = [m for m in iterated if m in self.iterated_by_value]
        return bool(by_value) and all(m in self.iterated_if_dict for m in by_value)

    def only_keys_iterated(self, value: Value) -> bool:
        """value (a dict made here) is iterated by a loop now, and only for its keys."""
        return value.id in self.iterated and value.id not in self.iterated_by_value

    def guard_existing_key(self, current: Value, key: Value, node) -> None:
        """`d[k] = v` while a loop reads d's keys: kept exactly when k is already a key of
        the dict (decided while running, runtime/containers.require_existing_key)."""
        self.emit("call", [current, key, self.const(self.loc(node), node)], nresults=1, node=node,
                  attrs={"fn": forms.require_existing_key, "expr": "require_existing_key",
                         "kw": (), "star": ()})
    def refuse_attribute_update_while_iterated(self, receiver, base: Value, node) -> None:
        """`obj.items[k] = v` or `obj.items.append(v)` inside `for x in obj.items` (the same
        attribute of an object in the same alias class): Python's loop would see it."""
        op = base.defining_op
        if op is None or op.opcode != "getattr" or not self.iterated_attributes:
            return
        owner = self.alias_root(op.operands[0])
        for value in self.iterated_attributes:
            read = value.defining_op
            if value.id in self.iterated and read.attrs["name"] == op.attrs["name"] and \
                    self.alias_root(read.operands[0]) == owner:
                text = getattr(receiver, "attr", "the attribute")
                raise self.mutation_error(
                    node, f"{text!r} is modified while a for loop iterates over it",
                    f"iterate over a copy (for v in list(obj.{text}))")

    def lazily_read_sources(self, value) -> set[int]:
        """The containers that value, an iterator or a dict view bound to a variable
        (`it = iter(p)`, `v = d.values()`, `m = map(f, p)`), reads as it is consumed:
        Python's would see a later update of them, the lowered one took its items in
        advance, so such an update is refused (refuse_update_while_iterated)."""
        op = value.defining_op if isinstance(value, Value) else None
        lazy = op is not None and (
            (op.opcode == "method" and op.attrs.get("name") in _LIVE_VIEWS)
            or (op.opcode == "call" and _reads_lazily(op.attrs.get("fn"))))
        if not lazy:
            return set()
        sources = self._read_sources([value])
        for source in list(sources):  # a generator expression: what its expressions read
            sources.update(self.generator_reads.get(source, ()))
        sources.discard(value.id)
        return sources

    def _read_sources(self, iterables) -> set[int]:
        found = set()
        pending = list(iterables)
        while pending:
            value = pending.pop()
            op = value.defining_op
            if op is not None and op.opcode == "call" and op.attrs.get("fn") is for_pass:
                pending.append(op.operands[0])
                continue
            if op is not None and op.opcode == "method" and op.attrs.get("name") in _LIVE_VIEWS:
                # d.items(), d.values(), d.keys() read d as the loop goes: a write into d in
                # the body would be seen by Python's next step (the values too)
                pending.append(op.operands[0])
            elif op is not None and op.opcode == "call" and _reads_lazily(op.attrs.get("fn")):
                # iter(p), map(f, p), zip(p, q), ... read p as the loop goes in Python; the
                # lowered forms take their items in advance (runtime/iterators.Items)
                pending.extend(op.operands)
                if op.attrs.get("fn") is list_of_items:  # map/filter: the loop building it
                    built = op.operands[0].defining_op
                    if built is not None and built.opcode == "call" and built.attrs.get("fn") is end_ahead:
                        built = built.operands[0].defining_op  # (its items computed ahead)
                    if built is not None and built.opcode == "for":
                        pending.append(built.operands[0])
            found.add(value.id)
        return found

    def refuse_update_while_iterated(self, old: Value, name: str, node) -> None:
        """Python's loop would see the update of the list it iterates; the lowered loop
        reads the version it started with: refused rather than computed differently."""
        if old.id in self.iterated:
            raise self.mutation_error(node, f"{name!r} is modified while a for loop iterates over it",
                                      f"iterate over a copy (for v in list({name})) or build a new container")
        reader = self.read_lazily.get(old.id)
        if reader is not None:
            raise self.mutation_error(
                node, f"{name!r} is modified while {reader!r}, an iterator or view made from it, "
                "may still read it (Python's would see the change; zygote_py's took the items "
                "when it was made)", f"make {reader!r} after the update, or take a copy first "
                f"({reader} = iter(list({name}))...)")

    def enclosing_local(self, name: str) -> bool:
        """Whether name, free here, is a local of a function this one is inlined into."""
        if name in self.local_names:
            return False
        outer = self.parent
        while outer is not None:
            if name in outer.local_names:
                return True
            outer = outer.parent
        return False

    def captured_cell(self, name: str) -> bool:
        """Whether name is a variable this function captured from an enclosing function
        (a closure cell), as opposed to a module global."""
        outer = self
        while outer.parent is not None:
            if name in outer.local_names:
                return False
            outer = outer.parent
        return name not in outer.local_names and resolve_free(name, outer.pyfn)[0] == "cell"

    def rebind(self, name: str, old: Value, new: Value, kind: str) -> None:
        self.consumed.add(old.id)
        self.fresh.add(new.id)
        self.kinds[new.id] = kind
        self.env[name] = new

    def local_container(self, func) -> tuple[str, Value, str] | None:
        """(name, value, kind) when func is `name.method` on a container made here."""
        if not isinstance(func.value, gast.Name) or func.value.id not in self.local_names:
            return None
        value = self.env.get(func.value.id)
        kind = self.kind_of(value)
        return (func.value.id, value, kind) if kind is not None else None

    def container_method(self, func, base, operands, star, kw, node):
        """Lower `name.method(...)` on a list or dict made here, or return None."""
        found = self.local_container(func)
        if found is None:
            outside = self.outside_update(func, base, operands, star, kw, node)
            if outside is not None:
                return outside
            if func.attr not in ("append", "extend") and \
                    any(func.attr in names for names in forms.MUTATING_METHODS.values()):
                # decided by the receiver when it runs: a list or dict is refused, any other
                # object's method of that name runs as usual
                self.emit("call", [base, self.const(func.attr, node),
                                   self.const(self.loc(node), node)], nresults=1, node=node,
                          attrs={"fn": forms.refuse_container_update, "expr": "refuse_container_update",
                                 "kw": (), "star": ()})
            return None
        name, current, kind = found
        method = func.attr
        if method == "copy" and not operands:
            return self.call_static(builtins.list if kind == "list" else builtins.dict, (current,), node)
        if method in ("append", "extend") and kind == "list" and not kw and not star:
            self.refuse_update_while_iterated(current, name, node)
            return self.container_update(func.value, method, current, operands, node)
        table = LIST_METHODS if kind == "list" else DICT_METHODS
        if method not in table:
            if method in MUTATING[kind]:
                raise self.mutation_error(node, f"{kind}.{method}() is not supported on a {kind} "
                                          "the function modifies", f"build a new {kind} instead")
            return None
        if star or None in kw:
            raise self.unsupported(node, f"*args or **kwargs in a call of {kind}.{method}()",
                                   "pass the arguments one by one")
        form, returns_pair = table[method]
        self.refuse_update_while_iterated(current, name, node)
        if method == "update":
            return self.dict_update(name, current, operands, kw, node)
        call = self.emit("call", [current, *operands], node=node, hint=name,
                         attrs={"fn": form, "expr": form.__name__, "kw": kw, "star": ()}).result
        if not returns_pair:
            self.rebind(name, current, call, kind)
            return self.const(None, node)
        new, result = self.emit("unpack", [call], nresults=2, node=node,
                                attrs={"n": 2, "star": None}).results
        new.hint = name
        self.rebind(name, current, new, kind)
        return result

    # -- lists and dicts from outside the function, updated in place --------------------------
    def outside_update(self, func, base, operands, star, kw, node):
        """`xs.append(v)` (and the other updating methods) where xs is not a container made
        here: a name of the function (an argument, say) or an attribute (`self.items`).
        Lowered as `if is_container(xs, kind): <functional form on a copy, written back in
        place> else: <the method call>` (runtime/outside_containers.py); None when the
        receiver or the method is not one of these."""
        method = func.attr
        kinds = [k for k in ("list", "dict") if method in OUTSIDE_METHODS[k]]
        receiver = func.value
        if not kinds or star or None in kw:
            return None
        if isinstance(receiver, gast.Name):
            if receiver.id not in self.local_names or self.env.get(receiver.id) is not base or \
                    base.id in self.escaped or base.id in self.consumed:
                return None  # (a global, a closure value, an enclosing function's name,
                # a list made here that something else holds: refused as before)
        elif not isinstance(receiver, gast.Attribute) or self._held_by_a_constant(base):
            return None  # (`config.LOG.append(v)`: module state, as before)
        if self.alias_class(base).external:
            return None  # a global's: as before (refused while running with a derivative)
        self.refuse_attribute_update_while_iterated(receiver, base, node)
        return self.outside_chain(
            receiver, base, kinds,
            lambda kind, copy: self.functional_update(kind, method, copy, operands, kw, node),
            lambda: self._plain_method(base, method, operands, star, kw, node), node)

    def sort_outside_or_array(self, func, base, operands, kw, node):
        """`xs.sort(...)` on a name of the function: a list from outside sorted in place
        (as outside_update), an array's in-place sort otherwise (lower_writes.py)."""
        name = func.value.id
        if "key" in kw or "reverse" in kw:  # not an ndarray's sort: another object's method
            array_sort = lambda: self._plain_method(base, "sort", operands, (), kw, node)  # noqa: E731
        else:
            array_sort = lambda: self.sort_in_place(name, base, operands, kw, node)  # noqa: E731
        if base.id in self.escaped or base.id in self.consumed or \
                self.env.get(name) is not base:
            return array_sort()
        return self.outside_chain(
            func.value, base, ("list",),
            lambda kind, copy: self.functional_update(kind, "sort", copy, operands, kw, node),
            array_sort, node)

    def _held_by_a_constant(self, base) -> bool:
        """Whether base is `owner.attr` of a module, class or other constant owner."""
        op = base.defining_op
        return op is not None and op.opcode == "getattr" and \
            self.constant_of(op.operands[0], _ABSENT) is not _ABSENT

    def _plain_method(self, base, method, operands, star, kw, node):
        self.emit("call", [base, self.const(method, node), self.const(self.loc(node), node)],
                  attrs={"fn": forms.refuse_container_update,
                         "expr": "refuse_container_update", "kw": (), "star": ()}, node=node)
        return self.emit("method", [base, *operands],
                         attrs={"name": method, "kw": kw, "star": star}, node=node).result

    def outside_item_update(self, target, node, value=None, augment=None, delete=False) -> bool:
        """`xs[k] = v`, `xs[k] op= v` or `del xs[k]` where xs is an attribute (`self.items`),
        or for del a name of the function: as outside_update, with the functional
        setitem/delitem; anything but a list or dict there is refused while running (name
        an array first).  False when the target is not one of these."""
        receiver = target.value
        if isinstance(receiver, gast.Name):
            if not delete or receiver.id not in self.local_names or \
                    not isinstance(self.env.get(receiver.id), Value):
                return False
            base = self.env[receiver.id]
            if base.id in self.escaped or base.id in self.consumed:
                return False
        elif isinstance(receiver, gast.Attribute):
            base = self.expr(receiver)
            if self._held_by_a_constant(base):
                return False
            self.refuse_attribute_update_while_iterated(receiver, base, node)
        else:
            return False
        key = self.expr(target.slice)
        if augment is not None:
            fn, rhs = augment
            old = self.call_static(operator.getitem, (base, key), node)
            value = self.augmented_item(getattr(receiver, "attr", "item"), old, fn, rhs, node)
        none = self.const(None, node)

        def new(kind, copy):
            if delete:
                form = forms.list_delitem if kind == "list" else forms.dict_delitem
                return self.call_static(form, (copy, key), node), none
            if kind == "list":
                return self.call_static(forms.list_setitem, (copy, key, value), node), none
            return self.emit("setitem", [copy, key, value], node=node).result, none

        def refused():
            what = "del of an item" if delete else "item assignment"
            self.emit("call", [base, self.const(what, node), self.const(self.loc(node), node)],
                      attrs={"fn": outside.refuse_item_update, "expr": "_zp_refuse_item_update",
                             "kw": (), "star": ()}, node=node)
            return none

        self.outside_chain(receiver, base, ("list", "dict"), new, refused, node)
        return True

    def outside_chain(self, receiver, base, kinds, make_new, plain, node):
        """`if is_container(base, kind): <make_new on a copy, written back> elif ...: else:
        plain()`; returns the method's result."""
        slot = f"<result at {id(node)}>"

        def updated(kind):
            def branch():
                self.refuse_update_while_iterated(base, _describe(receiver), node)
                copy = self.call_static(_COPIES[kind], (base,), node)
                self.kinds[copy.id] = kind
                self.fresh.add(copy.id)
                new, result = make_new(kind, copy)
                written = self.emit("call", [base, new, self.const(self.loc(node), node)],
                                    attrs={"fn": outside.replace_contents,
                                           "expr": "_zp_replace_contents", "kw": (), "star": ()},
                                    node=node, hint=_hint_of(receiver)).result
                if isinstance(receiver, gast.Name):
                    self.record_write(receiver.id, base, written, node, contents_replaced=True)
                else:  # the object's attribute is written too: the object's ledger follows it
                    owner = base.defining_op.operands[0] if base.defining_op is not None and \
                        base.defining_op.opcode == "getattr" else None
                    if owner is None:
                        raise self.mutation_error(node, "the container updated is not read "
                                                  "from an attribute here", "name it first")
                    self.store_attribute(owner, self.const(receiver.attr, node), written, node,
                                         set_attribute)
                self.env[slot] = result
            return branch

        def otherwise():
            self.env[slot] = plain()

        claimed = self.claimed_kind(receiver)
        if claimed is not None:  # a global or captured list or dict claimed at the entry: its
            # type is the one it had when the function was compiled (a guard), no test needed
            (updated(claimed) if claimed in kinds else otherwise)()
            return self.env.pop(slot)

        def chain(remaining):
            if not remaining:
                return otherwise
            kind = remaining[0]

            def test():
                cond = self.call_static(outside.is_container, (base, self.const(kind, node)), node)
                self.if_stmt(cond, updated(kind), chain(remaining[1:]), node)
            return test

        chain(list(kinds))()
        return self.env.pop(slot)

    def functional_update(self, kind, method, copy, operands, kw, node):
        """(new container, the method's result) of `copy.method(...)` on a container made
        here, by the functional forms (whose rules carry the cotangents)."""
        none = self.const(None, node)
        if method == "append":
            if kw or len(operands) != 1:
                raise self.unsupported(node, "list.append() takes one argument", "pass one")
            return self.emit("append", [copy, operands[0]], node=node).result, none
        if method == "extend":
            if kw or len(operands) != 1:
                raise self.unsupported(node, "list.extend() takes one argument", "pass one")
            return self.emit("extend", [copy, operands[0]], node=node).result, none
        if kind == "dict" and method == "update":
            positional = operands[:len(operands) - len(kw)]
            if len(positional) > 1:
                raise self.unsupported(node, "dict.update() takes at most one positional "
                                       "argument", "pass one mapping")
            sources = list(positional)
            if kw:
                pairs = []
                for key, value in zip(kw, operands[len(positional):]):
                    pairs += [self.const(key, node), value]
                sources.append(self.emit("dict", pairs, node=node).result)
            current = copy
            for source in sources:
                current = self.emit("call", [current, source], node=node, attrs={
                    "fn": forms.dict_update, "expr": "dict_update", "kw": (), "star": ()}).result
            return current, none
        form, returns_pair = (LIST_METHODS if kind == "list" else DICT_METHODS)[method]
        call = self.emit("call", [copy, *operands], node=node,
                         attrs={"fn": form, "expr": form.__name__, "kw": kw, "star": ()}).result
        if not returns_pair:
            return call, none
        new, result = self.emit("unpack", [call], nresults=2, node=node,
                                attrs={"n": 2, "star": None}).results
        return new, result

    def dict_update(self, name, current, operands, kw, node):
        """d.update(other, k=v): other's items, then the keywords' (as Python applies them)."""
        positional = operands[:len(operands) - len(kw)]
        if len(positional) > 1:
            raise self.unsupported(node, "dict.update() takes at most one positional argument",
                                   "pass one mapping")
        sources = list(positional)
        if kw:
            pairs = []
            for key, value in zip(kw, operands[len(positional):]):
                pairs += [self.const(key, node), value]
            sources.append(self.emit("dict", pairs, node=node).result)
        for source in sources:
            new = self.emit("call", [current, source], node=node, hint=name,
                            attrs={"fn": forms.dict_update, "expr": "dict_update", "kw": (),
                                   "star": ()}).result
            self.rebind(name, current, new, "dict")
            current = new
        return self.const(None, node)

    def dict_call(self, operands, star, kw, node):
        """dict(k=v, ...) and dict(mapping, k=v): a literal, then an update (or None: a plain call)."""
        if not kw or star or None in kw or len(operands) - len(kw) > 1:
            return None
        npos = len(operands) - len(kw)
        pairs = []
        for key, value in zip(kw, operands[npos:]):
            pairs += [self.const(key, node), value]
        literal = self.emit("dict", pairs, node=node).result
        if not npos:
            return literal
        base = self.call_static(builtins.dict, (operands[0],), node)
        return self.call_static(forms.dict_update, (base, literal), node)

    def list_store(self, name, current, key, value, node, augment=None) -> None:
        """`p[i] = v` (or `p[i] += v`) on a list made here."""
        self.refuse_update_while_iterated(current, name, node)
        if augment is not None:
            fn, rhs = augment
            old = self.call_static(operator.getitem, (current, key), node)
            value = self.augmented_item(name, old, fn, rhs, node)
            current = self.env[name]  # written back if it holds the array elsewhere too
        new = self.call_static(forms.list_setitem, (current, key, value), node)
        new.hint = name
        self.rebind(name, current, new, "list")

    def stmt_Delete(self, node):
        for target in node.targets:
            if isinstance(target, gast.Name) and target.id in self.local_names \
                    and target.id in self.env:
                # `del x` of a local unbinds the name (generated gradients release their
                # locals this way, codegen/release.py); a read after it is refused as a read
                # before assignment.  Only in the function's own top-level statements: on
                # one path of a branch or loop the name would be unbound on that path only
                if not any(stmt is node for stmt in getattr(self.node, "body", ())):
                    raise self.unsupported(node, "del of a variable inside a branch or loop",
                                           "delete it after the branch or loop, or rebind it")
                del self.env[target.id]
                continue
            if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
                name = target.value.id
                current = self.env.get(name) if name in self.local_names else None
                kind = self.kind_of(current)
                if kind is not None:
                    self.refuse_update_while_iterated(current, name, node)
                    form = forms.list_delitem if kind == "list" else forms.dict_delitem
                    new = self.call_static(form, (current, self.expr(target.slice)), node)
                    new.hint = name
                    self.rebind(name, current, new, kind)
                    continue
                if self.outside_item_update(target, node, delete=True):
                    continue
                raise self.mutation_error(node, "del of an item of a container this function did "
                                          "not create writes into it in place",
                                          "copy it first (xs = list(xs)), or build a new one")
            if isinstance(target, gast.Subscript) and self.outside_item_update(target, node,
                                                                               delete=True):
                continue
            raise self.unsupported(node, "del is only supported for items of a list or dict the "
                                   "function created", "let the variable go out of scope instead")


# -- module-level and captured lists and dicts updated by name ------------------------------
# the updating methods that put values into the container (the others only move or drop
# what it holds, which the old path runs as it always did)
_ADDING_METHODS = frozenset({"append", "extend", "insert", "update", "setdefault"})


def _constant(node) -> bool:
    """A literal (a string, a number, None, or a tuple or list of them): no derivative."""
    if isinstance(node, gast.Constant):
        return True
    if isinstance(node, gast.UnaryOp):
        return _constant(node.operand)
    if isinstance(node, (gast.Tuple, gast.List)):
        return all(_constant(e) for e in node.elts)
    return False


def updated_free_names(body, local_names) -> dict:
    """name -> the first node that puts a value other than a literal into it, in place and by
    that name (list.append, extend, insert, dict.update, setdefault, item assignment and its
    augmented form), for the names free in a function body (its nested functions and
    lambdas left out).  Updates that only put literals in (`RAN.append("f")`, a log of
    strings) cannot carry a derivative: such a name runs as before."""
    found: dict = {}

    def note(name_node, node, values) -> None:
        if isinstance(name_node, gast.Name) and name_node.id not in local_names and \
                not all(_constant(v) for v in values):
            found.setdefault(name_node.id, node)

    def visit(node) -> None:
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)):
            return
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr in _ADDING_METHODS:
            values = list(node.args) + [k.value for k in node.keywords]
            if node.func.attr in ("insert", "setdefault"):
                values = values[1:]
            note(node.func.value, node, values)
        elif isinstance(node, (gast.Assign, gast.AugAssign)):
            targets = node.targets if isinstance(node, gast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, gast.Subscript):
                    note(target.value, node, [node.value])
        for child in gast.iter_child_nodes(node):
            visit(child)

    for statement in body:
        visit(statement)
    return found


def _free_names(node) -> set[str]:
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load)} - function_locals(node)


def _reads_claimed(fn, free, claimed, filename, seen) -> bool:
    """Whether fn (whose free names are free) reads one of the claimed module globals by
    name, itself or through the module-level functions of the same file it calls by name."""
    from .source import find_function_node

    if free & claimed:
        return True
    for name in free:
        callee = fn.__globals__.get(name)
        if not isinstance(callee, types.FunctionType) or callee in seen or len(seen) > 16 \
                or callee.__globals__ is not fn.__globals__:
            continue
        seen.add(callee)
        try:
            node, where = find_function_node(callee)
        except ZygoteError:
            continue
        if where == filename and _reads_claimed(callee, _free_names(node), claimed, filename, seen):
            return True
    return False


def defined_in_generated_code(pyfn) -> bool:
    """pyfn is a function defined inside zygote_py's generated gradient or pullback code (a
    pullback's back), not the generated function itself (codegen/generate.py names their
    file `<zygote_py:NAME:N>`; a call trampoline's, `<zygote_py:call NAME:N>`, is not one)."""
    code = getattr(pyfn, "__code__", None)
    filename = getattr(code, "co_filename", "")
    return getattr(pyfn, "_zp_generated", None) is None and filename.startswith("<zygote_py:") \
        and not filename.startswith("<zygote_py:call ")


def _claims_in_generated_code(node, pyfn):
    """The names `_zp_claim_outside(NAME, 'NAME', loc)` calls in generated code claim (the
    callee found by the object its name is bound to, not by the name)."""
    cells = dict(zip(pyfn.__code__.co_freevars, pyfn.__closure__ or ()))
    for call in gast.walk(node):
        if not isinstance(call, gast.Call) or not isinstance(call.func, gast.Name) or \
                not call.args or not isinstance(call.args[0], gast.Name):
            continue
        name = call.func.id
        try:
            callee = cells[name].cell_contents if name in cells else pyfn.__globals__.get(name)
        except ValueError:
            continue
        if callee is outside.claim_outside:
            yield call.args[0].id


class _InlinedReader:
    """A module-level function inlined where it is called (ClaimLowering.claim_reader):
    the LocalFunction protocol of lower.py's inline_call, and equal to the function itself,
    so that a function calling itself is not inlined again."""

    def __init__(self, node, defaults, kw_defaults, name, fn):
        self.node = node
        self.defaults = defaults
        self.kw_defaults = kw_defaults
        self.name = name
        self.fn = fn

    def __eq__(self, other):
        return other is self or other is self.fn or getattr(other, "fn", None) is self.fn

    def __hash__(self):
        return hash(self.fn)


class ClaimLowering:
    """Mixin of the Lowerer: a module-level or captured list or dict that the function updates
    by its name (`LOG.append(v)`, `CACHE[k] = v`) is *claimed* at the function's entry
    (runtime/outside_containers.py: claim_outside) and from then on is a name of the
    function, like a list passed in: its updates and every read of it in the function (and
    in nested functions inlined here) are followed by the machinery of lists from outside."""

    def claim_outside_names(self, node) -> None:
        if self.parent is not None or not isinstance(node.body, list) or \
                not self._may_claim():
            return
        for name, first in sorted(updated_free_names(node.body, self.local_names).items()):
            kind, where = resolve_free(name, self.pyfn)
            if kind == "global":
                obj = where.get(name, _ABSENT)
            elif kind == "cell":
                try:
                    obj = where.cell_contents
                except ValueError:
                    continue
            else:
                continue
            if type(obj) is not list and type(obj) is not dict:
                continue  # (an array global: refused as before; another object: its method)
            # compiled for a list or dict there: rebuilt when the name holds something else
            self.guards.append(("container", where, name if kind == "global" else None, type(obj)))
            # the claim is passed its own read of the name (written where it is passed, so
            # no variable of the generated code holds the object when it counts references)
            if kind == "cell":  # (read where it is used: no variable of the function holds it)
                value = self.read_cell(name, first)
                passed = value
            else:
                passed = self.emit("global", (), attrs={"name": name}, node=first, hint=name).result
            self.emit("call", [passed, self.const(name, first), self.loc_const(first)], node=first,
                      attrs={"fn": outside.claim_outside, "expr": "_zp_claim_outside", "kw": (),
                             "star": ()})
            if kind == "global":
                value = self.emit("global", (), attrs={"name": name}, node=first, hint=name).result
            info = self.alias_class(value)
            info.external = None  # (claimed: one of the function's names from here on)
            info.shared = True
            self.claims[name] = value
            self.claim_kinds[name] = "list" if type(obj) is list else "dict"
            if kind == "global":
                self.claimed_globals.add(name)
            self.local_names = self.local_names | {name}
            self.env[name] = value

    def _may_claim(self) -> bool:
        """Whether a name the function's code reads (its code object's global and free
        names) holds a list or dict now: else there is nothing to claim and its body is not
        searched (most functions)."""
        code = self.pyfn.__code__
        cells = dict(zip(code.co_freevars, self.pyfn.__closure__ or ()))
        for name in (*code.co_names, *code.co_freevars):
            if name in self.local_names:
                continue
            try:
                held = cells[name].cell_contents if name in cells else \
                    self.pyfn.__globals__.get(name)
            except ValueError:
                continue
            if type(held) is list or type(held) is dict:
                return True
        return False

    def claimed_by_generated_code(self) -> frozenset:
        """The module globals that this function, when it is zygote_py's own generated
        gradient or pullback code (forward mode over a gradient: zp.hessian, zp.hvp), claims
        itself: `_zp_claim_outside(LOG, 'LOG', loc)` at its entry.  Its other reads of that
        name are the claiming function's own (each guarded by `_zp_check_binding`), not
        another function's, so they are not checked against the claim (check_outside_read).
        Empty for the user's code, whose claims are lowered by claim_outside_names."""
        found = getattr(self, "_generated_claims", None)
        if found is None:
            found = frozenset()
            if getattr(self.pyfn, "_zp_generated", None) is not None:
                found = frozenset(_claims_in_generated_code(self.node, self.pyfn))
            self._generated_claims = found
        return found

    def claimed_read(self, name: str, kind: str, where, node):
        """A read, by generated gradient code, of the global or cell it claims: not checked
        against the claim (it is the claiming function's own read), and guarded on the type
        it holds as the claiming function's code is (claim_outside checks it again)."""
        try:
            held = where.get(name, _ABSENT) if kind == "global" else where.cell_contents
        except ValueError:
            held = _ABSENT
        self.guards.append(("container", where, name if kind == "global" else None, type(held)))
        if kind == "cell":
            return self.read_cell(name, node)
        return self.emit("global", (), attrs={"name": name}, node=node, hint=name).result

    def claimed_kind(self, receiver) -> str | None:
        """'list' or 'dict' when receiver is the name of a claimed container."""
        if not isinstance(receiver, gast.Name) or receiver.id not in self.claims:
            return None
        return self.claim_kinds.get(receiver.id)

    def check_binding(self, name: str, value, node) -> None:
        """A read of a claimed module global: the name still holds the object claimed at the
        entry (code run without derivatives could have rebound it; then Python would read
        the new object)."""
        # (emitted past the may-alias bookkeeping: the check joins no class, holds nothing)
        loc = self.loc(node)
        again = self.builder.emit("global", (), attrs={"name": name}, hints=[name], loc=loc).result
        self.builder.emit("call", [again, value, self.const(name, node), self.loc_const(node)],
                          attrs={"fn": outside.check_binding, "expr": "_zp_check_binding",
                                 "kw": (), "star": ()}, loc=loc)

    def claim_reader(self, fn):
        """A module-level function called by name that reads a claimed module global by
        that name (`def total(): return sum(LOG)`), to be inlined here: lowered as part of
        this function, its reads of the name read this function's current version, with
        its derivatives.  None for anything else (a call compiled on its own, whose reads
        of the claimed container are refused while running).  Only where inlining means
        what the call means: a plain Python function of this module and file, no closure,
        no rule of its own, not already being inlined, reading no name that this function
        (or one it is inlined into) binds, other than the claimed ones."""
        from ..resolve import FUNCTION, resolve
        from ..rules import registry
        from .source import find_function_node

        root = self.root_lowerer()
        if not isinstance(fn, types.FunctionType) or fn.__globals__ is not root.pyfn.__globals__ \
                or fn.__code__.co_freevars or fn in self.inlining or fn.__kwdefaults__ \
                or fn.__code__.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE):
            return None
        if resolve(fn, registry).kind != FUNCTION:
            return None
        try:
            node, filename = find_function_node(fn)
        except ZygoteError:
            return None
        if filename != root.filename or not isinstance(node, gast.FunctionDef):
            return None
        free = _free_names(node)
        if not _reads_claimed(fn, free, self.claimed_globals, root.filename, {fn}):
            return None
        lowerer = self
        while lowerer is not None:  # the inlined body reads our names where it reads its own
            if (free & lowerer.local_names) - self.claimed_globals:
                return None
            lowerer = lowerer.parent
        if free & set(root.pyfn.__code__.co_freevars):
            return None
        defaults = [self.const(d) for d in fn.__defaults__ or ()]
        return _InlinedReader(node, defaults, {}, fn.__name__, fn)

    def claimed_values(self) -> dict:
        """name -> the ids of every version of each claimed container (its may-alias class:
        each update joins it), for analysis/claims.py."""
        out = {}
        for name, first in self.claims.items():
            root = self.alias_root(first)
            out[name] = frozenset(vid for vid in list(self.alias_parent)
                                  if self.alias_root_of_id(vid) == root)
        return out

    def alias_root_of_id(self, vid: int) -> int:
        parent = self.alias_parent
        while vid != parent[vid]:
            vid = parent[vid]
        return vid
