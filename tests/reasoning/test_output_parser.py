"""output_parser: reasoning and tool calls combined, routed from the model id."""

from __future__ import annotations

import json

import pytest
from _reasoning_check import check_output, split
from hypothesis import given
from hypothesis import strategies as st

import streamcall
from streamcall import Reasoning, Text, ToolCallEnd, ToolCallStart, output_parser, testing


def calls(items: list[testing.Item]) -> list[tuple[str, dict[str, object]]]:
    return [
        (v.name, json.loads(v.arguments))
        for k, v in items
        if k == "call" and isinstance(v, testing.Call)
    ]


HERMES_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def test_exported() -> None:
    for name in ("output_parser", "reasoning_parser", "reasoning_formats"):
        assert name in streamcall.__all__
    assert "reasoning_format_for_model" in streamcall.__all__


def test_qwen3_routed_from_model_id() -> None:
    p = output_parser("Qwen/Qwen3-8B", tool_format="hermes")
    assert p.reasoning_format == "qwen3"
    assert p.tool_format == "hermes"
    events = p.feed("Let me look.</think>Sure. " + HERMES_CALL)
    events += p.finish()
    assert events[0] == Reasoning("Let me look.")
    assert Text("Sure. ") in events
    assert any(isinstance(e, ToolCallStart) and e.name == "get_weather" for e in events)
    assert any(isinstance(e, ToolCallEnd) for e in events)


def test_explicit_formats_win_and_none_switches_off() -> None:
    p = output_parser("Qwen/Qwen3-8B", reasoning_format="none", tool_format="none")
    assert p.reasoning is None and p.tools is None
    assert p.feed("<think>x</think>") == [Text("<think>x</think>")]
    assert p.finish() == []


def test_no_model_no_formats_is_text() -> None:
    p = output_parser()
    assert p.feed("hello") == [Text("hello")]


def test_reasoning_only() -> None:
    p = output_parser(reasoning_format="deepseek_r1")
    assert p.tools is None
    events = p.feed("a</think>b") + p.finish()
    assert events == [Reasoning("a"), Text("b")]


def test_tools_only_routed() -> None:
    p = output_parser("ibm-granite/granite-4.0-h-small")
    assert p.reasoning is None and p.tool_format == "granite4"


def test_implicit_end_marker_reaches_tool_parser() -> None:
    # Qwen3.5 writes <tool_call> inside reasoning without </think>.
    text = "I need the weather.\n\n" + HERMES_CALL
    items = check_output(text, reasoning_format="qwen3", tool_format="hermes")
    assert split(items) == ("I need the weather.\n\n", "")
    assert calls(items) == [("get_weather", {"city": "Paris"})]


def test_mentioned_tool_call_tag_stays_reasoning() -> None:
    text = "I could use a <tool_call> tag here.</think>ok"
    items = check_output(text, reasoning_format="qwen3", tool_format="hermes")
    assert split(items) == ("I could use a <tool_call> tag here.", "ok")


@pytest.mark.parametrize("prompt_opened", [True, False])
def test_prompt_opened_passed_through(prompt_opened: bool) -> None:
    items = check_output(
        "<think>r</think>t", reasoning_format="deepseek_r1", prompt_opened=prompt_opened
    )
    assert split(items) == ("r", "t")


# --- reasoning and tools together, split at every point between them ---------------------

GAP = "</think>\n\nI'll check. "


@given(st.data())
def test_qwen3_hermes_split_everywhere(data: st.DataObject) -> None:
    text = "Thinking about Paris." + GAP + HERMES_CALL + " done"
    start = len("Thinking about Paris.")
    stop = text.index("<tool_call>") + len("<tool_call>")
    cut = data.draw(st.integers(start, stop))
    for pieces in ([text[:cut], text[cut:]], [text[:start], text[start:cut], text[cut:]]):
        p = output_parser("Qwen/Qwen3-32B", tool_format="hermes")
        items = testing.coalesce(testing.run(p, [x for x in pieces if x]))
        # the blanks after </think> are the template's framing (streamcall.framing.blanks)
        assert split(items) == ("Thinking about Paris.", "I'll check.  done")
        assert calls(items) == [("get_weather", {"city": "Paris"})]
    check_output(text, data, model="Qwen/Qwen3-32B", tool_format="hermes")


def test_every_cut_between_reasoning_and_call() -> None:
    text = "Thinking." + GAP + HERMES_CALL
    expected = check_output(text, reasoning_format="qwen3", tool_format="hermes")
    for cut in range(len("Thinking"), text.index("{")):
        p = output_parser(reasoning_format="qwen3", tool_format="hermes")
        got = testing.coalesce(testing.run(p, [text[:cut], text[cut:]]))
        assert got == expected, cut
