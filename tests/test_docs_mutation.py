"""docs/mutation.md shows the compiler's current output: its generated-code examples are the
golden files of the fill loop and of a helper writing into its argument
(tests/golden/fill_loop.grad.py, heat_helper.grad.py, themselves checked by test_golden)."""

from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_the_example_is_the_golden_file():
    page = (ROOT / "docs" / "mutation.md").read_text()
    for name in ("fill_loop", "heat_helper"):  # (heat_helper: writes inside called functions)
        golden = (ROOT / "tests" / "golden" / f"{name}.grad.py").read_text()
        assert "```python\n" + golden + "```" in page, name
