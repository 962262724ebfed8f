"""Rules for products (@, matmul, dot, outer, inner, vdot, vecdot, tensordot,
einsum) and a few `np.linalg` functions (inv, det, slogdet, solve, norm).

Real arrays only.  The common 2-D cases are written inline in the bodies; the
general cases (1-D operands, batches that broadcast, N-D dot, einsum) go
through helpers.
"""

from __future__ import annotations

import functools
import math
import operator
import re
import string

import numpy as np

from zygote_py.rules.factorizations import output_parts
from zygote_py.rules.registry import since, vjp, vjp_method
from zygote_py.rules.shapes import like_input
from zygote_py.rules.strong_products import repair_needed, strong_contraction
from zygote_py.runtime import shape_of, strong_zero, unbroadcast
from zygote_py.runtime.helpers import pure

# ---------------------------------------------------------------------------
# helpers


def _matmul_operands(g, a, b):
    """a, b and g of a @ b with 1-D operands made matrices (as matmul treats them)."""
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    g2 = np.expand_dims(g, -2) if a.ndim == 1 else g
    g2 = np.expand_dims(g2, -1) if b.ndim == 1 else g2
    return g2, a2, b2


def _stack_times_matrix(g, a, b) -> bool:
    """Whether a @ b is a stack of matrices times one matrix, (..., m, k) @ (k, n), with g
    of the product's shape: then each cotangent is one matrix product over the stack's
    rows laid end to end, (... * m, k), one BLAS call where a stacked product makes one
    per matrix and the cotangent of b would sum a (..., k, n) stack of them afterwards."""
    return a.ndim > 2 and b.ndim == 2 and np.shape(g) == a.shape[:-1] + b.shape[1:]


def _matmul_cotangent_of_a(g, a, b):
    """The cotangent of a in a @ b for 1-D operands and (broadcasting) stacks of matrices;
    only this product is computed (a cotangent of b nobody needs costs nothing)."""
    if a.ndim == 1 and b.ndim == 1:
        return g * b
    if _stack_times_matrix(g, a, b):
        return np.reshape(np.reshape(g, (-1, b.shape[1])) @ b.T, a.shape)
    g2, a2, b2 = _matmul_operands(g, a, b)
    return np.reshape(unbroadcast(g2 @ np.swapaxes(b2, -1, -2), a2), a.shape)


def _matmul_cotangent_of_b(g, a, b):
    """The cotangent of b in a @ b (see `_matmul_cotangent_of_a`)."""
    if a.ndim == 1 and b.ndim == 1:
        return g * a
    if _stack_times_matrix(g, a, b):
        return np.reshape(a, (-1, a.shape[-1])).T @ np.reshape(g, (-1, b.shape[1]))
    g2, a2, b2 = _matmul_operands(g, a, b)
    return np.reshape(unbroadcast(np.swapaxes(a2, -1, -2) @ g2, b2), b.shape)


def _dot_cotangents(g, a, b):
    """Cotangents of np.dot(a, b) in all of dot's cases (scalars, 1-D, N-D)."""
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0 or nb == 0:
        return unbroadcast(g * b, a), unbroadcast(g * a, b)
    if nb == 1:
        # y[i...] = sum_k a[i..., k] b[k]
        ga = np.multiply.outer(g, b)
        gb = np.tensordot(a, g, axes=(list(range(na - 1)), list(range(na - 1))))
        return ga, gb
    # y[i..., j..., m] = sum_k a[i..., k] b[j..., k, m]
    kb = nb - 2
    free_b = [i for i in range(nb) if i != kb]
    g = np.asarray(g)
    ga = np.tensordot(g, b, axes=(list(range(na - 1, g.ndim)), free_b))
    gb = np.tensordot(a, g, axes=(list(range(na - 1)), list(range(na - 1))))
    return ga, np.moveaxis(gb, 0, kb)


def _inner_cotangents(g, a, b):
    """Cotangents of np.inner(a, b) = sum over the last axes of a and b."""
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0 or nb == 0:
        return unbroadcast(g * b, a), unbroadcast(g * a, b)
    g = np.asarray(g)
    ga = np.tensordot(g, b, axes=(list(range(na - 1, g.ndim)), list(range(nb - 1))))
    gb = np.tensordot(g, a, axes=(list(range(na - 1)), list(range(na - 1))))
    return ga, gb


def _tensordot_axes(axes, na, nb):
    if isinstance(axes, (int, np.integer)):
        return list(range(na - axes, na)), list(range(axes))
    axes_a, axes_b = axes
    if isinstance(axes_a, (int, np.integer)):
        axes_a = [axes_a]
    if isinstance(axes_b, (int, np.integer)):
        axes_b = [axes_b]
    return [int(i) % na for i in axes_a], [int(i) % nb for i in axes_b]


def _tensordot_cotangents(g, a, b, axes):
    na, nb = np.ndim(a), np.ndim(b)
    axes_a, axes_b = _tensordot_axes(axes, na, nb)
    free_a = [i for i in range(na) if i not in axes_a]
    free_b = [i for i in range(nb) if i not in axes_b]
    g = np.asarray(g)
    nfa = len(free_a)
    # ga: g's b-part contracted with b's free axes; the remaining b axes (the
    # contracted ones, in b's order) correspond to a's contracted axes.
    ga = np.tensordot(g, b, axes=(list(range(nfa, g.ndim)), free_b))
    pairs_by_b = sorted(zip(axes_b, axes_a))
    ga_axes = free_a + [pa for _, pa in pairs_by_b]
    ga = np.transpose(ga, np.argsort(ga_axes))
    gb = np.tensordot(a, g, axes=(free_a, list(range(nfa))))
    pairs_by_a = sorted(zip(axes_a, axes_b))
    gb_axes = [pb for _, pb in pairs_by_a] + free_b
    gb = np.transpose(gb, np.argsort(gb_axes))
    return ga, gb


