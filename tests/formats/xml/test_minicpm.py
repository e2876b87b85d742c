"""minicpm5.

Fixtures copied from vLLM ``tests/tool_parsers/test_minicpm5xml_tool_parser.py``
(Apache-2.0, Copyright contributors to the vLLM project); the code is ours.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support import check_format, summary


def tool(name: str, props: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "parameters": {"type": "object", "properties": props}},
    }


TOOLS = [
    tool("get_weather", {"city": {"type": "string"}, "date": {"type": "string"}}),
    tool("sum_values", {"nums": {"type": "array"}, "exact": {"type": "boolean"}}),
    tool(
        "get_current_weather",
        {"city": {"type": "string"}, "state": {"type": "string"}, "unit": {"type": "string"}},
    ),
]
SH = {"city": "上海", "date": "2024-06-27"}

CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    ("How can I help you?", "How can I help you?", []),
    (
        'Intro before.\n<function name="get_weather"><param name="city">上海</param><param name="date">2024-06-27</param></function>\nOutro after.\n',
        "Intro before.\n\nOutro after.\n",
        [("get_weather", SH)],
    ),
    (
        '<function\u0120name="get_weather"><param\u0120name="city">上海</param><param\u0120name="date">2024-06-27</param></function>\n',
        "",
        [("get_weather", SH)],
    ),
    (
        '<functionname="get_weather"><paramname="city">上海</param><paramname="date">2024-06-27</param></function>\n',
        "",
        [("get_weather", SH)],
    ),
    (
        '<function\u0120name="get_weather"><paramname="city">上海</param><paramname="date">2024-06-27</param></function>\n',
        "",
        [("get_weather", SH)],
    ),
    (
        '<functionname="get_current_weather"><paramname="city">Dallas</param><paramname="state">TX</param><paramname="unit">fahrenheit</param></function>',
        "",
        [("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})],
    ),
    (
        '<function name="sum_values"><param name="nums">[1, 2, 3]</param><param name="exact">true</param></function>\n',
        "",
        [("sum_values", {"nums": [1, 2, 3], "exact": True})],
    ),
    (
        'Head\n<function name="get_weather"><param name="city">北京</param></function>\nTXT\n<function name="sum_values"><param name="nums">[7,8,9]</param><param name="exact">false</param></function>\nTail\n',
        "Head\n\nTXT\n\nTail\n",
        [("get_weather", {"city": "北京"}), ("sum_values", {"nums": [7, 8, 9], "exact": False})],
    ),
    ('<function name="noop"></function>\n', "", [("noop", {})]),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_vllm_cases(text: str, content: str, calls: list[Any], data: st.DataObject) -> None:
    got_content, got = summary(check_format("minicpm5", text, data, TOOLS))
    assert got_content == content
    assert got == calls


@given(data=st.data())
def test_missing_function_end_is_incomplete(data: st.DataObject) -> None:
    # vLLM keeps this as content; streamcall reports the call as incomplete.
    items = check_format(
        "minicpm5", '<function name="get_weather"><param name="city">北京</param>', data, TOOLS
    )
    call = next(v for k, v in items if k == "call")
    assert call.incomplete  # type: ignore[union-attr]
    assert summary(items)[1] == [("get_weather", {"city": "北京"})]


@given(data=st.data())
def test_param_without_name_ends_the_call(data: st.DataObject) -> None:
    text = '<function name="get_weather"><param>北京</param><param name="date">2024-06-27</param></function>\n'
    content, _ = summary(check_format("minicpm5", text, data, TOOLS))
    assert "<param>北京</param>" in content
