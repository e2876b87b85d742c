"""StreamParser and usage: the whole usage object of raw SSE bytes reaches ``UsageEvent`` and
``message.usage``, in any chunking; a malformed usage chunk is reported, never raised."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from streamcall import Finish, StreamError, Text, Usage, UsageEvent
from streamcall.events import Event
from streamcall.stream import StreamParser
from usage_fixtures import OPENAI_USAGE

USAGE: dict[str, Any] = {**OPENAI_USAGE, "prompt_cache_hit_tokens": 1920, "cost": 0.00042}


def sse(obj: Any) -> bytes:
    return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n".encode()


def chunk(finish_reason: str | None = None, usage: Any = None, **delta: Any) -> bytes:
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }
    if usage is not None:
        body["usage"] = usage
    return sse(body)


def usage_chunk(usage: Any) -> bytes:
    return sse(
        {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [], "usage": usage}
    )


STREAM = b"".join(
    [
        chunk(role="assistant", content=""),
        chunk(content="Checking. <tool_call>\n"),
        chunk(content='{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'),
        chunk(finish_reason="stop"),
        usage_chunk(USAGE),
        b"data: [DONE]\n\n",
    ]
)


def run(
    data: bytes, cuts: list[int], fmt: str | None = "hermes"
) -> tuple[StreamParser, list[Event]]:
    parser = StreamParser(fmt)
    events: list[Event] = []
    start = 0
    for cut in [*sorted(cuts), len(data)]:
        events += parser.feed(data[start:cut])
        start = cut
    events += parser.finish()
    return parser, events


def test_message_usage_has_the_details_and_the_provider_members() -> None:
    parser, events = run(STREAM, [])
    usage = parser.message.usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (2006, 640, 2646)
    assert (usage.cached_tokens, usage.reasoning_tokens) == (1920, 512)
    assert usage.prompt_tokens_details == USAGE["prompt_tokens_details"]
    assert usage.completion_tokens_details == USAGE["completion_tokens_details"]
    assert usage.extra == {"prompt_cache_hit_tokens": 1920, "cost": 0.00042}
    assert usage.to_dict() == USAGE
    assert parser.message.tool_calls[0].name == "get_weather"
    # the event carries the same, field for field
    [event] = [e for e in events if isinstance(e, UsageEvent)]
    assert event == UsageEvent(
        2006,
        640,
        2646,
        1920,
        512,
        USAGE["prompt_tokens_details"],
        USAGE["completion_tokens_details"],
        {"prompt_cache_hit_tokens": 1920, "cost": 0.00042},
    )
    assert event.to_dict() == USAGE
    assert parser.rejected == 0


@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=12))
def test_any_chunking_of_the_bytes_gives_the_same_usage(cuts: list[int]) -> None:
    whole_parser, whole_events = run(STREAM, [])
    parser, events = run(STREAM, cuts)
    assert parser.message == whole_parser.message
    assert [e for e in events if isinstance(e, UsageEvent)] == [
        e for e in whole_events if isinstance(e, UsageEvent)
    ]


def test_every_byte_alone() -> None:
    parser, _ = run(STREAM, list(range(len(STREAM))))
    assert parser.message.usage is not None
    assert parser.message.usage.to_dict() == USAGE


def test_usage_on_the_finish_chunk_and_on_every_chunk() -> None:
    """llama.cpp puts usage on the finish chunk; vLLM's continuous usage stats on every one:
    each chunk's usage is its own event, and the message keeps the last."""
    running = [
        {"prompt_tokens": 10, "completion_tokens": n, "total_tokens": 10 + n,
         "prompt_tokens_details": {"cached_tokens": 8}}
        for n in (1, 2, 3)
    ]  # fmt: skip
    data = b"".join(
        [
            chunk(content="a", usage=running[0]),
            chunk(content="b", usage=running[1]),
            chunk(finish_reason="stop", usage=running[2]),
            b"data: [DONE]\n\n",
        ]
    )
    parser, events = run(data, [], fmt=None)
    assert [e.to_dict() for e in events if isinstance(e, UsageEvent)] == running
    assert parser.message.usage is not None and parser.message.usage.to_dict() == running[2]
    assert "".join(e.text for e in events if isinstance(e, Text)) == "ab"


def test_malformed_usage_is_a_stream_error_and_the_last_good_usage_stays() -> None:
    good = {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}
    bad_count = {**good, "total_tokens": 4, "prompt_tokens_details": {"cached_tokens": "7"}}
    bad_details = {**good, "completion_tokens_details": ["reasoning_tokens", 5]}
    data = b"".join(
        [
            chunk(content="hi"),
            usage_chunk(good),
            usage_chunk(bad_count),
            usage_chunk(bad_details),
            usage_chunk({"prompt_tokens_details": {"cached_tokens": 9}}),  # heartbeat
            chunk(finish_reason="stop"),
            b"data: [DONE]\n\n",
        ]
    )
    for step in (len(data), 5, 1):
        parser, events = run(data, list(range(step, len(data), step)), fmt=None)
        errors = [e for e in events if isinstance(e, StreamError)]
        assert [e.message for e in errors] == [
            "usage.prompt_tokens_details.cached_tokens: expected an integer, got string '7'",
            "usage.completion_tokens_details: expected an object, got array "
            "['reasoning_tokens', 5]",
        ]
        assert [e.where for e in errors] == ["event 3", "event 4"]
        assert json.loads(errors[0].data)["usage"] == bad_count  # nothing lost
        assert parser.rejected == 2
        assert parser.message.usage == Usage(1, 2, 3)
        assert [e for e in events if isinstance(e, UsageEvent)] == [UsageEvent(1, 2, 3)]
        assert events[-1] == Finish("stop")
        assert parser.message.content == "hi" and parser.message.finish_reason == "stop"
