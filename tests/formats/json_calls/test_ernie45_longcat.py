"""ernie45 and longcat against vLLM's suites.

Cases are taken from vLLM's ``tests/tool_parsers/test_ernie45_moe_tool_parser.py`` and
``tests/tool_parsers/test_longcat_tool_parser.py`` (the latter a ``ToolParserTestConfig``
for vLLM's ``common_tests.py``) (Apache-2.0, copyright the vLLM project): the model
outputs and the expected calls and content are copied; the code is ours. Every text goes
through ``check_format`` (whole, 1-char, 7-char and random chunkings).

Where vLLM's expectation differs on purpose, we assert ours and say why:
- vLLM reports content ``None`` when there is no text; here it is ``""``.
- Text around the calls is kept verbatim (vLLM strips the text before ERNIE's calls, and
  its Hermes-based longcat drops text after them); whitespace between and after blocks of
  calls is markup.
- A call cut off at the end of the stream is reported, its arguments closed and marked
  ``incomplete``, so a client can show it (vLLM's common tests only ask for no crash).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall.formats.registry import parse_tool_calls
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]

BEIJING = {"location": "Beijing"}
GUANGZHOU = {"location": "Guangzhou", "unit": "c"}
ERNIE_ONE = """<tool_call>
{"name": "get_current_temperature", "arguments": {"location": "Beijing"}}
</tool_call>
"""
ERNIE_TWO = (
    ERNIE_ONE
    + """<tool_call>
{"name": "get_temperature_unit", "arguments": {"location": "Guangzhou", "unit": "c"}}
</tool_call>
"""
)
ERNIE_THINK = "I need to call two tools to handle these two issues separately.\n</think>\n\n"

L_OPEN, L_CLOSE = "<longcat_tool_call>", "</longcat_tool_call>"
TOKYO = '{"name": "get_weather", "arguments": {"city": "Tokyo"}}'
VARIOUS = {
    "string_field": "hello",
    "int_field": 42,
    "float_field": 3.14,
    "bool_field": True,
    "null_field": None,
    "array_field": ["a", "b", "c"],
    "object_field": {"nested": "value"},
    "empty_array": [],
    "empty_object": {},
}
ESCAPED = {
    "quoted": 'He said "hello"',
    "path": "C:\\Users\\file.txt",
    "newline": "line1\nline2",
    "unicode": "emoji: 🎉",
}

CASES: list[tuple[str, str, Calls, str]] = [
    # ernie45: test_extract_tool_calls_no_tools
    ("ernie45", "This is a test", [], "This is a test"),
    # ernie45: single_tool_call (the newline after </tool_call> is markup)
    ("ernie45", ERNIE_ONE, [("get_current_temperature", BEIJING)], ""),
    # ernie45: multiple_tool_calls
    (
        "ernie45",
        ERNIE_TWO,
        [("get_current_temperature", BEIJING), ("get_temperature_unit", GUANGZHOU)],
        "",
    ),
    # ernie45: tool_call_with_content_before. vLLM strips the content to
    # "...separately.\n</think>"; streamcall keeps it as written. (The </think> is
    # the reasoning parser's business; the tool parser sees it as text.)
    (
        "ernie45",
        ERNIE_THINK + ERNIE_TWO,
        [("get_current_temperature", BEIJING), ("get_temperature_unit", GUANGZHOU)],
        ERNIE_THINK,
    ),
    # longcat (common_tests config)
    (
        "longcat",
        "This is a regular response without any tool calls.",
        [],
        "This is a regular response without any tool calls.",
    ),
    ("longcat", L_OPEN + TOKYO + L_CLOSE, [("get_weather", {"city": "Tokyo"})], ""),
    (
        "longcat",
        L_OPEN
        + TOKYO
        + L_CLOSE
        + "\n"
        + L_OPEN
        + '{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}'
        + L_CLOSE,
        [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})],
        "",
    ),
    (
        "longcat",
        L_OPEN
        + """{
  "name": "test_function",
  "arguments": {
    "string_field": "hello",
    "int_field": 42,
    "float_field": 3.14,
    "bool_field": true,
    "null_field": null,
    "array_field": ["a", "b", "c"],
    "object_field": {"nested": "value"},
    "empty_array": [],
    "empty_object": {}
  }
}"""
        + L_CLOSE,
        [("test_function", VARIOUS)],
        "",
    ),
    (
        "longcat",
        L_OPEN + '{"name": "refresh", "arguments": {}}' + L_CLOSE,
        [("refresh", {})],
        "",
    ),
    (  # surrounding text: both sides kept
        "longcat",
        "Let me check the weather for you.\n" + L_OPEN + TOKYO + L_CLOSE + "\nHere is the result.",
        [("get_weather", {"city": "Tokyo"})],
        "Let me check the weather for you.\n\nHere is the result.",
    ),
    (
        "longcat",
        L_OPEN
        + """{
  "name": "test_function",
  "arguments": {
    "quoted": "He said \\"hello\\"",
    "path": "C:\\\\Users\\\\file.txt",
    "newline": "line1\\nline2",
    "unicode": "emoji: 🎉"
  }
}"""
        + L_CLOSE,
        [("test_function", ESCAPED)],
        "",
    ),
    # malformed inputs: arguments that are not an object make no call; all of it is text
    (
        "longcat",
        L_OPEN + '{"name": "func", "arguments": "not a dict"}' + L_CLOSE,
        [],
        L_OPEN + '{"name": "func", "arguments": "not a dict"}' + L_CLOSE,
    ),
    (
        "longcat",
        "Some text with <longcat_tool_call>invalid json",
        [],
        "Some text with <longcat_tool_call>invalid json",
    ),
]


@pytest.mark.parametrize(("fmt", "text", "calls", "content"), CASES)
@given(data=st.data())
def test_vllm_cases(fmt: str, text: str, calls: Calls, content: str, data: st.DataObject) -> None:
    got_content, got_calls = summary(check_format(fmt, text, data))
    assert got_calls == calls
    assert got_content == content


@given(data=st.data())
def test_longcat_malformed_cut_off_call_is_reported(data: st.DataObject) -> None:
    """vLLM malformed input ``{"name": "func", "arguments": {`` only has to not crash;
    streamcall reports the call, its arguments closed, as incomplete."""
    text = L_OPEN + '{"name": "func", "arguments": {'
    content, calls = summary(check_format("longcat", text, data))
    assert (content, calls) == ("", [("func", {})])
    [call] = parse_tool_calls(text, "longcat").tool_calls
    assert call.incomplete


@pytest.mark.parametrize("fmt", ["ernie45", "longcat"])
def test_parallel_ids_unique_and_empty_args(fmt: str) -> None:
    """common_tests: unique ids for parallel calls; empty arguments are exactly ``{}``."""
    o, c = ("<tool_call>", "</tool_call>") if fmt == "ernie45" else (L_OPEN, L_CLOSE)
    text = f'{o}{{"name": "a", "arguments": {{}}}}{c}\n{o}{{"name": "b"}}{c}'
    calls = parse_tool_calls(text, fmt).tool_calls
    assert [(x.name, x.arguments) for x in calls] == [("a", "{}"), ("b", "{}")]
    assert len({x.id for x in calls}) == 2 and all(x.id for x in calls)
    assert all(isinstance(json.loads(x.arguments), dict) for x in calls)
