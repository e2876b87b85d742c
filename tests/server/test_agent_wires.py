"""The sans-IO halves of ``/v1/responses`` and ``/v1/messages``: request translation, and
the encoders' events validated, strictly, by the official SDKs' own pydantic types (each
event by the class its ``type`` names; the final objects as ``Response`` and ``Message``).
"""

from __future__ import annotations

import json
from typing import Any, get_args

import pytest
from anthropic.types import Message as AnthropicMessage
from anthropic.types import RawMessageStreamEvent
from openai.types.responses import Response, ResponseStreamEvent

from streamcall.events import (
    Event,
    Finish,
    Reasoning,
    Text,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from streamcall.server import messages, responses
from streamcall.server.api import BadRequest
from streamcall.sse import SSEDecoder


def _by_type(union: Any) -> dict[str, Any]:
    """The SDK's event classes, by the literal of their ``type`` field."""
    members = get_args(union)
    if members and not hasattr(members[0], "model_fields"):  # Annotated[Union[...], ...]
        members = get_args(members[0])
    return {get_args(cls.model_fields["type"].annotation)[0]: cls for cls in members}


OPENAI_EVENTS = _by_type(ResponseStreamEvent)
ANTHROPIC_EVENTS = _by_type(RawMessageStreamEvent)

EVENTS: list[Event] = [
    Reasoning("Let me think."),
    Text("Checking."),
    ToolCallStart(0, "call_1_0", "get_weather"),
    ToolCallArgs(0, '{"city": '),
    ToolCallArgs(0, '"Paris"}'),
    ToolCallEnd(0, '{"city": "Paris"}'),
    Text("More text after the call."),
    Finish("stop"),
    UsageEvent(30, 12, 42, 8, 5),
]
R_CALL = responses.chat_request(
    {"model": "m", "input": "x", "tools": [{"type": "function", "name": "get_weather"}]}
)
M_CALL = messages.chat_request(
    {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}
)


def _decoded(data: bytes) -> list[dict[str, Any]]:
    out = []
    for sse in SSEDecoder().feed(data):
        value = json.loads(sse.data)
        assert sse.event == value["type"]  # the SSE event name is the event's type
        out.append(value)
    return out


@pytest.mark.parametrize("ending", ["end", "length", "fail"])
def test_responses_events_are_the_sdk_types(ending: str) -> None:
    wire = responses.ResponsesWire(R_CALL, "m")
    events = EVENTS if ending != "length" else [*EVENTS[:-2], Finish("length"), EVENTS[-1]]
    data = wire.start() + wire.feed(events, 0)
    data += wire.fail({"error": {"message": "it broke"}}) if ending == "fail" else wire.end(None, 0)
    decoded = _decoded(data)
    for value in decoded:
        OPENAI_EVENTS[value["type"]].model_validate(value)
    assert [v["sequence_number"] for v in decoded] == list(range(len(decoded)))
    last = decoded[-1]
    expected = {
        "end": "response.completed",
        "length": "response.incomplete",
        "fail": "response.failed",
    }
    assert last["type"] == expected[ending]
    final = Response.model_validate(last["response"])
    assert [item.type for item in final.output] == [
        "reasoning",
        "message",
        "function_call",
        "message",
    ]
    if ending == "fail":
        assert final.status == "failed" and final.error is not None
        assert final.error.message == "it broke"
    elif ending == "length":
        assert final.status == "incomplete" and final.incomplete_details is not None
        assert final.incomplete_details.reason == "max_output_tokens"
    else:
        assert final.usage is not None and final.usage.input_tokens_details.cached_tokens == 8
        assert final.usage.output_tokens_details.reasoning_tokens == 5


@pytest.mark.parametrize("ending", ["end", "length", "fail"])
def test_messages_events_are_the_sdk_types(ending: str) -> None:
    wire = messages.MessagesWire(M_CALL, "m")
    events = EVENTS if ending != "length" else [*EVENTS[:-2], Finish("length"), EVENTS[-1]]
    data = wire.start() + wire.feed(events, 0)
    data += wire.fail({"error": {"message": "it broke"}}) if ending == "fail" else wire.end(None, 0)
    decoded = _decoded(data)
    for value in decoded:
        if value["type"] in ("ping", "error"):  # not stream events in the SDK's union
            continue
        ANTHROPIC_EVENTS[value["type"]].model_validate(value)
    final = AnthropicMessage.model_validate(wire.message())
    assert [b.type for b in final.content] == ["thinking", "text", "tool_use", "text"]
    if ending == "fail":
        assert decoded[-1] == {
            "type": "error",
            "error": {"type": "api_error", "message": "it broke"},
        }
        return
    delta = decoded[-2]
    assert delta["type"] == "message_delta" and decoded[-1] == {"type": "message_stop"}
    assert delta["delta"]["stop_reason"] == ("max_tokens" if ending == "length" else "tool_use")
    # Anthropic counts cache reads apart from input_tokens
    assert delta["usage"] == {"input_tokens": 22, "output_tokens": 12, "cache_read_input_tokens": 8}


def test_responses_input_items_become_chat_messages() -> None:
    call = responses.chat_request(
        {
            "model": "m",
            "instructions": "Be brief.",
            "input": [
                {"role": "developer", "content": "Use metric units."},
                {
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "What is this? "},
                        {"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
                    ],
                },
                {"type": "reasoning", "id": "rs_1", "summary": [], "content": [{"type": "reasoning_text", "text": "Hm."}]},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "A cat."}]},
                {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                {"type": "function_call", "call_id": "c2", "name": "g", "arguments": '{"x": 1}'},
                {"type": "function_call_output", "call_id": "c1", "output": "one"},
                {"type": "function_call_output", "call_id": "c2", "output": [{"type": "input_text", "text": "two"}]},
            ],
            "max_output_tokens": 9,
            "text": {"format": {"type": "json_schema", "name": "s", "schema": {"type": "object"}}},
            "store": True,
            "stream": True,
        }
    )  # fmt: skip
    chat = call.chat
    assert chat["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "system", "content": "Use metric units."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this? "},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            ],
        },
        {
            "role": "assistant",
            "content": "A cat.",
            "reasoning_content": "Hm.",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "g", "arguments": '{"x": 1}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "one"},
        {"role": "tool", "tool_call_id": "c2", "content": "two"},
    ]
    assert chat["max_tokens"] == 9 and chat["stream"] is True
    assert chat["stream_options"] == {"include_usage": True}
    assert chat["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "s", "schema": {"type": "object"}},
    }
    assert "store" not in chat


