"""Every registered format, through its own wire syntax: render, parse, compare.

Each format class renders calls the way its model writes them (``render``). Random calls
with "tame" values (no markup characters, no edge whitespace, so that every format can
carry them) are rendered with text around them and parsed back in random chunkings.
Format-specific edge cases live in each format's own test file.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall.formats.registry import formats, parser_class
from support import calls, check_format, same, schema_for, summary

RENDERABLE = []
for _name in formats():
    try:
        parser_class(_name).render([("f", {})])
    except NotImplementedError:
        continue
    RENDERABLE.append(_name)


@pytest.mark.parametrize("fmt", RENDERABLE)
@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure. ", "Let me check.\n"]))
def test_render_then_parse_in_any_chunking(
    fmt: str, data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    # Duplicate names with different key types would make the schema ambiguous.
    by_name: dict[str, dict[str, Any]] = {}
    for name, args in call_list:
        by_name.setdefault(name, {}).update(args)
    call_list = [(name, by_name[name]) for name, _ in call_list]
    rendered = parser_class(fmt).render(call_list)
    # A format whose calls must be the whole output (``pythonic``) has text only after them.
    whole = getattr(parser_class(fmt), "WHOLE_OUTPUT", False)
    text = rendered + "\n" + before if whole and before else before + rendered
    items = check_format(fmt, text, data, tools=schema_for(call_list))
    content, got = summary(items)
    assert content.strip() == before.strip()
    assert [n for n, _ in got] == [n for n, _ in call_list]
    for (_, g), (_, w) in zip(got, call_list, strict=True):
        assert same(g, w), (g, w)
