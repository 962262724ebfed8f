"""From an adjoint program to Python source text and a live function.

Two shapes are generated from the same IR:
  - gradient form: `def f_grad(x): <forward>; <adjoint>; return y, grads`
    (one body, no closure, fastest for `gradient`);
  - pullback form: `def f_pullback(x): <forward>; def f_back(dy): <adjoint>;
    return y, f_back` (what calls between transformed functions use).
The text is compiled inside a factory function whose parameters are the free
names the code needs; the inner code object is then made into a function
with the user's globals, the user's own closure cells (so reads of closure
variables stay live) and cells for the bound helpers.  The text is
registered in `linecache` under its own file name, so tracebacks and pdb show
the generated code.  The file names are numbered by one process-wide counter;
`next()` on an `itertools.count` is atomic in CPython, so two threads never
get the same name (the number only keeps the linecache entries apart; it
never changes what the code computes).
"""

from __future__ import annotations

import builtins
import itertools
import linecache
import types
import weakref

from ..ir.core import Block, Function
from .emit import Emitter
from .exprs import Binder
from .fuse import fuse_adjoint_helpers
from .naming import Liveness, Names, coalesce
from .release import release_dead_locals
from .unparse import unparse

_counter = itertools.count(1)


def _signature_text(sig) -> str:
    parts = list(sig.posonly)
    if sig.posonly:
        parts.append("/")
    parts += sig.args
    if sig.vararg:
        parts.append("*" + sig.vararg)
    elif sig.kwonly:
        parts.append("*")
    parts += sig.kwonly
    if sig.kwarg:
        parts.append("**" + sig.kwarg)
    return ", ".join(parts)


def _count_uses(blocks) -> tuple[dict[int, int], dict[int, Block]]:
    uses: dict[int, int] = {}
    where: dict[int, Block] = {}
    for block in blocks:
        for op in block.walk():
            for v in op.operands:
                uses[v.id] = uses.get(v.id, 0) + 1
                where[v.id] = op.block
    return uses, where


class Generated:
    """Source text plus what it takes to turn it into a function."""

    def __init__(self, name: str, text: str, binder: Binder):
        self.name = name
        self.text = text
        self.binder = binder


