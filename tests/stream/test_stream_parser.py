"""StreamParser: raw SSE bytes of a chat stream, end to end, in any chunking of the bytes."""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from streamcall import (
    Finish,
    Reasoning,
    StreamError,
    Text,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
    testing,
)
from streamcall.events import Event
from streamcall.stream import StreamParser


def sse(obj: Any) -> bytes:
    return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n".encode()


def chunk(finish_reason: str | None = None, **delta: Any) -> bytes:
    return sse(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "model": "NousResearch/Hermes-3-Llama-3.1-8B",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }
    )


# A raw-text model writing a Hermes tool call through a plain OpenAI-compatible server.
RAW_TEXT_STREAM = b"".join(
    [
        chunk(role="assistant", content=""),
        chunk(content="Let me look that up for you 😀. <tool"),
        chunk(content='_call>\n{"name": "get_weather", "arguments": {"city": "北京", '),
        chunk(content='"unit": "celsius"}}\n</tool_call>\n<tool_call>\n{"name": "get_time", '),
        chunk(content='"arguments": {}}\n</tool_call>'),
        chunk(finish_reason="stop"),
        sse(
            {
                "id": "chatcmpl-1",
                "choices": [],
                "usage": {"prompt_tokens": 31, "completion_tokens": 40, "total_tokens": 71},
            }
        ),
        b"data: [DONE]\n\n",
    ]
)


def run_bytes(parser: StreamParser, pieces: list[bytes]) -> list[Event]:
    events: list[Event] = []
    for piece in pieces:
        events.extend(parser.feed(piece))
    events.extend(parser.finish())
    return events


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c for c in cuts if 0 < c < len(data)})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def test_raw_text_stream_end_to_end() -> None:
    parser = StreamParser("hermes")
    events = run_bytes(parser, [RAW_TEXT_STREAM])
    msg = parser.message
    assert msg.content == "Let me look that up for you 😀. "
    assert [(c.name, json.loads(c.arguments)) for c in msg.tool_calls] == [
        ("get_weather", {"city": "北京", "unit": "celsius"}),
        ("get_time", {}),
    ]
    assert msg.finish_reason == "tool_calls"
    assert msg.usage is not None and msg.usage.total_tokens == 71
    assert Finish("tool_calls", 0) in events
    assert UsageEvent(31, 40, 71) in events
    # the arguments streamed before the call ended
    first_args = next(i for i, e in enumerate(events) if isinstance(e, ToolCallArgs))
    first_end = next(i for i, e in enumerate(events) if isinstance(e, ToolCallEnd))
    assert first_args < first_end


def test_model_routes_the_format() -> None:
    parser = StreamParser(model="NousResearch/Hermes-3-Llama-3.1-8B")
    run_bytes(parser, [RAW_TEXT_STREAM])
    assert [c.name for c in parser.message.tool_calls] == ["get_weather", "get_time"]


@given(cuts=st.lists(st.integers(1, len(RAW_TEXT_STREAM) - 1), max_size=60))
def test_any_byte_chunking_gives_the_same_events(cuts: list[int]) -> None:
    whole = testing.coalesce(
        e
        for e in run_bytes(StreamParser("hermes"), [RAW_TEXT_STREAM])
        if not isinstance(e, UsageEvent | Finish)
    )
    for pieces in (
        split(RAW_TEXT_STREAM, cuts),
        [RAW_TEXT_STREAM[i : i + 1] for i in range(len(RAW_TEXT_STREAM))],
    ):
        got = testing.coalesce(
            e
            for e in run_bytes(StreamParser("hermes"), pieces)
            if not isinstance(e, UsageEvent | Finish)
        )
        assert got == whole


def test_without_a_format_content_is_text() -> None:
    parser = StreamParser()
    events = run_bytes(parser, [RAW_TEXT_STREAM])
    assert not any(isinstance(e, ToolCallStart) for e in events)
    assert "<tool_call>" in parser.message.content


