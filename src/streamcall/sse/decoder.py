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

State, all of it here:
    _utf8        incremental UTF-8 decoder: holds back the bytes of a character cut at the
                 end of a chunk, turns invalid bytes into U+FFFD and strips one BOM (also
                 when the BOM itself is cut)
    _line        pieces of the line not yet ended, kept as a list and joined once when the
                 line ends, so that one 1 MB line fed in 64-byte pieces costs O(bytes)
    _after_cr    the last chunk ended in CR: that CR already ended its line; an LF opening
                 the next chunk belongs to it and is swallowed
    _data, _type the event being built; _last_id persists across events
Only the new text of each chunk is scanned, by C (``str.replace``/``str.split``).
An event is dispatched the moment its blank line is complete; an event still open at
``close`` is discarded, as WHATWG says.

``SSEEvent`` is a NamedTuple rather than a frozen dataclass: it is built once per event on
the hot path, and a frozen dataclass costs about three times as much to construct. It is
just as immutable and slotted.
"""

from __future__ import annotations

import codecs
import contextlib
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


class SSEDecoder:
    """Feed bytes, get the events they complete. Never raises on any input."""

    __slots__ = ("_after_cr", "_data", "_last_id", "_line", "_type", "_utf8", "retry")

    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
        self._line: list[str] = []
        self._after_cr = False
        self._data: list[str] = []
        self._type = ""
        self._last_id: str | None = None
        self.retry: int | None = None

    @property
    def last_event_id(self) -> str | None:
        """The last event ID an ``id`` field has set so far (``None`` if never set)."""
        return self._last_id

    def feed(self, data: bytes) -> list[SSEEvent]:
        """Decode ``data`` and return every event whose blank line it completes."""
        text = self._utf8.decode(data)
        if not text:
            return []
        if not self._after_cr and "\n" not in text and "\r" not in text:
            self._line.append(text)  # the common 64-byte piece: no line ends here
            return []
        return self._feed_text(text)

    def close(self) -> list[SSEEvent]:
        """End of stream. An event without its closing blank line is discarded."""
        self._utf8.decode(b"", True)
        self._utf8.reset()
        self._line.clear()
        self._data.clear()
        self._type = ""
        self._after_cr = False
        return []

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
        return self._process_lines(lines)

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
                self.retry = int(value)
