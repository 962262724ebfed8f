"""docs/how-it-works.md shows generated code: it must be what the compiler writes."""

import re
from pathlib import Path

import zygote_py as zp
from golden import cases
from zygote_py.compiler import COMPILER
from zygote_py.ir.printer import format_function

PAGE = Path(__file__).resolve().parent.parent / "docs" / "how-it-works.md"


def test_the_generated_code_on_the_page_is_current():
    text = PAGE.read_text()
    shown = re.search(r"```python\n(def scalar_loop_grad\(x\):.*?)```", text, re.S).group(1)
    assert shown.rstrip("\n") == zp.grad_source(cases.scalar_loop, args=(0.3,)).rstrip("\n")


def test_the_ir_on_the_page_is_current():
    text = PAGE.read_text()
    shown = re.search(r"\n(func scalar_loop\(.*?\n})\n", text, re.S).group(1)
    assert shown == format_function(COMPILER.lowered_ir(cases.scalar_loop)).rstrip("\n")


def test_the_forward_mode_code_on_the_page_is_current():
    from zygote_py.forward_compiler import FORWARD
    from zygote_py.kinds import scalar_kinds

    text = PAGE.read_text()
    shown = re.search(r"```python\n(def scalar_loop_jvp\(x, x_dot\):.*?)```", text, re.S).group(1)
    entry = FORWARD.forward_entry(cases.scalar_loop, (True,), (), scalar_kinds((0.3,)))
    assert shown.rstrip("\n") == entry.source.rstrip("\n")
