"""ResponsesStreamParser and MessagesStreamParser: what a Responses or Messages client
receives, decoded into streamcall's events, in any chunking of the bytes.

The two recorded streams are written in the shapes the APIs document (OpenAI's Responses
streaming events with a reasoning summary, as OpenAI's own models stream it; Anthropic's
streaming example with thinking, text and a tool_use whose input comes as
``input_json_delta`` pieces, the first one empty). The round trips run the proxy's own
encoders (``ResponsesWire``, ``MessagesWire``) over arbitrary event sequences and check
that the decoders give the same events back.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from streamcall import (
    Finish,
    MessagesStreamParser,
    Reasoning,
    ResponsesStreamParser,
    StreamError,
    Text,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
    testing,
)
from streamcall.events import Event
from streamcall.server.api import Call
from streamcall.server.messages import MessagesWire
from streamcall.server.responses import ResponsesWire


def sse(obj: dict[str, Any]) -> bytes:
    return f"event: {obj['type']}\ndata: {json.dumps(obj, ensure_ascii=False)}\n\n".encode()


def _numbered(events: list[dict[str, Any]]) -> bytes:
    return b"".join(sse({**ev, "sequence_number": n}) for n, ev in enumerate(events))


_RESPONSE = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}
_FC = {"id": "fc_1", "type": "function_call", "call_id": "call_abc", "name": "get_weather"}
RESPONSES_STREAM = b": keep-alive\n\n" + _numbered(
    [
        {"type": "response.created", "response": _RESPONSE},
        {"type": "response.in_progress", "response": _RESPONSE},
        {"type": "response.output_item.added", "output_index": 0, "item": {"id": "rs_1", "type": "reasoning", "summary": []}},
        {"type": "response.reasoning_summary_part.added", "item_id": "rs_1", "output_index": 0, "summary_index": 0, "part": {"type": "summary_text", "text": ""}},
        {"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0, "summary_index": 0, "delta": "**Weather** lookup "},
        {"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0, "summary_index": 0, "delta": "für Paris."},
        {"type": "response.output_item.done", "output_index": 0, "item": {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "**Weather** lookup für Paris."}]}},
        {"type": "response.output_item.added", "output_index": 1, "item": {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}},
        {"type": "response.content_part.added", "item_id": "msg_1", "output_index": 1, "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}},
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1, "content_index": 0, "delta": "Let me check 😀", "logprobs": []},
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1, "content_index": 0, "delta": ".", "logprobs": []},
        {"type": "response.output_text.done", "item_id": "msg_1", "output_index": 1, "content_index": 0, "text": "Let me check 😀.", "logprobs": []},
        {"type": "response.output_item.done", "output_index": 1, "item": {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "Let me check 😀."}]}},
        {"type": "response.output_item.added", "output_index": 2, "item": {**_FC, "arguments": "", "status": "in_progress"}},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 2, "delta": '{"ci'},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 2, "delta": 'ty": "Paris"}'},
        {"type": "response.function_call_arguments.done", "item_id": "fc_1", "output_index": 2, "arguments": '{"city": "Paris"}'},
        {"type": "response.output_item.done", "output_index": 2, "item": {**_FC, "arguments": '{"city": "Paris"}', "status": "completed"}},
        {
            "type": "response.completed",
            "response": {
                **_RESPONSE,
                "status": "completed",
                "usage": {
                    "input_tokens": 36,
                    "input_tokens_details": {"cached_tokens": 4},
                    "output_tokens": 87,
                    "output_tokens_details": {"reasoning_tokens": 64},
                    "total_tokens": 123,
                },
            },
        },
    ]
)  # fmt: skip

MESSAGES_STREAM = b"".join(
    sse(ev)
    for ev in [
        {
            "type": "message_start",
            "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude", "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 472, "cache_read_input_tokens": 20, "output_tokens": 2}},
        },
        {"type": "ping"},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "I need the weather "}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "in San Francisco."}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Okay, let's check"}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": " the weather:"}},
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_01T1x", "name": "get_weather", "input": {}}},
        {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": ""}},
        {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": '{"location":'}},
        {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": ' "San Francisco, CA"'}},
        {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": ', "unit": "fahrenheit"}'}},
        {"type": "content_block_stop", "index": 2},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 89}},
        {"type": "message_stop"},
    ]
)  # fmt: skip


def run_bytes(parser: Any, pieces: list[bytes]) -> list[Event]:
    events: list[Event] = []
    for piece in pieces:
        events.extend(parser.feed(piece))
    events.extend(parser.finish())
    return events


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c for c in cuts if 0 < c < len(data)})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def test_responses_stream_end_to_end() -> None:
    parser = ResponsesStreamParser()
    events = run_bytes(parser, [RESPONSES_STREAM])
    message = parser.message
    assert message.reasoning == "**Weather** lookup für Paris."
    assert message.content == "Let me check 😀."
    assert [(c.id, c.name, json.loads(c.arguments)) for c in message.tool_calls] == [
        ("call_abc", "get_weather", {"city": "Paris"})
    ]
    assert message.finish_reason == "tool_calls"
    assert message.usage is not None
    assert (message.usage.prompt_tokens, message.usage.completion_tokens) == (36, 87)
    assert (message.usage.cached_tokens, message.usage.reasoning_tokens) == (4, 64)
    assert parser.done and not parser.ended_early and parser.rejected == 0
    assert [type(e) for e in events if isinstance(e, Finish | UsageEvent)] == [Finish, UsageEvent]
    assert ToolCallStart(0, "call_abc", "get_weather") in events


def test_messages_stream_end_to_end() -> None:
    parser = MessagesStreamParser()
    run_bytes(parser, [MESSAGES_STREAM])
    message = parser.message
    assert message.reasoning == "I need the weather in San Francisco."
    assert message.content == "Okay, let's check the weather:"
    [call] = message.tool_calls
    assert (call.id, call.name) == ("toolu_01T1x", "get_weather")
    assert json.loads(call.arguments) == {"location": "San Francisco, CA", "unit": "fahrenheit"}
    assert message.finish_reason == "tool_calls"
    assert message.usage is not None
    # Anthropic's input_tokens leave the cache reads out; prompt_tokens counts them
    assert (message.usage.prompt_tokens, message.usage.completion_tokens) == (492, 89)
    assert message.usage.cached_tokens == 20
    assert parser.done and parser.rejected == 0


@settings(max_examples=60)
@given(cuts=st.lists(st.integers(1, len(RESPONSES_STREAM) - 1), max_size=60))
def test_responses_any_byte_chunking_gives_the_same_events(cuts: list[int]) -> None:
    whole = run_bytes(ResponsesStreamParser(), [RESPONSES_STREAM])
    got = run_bytes(ResponsesStreamParser(), split(RESPONSES_STREAM, cuts))
    assert testing.coalesce(_visible(got)) == testing.coalesce(_visible(whole))
    assert [e for e in got if isinstance(e, Finish | UsageEvent)] == [
        e for e in whole if isinstance(e, Finish | UsageEvent)
    ]


@settings(max_examples=60)
@given(cuts=st.lists(st.integers(1, len(MESSAGES_STREAM) - 1), max_size=60))
def test_messages_any_byte_chunking_gives_the_same_events(cuts: list[int]) -> None:
    whole = run_bytes(MessagesStreamParser(), [MESSAGES_STREAM])
    got = run_bytes(MessagesStreamParser(), split(MESSAGES_STREAM, cuts))
    assert testing.coalesce(_visible(got)) == testing.coalesce(_visible(whole))
    assert [e for e in got if isinstance(e, Finish | UsageEvent)] == [
        e for e in whole if isinstance(e, Finish | UsageEvent)
    ]


def test_one_byte_at_a_time() -> None:
    for make, data in (
        (ResponsesStreamParser, RESPONSES_STREAM),
        (MessagesStreamParser, MESSAGES_STREAM),
    ):
        whole = run_bytes(make(), [data])
        one = run_bytes(make(), [data[i : i + 1] for i in range(len(data))])
        assert testing.coalesce(_visible(one)) == testing.coalesce(_visible(whole))


def _visible(events: list[Event]) -> list[Event]:
    return [e for e in events if not isinstance(e, Finish | UsageEvent)]


def test_error_events_end_the_stream_and_are_reported() -> None:
    parser = MessagesStreamParser()
    data = MESSAGES_STREAM.split(b"event: content_block_start", 2)
    cut = data[0] + b"event: content_block_start" + data[1]  # up to the text block
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    events = run_bytes(parser, [cut, sse(error), sse({"type": "message_stop"})])
    errors = [e for e in events if isinstance(e, StreamError)]
    assert len(errors) == 1 and "Overloaded" in errors[0].message
    assert parser.done and parser.rejected == 1
    assert parser.message.reasoning == "I need the weather in San Francisco."

    parser2 = ResponsesStreamParser()
    failed = {
        "type": "response.failed",
        "sequence_number": 2,
        "response": {
            "id": "resp_1",
            "status": "failed",
            "error": {"code": "server_error", "message": "it broke"},
        },
    }
    start = RESPONSES_STREAM.split(b"event: response.output_item.added", 1)[0]
    events = run_bytes(parser2, [start, sse(failed)])
    assert [e.message for e in events if isinstance(e, StreamError)] == [
        "the server reported an error: it broke"
    ]
    assert parser2.done


def test_a_bad_event_is_reported_and_the_stream_goes_on() -> None:
    parser = ResponsesStreamParser()
    head, tail = RESPONSES_STREAM.split(b"event: response.completed", 1)
    events = run_bytes(
        parser,
        [
            head,
            b"event: response.output_text.delta\ndata: {nope\n\n",
            b"event: response.completed" + tail,
        ],
    )
    [err] = [e for e in events if isinstance(e, StreamError)]
    assert "not JSON" in err.message and err.data == "{nope"
    assert parser.message.content == "Let me check 😀." and parser.done


def test_cut_stream_closes_the_open_call() -> None:
    cut = MESSAGES_STREAM.split(b', \\"unit\\"', 1)[0]
    parser = MessagesStreamParser()
    events = run_bytes(parser, [cut])
    [end] = [e for e in events if isinstance(e, ToolCallEnd)]
    assert end.incomplete and json.loads(end.arguments) == {"location": "San Francisco, CA"}
    assert parser.ended_early
    testing.coalesce(events)  # the contract's invariants hold


# -- round trips through the proxy's encoders ---------------------------------------------

_items = st.lists(
    st.one_of(
        st.tuples(st.just("text"), st.text(min_size=1, max_size=12)),
        st.tuples(st.just("reasoning"), st.text(min_size=1, max_size=12)),
        st.tuples(
            st.just("call"),
            st.dictionaries(
                st.text(max_size=5), st.one_of(st.integers(), st.text(max_size=6)), max_size=3
            ),
        ),
    ),
    max_size=8,
)


def _events(items: list[tuple[str, Any]]) -> list[Event]:
    out: list[Event] = []
    calls = 0
    for kind, value in items:
        if kind == "text":
            out.append(Text(value))
        elif kind == "reasoning":
            out.append(Reasoning(value))
        else:
            arguments = json.dumps(value, ensure_ascii=False)
            half = len(arguments) // 2
            out += [
                ToolCallStart(calls, f"call_x_{calls}", f"tool{calls}"),
                ToolCallArgs(calls, arguments[:half]),
                ToolCallArgs(calls, arguments[half:]),
                ToolCallEnd(calls, arguments),
            ]
            calls += 1
    out += [Finish("stop"), UsageEvent(10, 5, 15)]
    return out


@settings(max_examples=60)
@given(items=_items, size=st.integers(1, 40))
def test_responses_wire_round_trip(items: list[tuple[str, Any]], size: int) -> None:
    events = _events(items)
    wire = ResponsesWire(Call({}, {"model": "m"}), "m")
    data = wire.start() + wire.feed(events, 0) + wire.end(None, 0)
    parser = ResponsesStreamParser()
    got = run_bytes(parser, [data[i : i + size] for i in range(0, len(data), size)])
    assert testing.coalesce(_visible(got)) == testing.coalesce(_visible(events))
    assert parser.done and parser.rejected == 0
    assert parser.message.usage is not None and parser.message.usage.total_tokens == 15


@settings(max_examples=60)
@given(items=_items, size=st.integers(1, 40))
def test_messages_wire_round_trip(items: list[tuple[str, Any]], size: int) -> None:
    events = _events(items)
    wire = MessagesWire(Call({}, {"model": "m"}), "m")
    data = wire.start() + wire.feed(events, 0) + wire.end(None, 0)
    parser = MessagesStreamParser()
    got = run_bytes(parser, [data[i : i + size] for i in range(0, len(data), size)])
    # Anthropic's ids start with toolu_: the wire gives an id that does not the prefix
    want = [
        ToolCallStart(ev.index, f"toolu_{ev.id}", ev.name) if isinstance(ev, ToolCallStart) else ev
        for ev in events
    ]
    assert testing.coalesce(_visible(got)) == testing.coalesce(_visible(want))
    assert parser.done and parser.rejected == 0
    calls = any(kind == "call" for kind, _ in items)
    assert parser.message.finish_reason == ("tool_calls" if calls else "stop")
