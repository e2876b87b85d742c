"""MiniMax-M3 reasoning: ``<mm:think>`` … ``</mm:think>`` (vLLM and SGLang ``minimax_m3``).

The template pre-fills ``<mm:think>`` only for ``thinking_mode: "enabled"``; otherwise the
output starts as text and a ``<mm:think>`` the model writes opens reasoning. A stray
``</mm:think>`` that opens the reply is dropped (M3 prefixes earlier non-thinking turns
with a bare closer); a later one is text as written.
"""

from __future__ import annotations

import json

import pytest
from _reasoning_check import check_output, check_reasoning, split
from hypothesis import given
from hypothesis import strategies as st

from streamcall import Reasoning, Text, reasoning_parser, testing
from streamcall.formats.registry import parser_class
from streamcall.output import output_parser
from support import check_upstream_case, upstream_cases


@pytest.mark.parametrize("case", upstream_cases("minimax_m3"))
def test_upstream(case: dict) -> None:
    check_upstream_case(case, None, "minimax_m3")


@pytest.mark.parametrize(
    ("text", "opened", "reasoning", "content"),
    [
        ("<mm:think>plan</mm:think>answer", None, "plan", "answer"),
        ("</mm:think>answer<mm:think>more</mm:think>end", None, "more", "answerend"),
        ("</mm:think>", None, "", ""),
        ("plan</mm:think>answer", True, "plan", "answer"),
        ("<mm:think>plan</mm:think>answer", True, "plan", "answer"),  # echoed opener
        ("<mm:think>a</mm:think>b</mm:think>c", None, "a", "b</mm:think>c"),
        # Malformed or cut markers are text (reasoning when opened), never lost.
        ("<mm:thinkplan", None, "", "<mm:thinkplan"),
        ("a<mm:think", None, "", "a<mm:think"),
        ("</mm:thin", None, "", "</mm:thin"),
        ("<mm:think>plan</mm:thi", None, "plan</mm:thi", ""),
        ("<think>plan</think>x", None, "", "<think>plan</think>x"),
    ],
)
@given(data=st.data())
def test_cases(
    text: str, opened: bool | None, reasoning: str, content: str, data: st.DataObject
) -> None:
    check_reasoning("minimax_m3", text, reasoning, content, data, prompt_opened=opened)


@pytest.mark.parametrize(
    ("mode", "reasoning", "content"),
    [
        ("enabled", "plan", "answer"),
        ("disabled", "", "plan</mm:think>answer"),
        (None, "", "plan</mm:think>answer"),
    ],
)
def test_thinking_mode_switch(mode: str | None, reasoning: str, content: str) -> None:
    request = {"chat_template_kwargs": {"thinking_mode": mode}} if mode else {}
    p = output_parser(reasoning_format="minimax_m3", tool_format="none", request=request)
    items = testing.coalesce(testing.run(p, ["plan</mm:think>answer"]))
    assert split(items) == (reasoning, content)


def test_reasoning_streams_while_written() -> None:
    p = reasoning_parser("minimax_m3")
    assert p.feed("<mm:think>") == []
    pieces = ["step one, ", "step two, ", "step three"]
    for piece in pieces:
        assert p.feed(piece) == [Reasoning(piece)]
    assert p.feed("</mm:") == []
    assert p.feed("think>ok") == [Text("ok")]


def test_leading_end_split_at_every_point() -> None:
    text = "</mm:think>content"
    for cut in range(len(text) + 1):
        p = reasoning_parser("minimax_m3")
        events = p.feed(text[:cut]) + p.feed(text[cut:]) + p.finish()
        assert split(testing.coalesce(events)) == ("", "content"), cut


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


@given(data=st.data())
def test_routed_by_model_with_a_call(data: st.DataObject) -> None:
    call = parser_class("minimax_m3").render([("get_weather", {"city": "Paris", "days": 3})])
    text = "<mm:think>The user wants the weather.</mm:think>Checking." + call
    items = check_output(text, data, model="MiniMaxAI/MiniMax-M3", tools=TOOLS)
    assert split(items) == ("The user wants the weather.", "Checking.")
    calls = [v for k, v in items if k == "call" and isinstance(v, testing.Call)]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("get_weather", {"city": "Paris", "days": 3})
    ]
