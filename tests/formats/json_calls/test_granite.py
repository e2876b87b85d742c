"""granite (3.x) and granite-20b-fc against the contract.

Cases are taken from vLLM's ``tests/tool_parsers/test_granite_tool_parser.py`` and
``test_granite_20b_fc_tool_parser.py`` (Apache-2.0, copyright the vLLM project).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import parse_tool_calls, tool_parser
from support import VLLM_ESCAPED_ARGS as ESCAPED_ARGS
from support import VLLM_VARIOUS_ARGS as VARIOUS_ARGS
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]

ESCAPED = {
    "quoted": 'He said "hello"',
    "path": "C:\\Users\\file.txt",
    "newline": "line1\nline2",
    "unicode": "emoji: 🎉",
}

GRANITE: list[tuple[str, Calls, str]] = [
    (
        "This is a regular response without any tool calls.",
        [],
        "This is a regular response without any tool calls.",
    ),
    (
        '<|tool_call|> [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]',
        [("get_weather", {"city": "Tokyo"})],
        "",
    ),
    (
        '<tool_call> [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]',
        [("get_weather", {"city": "Tokyo"})],
        "",
    ),
    (
        '<|tool_call|> [\n  {"name": "get_weather", "arguments": {"city": "Tokyo"}},\n'
        '  {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}\n]',
        [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})],
        "",
    ),
    (
        f'<tool_call> [{{\n  "name": "test_function",\n  "arguments": {VARIOUS_ARGS}\n}}]',
        [("test_function", json.loads(VARIOUS_ARGS))],
        "",
    ),
    ('<|tool_call|> [{"name": "refresh", "arguments": {}}]', [("refresh", {})], ""),
    (
        'Let me check the weather for you.\n<|tool_call|> [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]\n'
        "I'll get that information.",
        [("get_weather", {"city": "Tokyo"})],
        "Let me check the weather for you.\n\nI'll get that information.",
    ),
    (
        f'<tool_call> [{{\n  "name": "test_function",\n  "arguments": {ESCAPED_ARGS}\n}}]',
        [("test_function", ESCAPED)],
        "",
    ),
    # arguments before the name (test_streaming_parallel_calls_batched_deltas)
    (
        '<|tool_call|> [{"arguments": {"city": "Tokyo"}, "name": "get_weather"}, '
        '{"arguments": {"timezone": "Asia/Tokyo"}, "name": "get_time"}]',
        [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})],
        "",
    ),
    (
        '<|tool_call|>[{"name": "get_weather", "arguments": {"x": 42}}, {"name": "b", "arguments": {"y": 7}}]',
        [("get_weather", {"x": 42}), ("b", {"y": 7})],
        "",
    ),
    # malformed inputs
    (
        '<|tool_call|> {"name": "func", "arguments": {}}',
        [("func", {})],
        "",
    ),  # not an array: accepted
    (
        '[{"name": "func", "arguments": "not a dict"}]',
        [],
        '[{"name": "func", "arguments": "not a dict"}]',
    ),
    ('Some text [{"name": "func"}]', [], 'Some text [{"name": "func"}]'),
    # a bare array opening the output
    ('  [{"name": "f", "arguments": {"a": 1}}] ok', [("f", {"a": 1})], "   ok"),
]

TWENTY_B: list[tuple[str, Calls, str]] = [
    (
        "This is a regular response without any tool calls.",
        [],
        "This is a regular response without any tool calls.",
    ),
    (
        '<function_call> {"name": "get_weather", "arguments": {"city": "Tokyo"}}',
        [("get_weather", {"city": "Tokyo"})],
        "",
    ),
    (
        '<function_call> {"name": "get_weather", "arguments": {"city": "Tokyo"}}\n'
        '<function_call> {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}',
        [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})],
        "",
    ),
    (
        f'<function_call> {{\n  "name": "test_function",\n  "arguments": {VARIOUS_ARGS}\n}}',
        [("test_function", json.loads(VARIOUS_ARGS))],
        "",
    ),
    ('<function_call> {"name": "refresh", "arguments": {}}', [("refresh", {})], ""),
    (
        'Let me check the weather for you.\n<function_call> {"name": "get_weather", "arguments": {"city": "Tokyo"}}',
        [("get_weather", {"city": "Tokyo"})],
        "Let me check the weather for you.\n",
    ),
    (
        f'<function_call> {{\n  "name": "test_function",\n  "arguments": {ESCAPED_ARGS}\n}}',
        [("test_function", ESCAPED)],
        "",
    ),
    # malformed inputs
    (
        '<function_call> [{"name": "func", "arguments": {}}]',
        [],
        '<function_call> [{"name": "func", "arguments": {}}]',
    ),
    ('{"name": "func", "arguments": {}}', [], '{"name": "func", "arguments": {}}'),
    ('<function_call> {"name": 123}', [], '<function_call> {"name": 123}'),
]


@pytest.mark.parametrize(("text", "calls", "content"), GRANITE)
@given(data=st.data())
def test_granite_vllm_cases(text: str, calls: Calls, content: str, data: st.DataObject) -> None:
    got_content, got_calls = summary(check_format("granite", text, data))
    assert got_calls == calls
    assert got_content == content


@pytest.mark.parametrize(("text", "calls", "content"), TWENTY_B)
@given(data=st.data())
def test_granite_20b_vllm_cases(text: str, calls: Calls, content: str, data: st.DataObject) -> None:
    got_content, got_calls = summary(check_format("granite-20b-fc", text, data))
    assert got_calls == calls
    assert got_content == content


@pytest.mark.parametrize(
    "text",
    [
        '<|tool_call|> [{"name": "func", "arguments": {',  # vLLM malformed: cut off
        '<function_call> {"name": "func", "arguments": {',
    ],
)
def test_cut_off_call_is_reported_incomplete(text: str) -> None:
    fmt = "granite" if text.startswith("<|") else "granite-20b-fc"
    parsed = parse_tool_calls(text, fmt)
    assert [(c.name, c.arguments, c.incomplete) for c in parsed.tool_calls] == [
        ("func", "{}", True)
    ]


@pytest.mark.parametrize("chunk_size", [2, 3, 4, 5])
def test_batched_deltas_keep_both_names(chunk_size: int) -> None:
    """vLLM: a batched delta spanning two calls must not drop the first name."""
    text = (
        '<|tool_call|> [{"arguments": {"city": "Tokyo"}, "name": "get_weather"}, '
        '{"arguments": {"timezone": "Asia/Tokyo"}, "name": "get_time"}]'
    )
    items = testing.coalesce(
        testing.run(tool_parser("granite"), testing.chunk_every(text, chunk_size))
    )
    assert summary(items)[1] == [
        ("get_weather", {"city": "Tokyo"}),
        ("get_time", {"timezone": "Asia/Tokyo"}),
    ]


def test_one_char_streaming_agrees_with_one_shot_sglang_35564() -> None:
    for fmt, text in [
        ("granite", GRANITE[3][0]),
        ("granite-20b-fc", TWENTY_B[2][0]),
    ]:
        one_char = testing.coalesce(testing.run(tool_parser(fmt), list(text)))
        assert one_char == testing.coalesce(testing.run(tool_parser(fmt), [text]))
