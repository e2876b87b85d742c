"""telechat4 / xingchen4 / xing4_0 reasoning: ``<think>``, pre-filled by the template when
thinking is on (the default), with the calls of the ``telechat4`` tool format after it
(vLLM's ``telechat4``/``xingchen4`` reasoning parsers; no upstream test of them)."""

from __future__ import annotations

import pytest
from _reasoning_check import check_output, check_reasoning, split
from hypothesis import given
from hypothesis import strategies as st

from support import summary


@pytest.mark.parametrize("fmt", ["telechat4", "xingchen4", "xing4_0"])
@given(data=st.data())
def test_think_prefilled(fmt: str, data: st.DataObject) -> None:
    check_reasoning(fmt, "plan</think>answer", "plan", "answer", data)
    check_reasoning(fmt, "<think>plan</think>answer", "plan", "answer", data)
    check_reasoning(fmt, "only a plan", "only a plan", "", data)
    # thinking off: the template wrote <think></think> in the prompt; the output is content
    check_reasoning(fmt, "answer", "", "answer", data, prompt_opened=False)


@given(data=st.data())
def test_reasoning_then_calls_through_the_output_parser(data: st.DataObject) -> None:
    text = (
        "plan</think>Sure.<tool_call>f<param_key>s</param_key><param_value> x </param_value>"
        '</tool_call><tool_call>{"name": "g", "arguments": {"n": 1}}</tool_call>'
    )
    items = check_output(text, data, model="Tele-AI/TeleChat4-32B")
    assert split(items)[0] == "plan"
    assert summary(items) == ("Sure.", [("f", {"s": "x"}), ("g", {"n": 1})])
