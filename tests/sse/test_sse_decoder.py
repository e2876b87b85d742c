"""SSEDecoder and SSEEncoder: every rule of the WHATWG event-stream parser (HTML
§9.2.5–9.2.6), split at every awkward place."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from streamcall import SSEDecoder, SSEEncoder, SSEEvent


def feed_all(chunks: list[bytes]) -> list[SSEEvent]:
    decoder = SSEDecoder()
    out: list[SSEEvent] = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    return out + decoder.close()


def datas(chunks: list[bytes]) -> list[str]:
    return [event.data for event in feed_all(chunks)]


def bytewise(data: bytes) -> list[bytes]:
    return [data[i : i + 1] for i in range(len(data))]


def test_multibyte_character_split_across_chunks() -> None:
    raw = "data: 你好😀\n\n".encode()
    for cut in range(len(raw) + 1):
        assert datas([raw[:cut], raw[cut:]]) == ["你好😀"]
    assert datas(bytewise(raw)) == ["你好😀"]


def test_invalid_bytes_become_one_replacement_per_maximal_subpart() -> None:
    # WHATWG decode: U+FFFD per maximal invalid subsequence (e4 bd is one, ff one, fe one).
    raw = b"data: a\xe4\xbdb\xff\xfec\xed\xa0\x80\n\n"
    expected = ["a\ufffdb\ufffd\ufffdc\ufffd\ufffd\ufffd"]
    assert datas([raw]) == expected
    assert datas(bytewise(raw)) == expected


def test_invalid_bytes_never_raise() -> None:
    assert datas([b"\xc0\xaf\x80data: x\n\ndata: \xc0y\n\n"]) == ["\ufffdy"]


def test_bom_stripped_once_even_when_split() -> None:
    raw = b"\xef\xbb\xbfdata: a\n\n"
    for cut in range(4):
        assert datas([raw[:cut], raw[cut:]]) == ["a"]
    assert datas(bytewise(raw)) == ["a"]
    # Only at the start of the stream.
    assert datas([b"data: a\n\n\xef\xbb\xbfdata: b\n\n"]) == ["a"]


def test_line_endings_crlf_lf_cr() -> None:
    for eol in (b"\r\n", b"\n", b"\r"):
        raw = b"data: a" + eol + b"data: b" + eol + eol
        assert datas([raw]) == ["a\nb"]
        assert datas(bytewise(raw)) == ["a\nb"]


def test_crlf_split_across_chunks_is_one_line_ending() -> None:
    # If the LF after a chunk-final CR were taken as a second line end, the blank line
    # would dispatch after "a" and split the event in two.
    assert datas([b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]) == ["a\nb"]
    assert datas([b"data: a\r", b"\n", b"\r", b"\n"]) == ["a"]


def test_cr_then_lf_in_separate_chunks_with_empty_chunk_between() -> None:
    assert datas([b"data: a\r", b"", b"\n\r\n"]) == ["a"]


def test_cr_cr_is_two_line_endings() -> None:
    assert datas([b"data: a\r\r"]) == ["a"]
    assert datas([b"data: a\r", b"\r"]) == ["a"]


def test_other_unicode_line_breaks_are_not_line_endings() -> None:
    raw = "data: a\u2028b\x0bc\x1cd\x85e\n\n".encode()
    assert datas([raw]) == ["a\u2028b\x0bc\x1cd\x85e"]


def test_dispatch_at_blank_line_immediately() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\n") == []
    assert decoder.feed(b"\n") == [SSEEvent("message", "a", None)]


def test_comment_lines() -> None:
    assert datas([b": keep-alive\ndata: a\n:another\n\n"]) == ["a"]


def test_field_without_colon_has_empty_value() -> None:
    assert datas([b"data\ndata\n\n"]) == ["\n"]


def test_only_one_leading_space_removed() -> None:
    assert datas([b"data:  two\n\n", b"data:none\n\n"]) == [" two", "none"]


def test_field_names_are_case_sensitive() -> None:
    assert datas([b"Data: x\nDATA: y\ndata: z\n\n"]) == ["z"]
    assert feed_all([b"Event: e\ndata: z\n\n"])[0].event == "message"


def test_value_may_contain_colons() -> None:
    assert datas([b'data: {"a": "b:c"}\n\n']) == ['{"a": "b:c"}']


def test_event_type_resets_after_dispatch() -> None:
    events = feed_all([b"event: ping\ndata: 1\n\ndata: 2\n\n"])
    assert [(e.event, e.data) for e in events] == [("ping", "1"), ("message", "2")]


def test_id_persists_and_nul_is_ignored() -> None:
    events = feed_all([b"id: 7\ndata: a\n\ndata: b\n\nid: x\x00y\ndata: c\n\n"])
    assert [e.id for e in events] == ["7", "7", "7"]


def test_id_in_a_block_without_data_still_sets_last_id() -> None:
    events = feed_all([b"id: 3\n\ndata: a\n\n"])
    assert events == [SSEEvent("message", "a", "3")]


def test_retry_digits_only() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"retry: 1500\n\n")
    assert decoder.retry == 1500
    for bogus in (
        b"retry: 1.5\n",
        b"retry: -1\n",
        b"retry: 1e3\n",
        b"retry: \xd9\xa3\n",
        b"retry:\n",
    ):
        decoder.feed(bogus)
        assert decoder.retry == 1500
    decoder.feed(b"retry: " + b"9" * 5000 + b"\n")  # more digits than int() reads
    assert decoder.retry == 1500


def test_block_without_data_dispatches_nothing() -> None:
    assert feed_all([b"event: x\nid: 1\nretry: 5\n\n"]) == []


def test_unterminated_final_event_is_discarded() -> None:
    assert datas([b"data: a\n\ndata: b\n"]) == ["a"]
    assert datas([b"data: a\n\ndata: b"]) == ["a"]


def test_close_discards_held_bytes_and_allows_reuse() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: \xe4\xbd") == []
    assert decoder.close() == []
    assert decoder.feed(b"data: ok\n\n") == [SSEEvent("message", "ok", None)]


def test_done_marker_is_plain_data() -> None:
    assert datas([b"data: [DONE]\n\n"]) == ["[DONE]"]


def test_one_megabyte_event_in_64_byte_pieces() -> None:
    # Linear by construction (pieces kept in a list, only new bytes scanned); a quadratic
    # decoder would copy ~8 GB here. No timing assertion: the suite would just crawl.
    payload = ("x" * 1023 + "é") * 1024
    raw = b"data: " + payload.encode() + b"\n\n"
    pieces = [raw[i : i + 64] for i in range(0, len(raw), 64)]
    events = feed_all(pieces)
    assert len(events) == 1 and events[0].data == payload


@given(st.binary(max_size=300), st.lists(st.integers(0, 300), max_size=10))
def test_arbitrary_bytes_never_raise_and_chunking_never_matters(
    raw: bytes, cuts: list[int]
) -> None:
    points = sorted({c % (len(raw) + 1) for c in cuts})
    pieces = [raw[a:b] for a, b in zip([0, *points], [*points, len(raw)], strict=True)]
    assert feed_all(pieces) == feed_all([raw])


_field_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)


@given(
    st.lists(
        st.tuples(
            _field_text,
            st.none() | _field_text.filter(lambda s: "\n" not in s and "\r" not in s and s != ""),
            st.none()
            | _field_text.filter(lambda s: "\n" not in s and "\r" not in s and "\0" not in s),
        ),
        max_size=6,
    ),
    st.integers(1, 17),
)
def test_encoder_round_trips_through_decoder(
    events: list[tuple[str, str | None, str | None]], step: int
) -> None:
    encoder = SSEEncoder()
    raw = b"".join(encoder.encode(data, event=event, id=id) for data, event, id in events)
    raw = encoder.comment("keep\nalive") + raw + encoder.done()
    decoded = feed_all([raw[i : i + step] for i in range(0, len(raw), step)])
    expected_data = [data.replace("\r\n", "\n").replace("\r", "\n") for data, _, _ in events]
    assert [e.data for e in decoded] == [*expected_data, "[DONE]"]
    assert [e.event for e in decoded[:-1]] == [event or "message" for _, event, _ in events]
    last: str | None = None
    for (_, _, id), got in zip(events, decoded, strict=False):
        last = id if id is not None else last
        assert got.id == last


def test_encoder_rejects_unencodable_fields() -> None:
    encoder = SSEEncoder()
    for kwargs in ({"event": "a\nb"}, {"id": "a\rb"}, {"id": "a\0b"}, {"retry": -1}):
        try:
            encoder.encode("x", **kwargs)  # type: ignore[arg-type]
        except ValueError:
            continue
        raise AssertionError(kwargs)


def test_encoder_json_and_retry() -> None:
    encoder = SSEEncoder()
    raw = encoder.encode_json({"a": "你"}) + encoder.encode("y", retry=300)
    decoder = SSEDecoder()
    assert [e.data for e in decoder.feed(raw)] == ['{"a":"你"}', "y"]
    assert decoder.retry == 300