def _einsum_specs(subscripts, ndims):
    """Explicit, ellipsis-free input specs and output spec of an einsum call whose
    operands have these numbers of dimensions."""
    subs = subscripts.replace(" ", "")
    ins, out = subs.split("->") if "->" in subs else (subs, None)
    in_specs = ins.split(",")
    used = {c for c in subs if c.isalpha()}
    spare = [c for c in string.ascii_letters if c not in used]
    n_ell = 0
    for s, ndim in zip(in_specs, ndims):
        if "..." in s:
            n_ell = max(n_ell, ndim - len(s.replace("...", "")))
    ell = "".join(spare[:n_ell])
    specs = []
    for s, ndim in zip(in_specs, ndims):
        if "..." in s:
            k = ndim - len(s.replace("...", ""))
            s = s.replace("...", ell[n_ell - k:])
        specs.append(s)
    if out is None:
        letters = "".join(in_specs).replace("...", "")
        once = sorted(c for c in set(letters) if letters.count(c) == 1)
        out = ell + "".join(once)
    else:
        out = out.replace("...", ell)
    return specs, out


def _einsum_plan(subscripts, shapes):
    """What the cotangents of np.einsum(subscripts, *operands) need, from the subscripts and
    operand shapes: per operand, the einsum that computes its cotangent and how to bring
    that to the operand's shape (a pure function; `_cotangent_recipe` memoises it)."""
    specs, out = _einsum_specs(subscripts, [len(s) for s in shapes])
    plans = []
    for i, (target, op_shape) in enumerate(zip(specs, shapes)):
        others = [s for j, s in enumerate(specs) if j != i]
        uniq = "".join(dict.fromkeys(target))
        available = set(out).union(*others) if others else set(out)
        keep = "".join(c for c in uniq if c in available)
        expr = ",".join([out] + others) + "->" + keep
        size = {c: op_shape[target.index(c)] for c in uniq}
        # the einsum's result is the cotangent as it is: no letter summed inside this
        # operand alone, none repeated, none of size 1 that einsum may have broadcast
        direct = keep == uniq == target and all(n != 1 for n in size.values())
        plans.append((expr, target, uniq, keep, size, direct))
    return tuple(plans)


@functools.lru_cache(maxsize=1024)
def _cotangent_recipe(subscripts, i, shapes):
    """Everything the cotangent of operand i of np.einsum(subscripts, *operands) needs
    besides the arrays, decided once per subscripts, operand and shapes (shapes: of the
    cotangent g, then of every operand), so that a call in a stepping loop makes one memo
    lookup (N-body: 150 cotangent einsums a gradient on 32 x 32 x 3 arrays, each a few
    microseconds of NumPy's own work).  Returns (expr, path, steps, post): the einsum of g
    and the other operands, its contraction order (False: none, see `_greedy_path`), the
    pairwise steps that replace it (`_pairwise_steps`, or None), and post, None where that
    einsum's result is the cotangent as it is, else (target, uniq, keep, size) for
    bringing it to the operand's shape.  The one memo of the einsum cotangents: a pure
    function of its key (like the cached rule IR in ad/splice.py), so it never changes a
    result."""
    expr, target, uniq, keep, size, direct = _einsum_plan(subscripts.replace(" ", ""), shapes[1:])[i]
    arg_shapes = shapes[:i + 1] + shapes[i + 2:]  # g's, then the other operands'
    # no path for two operands (one direct call), and none where ordering saves little
    path = _greedy_path(expr, arg_shapes) if len(arg_shapes) > 2 else False
    steps = _pairwise_steps(expr, arg_shapes) if path is False and len(arg_shapes) > 2 else None
    if path is not False:
        steps = _steps_along(expr, path)  # run by the kernels below: no path check per call
        if steps is not None:
            path = False
    if steps is None and len(arg_shapes) == 2:
        steps = ((0, 1, expr),)  # one pair: the same loop runs it
    if steps is not None:
        steps = _with_kernels(steps, arg_shapes)
    return expr, path, steps, (None if direct else (target, uniq, keep, size))


def _with_kernels(steps, shapes):
    """The pairwise steps, each with the kernel that runs it (`_contract_pairwise`): a
    broadcasting multiply (`_broadcast_product`), a matrix product (`_matmul_product`), or
    None for np.einsum.  Shapes of the steps' results follow from their operands'."""
    shapes = list(shapes)
    out = []
    for i, j, subscripts in steps:
        ins, keep = subscripts.split("->")
        first, second = ins.split(",")
        size: dict[str, int] = {}
        for spec, shape in ((first, shapes[i]), (second, shapes[j])):
            for letter, n in zip(spec, shape):
                size[letter] = max(size.get(letter, 1), n)
        result_shape = tuple(size.get(c, 1) for c in keep)
        last_first = _short_last_axis(result_shape)
        product = _broadcast_product(subscripts)
        kernel = ("multiply", *product, last_first) if product is not None else None
        if kernel is None and last_first:
            outer = _outer_product(subscripts)
            kernel = ("outer", *outer) if outer is not None else None
        if kernel is None:
            matmul = _matmul_product(subscripts, shapes[i], shapes[j])
            kernel = ("matmul", *matmul) if matmul is not None else None
        out.append((i, j, subscripts, kernel))
        shapes = [shape for k, shape in enumerate(shapes) if k not in (i, j)] + [result_shape]
    return tuple(out)


