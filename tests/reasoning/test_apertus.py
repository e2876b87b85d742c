"""Apertus reasoning: ``<|inner_prefix|>`` … ``<|inner_suffix|>`` (llama.cpp ``APERTUS``,
SGLang ``apertus2509``), with the existing ``apertus`` tool format.

Blocks may repeat (``reopen``). A tool block ``<|tools_prefix|>[`` … ``<|tools_suffix|>``
written inside reasoning belongs to the text side: it is handed to the tool parser and
reasoning resumes after it (a pass-through span); a bare ``<|tools_prefix|>`` without
``[`` is reasoning text.
"""

from __future__ import annotations

import json

import pytest
from _reasoning_check import check_output, check_reasoning, split
from hypothesis import given
from hypothesis import strategies as st

from streamcall import ToolCallArgs, ToolCallStart, testing
from streamcall.events import Reasoning
from streamcall.formats.registry import parser_class
from streamcall.output import output_parser
from support import check_upstream_case, upstream_cases

IN, OUT = "<|inner_prefix|>", "<|inner_suffix|>"
TOOLS_IN, TOOLS_OUT = "<|tools_prefix|>", "<|tools_suffix|>"


@pytest.mark.parametrize("case", upstream_cases("apertus"))
def test_upstream(case: dict) -> None:
    check_upstream_case(case, "apertus", "apertus")


@pytest.mark.parametrize(
    ("text", "opened", "reasoning", "content"),
    [
        (f"{IN}a{OUT}x{IN}b{OUT}y", None, "ab", "xy"),
        (f"r{OUT}x{IN}b{OUT}y", True, "rb", "xy"),
        (f"{IN}a{TOOLS_IN}[1]{TOOLS_OUT}b{OUT}c", None, "ab", f"{TOOLS_IN}[1]{TOOLS_OUT}c"),
        # The reasoning END inside a tool block ends both (SGLang's one-shot reading).
        (f"{IN}a{TOOLS_IN}[1{OUT}c", None, "a", f"{TOOLS_IN}[1c"),
        (f"{IN}a{TOOLS_IN}[1", None, "a", f"{TOOLS_IN}[1"),
        (f"x{TOOLS_IN}[1]{TOOLS_OUT}", None, "", f"x{TOOLS_IN}[1]{TOOLS_OUT}"),
        # Cut markers are text (or reasoning inside a block), as written.
        ("x<|inner", None, "", "x<|inner"),
        (f"{IN}a<|inner_suf", None, "a<|inner_suf", ""),
        (f"{IN}a{TOOLS_IN}", None, f"a{TOOLS_IN}", ""),
    ],
)
@given(data=st.data())
def test_cases(
    text: str, opened: bool | None, reasoning: str, content: str, data: st.DataObject
) -> None:
    check_reasoning("apertus", text, reasoning, content, data, prompt_opened=opened)


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
CALL = parser_class("apertus").render([("get_weather", {"city": "Paris", "days": 3})])


@pytest.mark.parametrize(
    "text",
    [
        f"{IN}Look it up.{CALL}Then answer.{OUT}Done.",  # the call inside reasoning
        f"{IN}Look it up.Then answer.{OUT}{CALL}Done.",  # the call after it
    ],
)
@given(data=st.data())
def test_calls_inside_and_after_reasoning(text: str, data: st.DataObject) -> None:
    items = check_output(text, data, reasoning_format="apertus", tool_format="apertus", tools=TOOLS)
    assert split(items) == ("Look it up.Then answer.", "Done.")
    calls = [v for k, v in items if k == "call" and isinstance(v, testing.Call)]
    assert [(c.name, json.loads(c.arguments), c.incomplete) for c in calls] == [
        ("get_weather", {"city": "Paris", "days": 3}, False)
    ]


def test_arguments_stream_inside_reasoning() -> None:
    p = output_parser(reasoning_format="apertus", tool_format="apertus", tools=TOOLS)
    assert p.feed(f"{IN}plan") == [Reasoning("plan")]
    events = p.feed(f'{TOOLS_IN}[{{"get_weather": {{"city": "Par')
    assert any(isinstance(e, ToolCallStart) and e.name == "get_weather" for e in events)
    args = "".join(e.delta for e in events if isinstance(e, ToolCallArgs))
    later = p.feed("is, France, a long")
    args += "".join(e.delta for e in later if isinstance(e, ToolCallArgs))
    assert "France, a long" in args  # the value arrives before its closing quote
    rest = p.feed(f'"}}}}]{TOOLS_OUT}more{OUT}end') + p.finish()
    assert Reasoning("more") in rest


def test_routed_by_model() -> None:
    p = output_parser("swiss-ai/Apertus-8B-Instruct-2509", tools=TOOLS)
    items = testing.coalesce(testing.run(p, [f"{IN}r{OUT}{CALL}"]))
    assert split(items) == ("r", "")
    assert [v.name for k, v in items if k == "call" and isinstance(v, testing.Call)] == [
        "get_weather"
    ]
