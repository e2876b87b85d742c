"""mistral (pre-v11 list form and v11+ header form) against the contract.

Cases marked "vLLM" are taken from vLLM's ``tests/tool_parsers/test_mistral_tool_parser.py``
(Apache-2.0, copyright the vLLM project). vLLM's v11 fixtures are detokenized with
special tokens skipped, so ``[ARGS]`` does not appear in them; both spellings are tested.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.mistral import MistralParser
from streamcall.formats.registry import parse_tool_calls, tool_parser
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]

WEATHER_SF = {"city": "San Francisco", "state": "CA", "unit": "celsius"}

PRE_V11: list[tuple[str, Calls, str]] = [  # vLLM
    (
        '[TOOL_CALLS][{"name": "add", "arguments":{"a": 3.5, "b": 4}}]',
        [("add", {"a": 3.5, "b": 4})],
        "",
    ),
    (
        '[TOOL_CALLS] [{"name": "get_current_weather", "arguments":{"city": "San Francisco", "state": "CA", "unit": "celsius"}}]',
        [("get_current_weather", WEATHER_SF)],
        "",
    ),
    (
        '[TOOL_CALLS] [{"arguments":{"city": "San Francisco", "state": "CA", "unit": "celsius"}, "name": "get_current_weather"}]',
        [("get_current_weather", WEATHER_SF)],
        "",
    ),
    (
        '[TOOL_CALLS] [{"arguments":{"name": "John Doe"}, "name": "get_age"}]',
        [("get_age", {"name": "John Doe"})],
        "",
    ),
    (
        '[TOOL_CALLS] [{"name": "add", "arguments": {"a": 3.5, "b": 4}}, {"name": "get_current_weather", "arguments":{"city": "San Francisco", "state": "CA", "unit": "celsius"}}]',
        [("add", {"a": 3.5, "b": 4}), ("get_current_weather", WEATHER_SF)],
        "",
    ),
    (
        'Hello[TOOL_CALLS] [{"name": "add", "arguments":{"a": 1, "b": 2}}]',
        [("add", {"a": 1, "b": 2})],
        "Hello",
    ),
    (
        '[TOOL_CALLS] [{"name": "get_current_weather", "arguments":{"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}]\nextra trailing data',
        [("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})],
        "\nextra trailing data",
    ),
    (
        '[TOOL_CALLS]  [ {"name":"add" , "arguments" : {"a": 3, "b": 4} } ]',
        [("add", {"a": 3, "b": 4})],
        "",
    ),
    (
        '[TOOL_CALLS] [{"name": "add", "arguments":{"a": "3", "b": "4"}}]',
        [("add", {"a": "3", "b": "4"})],
        "",
    ),
    # vLLM raises on two BOT tokens; both lists are parsed here
    (
        '[TOOL_CALLS] [{"name": "add", "arguments":{"a": 1}}][TOOL_CALLS] [{"name": "sub", "arguments":{"b": 2}}]',
        [("add", {"a": 1}), ("sub", {"b": 2})],
        "",
    ),
    # vLLM's regex fallback digs the list out of junk; here the junk is not a call
    (
        '[TOOL_CALLS]  junk [{"name": "add", "arguments":{"a": 1, "b": 2}}] trail',
        [],
        '[TOOL_CALLS]  junk [{"name": "add", "arguments":{"a": 1, "b": 2}}] trail',
    ),
    ("[TOOL_CALLS] not json at all", [], "[TOOL_CALLS] not json at all"),
    ("This is a test", [], "This is a test"),
]

V11: list[tuple[str, Calls, str]] = [  # vLLM
    (
        '[TOOL_CALLS]add_this_and_that{"a": 3.5, "b": 4}',
        [("add_this_and_that", {"a": 3.5, "b": 4})],
        "",
    ),
    (
        '[TOOL_CALLS]get_current_weather{"city": "San Francisco", "state": "CA", "unit": "celsius"}',
        [("get_current_weather", WEATHER_SF)],
        "",
    ),
    (
        '[TOOL_CALLS]add{"a": 3.5, "b": 4}[TOOL_CALLS]multiply{"a": 3, "b": 6}',
        [("add", {"a": 3.5, "b": 4}), ("multiply", {"a": 3, "b": 6})],
        "",
    ),
    (
        """hi{hi[TOOL_CALLS]bash{"command": "print(\\"hello world!\\")\\nre.compile(r'{}')"}""",
        [("bash", {"command": "print(\"hello world!\")\nre.compile(r'{}')"})],
        "hi{hi",
    ),
    (
        'bla[TOOL_CALLS]add_this_and_that{"a": 3.5, "b": 4}',
        [("add_this_and_that", {"a": 3.5, "b": 4})],
        "bla",
    ),
    ('[TOOL_CALLS]add[ARGS]{"a": 3, "b": 4}', [("add", {"a": 3, "b": 4})], ""),
    (
        '[TOOL_CALLS]add_two_strings[ARGS]{"a": "3", "b": "4"}[TOOL_CALLS]noop[ARGS]{}',
        [("add_two_strings", {"a": "3", "b": "4"}), ("noop", {})],
        "",
    ),
]


@pytest.mark.parametrize(("text", "calls", "content"), PRE_V11 + V11)
@given(data=st.data())
def test_vllm_cases(text: str, calls: Calls, content: str, data: st.DataObject) -> None:
    got_content, got_calls = summary(check_format("mistral", text, data))
    assert got_calls == calls
    assert got_content == content


def test_cut_off_arguments_are_reported_incomplete() -> None:
    """vLLM "complex": the v11 arguments end without their closing brace."""
    text = '''hi{hi[TOOL_CALLS]bash{"command": "print(\\"hello world!\\")\\nre.compile(r'{}')"'''
    parsed = parse_tool_calls(text, "mistral")
    assert parsed.content == "hi{hi"
    [call] = parsed.tool_calls
    assert call.incomplete
    assert call.args == {"command": "print(\"hello world!\")\nre.compile(r'{}')"}


def test_name_without_arguments_is_text() -> None:
    """vLLM: ``[TOOL_CALLS]toolname_no_args`` gives no call."""
    parsed = parse_tool_calls("[TOOL_CALLS]toolname_no_args", "mistral")
    assert parsed.tool_calls == []
    assert parsed.content == "[TOOL_CALLS]toolname_no_args"


def test_name_then_args_token_at_end_is_an_incomplete_call() -> None:
    parsed = parse_tool_calls("[TOOL_CALLS]f[ARGS]", "mistral")
    assert [(c.name, c.arguments, c.incomplete) for c in parsed.tool_calls] == [("f", "{}", True)]


@given(data=st.data())
def test_call_id_token_is_the_call_id(data: st.DataObject) -> None:
    text = '[TOOL_CALLS]add[CALL_ID]a1b2c3d4e[ARGS]{"a": 1}[TOOL_CALLS]add[CALL_ID]a1b2c3d4e[ARGS]{"a": 2}'
    items = check_format("mistral", text, data)
    ids = [v.id for k, v in items if k == "call" and isinstance(v, testing.Call)]
    assert ids == ["a1b2c3d4e", "a1b2c3d4e~2"]  # a repeated model id is made unique


@given(data=st.data())
def test_bot_token_inside_arguments_cuts_the_call(data: st.DataObject) -> None:
    text = '[TOOL_CALLS]a{"x": "cut[TOOL_CALLS]b{"y": 1}'
    items = check_format("mistral", text, data)
    calls = [v for k, v in items if k == "call" and isinstance(v, testing.Call)]
    assert [(c.name, json.loads(c.arguments), c.incomplete) for c in calls] == [
        ("a", {"x": "cut"}, True),
        ("b", {"y": 1}, False),
    ]


@given(data=st.data())
def test_string_arguments_in_list_form(data: st.DataObject) -> None:
    text = '[TOOL_CALLS][{"name": "f", "arguments": "{\\"q\\": \\"\\\\u00e9\\"}"}]'
    _, calls = summary(check_format("mistral", text, data))
    assert calls == [("f", {"q": "é"})]


@pytest.mark.parametrize("render", [MistralParser.render, MistralParser.render_pre_v11])
def test_several_calls_in_one_chunk_sglang_37634(render: Any) -> None:
    calls = [(f"f{i}", {"i": i, "s": "v" * i}) for i in range(4)]
    text = render(calls)
    items = testing.coalesce(testing.run(tool_parser("mistral"), ["Sure. " + text + " ok"]))
    assert summary(items) == ("Sure.  ok", calls)


@pytest.mark.parametrize("render", [MistralParser.render, MistralParser.render_pre_v11])
def test_one_char_streaming_agrees_with_one_shot_sglang_35564(render: Any) -> None:
    text = render([("a", {"x": [1, {"y": "z"}]}), ("b", {})])
    one_char = testing.coalesce(testing.run(tool_parser("mistral"), list(text)))
    whole = testing.coalesce(testing.run(tool_parser("mistral"), [text]))
    assert one_char == whole
    assert summary(whole)[1] == [("a", {"x": [1, {"y": "z"}]}), ("b", {})]
