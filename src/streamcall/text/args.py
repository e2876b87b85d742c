"""Tool-call arguments streamed as they arrive, validated as one JSON object.

- ``ArgsStreamer``: arguments written as a JSON object, streamed verbatim through a
  ``JsonScan``; raw control characters inside strings (invalid JSON) are escaped, so the
  result always loads with a strict ``json.loads``.
- ``ArgsStep``: the ARGS step of an engine whose arguments stop markers may cut;
- ``EncodedArgs``: arguments written as a JSON string that holds the object (Granite 4),
  decoded as they arrive and the object inside streamed through an ``ArgsStreamer``.

Fast reads (each beside its reference path, both under the one switch
``streamcall.text.fast``; the reference path is what runs with the switch off):

- ``ArgsStreamer.push_more``: where a key must come, whole small members (``"key": 1,``)
  are taken by one regex with no scan, and a member cut by the end of the chunk is held
  whole (at most ``MAX_MEMBER`` characters), so that it leaves in one piece with the next
  chunk; inside a string, a run of plain string text to the end of the chunk is taken by
  one regex with no scan. Reference: ``push``.
- ``ArgsStep.step``, an engine's ARGS step for arguments that a stop marker may cut
  (``StopMarkers.find``: a buffer in which no stop marker can begin takes one ``in``
  test of the markers' common lead, not the search; ``push_more``'s reads follow, their
  common cases written out in place). Reference: ``ArgsStreamer.push_until`` (the marker
  search, then ``push``).
- ``EncodedArgs.push``: a run of nested string text inside an inner string, decoded with
  no scan; whole small inner members decoded by a ``replace`` with no scan, a cut one held
  whole; text whose only escapes are inner quotes decoded by a ``replace``. Reference:
  ``decode_json_string``, then the inner ``push``.
"""

from __future__ import annotations

import re
from _json import scanstring as _scanstring  # the C scanner: (text, end, strict)
from collections.abc import Callable

from streamcall.events import Event, Text, ToolCallArgs
from streamcall.text import fast
from streamcall.text.jsonscan import _KEY, _KEY_OR_CLOSE, JsonScan
from streamcall.text.jsonstring import (
    CUT_ESCAPE,
    STRICT_RUN,
    decode_json_string,
    decode_string_run,
    nested_member_cut,
    nested_members,
    nested_plain_run,
    nested_string_cut,
    nested_string_run,
    raw_offset,
)
from streamcall.text.markers import StopMarkers

# Bound once: CPython 3.11 calls a method of an imported name through a bound method
# made on every call (it gives such a call no LOAD_METHOD)
_cut_escape_fullmatch = CUT_ESCAPE.fullmatch
_strict_run_match = STRICT_RUN.match
_strict_run_fullmatch = STRICT_RUN.fullmatch

__all__ = [
    "BLANK",
    "BROKEN",
    "CLOSED",
    "MAX_MEMBER",
    "MORE",
    "ArgsStep",
    "ArgsStreamer",
    "EncodedArgs",
    "release_junk",
]

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
        end = scan.feed(buf, pos, final)
        if scan.control:
            return self._escaped(buf, pos, end, final)
        delta = buf[pos:end]
        if delta:
            self.parts.append(delta)
        self.done = scan.done
        self.error = scan.error
        return delta, end

    def _escaped(self, buf: str, start: int, pos: int, final: bool) -> tuple[str, int]:
        """``push`` once the scan met a raw control character at ``pos``: released escaped."""
        scan = self.scan
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
        """``push`` when more text is to come, with two fast reads.

        Inside a string, a run of plain string text (whole escapes, no quote, no control
        character) that reaches the end of ``buf``, or a cut escape there (held back), is
        taken with one regex and no scan: the scan would end in the state it is in; where
        the run stops short, the scan goes on from there. Where a key must come, the members of
        ``_MEMBERS`` are taken with one regex and no scan, and a member cut by the end of
        ``buf`` is held back whole (at most ``MAX_MEMBER`` characters, so its text leaves in
        one piece with the next chunk). Anything else is scanned by ``push``, the reference
        read (written out here for the common case, a call fewer per chunk).
        """
        scan = self.scan
        if scan.in_string and fast.FAST:
            end = _strict_run_match(buf, pos).end()  # type: ignore[union-attr]
            n = len(buf)
            if end == n or (buf[end] == "\\" and _cut_escape_fullmatch(buf, end) is not None):
                # plain string text to the end, or to a cut escape there (held): the scan
                # would end in the state it is in
                delta = buf[pos:end] if pos or end < n else buf
                if delta:
                    self.parts.append(delta)
                return delta, end
            # the string closes here (or a raw control, a bad escape): the scan reads on
            stop = scan.feed(buf, end, False)
            if scan.control:
                return self._escaped(buf, pos, stop, False)
            delta = buf[pos:stop]
            if delta:
                self.parts.append(delta)
            self.done = scan.done
            self.error = scan.error
            return delta, stop
        expect = scan.expect
        if scan.in_string or expect < _KEY or expect > _KEY_OR_CLOSE or not fast.FAST:
            end = scan.feed(buf, pos, False)
            if scan.control:
                return self._escaped(buf, pos, end, False)
            delta = buf[pos:end]
            if delta:
                self.parts.append(delta)
            self.done = scan.done
            self.error = scan.error
            return delta, end
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


