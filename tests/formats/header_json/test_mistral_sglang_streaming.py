"""mistral against SGLang's ``MistralDetector`` streaming suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_mistral_detector_streaming.py``
(Apache-2.0, copyright the SGLang project): the model outputs, its chunkings (every
character, whole, halves, thirds) and its invariant (streaming gives the one-shot result,
arrays of several calls included, no marker in the content); the code is ours. Every text
goes through ``check_format`` (whole, 1-char, 7-char and random chunkings), and SGLang's
chunkings are replayed and compared with the one-shot result. SGLang compares the content
stripped; here it is compared as written (the blank before ``[TOOL_CALLS]`` is kept).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        },
    },
]


def _chunkings(text: str) -> list[list[str]]:
    third = len(text) // 3
    half = len(text) // 2
    return [
        list(text),
        [text],
        [text[:half], text[half:]],
        [text[:third], text[third : 2 * third], text[2 * third :]],
    ]


def W(args: str) -> str:
    return f'{{"name": "get_weather", "arguments": {args}}}'


def S(args: str) -> str:
    return f'{{"name": "search", "arguments": {args}}}'


def arr(*calls: str) -> str:
    return "[TOOL_CALLS] [" + ", ".join(calls) + "]"


CITY = '{"city": "Beijing"}'
CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    (arr(W("{}")), "", [("get_weather", {})]),
    (arr(W(CITY)), "", [("get_weather", {"city": "Beijing"})]),
    # SGLang's regression: the second call came out as text
    (arr(W("{}"), W("{}")), "", [("get_weather", {}), ("get_weather", {})]),
    (
        arr(W(CITY), S('{"q": "food"}')),
        "",
        [("get_weather", {"city": "Beijing"}), ("search", {"q": "food"})],
    ),
    (
        arr(W("{}"), S('{"q": "a"}'), W('{"days": 3}')),
        "",
        [("get_weather", {}), ("search", {"q": "a"}), ("get_weather", {"days": 3})],
    ),
    (arr(W("{}"), S('{"q": "x"}')), "", [("get_weather", {}), ("search", {"q": "x"})]),
    (arr(W('{"days": 7}')), "", [("get_weather", {"days": 7})]),
    (arr(W('{"city": "北京"}')), "", [("get_weather", {"city": "北京"})]),
    ("Sure. " + arr(W("{}")), "Sure. ", [("get_weather", {})]),
    ("The weather is nice today.", "The weather is nice today.", []),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_sglang_stream_matches_final(
    text: str, content: str, calls: Any, data: st.DataObject
) -> None:
    one_shot = check_format("mistral", text, data, TOOLS)
    assert summary(one_shot) == (content, calls)
    assert "[TOOL_CALLS" not in summary(one_shot)[0]
    for pieces in _chunkings(text):
        got = testing.coalesce(testing.run(tool_parser("mistral", tools=TOOLS), pieces))
        assert got == one_shot, pieces
    for _, v in one_shot:
        if isinstance(v, testing.Call):
            assert isinstance(json.loads(v.arguments), dict)
