"""The code in the documentation runs: every ```python block of README.md and docs/*.md
runs here (each page's blocks in order, as one script written to a real file, since
zygote_py reads the source of what it differentiates), unless another test runs it (the
tutorial: test_docs_tutorial.py) or the line just above its fence is the marker
`<!-- fragment -->` (a piece of a larger program, an excerpt of generated code, a
signature).  ```text blocks show output; any other block (shell commands, say) must be
marked too.  The blocks assert their own numbers where they compute any."""

from __future__ import annotations

import re
import runpy
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKER = "<!-- fragment -->"
RUN_ELSEWHERE = {"tutorial.md": "test_docs_tutorial.py runs its blocks in order, as one script"}
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[\w-]*)[^\n]*\n(?P<code>.*?)^(?P=indent)```[ \t]*$",
                   re.MULTILINE | re.DOTALL)


def fences(page: Path) -> list[tuple[int, str, str, bool]]:
    """(line of the fence, language, code, marked as a fragment) for each fenced block."""
    text = page.read_text()
    out = []
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = [ln.strip() for ln in text[:m.start()].splitlines() if ln.strip()]
        marked = bool(before) and before[-1] == MARKER
        out.append((line, m.group("lang"), textwrap.dedent(m.group("code")), marked))
    return out


def _runnable(page: Path) -> list[tuple[int, str]]:
    return [(line, code) for line, lang, code, marked in fences(page)
            if lang == "python" and not marked]


def test_the_pages_have_blocks_and_the_pattern_finds_them():
    total = sum(len(fences(page)) for page in PAGES)
    assert total >= 40
    # a fence the pattern missed would leave an odd number of ``` lines on its page
    for page in PAGES:
        opening = len(re.findall(r"^[ \t]*```", page.read_text(), re.MULTILINE))
        assert opening == 2 * len(fences(page)), page.name


def test_every_block_runs_shows_output_or_is_marked_a_fragment():
    unmarked = [f"{page.name}:{line} ```{lang}" for page in PAGES
                for line, lang, _, marked in fences(page)
                if not marked and lang not in ("python", "text")]
    assert not unmarked, f"run these in a test, or mark them {MARKER}: {unmarked}"


def test_the_pages_run_elsewhere_have_their_test():
    assert (ROOT / "tests" / "test_docs_tutorial.py").is_file() and set(RUN_ELSEWHERE) == {"tutorial.md"}


def test_the_site_lists_every_page():
    # mkdocs.yml's nav: `mkdocs build --strict` (.ci/run) also fails on a page left out
    listed = set(re.findall(r":\s*([\w-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.MULTILINE))
    assert listed == {page.name for page in PAGES if page.parent.name == "docs"}


@pytest.mark.parametrize("page", [p for p in PAGES if _runnable(p) and p.name not in RUN_ELSEWHERE],
                         ids=lambda p: p.name)
def test_the_python_blocks_of_a_page_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # blocks that write files write them here
    script = tmp_path / f"{page.stem.replace('-', '_')}_blocks.py"
    script.write_text("\n".join(f"# --- {page.name} line {line} ---\n{code}"
                                for line, code in _runnable(page)))
    runpy.run_path(str(script), run_name=f"docs_{page.stem}")