class ArgsStep:
    """The ARGS step of an engine whose call arguments are one JSON object, which stop
    markers may cut (the header + JSON engine, Harmony; ``stops`` None: none, the
    JSON-call engine): the step itself, so that the common chunk costs the feed loop's
    call and no other.

    The engine opens each call's arguments with ``open(index)`` (the ``ArgsStreamer`` it
    returns is the call's) and puts ``step`` in its mode table. A chunk's delta leaves as
    the call's ``ToolCallArgs``. When the arguments end (done, broken, cut by a stop
    marker, or at the end of the stream), ``ended(buf, out, resume, stop, marker, final)``
    is the engine's to decide what follows (``push_until``'s values); otherwise the
    unfinished token ``buf[resume:]`` is held.

    Fast read: a buffer in which no stop marker can begin (one ``in`` test of the
    markers' common lead, ``StopMarkers.find``'s fast read; any, with none) goes to
    ``push_more``'s reads,
    their common cases written out here (a run of string text to the end, whole members
    to the end or to a cut one held whole). Reference: ``push_until`` (the marker search,
    then ``push``; with no stop markers, ``push``).
    """

    __slots__ = ("_ended", "_stops", "args", "index")

    def __init__(
        self,
        stops: StopMarkers | None,
        ended: Callable[[str, list[Event], int, int, str | None, bool], tuple[int, bool]],
    ) -> None:
        self._stops = stops
        self._ended = ended
        self.args = ArgsStreamer()
        self.index = -1

    def open(self, index: int) -> ArgsStreamer:
        """Fresh arguments for call ``index``."""
        self.args = args = ArgsStreamer()
        self.index = index
        return args

    def step(self, buf: str, pos: int, out: list[Event], final: bool) -> tuple[int, bool]:
        args = self.args
        stops = self._stops
        if not final and fast.FAST and (stops is None or stops.lead not in buf):
            # No stop marker can begin in ``buf`` but a cut one's first character, as its
            # last (never with no lead: '' is in any text).
            n = len(buf)
            if n != pos and (stops is None or buf[-1] != stops.first):
                scan = args.scan
                if scan.in_string:
                    if _strict_run_fullmatch(buf, pos) is not None:
                        delta = buf[pos:] if pos else buf
                        args.parts.append(delta)
                        out.append(ToolCallArgs(self.index, delta))
                        return n, True
                elif _KEY <= scan.expect <= _KEY_OR_CLOSE:
                    end = _MEMBERS(buf, pos).end()  # type: ignore[union-attr]
                    if end == n or (n - end <= MAX_MEMBER and _MEMBER_CUT(buf, end) is not None):
                        if end == pos:  # a member cut by the end: held whole
                            return pos, True
                        head = buf[pos:end] if pos or end < n else buf
                        args.parts.append(head)
                        if scan.expect != _KEY and "," in head:
                            scan.expect = _KEY
                        out.append(ToolCallArgs(self.index, head))
                        return end, True
                delta, resume = args.push_more(buf, pos)
                if delta:
                    out.append(ToolCallArgs(self.index, delta))
                if args.done or args.error:
                    return self._ended(buf, out, resume, n, None, False)
                return resume, True
        if stops is None:
            delta, resume = args.push(buf, pos, True) if final else args.push_more(buf, pos)
            stop, marker = len(buf), None
        else:
            delta, resume, stop, marker = args.push_until(buf, pos, stops, final)
        if delta:
            out.append(ToolCallArgs(self.index, delta))
        if args.done or args.error or marker is not None or final:
            return self._ended(buf, out, resume, stop, marker, final)
        return resume, True