def _short_last_axis(shape) -> bool:
    """Whether a product's result is better made with its last axis outermost in memory:
    an axis of at most 4 (x, y, z of N-body's (32, 32, 3) pairwise differences) behind at
    least 64 entries.  NumPy runs a broadcasting multiply as one inner loop per run of the
    last axis, three entries at a time there, with a buffered copy of the broadcast operand
    for each: 122 thousand instructions for N-body's `ij,ik->ijk` against 47 thousand with
    the result laid out (k, i, j), where the inner loop runs over i and j together.  The
    values are the same products; only the result's strides differ (`_multiply_last_first`),
    and the operations that read it next (a sum with another such cotangent, the sums over
    i or j that undo a broadcast) run along the long axes too."""
    return len(shape) >= 2 and shape[-1] <= 4 and math.prod(shape[:-1]) >= 64


def _multiply_last_first(x, y):
    """x * y for two exact ndarrays of the result's number of axes (broadcasting), written
    into an array laid out with the last axis first and returned as a view in the usual
    axis order: the same values and dtype as `x * y` (see `_short_last_axis`)."""
    n = x.ndim
    move = (n - 1, *range(n - 1))
    return np.multiply(x.transpose(move), y.transpose(move), order="C").transpose(*range(1, n), 0)


def _matmul_product(subscripts, shape_a, shape_b):
    """For an einsum of two operands that contracts (or multiplies) them as a batch of
    matrix products (`ik,ijk->ij`, `bhqk,bhkd->bhqd`, `ij,ik->ijk`): how to run it as
    np.matmul, which calls BLAS where np.einsum without a path loops over every letter
    (a (8, 4, 64, 64) by (8, 4, 64, 32) batch: 0.37 against 2.9 ms; N-body's `ik,ijk->ij`:
    3.7 against 9.2 us).  Returns (order of a's axes, a's shape as (batch, rows,
    contracted), order of b's axes, b's shape as (batch, contracted, columns), the
    product's shape unfolded, the order that brings it to the result's letters), or None:
    for a letter repeated (a diagonal), summed inside one operand only, or of different
    sizes in the two (broadcast), which einsum keeps."""
    ins, out = subscripts.split("->")
    first, second = ins.split(",")
    if "." in subscripts or any(len(set(spec)) != len(spec) for spec in (first, second, out)) \
            or len(first) != len(shape_a) or len(second) != len(shape_b):
        return None
    size: dict[str, int] = {}
    for spec, shape in ((first, shape_a), (second, shape_b)):
        for letter, n in zip(spec, shape):
            if size.setdefault(letter, n) != n:
                return None
    if any(c not in out and not (c in first and c in second) for c in first + second):
        return None
    batch = [c for c in out if c in first and c in second]
    rows = [c for c in out if c in first and c not in second]
    columns = [c for c in out if c in second and c not in first]
    contracted = [c for c in first if c in second and c not in out]

    def count(letters):
        return math.prod(size[c] for c in letters)

    order_a = tuple(first.index(c) for c in batch + rows + contracted)
    order_b = tuple(second.index(c) for c in batch + contracted + columns)
    unfolded = batch + rows + columns
    to_out = tuple(unfolded.index(c) for c in out)
    return (order_a, (count(batch), count(rows), count(contracted)),
            order_b, (count(batch), count(contracted), count(columns)),
            tuple(size[c] for c in unfolded), None if to_out == tuple(range(len(out))) else to_out)


def _broadcast_product(subscripts):
    """For an einsum of two operands that sums nothing and whose result is lettered like
    one of them (`ij,ijk->ijk`, `j,ij->ij`): (which operand is the full one, the axis
    order that brings the other one's letters into the result's order, and the index that
    inserts its missing axes), so that a broadcasting multiply computes it; None otherwise.

    NumPy's ufunc loop is faster there than einsum's (N-body's 32 x 32 x 3 pairwise
    cotangents: 10 against 17 us, and 3 against 6 for `ij,j->ij`); where neither operand
    is lettered like the result (an outer product, `ij,ik->ijk`), a ufunc's broadcast is
    slower than einsum and `_matmul_product` takes it instead.  A repeated letter (a
    diagonal) or a summed one is not a product of this kind."""
    ins, out = subscripts.split("->")
    first, second = ins.split(",")
    if "." in subscripts or any(len(set(spec)) != len(spec) for spec in (first, second, out)) \
            or set(first) | set(second) != set(out):
        return None
    if first == out:
        full, other = 0, second
    elif second == out:
        full, other = 1, first
    else:
        return None
    return (full, *_aligned_to(other, out))


def _aligned_to(spec, out):
    """(the axis order that brings spec's letters into out's order, or None where they are
    in it already; the index that inserts out's letters spec lacks as unit axes)."""
    order = sorted(spec, key=out.index)
    perm = tuple(spec.index(c) for c in order)
    expand = tuple(slice(None) if c in spec else None for c in out)
    return (None if perm == tuple(range(len(perm))) else perm), expand


