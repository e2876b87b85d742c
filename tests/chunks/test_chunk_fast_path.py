"""The content-chunk fast path (head and tail memos, json's string scanner) against the
full path: whatever it accepts, it decodes as the full path does, in any order of chunks."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from streamcall import ChunkDelta, ChunkError, decode_chunk
from streamcall.chunks import decode as decode_module


def full(text: str) -> ChunkDelta | type[ChunkError]:
    try:
        return decode_module._full_decode(text)
    except ChunkError:
        return ChunkError


def shipped(text: str) -> ChunkDelta | type[ChunkError]:
    try:
        return decode_chunk(text)
    except ChunkError:
        return ChunkError


# Strings with escapes, lone surrogates (raw in a str, or escaped), controls and CJK.
tricky_text = st.text(
    st.sampled_from(["a", " ", "你", "😀", "\n", '"', "\\", "/", "\x00", "\ud800", "\udc00", "<"]),
    max_size=6,
)
meta_key = st.sampled_from(
    ["id", "object", "created", "model", "system_fingerprint", "service_tier", "ID", "x"]
)
meta_value = st.one_of(
    tricky_text, st.integers(-(2**60), 2**60), st.none(), st.booleans(), st.just(1.5)
)
field = st.sampled_from(["content", "reasoning_content", "reasoning", "CONTENT", "refusal"])


@st.composite
def chunk_text(draw: st.DrawFn) -> str:
    before = draw(st.lists(st.tuples(meta_key, meta_value), max_size=3))
    after = draw(st.lists(st.tuples(meta_key, meta_value), max_size=2))
    delta: list[tuple[str, Any]] = []
    if draw(st.booleans()):
        delta.append(("role", draw(st.sampled_from(["assistant", "user", None]))))
    delta.append((draw(field), draw(st.one_of(tricky_text, st.none(), st.integers(0, 3)))))
    if draw(st.booleans()):
        delta.append(("refusal", None))
    choice: list[tuple[str, Any]] = [("index", draw(st.sampled_from([0, 1, 1.5, None])))]
    choice.append(("delta", dict(delta)))
    if draw(st.booleans()):
        choice.append(("logprobs", None))
    if draw(st.booleans()):
        choice.append(("finish_reason", draw(st.sampled_from([None, "", "stop", "length", 4]))))
    top: list[tuple[str, Any]] = [*before, ("choices", [dict(choice)]), *after]
    if draw(st.booleans()):
        top.append(("usage", draw(st.sampled_from([None, {}, {"total_tokens": 3}]))))
    ascii_only = draw(st.booleans())
    separators = draw(st.sampled_from([(",", ":"), (", ", ": "), (",", ": ")]))
    parts = [
        json.dumps(k)
        + separators[1]
        + json.dumps(v, ensure_ascii=ascii_only, separators=separators)
        for k, v in top
    ]
    return "{" + separators[0].join(parts) + "}"


@given(st.lists(chunk_text(), min_size=1, max_size=6))
def test_fast_path_equals_full_path_in_any_order(texts: list[str]) -> None:
    # A run of chunks, so that the last head and tail kept from one chunk meet the next.
    for text in texts:
        expected = full(text)
        fast = decode_module._fast_decode(text)
        assert fast is None or fast == expected, text
        assert shipped(text) == expected, text


@given(chunk_text(), chunk_text(), st.integers(0, 400), st.text(max_size=3))
def test_mangled_chunks_after_a_good_one(good: str, text: str, at: int, junk: str) -> None:
    shipped(good)  # leaves its head and tail as the last ones, if it has this shape
    at %= len(text) + 1
    for mangled in (text[:at] + junk + text[at:], text[:at], text[at:]):
        assert shipped(mangled) == full(mangled), mangled


def test_memo_never_keeps_a_head_or_tail_of_another_shape() -> None:
    good = '{"id":"a","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}'
    assert decode_chunk(good).content == "x"
    # A head that the search finds but the head grammar rejects (a float index) ...
    odd = '{"id":"a","choices":[{"index":1.5,"delta":{"content":"x"}}]}'
    assert shipped(odd) is ChunkError
    # ... a tail the tail grammar rejects (usage as an object) ...
    with_usage = good[:-1] + ',"usage":{"total_tokens":2}}'
    assert decode_chunk(with_usage).usage is not None
    # ... and neither is then taken for the last one.
    assert decode_chunk(good) == decode_module._full_decode(good)
    assert shipped(odd) is ChunkError
    assert decode_chunk(with_usage) == decode_module._full_decode(with_usage)


def test_escape_elsewhere_fixes_a_raw_lone_surrogate_as_the_full_path_does() -> None:
    text = '{"id":"\\u0041","choices":[{"index":0,"delta":{"content":"a\ud800"}}]}'
    assert decode_chunk(text).content == "a\ufffd" == decode_module._full_decode(text).content
    raw_only = '{"id":"A","choices":[{"index":0,"delta":{"content":"a\ud800"}}]}'
    assert decode_chunk(raw_only).content == "a\ud800"


def test_reasoning_chunks_take_the_fast_path() -> None:
    for name in ("reasoning_content", "reasoning"):
        text = (
            '{"id":"c","choices":[{"index":0,"delta":{"' + name + '":"r"},"finish_reason":null}]}'
        )
        fast = decode_module._fast_decode(text)
        assert fast is not None
        assert fast == decode_module._full_decode(text)
        assert fast.reasoning == "r"
        assert fast.content == ""
