"""Granite 4.2 (vLLM ``granite_thinking_parser``): Nemotron V3's / Qwen3's grammar
(``<think>`` … ``</think>``, thinking on by default and pre-filled, Qwen3 XML tool calls
whose ``<tool_call>`` ends reasoning), with the newlines that open the answer removed
(the template writes ``\\n</think>\\n``). vLLM also swaps reasoning into content when
thinking is off or ``force_nonempty_content`` finds no answer; streamcall never
re-labels reasoning it has streamed (with thinking off the output starts as content).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _reasoning_check import check_output, check_reasoning, split
from hypothesis import given
from hypothesis import strategies as st

from streamcall import Reasoning, Text, reasoning_parser, testing
from streamcall.formats.registry import parser_class
from support import check_upstream_case, upstream_cases

_SWAP = (
    "force_nonempty_content swaps reasoning into content when there is no answer: "
    "reasoning already streamed is never re-labelled (vllm_differences)"
)
SKIP = {"force_nonempty_swaps_truncated": _SWAP, "force_nonempty_swaps_absent_content": _SWAP}


@pytest.mark.parametrize("case", upstream_cases("granite_thinking", skip=SKIP))
def test_upstream(case: dict[str, Any]) -> None:
    check_upstream_case(case, None, "granite_thinking_parser")


@pytest.mark.parametrize(
    ("text", "opened", "reasoning", "content"),
    [
        ("r\n</think>\nHello", None, "r\n", "Hello"),
        ("r</think>\n\nHello\n\nWorld\n", None, "r", "Hello\n\nWorld\n"),
        ("r</think>\n\n", None, "r", ""),
        ("r</think> \nHello", None, "r", " \nHello"),  # only newlines are removed
        ("\nplain", False, "", "\nplain"),  # thinking off: kept as written
        ("<think>r</think>\nc", False, "r", "c"),
        ("r<tool_call>\n<function=f>", None, "r", "<tool_call>\n<function=f>"),
        ("r</thi", None, "r</thi", ""),
    ],
)
@given(data=st.data())
def test_cases(
    text: str, opened: bool | None, reasoning: str, content: str, data: st.DataObject
) -> None:
    check_reasoning("granite_thinking_parser", text, reasoning, content, data, prompt_opened=opened)


def test_newlines_removed_across_chunks() -> None:
    p = reasoning_parser("granite_thinking_parser")
    assert p.feed("reason") == [Reasoning("reason")]
    assert p.feed("</think>\n") == []
    assert p.feed("\n") == []
    assert p.feed("Hi\n") == [Text("Hi\n")]
    assert p.feed("\nthere") == [Text("\nthere")]


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"days": {"type": "integer"}}},
        },
    }
]


@given(data=st.data())
def test_routed_by_model_with_a_call(data: st.DataObject) -> None:
    call = parser_class("qwen3_coder").render([("get_weather", {"days": 3})])
    for text in ("Weather.\n</think>\n" + call, "Weather." + call):
        items = check_output(text, data, model="ibm-granite/granite-4.2-8b", tools=TOOLS)
        assert split(items)[0].strip() == "Weather."
        calls = [v for k, v in items if k == "call" and isinstance(v, testing.Call)]
        assert [(c.name, json.loads(c.arguments)) for c in calls] == [("get_weather", {"days": 3})]
