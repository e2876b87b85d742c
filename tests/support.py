"""Shared test helpers: random chunkings drawn by hypothesis, and the format check."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats._base import Tools
from streamcall.formats.registry import parse_tool_calls, tool_parser


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
    key = (fmt, text, json.dumps(tools, sort_keys=True))
    items = _BASELINE.get(key)
    if items is None:
        # The fixed chunkings (whole, 1-char, 7-char) and the one-shot API, checked once per
        # text: they are the same in every hypothesis example, only the random ones differ.
        items = testing.check_chunkings(lambda: tool_parser(fmt, tools=tools), text)
        parsed = parse_tool_calls(text, fmt, tools=tools)
        content = "".join(v for k, v in items if k == "text" and isinstance(v, str))
        calls = [v for k, v in items if k == "call" and isinstance(v, testing.Call)]
        assert parsed.content == content
        assert [(c.name, c.arguments) for c in parsed.tool_calls] == [
            (c.name, c.arguments) for c in calls
        ]
        _BASELINE[key] = items
    if data is not None:
        for pieces in random_chunkings(data, text):
            got = testing.coalesce(testing.run(tool_parser(fmt, tools=tools), pieces))
            assert got == items, f"chunking {pieces!r} differs:\n  {got!r}\n  {items!r}"
    return items


_BASELINE: dict[tuple[str, str, str], list[testing.Item]] = {}


def summary(items: list[testing.Item]) -> tuple[str, list[tuple[str, Any]]]:
    """(all text, [(name, args dict)]) of a coalesced result, for terse assertions."""
    text = "".join(v for k, v in items if k == "text" and isinstance(v, str))
    calls = [
        (v.name, json.loads(v.arguments))
        for k, v in items
        if k == "call" and isinstance(v, testing.Call)
    ]
    return text, calls


def check_every_end(fmt: str, text: str, tools: list[dict[str, Any]] | None = None) -> None:
    """Every prefix of ``text``, as a whole stream, keeps the contract (``check_format``)."""
    for end in range(len(text) + 1):
        check_format(fmt, text[:end], None, tools)


def typed_tool(name: str, **types: str) -> dict[str, Any]:
    """A function tool whose parameters are ``types``' keys, each of the JSON type given."""
    properties = {key: {"type": kind} for key, kind in types.items()}
    return {
        "type": "function",
        "function": {"name": name, "parameters": {"type": "object", "properties": properties}},
    }


def check_contract(
    fmt: str,
    text: str,
    data: st.DataObject | None = None,
    tools: Tools | None = None,
    *,
    reasoning: bool = False,
    prompt_opened: bool | None = None,
) -> list[testing.Item]:
    """``testing.check_contract`` for a tool-call format (or, with ``reasoning``, a reasoning
    format): whole, 1-char, 7-char and random chunkings (drawn from ``data``) agree, and
    nothing is lost, decoded or reordered. A tool format's result also equals
    ``parse_tool_calls``."""
    from streamcall.reasoning import reasoning_parser

    def make() -> Any:
        if reasoning:
            return reasoning_parser(fmt, prompt_opened=prompt_opened)
        return tool_parser(fmt, tools=tools)

    chunkings = random_chunkings(data, text) if data is not None else []
    source = None
    if reasoning and fmt == "minimax_m2_append_think" and prompt_opened is not False and text:
        source = "<think>" + text  # the pre-filled <think>, written back
    items = testing.check_contract(make, text, chunkings, source=source)
    if not reasoning:
        parsed = parse_tool_calls(text, fmt, tools=tools)
        content, calls = summary(items)
        assert parsed.content == content
        assert [(c.name, c.args) for c in parsed.tool_calls] == calls
    return items
