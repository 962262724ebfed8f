"""docs/mutation.md shows the compiler's current output: its generated-code example is the
golden file of the fill loop (tests/golden/fill_loop.grad.py, itself checked by test_golden)."""

from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_the_example_is_the_golden_file():
    page = (ROOT / "docs" / "mutation.md").read_text()
    golden = (ROOT / "tests" / "golden" / "fill_loop.grad.py").read_text()
    assert "```python\n" + golden + "```" in page
