"""Fuzzing: whatever comes in, decode_chunk gives a ChunkDelta or raises ChunkError, and
the fast path (when on) agrees with the full path on every chunk it accepts."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from streamcall import ChunkDelta, ChunkError, SSEDecoder, decode_chunk
from streamcall.chunks import decode as decode_module


def outcome(data: str | bytes) -> ChunkDelta | ChunkError:
    try:
        result = decode_chunk(data)
    except ChunkError as error:
        return error
    assert isinstance(result, ChunkDelta)
    return result


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
KEYS = st.sampled_from(
    [
        "choices",
        "delta",
        "content",
        "CONTENT",
        "reasoning_content",
        "reasoning",
        "usage",
        "prompt_tokens",
        "total_tokens",
        "finish_reason",
        "index",
        "tool_calls",
        "function",
        "name",
        "arguments",
        "id",
        "text",
        "type",
        "role",
        "prompt_tokens_details",
    ]
)
chunk_like = st.recursive(
    json_values,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=20,
)


@given(st.binary(max_size=200))
def test_arbitrary_bytes(raw: bytes) -> None:
    outcome(raw)


@given(st.text(max_size=200))
def test_arbitrary_text(text: str) -> None:
    outcome(text)


@given(chunk_like)
def test_arbitrary_json(value: Any) -> None:
    text = json.dumps(value)
    outcome(text)
    outcome(text.encode("utf-8", "surrogatepass"))


@given(chunk_like, st.integers(0, 400), st.binary(max_size=3))
def test_mangled_json(value: Any, at: int, junk: bytes) -> None:
    raw = json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    at %= len(raw) + 1
    outcome(raw[:at] + junk + raw[at:])
    outcome(raw[:at])


@given(st.binary(max_size=300))
def test_sse_then_chunk_never_raises_anything_else(raw: bytes) -> None:
    decoder = SSEDecoder()
    for event in [*decoder.feed(raw), *decoder.feed(b"\n\n"), *decoder.close()]:
        outcome(event.data)


# --- the fast path agrees with the full path ------------------------------------------

content_text = st.text(max_size=20)
metadata = st.fixed_dictionaries(
    {},
    optional={
        "id": st.text(max_size=5),
        "object": st.just("chat.completion.chunk"),
        "created": st.integers(0, 2**40),
        "model": st.text(max_size=5),
    },
)


@given(
    metadata,
    content_text,
    st.booleans(),
    st.sampled_from([None, "", "stop", "length"]),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_fast_path_agrees_with_full_path(
    meta: dict[str, Any],
    text: str,
    role: bool,
    reason: str | None,
    ascii_only: bool,
    spaced: bool,
    logprobs: bool,
) -> None:
    delta: dict[str, Any] = {"role": "assistant"} if role else {}
    delta["content"] = text
    choice: dict[str, Any] = {"index": 0, "delta": delta}
    if logprobs:
        choice["logprobs"] = None
    choice["finish_reason"] = reason
    chunk = {**meta, "choices": [choice]}
    separators = (", ", ": ") if spaced else (",", ":")
    raw = json.dumps(chunk, ensure_ascii=ascii_only, separators=separators)
    full = decode_module._full_decode(raw)
    fast = decode_module._fast_decode(raw)
    assert fast is None or fast == full
    assert decode_chunk(raw) == full


def test_fast_path_takes_the_common_shapes() -> None:
    for raw in (
        '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hi"},"logprobs":null,"finish_reason":null}]}',
        '{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":"\\u4f60"},"finish_reason":"stop"}]}',
    ):
        assert decode_module._fast_decode(raw) == decode_module._full_decode(raw)


def test_fast_path_leaves_the_rest_to_the_full_path() -> None:
    for raw in (
        '{"choices":[{"index":0,"delta":{"CONTENT":"hi"}}]}',
        '{"choices":[{"index":0,"delta":{"content":"hi"}}],"choices":[{"delta":{}}]}',
        '{"choices":[{"index":0,"delta":{"content":"x"}}],"usage":{}}',
        '{"choices":[{"index":0,"delta":{"content":"a\\q"}}]}',
    ):
        assert decode_module._fast_decode(raw) is None


def test_fast_path_setting_is_pinned_by_measurement() -> None:
    # `python -m benchmarks sse` measured the fast path (memoised head and tail, json's
    # string scanner) at about 1/9 of the full path per content chunk (see benchmarks/sse.py's
    # report). Changing this needs a new measurement.
    assert decode_module._FAST_PATH_ENABLED is True