def _outer_product(subscripts):
    """For an einsum of two operands that sums nothing but is lettered like neither (an
    outer product, N-body's `ik,ij->ijk`): each operand's axis order and unit-axis index
    (`_aligned_to`), so that one broadcasting multiply computes it; None otherwise.  Used
    only for a result with a short last axis (`_short_last_axis`), laid out last axis first:
    laid out as usual, `_matmul_product`'s batch of products is faster."""
    ins, out = subscripts.split("->")
    first, second = ins.split(",")
    if "." in subscripts or any(len(set(spec)) != len(spec) for spec in (first, second, out)) \
            or set(first) | set(second) != set(out) or first == out or second == out:
        return None
    return (*_aligned_to(first, out), *_aligned_to(second, out))


# Below this theoretical speedup a contraction of three or more operands runs as one
# direct einsum: np.einsum given a path re-validates it on every call (tens of
# microseconds), more than a small contraction costs (N-body: 32 x 32 x 3).
_WORTH_ORDERING = 4.0


def _greedy_path(expr, shapes):
    """The greedy path, or False where it is not worth its per-call cost (it changes how
    einsum sums, never what; `_cotangent_recipe` memoises it)."""
    path, report = np.einsum_path(expr, *[np.empty(s) for s in shapes], optimize="greedy")
    found = re.search(r"speedup:\s*([0-9.eE+]+)", report)
    if found is not None and float(found.group(1)) < _WORTH_ORDERING:
        return False
    return path


def _pairwise_steps(expr, shapes):
    """How to run an einsum of three or more operands as einsums of two, one after another,
    the pair with the smallest result first: ((i, j, subscripts), ...), each step replacing
    operands i and j by their contraction at the end of the list.  NumPy runs an einsum it
    is given no path for as one loop over every letter of every operand, which for three
    operands costs about twice the pairs (N-body's `ik,ijk,j->ij`: 11 against 6 us; a path
    would be re-validated on every call).  None where an operand repeats a letter (a
    diagonal).  A pure function; `_cotangent_recipe` memoises it."""
    ins, out = expr.split("->")
    current = ins.split(",")
    if any(len(set(spec)) != len(spec) for spec in current):
        return None
    size: dict[str, int] = {}
    for spec, shape in zip(current, shapes):
        for letter, n in zip(spec, shape):
            size[letter] = max(size.get(letter, 1), n)
    steps = []
    while len(current) > 2:
        best = None
        for i in range(len(current)):
            for j in range(i + 1, len(current)):
                rest = set(out).union(*(spec for k, spec in enumerate(current) if k not in (i, j)))
                keep = "".join(c for c in dict.fromkeys(current[i] + current[j]) if c in rest)
                cost = math.prod(size[c] for c in keep)
                if best is None or cost < best[0]:
                    best = (cost, i, j, keep)
        _, i, j, keep = best
        steps.append((i, j, f"{current[i]},{current[j]}->{keep}"))
        current = [spec for k, spec in enumerate(current) if k not in (i, j)] + [keep]
    steps.append((0, 1, f"{current[0]},{current[1]}->{out}"))
    return tuple(steps)


def _steps_along(expr, path):
    """The pairwise steps (as `_pairwise_steps` gives them) of an einsum path of
    np.einsum_path, whose contractions likewise take two operands out of the list and put
    their result at its end; None where one takes one or more than two operands, or an
    operand repeats a letter (np.einsum then runs the path itself)."""
    ins, out = expr.split("->")
    current = ins.split(",")
    if any(len(set(spec)) != len(spec) for spec in current):
        return None
    steps = []
    for contraction in path[1:]:
        if len(contraction) != 2:
            return None
        i, j = sorted(contraction)
        rest = set(out).union(*(spec for k, spec in enumerate(current) if k not in (i, j)))
        keep = "".join(c for c in dict.fromkeys(current[i] + current[j]) if c in rest)
        if len(current) == 2:
            keep = out
        steps.append((i, j, f"{current[i]},{current[j]}->{keep}"))
        current = [spec for k, spec in enumerate(current) if k not in (i, j)] + [keep]
    return tuple(steps) if len(current) == 1 else None


def _contract_pairwise(steps, arrays):
    """The einsum the steps stand for, two operands at a time (see `_pairwise_steps`),
    each by its kernel (`_with_kernels`) where both operands are exact ndarrays (a matrix
    product only of float or complex arrays: BLAS's; it may sum in another order than
    einsum, so the last bits may differ), else by np.einsum."""
    arrays = list(arrays)
    for i, j, subscripts, kernel in steps:
        a, b = arrays[i], arrays[j]
        if kernel is not None and type(a) is np.ndarray and type(b) is np.ndarray:
            if kernel[0] == "multiply":
                _, full, perm, expand, last_first = kernel
                other = b if full == 0 else a
                if perm is not None:
                    other = other.transpose(perm)
                other = other[expand]
                # (the operands' order kept: a product of two numbers does not depend on it)
                x, y = (a, other) if full == 0 else (other, b)
                pair = _multiply_last_first(x, y) if last_first else x * y
            elif kernel[0] == "outer":
                _, perm_a, expand_a, perm_b, expand_b = kernel
                x = (a if perm_a is None else a.transpose(perm_a))[expand_a]
                y = (b if perm_b is None else b.transpose(perm_b))[expand_b]
                pair = _multiply_last_first(x, y)
            elif a.dtype.kind in "fc" and b.dtype.kind in "fc":
                _, order_a, folded_a, order_b, folded_b, unfolded, to_out = kernel
                pair = np.matmul(a.transpose(order_a).reshape(folded_a),
                                 b.transpose(order_b).reshape(folded_b)).reshape(unfolded)
                if to_out is not None:
                    pair = pair.transpose(to_out)
            else:
                pair = np.einsum(subscripts, a, b)
        else:
            pair = np.einsum(subscripts, a, b)
        if len(arrays) == 2:
            return pair
        arrays = [a for k, a in enumerate(arrays) if k not in (i, j)] + [pair]
    return arrays[0]


