"""berrylm against the contract: the tool format (Qwen3-Coder's XML calls), its reasoning
format, and the two together.

The upstream fixtures (tests/fixtures/upstream/berrylm.json, from vLLM's
``tests/parser/engine/test_berrylm.py``, Apache-2.0) run in every chunking, in the upstream
test's own chunks where it fed some.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall.formats.berrylm import BerryLMParser
from streamcall.output import parse_output
from streamcall.reasoning.switches import prompt_opened_for
from support import (
    calls,
    check_reasoning_split,
    check_rendered,
    check_upstream_case,
    schema_for,
    upstream_cases,
)

FMT = "berrylm"


@pytest.mark.parametrize("case", upstream_cases(FMT))
def test_upstream_fixtures(case: dict[str, Any]) -> None:
    check_upstream_case(case, FMT, FMT)


@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure. ", "a < b\n"]))
def test_rendered_calls_in_any_chunking(
    data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    text = before + BerryLMParser.render(call_list)
    check_rendered(FMT, text, data, call_list, before, schema_for(call_list))


@pytest.mark.parametrize(
    ("text", "reasoning", "content"),
    [
        ("Plan.</think></think>Answer.", "Plan.", "Answer."),
        # a mention of the wrapper stays reasoning; a call ends it
        (
            "I could use <tool_call> here.</think>Answer.",
            "I could use <tool_call> here.",
            "Answer.",
        ),
        (
            "Plan.<tool_call>\n<function=f>\n</function>\n</tool_call>",
            "Plan.",
            "<tool_call>\n<function=f>\n</function>\n</tool_call>",
        ),
    ],
)
@given(data=st.data())
def test_reasoning(data: st.DataObject, text: str, reasoning: str, content: str) -> None:
    check_reasoning_split(FMT, text, reasoning, content, data, prompt_opened=True)


def test_thinking_switch() -> None:
    assert prompt_opened_for(FMT, {"chat_template_kwargs": {"enable_thinking": False}}) is False
    assert prompt_opened_for(FMT, {}) is None  # the default: opened


def test_model_id_routes_tool_and_reasoning() -> None:
    text = "Plan.</think><tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>"
    got = parse_output(text, "RWB/BerryLM-OS")
    assert (got.reasoning, got.content) == ("Plan.", "")
    assert [(c.name, c.args) for c in got.tool_calls] == [("f", {"a": 1})]
