"""llama3_json / llama4_json against the contract.

Cases marked "vLLM" are taken from vLLM's ``tests/tool_parsers/test_llama3_json_tool_parser.py``
(Apache-2.0, copyright the vLLM project); the expected content differs where streamcall
keeps surrounding text that vLLM drops (see ``Llama3JsonParser.vllm_differences``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]

# (model output, expected calls, expected content) -- vLLM
VLLM_CASES: list[tuple[str, Calls, str]] = [
    (
        'Here is the result: {"name": "getOpenIncidentsTool", "parameters": {}} Would you like to know more?',
        [("getOpenIncidentsTool", {})],
        "Here is the result:  Would you like to know more?",
    ),
    (
        '{"name": "searchTool", "parameters": {"query": "test query", "limit": 10}}',
        [("searchTool", {"query": "test query", "limit": 10})],
        "",
    ),
    (
        "This is just some text without any tool calls",
        [],
        "This is just some text without any tool calls",
    ),
    (
        '{"name": "invalidTool", "parameters": {invalid json}',
        [("invalidTool", {})],  # the call had started: closed, incomplete; the rest is text
        "invalid json}",
    ),
    (
        '{"name": "searchTool", "arguments": {"query": "test"}}',
        [("searchTool", {"query": "test"})],
        "",
    ),
    (
        '{"name": "searchTool", "parameters": {"query": "test1"}}; '
        '{"name": "getOpenIncidentsTool", "parameters": {}}; '
        '{"name": "searchTool", "parameters": {"query": "test2"}}',
        [
            ("searchTool", {"query": "test1"}),
            ("getOpenIncidentsTool", {}),
            ("searchTool", {"query": "test2"}),
        ],
        "",
    ),
    (
        '{"name": "searchTool", "parameters": {"query": "test1"}} ; '
        '{"name": "getOpenIncidentsTool", "parameters": {}} ; '
        '{"name": "searchTool", "parameters": {"query": "test2"}}',
        [
            ("searchTool", {"query": "test1"}),
            ("getOpenIncidentsTool", {}),
            ("searchTool", {"query": "test2"}),
        ],
        "",
    ),
    (
        "Here are the results: "
        '{"name": "searchTool", "parameters": {"query": "test1"}}; '
        '{"name": "getOpenIncidentsTool", "parameters": {}}; '
        '{"name": "searchTool", "parameters": {"query": "test2"}} '
        "Would you like to know more?",
        [
            ("searchTool", {"query": "test1"}),
            ("getOpenIncidentsTool", {}),
            ("searchTool", {"query": "test2"}),
        ],
        "Here are the results:  Would you like to know more?",
    ),
    (
        '{"name": "complexTool", "parameters": {"level1": {"level2": {"level3": {"level4": {"value": "deep"}}}}}}',
        [("complexTool", {"level1": {"level2": {"level3": {"level4": {"value": "deep"}}}}})],
        "",
    ),
    (
        '{"name": "simpleTool", "parameters": {"value": "test"}}; '
        '{"name": "complexTool", "parameters": {"config": {"database": {"connection": {"pool": {"size": 10}}}}}}',
        [
            ("simpleTool", {"value": "test"}),
            ("complexTool", {"config": {"database": {"connection": {"pool": {"size": 10}}}}}),
        ],
        "",
    ),
    (
        '{"name": "searchTool", "parameters": {"query": "test {value} [complex]","nested": {"inner": "more {brackets}"}}}',
        [
            (
                "searchTool",
                {"query": "test {value} [complex]", "nested": {"inner": "more {brackets}"}},
            )
        ],
        "",
    ),
    (
        '{"name": "parserTool", "parameters": {"text": "He said \\"Hello {world}\\""}}',
        [("parserTool", {"text": 'He said "Hello {world}"'})],
        "",
    ),
    ('{"parameters": {}}', [], '{"parameters": {}}'),
    ('{"name": "toolWithoutParams"}', [], '{"name": "toolWithoutParams"}'),
    (
        '{"name": "searchTool", "parameters": {"query": "test"}} I used {searchTool} for this.',
        [("searchTool", {"query": "test"})],
        " I used {searchTool} for this.",
    ),
    (
        '{"name": "searchTool", "parameters": {"query": "test"}} The arguments I passed were {"query": "test"}',
        [("searchTool", {"query": "test"})],
        ' The arguments I passed were {"query": "test"}',
    ),
    # vLLM test_regex_timeout_handling input: plain text, never a call
    ("{hello world[A(A=" + "\t)A(A=,\t" * 2, [], "{hello world[A(A=" + "\t)A(A=,\t" * 2),
]


@pytest.mark.parametrize("fmt", ["llama3_json", "llama4_json"])
@pytest.mark.parametrize(("text", "calls", "content"), VLLM_CASES)
@given(data=st.data())
def test_vllm_cases(fmt: str, text: str, calls: Calls, content: str, data: st.DataObject) -> None:
    got_content, got_calls = summary(check_format(fmt, text, data))
    assert got_calls == calls
    assert got_content == content


@pytest.mark.parametrize("separator", ["; ", ";", ";\n", "\n"])  # vLLM
@given(data=st.data())
def test_parallel_separators(separator: str, data: st.DataObject) -> None:
    text = (
        '{"name": "searchTool", "parameters": {"query": "test1"}}'
        + separator
        + '{"name": "getOpenIncidentsTool", "parameters": {}}'
    )
    _, calls = summary(check_format("llama3_json", text, data))
    assert calls == [("searchTool", {"query": "test1"}), ("getOpenIncidentsTool", {})]


@given(data=st.data())
def test_python_tag(data: st.DataObject) -> None:
    text = (
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "noargs"}'
    )
    content, calls = summary(check_format("llama3_json", text, data))
    assert calls == [("get_weather", {"city": "Paris"}), ("noargs", {})]
    assert content == ""


@given(data=st.data())
def test_python_tag_with_a_builtin_tool_call(data: st.DataObject) -> None:
    # Llama 3.1's built-in tools (more in test_llama3_builtin.py); other Python is text
    text = '<|python_tag|>brave_search.call(query="weather")'
    content, calls = summary(check_format("llama3_json", text, data))
    assert calls == [("brave_search", {"query": "weather"})]
    assert content == ""
    text = '<|python_tag|>print("weather")'
    assert summary(check_format("llama3_json", text, data)) == (text, [])


@given(data=st.data())
def test_arguments_before_name(data: st.DataObject) -> None:
    text = '{"parameters": {"a": [1, 2, {"b": null}]}, "name": "f"}'
    _, calls = summary(check_format("llama3_json", text, data))
    assert calls == [("f", {"a": [1, 2, {"b": None}]})]


@pytest.mark.parametrize("tokens_per_delta", [1, 2, 5])
def test_valid_json_at_any_delta_size_vllm_51577(tokens_per_delta: int) -> None:
    """vLLM #51577: valid JSON in 248/250 runs at 1 token per delta, 52/250 at 5."""
    args = {"location": "San Francisco, CA", "unit": "celsius", "days": 5, "detail": [1.5, True]}
    text = json.dumps({"name": "get_forecast", "parameters": args})
    # crude "tokens": runs of word characters or single other characters
    import re

    tokens = re.findall(r"\w+|\W", text)
    pieces = [
        "".join(tokens[i : i + tokens_per_delta]) for i in range(0, len(tokens), tokens_per_delta)
    ]
    items = testing.coalesce(testing.run(tool_parser("llama3_json"), pieces))
    _, calls = summary(items)
    assert calls == [("get_forecast", args)]