def _shapes(operands) -> tuple:
    """The operands' shapes (an array's own attribute first: np.shape dispatches)."""
    return tuple([op.shape if type(op) is np.ndarray else np.shape(op) for op in operands])


def _einsum_cotangent_of(g, subscripts, operands, i):
    """The cotangent of operands[i] in np.einsum(subscripts, *operands), alone, with
    the strong zero (a zero entry of g contributes 0; rules/strong_products.py)."""
    grad = _einsum_cotangent_raw(g, subscripts, operands, i)
    others = operands[:i] + operands[i + 1:]
    if not repair_needed(grad, g, *others):
        return grad

    def product(g_, *others_):
        return _einsum_cotangent_raw(g_, subscripts, others_[:i] + (operands[i],) + others_[i:], i)
    return strong_contraction(product, grad, g, *others)


def _einsum_cotangent_raw(g, subscripts, operands, i):
    """The cotangent of operands[i] in np.einsum(subscripts, *operands) as NumPy sums it."""
    expr, path, steps, post = _cotangent_recipe(subscripts, i, _shapes((g, *operands)))
    arrays = (g, *operands[:i], *operands[i + 1:])
    if steps is not None:
        grad = _contract_pairwise(steps, arrays)
    else:
        grad = np.einsum(expr, *arrays, optimize=path)
    if post is None:
        return grad
    target, uniq, keep, size = post
    op_shape = np.shape(operands[i])
    if len(keep) < len(uniq):
        # letters summed inside this operand only: broadcast over them
        grad = np.reshape(grad, [grad.shape[keep.index(c)] if c in keep else 1 for c in uniq])
        grad = np.broadcast_to(grad, [max(size[c], grad.shape[k]) for k, c in enumerate(uniq)])
    # size-1 dimensions of this operand that einsum broadcast
    axes = tuple(k for k, c in enumerate(uniq) if size[c] == 1 and grad.shape[k] != 1)
    if axes:
        grad = np.sum(grad, axis=axes, keepdims=True)
    if len(uniq) < len(target):
        # a repeated letter (a diagonal): grad on the diagonal, zeros elsewhere, built without
        # writing into an array (gradient code is differentiated again, by either mode)
        grad = _on_diagonal(grad, target, uniq, op_shape)
    return grad


def _on_diagonal(grad, target, uniq, op_shape):
    """The array of op_shape (axes lettered by target, with repeats) that holds grad (axes
    lettered uniq) where the axes of a repeated letter agree, and zeros elsewhere."""
    ndim = len(target)
    positions = [np.arange(n).reshape([n if k == axis else 1 for k in range(ndim)])
                 for axis, n in enumerate(op_shape)]
    first = {c: positions[target.index(c)] for c in uniq}
    on_diagonal = np.ones([1] * ndim, dtype=bool)
    for axis, c in enumerate(target):
        on_diagonal = on_diagonal & (positions[axis] == first[c])
    picked = grad[tuple(np.minimum(first[c], np.shape(grad)[k] - 1) for k, c in enumerate(uniq))]
    zero = np.zeros((), dtype=np.result_type(grad, np.float32))
    return np.where(on_diagonal, picked, zero)


def _einsum_cotangents(g, subscripts, operands):
    """One cotangent per operand of np.einsum(subscripts, *operands)."""
    operands = tuple(operands)
    return tuple(_einsum_cotangent_of(g, subscripts, operands, i) for i in range(len(operands)))


@pure
def einsum_operand_cotangent(ct, k, subscripts, *operands):
    """The cotangent of operands[k] alone in np.einsum(subscripts, *operands).

    What the adjoint of an einsum calls when its subscripts are a constant string
    and its operands are passed one by one (ad/reverse/calls.py: operand_cotangents): once per
    active operand, so a constant operand's cotangent is never computed.  The plan
    (which einsum gives the cotangent, whether ordering the contraction pays) is
    made once per subscripts and shapes and memoised."""
    return _einsum_cotangent_of(ct, subscripts, tuple(operands), k)


def _sublist_letters(sublist) -> str:
    """[0, 1, Ellipsis] -> 'ab...': the subscripts string a sublist stands for."""
    return "".join("..." if item is Ellipsis else string.ascii_letters[item] for item in sublist)


