"""glm45 against SGLang's ``Glm4MoeDetector`` unit suite (GLM-4.5 / GLM-4.6).

Cases are taken from SGLang's ``test/registered/unit/function_call/test_glm4_moe_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs (its ``_weather_call``
helper), the tool schemas, the expected calls and the chunkings it feeds (1 and 7
characters, and its cut function name); the code is ours. Every text goes through
``check_format`` (whole, 1-char, 7-char and random chunkings).

Where SGLang's expectation differs on purpose, we assert ours and say why:
- ``<tool_call>get_weather</tool_call>`` (no newline after the name): SGLang's GLM-4.5
  detector rejects it; GLM-4.7 writes exactly this, and every GLM name here accepts both
  forms, so it is a call with no arguments.
- Text before a call is kept as written (``"Let me check. "``; SGLang's one-shot path
  strips the trailing blank).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sglang_fixtures import function_tool
from streamcall import ToolCallArgs, ToolCallStart, testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]
FMT = "glm45"


TOOLS = [
    function_tool(
        "get_weather",
        {"city": {"type": "string"}, "count": {"type": "number"}, "filters": {"type": "object"}},
        ["city"],
    ),
    function_tool("noop", {}),
    function_tool("search", {"query": {"type": "string"}}),
]


def _weather_call(*pairs: tuple[str, str]) -> str:
    body = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in pairs)
    return f"<tool_call>get_weather\n{body}</tool_call>"


SEARCH = "\n<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>cafes</arg_value>\n</tool_call>"

CASES: list[tuple[str, str, Calls]] = [
    # test_schema_type_coercion: the quoted "42" for a number is the number 42.
    (
        _weather_call(("city", "北京"), ("count", '"42"'), ("filters", '{"a": 1}')),
        "",
        [("get_weather", {"city": "北京", "count": 42, "filters": {"a": 1}})],
    ),
    # The unquoted number is a number, as SGLang's coercion intends.
    (
        _weather_call(("city", "北京"), ("count", "42"), ("filters", '{"a": 1}')),
        "",
        [("get_weather", {"city": "北京", "count": 42, "filters": {"a": 1}})],
    ),
    (_weather_call(("city", "123")), "", [("get_weather", {"city": "123"})]),
    (
        _weather_call(("city", "C:\\Users\\test")),
        "",
        [("get_weather", {"city": "C:\\Users\\test"})],
    ),
    (
        "Let me check. " + _weather_call(("city", "Tokyo")),
        "Let me check. ",
        [("get_weather", {"city": "Tokyo"})],
    ),
    (
        _weather_call(("city", "Tokyo")) + SEARCH,
        "",
        [("get_weather", {"city": "Tokyo"}), ("search", {"query": "cafes"})],
    ),
    # test_missing_name_separator_yields_no_calls: a call here (see the docstring).
    ("<tool_call>get_weather</tool_call>", "", [("get_weather", {})]),
    # test_streaming_matches_non_streaming_at_small_chunk_sizes scenarios
    (
        _weather_call(("city", "北京"), ("filters", '{"a": 1}'), ("count", "42")),
        "",
        [("get_weather", {"city": "北京", "filters": {"a": 1}, "count": 42})],
    ),
    (_weather_call(("city", "a<b & c")), "", [("get_weather", {"city": "a<b & c"})]),
    (_weather_call(("city", 'say "hi"\nok')), "", [("get_weather", {"city": 'say "hi"\nok'})]),
    ("<tool_call>noop\n</tool_call>", "", [("noop", {})]),
    ("a < b and c > d. done", "a < b and c > d. done", []),
    ("The weather in Tokyo is sunny.", "The weather in Tokyo is sunny.", []),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_sglang_glm4_moe_cases(text: str, content: str, calls: Calls, data: st.DataObject) -> None:
    assert summary(check_format(FMT, text, data, TOOLS)) == (content, calls)


def test_no_args_streams_one_empty_object() -> None:
    events = testing.run(tool_parser(FMT, tools=TOOLS), list("<tool_call>noop\n</tool_call>"))
    args = "".join(e.delta for e in events if isinstance(e, ToolCallArgs))
    assert args == "{}"


def test_sequential_calls_get_distinct_indices() -> None:
    items = check_format(FMT, _weather_call(("city", "Tokyo")) + SEARCH, None, TOOLS)
    calls = [v for k, v in items if k == "call" and isinstance(v, testing.Call)]
    assert [c.index for c in calls] == [0, 1]
    assert len({c.id for c in calls}) == 2


def test_never_emits_a_truncated_name() -> None:
    # SGLang's pinned chunking: the name cut as "get_wea" + "ther\n...".
    p = tool_parser(FMT, tools=TOOLS)
    assert p.feed("<tool_call>get_wea") == []
    rest = "ther\n<arg_key>city</arg_key>\n<arg_value>x</arg_value>\n</tool_call>"
    events = p.feed(rest) + p.finish()
    names = [e.name for e in events if isinstance(e, ToolCallStart)]
    assert names == ["get_weather"]
    whole = check_format(FMT, "<tool_call>get_wea" + rest, None, TOOLS)
    assert testing.coalesce(events) == whole
