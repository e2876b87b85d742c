"""qwen3_coder / qwen3_xml / mimo / step3p5.

Fixtures copied from vLLM ``tests/tool_parsers/test_qwen3coder_tool_parser.py``
(Apache-2.0, Copyright contributors to the vLLM project); the code is ours.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qwen3_coder_cases import WEATHER_DALLAS
from support import check_format, summary

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "state": {"type": "string"},
        "unit": {"type": "string", "enum": ["fahrenheit", "celsius"]},
    },
}
AREA = {
    "type": "object",
    "properties": {
        "shape": {"type": "string"},
        "dimensions": {"type": "object"},
        "precision": {"type": "integer"},
    },
}
TOOLS = [
    {"type": "function", "function": {"name": "get_current_weather", "parameters": WEATHER}},
    {"type": "function", "function": {"name": "calculate_area", "parameters": AREA}},
]

DALLAS = WEATHER_DALLAS
ORLANDO = DALLAS.replace("Dallas", "Orlando").replace("TX", "FL")
RECT = """<tool_call>
<function=calculate_area>
<parameter=shape>
rectangle
</parameter>
<parameter=dimensions>
{"width": 10,
 "height": 20}
</parameter>
<parameter=precision>
2
</parameter>
</function>
</tool_call>"""
CIRCLE = """<tool_call>
<function=calculate_area>
<parameter=shape>
circle
</parameter>
<parameter=dimensions>
{"radius": 15.5}
</parameter>
<parameter=precision>
3
</parameter>
</function>
</tool_call>"""
D = {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}
ORL = {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}

CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    (
        "This is a test response without any tool calls",
        "This is a test response without any tool calls",
        [],
    ),
    (DALLAS, "", [("get_current_weather", D)]),
    (
        "Sure! Let me check the weather for you." + DALLAS,
        "Sure! Let me check the weather for you.",
        [("get_current_weather", D)],
    ),
    (
        RECT,
        "",
        [
            (
                "calculate_area",
                {"shape": "rectangle", "dimensions": {"width": 10, "height": 20}, "precision": 2},
            )
        ],
    ),
    (DALLAS + "\n" + ORLANDO, "", [("get_current_weather", D), ("get_current_weather", ORL)]),
    (
        "Let me calculate that area for you." + CIRCLE,
        "Let me calculate that area for you.",
        [("calculate_area", {"shape": "circle", "dimensions": {"radius": 15.5}, "precision": 3})],
    ),
    # fallback: no <tool_call> wrapper
    (
        "<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n</function>",
        "",
        [("get_current_weather", {"city": "Dallas", "state": "TX"})],
    ),
    # missing </parameter>
    (
        "Let me check the weather for you:\n"
        + DALLAS.replace("Dallas\n</parameter>\n", "Dallas\n"),
        "Let me check the weather for you:\n",
        [("get_current_weather", D)],
    ),
]


@pytest.mark.parametrize("fmt", ["qwen3_coder", "qwen3_xml", "mimo", "step3p5"])
@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_vllm_cases(
    fmt: str, text: str, content: str, calls: list[Any], data: st.DataObject
) -> None:
    got_content, got = summary(check_format(fmt, text, data, TOOLS))
    assert got_content == content
    assert got == calls


TYPES_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "test_types",
            "parameters": {
                "type": "object",
                "properties": {
                    "int_param": {"type": "integer"},
                    "float_param": {"type": "float"},
                    "bool_param": {"type": "boolean"},
                    "str_param": {"type": "string"},
                    "obj_param": {"type": "object"},
                },
            },
        },
    }
]
TYPES_TEXT = """<tool_call>
<function=test_types>
<parameter=int_param>
42
</parameter>
<parameter=float_param>
3.14
</parameter>
<parameter=bool_param>
true
</parameter>
<parameter=str_param>
hello world
</parameter>
<parameter=obj_param>
{"key": "value"}
</parameter>
</function>
</tool_call>"""


@given(data=st.data())
def test_type_conversion(data: st.DataObject) -> None:
    _, calls = summary(check_format("qwen3_coder", TYPES_TEXT, data, TYPES_TOOLS))
    assert calls == [
        (
            "test_types",
            {
                "int_param": 42,
                "float_param": 3.14,
                "bool_param": True,
                "str_param": "hello world",
                "obj_param": {"key": "value"},
            },
        )
    ]


ANYOF_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "test_anyof",
            "parameters": {
                "type": "object",
                "properties": {
                    "anyof_int": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 5},
                    "anyof_str": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    "anyof_array": {
                        "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]
                    },
                    "anyof_obj": {"anyOf": [{"type": "object"}, {"type": "null"}]},
                    "type_as_array": {"type": ["integer", "null"]},
                    "multi_non_null": {
                        "anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]
                    },
                },
            },
        },
    }
]
ANYOF_TEXT = """<tool_call>
<function=test_anyof>
<parameter=anyof_int>
5
</parameter>
<parameter=anyof_str>
hello
</parameter>
<parameter=anyof_array>
["a", "b", "c"]
</parameter>
<parameter=anyof_obj>
{"key": "value"}
</parameter>
<parameter=type_as_array>
42
</parameter>
<parameter=multi_non_null>
some text
</parameter>
</function>
</tool_call>"""


@given(data=st.data())
def test_anyof_type_conversion(data: st.DataObject) -> None:
    _, calls = summary(check_format("qwen3_coder", ANYOF_TEXT, data, ANYOF_TOOLS))
    args = calls[0][1]
    assert args == {
        "anyof_int": 5,
        "anyof_str": "hello",
        "anyof_array": ["a", "b", "c"],
        "anyof_obj": {"key": "value"},
        "type_as_array": 42,
        "multi_non_null": "some text",
    }
    assert isinstance(args["anyof_int"], int) and isinstance(args["type_as_array"], int)


SEARCH = [
    {
        "type": "function",
        "function": {
            "name": "search_web",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    "count": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 5},
                    "verbose": {"anyOf": [{"type": "boolean"}, {"type": "null"}]},
                },
            },
        },
    }
]


@given(data=st.data())
def test_anyof_streaming(data: st.DataObject) -> None:
    text = "<tool_call>\n<function=search_web>\n<parameter=query>\nvllm tool parser\n</parameter>\n<parameter=count>\n10\n</parameter>\n<parameter=verbose>\ntrue\n</parameter>\n</function>\n</tool_call>"
    _, calls = summary(check_format("qwen3_coder", text, data, SEARCH))
    assert calls == [("search_web", {"query": "vllm tool parser", "count": 10, "verbose": True})]


@given(data=st.data())
def test_step3p5_name_attribute_spelling(data: st.DataObject) -> None:
    text = '<tool_call>\n<function name="get_current_weather">\n<parameter name="city">\nDallas\n</parameter>\n</function>\n</tool_call>'
    _, calls = summary(check_format("step3p5", text, data, TOOLS))
    assert calls == [("get_current_weather", {"city": "Dallas"})]


@given(data=st.data())
def test_missing_function_closer_ends_at_block_close(data: st.DataObject) -> None:
    text = "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n</tool_call>after"
    items = check_format("qwen3_coder", text, data, TOOLS)
    content, calls = summary(items)
    assert calls == [("get_current_weather", {"city": "Dallas"})]
    assert content == "after"


@given(data=st.data())
def test_empty_tool_call_block_is_text(data: st.DataObject) -> None:
    text = "<tool_call>\n</tool_call>"
    assert check_format("qwen3_coder", text, data) == [("text", text)]


def test_deltas_are_compact_json() -> None:
    _, calls = summary(check_format("qwen3_coder", DALLAS, None, TOOLS))
    assert (
        json.dumps(calls[0][1], separators=(",", ":"))
        == '{"city":"Dallas","state":"TX","unit":"fahrenheit"}'
    )
