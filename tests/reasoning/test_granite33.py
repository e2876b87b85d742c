"""Granite 3.3 with ``thinking=True`` (llama.cpp ``GRANITE``): ``<think>`` … ``</think>``
then the answer in ``<response>`` … ``</response>``, both read by the ``granite``
reasoning format beside Granite 3.2's phrases; tool calls are the Granite 3.x
``<|tool_call|>[…]`` array (the ``granite`` tool format).

Several llama.cpp cases parse an unfinished prefix (``partial``): their expected values
are what is decided so far, which is what streamcall has emitted before the stream ends
(``test_partial_prefixes``); at the end of a stream a cut marker is text and a cut call is
reported incomplete, so those cases are not run through the end-of-stream runner.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _reasoning_check import check_output, check_reasoning, split
from hypothesis import given
from hypothesis import strategies as st

from streamcall import Reasoning, Text, ToolCallArgs, ToolCallStart, testing
from streamcall.formats.registry import parser_class
from streamcall.output import output_parser
from support import UPSTREAM, check_upstream_case, upstream_cases

_END_OF_STREAM = (
    "llama.cpp parses an unfinished prefix (partial); at the end of a stream streamcall "
    "releases a cut marker as text and reports a cut call incomplete: test_partial_prefixes "
    "checks what is decided before the end"
)
SKIP = {
    "cut_think_open": _END_OF_STREAM,
    "cut_call_name_only": _END_OF_STREAM,
    "cut_call_args": _END_OF_STREAM,
    "think_then_call_cut": "the first array element is never closed (', {' where a key "
    "should follow): the granite tool format ends the call incomplete and keeps the rest "
    "as text; llama.cpp's partial JSON reads the call as whole",
}


@pytest.mark.parametrize("case", upstream_cases("granite33", skip=SKIP))
def test_upstream(case: dict[str, Any]) -> None:
    # llama.cpp's reasoning_format "none" turns reasoning extraction off: no reasoning stage.
    options = case.get("options") or {}
    reasoning = "none" if options.get("reasoning_format") == "none" else "granite"
    check_upstream_case(case, "granite", reasoning)


def _decided(text: str) -> dict[str, Any]:
    """What the combined parser has emitted for ``text`` before the stream ends."""
    events = output_parser(tool_format="granite", reasoning_format="granite").feed(text)
    names = [e.name for e in events if isinstance(e, ToolCallStart)]
    return {
        "content": "".join(e.text for e in events if isinstance(e, Text)),
        "reasoning": "".join(e.text for e in events if isinstance(e, Reasoning)),
        "calls": names,
        "arguments": "".join(e.delta for e in events if isinstance(e, ToolCallArgs)),
    }


@pytest.mark.parametrize(
    ("case_id", "arguments"),
    [
        ("cut_think_open", ""),
        ("cut_reasoning", ""),
        ("think_then_response_unclosed", ""),
        ("cut_call_args", '{"arg'),
    ],
)
def test_partial_prefixes(case_id: str, arguments: str) -> None:
    cases = json.loads((UPSTREAM / "granite33.json").read_text(encoding="utf-8"))["cases"]
    case = next(c for c in cases if c["id"] == case_id)
    assert case.get("partial")
    got = _decided(case["text"])
    assert got["content"] == (case["content"] or "")
    assert got["reasoning"] == (case["reasoning"] or "")
    assert got["calls"] == [c["name"] for c in case["calls"]]
    assert got["arguments"] == arguments
    for call in case["calls"]:
        assert call.get("arguments_raw", arguments) == arguments


@pytest.mark.parametrize(
    ("text", "reasoning", "content"),
    [
        ("<think>a</think><response>b</response>", "a", "b"),
        ("<think>a</think>\n<response>\nb\n</response>", "a", "\n\nb\n"),
        ("Here is my thought process: a Here is my response: b", " a ", " b"),  # 3.2 phrases
        ("<think>a</think>b <response> c", "a", "b  c"),
        ("x<think>a</think>b", "", "x<think>a</think>b"),  # only at the very start
        ("<response>b</response>", "", "b"),  # an answer without thinking
        ("<think>a", "a", ""),
        ("<thin", "", "<thin"),  # cut at the end: text as written
        ("<think>a</thin", "a</thin", ""),
    ],
)
@given(data=st.data())
def test_cases(text: str, reasoning: str, content: str, data: st.DataObject) -> None:
    check_reasoning("granite", text, reasoning, content, data)


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


@given(data=st.data())
def test_think_then_call_routed_by_model(data: st.DataObject) -> None:
    call = parser_class("granite").render([("get_weather", {"city": "Paris"})])
    text = "<think>Weather, Paris.</think>" + call
    request = {"chat_template_kwargs": {"thinking": True}}
    items = check_output(
        text, data, model="ibm-granite/granite-3.3-8b-instruct", tools=TOOLS, request=request
    )
    assert split(items) == ("Weather, Paris.", "")
    assert [v.name for _, v in items if isinstance(v, testing.Call)] == ["get_weather"]
