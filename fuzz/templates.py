"""Expression templates: more NumPy, builtins, methods and syntax, table-driven.

Each entry is (construct, result type, template).  In a template, `$T` (T one
of S, V, W, M, I) is replaced by a fresh random expression of type T, and
`$T1`, `$T2` by one expression each that is reused wherever the same slot
appears (for `np.where($V1 > 0.1, $V1, ...)`).  Thresholds sit away from the
values the arguments take only by chance; the oracle skips programs that
land near a kink.
"""

from __future__ import annotations

import re

SLOT = re.compile(r"\$([SVWMI])(\d?)")

TEMPLATES = [
    # ---- expressions: operators, builtins, math, elementwise NumPy
    ("expressions", "S", "($S ** 3)"),
    ("expressions", "S", "(2.0 ** $S)"),
    ("expressions", "S", "pow($S, 2)"),
    ("expressions", "S", "math.hypot($S, 0.5)"),
    ("expressions", "S", "math.atan2($S, 1.5)"),
    ("expressions", "S", "math.expm1(math.sin($S))"),
    ("expressions", "S", "math.log1p($S * $S)"),
    ("expressions", "S", "(+$S - -$S)"),
    ("expressions", "S", "(($S1 > 0.37) * $S1 + ($S1 <= 0.37) * 0.5)"),
    ("expressions", "S", "($S or 0.5)"),
    ("expressions", "S", "(($S1 > -0.61) and $S1)"),
    ("expressions", "S", "float($S)"),
    ("expressions", "S", "np.float64($S)"),
    ("expressions", "S", "($S ** $I)"),
    ("expressions", "V", "np.square($V)"),
    ("expressions", "V", "np.power($V, 3)"),
    ("expressions", "V", "np.sinh(np.sin($V))"),
    ("expressions", "V", "np.cosh($V)"),
    ("expressions", "V", "np.arcsinh($V)"),
    ("expressions", "V", "np.hypot($V, 0.5)"),
    ("expressions", "V", "np.exp2($V)"),
    ("expressions", "V", "np.expm1($V)"),
    ("expressions", "V", "np.negative($V)"),
    ("expressions", "V", "np.multiply($V, $S)"),
    ("expressions", "V", "np.add($V, $V)"),
    ("expressions", "V", "np.subtract($S, $V)"),
    ("expressions", "V", "np.divide($V, 2.0 + np.cos($V))"),
    ("expressions", "V", "(np.sign($V1) * $V1)"),
    ("expressions", "V", "$V.copy()"),
    ("expressions", "V", "np.logaddexp($V, $V)"),
    ("expressions", "M", "np.tanh($M) ** 2"),
    ("expressions", "M", "np.sin($M).T.T"),
    ("expressions", "W", "np.array([$S, $S])"),
    ("expressions", "V", "np.array([$S, $S1, $S1 * 2.0])"),
    # ---- broadcasting
    ("broadcasting", "M", "($M + $V[None, :])"),
    ("broadcasting", "M", "($W.reshape(2, 1) * $V.reshape(1, 3))"),
    ("broadcasting", "M", "np.broadcast_to($V, (2, 3)) * $M"),
    ("broadcasting", "M", "($M * np.ones((2, 1)) + $S)"),
    ("broadcasting", "V", "np.sum($M * $V, axis=0)"),
    ("broadcasting", "W", "np.sum($M * $V[np.newaxis], axis=1)"),
    ("broadcasting", "M", "($M - $M.mean(axis=0))"),
    ("broadcasting", "V", "(np.zeros_like($V) + $S)"),
    ("broadcasting", "V", "(np.ones(3) * $S + np.arange(3.0) * $V)"),
    ("broadcasting", "V", "(np.full_like($V, 0.5) * $V + np.eye(3) @ $V)"),
    # ---- reductions
    ("reductions", "S", "np.std($V)"),
    ("reductions", "S", "np.var($M)"),
    ("reductions", "S", "np.linalg.norm($V)"),
    ("reductions", "S", "np.linalg.norm($M)"),
    ("reductions", "S", "np.prod($W)"),
    ("reductions", "S", "np.cumsum($V)[-1]"),
    ("reductions", "S", "np.trace($M @ $M.T)"),
    ("reductions", "S", "np.einsum('i,i->', $V, $V)"),
    ("reductions", "S", "$V.dot($V)"),
    ("reductions", "S", "$V.mean()"),
    ("reductions", "S", "$M.max()"),
    ("reductions", "S", "np.amin($V)"),
    ("reductions", "S", "np.sum($M, axis=(0, 1))"),
    ("reductions", "S", "np.average($V)"),
    ("reductions", "S", "np.sum($V, keepdims=True)[0]"),
    ("reductions", "S", "np.linalg.det($M @ $M.T + np.eye(2))"),
    ("reductions", "S", "np.sum(np.linalg.inv($M @ $M.T + np.eye(2)))"),
    ("reductions", "S", "np.sum(np.linalg.solve($M @ $M.T + 2.0 * np.eye(2), $W))"),
    ("reductions", "V", "$M.sum(axis=0)"),
    ("reductions", "W", "$M.mean(axis=1)"),
    ("reductions", "V", "np.cumsum($V)"),
    ("reductions", "V", "np.cumprod(np.cos($V))"),
    ("reductions", "W", "np.max($M, axis=-1)"),
    ("reductions", "W", "np.min($M, axis=1)"),
    ("reductions", "V", "np.einsum('ij,i->j', $M, $W)"),
    ("reductions", "W", "np.dot($M, $M.T) @ $W"),
    ("reductions", "S", "np.logaddexp.reduce($V)"),
    # ---- indexing and shapes
    ("indexing", "W", "$V[-2:]"),
    ("indexing", "W", "$V[$I % 2:$I % 2 + 2]"),
    ("indexing", "V", "$M[:, ::-1][0]"),
    ("indexing", "W", "$M[np.array([1, 0]), 1]"),
    ("indexing", "V", "$M[:, [2, 0, 1]][1]"),
    ("indexing", "S", "np.sum($M[$M > 0.1])"),
    ("indexing", "V", "$V[np.newaxis][0]"),
    ("indexing", "W", "$M[..., None][:, 1, 0]"),
    ("indexing", "V", "$V[[True, False, True, ]].sum() + $V"),
    ("indexing", "V", "$M.ravel()[1:4]"),
    ("indexing", "V", "$M.flatten()[::2]"),
    ("indexing", "V", "np.flip($V)"),
    ("indexing", "V", "np.roll($V, 1)"),
    ("indexing", "W", "np.diff($V)"),
    ("indexing", "M", "np.tile($V, (2, 1))"),
    ("indexing", "V", "np.repeat($W, 2)[:3]"),
    ("indexing", "M", "np.swapaxes($M.reshape(3, 2), 0, 1)"),
    ("indexing", "V", "np.squeeze($V[None, :, None])"),
    ("indexing", "M", "np.expand_dims($V, 0) * $M"),
    ("indexing", "M", "$M.reshape(-1).reshape(2, 3)"),
    ("indexing", "S", "$M[$I % 2][$I % 3]"),
    ("indexing", "V", "np.concatenate(($W, $V[:1]))"),
    ("indexing", "M", "np.hstack([$M[:, :1], $M[:, 1:]])"),
    ("indexing", "S", "$M[1, 1:].sum()"),
    ("indexing", "W", "np.take($V, [0, 2])"),
    ("indexing", "S", "$V[len($V) - 1]"),
    ("indexing", "S", "$M[$M.shape[0] - 1, $M.ndim]"),
    # ---- builtins over iterables, comprehensions
    ("comprehensions", "S", "max($S for _ in range(1))"),
    ("comprehensions", "S", "sum([$S, $S, $S])"),
    ("comprehensions", "S", "max([$V1[0], $V1[1] + 0.37, $V1[2] - 0.41])"),
    ("comprehensions", "S", "min(np.sin(t) for t in $V)"),
    ("comprehensions", "M", "np.array([[t * u for t in $V] for u in $W])"),
    ("comprehensions", "V", "np.stack([t * $V for t in $W]).sum(axis=0)"),
    ("comprehensions", "S", "sum({k: t * t for k, t in zip('abc', $V)}.values())"),
    ("comprehensions", "S", "sum(t * $I for t in $W)"),
    ("comprehensions", "S", "sum(a * b for a, b in zip($V, $V))"),
    ("comprehensions", "S", "sum(sum(row) for row in $M)"),
    ("comprehensions", "S", "sum([t for t in $V if t > 0.1] + [0.5])"),
    ("comprehensions", "V", "np.array(list($V)) * 2.0"),
    ("comprehensions", "S", "sum(tuple($W))"),
    ("comprehensions", "S", "sum(map(math.sin, $W))"),
    # ---- iterators as values (docs/limitations.md "Supported Python")
    ("iterators", "S", "sum(sorted($V, reverse=True)[:2])"),
    ("iterators", "S", "sum(sorted([$S, $S, $S], key=abs))"),
    ("iterators", "S", "sum(t * k for k, t in enumerate($V, start=1))"),
    ("iterators", "S", "(next(iter($V)) + sum(list(reversed($W))))"),
    ("iterators", "S", "(sum(filter(lambda t: t > 0.13, $V)) + 0.5)"),
    ("iterators", "S", "sum(map(np.tanh, [$S, $S]))"),
    ("iterators", "S", "sum(itertools.chain($V, $W))"),
    ("iterators", "S", "list(itertools.accumulate($V))[-1]"),
    ("iterators", "S", "sum(a * b for a, b in itertools.product($W, $W))"),
    ("iterators", "S", "next(iter([]), $S)"),
    ("control_flow", "S", "($S1 if -2.5 < $S1 < 2.5 else 0.5)"),
    # ---- containers
    ("containers", "S", "[$S, $S][1]"),
    ("containers", "S", "($S, $S1)[-1]"),
    ("containers", "S", "{'p': $S, 'q': $S}['q']"),
    ("containers", "S", "([$S] + [$S] * 2)[2]"),
    ("containers", "V", "np.stack([$V, $V, $V1])[2]"),
    ("containers", "S", "sum([$S, $S][::-1])"),
    ("containers", "S", "len([$S, $S]) * $S"),
    ("containers", "V", "np.array([$V, $V]).mean(axis=0)"),
    ("containers", "S", "np.sum(np.array([[$S, $S], [$S, 1.0]]))"),
    ("containers", "S", "dict(a=$S, b=$S)['b']"),
]


def fill(template: str, make) -> str:
    """Replace the slots of `template`; make(ty) returns an expression of type ty."""
    shared: dict[str, str] = {}

    def slot(m: re.Match) -> str:
        ty, tag = m.group(1), m.group(2)
        if not tag:
            return make(ty)
        key = ty + tag
        if key not in shared:
            shared[key] = make(ty)
        return shared[key]

    return SLOT.sub(slot, template)
