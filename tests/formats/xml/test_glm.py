"""glm45 / glm47 / poolside_v1.

Fixtures copied from vLLM ``tests/tool_parsers/test_glm4_moe_tool_parser.py``
(Apache-2.0, Copyright contributors to the vLLM project); the code is ours.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support import check_format, summary

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]
DALLAS = """<tool_call>get_current_weather
    <arg_key>city</arg_key>
    <arg_value>Dallas</arg_value>
    <arg_key>state</arg_key>
    <arg_value>TX</arg_value>
    <arg_key>unit</arg_key>
    <arg_value>fahrenheit</arg_value>
    </tool_call>"""
D = {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}
BEIJING = "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2025-08-01</arg_value>\n</tool_call>"

CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    ("This is a test", "This is a test", []),
    (DALLAS, "", [("get_current_weather", D)]),
    (
        DALLAS + "\n    " + DALLAS.replace("Dallas", "Orlando").replace("TX", "FL"),
        "",
        [
            ("get_current_weather", D),
            ("get_current_weather", {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}),
        ],
    ),
    (
        "I'll help you check the weather. " + DALLAS,
        "I'll help you check the weather. ",
        [("get_current_weather", D)],
    ),
    (
        "I will help you get the weather." + BEIJING,
        "I will help you get the weather.",
        [("get_weather", {"city": "Beijing", "date": "2025-08-01"})],
    ),
    (
        "<think>I want to get the weather.</think>\n\nI will help you get the weather.\n" + BEIJING,
        "<think>I want to get the weather.</think>\n\nI will help you get the weather.\n",
        [("get_weather", {"city": "Beijing", "date": "2025-08-01"})],
    ),
    ("<tool_call>get_current_time\n</tool_call>", "", [("get_current_time", {})]),
    (
        "I will help you get the weather info.\n\n"
        + BEIJING
        + "\n\nmeaningwhile, I will also check the weather in Shanghai.\n\n"
        + BEIJING.replace("Beijing", "Shanghai"),
        "I will help you get the weather info.\n\n\n\nmeaningwhile, I will also check the weather in Shanghai.\n\n",
        [
            ("get_weather", {"city": "Beijing", "date": "2025-08-01"}),
            ("get_weather", {"city": "Shanghai", "date": "2025-08-01"}),
        ],
    ),
    (
        "<tool_call>send_message\n<arg_key>recipient</arg_key>\n<arg_value>Amy</arg_value>\n<arg_key>message</arg_key>\n<arg_value>It is a nice day</arg_value>\n<arg_key>priority</arg_key>\n<arg_value>high</arg_value>\n</tool_call>",
        "",
        [("send_message", {"recipient": "Amy", "message": "It is a nice day", "priority": "high"})],
    ),
    # GLM-4.7: no newline after the name
    (
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>",
        "",
        [("get_weather", {"city": "Beijing"})],
    ),
]


@pytest.mark.parametrize("fmt", ["glm45", "glm47", "poolside_v1"])
@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_vllm_cases(
    fmt: str, text: str, content: str, calls: list[Any], data: st.DataObject
) -> None:
    got_content, got = summary(check_format(fmt, text, data, TOOLS))
    assert got_content == content
    assert got == calls


@given(data=st.data())
def test_incomplete_call_is_reported_not_dropped(data: st.DataObject) -> None:
    # vLLM drops this call and returns the text as content; streamcall reports it incomplete.
    text = BEIJING.removesuffix("\n</tool_call>")
    items = check_format("glm45", text, data, TOOLS)
    call = next(v for k, v in items if k == "call")
    assert call.incomplete  # type: ignore[union-attr]
    assert summary(items)[1] == [("get_weather", {"city": "Beijing", "date": "2025-08-01"})]


@given(data=st.data())
def test_malformed_key_degrades_to_text(data: st.DataObject) -> None:
    text = "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Seattle</arg_value>\n<arg_key>incomplete_arg\n<arg_value>value</arg_value>\n</tool_call>"
    items = check_format("glm45", text, data, TOOLS)
    _content, calls = summary(items)
    assert calls[0][0] == "get_weather"
    assert calls[0][1]["city"] == "Seattle"
