"""kolibri1 (Aleph Alpha Kolibri 1) against the contract: Hermes calls, Qwen3's reasoning
with the start chosen as Kolibri 1's template chooses it.

The upstream fixtures (tests/fixtures/upstream/kolibri1.json, from vLLM's
``tests/parser/engine/test_kolibri1.py``, Apache-2.0) run in every chunking.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall.formats.kolibri import Kolibri1Parser
from streamcall.output import parse_output
from streamcall.reasoning.switches import prompt_opened_for
from support import calls, check_rendered, check_upstream_case, upstream_cases

FMT = "kolibri1"


@pytest.mark.parametrize("case", upstream_cases(FMT))
def test_upstream_fixtures(case: dict[str, Any]) -> None:
    check_upstream_case(case, FMT, FMT)


@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure. ", "a < b\n"]))
def test_rendered_calls_in_any_chunking(
    data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    check_rendered(FMT, before + Kolibri1Parser.render(call_list), data, call_list, before)


# vLLM's THINKING_OFF_KWARGS and THINKING_ON_KWARGS (tests/parser/engine/test_kolibri1.py)
@pytest.mark.parametrize(
    ("kwargs", "opened"),
    [
        ({"enable_thinking": False}, False),
        ({"reasoning_effort": None, "enable_thinking": False}, False),
        ({"reasoning_effort": "none"}, False),
        ({"reasoning_effort": "none", "enable_thinking": True}, False),
        ({}, None),
        ({"reasoning_effort": None}, None),
        ({"enable_thinking": True}, True),
        ({"enable_thinking": None}, None),
        ({"reasoning_effort": "high"}, True),
        ({"reasoning_effort": "low", "enable_thinking": False}, True),
    ],
)
def test_the_templates_switch(kwargs: dict[str, Any], opened: bool | None) -> None:
    assert prompt_opened_for(FMT, {"chat_template_kwargs": kwargs}) is opened


def test_model_id_routes_tool_and_reasoning() -> None:
    text = '<think>\nLook.\n</think>\n\n<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>'
    got = parse_output(text, "Aleph-Alpha/Kolibri-1")
    assert got.reasoning == "\nLook.\n"
    assert [(c.name, c.args) for c in got.tool_calls] == [("f", {"a": 1})]
