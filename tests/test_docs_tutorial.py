"""docs/tutorial.md runs: its ```python blocks, in order, as one script.

The blocks are written to a real file (zygote_py reads the source of the
functions it differentiates, which exec'd strings do not have), each preceded
by a comment naming its line in the tutorial, and run with runpy.  The blocks
assert their own numbers.
"""

import re
import runpy
from pathlib import Path

TUTORIAL = Path(__file__).resolve().parent.parent / "docs" / "tutorial.md"


def blocks():
    """[(line number of the block's first code line, code)]."""
    text = TUTORIAL.read_text()
    out = []
    for m in re.finditer(r"^```python\n(.*?)^```$", text, flags=re.DOTALL | re.MULTILINE):
        out.append((text[:m.start(1)].count("\n") + 1, m.group(1)))
    return out


def test_tutorial_has_blocks_that_check_numbers():
    found = blocks()
    assert len(found) >= 8
    assert sum("assert" in code for _, code in found) >= 8


def test_tutorial_blocks_run_in_order(tmp_path):
    script = tmp_path / "tutorial_blocks.py"
    parts = [f"# --- docs/tutorial.md line {line} ---\n{code}" for line, code in blocks()]
    script.write_text("\n".join(parts))
    namespace = runpy.run_path(str(script), run_name="tutorial")
    assert namespace["accuracy"] > 0.9
