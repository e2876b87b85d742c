"""Byte layer: a Server-Sent Events decoder (WHATWG HTML §9.2.5–9.2.6), sans-IO.

Grammar, per line (a line ends at CRLF, LF or CR, and at nothing else):

    ""              blank line: dispatch the event being built
    ":" anything    comment
    NAME ":" VALUE  field; one leading space is removed from VALUE
    NAME            field with an empty value

Fields: ``data`` appends VALUE and LF; ``event`` sets the type; ``id`` sets the last event
ID unless VALUE holds NUL; ``retry`` sets the reconnection time when VALUE is all ASCII
digits. Names are case-sensitive; any other name is ignored. ``data: [DONE]`` is data like
any other; the consumer interprets it.

Two modes, one state machine:

- **Blocks** (bytes; the mode a stream starts in, after its BOM). An LLM stream is LF-only
  and almost every event is one ``data: ...`` line and a blank line. While no CR has been
  seen and the decoder stands at the start of a block, the bytes since that start are held
  as they came (``_pending``). A piece with no LF is only held. A piece that holds the
  blank line's ``\n\n`` (or its second LF, the first ending the held bytes) completes
  blocks: the held bytes and the piece are joined once, and everything before the last
  ``\n\n`` is complete. When that span reads ``data: V1\n\ndata: V2 ...`` with no other
  LF, each value is decoded and dispatched without reading lines; anything else (another
  field, a comment, a second line, an invalid UTF-8 byte) sends the span's blocks through
  the line reader below, which gives the same events. Splitting bytes at ASCII ``\n\n``
  and decoding each block alone gives the same text as decoding the whole stream: an ASCII
  byte always ends an invalid UTF-8 sequence.
- **Lines** (text). A CR switches to this mode: the held bytes and the piece are decoded
  and read line by line, as WHATWG writes it. The decoder returns to blocks once a piece
  leaves it at a block's start with nothing held.

State, all of it here:
    _head        bytes seen before the stream's first three bytes are known: one BOM at
                 the start is stripped, also when it arrives cut in pieces; None after
    _pending     blocks mode: the bytes of the block not yet complete; None in lines mode.
                 Reading ``retry`` or ``last_event_id`` moves them to lines mode first,
                 so that the fields of a block's ended lines are seen as they end.
    _utf8_rest   lines mode: the bytes of a character cut at the end of a chunk
    _line        lines mode: pieces of the line not yet ended, joined once when it ends, so
                 that one 1 MB line fed in 64-byte pieces costs O(bytes)
    _after_cr    lines mode: the last chunk ended in CR: that CR already ended its line; an
                 LF opening the next chunk belongs to it and is swallowed
    _data, _type the event being built; _last_id persists across events
Only the new bytes of each chunk are scanned, by C (``int in bytes``, ``bytes.rfind``,
``bytes.split``, ``re.split``, ``str.split``). An event is dispatched the moment its blank
line is complete; an event still open at ``close`` is discarded, as WHATWG says.

Blocks mode reads a completing piece with as few C calls as it can: each piece is tested
for LF and CR with ``10 in data`` (memchr), the span is cut at its last ``\n\n`` with one
``rfind`` and split at ``\n\ndata: `` with one ``split`` (one block needs neither), and
each value is decoded strictly, any invalid byte sending the span to the line reader. The
alternatives measured (docs/performance.md) were slower: decoding the whole span once
widens every value to the span's widest character kind.

``SSEEvent`` is a NamedTuple rather than a frozen dataclass: it is built once per event on
the hot path, where the dataclass costs several times as much to construct. It is just as
immutable and slotted.
"""

from __future__ import annotations

import contextlib
import re
from codecs import utf_8_decode as _utf8_decode
from typing import NamedTuple

__all__ = ["SSEDecoder", "SSEEvent"]


class SSEEvent(NamedTuple):
    """One dispatched event.

    ``id`` is the stream's last event ID at dispatch: it persists across events, and is
    ``None`` only when no ``id`` field has been seen yet.
    """

    event: str = "message"
    data: str = ""
    id: str | None = None


_new_event = tuple.__new__
_split_blocks = re.compile(b"\n\n").split
_BOM = b"\xef\xbb\xbf"


