"""Wherever the docs show ``parse_response`` called or declared, ``prefix`` is shown with
it: the function requires it, as transformers 5.24 does (issue 40)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import streamcall

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CALL = re.compile(r"parse_response\(([^()]*)\)")


def test_prefix_is_required() -> None:
    template = streamcall.response_template_for("hermes")
    assert template is not None
    with pytest.raises(ValueError, match="requires `prefix`"):
        streamcall.parse_response("hi", template)
    assert streamcall.parse_response("hi", template, prefix="")["content"] == "hi"


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_every_shown_call_names_prefix(doc: Path) -> None:
    shown = [m.group(1) for m in CALL.finditer(doc.read_text()) if m.group(1).strip()]
    assert all("prefix" in args for args in shown), [a for a in shown if "prefix" not in a]