def einsum_sublist_cotangents(g, first, rest):
    """np.einsum(op0, sub0, op1, sub1, ..., [out]): rewritten to the subscripts form.

    Returns the cotangent of op0 and a tuple for the remaining arguments, None
    for every sublist.
    """
    args = (first, *rest)
    pairs = len(args) // 2
    arrays = args[0:2 * pairs:2]
    expr = ",".join(_sublist_letters(sub) for sub in args[1:2 * pairs:2])
    if len(args) % 2:
        expr += "->" + _sublist_letters(args[-1])
    grads = _einsum_cotangents(g, expr, arrays)
    rest_bars = []
    for k in range(1, len(args)):
        rest_bars.append(grads[k // 2] if k % 2 == 0 and k < 2 * pairs else None)
    return grads[0], tuple(rest_bars)


def _solve_cotangents(g, y, a, b):
    """Cotangents of x = solve(a, b) with stacks of matrices and broadcasting."""
    at = np.swapaxes(a, -1, -2)
    # b holds vectors when x has fewer dimensions than a (a matrix b gives x at least a's).  Read
    # from the result, not from b: NumPy 2 takes b as vectors only when it is 1-D, NumPy 1.x
    # whenever it has one dimension fewer than a (a of (3, 3, 3) with b of (3, 3)).
    if np.ndim(y) < np.ndim(a):
        gb = np.linalg.solve(at, g[..., None])[..., 0]
        ga = -gb[..., :, None] * y[..., None, :]
    else:
        gb = np.linalg.solve(at, g)
        ga = -(gb @ np.swapaxes(y, -1, -2))
    return unbroadcast(ga, a), unbroadcast(gb, b)


def _abs_covector(x):
    """The cotangent of |x| per unit g: sign(x) for real x, conj(x)/|x| for complex x (the
    covector convention, docs/complex.md); 0 at 0 either way."""
    if not np.iscomplexobj(x):
        return np.sign(x)
    magnitude = np.abs(x)
    return np.where(magnitude == 0, 0.0, np.conj(x) / np.where(magnitude == 0, 1.0, magnitude))


def _vector_norm_cotangent(x, gk, yk, ord, axes):
    """Cotangent of a vector p-norm over `axes` (gk, yk with those axes kept); complex x
    too (every formula is one of |x|: its sign becomes conj(x)/|x|)."""
    if np.iscomplexobj(x):
        gk = np.real(gk)  # a real output's cotangent
    if ord is None or ord == 2:
        return np.conj(x) * (gk / yk)
    if ord in (np.inf, -np.inf):
        hit = np.abs(x) == yk  # ties split evenly
        return _abs_covector(x) * hit * (gk / np.sum(hit, axis=axes, keepdims=True))
    if ord == 0:
        return np.zeros_like(x)  # a count of non-zeros: piecewise constant
    p = float(ord)
    return _abs_covector(x) * np.abs(x) ** (p - 1) * (gk / yk ** (p - 1))


def _matrix_norm_cotangent(x, gk, yk, ord, axes):
    """Cotangent of a matrix norm over axes (row axis, column axis); complex x too (the
    singular values' covector is conj(U V^H), |x|'s is conj(x)/|x|)."""
    if np.iscomplexobj(x):
        gk = np.real(gk)  # a real output's cotangent
    if ord is None or ord == "fro":
        return np.conj(x) * (gk / yk)
    if ord in ("nuc", 2, -2):
        moved = np.moveaxis(x, axes, (-2, -1))
        u, _, vt = np.linalg.svd(moved, full_matrices=False)
        if ord == "nuc":
            d = u @ vt
        elif ord == 2:
            d = u[..., :, :1] @ vt[..., :1, :]
        else:
            d = u[..., :, -1:] @ vt[..., -1:, :]
        gm = np.moveaxis(gk, axes, (-2, -1))
        return np.moveaxis(gm * np.conj(d), (-2, -1), axes)
    if ord in (1, -1, np.inf, -np.inf):
        # 1: max over columns of the column sums of |x|; inf: max over rows of the row
        # sums.  Tied columns (rows) split the cotangent evenly.
        summed, chosen = (axes[0], axes[1]) if ord in (1, -1) else (axes[1], axes[0])
        line = np.sum(np.abs(x), axis=summed, keepdims=True)
        hit = line == yk
        return _abs_covector(x) * (hit * (gk / np.sum(hit, axis=chosen, keepdims=True)))
    raise NotImplementedError(f"zygote_py: no derivative rule for the matrix norm ord={ord!r}")


def _norm_cotangent(g, y, x, ord, axis, keepdims):
    """Cotangent of np.linalg.norm for the orders other than the default."""
    x = np.asarray(x)
    if axis is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axis, (tuple, list)):
        axes = tuple(int(a) % x.ndim for a in axis)
    else:
        axes = (int(axis) % x.ndim,)
    gk = g if keepdims else np.expand_dims(g, axes)
    yk = y if keepdims else np.expand_dims(y, axes)
    if len(axes) == 1:
        return _vector_norm_cotangent(x, gk, yk, ord, axes)
    return _matrix_norm_cotangent(x, gk, yk, ord, axes)


def vector_norm_cotangent(g, y, x, ord, axis, keepdims):
    """Cotangent of np.linalg.vector_norm: a tuple axis (or None) is one flattened vector."""
    x = np.asarray(x)
    axes = tuple(range(x.ndim)) if axis is None else tuple(
        int(a) % x.ndim for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    gk = g if keepdims else np.expand_dims(g, axes)
    yk = y if keepdims else np.expand_dims(y, axes)
    return _vector_norm_cotangent(x, gk, yk, ord, axes)


# ---------------------------------------------------------------------------
# products


# Each product helper below computes as NumPy does and tests its result for nan once;
# only a nan there (0 * inf in a sum) goes to `strong_contraction`, which recomputes those
# entries with the terms of a zero cotangent entry counted 0 (rules/strong_products.py).


@pure
def matmul_cotangent_a(g, a, b):
    """The cotangent of a in a @ b (2-D directly; 1-D and stacked operands via the general helper)."""
    r = g @ b.T if a.ndim == 2 and b.ndim == 2 else _matmul_cotangent_of_a(g, a, b)
    if not repair_needed(r, g, b):
        return r
    return strong_contraction(lambda g_, b_: _matmul_cotangent_of_a(g_, a, b_), r, g, b)


@pure
def matmul_cotangent_b(g, a, b):
    """The cotangent of b in a @ b."""
    r = a.T @ g if a.ndim == 2 and b.ndim == 2 else _matmul_cotangent_of_b(g, a, b)
    if not repair_needed(r, g, a):
        return r
    return strong_contraction(lambda g_, a_: _matmul_cotangent_of_b(g_, a_, b), r, g, a)


@pure
def dot_cotangent_a(g, a, b):
    r = g @ b.T if np.ndim(a) == 2 and np.ndim(b) == 2 else _dot_cotangents(g, a, b)[0]
    if not repair_needed(r, g, b):
        return r
    return strong_contraction(lambda g_, b_: _dot_cotangents(g_, a, b_)[0], r, g, b)


@pure
def dot_cotangent_b(g, a, b):
    r = a.T @ g if np.ndim(a) == 2 and np.ndim(b) == 2 else _dot_cotangents(g, a, b)[1]
    if not repair_needed(r, g, a):
        return r
    return strong_contraction(lambda g_, a_: _dot_cotangents(g_, a_, b)[1], r, g, a)


@pure
def outer_cotangent_a(g, a, b):
    """The cotangent of a in np.outer(a, b): g summed against b's entries."""
    r = np.reshape(g @ np.ravel(b), shape_of(a))
    if not repair_needed(r, g, b):
        return r
    return strong_contraction(lambda g_, b_: np.reshape(g_ @ np.ravel(b_), shape_of(a)), r, g, b)


@pure
def outer_cotangent_b(g, a, b):
    r = np.reshape(np.ravel(a) @ g, shape_of(b))
    if not repair_needed(r, g, a):
        return r
    return strong_contraction(lambda g_, a_: np.reshape(np.ravel(a_) @ g_, shape_of(b)), r, g, a)


@pure
def inner_cotangent_a(g, a, b):
    """The cotangent of a in np.inner(a, b), N-D (1-D operands are written inline in the rule)."""
    r = _inner_cotangents(g, a, b)[0]
    if not repair_needed(r, g, b):
        return r
    return strong_contraction(lambda g_, b_: _inner_cotangents(g_, a, b_)[0], r, g, b)


@pure
def inner_cotangent_b(g, a, b):
    r = _inner_cotangents(g, a, b)[1]
    if not repair_needed(r, g, a):
        return r
    return strong_contraction(lambda g_, a_: _inner_cotangents(g_, a_, b)[1], r, g, a)


@pure
def tensordot_cotangent_a(g, a, b, axes):
    r = _tensordot_cotangents(g, a, b, axes)[0]
    if not repair_needed(r, g, b):
        return r
    return strong_contraction(lambda g_, b_: _tensordot_cotangents(g_, a, b_, axes)[0], r, g, b)


@pure
def tensordot_cotangent_b(g, a, b, axes):
    r = _tensordot_cotangents(g, a, b, axes)[1]
    if not repair_needed(r, g, a):
        return r
    return strong_contraction(lambda g_, a_: _tensordot_cotangents(g_, a_, b, axes)[1], r, g, a)


# Tangents of a @ b and np.dot(a, b) in forward mode, with the strong zero in the tangent
# d: a zero entry of d contributes 0 even against an infinite entry of the other operand.


def _tangent_product(product, d, other):
    """product(d, other), bilinear, with the strong zero in d: computed as NumPy computes
    it, and recomputed by strong_contraction only where a nan says a 0 * inf met."""
    r = product(d, other)
    if not repair_needed(r, d, other):
        return r
    return strong_contraction(product, r, d, other)


def _matmul_from_the_left(d, a):
    return a @ d


def _dot_from_the_left(d, a):
    return np.dot(a, d)


@pure
def matmul_tangent_left(d, b):
    """d @ b for the tangent d of a in a @ b."""
    return _tangent_product(operator.matmul, d, b)


@pure
def matmul_tangent_right(a, d):
    """a @ d for the tangent d of b in a @ b."""
    return _tangent_product(_matmul_from_the_left, d, a)


@pure
def dot_tangent_left(d, b):
    """np.dot(d, b) for the tangent d of a in np.dot(a, b)."""
    return _tangent_product(np.dot, d, b)


@pure
def dot_tangent_right(a, d):
    """np.dot(a, d) for the tangent d of b in np.dot(a, b)."""
    return _tangent_product(_dot_from_the_left, d, a)


@vjp(operator.matmul, np.matmul, since(np.linalg, "matmul", "NumPy 2.0"), diff=("a", "b"))
def matmul(g, y, a, b, out=None, **kwargs):
    """a @ b: one helper per cotangent, so an inactive operand's product is never computed."""
    return matmul_cotangent_a(g, a, b), matmul_cotangent_b(g, a, b)


@vjp(matmul_tangent_left, diff=("d", "b"))
def matmul_tangent_left_(g, y, d, b):
    """As a @ b's rule (the helper is that product)."""
    return matmul_cotangent_a(g, d, b), matmul_cotangent_b(g, d, b)


@vjp(matmul_tangent_right, diff=("a", "d"))
def matmul_tangent_right_(g, y, a, d):
    return matmul_cotangent_a(g, a, d), matmul_cotangent_b(g, a, d)


@vjp(dot_tangent_left, diff=("d", "b"))
def dot_tangent_left_(g, y, d, b):
    return dot_cotangent_a(g, d, b), dot_cotangent_b(g, d, b)


@vjp(dot_tangent_right, diff=("a", "d"))
def dot_tangent_right_(g, y, a, d):
    return dot_cotangent_a(g, a, d), dot_cotangent_b(g, a, d)


@vjp(np.dot)
def dot(g, y, a, b, out=None):
    return dot_cotangent_a(g, a, b), dot_cotangent_b(g, a, b)


@vjp_method(np.ndarray, "dot", diff=("self", "other"))
def ndarray_dot(g, y, self, other, out=None):
    return dot_cotangent_a(g, self, other), dot_cotangent_b(g, self, other)


@vjp(np.outer, since(np.linalg, "outer", "NumPy 2.0"))
def outer(g, y, a, b, out=None):
    return outer_cotangent_a(g, a, b), outer_cotangent_b(g, a, b)


@vjp(np.inner)
def inner(g, y, a, b):
    if np.ndim(a) == 1 and np.ndim(b) == 1:
        return strong_zero(g, g * b), strong_zero(g, g * a)
    return inner_cotangent_a(g, a, b), inner_cotangent_b(g, a, b)


@vjp(np.vdot)
def vdot(g, y, a, b):
    """Real arrays: vdot flattens both operands."""
    return (np.reshape(strong_zero(g, g * np.ravel(b)), shape_of(a)),
            np.reshape(strong_zero(g, g * np.ravel(a)), shape_of(b)))


@vjp(since(np, "vecdot", "NumPy 2.0"), since(np.linalg, "vecdot", "NumPy 2.0"), diff=("a", "b"))
def vecdot(g, y, a, b, out=None, *, axis=-1, **kwargs):
    gk = np.expand_dims(g, axis)
    return unbroadcast(strong_zero(gk, gk * b), a), unbroadcast(strong_zero(gk, gk * a), b)


@vjp(np.tensordot, diff=("a", "b"))
def tensordot(g, y, a, b, axes=2):
    return tensordot_cotangent_a(g, a, b, axes), tensordot_cotangent_b(g, a, b, axes)


@vjp(np.einsum, diff=("subscripts", "operands"), operand_cotangent=einsum_operand_cotangent)
def einsum(g, y, subscripts, *operands, out=None, optimize=False, **kwargs):
    """Subscript-string form, with implicit or explicit output, ellipses, repeated
    letters (diagonals) and letters summed within one operand.  The cotangent of
    `operands` is a tuple, one entry per operand.  The sublist form
    (np.einsum(a, [0, 1], b, [1, 2])) is rewritten to a subscripts string."""
    if isinstance(subscripts, str):
        return None, _einsum_cotangents(g, subscripts, operands)
    return einsum_sublist_cotangents(g, subscripts, operands)


# ---------------------------------------------------------------------------
# np.linalg


@vjp(np.linalg.inv)
def inv(g, y, a):
    """-(y^T g y^T) as two product helpers (each with the strong zero): g y^T, then y^T (g y^T)."""
    return -matmul_cotangent_b(matmul_cotangent_a(g, y, y), y, y)


@vjp(np.linalg.det)
def det(g, y, a):
    """d det(a) = det(a) inv(a)^T (a must be invertible)."""
    gk = np.expand_dims(g, (-2, -1))
    return strong_zero(gk, gk * np.expand_dims(y, (-2, -1)) * np.swapaxes(np.linalg.inv(a), -1, -2))


@vjp(np.linalg.slogdet)
def slogdet(g, y, a):
    """The output is (sign, logabsdet); only logabsdet carries a derivative."""
    gl = output_parts(g, y)[1]
    if gl is None:
        return None
    gk = np.expand_dims(gl, (-2, -1))
    return strong_zero(gk, gk * np.swapaxes(np.linalg.inv(a), -1, -2))


@vjp(np.linalg.solve)
def solve(g, y, a, b):
    """x = solve(a, b): b_bar = solve(a^T, g), a_bar = -b_bar x^T."""
    if a.ndim == 2 and b.ndim <= 2:
        gb = np.linalg.solve(a.T, g)
        if b.ndim == 1:
            return -np.outer(gb, y), gb
        return -(gb @ y.T), gb
    return _solve_cotangents(g, y, a, b)


@vjp(np.linalg.norm, diff=("x",), underived=("ord",))
def norm(g, y, x, ord=None, axis=None, keepdims=False):
    """The default order (2-norm of vectors, Frobenius of matrices) inline; vector
    p-norms, inf-norms (ties split evenly), matrix 1/-1/inf/-inf norms (tied columns
    or rows split evenly), nuc and spectral norms via a helper.  At x == 0 the
    2-norm has no derivative; the cotangent there is 0, the subgradient of least
    norm (as PyTorch does), so norm(x - x) and norm(0 * x) differentiate to 0.
    A list or tuple x gets a list or tuple."""
    if ord is None:
        gk = g if keepdims or axis is None else np.expand_dims(g, axis)
        yk = y if keepdims or axis is None else np.expand_dims(y, axis)
        safe = np.where(yk == 0, 1, yk)  # x is 0 wherever its norm is
        if isinstance(x, (list, tuple)):  # np.linalg.norm([a, b]): one cotangent per item
            return like_input(np.asarray(x) * (gk / safe), x)
        return x * (gk / safe)
    return like_input(_norm_cotangent(g, y, x, ord, axis, keepdims), x)
