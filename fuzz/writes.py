"""Random write programs: view chains, aliases, containers and objects holding arrays.

The main generator (program.py) writes into arrays now and then; this one does
nothing else.  Each program makes `buf` from `x` (a transpose, a Fortran-ordered
copy, a reversed view, ...), takes views of it through a random chain (`.T`,
`[::-1]`, `[:, 1:3]`, `.reshape(-1)`, `[0]`, ...), puts arrays in lists, tuples,
dicts and objects, writes through every kind of target zygote_py follows (item,
slice, mask and fancy writes, `op=`, `out=`, `np.add.at`, `np.copyto`, `.fill`,
`c[k] op= v`, `lst[0][1:] = v`, a helper writing into its argument, rows of a
`for` loop), and reads some of it back.  `zp.gradient` and `zp.jvp` are compared
with central differences, the value with a plain call; a refusal is counted, a
wrong number or an internal error is a failure.

    python -m fuzz.writes --seed 1 --count 500

Found the silently wrong `c[k] op= v` on an array item and the F-ordered copies of
runtime/writes.py and forward_writes.py (docs/fuzzing.md).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from collections import Counter

import numpy as np

import zygote_py as zp

from .loading import load_module

HEADER = """import numpy as np

W = np.arange(1.0, 13.0).reshape(3, 4) / 5.0


class Box:
    def __init__(self, w):
        self.w = w


def helper_view(a):
    return a[1:, ::2]


def helper_write(a, c):
    a[0, :2] = a[1, :2] * c

