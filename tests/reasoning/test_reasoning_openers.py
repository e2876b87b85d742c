"""Where reasoning starts: Mistral's optional [THINK], Holo2's prompt-opened <think>, and
Gemma 4's repeated thought channel. Every case in every chunking (whole, 1 and 7
characters, random cuts drawn by hypothesis), cut markers and truncation included.
"""

from __future__ import annotations

import json

import pytest
from _reasoning_check import check_output, check_reasoning, split
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing

# (text, reasoning, content) for mistral with the format's default (no [THINK] in the
# prompt): a trace must open with [THINK]; a [/THINK] with no opener is dropped.
MISTRAL = [
    ("abc[/THINK]def", "", "abcdef"),
    ("plain answer", "", "plain answer"),
    ("pre [THINK]r[/THINK] post", "r", "pre  post"),
    ("a[/THINK]b[THINK]c[/THINK]d", "c", "abd"),  # a stray closer, then a real block
    ("[/THINK][/THINK]x", "", "x"),
    ("[THINK]r[/THINK]x[/THINK]y", "r", "x[/THINK]y"),  # after the block: text, as vLLM
    ("[THINK]still thinking", "still thinking", ""),
    ("abc[/THI", "", "abc[/THI"),  # a cut closer at the end is text
    ("abc[THI", "", "abc[THI"),
    ("[THINK]r[/THI", "r[/THI", ""),
    ("[THINK][/THINK]", "", ""),
]


@pytest.mark.parametrize(("text", "reasoning", "content"), MISTRAL)
@given(data=st.data())
def test_mistral_reasoning_needs_its_opener(
    text: str, reasoning: str, content: str, data: st.DataObject
) -> None:
    check_reasoning("mistral", text, reasoning, content, data)


# Magistral Small/Medium 2506: the same, written as plain text (issue 46)
MAGISTRAL_2506 = [
    ("<think>\nr\n</think>\n\nanswer", "\nr\n", "\n\nanswer"),
    ("pre <think>r</think> post", "r", "pre  post"),
    ("abc</think>def", "", "abcdef"),
    ("<think>still thinking", "still thinking", ""),
    ("abc<thi", "", "abc<thi"),
    ("<think>r</thi", "r</thi", ""),
    ("<think>r</think>x</think>y", "r", "x</think>y"),
]


@pytest.mark.parametrize(("text", "reasoning", "content"), MAGISTRAL_2506)
@given(data=st.data())
def test_mistral_reads_magistral_2506_plain_think(
    text: str, reasoning: str, content: str, data: st.DataObject
) -> None:
    check_reasoning("mistral", text, reasoning, content, data)


@given(data=st.data())
def test_magistral_2506_by_model_id(data: st.DataObject) -> None:
    text = '<think>\nThe user wants Oslo.\n</think>\n\n[TOOL_CALLS][{"name": "f", "arguments": {}}]'
    items = check_output(text, data, model="mistralai/Magistral-Small-2506")
    calls = [v.name for k, v in items if isinstance(v, testing.Call)]
    # the blanks between </think> and the call are framing (streamcall.framing.blanks)
    assert split(items) == ("\nThe user wants Oslo.\n", "")
    assert calls == ["f"]


@given(data=st.data())
def test_mistral_with_the_prompt_opening_reasoning(data: st.DataObject) -> None:
    """prompt_opened=True (a template that pre-fills [THINK]) still starts inside."""
    check_reasoning("mistral", "r[/THINK]c", "r", "c", data, prompt_opened=True)
    check_reasoning("mistral", "[THINK]r[/THINK]c", "r", "c", data, prompt_opened=True)


@given(data=st.data())
def test_mistral_tool_call_after_a_stray_closer(data: st.DataObject) -> None:
    text = 'Sure.[/THINK] [TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}'
    items = check_output(text, data, tool_format="mistral", reasoning_format="mistral")
    calls = [(v.name, json.loads(v.arguments)) for k, v in items if isinstance(v, testing.Call)]
    assert split(items) == ("", "Sure. ")
    assert calls == [("get_weather", {"city": "Oslo"})]


HOLO2 = [
    ("weighing options</think>Pick B.", "weighing options", "Pick B."),
    ("<think>weighing options</think>Pick B.", "weighing options", "Pick B."),
    ("still weighing", "still weighing", ""),
    ("</think>Pick B.", "", "Pick B."),
    ("weighing</thi", "weighing</thi", ""),
]


@pytest.mark.parametrize(("text", "reasoning", "content"), HOLO2)
@given(data=st.data())
def test_holo2_reasoning_starts_open(
    text: str, reasoning: str, content: str, data: st.DataObject
) -> None:
    check_reasoning("holo2", text, reasoning, content, data)


@given(data=st.data())
def test_holo2_with_thinking_off(data: st.DataObject) -> None:
    check_reasoning("holo2", "Pick B.", "", "Pick B.", data, prompt_opened=False)
    check_reasoning("holo2", "<think>w</think>Pick B.", "w", "Pick B.", data, prompt_opened=False)


GEMMA4 = [
    ("<|channel>plan A<channel|><|channel>plan B<channel|>Answer", "plan Aplan B", "Answer"),
    (
        "<|channel>thought\nplan A<channel|>mid<|channel>thought\nplan B<channel|>end",
        "plan Aplan B",
        "midend",
    ),
    ("<|channel>a<channel|>x<|channel>b", "ab", "x"),  # the second block cut off
    ("<|channel>a<channel|><|chan", "a", "<|chan"),  # a cut opener at the end is text
    ("<|channel>a<channel|>x<channel|>y", "a", "x<channel|>y"),  # a stray closer stays
    ("<|channel>a<channel|>" * 3 + "done", "aaa", "done"),
]


@pytest.mark.parametrize(("text", "reasoning", "content"), GEMMA4)
@given(data=st.data())
def test_gemma4_every_thought_block_is_reasoning(
    text: str, reasoning: str, content: str, data: st.DataObject
) -> None:
    check_reasoning("gemma4", text, reasoning, content, data)


@given(data=st.data())
def test_gemma4_second_thought_block_then_a_call(data: st.DataObject) -> None:
    text = (
        "<|channel>thought\nplan A<channel|><|channel>thought\nplan B<channel|>"
        '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>}<tool_call|>'
    )
    items = check_output(text, data, tool_format="gemma4", reasoning_format="gemma4")
    calls = [
        (v.name, json.loads(v.arguments), v.incomplete)
        for k, v in items
        if isinstance(v, testing.Call)
    ]
    assert split(items) == ("plan Aplan B", "")
    assert calls == [("get_weather", {"city": "Oslo"}, False)]