def test_several_calls_in_one_chunk_sglang_37634() -> None:
    text = "; ".join(
        json.dumps({"name": f"f{i}", "parameters": {"i": i, "s": "x" * i}}) for i in range(5)
    )
    items = testing.coalesce(testing.run(tool_parser("llama3_json"), [text]))
    _, calls = summary(items)
    assert calls == [(f"f{i}", {"i": i, "s": "x" * i}) for i in range(5)]


@settings(deadline=None)
@given(data=st.data())
def test_one_char_streaming_agrees_with_one_shot_sglang_35564(data: st.DataObject) -> None:
    text = 'Sure. {"name": "a", "parameters": {"x": "1\\u00e9\\n", "y": -0.5e3}}; {"name": "b", "arguments": {}} done'
    items = check_format("llama3_json", text, data)
    one_char = testing.coalesce(testing.run(tool_parser("llama3_json"), list(text)))
    assert one_char == items
    assert summary(items)[1] == [("a", {"x": "1é\n", "y": -500.0}), ("b", {})]


# Llama 3.2 also writes its calls as one JSON list (SGLang's Llama32Detector reads it): the
# list's brackets and commas are markup; a '[' that opens no list of calls is text.
ARRAY_CASES: list[tuple[str, Calls, str]] = [
    ('[{"name": "f", "parameters": {"a": 1}}]', [("f", {"a": 1})], ""),
    (
        'Sure: [{"name": "f", "parameters": {"a": [1, 2]}}, {"name": "g", "parameters": {}}] ok',
        [("f", {"a": [1, 2]}), ("g", {})],
        "Sure:  ok",
    ),
    ('<|python_tag|>[{"name": "f", "arguments": {}}]', [("f", {})], ""),
    (
        '[ {"name": "f", "parameters": {}} ;\n{"name": "g", "parameters": {}} ]',
        [("f", {}), ("g", {})],
        "",
    ),
    ("see [1], [x, 2] and [{x}] or [", [], "see [1], [x, 2] and [{x}] or ["),
    ('a list [ {"name": "Bob"} ] of names', [], 'a list [ {"name": "Bob"} ] of names'),
    # cut before its arguments showed, a bare call is text (it may be prose: {"name": "Bob"})
    (
        '[{"name": "f", "parameters": {"a": 1}}, {"name": "g", "param',
        [("f", {"a": 1})],
        ', {"name": "g", "param',
    ),
    (
        '[{"name": "f", "parameters": {"a": 1}}, {"name": "g", "parameters": {"b',
        [("f", {"a": 1}), ("g", {"b": None})],
        "",
    ),
    ('[{"name": "f", "parameters": {"a": 1}}, 7]', [("f", {"a": 1})], ", 7]"),
]


@pytest.mark.parametrize(("text", "calls", "content"), ARRAY_CASES)
@given(data=st.data())
def test_calls_written_as_a_list(
    text: str, calls: Calls, content: str, data: st.DataObject
) -> None:
    items = check_format("llama3_json", text, data)
    assert summary(items) == (content, calls)
