"""HY v3/v4 reasoning with a per-checkpoint marker suffix: ``</think:opensource>``.

Tencent's HY checkpoints suffix every special token (vLLM's ``HYV3ReasoningParser`` reads
``token_suffix`` from the tokenizer and uses ``<think{suffix}>``/``</think{suffix}>``;
shipped suffixes include ``:opensource`` and ``:6124c78e``). There is no tokenizer here,
so either spelling ends reasoning, whatever the suffix; the tool parsers ``hy_v3``/
``hy_v4`` read the same suffix from each block's opener. A cut suffixed marker is held,
never more than the marker and a 64-character suffix.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _reasoning_check import check_output, check_reasoning, split
from hypothesis import given
from hypothesis import strategies as st

from streamcall import StreamParser, reasoning_parser, testing
from streamcall.events import Event, Reasoning, Text

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

# (text, reasoning, content): the prompt opened reasoning (HY's templates do).
CASES = [
    (
        "The user wants 17*24. 17*24 = 408.</think:opensource>17 × 24 = **408**.",
        "The user wants 17*24. 17*24 = 408.",
        "17 × 24 = **408**.",
    ),
    ("abc</think:6124c78e>def", "abc", "def"),
    ("abc</think>def", "abc", "def"),  # the unsuffixed spelling still works
    # A start marker written again by the model is dropped, suffixed as well.
    ("<think:opensource>abc</think:opensource>def", "abc", "def"),
    ("<think:opensource>\nabc\n</think:opensource>\ndef", "\nabc\n", "\ndef"),
    # An empty thought: the template's `reasoning_effort: no_think` closes it at once.
    ("</think:opensource>Hello.", "", "Hello."),
    # Only the first end marker ends reasoning; later ones are text as written.
    ("a</think:x>b</think:x>c", "a", "b</think:x>c"),
    # Not a suffixed marker: a blank in the suffix, another name, no '>'.
    ("a</think: x>b", "a</think: x>b", ""),
    ("a</thinking:x>b", "a</thinking:x>b", ""),
    ("a</think:xb", "a</think:xb", ""),
    # Longer than 64 characters: not a suffix (and not held for longer than that).
    ("a</think:" + "s" * 65 + ">b", "a</think:" + "s" * 65 + ">b", ""),
    ("a</think:" + "s" * 64 + ">b", "a", "b"),
]


@pytest.mark.parametrize("name", ["hy_v3", "hy_v4"])
@pytest.mark.parametrize(("text", "reasoning", "content"), CASES)
@given(data=st.data())
def test_suffixed_end_marker(
    name: str, text: str, reasoning: str, content: str, data: st.DataObject
) -> None:
    check_reasoning(name, text, reasoning, content, data)


@pytest.mark.parametrize("name", ["hy_v3", "hy_v4"])
def test_reasoning_off_in_the_prompt(name: str) -> None:
    # With no_think the template closes the thought itself; a suffixed <think:…> in the
    # output then opens reasoning.
    check_reasoning(name, "Hi.", None, "Hi.", prompt_opened=False)
    check_reasoning(
        name, "<think:opensource>abc</think:opensource>def", "abc", "def", prompt_opened=False
    )


def test_cut_marker_is_held_and_bounded() -> None:
    r = reasoning_parser("hy_v3")
    assert r.feed("abc</think:open") == [Reasoning("abc")]
    assert r.feed("source") == []
    assert r.feed(">def") == [Text("def")]
    # A long run that cannot be a suffix is released as soon as that is decided.
    r = reasoning_parser("hy_v3")
    out = r.feed("abc</think:" + "s" * 64)
    assert out == [Reasoning("abc")]
    out = r.feed("s")
    assert "".join(e.text for e in out if isinstance(e, Reasoning)) == "</think:" + "s" * 65
    # A cut marker at the end of the stream is reasoning, as written.
    r = reasoning_parser("hy_v3")
    events = r.feed("abc</think:opens") + r.finish()
    assert testing.coalesce(events) == [("reasoning", "abc</think:opens")]


def test_held_tail_never_exceeds_the_bound() -> None:
    # Whatever is fed, at most len('</think') + 65 characters are ever held.
    r = reasoning_parser("hy_v4")
    fed = 0
    emitted = 0
    for piece in ["x" * 10, "</think:", "a" * 30, "<", "/think:", "b" * 40, "</thi"]:
        fed += len(piece)
        emitted += sum(len(e.text) for e in r.feed(piece) if isinstance(e, (Reasoning, Text)))
        assert fed - emitted <= len("</think") + 65


SUFFIXED_CALL = (
    "<tool_calls:opensource><tool_call:opensource>get_weather<tool_sep:opensource>"
    "<arg_key:opensource>city</arg_key:opensource><arg_value:opensource>Paris"
    "</arg_value:opensource><arg_key:opensource>days</arg_key:opensource>"
    "<arg_value:opensource>3</arg_value:opensource></tool_call:opensource>"
    "</tool_calls:opensource>"
)
TEXT = "The user wants the weather.</think:opensource>\nLet me check." + SUFFIXED_CALL


def _check(items: list[testing.Item]) -> None:
    reasoning, content = split(items)
    assert reasoning == "The user wants the weather."
    assert content == "Let me check."  # the blank after the reasoning is framing
    calls = [v for k, v in items if k == "call" and isinstance(v, testing.Call)]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("get_weather", {"city": "Paris", "days": 3})
    ]


@pytest.mark.parametrize("model", ["tencent/Hy3-preview", "tencent/hy_v3-instruct"])
@given(data=st.data())
def test_routed_by_model_with_tool_call(model: str, data: st.DataObject) -> None:
    _check(check_output(TEXT, data, model=model, tools=TOOLS))


@given(data=st.data())
def test_hy_v4_by_name_with_tool_call(data: st.DataObject) -> None:
    text = TEXT.replace("<tool_sep:opensource>", "")
    items = check_output(text, data, tool_format="hy_v4", reasoning_format="hy_v4", tools=TOOLS)
    _check(items)


def _sse(content: str, finish: str | None = None) -> bytes:
    obj: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "tencent/Hy3-preview",
        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": finish}],
    }
    return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n".encode()


@pytest.mark.parametrize("size", [1, 5, 17, len(TEXT)])
def test_stream_parser_routes_hy3_by_model(size: int) -> None:
    pieces = [TEXT[i : i + size] for i in range(0, len(TEXT), size)]
    data = b"".join(_sse(p) for p in pieces) + _sse("", "tool_calls") + b"data: [DONE]\n\n"
    parser = StreamParser(model="tencent/Hy3-preview", tools=TOOLS)
    events: list[Event] = []
    for i in range(0, len(data), 13):
        events.extend(parser.feed(data[i : i + 13]))
    events.extend(parser.finish())
    message = parser.message
    assert message.reasoning == "The user wants the weather."
    assert message.content == "Let me check."
    assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == [
        ("get_weather", {"city": "Paris", "days": 3})
    ]
