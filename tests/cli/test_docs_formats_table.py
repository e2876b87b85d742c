"""docs/formats.md carries the per-format table generated from the registry; keep it true."""

from __future__ import annotations

from pathlib import Path

from streamcall.cli import formats_markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "formats.md"
START = "<!-- generated: streamcall formats --markdown -->\n"
END = "<!-- end generated -->"


def test_docs_table_matches_the_registry() -> None:
    text = DOC.read_text(encoding="utf-8")
    generated = text[text.index(START) + len(START) : text.index(END)]
    assert generated == formats_markdown(), (
        "docs/formats.md is stale: regenerate the table with `streamcall formats --markdown`"
    )
