"""A reasoning opener inside a tool call is the call's text, not reasoning (issue 46).

With thinking off the reasoning parser looks for its START marker in the text; once the
tool parser that reads that text has a call open, a START marker there (``<think>`` in a
JSON string, a parameter value, a Gemma 4 string) belongs to the call. Every case in every
chunking (whole, 1 and 7 characters, random cuts drawn by hypothesis).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _reasoning_check import check_output, split
from hypothesis import given
from hypothesis import strategies as st

from streamcall import parse_output, testing

Q = '<|"|>'
CASES: list[tuple[str, str, str, str, str, list[tuple[str, dict[str, Any]]]]] = [
    # (tool format, reasoning format, text, reasoning, content, calls)
    (
        "hermes",
        "qwen3",
        '<tool_call>\n{"name": "f", "arguments": {"a": "<think>"}}\n</tool_call>',
        "",
        "",
        [("f", {"a": "<think>"})],
    ),
    (
        "hermes",
        "qwen3",
        '<tool_call>\n{"name": "f", "arguments": {"a": "x<think>y</think>z"}}\n</tool_call>',
        "",
        "",
        [("f", {"a": "x<think>y</think>z"})],
    ),
    (
        "hermes",
        "qwen3",
        'Hi <think>r</think><tool_call>\n{"name": "f", "arguments": {"a": "<think>"}}\n</tool_call>',
        "r",
        "Hi ",
        [("f", {"a": "<think>"})],
    ),
    (  # after a call ended, an opener is reasoning again
        "hermes",
        "qwen3",
        '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call><think>r</think>done',
        "r",
        "done",
        [("f", {})],
    ),
    (
        "qwen3_coder",
        "qwen3",
        "<tool_call>\n<function=f>\n<parameter=a>\nuse <think> here\n</parameter>\n"
        "</function>\n</tool_call>",
        "",
        "",
        [("f", {"a": "use <think> here"})],
    ),
    (
        "kimi_k2",
        "kimi_k2",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
        '<|tool_call_argument_begin|>{"a": "<think>"}<|tool_call_end|><|tool_calls_section_end|>',
        "",
        "",
        [("f", {"a": "<think>"})],
    ),
    (
        "mistral",
        "mistral",
        '[TOOL_CALLS]f[ARGS]{"a": "[THINK]x"}',
        "",
        "",
        [("f", {"a": "[THINK]x"})],
    ),
    (
        "gemma4",
        "gemma4",
        f"<|tool_call>call:f{{a:{Q}<|channel>thought\nx{Q}}}<tool_call|>",
        "",
        "",
        [("f", {"a": "<|channel>thought\nx"})],
    ),
]


@pytest.mark.parametrize(("tool", "reasoning", "text", "thought", "content", "calls"), CASES)
@given(data=st.data())
def test_an_opener_inside_a_call_is_the_calls_text(
    tool: str,
    reasoning: str,
    text: str,
    thought: str,
    content: str,
    calls: list[tuple[str, dict[str, Any]]],
    data: st.DataObject,
) -> None:
    items = check_output(
        text, data, tool_format=tool, reasoning_format=reasoning, prompt_opened=False
    )
    got = [(v.name, json.loads(v.arguments)) for k, v in items if isinstance(v, testing.Call)]
    assert got == calls
    assert split(items) == (thought, content)


def test_the_issue_case() -> None:
    got = parse_output(
        '<tool_call>\n{"name": "f", "arguments": {"a": "<think>"}}\n</tool_call>',
        tool_format="hermes",
        reasoning_format="qwen3",
        prompt_opened=False,
    )
    assert [(c.name, c.args) for c in got.tool_calls] == [("f", {"a": "<think>"})]
    assert (got.content, got.reasoning) == ("", "")