def generate(program, pyfn, mode: str, name: str, check_scalar=None, return_loc=None,
             pullbacks=None, spill_tapes: bool = True) -> Generated:
    """Source of the gradient ('grad') or pullback ('pullback') form of a program;
    pullbacks maps the program's callee references to the functions they resolve to."""
    forward: Function = program.forward
    backward: Block = program.backward
    if spill_tapes:  # code that runs and is never read again by forward mode (fuse.py)
        fuse_adjoint_helpers(backward)
    code = pyfn.__code__
    cells = dict(zip(code.co_freevars, pyfn.__closure__ or ()))
    binder = Binder(pyfn.__globals__, cells)
    blocks = [forward.body, backward]
    reserved = set(code.co_freevars) | set(code.co_names) | set(dir(builtins)) - set(forward.signature.names)
    for op in forward.walk():
        if op.opcode in ("global", "cell"):
            reserved.add(op.attrs["name"])
        expr = op.attrs.get("expr") if op.opcode in ("const", "call") else None
        if isinstance(expr, str):
            reserved.add(expr.split(".")[0])
    reserved |= {"np", "math", "dy"}
    liveness = Liveness(blocks, forward.params)
    names = Names(liveness, reserved - set(forward.signature.names))
    for param, pname in zip(forward.params, forward.signature.names):
        names.assigned[names._ensure(param)] = pname
        names.taken.add(pname)
    dy = backward.args[0]
    names.assigned[names._ensure(dy)] = names.fresh("dy")
    coalesce(names, blocks, lambda v: v.defining_op is None or v.defining_op.opcode not in ("const", "undef"))
    if mode == "grad":
        for op in backward.ops:
            if op.opcode == "tape_open":
                names.try_union(op.operands[0], op.result)
    uses, where = _count_uses(blocks)
    emitter = Emitter(names, binder, uses, annotate=True)
    emitter.pullbacks = dict(pullbacks or {})
    emitter.spill_tapes = spill_tapes
    user_variables = set(code.co_varnames) - set(forward.signature.names)
    emitter.named = user_variables | {name + "_bar" for name in user_variables}
    emitter.single_use_here = {vid: blk for vid, blk in where.items() if uses.get(vid) == 1}
    for root, members in names.members.items():
        if len(members) > 1:
            emitter.grouped.update(m.id for m in members)

    header = f"def {name}({_signature_text(forward.signature)}):"
    emitter.line(header)
    emitter.indent = 1
    result = {}
    emitter.block(forward.body, lambda op: result.setdefault("y", emitter.expr(op.operands[0]))
                  and result.setdefault("op", op.operands[0].defining_op))
    import ast

    y_expr = result["y"]
    if not (isinstance(y_expr, ast.Name)):
        y_name = names.fresh("_zp_y")
        if result["op"] is not None:  # the line of the returned expression, for its errors
            emitter.comment_for(result["op"])
        emitter.line(f"{y_name} = {unparse(y_expr)}")
        y_expr = ast.Name(y_name, ast.Load())
    y_text = unparse(y_expr)
    dy_name = names.name(dy)
    emitter.adjoint, emitter.last_loc = True, None  # the adjoint labels its lines afresh

    def returned(op) -> str:
        packed = op.operands[0].defining_op
        if packed is not None and emitter.last_loc is None:
            emitter.comment_for(packed)  # an adjoint folded whole into its return still names its line
        return unparse(emitter.expr(op.operands[0]))

    if mode == "grad":
        check = binder.bind(check_scalar, "_zp_check_scalar")
        loc = binder.bind(return_loc, "_zp_return_loc")
        emitter.line(f"{dy_name} = {check}({y_text}, {loc})")
        emitter.block(backward, lambda op: emitter.line(f"return {y_text}, {returned(op)}"))
    else:
        back_name = f"{name.removesuffix('_pullback')}_back"
        emitter.line(f"def {back_name}({dy_name}):")
        emitter.indent = 2
        emitter.block(backward, lambda op: emitter.line(f"return {returned(op)}"))
        if emitter.lines[-1].strip().startswith("def "):
            emitter.line("return ()")
        emitter.indent = 1
        if getattr(program, "effects", False):  # run even with no cotangent (built_objects.py)
            emitter.line(f"{back_name}._zp_effects = True")
        emitter.line(f"return {y_text}, {back_name}")
    text = "\n".join(emitter.lines) + "\n"
    if spill_tapes:  # code that runs: locals released at their last read (release.py)
        text = release_dead_locals(text, keep=frozenset({dy_name}))  # (the seed: a number)
    return Generated(name, text, binder)


def compile_generated(gen: Generated, pyfn) -> types.FunctionType:
    """Turn generated text into a function with the user's globals and closure cells."""
    code = pyfn.__code__
    user_cells = dict(zip(code.co_freevars, pyfn.__closure__ or ()))
    free = sorted(set(gen.binder.bound) | set(user_cells))
    filename = f"<zygote_py:{gen.name}:{next(_counter)}>"
    body = "".join("    " + line + "\n" if line else "\n" for line in gen.text.splitlines())
    factory_text = f"def _zp_factory({', '.join(free)}):\n{body}    return {gen.name}\n"
    linecache.cache[filename] = (len(factory_text), None, factory_text.splitlines(True), filename)
    module_code = compile(factory_text, filename, "exec")
    factory_code = next(c for c in module_code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType) and c.co_name == gen.name)
    closure = []
    for fname in inner.co_freevars:
        if fname in gen.binder.bound:
            closure.append(types.CellType(gen.binder.bound[fname]))
        else:
            closure.append(user_cells[fname])
    fn = types.FunctionType(inner, pyfn.__globals__, gen.name, pyfn.__defaults__, tuple(closure))
    fn.__kwdefaults__ = pyfn.__kwdefaults__
    fn._zp_source = gen.text
    # what `zygote-py grad` needs to write the code out standalone (weak: the cache is keyed by pyfn)
    gen.origin = weakref.ref(pyfn)
    fn._zp_generated = gen
    return fn
