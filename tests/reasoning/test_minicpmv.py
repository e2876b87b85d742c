"""MiniCPM-V / MiniCPM-o (vLLM ``minicpmv``): Qwen3's grammar (``<think>`` … ``</think>``,
Qwen3-Coder XML tool calls), thinking off unless ``enable_thinking`` turns it on, plus:
``<|im_end|>`` and the reserved markers 12-15 (``<reserved_12>``, ``<|reserved_12|>``, …)
are dropped wherever they appear; with thinking off a ``</think>`` with no opener is
dropped; and a newline the tokenizer wrote as ``\\n`` is recovered in text and reasoning
(not in tool arguments) outside code and math, by the combined parser.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _reasoning_check import check_output, split
from hypothesis import given
from hypothesis import strategies as st

from streamcall import ToolCallArgs, testing
from streamcall.formats.registry import parser_class
from streamcall.output import output_parser
from support import check_upstream_case, upstream_cases

_HIDDEN = (
    "with thinking off a <think> block the model writes is reasoning here; vLLM hides it "
    "(neither reasoning nor content), and streamcall never drops text (test_hidden_block)"
)
SKIP = {
    "nonthinking_truncated_think_dropped": _HIDDEN,
    "nonthinking_streaming_split_markers": _HIDDEN,
}


@pytest.mark.parametrize("case", upstream_cases("minicpmv", skip=SKIP))
def test_upstream(case: dict[str, Any]) -> None:
    check_upstream_case(case, None, "minicpmv")


OFF = {"chat_template_kwargs": {"enable_thinking": False}}
ON = {"chat_template_kwargs": {"enable_thinking": True}}


@pytest.mark.parametrize(
    ("text", "reasoning", "content"),
    [
        ("prefix<think>private reasoning", "private reasoning", "prefix"),
        ("<think>private reasoning</think>final answer", "private reasoning", "final answer"),
    ],
)
def test_hidden_block(text: str, reasoning: str, content: str) -> None:
    """The two skipped cases: the same content as vLLM, the block kept as reasoning."""
    items = check_output(text, reasoning_format="minicpmv", tool_format="none", request=OFF)
    assert split(items) == (reasoning, content)


@pytest.mark.parametrize(
    ("text", "request_", "reasoning", "content"),
    [
        ("a<|im_end|>", OFF, "", "a"),
        ("r<|im_end|></think>a<|reserved_15|>", ON, "r", "a"),
        ("<|reserved_12|>x<reserved_16>", OFF, "", "x<reserved_16>"),
        ("a</think>b</think>c", OFF, "", "abc"),  # every stray END, with thinking off
        ("r</think>a</think>b", ON, "r", "a</think>b"),
        ("r\\nmore</think>a\\nb", ON, "r\nmore", "a\nb"),  # recovered in both
        ("`x\\ny` $a\\nb$ \\\\n", OFF, "", "`x\\ny` $a\\nb$ \\\\n"),
        ("a<|im_e", OFF, "", "a<|im_e"),  # cut at the end: text as written
        ("a\\", OFF, "", "a\\"),
    ],
)
@given(data=st.data())
def test_cases(
    text: str, request_: dict[str, Any], reasoning: str, content: str, data: st.DataObject
) -> None:
    items = check_output(
        text, data, reasoning_format="minicpmv", tool_format="none", request=request_
    )
    assert split(items) == (reasoning, content)


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "write",
            "parameters": {"type": "object", "properties": {"text": {"type": "string"}}},
        },
    }
]


@given(data=st.data())
def test_tool_arguments_keep_their_escapes(data: st.DataObject) -> None:
    call = parser_class("qwen3_coder").render([("write", {"text": "a\\nb"})])
    text = "<think>plan\\nit</think>Sure\\n" + call + "<|im_end|>"
    items = check_output(
        text, data, reasoning_format="minicpmv", tool_format="qwen3_coder", tools=TOOLS, request=ON
    )
    assert split(items) == ("plan\nit", "Sure\n")
    calls = [v for k, v in items if k == "call" and isinstance(v, testing.Call)]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("write", {"text": "a\\nb"})]


def test_implicit_tool_call_ends_reasoning() -> None:
    call = parser_class("qwen3_coder").render([("write", {"text": "x"})])
    p = output_parser(reasoning_format="minicpmv", tool_format="qwen3_coder", request=ON)
    items = testing.coalesce(testing.run(p, ["plan" + call]))
    assert split(items) == ("plan", "")
    assert [v.name for _, v in items if isinstance(v, testing.Call)] == ["write"]


def test_arguments_stream_while_written() -> None:
    p = output_parser(reasoning_format="minicpmv", tool_format="qwen3_coder", tools=TOOLS)
    p.feed("<tool_call>\n<function=write>\n<parameter=text>\n")
    events = p.feed("a long value " * 4)
    assert "a long value" in "".join(e.delta for e in events if isinstance(e, ToolCallArgs))


def test_routed_by_model() -> None:
    p = output_parser("openbmb/MiniCPM-V-4_5", tool_format="none", request=ON)
    items = testing.coalesce(testing.run(p, ["r</think>a\\nb<|im_end|>"]))
    assert split(items) == ("r", "a\nb")
