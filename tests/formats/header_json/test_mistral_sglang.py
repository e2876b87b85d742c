"""mistral against SGLang's ``MistralDetector`` unit suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_mistral_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs (the pre-v11 JSON-array form
and the v11+ ``[TOOL_CALLS]name[ARGS]{...}`` form), the tool schemas, the chunkings it
feeds and the expected calls and content; the code is ours. Every text goes through
``check_format`` (whole, 1-char, 7-char and random chunkings), and SGLang's chunkings are
replayed as given and compared with the one-shot result.

Where SGLang's expectation differs on purpose, we assert ours and say why:
- Text before ``[TOOL_CALLS]`` is kept as written, its trailing blank included
  (``"I will check. "``; SGLang strips it).
- ``[TOOL_CALLS] [not valid json]`` is text, whole (SGLang drops it): nothing is lost.

Not ported: ``has_tool_call``, ``_extract_json_array`` and ``structure_info`` (SGLang's API).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sglang_fixtures import WEATHER_AND_SEARCH
from streamcall import testing
from streamcall.events import Text
from streamcall.formats.registry import tool_parser
from support import check_format, summary

TOOLS = WEATHER_AND_SEARCH

CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    (
        '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Beijing"}}]',
        "",
        [("get_weather", {"city": "Beijing"})],
    ),
    (
        '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Beijing"}}, '
        '{"name": "search", "arguments": {"query": "restaurants"}}]',
        "",
        [("get_weather", {"city": "Beijing"}), ("search", {"query": "restaurants"})],
    ),
    (  # SGLang: "I will check." (stripped)
        'I will check. [TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]',
        "I will check. ",
        [("get_weather", {"city": "Tokyo"})],
    ),
    (
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Beijing"}',
        "",
        [("get_weather", {"city": "Beijing"})],
    ),
    (  # SGLang: "Let me help." (stripped)
        'Let me help. [TOOL_CALLS]get_weather[ARGS]{"city": "Tokyo"}',
        "Let me help. ",
        [("get_weather", {"city": "Tokyo"})],
    ),
    ("The weather is nice today.", "The weather is nice today.", []),
    ("The weather in Beijing is sunny today.", "The weather in Beijing is sunny today.", []),
    (
        '[TOOL_CALLS] [{"name": "get_weather", "arguments": '
        '{"city": "Beijing", "options": {"detailed": true}}}]',
        "",
        [("get_weather", {"city": "Beijing", "options": {"detailed": True}})],
    ),
    (
        '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"tags": ["a", "b"]}}]',
        "",
        [("get_weather", {"tags": ["a", "b"]})],
    ),
    # SGLang drops it (normal text ""); text here, whole
    ("[TOOL_CALLS] [not valid json]", "[TOOL_CALLS] [not valid json]", []),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_sglang_mistral_cases(text: str, content: str, calls: Any, data: st.DataObject) -> None:
    assert summary(check_format("mistral", text, data, TOOLS)) == (content, calls)


@pytest.mark.parametrize(
    ("pieces", "content", "calls"),
    [
        (
            ["[TOOL_", "CALLS]get_weather", '[ARGS]{"city": "Beijing"}'],
            "",
            [("get_weather", {"city": "Beijing"})],
        ),
        (
            ["Sure! ", "[TOOL_CALLS]get_weather", '[ARGS]{"city": "Tokyo"}'],
            "Sure! ",
            [("get_weather", {"city": "Tokyo"})],
        ),
    ],
)
def test_sglang_streaming(pieces: list[str], content: str, calls: Any) -> None:
    one_shot = check_format("mistral", "".join(pieces), None, TOOLS)
    got = testing.coalesce(testing.run(tool_parser("mistral", tools=TOOLS), pieces))
    assert got == one_shot
    assert summary(one_shot) == (content, calls)


def test_sglang_normal_text_before_tool_is_out_at_once() -> None:
    parser = tool_parser("mistral", tools=TOOLS)
    assert [e.text for e in parser.feed("Let me check. ") if isinstance(e, Text)] == [
        "Let me check. "
    ]
