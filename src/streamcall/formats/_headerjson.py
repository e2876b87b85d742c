"""The header-plus-JSON engine: the name is written in markup, the arguments as JSON.

Mistral v11+, DeepSeek V3 / V3.1 and Kimi K2 all write a call as a header (special
tokens around the function name, sometimes a model-made call id) followed by one JSON
object of arguments. Only the markers differ, so each of them is a small configuration
of this class.

Grammar (configured per format by class attributes)::

    output   := (text | section)*
    section  := SECTION_START ws* call (ws* (CALL_START | SECTION_START*) ws* call)*
                ws* SECTION_END?
    call     := CALL_START? header HEADER_END ws* object ws* ARGS_SUFFIX? ws* CALL_END?
    header   := any text without a marker, at most MAX_HEADER characters, read by
                ``_header(text) -> (name, call_id) | None``
    object   := a JSON object, streamed verbatim (``ArgsStreamer``)

``*`` on SECTION_START: with ``REPEAT_SECTION`` the section start repeats before every
call (Mistral's ``[TOOL_CALLS]a{...}[TOOL_CALLS]b{...}``). A CALL_START found in text
opens a section by itself when ``CALL_OPENS_SECTION`` is set (some DeepSeek outputs drop
the ``calls_begin`` token). With ``HEADER_BRACE`` a ``{`` also ends the header (and
starts the arguments): Mistral's ``[ARGS]`` and DeepSeek V3's fence are special tokens
that a detokenizer may have skipped.

Modes: TEXT -> HEADER -> ARGS -> AFTER (between calls) -> HEADER ... -> TEXT.

The call starts (``ToolCallStart``) when the header is complete and the arguments show
their ``{``; the arguments are streamed verbatim from there. With a CALL_END in the
grammar the call is complete only when that closer (or SECTION_END) comes after its
arguments; another call's start, junk or the end of the stream first end it
``incomplete``. Without one (Mistral v11) the arguments' end is the call's. The special tokens in
``STOP`` (end-of-call and section markers) cannot occur inside arguments, so they are
looked for there too: an argument object cut by one ends ``incomplete`` and parsing goes
on with the marker (vLLM's Kimi K2 suite keeps a call whose JSON was cut short).

What it holds back: a partial marker at the end of the buffer (every mode), a token of
the arguments that may still grow, and in ``feed``'s shortcut a small member of the
arguments cut by the chunk, whole (at most 64 characters: ``ArgsStreamer.push_more``). The header itself is kept in state, bounded by
``MAX_HEADER``; past that, or when a marker interrupts it, the header is malformed and
the markup consumed since the last complete call is released as text. Whitespace
between calls in a section is markup; anything else there ends the section and is
text. At end of stream a call whose header was complete is reported (arguments closed,
``incomplete``); an unfinished header is text.

Model-made call ids are used as they are, made unique within the stream if the model
repeats one (``id~2``).

Most chunks of a long call fall inside its arguments. ``feed`` hands such a chunk to the
argument scanner directly when no stop marker can begin in it (every stop marker starts
with the same one or two characters, so that is one ``in`` test), skipping the marker
search and the mode dispatch; whole small members are then read with one regex
(``ArgsStreamer.push_more``). Tests prove it equal to the general loop and pin it on (it
measured faster: docs/performance.md).
"""

from __future__ import annotations

import re
from typing import ClassVar

from streamcall.events import Event, Text, ToolCallArgs
from streamcall.formats._base import ToolParser, Tools, UniqueIds
from streamcall.formats._scan import ArgsStreamer, MarkerFinder, PartialMarkers

__all__ = ["HANDOFF", "HeaderJsonParser"]

_WS = re.compile(r"[ \t\n\r]*")
_NAME = re.compile(r"\w[\w.:\-/]*")

_TEXT, _HEADER, _OPEN, _ARGS, _AFTER = 0, 1, 2, 3, 4
#: a subclass took the rest of the stream over (``_step`` returns at once)
HANDOFF = 5