def test_messages_blocks_become_chat_messages() -> None:
    call = messages.chat_request(
        {
            "model": "m",
            "max_tokens": 64,
            "system": [{"type": "text", "text": "Be brief."}],
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "Look: "},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
                    ],
                },
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "Hm.", "signature": "sig"},
                        {"type": "redacted_thinking", "data": "xyz"},
                        {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"q": "é"}},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "no"}], "is_error": True},
                        {"type": "text", "text": "Try again."},
                    ],
                },
            ],
            "tools": [{"name": "f", "description": "d", "input_schema": {"type": "object"}}],
            "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
            "stop_sequences": ["END"],
            "top_k": 5,
        }
    )  # fmt: skip
    chat = call.chat
    assert chat["messages"] == [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Look: "},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "reasoning_content": "Hm.",
            "tool_calls": [
                {
                    "id": "toolu_1",
                    "type": "function",
                    "function": {"name": "f", "arguments": '{"q": "é"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "toolu_1", "content": "Error: no"},
        {"role": "user", "content": "Try again."},
    ]
    assert chat["tools"] == [
        {
            "type": "function",
            "function": {"name": "f", "parameters": {"type": "object"}, "description": "d"},
        }
    ]
    assert chat["tool_choice"] == "required" and chat["parallel_tool_calls"] is False
    assert chat["stop"] == ["END"] and chat["top_k"] == 5 and chat["max_tokens"] == 64


@pytest.mark.parametrize(
    ("status", "kind"),
    [(400, "invalid_request_error"), (401, "authentication_error"), (404, "not_found_error"),
     (413, "request_too_large"), (429, "rate_limit_error"), (500, "api_error"), (502, "api_error")],
)  # fmt: skip
def test_anthropic_error_types(status: int, kind: str) -> None:
    body = {"error": {"message": "what went wrong", "type": "x", "param": None, "code": status}}
    assert messages.anthropic_error(status, body) == {
        "type": "error",
        "error": {"type": kind, "message": "what went wrong"},
    }


def test_bad_items_name_where() -> None:
    with pytest.raises(BadRequest) as bad:
        responses.chat_request({"model": "m", "input": ["hi"]})
    assert bad.value.param == "input[0]"
    with pytest.raises(BadRequest) as bad:
        messages.chat_request(
            {
                "model": "m",
                "max_tokens": 1,
                "messages": [{"role": "assistant", "content": [{"type": "tool_result"}]}],
            }
        )
    assert bad.value.param == "messages.0.content.0" and "'tool_result'" in str(bad.value)
