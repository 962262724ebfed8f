"""Source text of random float constants and array literals."""

from __future__ import annotations

import random


def const(rng: random.Random, low: float = -1.0, high: float = 1.0) -> str:
    v = round(rng.uniform(low, high), 2)
    return repr(v if v != 0.0 else 0.25)


def array_literal(rng: random.Random, ty: str) -> str:
    if ty == "M":
        rows = [f"[{', '.join(const(rng) for _ in range(3))}]" for _ in range(2)]
        return f"np.array([{', '.join(rows)}])"
    n = 3 if ty == "V" else 2
    return f"np.array([{', '.join(const(rng) for _ in range(n))}])"