# --- Arguments written as a string of escaped JSON ------------------------------------------

#: ``EncodedArgs.push`` outcomes
MORE, CLOSED, BLANK, BROKEN = 0, 1, 2, 3

# Blanks before the object of string arguments, raw or escaped (``\n``, ``\u0020``).
_LEAD_BLANKS = re.compile(r"(?:[ \t\n\r]|\\[ntr]|\\u00(?:0[9aAdD]|20))*")


class EncodedArgs:
    """Arguments written as a JSON string that holds a JSON object (Granite 4's
    ``"arguments": "{\\"city\\": \\"Boston\\"}"``): the string is decoded as it arrives
    and the object inside streamed through an ``ArgsStreamer`` (``inner``).

    ``push(buf, pos, final) -> (delta, resume, outcome)`` reads the string body from
    ``pos``; everything in ``buf[pos:resume]`` is consumed markup, and ``delta`` is the
    decoded object text it released. The outcome says what comes next:

    - ``MORE``: more text is needed; ``buf[resume:]`` is held, as the raw text it came
      from (a number or keyword that may grow, a cut escape), never as decoded text;
    - ``CLOSED``: the closing quote was read (``resume`` is just past it). If the object
      inside had not closed, ``cut`` is set and ``delta`` ends with its closing;
    - ``BLANK``: the string was blank: no arguments;
    - ``BROKEN``: the markup breaks at ``buf[resume]`` (a bad escape, or text the inner
      scan rejects); from there on everything is text again, as written.

    ``started`` turns True at the object's opening brace (before it only blanks, raw or
    escaped, may come). Text after the object inside the string is ``junk``, kept as
    written. A bad escape is read as if the chunk had ended just before it, so that the
    outcome does not depend on the chunking.

    Fast reads (``streamcall.text.fast``), while more text is to come; the reference path
    is ``decode_json_string`` then ``inner.push``:

    - inside an inner string, a run of nested string text (``nested_string_run``) is
      decoded and is the delta, with no scan (the inner scan stays inside its string); a
      unit cut by the end of the chunk is held (at most 6 characters);
    - where the inner scan expects a key, whole small members (``nested_members``) are
      decoded by a ``replace`` and leave the scan where it was; a member cut by the end of
      the chunk is held whole (at most ``MAX_MEMBER`` characters);
    - between inner tokens, text whose only escapes are inner quotes
      (``nested_plain_run``) is decoded by a ``replace``, then scanned as usual.
    """

    __slots__ = ("cut", "inner", "junk", "started")

    def __init__(self) -> None:
        self.inner = ArgsStreamer()
        self.started = False
        self.junk: list[str] = []
        self.cut = False

    def _lead(self, buf: str, pos: int, final: bool) -> tuple[str, int, int]:
        """Before the object's ``{``: blanks, raw or escaped; a quote ends a blank string."""
        end = _LEAD_BLANKS.match(buf, pos).end()  # type: ignore[union-attr]
        if end == len(buf):
            return "", end, MORE
        if buf[end] == '"':  # an empty or blank string: no arguments
            return "", end + 1, BLANK
        if buf[end] == "{" or buf.startswith(("\\u007b", "\\u007B"), end):
            self.started = True
            return self.push(buf, end, final)
        if not final and _cut_escape_fullmatch(buf, end) is not None:
            return "", end, MORE  # a cut escape: it may still be a blank or the brace
        return "", end, BROKEN

    def push(self, buf: str, pos: int, final: bool) -> tuple[str, int, int]:
        inner = self.inner
        scan = inner.scan
        if scan.in_string and not final and fast.FAST:  # (inside an inner string: started)
            n = len(buf)
            end = nested_string_run(buf, pos).end()  # type: ignore[union-attr]
            if end == n or (n - end < 7 and nested_string_cut(buf, end) is not None):
                run = buf[pos:end] if pos or end < n else buf
                # (no \uXXXX of the outer string in such a run: json's C scanner alone
                # decodes it as ``decode_string_run`` would)
                decoded = _scanstring(run + '"', 0, False)[0] if "\\" in run else run
                if decoded:
                    inner.parts.append(decoded)
                return decoded, end, MORE
        elif not self.started:
            return self._lead(buf, pos, final)
        head = ""
        if not final and fast.FAST and not inner.done and not scan.in_string:
            n = len(buf)
            if _KEY <= scan.expect <= _KEY_OR_CLOSE:
                end = nested_members(buf, pos).end()  # type: ignore[union-attr]
                if end > pos:
                    head = buf[pos:end].replace('\\"', '"')
                    inner.parts.append(head)
                    if scan.expect != _KEY and "," in head:
                        scan.expect = _KEY
                    if end == n:
                        return head, end, MORE
                if n - end <= MAX_MEMBER and nested_member_cut(buf, end) is not None:
                    return head, end, MORE
                pos = end
            end = nested_plain_run(buf, pos).end()  # type: ignore[union-attr]
            if end == n or (end == n - 1 and buf[end] == "\\"):
                decoded = buf[pos:end].replace('\\"', '"')
                delta, ipos = inner.push(decoded, 0, False)
                rest, resume, outcome = self._pushed(buf, pos, end, 0, decoded, ipos)
                return head + delta + rest, resume, outcome
        decoded, resume, status = decode_json_string(buf, pos, final)
        if status < 0:
            # A bad escape: what came before it is read as it would have been had the
            # chunk ended just before it; then the markup breaks there, or where the
            # inner scan stopped.
            delta, stop = "", resume
            if decoded:
                delta, stop, _ = self._push_decoded(buf, pos, resume, decoded, 0, False)
            return head + delta, stop, BROKEN
        delta, resume, outcome = self._push_decoded(buf, pos, resume, decoded, status, final)
        return head + delta, resume, outcome

    def _push_decoded(
        self, buf: str, pos: int, resume: int, decoded: str, status: int, final: bool
    ) -> tuple[str, int, int]:
        """``decoded`` is ``buf[pos:resume]`` decoded (``status`` 1: up to the closing
        quote, which ends at ``resume``); push it into the object."""
        inner = self.inner
        delta, ipos = "", 0
        if not inner.done:
            delta, ipos = inner.push(decoded, 0, final or status == 1)
        rest, resume, outcome = self._pushed(buf, pos, resume, status, decoded, ipos)
        return delta + rest, resume, outcome

    def _pushed(
        self, buf: str, pos: int, resume: int, status: int, decoded: str, ipos: int
    ) -> tuple[str, int, int]:
        """After ``decoded`` (``buf[pos:resume]`` decoded) was pushed into the object up to
        ``decoded[ipos]``: where the raw text stops, and what comes next. Returns the
        closing delta, if the string closed before its object did, as the delta."""
        inner = self.inner
        body_end = resume - 1 if status == 1 else resume  # the closing quote is not body
        stop = body_end if ipos >= len(decoded) else raw_offset(buf, pos, body_end, ipos)
        if inner.error:
            return "", stop, BROKEN
        if inner.done and stop < body_end:
            self.junk.append(buf[stop:body_end])
            stop = body_end
        if status == 0:
            return "", resume if inner.done else stop, MORE
        closing = ""
        if not inner.done:  # the string closed before the object inside it did
            closing = inner.close(decoded[ipos:])
            self.cut = True
        return closing, resume, CLOSED

    def decode_tail(self, rest: str) -> str:
        """What was held at the end of the stream, decoded (for ``inner.close``)."""
        return decode_json_string(rest, 0, True)[0]


def release_junk(out: list[Event], junk: str) -> None:
    """``EncodedArgs.junk`` (text that followed the object inside string arguments) as
    ``Text``, as written; blank text (blank once decoded: ``\\n`` too) is dropped."""
    if junk and decode_string_run(junk).strip():
        out.append(Text(junk))
