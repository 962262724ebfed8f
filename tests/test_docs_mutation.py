"""docs/mutation.md shows the compiler's current output: its generated-code examples are the
golden files of the fill loop and of a helper writing into its argument
(tests/golden/fill_loop.grad.py, heat_helper.grad.py, themselves checked by test_golden), and
its forward-mode example is the fill loop's forward code as zp.jvp compiles it."""

import re
from pathlib import Path

from golden import cases

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
