"""Reasoning and tool calls together, through output_parser: the text is split at every
point between the end of reasoning and the start of the tool call, and in random
chunkings, and the result never changes.

Only pairs whose tool format is registered run (``formats()`` says which exist).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _reasoning_check import check_output, split
from hypothesis import given
from hypothesis import strategies as st

from streamcall import formats, output_parser, testing
from streamcall.formats.registry import parser_class

ARGS: dict[str, Any] = {"city": "Paris", "days": 3}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            },
        },
    }
]

# (reasoning format, tool format, how reasoning is closed before the call or "" when the
# tool marker itself ends it, text the prompt opened reasoning for)
PAIRS = [
    ("qwen3", "hermes", "</think>\n\n", True),
    ("qwen3", "hermes", "", True),  # <tool_call> ends reasoning implicitly
    ("qwen3", "qwen3_xml", "</think>\n\n", True),
    ("qwen3", "qwen3_xml", "", True),
    ("qwen3", "qwen3_coder", "", True),
    ("deepseek_r1", "deepseek_v3", "</think>\n\n", True),
    ("deepseek_v3", "deepseek_v31", "</think>", False),  # thinking off by default
    ("kimi_k2", "kimi_k2", "</think>", True),
    ("kimi_k2", "kimi_k2", "", True),  # <|tool_calls_section_begin|> ends it implicitly
    ("gemma4", "gemma4", "<channel|>", False),
    ("seed_oss", "seed_oss", "</seed:think>\n", True),
    ("minimax_m2", "minimax_m2", "</think>\n", True),
    ("glm45", "glm45", "</think>\n", False),
    ("step3p5", "step3p5", "</think>\n", True),
    ("hy_v3", "hy_v3", "</think>\n", True),
    ("mimo", "mimo", "</think>\n", True),
    ("granite", "granite4", "Here is my response:", False),
]


def _case(reasoning: str, tool: str, close: str, opened: bool) -> tuple[str, int, int]:
    """(text, where reasoning text ends, where the call marker ends)."""
    call = parser_class(tool).render([("get_weather", ARGS)])
    if opened:
        head = "The user wants the weather in Paris."
    else:
        head = {
            "gemma4": "<|channel>thought\n",
            "granite": "Here is my thought process:",
        }.get(reasoning, "<think>") + "The user wants the weather in Paris."
    text = head + close + call + "\nDone."
    return text, len(head), len(head) + len(close) + 24


def _expect(items: list[testing.Item], close: str) -> None:
    reasoning, content = split(items)
    assert reasoning == "The user wants the weather in Paris."
    calls = [v for k, v in items if k == "call" and isinstance(v, testing.Call)]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("get_weather", ARGS)]
    assert content.strip() == "Done."


@pytest.mark.parametrize(("reasoning", "tool", "close", "opened"), PAIRS)
def test_every_split_between_reasoning_and_call(
    reasoning: str, tool: str, close: str, opened: bool
) -> None:
    if tool not in formats():
        pytest.skip(f"tool format {tool} is not registered yet")
    text, start, stop = _case(reasoning, tool, close, opened)
    whole = check_output(text, reasoning_format=reasoning, tool_format=tool, tools=TOOLS)
    _expect(whole, close)
    for cut in range(max(1, start - 3), min(len(text), stop)):
        for extra in (0, 1, 5):
            cuts = sorted({cut, min(len(text) - 1, cut + extra)})
            p = output_parser(reasoning_format=reasoning, tool_format=tool, tools=TOOLS)
            got = testing.coalesce(testing.run(p, testing.chunk_at(text, cuts)))
            assert got == whole, (cut, extra)


@pytest.mark.parametrize(("reasoning", "tool", "close", "opened"), PAIRS)
@given(data=st.data())
def test_random_chunkings(
    reasoning: str, tool: str, close: str, opened: bool, data: st.DataObject
) -> None:
    if tool not in formats():
        return
    text, _, _ = _case(reasoning, tool, close, opened)
    items = check_output(text, data, reasoning_format=reasoning, tool_format=tool, tools=TOOLS)
    _expect(items, close)


@given(data=st.data())
def test_model_routing_end_to_end(data: st.DataObject) -> None:
    text = "Paris weather?</think>\n\n" + parser_class("hermes").render([("get_weather", ARGS)])
    items = check_output(text, data, model="Qwen/Qwen3-8B", tool_format="hermes")
    assert split(items)[0] == "Paris weather?"
    assert [v for k, v in items if k == "call"]
