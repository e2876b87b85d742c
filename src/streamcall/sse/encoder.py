"""Byte layer, server side: encode Server-Sent Events.

Output grammar (what ``SSEDecoder`` reads back unchanged):

    [":" COMMENT LF]  ["event: " TYPE LF]  ["id: " ID LF]  ["retry: " MS LF]
    ("data: " LINE LF)+  LF

A value that holds line breaks is split into one ``data:`` line per line; CR, LF and CRLF
all count, as they do for the decoder. ``event`` and ``id`` cannot hold a line break (and
``id`` no NUL), since no encoding could carry it: those raise ``ValueError``.
The encoder holds no state; it is a class so that servers can pass one around.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["DONE", "SSEEncoder"]

DONE = b"data: [DONE]\n\n"
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class SSEEncoder:
    """Turn values into the bytes of ``text/event-stream``."""

    __slots__ = ()

    def encode(
        self,
        data: str,
        *,
        event: str | None = None,
        id: str | None = None,
        retry: int | None = None,
    ) -> bytes:
        """One event. ``SSEDecoder`` gives back ``data``, ``event`` and ``id`` exactly."""
        parts: list[str] = []
        if event is not None:
            _check_single_line("event", event)
            parts.append(f"event: {event}\n")
        if id is not None:
            _check_single_line("id", id)
            if "\0" in id:
                raise ValueError("SSE id: a NUL makes the decoder ignore the id")
            parts.append(f"id: {id}\n")
        if retry is not None:
            if retry < 0:
                raise ValueError(f"SSE retry: must be a non-negative integer, got {retry}")
            parts.append(f"retry: {retry}\n")
        if "\n" in data or "\r" in data:
            parts.extend(f"data: {line}\n" for line in _LINE_BREAK.split(data))
        else:
            parts.append(f"data: {data}\n")
        parts.append("\n")
        return "".join(parts).encode("utf-8", "surrogatepass")

    def encode_json(self, value: Any, *, event: str | None = None, id: str | None = None) -> bytes:
        """One event whose data is ``value`` as compact JSON (non-ASCII kept as UTF-8)."""
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        return self.encode(text, event=event, id=id)

    def comment(self, text: str = "") -> bytes:
        """A comment line, for keep-alives; the decoder skips it."""
        return "".join(f":{line}\n" for line in _LINE_BREAK.split(text)).encode()

    def done(self) -> bytes:
        """OpenAI's end-of-stream marker, ``data: [DONE]``."""
        return DONE


def _check_single_line(field: str, value: str) -> None:
    if "\n" in value or "\r" in value:
        raise ValueError(f"SSE {field}: {value!r} holds a line break, which ends the field")
