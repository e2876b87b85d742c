"""The web-platform-tests EventSource parsing vectors, as byte-level cases.

Source: web-platform-tests/wpt, directory ``eventsource/`` (``format-*.any.js`` and their
older ``format-*.htm``/``.js`` forms; the servers ``resources/message.py`` /
``message.php``, which send ``message + newline + "\\n"`` with ``newline`` defaulting to
``"\\n\\n"``; ``resources/last-event-id*.py``). Each case is the byte stream the wpt server
sends and the events a browser must dispatch. Every case is fed whole, one byte at a time,
and in random chunkings.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import SSEDecoder, SSEEvent


def served(message: str, newline: str = "\n\n") -> bytes:
    """What wpt's ``resources/message.py`` sends for ``message=...&newline=...``."""
    return (message + newline + "\n").encode("utf-8")


M = "message"

# (name, stream bytes, expected [(event, data, id)], expected retry)
CASES: list[tuple[str, bytes, list[tuple[str, str, str | None]], int | None]] = [
    # format-bom.any.js: one BOM is stripped; a second one is part of the field name.
    (
        "format-bom",
        served("\ufeffdata:1\n\n\ufeffdata:2\n\ndata:3"),
        [(M, "1", None), (M, "3", None)],
        None,
    ),
    # format-bom-2.any.js: a double BOM: the first is stripped, "\ufeffdata" is unknown.
    (
        "format-bom-2",
        served("\ufeff\ufeffdata:1\n\ndata:2\n\ndata:3"),
        [(M, "2", None), (M, "3", None)],
        None,
    ),
    # format-comments.any.js: comments with CR, LF, CRLF, NUL and long lines.
    (
        "format-comments",
        served(
            "data:1\r:\0\n:\r\ndata:2\n:"
            + "x" * 2048
            + "\rdata:3\n:data:fail\r:"
            + "x" * 2048
            + "\ndata:4\n",
            newline="",
        ),
        [(M, "1\n2\n3\n4", None)],
        None,
    ),
    # format-data-before-final-empty-line.any.js: the unterminated last event is dropped,
    # and its id was never dispatched.
    (
        "format-data-before-final-empty-line",
        b"retry:1000\ndata:test1\n\nid:test\ndata:test2",
        [(M, "test1", None)],
        1000,
    ),
    # format-field-data.any.js
    (
        "format-field-data",
        served("data:\n\ndata\ndata\n\ndata:test"),
        [(M, "", None), (M, "\n", None), (M, "test", None)],
        None,
    ),
    # format-field-event.any.js
    (
        "format-field-event",
        served("event:test\ndata:x\n\ndata:x"),
        [("test", "x", None), (M, "x", None)],
        None,
    ),
    # format-field-event-empty.any.js: "event: " sets an empty type, which is "message".
    ("format-field-event-empty", served("event: \ndata:data"), [(M, "data", None)], None),
    # format-field-id.any.js: resources/last-event-id.py on first connection.
    (
        "format-field-id",
        "id: …\nretry: 200\ndata: hello\n\n".encode(),
        [(M, "hello", "…")],
        200,
    ),
    # format-field-id-2.any.js: the same id on the following events.
    (
        "format-field-id-2",
        "id: …\nretry: 200\ndata: hello\n\ndata: …\n\ndata: …\n\n".encode(),
        [(M, "hello", "…"), (M, "…", "…"), (M, "…", "…")],
        200,
    ),
    # format-field-id-3.any.js (last-event-id2.py): the id persists, changes, resets.
    (
        "format-field-id-3 persists",
        b"id: 1\ndata: 1\n\ndata:2\n\n",
        [(M, "1", "1"), (M, "2", "1")],
        None,
    ),
    (
        "format-field-id-3 changes and persists",
        b"id: 1\ndata: 1\n\nid: 2\ndata:2\n\ndata:3\n\n",
        [(M, "1", "1"), (M, "2", "2"), (M, "3", "2")],
        None,
    ),
    (
        "format-field-id-3 resets",
        b"id: 1\ndata: 1\n\nid:\ndata:2\n\ndata:3\n\n",
        [(M, "1", "1"), (M, "2", ""), (M, "3", "")],
        None,
    ),
    # format-field-id-null.any.js: an id holding NUL is ignored.
    ("format-field-id-null", b"id: \0\0\nretry: 200\ndata: hello\n\n", [(M, "hello", None)], 200),
    # format-field-parsing.any.js: only the exact name "data" counts.
    (
        "format-field-parsing",
        served(
            "data:\0\ndata:  2\rData:1\ndata\0:2\ndata:1\r\0data:4\nda-ta:3\rdata_5\ndata:3\rdata:\r\n data:32\ndata:4\n",
            newline="",
        ),
        [(M, "\0\n 2\n1\n3\n\n4", None)],
        None,
    ),
    # format-field-retry.any.js: "02000" is decimal 2000.
    ("format-field-retry", served("retry:02000\ndata:x"), [(M, "x", None)], 2000),
    # format-field-retry-bogus.any.js: "1000x" is not all digits: 2000 stays.
    ("format-field-retry-bogus", served("retry:2000\nretry:1000x\ndata:x"), [(M, "x", None)], 2000),
    # format-field-retry-empty.any.js
    ("format-field-retry-empty", served("retry\ndata:test"), [(M, "test", None)], None),
    # format-field-unknown.any.js
    (
        "format-field-unknown",
        served("data:test\n data\ndata\nfoobar:xxx\njustsometext\n:thisisacommentyay\ndata:test"),
        [(M, "test\n\ntest", None)],
        None,
    ),
    # format-leading-space.any.js: only one space is removed; a tab stays. Also a CR.
    (
        "format-leading-space",
        served("data:\ttest\rdata: \ndata:test"),
        [(M, "\ttest\n\ntest", None)],
        None,
    ),
    # format-newlines.any.js
    (
        "format-newlines",
        served("data:test\r\ndata\ndata:test\r\n\r", newline=""),
        [(M, "test\n\ntest", None)],
        None,
    ),
    # format-null-character.any.js
    ("format-null-character", served("data:\0\n\n", newline=""), [(M, "\0", None)], None),
    # format-utf-8.any.js: always UTF-8, whatever the charset says.
    ("format-utf-8", served("data:ok…"), [(M, "ok…", None)], None),
    # event-data.any.js (resources/message2.py): lines and data parsing.
    (
        "event-data",
        b"data:msg\ndata:msg\n\n:\n\ndata\n\ndata:end\n\n",
        [(M, "msg\nmsg", None), (M, "", None), (M, "end", None)],
        None,
    ),
]


