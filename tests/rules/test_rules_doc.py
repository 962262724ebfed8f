"""docs/rules.md's table of supported functions is generated from the registry
(`python -m zygote_py.rules.table`); this fails when the two disagree."""

from __future__ import annotations

from zygote_py import rules
from zygote_py.rules import table


def test_rules_doc_table_is_up_to_date():
    text = table.DOC.read_text(encoding="utf-8")
    assert table.update(text) == text, "docs/rules.md is out of date: run python -m zygote_py.rules.table"


def test_table_lists_every_supported_and_nondifferentiable_name():
    section = table.render()
    for name in rules.supported():
        assert f"| `{name}` |" in section or name.startswith("zygote_py.")
    for name in rules.nondifferentiable():
        assert f"`{name}`" in section or name.startswith("zygote_py.")


def test_update_appends_a_missing_section():
    out = table.update("# Title\n")
    assert out.startswith("# Title\n") and table.BEGIN in out and out.rstrip().endswith(table.END)


def test_check_mode_reports_stale_docs(tmp_path, monkeypatch):
    stale = tmp_path / "rules.md"
    stale.write_text(f"intro\n{table.BEGIN}\nold\n{table.END}\n", encoding="utf-8")
    monkeypatch.setattr(table, "DOC", stale)
    assert table.main(["--check"]) == 1
    assert table.main([]) == 0
    assert table.main(["--check"]) == 0
    assert stale.read_text(encoding="utf-8").startswith("intro\n")