def test_rejected_chunk_is_reported_not_dropped() -> None:
    stream = (
        chunk(content="a")
        + b'data: {"choices": [{"delta": {"reasoning_content": 123}}]}\n\n'
        + chunk(content="b")
        + b"data: [DONE]\n\n"
    )
    parser = StreamParser()
    events = run_bytes(parser, [stream])
    errors = [e for e in events if isinstance(e, StreamError)]
    assert len(errors) == 1 and parser.rejected == 1
    assert errors[0].where == "event 2"
    assert "reasoning_content" in errors[0].message
    assert '"reasoning_content": 123' in errors[0].data
    assert parser.message.content == "ab"


def test_done_ends_the_stream() -> None:
    parser = StreamParser()
    events = run_bytes(parser, [chunk(content="a") + b"data: [DONE]\n\n" + chunk(content="after")])
    assert [e for e in events if isinstance(e, Text)] == [Text("a")]
    assert parser.done


def test_reasoning_content_and_reasoning_pass_through() -> None:
    stream = chunk(reasoning_content="think ") + chunk(reasoning="more") + chunk(content="answer")
    parser = StreamParser()
    events = run_bytes(parser, [stream])
    assert [e for e in events if isinstance(e, Reasoning)] == [
        Reasoning("think "),
        Reasoning("more"),
    ]
    assert parser.message.reasoning == "think more"
    assert parser.message.content == "answer"


def structured(index: int | None, **fields: Any) -> bytes:
    call: dict[str, Any] = {"function": {}}
    if index is not None:
        call["index"] = index
    if "id" in fields:
        call["id"] = fields.pop("id")
        call["type"] = "function"
    call["function"].update(fields)
    return chunk(tool_calls=[call])


def test_structured_tool_calls_pass_through_as_the_same_events() -> None:
    stream = b"".join(
        [
            structured(0, id="call_abc", name="get_weather", arguments=""),
            structured(0, arguments='{"city": '),
            structured(0, arguments='"Paris"}'),
            structured(1, id="call_def", name="get_time", arguments="{}"),
            chunk(finish_reason="tool_calls"),
            b"data: [DONE]\n\n",
        ]
    )
    parser = StreamParser()
    items = testing.coalesce(run_bytes(parser, [stream]))
    calls = [v for k, v in items if k == "call"]
    assert [(c.id, c.name, c.arguments) for c in calls] == [  # type: ignore[union-attr]
        ("call_abc", "get_weather", '{"city": "Paris"}'),
        ("call_def", "get_time", "{}"),
    ]
    assert parser.message.finish_reason == "tool_calls"


def test_structured_calls_with_broken_arguments_stay_valid_and_are_reported() -> None:
    stream = structured(0, id="c1", name="f", arguments='{"a": 1, oops}') + b"data: [DONE]\n\n"
    parser = StreamParser()
    events = run_bytes(parser, [stream])
    items = testing.coalesce(events)  # checks arguments are a JSON object
    (call,) = [v for k, v in items if k == "call"]
    assert call.incomplete  # type: ignore[union-attr]
    assert any(isinstance(e, StreamError) and "invalid JSON" in e.message for e in events)


def test_structured_quirks_missing_index_and_first_index_one() -> None:
    stream = b"".join(
        [
            structured(None, id="a", name="f", arguments='{"x":'),
            structured(None, arguments="1}"),
            structured(1, id="b", name="g", arguments="{}"),
            b"data: [DONE]\n\n",
        ]
    )
    parser = StreamParser()
    run_bytes(parser, [stream])
    assert [(c.name, c.arguments) for c in parser.message.tool_calls] == [
        ("f", '{"x":1}'),
        ("g", "{}"),
    ]


def test_reasoning_and_tool_calls_from_raw_text() -> None:
    stream = b"".join(
        [
            chunk(content="<think>The user wants"),
            chunk(content=" the weather.</think>\n\n<tool_call>\n"),
            chunk(content='{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'),
            chunk(finish_reason="stop"),
            b"data: [DONE]\n\n",
        ]
    )
    for pieces in ([stream], [stream[i : i + 5] for i in range(0, len(stream), 5)]):
        parser = StreamParser("hermes", reasoning="qwen3")
        run_bytes(parser, pieces)
        msg = parser.message
        assert msg.reasoning == "The user wants the weather."
        assert msg.content.strip() == ""
        assert [(c.name, json.loads(c.arguments)) for c in msg.tool_calls] == [
            ("get_weather", {"city": "Oslo"})
        ]
        assert msg.finish_reason == "tool_calls"
