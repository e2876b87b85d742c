"""The decoder's blocks mode (bytes split at b"\\n\\n", one-line data events decoded
whole) against its lines mode alone: the same events, retry and last id, in every chunking."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from streamcall import SSEDecoder, SSEEvent
from streamcall.sse import decoder as decoder_module

LINES = [
    b"data: x",
    b"data:y",
    b"data:  two spaces",
    b"data",
    b"data: \xe4\xbd\xa0\xf0\x9f\x98\x80",
    b"data: bad \xe4\xbd \xff",
    b": comment",
    b"event: e",
    b"id: 7",
    b"id",
    b"retry: 50",
    b"retry: x",
    b"\xef\xbb\xbfdata: bom",
    b"",
]
streams = st.lists(
    st.tuples(st.sampled_from(LINES), st.sampled_from([b"\n", b"\n", b"\n", b"\r\n", b"\r"])),
    max_size=24,
).map(lambda pairs: b"".join(line + end for line, end in pairs))


Trace = list[tuple[list[SSEEvent], int | None, str | None]]


def run(stream: bytes, cuts: list[int], observe: bool = False) -> Trace:
    """What each feed returns (and, when observing, retry and the last id after it)."""
    points = sorted({c % (len(stream) + 1) for c in cuts})
    decoder = SSEDecoder()
    trace: Trace = []
    for a, b in zip([0, *points], [*points, len(stream)], strict=True):
        events = decoder.feed(stream[a:b])
        if not observe:
            trace.append((events, 0, ""))
        elif len(trace) % 2:  # either one, read first, must see the block's ended lines
            last_id = decoder.last_event_id
            trace.append((events, decoder.retry, last_id))
        else:
            trace.append((events, decoder.retry, decoder.last_event_id))
    trace.append((decoder.close(), decoder.retry, decoder.last_event_id))
    return trace


def lines_mode(stream: bytes, cuts: list[int], observe: bool = False) -> Trace:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(decoder_module, "_BLOCK_PATH_ENABLED", False)
        return run(stream, cuts, observe)


@settings(max_examples=max(300, settings().max_examples))
@example(b"data: x\n\n", [], b"")  # fed byte by byte: the blank line's LF alone
@example(b"data: x\n\n\n\ndata: y\n\n", [8, 9], b"")
@example(b"id: 7\nretry: 50\n", [], b"")  # fields of a block not ended yet
@example(b"data: a\r\n\r\ndata: b\n\ndata: c\r", [3, 12], b"\xef\xbb")
@given(
    st.one_of(streams, st.binary(max_size=200)),
    st.lists(st.integers(0, 10_000), max_size=12),
    st.sampled_from([b"", b"\xef\xbb\xbf", b"\xef\xbb"]),
)
def test_blocks_mode_equals_lines_mode(stream: bytes, cuts: list[int], start: bytes) -> None:
    stream = start + stream
    # Every event in the same feed, and the same retry and last id at the end ...
    assert run(stream, cuts) == lines_mode(stream, cuts)
    bytewise = list(range(len(stream)))
    assert run(stream, bytewise) == lines_mode(stream, bytewise)
    # ... and after every feed, for a caller who reads them mid-block.
    assert run(stream, cuts, observe=True) == lines_mode(stream, cuts, observe=True)


def test_blocks_mode_comes_back_after_a_cr() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r\n\r\n") == [SSEEvent(data="a")]
    assert decoder._pending is not None  # back in blocks mode at the block's start
    assert decoder.feed(b"data: b\n\ndata: c") == [SSEEvent(data="b")]
    assert decoder.feed(b"\r\r") == [SSEEvent(data="c")]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # Several one-line data blocks in one piece, an empty value among them.
        (b"data: a\n\ndata: \n\ndata:  b\n\ndata: c", ["a", "", " b"]),
        # One block of another kind sends the whole piece through the line reader.
        (b"data: a\n\nevent: e\ndata: b\n\ndata: c\n\n", ["a", "b", "c"]),
        (b"data: a\n\ndata: b\ndata: c\n\n", ["a", "b\nc"]),
        (b"data: a\n\n\n\ndata: b\n\n\n", ["a", "b"]),
        # An invalid byte in a later block: U+FFFD, as decoding with "replace" gives.
        (b"data: \xe4\xbd\xa0\n\ndata: x\xe4\xbd\n\ndata: \xff\n\n", ["你", "x\ufffd", "\ufffd"]),
    ],
)
def test_pieces_of_several_blocks(raw: bytes, expected: list[str]) -> None:
    for cuts in ([], [len(raw) - 1], [len(raw) - 2], [3, len(raw) - 1]):
        events = [e for evs, _, _ in run(raw, cuts) for e in evs]
        assert [e.data for e in events] == expected
        assert run(raw, cuts) == lines_mode(raw, cuts)


def test_blank_line_split_between_pieces() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\n") == []
    assert decoder.feed(b"\ndata: b\n") == [SSEEvent(data="a")]
    assert decoder.feed(b"\ndata: c") == [SSEEvent(data="b")]
    assert decoder.feed(b"\n\n") == [SSEEvent(data="c")]


def test_a_reused_buffer_is_not_held_by_reference() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: x\n\n") == [SSEEvent(data="x")]  # past the stream's start
    buffer = bytearray(b"data: ab")
    assert decoder.feed(buffer) == []  # type: ignore[arg-type]
    buffer[:] = b"cd\n\n"
    assert decoder.feed(buffer) == [SSEEvent(data="abcd")]  # type: ignore[arg-type]


def test_buffers_other_than_bytes() -> None:
    for kind in (bytearray, memoryview):
        decoder = SSEDecoder()
        out = decoder.feed(kind(b"data: a\n\nda"))  # type: ignore[arg-type]
        out += decoder.feed(kind(b"ta: b\n\n"))  # type: ignore[arg-type]
        assert out == [SSEEvent(data="a"), SSEEvent(data="b")]


def test_block_path_setting_is_pinned_by_measurement() -> None:
    # `python -m benchmarks sse` measured blocks mode faster than lines mode alone on the
    # 10,000-chunk stream in 1 KB, 64-byte and 7-byte pieces. Changing this needs a new
    # measurement.
    assert decoder_module._BLOCK_PATH_ENABLED is True
