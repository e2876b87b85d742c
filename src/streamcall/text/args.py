"""Tool-call arguments streamed as they arrive, validated as one JSON object.

- ``ArgsStreamer``: arguments written as a JSON object, streamed verbatim through a
  ``JsonScan``; raw control characters inside strings (invalid JSON) are escaped, so the
  result always loads with a strict ``json.loads``.

Fast reads (each beside its reference path, both under the one switch
``streamcall.text.fast``; the reference path is what runs with the switch off):

- ``ArgsStreamer.push_more``: where a key must come, whole small members (``"key": 1,``)
  are taken by one regex with no scan, and a member cut by the end of the chunk is held
  whole (at most ``MAX_MEMBER`` characters), so that it leaves in one piece with the next
  chunk. Reference: ``push``.
- ``ArgsStreamer.push_until``: arguments that a stop marker may cut
  (``StopMarkers.find``: a buffer in which no stop marker can begin takes one
  ``str.find``, not the search). Reference: the marker search.
"""

from __future__ import annotations

import re

from streamcall.text import fast
from streamcall.text.jsonscan import _KEY, _KEY_OR_CLOSE, JsonScan
from streamcall.text.markers import StopMarkers

__all__ = ["MAX_MEMBER", "ArgsStreamer"]

_CONTROL_ESCAPES = {i: f"\\u{i:04x}" for i in range(32)} | {
    8: "\\b",
    9: "\\t",
    10: "\\n",
    12: "\\f",
    13: "\\r",
}

# Whole members of an object, each with its ',': a key and a string value with no escape
# or control character, a number or a keyword, and blanks (``"key": 1, ``). Where a key
# must come, they leave the scan where it was. ``ArgsStreamer.push_more`` reads them.
_PLAIN = r'"[^"\\\x00-\x1f]*+"'
_MEMBERS = re.compile(
    rf"[ \t\n\r]*+(?:{_PLAIN}[ \t\n\r]*+:[ \t\n\r]*+(?:{_PLAIN}|true|false|null"
    r"|-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?+(?:[eE][+-]?[0-9]++)?+)[ \t\n\r]*+,[ \t\n\r]*+)*+"
).match
# Such a member cut by the end of the text (loosely: a cut number or keyword may be one
# the scan rejects once it is whole).
_MEMBER_CUT = re.compile(
    r'[ \t\n\r]*+(?:"[^"\\\x00-\x1f]*+(?:"[ \t\n\r]*+(?::[ \t\n\r]*+(?:"[^"\\\x00-\x1f]*+'
    r'(?:"[ \t\n\r]*+)?|[-0-9.eE+]++[ \t\n\r]*+|[truefalsn]++[ \t\n\r]*+)?)?)?)?'
).fullmatch
#: The longest cut member ``ArgsStreamer.push_more`` holds back.
MAX_MEMBER = 64


class ArgsStreamer:
    """One JSON object of arguments, streamed verbatim and validated as it goes.

    ``push`` returns the text that may be released now and where it stopped; the caller
    holds back ``buf[resume:]`` (a token that may still grow) unless ``done`` or ``error``.
    Raw control characters inside strings are released escaped, so the arguments always
    load with a strict ``json.loads``. ``parts`` is every delta released so far.
    """

    __slots__ = ("done", "error", "parts", "scan")

    def __init__(self) -> None:
        self.scan = JsonScan()
        self.parts: list[str] = []
        # Copies of the scan's outcome, kept as plain attributes: they are read after
        # every push, on the hot path.
        self.done = False
        self.error = False

    def push(self, buf: str, pos: int, final: bool = False) -> tuple[str, int]:
        """Scan ``buf`` from ``pos``: ``(delta, resume)``. The reference read."""
        scan = self.scan
        start = pos
        pos = scan.feed(buf, pos, final)
        if not scan.control:
            delta = buf[start:pos]
            if delta:
                self.parts.append(delta)
            self.done = scan.done
            self.error = scan.error
            return delta, pos
        else:
            pieces = []
            while scan.control:
                pieces.append(buf[start:pos])
                pieces.append(_CONTROL_ESCAPES[ord(buf[pos])])
                scan.skip_control()
                start = pos + 1
                pos = scan.feed(buf, start, final)
            pieces.append(buf[start:pos])
            delta = "".join(pieces)
        if delta:
            self.parts.append(delta)
        self.done = scan.done
        self.error = scan.error
        return delta, pos

    def push_more(self, buf: str, pos: int) -> tuple[str, int]:
        """``push`` when more text is to come, reading whole small members in one step.

        Fast read: where a key must come, the members of ``_MEMBERS`` are taken with one
        regex and no scan, and a member cut by the end of ``buf`` is held back whole (at
        most ``MAX_MEMBER`` characters, so its text leaves in one piece with the next
        chunk); anything else is scanned by ``push``, the reference read.
        """
        scan = self.scan
        expect = scan.expect
        if scan.in_string or expect < _KEY or expect > _KEY_OR_CLOSE or not fast.FAST:
            return self.push(buf, pos)
        end = _MEMBERS(buf, pos).end()  # type: ignore[union-attr]
        n = len(buf)
        if end == pos:
            if n - end <= MAX_MEMBER and _MEMBER_CUT(buf, end) is not None:
                return "", pos
            return self.push(buf, pos)
        head = buf[pos:end] if pos or end < n else buf
        self.parts.append(head)
        if expect != _KEY and "," in head:
            scan.expect = _KEY
        if end == n or (n - end <= MAX_MEMBER and _MEMBER_CUT(buf, end) is not None):
            return head, end
        delta, end = self.push(buf, end)
        return head + delta, end

    def push_until(
        self, buf: str, pos: int, stops: StopMarkers, final: bool
    ) -> tuple[str, int, int, str | None]:
        """Arguments that a stop marker cuts: ``(delta, resume, stop, marker)``.

        Only ``buf[pos:stop]`` belongs to the arguments: ``stop`` is where the first stop
        marker starts (``marker``), or where a cut one that must be held starts, or the
        end of ``buf``. ``resume`` is where the scan stopped within that text; a caller
        that finds the arguments neither done nor broken holds ``buf[resume:]`` unless a
        marker cut them (then ``buf[resume:stop]`` is the unfinished token).
        """
        stop, _, marker = stops.find(buf, pos, final)
        if stop == len(buf):
            delta, resume = self.push(buf, pos, True) if final else self.push_more(buf, pos)
            return delta, resume, stop, marker
        piece = buf[pos:stop]
        if final or marker is not None:
            delta, used = self.push(piece, 0, True)
        else:
            delta, used = self.push_more(piece, 0)
        return delta, pos + used, stop, marker

    def close(self, tail: str = "") -> str:
        """Finish cut-off arguments; returns the closing delta (also recorded)."""
        delta = self.scan.closing(tail)
        if delta:
            self.parts.append(delta)
        return delta

    def text(self) -> str:
        return "".join(self.parts)