"""

BASES = [
    "buf = x * 1.0",
    "buf = np.stack([x[0], x[1] * c, x[2]])",
    "buf = np.asfortranarray(x * 1.0)",
    "buf = np.ascontiguousarray((x * 1.0).T).T",
    "buf = np.zeros((3, 4))\nbuf[...] = x",
    "buf = x.copy()",
    "buf = (x * 1.0)[::-1]",
]

# view chains: (text, number of dimensions it leaves of a 2-D start, or None: keeps it)
VIEWS_2D = [".T", "[::-1]", "[:, ::-1]", "[1:]", "[:, 1:3]", "[::2]", "[:, ::2]", "[..., 1:]"]
VIEWS_TO_1D = [".reshape(-1)", ".ravel()", "[0]", "[:, 0]"]
VIEWS_1D = ["[::-1]", "[1:]", "[::2]"]

WRITES_ANY = [
    "{v}[...] = {v} * c",
    "{v} *= c",
    "{v} += np.sin({v})",
    "{v} -= 0.5 * c",
    "np.multiply({v}, c, out={v})",
    "np.sin({v}, out={v})",
    "{v}[{v} > 0] = c",
    "{v}.fill(c)",
    "np.copyto({v}, {v} * {v})",
    "{v}[:] = {v}[::-1]",
    "for _i in range(2):\n    {v} *= np.tanh({v})",
    "tmp = [{v}, buf]\ntmp[0] += c",
    "np.put({v}, [0, 2], [c, 2 * c])",
]
WRITES_1D = [
    "{v}[[0, 0, 1]] = c * np.arange(3.0)",
    "np.add.at({v}, [0, 0, 1], c)",
    "{v}[[0, 1]] = {v}[[1, 0]]",
    "{v}[1:] = {v}[:-1] * c",
    "{v}.sort()",
]

ALIASES = [
    "lst = [buf, buf]\nlst[0] += c",
    "lst = []\nlst.append(buf)\nbuf *= c\nacc = acc + np.sum(lst[0] ** 2)",
    "o = Box(buf)\nbuf += c\nacc = acc + np.sum(o.w * W)",
    "t = (buf, 1.0)\nbuf[0] = c * buf[1]\nacc = acc + np.sum(t[0])",
    "for row in buf:\n    row *= c",
    "v = buf.reshape(2, 6)\nv[0] *= c",
    "a2 = b2 = buf\na2 += np.sin(b2)",
    "buf, aux = aux, buf",
    "r = helper_view(buf)\nr *= c",
    "helper_write(buf, c)",
    "np.add.at(buf[1], [0, 0, 2], c)",
    "s = buf[:, 1:]\ns -= np.tanh(aux[:, :3])",
    "aux = buf.copy()\naux[0] = c",
    "o = Box(aux)\nw = o.w\nw[1] = c * w[0]",
    "lst = [buf]\nlst[0][1:] = c",
    "m = buf > 0\nbuf[m] *= c",
    "buf[:] = np.cumsum(buf, axis=0)",
    "np.multiply(aux, c, out=buf)",
    "acc = acc + np.sum(buf * aux)",
    "for j in range(2):\n    buf[j] += buf[j + 1] * c",
    "tmp = {'x': buf[0]}\ntmp['x'] += c",
    "acc = acc + float(buf[0, 0]) * c",
    "held = [buf[0], (2.0, buf[1:])]\nbuf[1, 2] = c\nacc = acc + np.sum(held[1][1]) * held[1][0]",
]

READS = [
    "np.sum(np.sin(buf) * W)",
    "np.sum(buf.T * W.T) + np.sum(v1 ** 2)",
    "np.sum(buf ** 2) * c",
    "np.sum(np.cos(v1)) + np.sum(buf[:, 1:] * x[:, :3])",
    "np.sum(buf @ W.T @ buf.T)",
]


def _chain(rng: random.Random) -> tuple[str, int]:
    text, ndim = "", 2
    for _ in range(rng.randint(1, 3)):
        if ndim == 2:
            op = rng.choice(VIEWS_2D + VIEWS_TO_1D)
            ndim = 1 if op in VIEWS_TO_1D else 2
        else:
            op = rng.choice(VIEWS_1D)
        text += op
    return text, ndim


def _indented(lines: list[str]) -> str:
    return "".join("    " + line + "\n" for text in lines for line in text.split("\n"))


def views_program(rng: random.Random) -> str:
    chain, ndim = _chain(rng)
    lines = [rng.choice(BASES), f"v1 = buf{chain}"]
    writes = WRITES_ANY + (WRITES_1D if ndim == 1 else [])
    for _ in range(rng.randint(1, 2)):
        lines.append(rng.choice(writes).format(v="v1"))
    if rng.random() < 0.4:
        chain2, _ = _chain(rng)
        lines += [f"v2 = buf{chain2}", rng.choice(WRITES_ANY[:5]).format(v="v2")]
    read = rng.choice(READS)
    lines.append(f"return {read}")
    return HEADER + "def f(x, c):\n" + _indented(lines)


def aliases_program(rng: random.Random) -> str:
    lines = ["buf = x * 1.0", "aux = np.cos(x)", "acc = 0.0"]
    lines += [rng.choice(ALIASES) for _ in range(rng.randint(2, 4))]
    lines.append(rng.choice(["return acc + np.sum(np.sin(buf) * W) + np.sum(aux ** 2)",
                             "return acc + np.sum(buf ** 2) * c + np.sum(aux * buf)"]))
    return HEADER + "def f(x, c):\n" + _indented(lines)


def program(seed: int, index: int) -> str:
    rng = random.Random(f"{seed}:{index}")
    return (views_program if index % 2 == 0 else aliases_program)(rng)


def _central_gradient(f, x, c, h=1e-6):
    gx = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        gx[i] = (f(x + e, c) - f(x - e, c)) / (2 * h)
    return gx, (f(x, c + h) - f(x, c - h)) / (2 * h)


def check(source: str, directory: str, seed: int) -> tuple[str, str]:
    """('ok' | 'refused' | 'invalid' | 'wrong' | 'internal', detail) for one program."""
    f = load_module(source, directory, "writes").f
    rng = np.random.default_rng(seed)
    x, c = rng.uniform(-1.0, 1.0, (3, 4)), 0.7
    try:
        plain = f(x.copy(), c)
    except Exception:  # noqa: BLE001 (a program NumPy itself rejects: not ours to judge)
        return "invalid", ""
    if not np.isfinite(plain):
        return "invalid", ""
    refusals = []
    try:
        value, (gx, gc) = zp.withgradient(f, x.copy(), c)
        if not np.isclose(value, plain, rtol=1e-12, atol=1e-12):
            return "wrong", f"value {value!r}, a plain call {plain!r}"
        gx = np.zeros_like(x) if gx is None else gx
        want_x, want_c = _central_gradient(f, x, c)
        if not (np.allclose(gx, want_x, rtol=1e-5, atol=1e-6)
                and np.isclose(0.0 if gc is None else gc, want_c, rtol=1e-5, atol=1e-6)):
            return "wrong", f"gradient {gx!r}, {gc!r}; central differences {want_x!r}, {want_c!r}"
    except zp.ZygoteError as err:
        refusals.append(f"gradient: {type(err).__name__}: {err.message}")
    except Exception as err:  # noqa: BLE001
        return "internal", f"gradient: {type(err).__name__}: {err}"
    try:
        dx = rng.standard_normal((3, 4))
        _, tangent = zp.jvp(f, (x.copy(), c), (dx, 0.3))
        h = 1e-6
        want = (f(x + h * dx, c + h * 0.3) - f(x - h * dx, c - h * 0.3)) / (2 * h)
        if not np.isclose(tangent, want, rtol=1e-5, atol=1e-6):
            return "wrong", f"jvp {tangent!r}, central differences {want!r}"
    except zp.ZygoteError as err:
        refusals.append(f"jvp: {type(err).__name__}: {err.message}")
    except Exception as err:  # noqa: BLE001
        return "internal", f"jvp: {type(err).__name__}: {err}"
    return ("refused", "; ".join(refusals)) if refusals else ("ok", "")


def run(seed: int, count: int, start: int = 0, report=print) -> Counter:
    outcomes: Counter = Counter()
    with tempfile.TemporaryDirectory() as directory:
        sys.path.insert(0, directory)
        try:
            for index in range(start, start + count):
                source = program(seed, index)
                kind, detail = check(source, directory, seed * 100_003 + index)
                outcomes[kind] += 1
                if kind in ("wrong", "internal"):
                    report(f"--- program {index} ({kind}): {detail}\n{source}")
        finally:
            sys.path.remove(directory)
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzz.writes",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--start", type=int, default=0)
    args = parser.parse_args(argv)
    outcomes = run(args.seed, args.count, args.start)
    print(", ".join(f"{k}: {v}" for k, v in sorted(outcomes.items())))
    return 1 if outcomes["wrong"] or outcomes["internal"] else 0


if __name__ == "__main__":
    sys.exit(main())
