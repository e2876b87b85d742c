"""Shared test helpers: random chunkings drawn by hypothesis, and the format check."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import Tools, parse_tool_calls, tool_parser


def random_chunkings(data: st.DataObject, text: str, count: int = 3) -> list[list[str]]:
    """``count`` random chunkings of ``text``, drawn by hypothesis (so they shrink)."""
    out = []
    for _ in range(count):
        if len(text) < 2:
            out.append([text])
            continue
        cuts = data.draw(st.lists(st.integers(1, len(text) - 1), max_size=min(40, len(text))))
        out.append(testing.chunk_at(text, cuts))
    return out


def check_format(
    fmt: str, text: str, data: st.DataObject | None = None, tools: Tools | None = None
) -> list[testing.Item]:
    """The contract for one text: whole, 1-char, 7-char and random chunkings agree, the
    invariants hold, and the result equals ``parse_tool_calls``."""
    chunkings = random_chunkings(data, text) if data is not None else []
    items = testing.check_chunkings(lambda: tool_parser(fmt, tools=tools), text, chunkings)
    parsed = parse_tool_calls(text, fmt, tools=tools)
    content = "".join(v for k, v in items if k == "text" and isinstance(v, str))
    calls = [v for k, v in items if k == "call" and isinstance(v, testing.Call)]
    assert parsed.content == content
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == [
        (c.name, c.arguments) for c in calls
    ]
    return items


def summary(items: list[testing.Item]) -> tuple[str, list[tuple[str, Any]]]:
    """(all text, [(name, args dict)]) of a coalesced result, for terse assertions."""
    import json

    text = "".join(v for k, v in items if k == "text" and isinstance(v, str))
    calls = [
        (v.name, json.loads(v.arguments))
        for k, v in items
        if k == "call" and isinstance(v, testing.Call)
    ]
    return text, calls