class SSEDecoder:
    """Feed bytes, get the events they complete. Never raises on any input."""

    __slots__ = (
        "_after_cr",
        "_data",
        "_head",
        "_last_id",
        "_line",
        "_pending",
        "_retry",
        "_type",
        "_utf8_rest",
    )

    def __init__(self) -> None:
        self._head: bytes | None = b""
        self._pending: list[bytes] | None = None
        self._utf8_rest = b""
        self._line: list[str] = []
        self._after_cr = False
        self._data: list[str] = []
        self._type = ""
        self._last_id: str | None = None
        self._retry: int | None = None

    @property
    def last_event_id(self) -> str | None:
        """The last event ID an ``id`` field has set so far (``None`` if never set)."""
        self._read_held_lines()
        return self._last_id

    @property
    def retry(self) -> int | None:
        """The reconnection time the last valid ``retry`` field set (``None`` if never)."""
        self._read_held_lines()
        return self._retry

    @retry.setter
    def retry(self, value: int | None) -> None:
        self._retry = value

    def _read_held_lines(self) -> None:
        # Blocks mode holds a block's ended lines unread until its blank line; an id or
        # retry among them takes effect when its line ends, so before either is read, the
        # held bytes go to lines mode (once: the decoder stays there until a block's
        # start). They hold no blank line except maybe a leading one, which ends an empty
        # block: no event is lost.
        pending = self._pending
        if pending:
            self._pending = None
            self._feed_other(b"".join(pending))

    def feed(self, data: bytes) -> list[SSEEvent]:
        """Decode ``data`` and return every event whose blank line it completes."""
        pending = self._pending
        if pending is not None:
            if type(data) is not bytes:
                data = bytes(data)  # held below: never a buffer the caller may reuse
            # ``10 in data`` is memchr, a quarter of the cost of ``data.find(b"\n")``.
            if 13 not in data:
                if 10 not in data:
                    if data:
                        pending.append(data)  # the common piece: no event ends here
                    return []
                end = data.rfind(b"\n\n")
                if pending:
                    if end < 0 and (data[0] != 10 or pending[-1][-1] != 10):
                        pending.append(data)  # no blank line ends here
                        return []
                    size = len(data)
                    pending.append(data)
                    data = b"".join(pending)
                    pending.clear()
                    start = len(data) - size  # where the piece starts in the joined bytes
                    end = end + start if end >= 0 else start - 1
                elif end < 0:
                    pending.append(data)
                    return []
                # data[end : end + 2] is the last b"\n\n": the blocks before it are complete.
                if data[:6] == b"data: ":
                    span = data[6:end]
                    try:  # strict decode, cheaper than "replace"; invalid bytes read as lines
                        if 10 not in span:  # one block: ``data: VALUE``
                            value = span.decode()
                            tail = data[end + 2 :]
                            if tail:
                                pending.append(tail)
                            return [_new_event(SSEEvent, ("message", value, self._last_id))]
                        last_id = self._last_id
                        # Not a comprehension: its closure would cost every call of feed a cell.
                        events: list[SSEEvent] = []
                        append = events.append
                        # With no LF in any part, the parts are exactly the blocks' values.
                        for part in span.split(b"\n\ndata: "):
                            if 10 in part:
                                break  # another kind of block: read lines
                            append(_new_event(SSEEvent, ("message", part.decode(), last_id)))
                        else:
                            tail = data[end + 2 :]
                            if tail:
                                pending.append(tail)
                            return events
                    except UnicodeDecodeError:
                        pass
                blocks = _split_blocks(data)
                tail = blocks.pop()
                if tail:
                    pending.append(tail)
                return self._read_blocks(blocks)
        return self._feed_other(data)

    def close(self) -> list[SSEEvent]:
        """End of stream. An event without its closing blank line is discarded."""
        self._read_held_lines()  # its ended id and retry lines have taken effect
        self._head = b""
        self._pending = None
        self._utf8_rest = b""
        self._line.clear()
        self._data.clear()
        self._type = ""
        self._after_cr = False
        return []

    def _read_blocks(self, blocks: list[bytes]) -> list[SSEEvent]:
        # Each block was followed by b"\n\n": its last line's end and a blank line.
        out: list[SSEEvent] = []
        for block in blocks:
            lines = block.decode("utf-8", "replace").split("\n")
            lines.append("")
            out += self._process_lines(lines)
        return out

    def _feed_other(self, data: bytes) -> list[SSEEvent]:
        if type(data) is not bytes:
            data = bytes(data)
        if self._head is not None:
            # The stream's first bytes: strip one BOM, also when it arrives cut in pieces.
            head = self._head + data
            if len(head) < 3 and _BOM.startswith(head):
                self._head = head
                return []
            self._head = None
            if _BLOCK_PATH_ENABLED:
                self._pending = []
            return self.feed(head[3:] if head.startswith(_BOM) else head)
        if self._pending is not None:
            # A CR: from here the bytes held since the block started are read as lines.
            self._pending.append(data)
            data = b"".join(self._pending)
            self._pending = None
        if self._utf8_rest:
            data = self._utf8_rest + data
        text, used = _utf8_decode(data, "replace", False)
        self._utf8_rest = data[used:]  # a character cut at the end of the chunk
        if not text:
            return []
        if not self._after_cr and "\n" not in text and "\r" not in text:
            self._line.append(text)
            return []
        return self._feed_text(text)

    def _feed_text(self, text: str) -> list[SSEEvent]:
        if self._after_cr:
            self._after_cr = False
            if text[0] == "\n":
                text = text[1:]
                if not text:
                    return []
        if "\r" in text:
            # A CR at the very end already ends its line; remember it so that an LF at the
            # start of the next chunk is not taken for a second (blank) line.
            self._after_cr = text[-1] == "\r"
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        tail = lines.pop()
        if not lines:
            self._line.append(tail)
            return []
        pending = self._line
        if pending:
            pending.append(lines[0])
            lines[0] = "".join(pending)
            pending.clear()
        if tail:
            pending.append(tail)
        out = self._process_lines(lines)
        if not (tail or self._after_cr or self._data or self._type or self._utf8_rest):
            # At a block's start again, nothing held: back to blocks.
            self._pending = [] if _BLOCK_PATH_ENABLED else None
        return out

    def _process_lines(self, lines: list[str]) -> list[SSEEvent]:
        out: list[SSEEvent] = []
        data = self._data
        append = data.append
        for line in lines:
            if line.startswith("data:"):
                # The hot case, inlined: almost every line of an LLM stream is data.
                append(line[6:] if line.startswith(" ", 5) else line[5:])
            elif not line:
                if data:
                    text = data[0] if len(data) == 1 else "\n".join(data)
                    out.append(_new_event(SSEEvent, (self._type or "message", text, self._last_id)))
                    data.clear()
                self._type = ""
            elif line[0] != ":":
                self._field(line)
        return out

    def _field(self, line: str) -> None:
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._type = value
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            # More digits than int() will read is no sane delay either: keep the last one.
            with contextlib.suppress(ValueError):
                self._retry = int(value)


# Blocks mode, measured by ``python -m benchmarks sse`` against lines mode alone on the same
# stream; tests/sse pin the value, so that a change of mind needs a new measurement.
_BLOCK_PATH_ENABLED = True
