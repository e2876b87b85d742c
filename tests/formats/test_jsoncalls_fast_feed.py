"""The JSON-call engine's direct feed for streaming arguments gives what the general loop
gives (seed 004's rule: a fast path is kept only if it measures faster, and is proved equal
to the path it shortcuts)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall._feedloop import FeedLoop
from streamcall.formats._jsoncalls import JsonCallsParser
from streamcall.formats.registry import formats, parser_class

JSON_FORMATS = [n for n in formats() if issubclass(parser_class(n), JsonCallsParser)]

TEXTS = [
    'Hi <tool_call>{"name": "f", "arguments": {"a": [1, 2.5e3, true, null, "x\\ty"], "b": {"c": "d"}}}</tool_call> tail',
    '<tool_call>{"name": "f", "arguments": {"a": tru',
    '<tool_call>{"name": "f", "arguments": {"a": 01}}</tool_call>after',
    '<tool_call>{"name": "f", "arguments": {"a": "raw\ncontrol"}} junk</tool_call>',
    '<tool_call>{"arguments": {"q": 1}, "name": "late"}</tool_call><tool_call>{"name": "g", "arguments": {}}</tool_call>',
]


def general_loop(fmt: str, pieces: list[str]) -> list[testing.Item]:
    parser = parser_class(fmt)()
    events = []
    for piece in pieces:
        events.extend(FeedLoop.feed(parser, piece))  # the general loop, no shortcut
    events.extend(parser.finish())
    return testing.coalesce(events)


@pytest.mark.parametrize("text", TEXTS)
@given(cuts=st.lists(st.integers(1, 200), max_size=30))
def test_fast_feed_equals_the_general_loop(text: str, cuts: list[int]) -> None:
    pieces = testing.chunk_at(text, cuts)
    fast = testing.coalesce(testing.run(parser_class("hermes")(), pieces))
    assert fast == general_loop("hermes", pieces)


@pytest.mark.parametrize("fmt", JSON_FORMATS)
def test_fast_feed_equals_the_general_loop_for_every_json_format(fmt: str) -> None:
    args = {"k": [1, {"x": "y"}], "n": -1.5, "s": 'a"b'}
    text = "Sure. " + parser_class(fmt).render([("f", args), ("g", {})])
    for size in (1, 3, 7):
        pieces = testing.chunk_every(text, size)
        fast = testing.coalesce(testing.run(parser_class(fmt)(), pieces))
        assert fast == general_loop(fmt, pieces)
        assert next(json.loads(v.arguments) for k, v in fast if k == "call") == args  # type: ignore[union-attr]
