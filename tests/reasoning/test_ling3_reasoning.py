"""ling3 reasoning: ``<think>``, on by default, ended implicitly by a GLM ``<tool_call>``.

The upstream cases (``tests/fixtures/upstream/ling3.json``, from vLLM's
``tests/reasoning/test_ling3_reasoning_parser.py``, Apache-2.0, Copyright contributors to
the vLLM project) run through ``output_parser`` in every chunking.
"""

from __future__ import annotations

from typing import Any

import pytest
from _reasoning_check import check_output, check_reasoning, split
from hypothesis import given
from hypothesis import strategies as st

from streamcall import Reasoning, Text, reasoning_parser
from streamcall.reasoning.switches import prompt_opened_for
from support import check_upstream_case, summary, upstream_cases

SKIP = {
    "thinking_disabled_keeps_markers": "with thinking off the output starts outside "
    "reasoning, and a <think> the model writes still opens it, as for every format here "
    "(reasoning/switches.py); vLLM's ling3 is identity then (vllm_differences)",
}
CASES = [c for c in upstream_cases("ling3", skip=SKIP) if c.values[0]["parser"] != "tool"]


@pytest.mark.parametrize("case", CASES)
def test_upstream(case: dict[str, Any]) -> None:
    check_upstream_case(case, tool_format="ling3", reasoning_format="ling3")


def test_thinking_off_starts_outside_reasoning() -> None:
    """The skipped case's request: a plain answer is content; a written <think> opens."""
    ctk = {"chat_template_kwargs": {"enable_thinking": False}}
    assert prompt_opened_for("ling3", ctk) is False
    assert prompt_opened_for("ling3", {"chat_template_kwargs": {"thinking": False}}) is False
    assert prompt_opened_for("ling3", None) is None  # the default: opened
    check_reasoning("ling3", "answer", "", "answer", prompt_opened=False)
    check_reasoning("ling3", "<think>r</think>answer", "r", "answer", prompt_opened=False)


@given(data=st.data())
def test_tool_call_ends_reasoning_only_when_a_call_follows(data: st.DataObject) -> None:
    call = "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call>"
    check_reasoning("ling3", "plan" + call, "plan", call, data)
    check_reasoning(
        "ling3", "plan<tool_call>ping</tool_call>", "plan", "<tool_call>ping</tool_call>", data
    )
    check_reasoning("ling3", "plan<tool_call>f\n<arg_key>", "plan", "<tool_call>f\n<arg_key>", data)
    # a mention is reasoning
    for text in (
        "use <tool_call> tags</think>ok",
        "the <tool_call>tag</tool_call ends</think>ok",
        "a <tool_call>" + "x" * 70 + "<arg_key></think>ok",
    ):
        before, _, after = text.partition("</think>")
        check_reasoning("ling3", text, before, after, data)
    check_reasoning("ling3", "cut <tool_call>get_wea", "cut <tool_call>get_wea", "", data)


def test_a_cut_call_waits_for_what_follows() -> None:
    p = reasoning_parser("ling3")
    assert p.feed("a<tool_call>get") == [Reasoning("a")]
    assert p.feed("_weather<arg") == []
    assert p.feed("_key>") == [Text("<tool_call>"), Text("get_weather<arg_key>")]


@given(data=st.data())
def test_reasoning_then_calls_through_the_output_parser(data: st.DataObject) -> None:
    text = "plan<tool_call>ping</tool_call>"
    items = check_output(text, data, model="inclusionAI/Ling-3-flash")
    assert split(items)[0] == "plan"
    assert summary(items) == ("", [("ping", {})])
    items = check_output("<think>x</think>ok", data, model="inclusionAI/Ring-3-mini", request={})
    assert split(items) == ("x", "ok")
