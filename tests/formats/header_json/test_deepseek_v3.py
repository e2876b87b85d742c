"""deepseek_v3 and deepseek_v31 against the contract.

Cases marked "vLLM" are taken from vLLM's ``tests/tool_parsers/test_deepseekv3_tool_parser.py``
and ``test_deepseekv31_tool_parser.py`` (Apache-2.0, copyright the vLLM project).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.deepseek import DeepSeekV3Parser, DeepSeekV31Parser
from streamcall.formats.registry import parse_tool_calls, tool_parser
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]

B, E = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CB, CE, SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"


def v3(name: str, args: str) -> str:
    return f"{CB}function{SEP}{name}\n```json\n{args}\n```{CE}"


VARIOUS = (
    '{"string_field": "hello", "int_field": 42, "float_field": 3.14, "bool_field": true, '
    '"null_field": null, "array_field": ["a", "b", "c"], "object_field": {"nested": "value"}, '
    '"empty_array": [], "empty_object": {}}'
)

V3_CASES: list[tuple[str, Calls, str]] = [  # vLLM (common-tests config)
    (
        "How can I help you today? I can check weather for you.",
        [],
        "How can I help you today? I can check weather for you.",
    ),
    (
        B + v3("get_weather", '{"city": "Tokyo", "unit": "celsius"}') + E,
        [("get_weather", {"city": "Tokyo", "unit": "celsius"})],
        "",
    ),
    (
        B
        + v3("get_weather", '{"city": "Tokyo", "unit": "celsius"}')
        + v3("search_hotels", '{"location": "Tokyo", "check_in": "2025-01-15"}')
        + E,
        [
            ("get_weather", {"city": "Tokyo", "unit": "celsius"}),
            ("search_hotels", {"location": "Tokyo", "check_in": "2025-01-15"}),
        ],
        "",
    ),
    (B + v3("test_function", VARIOUS) + E, [("test_function", json.loads(VARIOUS))], ""),
    (B + v3("get_current_time", "{}") + E, [("get_current_time", {})], ""),
    (
        "Let me check the weather for you." + B + v3("get_weather", '{"city": "Paris"}') + E,
        [("get_weather", {"city": "Paris"})],
        "Let me check the weather for you.",
    ),
    (
        B
        + v3(
            "send_message",
            '{"text": "He said \\"hello\\"", "path": "C:\\\\Users\\\\file", "newline": "line1\\nline2"}',
        )
        + E,
        [
            (
                "send_message",
                {"text": 'He said "hello"', "path": "C:\\Users\\file", "newline": "line1\nline2"},
            )
        ],
        "",
    ),
    # malformed: no call_begin inside the section -> text, whole
    (
        f'{B}function{SEP}get_weather\n```json\n{{"city": "Tokyo"}}\n```{E}',
        [],
        f'{B}function{SEP}get_weather\n```json\n{{"city": "Tokyo"}}\n```{E}',
    ),
    # the fence is optional
    (f'{B}{CB}function{SEP}f\n{{"a": 1}}{CE}{E} after', [("f", {"a": 1})], " after"),
    # a call_begin without calls_begin still opens a section
    ("x" + v3("f", '{"a": [1]}'), [("f", {"a": [1]})], "x"),
]

V31_CASES: list[tuple[str, Calls, str]] = [  # vLLM
    (f'normal text{B}{CB}foo{SEP}{{"x":1}}{CE}{E}', [("foo", {"x": 1})], "normal text"),
    (
        f'some prefix text{B}{CB}foo{SEP}{{"x":1}}{CE}{CB}bar{SEP}{{"y":2}}{CE}{E} some suffix text',
        [("foo", {"x": 1}), ("bar", {"y": 2})],
        "some prefix text some suffix text",
    ),
    (f"Let me look that up.{B}get_weather", [], f"Let me look that up.{B}get_weather"),
    (f'{B}foo{SEP}{{"x":1}}{E}', [], f'{B}foo{SEP}{{"x":1}}{E}'),
    (f"{B}{E}", [], f"{B}{E}"),
]


@pytest.mark.parametrize(("text", "calls", "content"), V3_CASES)
@given(data=st.data())
def test_v3_vllm_cases(text: str, calls: Calls, content: str, data: st.DataObject) -> None:
    got_content, got_calls = summary(check_format("deepseek_v3", text, data))
    assert got_calls == calls
    assert got_content == content


@pytest.mark.parametrize(("text", "calls", "content"), V31_CASES)
@given(data=st.data())
def test_v31_vllm_cases(text: str, calls: Calls, content: str, data: st.DataObject) -> None:
    got_content, got_calls = summary(check_format("deepseek_v31", text, data))
    assert got_calls == calls
    assert got_content == content


def test_v31_arguments_verbatim() -> None:
    """vLLM asserts the exact argument text: it is streamed as the model wrote it."""
    parsed = parse_tool_calls(f'{B}{CB}foo{SEP}{{"x":1}}{CE}{E}', "deepseek_v31")
    assert parsed.tool_calls[0].arguments == '{"x":1}'


def test_v3_malformed_arguments_are_closed_incomplete() -> None:
    """vLLM malformed case: ``{"city": "Tokyo"`` then the fence; reported, not lost."""
    text = B + v3("get_weather", '{"city": "Tokyo"') + E
    parsed = parse_tool_calls(text, "deepseek_v3")
    assert [(c.name, c.args, c.incomplete) for c in parsed.tool_calls] == [
        ("get_weather", {"city": "Tokyo"}, True)
    ]
    assert parsed.content == ""


@given(data=st.data())
def test_marker_inside_arguments_cuts_the_call(data: st.DataObject) -> None:
    text = f'{B}{CB}a{SEP}{{"x": "un{CE}{CB}b{SEP}{{"y": 2}}{CE}{E}'
    items = check_format("deepseek_v31", text, data)
    calls = [v for k, v in items if k == "call" and isinstance(v, testing.Call)]
    assert [(c.name, json.loads(c.arguments), c.incomplete) for c in calls] == [
        ("a", {"x": "un"}, True),
        ("b", {"y": 2}, False),
    ]


@pytest.mark.parametrize("cls", [DeepSeekV3Parser, DeepSeekV31Parser])
def test_several_calls_in_one_chunk_sglang_37634(cls: Any) -> None:
    calls = [(f"f{i}", {"i": i, "nested": {"k": [i]}}) for i in range(4)]
    text = "Let me. " + cls.render(calls)
    items = testing.coalesce(testing.run(tool_parser(cls.names[0]), [text]))
    assert summary(items) == ("Let me. ", calls)


@pytest.mark.parametrize("cls", [DeepSeekV3Parser, DeepSeekV31Parser])
def test_one_char_streaming_agrees_with_one_shot_sglang_35564(cls: Any) -> None:
    text = cls.render([("a", {"x": "y\n```"}), ("b", {})]) + "\ndone"
    one_char = testing.coalesce(testing.run(tool_parser(cls.names[0]), list(text)))
    whole = testing.coalesce(testing.run(tool_parser(cls.names[0]), [text]))
    assert one_char == whole
    assert summary(whole) == ("\ndone", [("a", {"x": "y\n```"}), ("b", {})])


def test_unfinished_header_at_end_is_text() -> None:
    parsed = parse_tool_calls(f"{B}{CB}function{SEP}get_wea", "deepseek_v3")
    assert parsed.tool_calls == []
    assert parsed.content == f"{B}{CB}function{SEP}get_wea"