def run(chunks: list[bytes]) -> tuple[list[SSEEvent], int | None]:
    decoder = SSEDecoder()
    out: list[SSEEvent] = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    out.extend(decoder.close())
    return out, decoder.retry


def expected(events: list[tuple[str, str, str | None]]) -> list[SSEEvent]:
    return [SSEEvent(event, data, id) for event, data, id in events]


@pytest.mark.parametrize(("name", "stream", "events", "retry"), CASES, ids=[c[0] for c in CASES])
def test_whole(
    name: str, stream: bytes, events: list[tuple[str, str, str | None]], retry: int | None
) -> None:
    assert run([stream]) == (expected(events), retry)


@pytest.mark.parametrize(("name", "stream", "events", "retry"), CASES, ids=[c[0] for c in CASES])
def test_byte_at_a_time(
    name: str, stream: bytes, events: list[tuple[str, str, str | None]], retry: int | None
) -> None:
    assert run([stream[i : i + 1] for i in range(len(stream))]) == (expected(events), retry)


@given(case=st.sampled_from(CASES), cuts=st.lists(st.integers(min_value=0, max_value=5000)))
def test_random_chunkings(
    case: tuple[str, bytes, list[tuple[str, str, str | None]], int | None], cuts: list[int]
) -> None:
    _, stream, events, retry = case
    points = sorted({c % (len(stream) + 1) for c in cuts})
    pieces = [stream[a:b] for a, b in zip([0, *points], [*points, len(stream)], strict=True)]
    assert run(pieces) == (expected(events), retry)
