"""k2_horizon reasoning: three marker pairs (one per reasoning_effort), opened by the
template, ended implicitly by ``<ifm|tool_calls>``.

The upstream cases (``tests/fixtures/upstream/k2_horizon.json``, from vLLM's
``tests/reasoning/test_k2_horizon_reasoning_parser.py`` and its tool-parser tests,
Apache-2.0, Copyright contributors to the vLLM project) run through ``output_parser`` in
every chunking; the tool-only ones are in ``tests/formats/xml/test_k2_horizon.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from _reasoning_check import check_output, check_reasoning, split
from hypothesis import given
from hypothesis import strategies as st

from streamcall import Reasoning, Text, reasoning_parser
from support import check_upstream_case, summary, upstream_cases

CASES = [c for c in upstream_cases("k2_horizon") if c.values[0]["parser"] in ("reasoning", "both")]


@pytest.mark.parametrize("case", CASES)
def test_upstream(case: dict[str, Any]) -> None:
    check_upstream_case(case, tool_format="k2_horizon", reasoning_format="k2_horizon")


PAIRS = [
    ("<ifm|think>", "</ifm|think>"),
    ("<ifm|think_fast>", "</ifm|think_fast>"),
    ("<ifm|think_faster>", "</ifm|think_faster>"),
]


@pytest.mark.parametrize(("start", "end"), PAIRS)
@given(data=st.data())
def test_every_effort_pair(start: str, end: str, data: st.DataObject) -> None:
    # the template opened it: the output starts in reasoning; a written opener is dropped
    check_reasoning("k2_horizon", f"plan{end}answer", "plan", "answer", data)
    check_reasoning("k2_horizon", f"{start}plan{end}answer", "plan", "answer", data)
    # not opened: the marker opens it, text before it is text
    check_reasoning(
        "k2_horizon", f"hi {start}plan{end}answer", "plan", "hi answer", data, prompt_opened=False
    )


@given(data=st.data())
def test_truncated_reasoning_is_reasoning(data: st.DataObject) -> None:
    # vLLM's one-shot extract_reasoning calls this content; its streaming, reasoning
    check_reasoning("k2_horizon", "only a plan", "only a plan", "", data)
    check_reasoning("k2_horizon", "<ifm|think_fast>only a plan", "only a plan", "", data)


def test_tool_group_ends_reasoning_at_once() -> None:
    p = reasoning_parser("k2_horizon")
    assert p.feed("plan<ifm|tool_") == [Reasoning("plan")]
    assert p.feed("calls><ifm|tool_call>") == [
        Text("<ifm|tool_calls>"),
        Text("<ifm|tool_call>"),
    ]


@given(data=st.data())
def test_reasoning_then_calls_through_the_output_parser(data: st.DataObject) -> None:
    text = (
        "plan</ifm|think>Sure.<ifm|tool_calls><ifm|tool_call>lookup<ifm|arg_key>q"
        "</ifm|arg_key><ifm|arg_value>x</ifm|arg_value></ifm|tool_call></ifm|tool_calls>"
    )
    items = check_output(text, data, tool_format="k2_horizon", reasoning_format="k2_horizon")
    assert split(items)[0] == "plan"
    assert summary(items) == ("Sure.", [("lookup", {"q": "x"})])
    # the model id routes both stages
    items = check_output(text, data, model="org/K2-Horizon-Mova-36B-A4B")
    assert split(items)[0] == "plan"
    assert summary(items) == ("Sure.", [("lookup", {"q": "x"})])