class HeaderJsonParser(ToolParser):
    """Configurable parser for the header + JSON-arguments formats."""

    SECTION_START: ClassVar[tuple[str, ...]] = ()
    SECTION_END: ClassVar[str | None] = None
    CALL_START: ClassVar[str | None] = None
    CALL_OPENS_SECTION: ClassVar[bool] = False
    REPEAT_SECTION: ClassVar[bool] = False
    HEADER_END: ClassVar[tuple[str, ...]] = ()
    HEADER_BRACE: ClassVar[bool] = False
    ARGS_SUFFIX: ClassVar[str | None] = None
    CALL_END: ClassVar[str | None] = None
    #: special tokens that never occur inside arguments (default: every marker but
    #: the header ones)
    STOP: ClassVar[tuple[str, ...] | None] = None
    MAX_HEADER: ClassVar[int] = 512

    def __init__(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> None:
        super().__init__(tools, id_prefix=id_prefix)
        cls = type(self)
        call_start = (cls.CALL_START,) if cls.CALL_START else ()
        opens = cls.SECTION_START + (call_start if cls.CALL_OPENS_SECTION else ())
        self._text_finder = MarkerFinder(opens)
        # markers that interrupt a header: the header is malformed
        interrupts = (
            cls.SECTION_START + call_start + tuple(m for m in (cls.SECTION_END, cls.CALL_END) if m)
        )
        ends = cls.HEADER_END + (("{",) if cls.HEADER_BRACE else ())
        self._header_finder = MarkerFinder(ends + tuple(m for m in interrupts if m not in ends))
        self._header_ends = frozenset(ends)
        stop = cls.STOP if cls.STOP is not None else interrupts
        self._stop_finder = MarkerFinder(stop) if stop else None
        # ``feed``'s shortcut needs a lead that every stop marker starts with; without one
        # it is off (``_fast_mode`` is then a mode that never occurs).
        lead = min(stop, key=len)[:2] if stop else ""
        while lead and not all(m.startswith(lead) for m in stop):
            lead = lead[:-1]
        self._fast_mode = _ARGS if lead else -1
        self._stop_lead = lead
        self._stop_first = lead[:1]
        # what may come between calls, in the order it is tried
        between: list[str] = []
        for m in (cls.ARGS_SUFFIX, cls.CALL_END, cls.CALL_START, cls.SECTION_END):
            if m:
                between.append(m)
        if cls.REPEAT_SECTION:
            between.extend(cls.SECTION_START)
        self._between_markers = tuple(between)
        self._between_partial = PartialMarkers(between)
        self._mode = _TEXT
        self._raw: list[str] = []  # markup since the last complete call: text if it fails
        self._header_parts: list[str] = []
        self._header_len = 0
        self._section_calls = 0
        self._unique_ids = UniqueIds()
        self._name = ""
        self._call_id: str | None = None
        self._index = -1
        self._args: ArgsStreamer | None = None
        # With CALL_END: a call whose arguments closed, waiting for its closer
        # (index, arguments)
        self._closed_call: tuple[int, str] | None = None

    # -- for configurations ----------------------------------------------------------------

    def _header(self, text: str) -> tuple[str, str | None] | None:
        """``(name, call_id)`` from the header text, or None if it is malformed."""
        name = text.strip()
        return (name, None) if _NAME.fullmatch(name) else None

    # -- the loop --------------------------------------------------------------------------

    def feed(self, text: str) -> list[Event]:
        """``FeedLoop.feed``, with the chunks of streaming arguments taken directly.

        Every stop marker starts with ``_stop_lead`` (their first one or two characters
        in common). In ARGS, a buffer (held tail and chunk) without it holds no stop
        marker, and of a cut one at most its first character, as its last: all that
        ``_read_args``'s marker search would find. Such a buffer goes straight to the
        argument scanner, that last character held back, skipping the search and the
        mode dispatch; any other goes to ``_read_args`` (the search), and what follows the
        arguments in it to the general loop.
        """
        if self._mode != self._fast_mode or not text:
            return super().feed(text)
        buf = self._tail + text if self._tail else text
        if self._stop_lead in buf:
            out: list[Event] = []
            return self._go_on(buf, self._read_args(buf, 0, out, False), out)
        args = self._args
        assert args is not None
        if buf[-1] != self._stop_first:
            delta, pos = args.push_more(buf, 0)
        else:  # the first character of a marker, maybe: held back
            delta, pos = args.push_more(buf[:-1], 0)
        out = [ToolCallArgs(self._index, delta)] if delta else []
        if args.done or args.error:
            self._close_call(out, incomplete=not args.done)
            pos = self._step(buf, pos, out, False)
        self._tail = buf[pos:] if pos < len(buf) else ""
        return out

    def _step(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        n = len(buf)
        while pos < n:
            mode = self._mode
            if mode == _ARGS:  # first: where long arguments spend their chunks
                pos = self._read_args(buf, pos, out, final)
                if pos < 0:
                    return -pos - 1
            elif mode == _TEXT:
                pos, marker = self._text_until_marker(buf, pos, out, self._text_finder, final)
                if marker is None:
                    return pos
                self._raw = [marker]
                self._section_calls = 0
                if self.CALL_START is None or marker == self.CALL_START:
                    self._start_header()
                else:  # a CALL_START must come first
                    self._mode = _AFTER
            elif mode == _HEADER:
                pos = self._read_header(buf, pos, out, final)
                if pos < 0:
                    return -pos - 1
            elif mode == _OPEN:
                ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
                if ws > pos:
                    self._raw.append(buf[pos:ws])
                    pos = ws
                if pos == n:
                    return pos
                if buf[pos] != "{":
                    self._markup_to_text(out)
                    continue
                self._open_call(out)
            elif mode == _AFTER:
                pos = self._read_between(buf, pos, out, final)
                if pos < 0:
                    return -pos - 1
            else:  # HANDOFF
                return pos
        return pos

    def _start_header(self) -> None:
        self._header_parts = []
        self._header_len = 0
        self._mode = _HEADER

    def _read_header(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        find = self._header_finder.find_final if final else self._header_finder.find
        end, resume, marker = find(buf, pos)
        if end > pos:
            self._header_parts.append(buf[pos:end])
            self._raw.append(buf[pos:end])
            self._header_len += end - pos
        if self._header_len > self.MAX_HEADER:
            self._markup_to_text(out)
            return end
        if marker is None:
            return -(end + 1) if end < len(buf) else end
        if marker not in self._header_ends:  # interrupted by another marker
            self._markup_to_text(out)
            return end
        parsed = self._header("".join(self._header_parts))
        if parsed is None:
            if marker == "{":  # the brace is left to be read as text
                self._markup_to_text(out)
                return end
            self._raw.append(marker)
            self._markup_to_text(out)
            return resume
        self._name, call_id = parsed
        self._call_id = self._unique_ids(call_id) if call_id else None
        if marker == "{":
            self._open_call(out)
            return end
        self._raw.append(marker)
        self._mode = _OPEN
        return resume

    def _open_call(self, out: list[Event]) -> None:
        call_id = self._call_id
        if call_id is None:
            call_id = self._unique_ids(f"{self.id_prefix}{self._calls}")
        self._index = self._start_call(out, self._name, call_id)
        self._raw = []
        self._args = ArgsStreamer()
        self._mode = _ARGS

    def _read_args(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        args = self._args
        assert args is not None
        n = len(buf)
        stop, marker = n, None
        finder = self._stop_finder
        if finder is not None:
            stop, _, marker = (finder.find_final if final else finder.find)(buf, pos)
        if stop == n:
            delta, new = args.push(buf, pos, final)
        else:  # only the text before a (possible) marker belongs to the arguments
            piece = buf[pos:stop]
            delta, used = args.push(piece, 0, final or marker is not None)
            new = pos + used
        if delta:
            out.append(ToolCallArgs(self._index, delta))
        if args.done:
            self._close_call(out, incomplete=False)
            return new
        if args.error:
            self._close_call(out, incomplete=True)
            return new
        if marker is not None:  # cut short by a marker
            self._close_call(out, incomplete=True, tail=buf[new:stop])
            return stop
        return -(new + 1) if new < n else new

    def _close_call(self, out: list[Event], *, incomplete: bool, tail: str = "") -> None:
        args = self._args
        assert args is not None
        if incomplete:
            self._emit_args(out, self._index, args.close(tail))
            self._end_call(out, self._index, args.text(), True)
        elif self.CALL_END is not None:  # complete once its closer comes (_read_between)
            self._closed_call = (self._index, args.text())
        else:  # no closer in the grammar: the arguments' end is the call's
            self._end_call(out, self._index, args.text(), False)
        self._args = None
        self._index = -1
        self._section_calls += 1
        self._raw = []
        self._mode = _AFTER

    def _read_between(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        n = len(buf)
        ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws > pos:
            self._raw.append(buf[pos:ws])
            pos = ws
        if pos == n:
            return pos
        for marker in self._between_markers:
            if buf.startswith(marker, pos):
                pos += len(marker)
                if self._closed_call is not None and marker != self.ARGS_SUFFIX:
                    # its closer (or the section's) ends it; another call start does not
                    self._end_closed_call(out, marker in (self.CALL_END, self.SECTION_END))
                if marker == self.SECTION_END:
                    self._mode = _TEXT
                    if self._section_calls:
                        self._raw = []
                        self._block_ended()
                    else:  # an empty section is not markup
                        self._raw.append(marker)
                        self._release_raw(out)
                elif marker == self.CALL_START or marker in self.SECTION_START:
                    self._raw.append(marker)
                    self._start_header()
                elif self._section_calls:  # a suffix or call end: markup of the last call
                    self._raw = []
                else:
                    self._raw.append(marker)
                return pos
        if not final and self._between_partial.holds(buf, pos):
            return -(pos + 1)
        # Anything else ends the section (and a call still waiting for its closer, cut
        # off); the whitespace before it is text.
        if self._closed_call is not None:
            self._end_closed_call(out, False)
        self._release_raw(out)
        self._mode = _TEXT
        return pos

    def _end_closed_call(self, out: list[Event], complete: bool) -> None:
        assert self._closed_call is not None
        index, text = self._closed_call
        self._closed_call = None
        self._end_call(out, index, text, not complete)

    # -- failure and the end ---------------------------------------------------------------

    def _markup_to_text(self, out: list[Event]) -> None:
        """Malformed markup before a call started: release it as text."""
        self._release_raw(out)
        self._mode = _TEXT

    def _release_raw(self, out: list[Event]) -> None:
        text = "".join(self._raw)
        self._raw = []
        if text:
            out.append(Text(text))

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        mode = self._mode
        if mode == _ARGS:
            self._close_call(out, incomplete=True, tail=rest)
            return
        if mode == _OPEN:  # the header is complete: the call is reported
            self._raw = []
            self._open_call(out)
            assert self._args is not None
            self._emit_args(out, self._index, self._args.push("{}", 0, True)[0])
            self._close_call(out, incomplete=True)
            return
        if mode == _AFTER:
            if self._closed_call is not None:  # its closer never came
                self._end_closed_call(out, False)
            text = "".join(self._raw) + rest
            if text.strip():
                out.append(Text(text))
            self._raw = []
            return
        self._raw.append(rest)
        self._release_raw(out)
