"""xlam against the contract.

Cases are taken from vLLM's ``tests/tool_parsers/test_xlam_tool_parser.py`` (Apache-2.0,
copyright the vLLM project). Content differs where streamcall keeps text vLLM drops.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]

DALLAS = {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}
ORLANDO = {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}
CALL = '{"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}'

CASES: list[tuple[str, Calls, str]] = [
    ("This is a test", [], "This is a test"),
    (
        f'[{CALL}, {{"name": "get_current_weather", "arguments": {{"city": "Orlando", "state": "FL", "unit": "fahrenheit"}}}}]',
        [("get_current_weather", DALLAS), ("get_current_weather", ORLANDO)],
        "",
    ),
    (
        f"<think>I'll help you with that.</think>[{CALL}]",
        [("get_current_weather", DALLAS)],
        "<think>I'll help you with that.</think>",
    ),
    (
        f"I'll help you with that.\n```json\n[{CALL}]\n```",
        [("get_current_weather", DALLAS)],
        "I'll help you with that.\n",
    ),
    (f"```json\n[{CALL}]\n```", [("get_current_weather", DALLAS)], ""),
    (
        f"I'll check the weather for you.[TOOL_CALLS][{CALL}]",
        [("get_current_weather", DALLAS)],
        "I'll check the weather for you.",
    ),
    (
        f"I'll help you check the weather.<tool_call>[{CALL}]</tool_call>",
        [("get_current_weather", DALLAS)],
        "I'll help you check the weather.",
    ),
    (
        '[{"name": "get_current_weather", "arguments": {"city": "Seattle", "state": "WA", "unit": "celsius"}}]',
        [("get_current_weather", {"city": "Seattle", "state": "WA", "unit": "celsius"})],
        "",
    ),
    # a bare array is a call only when it opens the output (or follows </think>)
    (f"Text then [{CALL}]", [], f"Text then [{CALL}]"),
]


@pytest.mark.parametrize(("text", "calls", "content"), CASES)
@given(data=st.data())
def test_vllm_cases(text: str, calls: Calls, content: str, data: st.DataObject) -> None:
    got_content, got_calls = summary(check_format("xlam", text, data))
    assert got_calls == calls
    assert got_content == content


def test_one_char_streaming_agrees_with_one_shot_sglang_35564() -> None:
    for text, _, _ in CASES:
        one_char = testing.coalesce(testing.run(tool_parser("xlam"), list(text)))
        assert one_char == testing.coalesce(testing.run(tool_parser("xlam"), [text]))
