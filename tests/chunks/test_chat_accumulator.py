"""ChatAccumulator: provider quirks, and a recorded stream parsed end to end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from streamcall import (
    ChatAccumulator,
    ChunkDelta,
    Message,
    MessageToolCall,
    SSEDecoder,
    Usage,
    decode_chunk,
)

FIXTURES = Path(__file__).parent.parent / "fixtures"


def chunk(delta: dict[str, Any] | None = None, **choice: Any) -> str:
    body: dict[str, Any] = {"choices": [{"index": 0, "delta": delta or {}, **choice}]}
    return json.dumps(body)


def accumulate(chunks: list[str]) -> Message:
    acc = ChatAccumulator()
    for text in chunks:
        acc.add(decode_chunk(text))
    return acc.message


def call(index: int | None = None, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {} if index is None else {"index": index}
    function = {k: fields.pop(k) for k in ("name", "arguments") if k in fields}
    out.update(fields)
    if function:
        out["function"] = function
    return out


def test_content_reasoning_finish() -> None:
    message = accumulate(
        [
            chunk({"role": "assistant", "reasoning_content": "think "}),
            chunk({"reasoning": "more"}),
            chunk({"content": "Hel"}),
            chunk({"content": [{"type": "text", "text": "lo"}]}),
            chunk({}, finish_reason="stop"),
        ]
    )
    assert (message.content, message.reasoning, message.finish_reason) == (
        "Hello",
        "think more",
        "stop",
    )


def test_repeated_id_name_role_are_not_concatenated() -> None:
    message = accumulate(
        [
            chunk(
                {
                    "role": "assistant",
                    "tool_calls": [call(0, id="c1", type="function", name="f", arguments="")],
                }
            ),
            chunk(
                {
                    "role": "assistant",
                    "tool_calls": [call(0, id="c1", type="function", name="f", arguments='{"a"')],
                }
            ),
            chunk(
                {
                    "role": "assistant",
                    "tool_calls": [call(0, id="c1", type="function", name="f", arguments=":1}")],
                }
            ),
        ]
    )
    assert message.role == "assistant"
    assert message.tool_calls == (MessageToolCall(0, "c1", "f", '{"a":1}'),)


def test_name_sent_in_pieces_still_joins() -> None:
    message = accumulate(
        [
            chunk({"tool_calls": [call(0, id="c", name="get_")]}),
            chunk({"tool_calls": [call(0, name="weather")]}),
        ]
    )
    assert message.tool_calls[0].name == "get_weather"


def test_missing_index() -> None:
    message = accumulate(
        [
            chunk({"tool_calls": [call(id="a", name="f", arguments='{"x":')]}),
            chunk({"tool_calls": [call(arguments="1}")]}),
            chunk({"tool_calls": [call(id="b", name="g", arguments="{}")]}),
            chunk({"tool_calls": [call(id="a")]}),
        ]
    )
    assert message.tool_calls == (
        MessageToolCall(0, "a", "f", '{"x":1}'),
        MessageToolCall(1, "b", "g", "{}"),
    )


def test_whole_calls_without_index_in_one_chunk() -> None:
    message = accumulate(
        [
            chunk(
                {
                    "tool_calls": [
                        call(id="a", name="f", arguments="{}"),
                        call(id="b", name="g", arguments='{"y":2}'),
                    ]
                }
            )
        ]
    )
    assert [(c.index, c.id, c.name, c.arguments) for c in message.tool_calls] == [
        (0, "a", "f", "{}"),
        (1, "b", "g", '{"y":2}'),
    ]


def test_first_index_of_one() -> None:
    message = accumulate(
        [
            chunk({"tool_calls": [call(1, id="c1", name="f", arguments='{"q":')]}),
            chunk({"tool_calls": [call(1, arguments='"x"}')]}),
            chunk({"tool_calls": [call(2, id="c2", name="g", arguments="{}")]}),
        ]
    )
    assert message.tool_calls == (
        MessageToolCall(0, "c1", "f", '{"q":"x"}'),
        MessageToolCall(1, "c2", "g", "{}"),
    )


def test_usage_then_chunks_without_usage() -> None:
    acc = ChatAccumulator()
    acc.add(
        decode_chunk(
            '{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}'
        )
    )
    acc.add(decode_chunk(chunk({"content": "late"})))
    acc.add(decode_chunk('{"usage":{"prompt_cache_hit_tokens":5}}'))  # heartbeat
    acc.add(decode_chunk('{"choices":[{"delta":{}}],"usage":null}'))
    assert acc.message.usage == Usage(1, 2, 3)
    assert acc.message.content == "late"


def test_several_choices_are_kept_apart() -> None:
    acc = ChatAccumulator()
    acc.add(
        decode_chunk(
            '{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}}]}'
        )
    )
    acc.add(
        decode_chunk('{"choices":[{"index":1,"delta":{"content":"c"},"finish_reason":"stop"}]}')
    )
    assert acc.choices == [0, 1]
    assert acc.message.content == "a"
    assert (acc.message_for(1).content, acc.message_for(1).finish_reason) == ("bc", "stop")


def test_empty_accumulator() -> None:
    assert ChatAccumulator().message == Message()
    acc = ChatAccumulator()
    acc.add(ChunkDelta())
    assert acc.message == Message()


def replay(raw: bytes, step: int) -> Message:
    decoder = SSEDecoder()
    acc = ChatAccumulator()
    done = False
    for i in range(0, len(raw), step):
        for event in decoder.feed(raw[i : i + step]):
            assert not done, "nothing comes after [DONE]"
            if event.data == "[DONE]":
                done = True
                continue
            acc.add(decode_chunk(event.data))
    decoder.close()
    assert done
    return acc.message


def test_recorded_stream_end_to_end() -> None:
    raw = (FIXTURES / "openai_tool_calls_stream.sse").read_bytes()
    expected = Message(
        content="我来查一下东京和巴黎的天气 🌤️。",
        reasoning="",
        tool_calls=(
            MessageToolCall(0, "call_Tq8e2fX1", "get_weather", '{"city": "东京", "unit": "c"}'),
            MessageToolCall(1, "call_Zp3m9LkQ", "get_weather", '{"city": "Paris", "unit": "c"}'),
        ),
        finish_reason="tool_calls",
        usage=Usage(
            82,
            57,
            139,
            prompt_tokens_details={"cached_tokens": 0, "audio_tokens": 0},
            completion_tokens_details={
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        ),
    )
    for step in (len(raw), 1024, 64, 7, 1):
        assert replay(raw, step) == expected
    for tool_call in expected.tool_calls:
        json.loads(tool_call.arguments)
