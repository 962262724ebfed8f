"""docs/mutation.md shows the compiler's current output: its generated-code examples are the
golden files of the fill loop and of a helper writing into its argument
(tests/golden/fill_loop.grad.py, heat_helper.grad.py, themselves checked by test_golden), and
its forward-mode example is the fill loop's forward code as zp.jvp compiles it."""

import re
from pathlib import Path

import numpy as np
from golden import cases

import zygote_py as zp
from zygote_py.forward_compiler import FORWARD
from zygote_py.kinds import scalar_kinds

ROOT = Path(__file__).parent.parent


def test_the_example_is_the_golden_file():
    page = (ROOT / "docs" / "mutation.md").read_text()
    for name in ("fill_loop", "heat_helper"):  # (heat_helper: writes inside called functions)
        golden = (ROOT / "tests" / "golden" / f"{name}.grad.py").read_text()
        assert "```python\n" + golden + "```" in page, name


def test_the_forward_mode_example_is_the_current_output():
    """The forward-mode code shown for the fill loop is what zp.jvp compiles today."""
    args = {f.__name__: a for f, a in cases.CASES}["fill_loop"]
    source = FORWARD.forward_entry(cases.fill_loop, (True,), (), scalar_kinds(args)).source
    page = (ROOT / "docs" / "mutation.md").read_text()
    assert "```python\n" + source + "```" in page
    assert re.search(r"_zp_item_tangent\(out, i, out_dot, t_\d+, True\)", source)  # in place in the loop


def heat(u0, c):
    u = u0.copy()
    for _ in range(1000):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return (u * u).sum()


def test_the_stencil_excerpt_is_the_current_output():
    """The backward loop body shown for the heat equation (ad/reverse/owned_slots.py) is what
    zp.grad_source gives for bench/mutation.py's workload today, line for line."""
    page = (ROOT / "docs" / "mutation.md").read_text()
    start = page.index("the chain becomes statements on it:")
    excerpt = page[start:].split("```python\n", 1)[1].split("```", 1)[0]
    source = zp.grad_source(heat, args=(np.sin(np.linspace(0, 3, 1000)), 0.2))
    lines = [line.strip() for line in excerpt.splitlines() if line.strip()]
    assert len(lines) == 8
    body = [line.strip() for line in source.splitlines()]
    first = body.index(lines[0])
    assert body[first:first + len(lines)] == lines, source
