"""minimax_m2.

Fixtures copied from vLLM ``tests/tool_parsers/test_minimax_m2_tool_parser.py``
(Apache-2.0, Copyright contributors to the vLLM project); the code is ours.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support import check_format, summary

CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    ("Hello world", "Hello world", []),
    (
        'Let me check. <minimax:tool_call><invoke name="get_weather"><parameter name="city">Seattle</parameter></invoke></minimax:tool_call>',
        "Let me check. ",
        [("get_weather", {"city": "Seattle"})],
    ),
    (
        '<minimax:tool_call><invoke name="search_web"><parameter name="query">OpenAI</parameter></invoke><invoke name="search_web"><parameter name="query">Gemini</parameter></invoke></minimax:tool_call>',
        "",
        [("search_web", {"query": "OpenAI"}), ("search_web", {"query": "Gemini"})],
    ),
    (
        '<minimax:tool_call><invoke name="get_weather"><parameter name="city">NYC</parameter></invoke><invoke name="get_stock"><parameter name="ticker">AAPL</parameter></invoke></minimax:tool_call>',
        "",
        [("get_weather", {"city": "NYC"}), ("get_stock", {"ticker": "AAPL"})],
    ),
    # vLLM gives "days": "5" without a schema; the documented no-schema rule gives 5.
    (
        '<minimax:tool_call><invoke name="get_weather"><parameter name="city">Seattle</parameter><parameter name="days">5</parameter></invoke></minimax:tool_call>',
        "",
        [("get_weather", {"city": "Seattle", "days": 5})],
    ),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_vllm_cases(text: str, content: str, calls: list[Any], data: st.DataObject) -> None:
    got_content, got = summary(check_format("minimax_m2", text, data))
    assert got_content == content
    assert got == calls


NULLABLE = [
    {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {
                "type": "object",
                "properties": {
                    "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    "days": {"type": "string"},
                },
            },
        },
    }
]


@given(data=st.data())
def test_anyof_nullable_string(data: st.DataObject) -> None:
    text = '<minimax:tool_call><invoke name="f"><parameter name="note">null</parameter><parameter name="days">5</parameter></invoke></minimax:tool_call>'
    _, got = summary(check_format("minimax_m2", text, data, NULLABLE))
    assert got == [("f", {"note": None, "days": "5"})]
    text = text.replace(">null<", ">a real note<")
    _, got = summary(check_format("minimax_m2", text, data, NULLABLE))
    assert got == [("f", {"note": "a real note", "days": "5"})]
