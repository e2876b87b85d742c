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

Options for the formats that need them (all off by default):

- ``HEADER_AT_START``: the output starts inside a header, as if CALL_START had just been
  read (Functionary v3.2: the prompt ends with its ``>>>``). A header that turns out
  malformed is text, as anywhere.
- ``TEXT_HEADERS``: header names that open a segment of text, not a call (Functionary
  v3.2's ``all``): the header and its HEADER_END are markup, what follows is text up to
  the next opener.
- ``CALL_END_OPTIONAL``: a call whose arguments closed is complete without its CALL_END
  (PLaMo 3, whose closers the reference treats as optional): CALL_END, like ARGS_SUFFIX,
  is then markup between calls.
- ``DROP``: markers dropped from the text wherever they stand, found as text's other
  markers are (a cut one held back): PLaMo 3's end of turn. One in a header interrupts it
  (the header is text, the marker dropped); in STOP it also cuts arguments; between calls
  it ends the section, and the blanks before it are a gap, dropped with it.
- ``LITERAL_ARGS`` (with a CALL_END; Solar Open): a body whose first key is single-quoted
  (looked for past at most 64 blanks after the ``{``, which is held till then) is a
  Python literal (``LITERAL`` mode): kept whole up to the next stop marker; at CALL_END it
  is read once with ``ast.literal_eval``, and a dict is the call's arguments as JSON (one
  delta); otherwise, or cut by another marker or the end, the call ends incomplete with
  ``{}`` and the body is text.
- ``JUNK_TO_CALL_END`` (with a CALL_END; Solar Open): arguments that broke end the call
  incomplete as anywhere, and the rest of the body (``JUNK`` mode) is text up to the next
  stop marker; a CALL_END there is the broken call's closer, dropped, and the section
  goes on.
- ``RAW_CODE = (NAME, KEY)``: a call whose body is not a JSON object is raw text (source
  code), the rest of the output, passed as the string argument KEY: a header naming NAME
  with anything but ``{`` after it, in a grammar with no CALL_END (Functionary v3.2's
  ``python``; a closer would end the code, so where there is one such a header is
  malformed), or text after one of the ``RAW_START`` markers (Functionary v3.1's
  ``<|python_tag|>``). The text streams as it arrives, JSON-escaped (``RAW`` mode); the
  end of the stream ends the call, complete.

Modes (``Mode``) and what each step reads::

    mode    reads                                   next      emits
    TEXT    text up to a section opener             HEADER    Text
                                                    AFTER     (a SECTION_START where a
                                                               CALL_START must come first)
            ... up to a RAW_START marker            RAW       ToolCallStart
    HEADER  the header, up to HEADER_END            OPEN
            ... up to a '{' (HEADER_BRACE)          ARGS      ToolCallStart
            ... a TEXT_HEADERS name                 TEXT
            a malformed header, or another marker   TEXT      Text (the markup so far)
    OPEN    blanks, then '{'                        ARGS      ToolCallStart
            anything else, after RAW_CODE's NAME    RAW       ToolCallStart
            anything else                           TEXT      Text (the markup so far)
    RAW     everything: the raw argument            RAW       ToolCallArgs; ToolCallEnd at
                                                              the end of the stream
    ARGS    the object, verbatim                    AFTER     ToolCallArgs; ToolCallEnd
                                                              (no CALL_END in the grammar)
            ... cut by a STOP marker, or broken     AFTER     ToolCallEnd incomplete
    AFTER   blanks, ARGS_SUFFIX, CALL_END (once     AFTER     ToolCallEnd (the closed call)
            each, in order, after a call)
            CALL_START, a repeated SECTION_START    HEADER    ToolCallEnd incomplete (idem)
            SECTION_END                             TEXT      ToolCallEnd (idem)
            anything else                           TEXT      ToolCallEnd incomplete; Text

The call starts (``ToolCallStart``) when the header is complete and the arguments show
their ``{``; the arguments are streamed verbatim from there. With a CALL_END in the
grammar the call is complete only when that closer (or SECTION_END) comes after its
arguments; another call's start, junk or the end of the stream first end it
``incomplete``. Without one (Mistral v11) the arguments' end is the call's. The special
tokens in ``STOP`` (end-of-call and section markers) cannot occur inside arguments, so
they are looked for there too (``ArgsStep``, the ARGS step, whose fast read answers a
buffer in which no stop marker can begin with one ``str.find`` of their common lead): an
argument object cut by one ends ``incomplete`` and parsing goes on with the marker
(vLLM's Kimi K2 suite keeps a call whose JSON was cut short).

What it holds back: a partial marker at the end of the buffer (every mode), a token of
the arguments that may still grow, and a small member of the arguments cut by the chunk,
whole (at most 64 characters: ``ArgsStreamer.push_more``). The header itself is kept in
state (``_header_parts``, and in ``_raw`` as markup), bounded by ``MAX_HEADER``: at its
``MAX_HEADER + 1``-th character, or when a marker (a RAW_START too) interrupts it, the
header is malformed, the markup consumed since the last complete call is released as
text, and text is read again from that point, however the stream was chunked.
Whitespace between calls in a section is markup; anything else there ends the section
and is text. At end of stream a call whose header was complete is reported (arguments
closed, ``incomplete``); an unfinished header is text.

Model-made call ids are used as they are, made unique within the stream if the model
repeats one (``id~2``: ``ToolParser._start_call``).
"""

from __future__ import annotations

import ast
import json
import re
from enum import IntEnum
from typing import ClassVar

from streamcall._mypyc import mypyc_attr
from streamcall.events import Event, Text, ToolCallArgs
from streamcall.formats.engines.base import ToolParser, Tools
from streamcall.text import (
    WS,
    ArgsStep,
    ArgsStreamer,
    MarkerFinder,
    PartialMarkers,
    Step,
    StopMarkers,
    json_quote,
)

__all__ = ["HeaderJsonParser", "Mode"]

_NAME = re.compile(r"\w[\w.:\-/]*")


class Mode(IntEnum):
    """Where the engine is (the table in the module header)."""

    TEXT = 0
    HEADER = 1
    OPEN = 2  # the header is complete: the arguments' '{' is due
    ARGS = 3
    AFTER = 4  # between calls of a section
    RAW = 5  # a RAW_CODE call: the rest of the output is its argument
    LITERAL = 6  # a Python-literal body (LITERAL_ARGS), held to its end
    JUNK = 7  # the rest of a broken body (JUNK_TO_CALL_END), text up to a stop marker


# The modes as plain ints, for the steps' comparisons (as in ``engines.json_calls``).
TEXT, HEADER, OPEN, ARGS, AFTER, RAW, LITERAL, JUNK = map(int, Mode)

# how far past a body's '{' the blanks are looked through for a quote (LITERAL_ARGS)
_LITERAL_LOOK = 64


@mypyc_attr(allow_interpreted_subclasses=True)
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
    #: the output starts inside a header (the prompt wrote the CALL_START)
    HEADER_AT_START: ClassVar[bool] = False
    #: header names that open a segment of text instead of a call
    TEXT_HEADERS: ClassVar[tuple[str, ...]] = ()
    #: a call is complete when its arguments close; CALL_END may be left out
    CALL_END_OPTIONAL: ClassVar[bool] = False
    #: (NAME, KEY): a call to NAME whose body is not a JSON object is raw text, the rest of
    #: the output, given as the string argument KEY
    RAW_CODE: ClassVar[tuple[str, str] | None] = None
    #: markers in text after which the rest of the output is a RAW_CODE call
    RAW_START: ClassVar[tuple[str, ...]] = ()
    #: markers dropped from the text wherever they stand (PLaMo 3's end of turn); one
    #: interrupts a header (text), and cuts arguments if it is in STOP
    DROP: ClassVar[tuple[str, ...]] = ()
    #: (with a CALL_END) a body whose first key is single-quoted is a Python literal: held
    #: until its CALL_END and given as its JSON equivalent
    LITERAL_ARGS: ClassVar[bool] = False
    #: (with a CALL_END) arguments that broke: the rest of the body, up to the next stop
    #: marker, is text, and a CALL_END there is the broken call's closer (markup)
    JUNK_TO_CALL_END: ClassVar[bool] = False

    # Derived from the settings once per class (``_derive``), read less than once a chunk:
    # kept off the instance, whose attributes the hot steps read (one more of those, set
    # in ``__init__``, measured 5% slower per chunk on CPython 3.11).
    _header_ends: ClassVar[frozenset[str]]
    _interrupts: ClassVar[tuple[str, ...]]
    _stops: ClassVar[StopMarkers | None]
    _between_markers: ClassVar[tuple[str, ...]]
    _between_partial: ClassVar[PartialMarkers]

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls._derive()

    @classmethod
    def _derive(cls) -> None:
        call_start = (cls.CALL_START,) if cls.CALL_START else ()
        # markers that interrupt a header: the header is malformed
        cls._interrupts = (
            cls.SECTION_START + call_start + tuple(m for m in (cls.SECTION_END, cls.CALL_END) if m)
        )
        cls._header_ends = frozenset(cls.HEADER_END + (("{",) if cls.HEADER_BRACE else ()))
        stop = cls.STOP if cls.STOP is not None else cls._interrupts
        cls._stops = StopMarkers(stop) if stop else None
        # what may come between calls, in the order it is tried
        between: list[str] = []
        for m in (cls.ARGS_SUFFIX, cls.CALL_END, cls.CALL_START, cls.SECTION_END):
            if m:
                between.append(m)
        if cls.REPEAT_SECTION:
            between.extend(cls.SECTION_START)
        cls._between_markers = tuple(between)
        cls._between_partial = PartialMarkers(between)

    def __init__(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> None:
        super().__init__(tools, id_prefix=id_prefix)
        cls = type(self)
        call_start = (cls.CALL_START,) if cls.CALL_START else ()
        opens = cls.SECTION_START + (call_start if cls.CALL_OPENS_SECTION else ())
        self._text_finder = MarkerFinder(opens + cls.RAW_START + cls.DROP)
        ends = cls.HEADER_END + (("{",) if cls.HEADER_BRACE else ())
        # a raw-code marker opens raw code, in a header too; a dropped one ends it
        cuts = cls._interrupts + cls.RAW_START + cls.DROP
        self._header_finder = MarkerFinder(ends + tuple(m for m in cuts if m not in ends))
        self._mode = TEXT
        self._header_parts: list[str] = []
        self._header_len = 0
        self._section_calls = 0
        self._closers = 0
        self._name = ""
        self._call_id: str | None = None
        self._index = -1
        self._args: ArgsStreamer | None = None
        # With CALL_END: a call whose arguments closed, waiting for its closer
        # (index, arguments)
        self._closed_call: tuple[int, str] | None = None
        # With stop markers, the ARGS step is the text layer's (``ArgsStep``), which calls
        # back ``_args_ended``; without, ``_read_args``.
        stops = cls._stops
        self._arg_step = ArgsStep(stops, self._args_ended) if stops is not None else None
        self._raw_args: list[str] = []  # the arguments of a RAW_CODE call, as emitted
        self._steps = (
            self._read_text,
            self._read_header,
            self._read_open,
            self._arg_step.step if self._arg_step is not None else self._read_args,
            self._read_between,
            self._read_raw,
            self._read_literal,
            self._read_junk,
        )
        self._literal: list[str] = []  # a LITERAL body so far
        self._body_finder = MarkerFinder(stops.markers) if stops is not None else None
        if cls.HEADER_AT_START:
            self._start_header()

    # -- for configurations ----------------------------------------------------------------

    def _header(self, text: str) -> tuple[str, str | None] | None:
        """``(name, call_id)`` from the header text, or None if it is malformed."""
        name = text.strip()
        return (name, None) if _NAME.fullmatch(name) else None

    # -- the steps -------------------------------------------------------------------------

    def _read_text(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        pos, marker = self._text_until_marker(buf, pos, out, self._text_finder, final)
        if marker is None:
            return pos, True
        if marker in self.DROP:
            self._lead = ""  # dropped, and the blanks after a block before it, as a gap
            return pos, False
        if marker in self.RAW_START:
            self._open_raw(out)
            return pos, False
        self._raw = [marker]
        self._section_calls = 0
        if self.CALL_START is None or marker == self.CALL_START:
            self._start_header()
        else:  # a CALL_START must come first
            self._mode = AFTER
        return pos, False

    def _start_header(self) -> None:
        self._header_parts = []
        self._header_len = 0
        self._mode = HEADER

    def _read_header(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        end, resume, marker = self._header_finder.take(buf, pos, final)
        room = self.MAX_HEADER + 1 - self._header_len
        if end - pos >= room:  # too long: malformed at its (MAX_HEADER + 1)th character,
            cut = pos + room  # wherever the chunks end, and text is read again from there
            self._raw.append(buf[pos:cut])
            return self._markup_to_text(out, cut)
        if end > pos:
            self._header_parts.append(buf[pos:end])
            self._raw.append(buf[pos:end])
            self._header_len += end - pos
        if marker is None:
            return end, True  # a partial marker (or nothing) is left: held
        if marker not in self._header_ends:  # interrupted by another marker
            return self._markup_to_text(out, end)
        parsed = self._header("".join(self._header_parts))
        if parsed is None:
            if marker == "{":  # the brace is left to be read as text
                return self._markup_to_text(out, end)
            self._raw.append(marker)
            return self._markup_to_text(out, resume)
        self._name, self._call_id = parsed
        if self._name in self.TEXT_HEADERS and marker != "{":  # a segment of text
            self._raw = []
            self._mode = TEXT
            return resume, False
        if marker == "{":
            self._open_call(out)
            return end, False
        self._raw.append(marker)
        self._mode = OPEN
        return resume, False

    def _read_open(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        ws = WS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws > pos:
            self._raw.append(buf[pos:ws])
            pos = ws
        if pos == len(buf):
            return pos, True
        if buf[pos] == "{" and self.LITERAL_ARGS:
            ws = WS.match(buf, pos + 1, pos + 1 + _LITERAL_LOOK).end()  # type: ignore[union-attr]
            if ws == len(buf) and not final:
                return pos, True  # held: '{' and a few blanks, to see what follows
            if ws < len(buf) and buf[ws] == "'":  # a Python literal
                self._index = self._start_call(out, self._name, self._call_id)
                self._raw = []
                self._literal = []
                self._mode = LITERAL
                return pos, False
        if buf[pos] != "{":
            raw = self.RAW_CODE
            if raw is not None and self._name == raw[0] and self.CALL_END is None:
                self._open_raw(out)
                return pos, False
            return self._markup_to_text(out, pos)
        self._open_call(out)
        return pos, False

    def _open_call(self, out: list[Event]) -> None:
        self._index = index = self._start_call(out, self._name, self._call_id)
        self._raw = []
        step = self._arg_step
        self._args = step.open(index) if step is not None else ArgsStreamer()
        self._mode = ARGS

    def _read_args(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """The ARGS step of a grammar with no stop markers: the object to its end."""
        args = self._args
        assert args is not None
        delta, resume = args.push(buf, pos, True) if final else args.push_more(buf, pos)
        if delta:
            out.append(ToolCallArgs(self._index, delta))
        return self._args_ended(buf, out, resume, len(buf), None, final)

    def _args_ended(
        self, buf: str, out: list[Event], resume: int, stop: int, marker: str | None, final: bool
    ) -> Step:
        """What follows the arguments' text in ``buf`` (``ArgsStreamer.push_until``'s
        values): done or broken, the call ends; cut by a stop marker, it ends incomplete
        and the marker is read next; else the unfinished token is held."""
        args = self._args
        assert args is not None
        if args.done or args.error:
            self._close_call(out, incomplete=args.error)
            if args.error and self.JUNK_TO_CALL_END:
                self._mode = JUNK
            return resume, False
        if marker is not None:  # cut short by a marker: the marker is read next
            self._close_call(out, incomplete=True, tail=buf[resume:stop])
            return stop, False
        return resume, True  # a token that may still grow, a partial marker

    def _close_call(self, out: list[Event], *, incomplete: bool, tail: str = "") -> None:
        args = self._args
        assert args is not None
        if incomplete:
            self._end_call(out, self._index, args, True, tail=tail)
        elif self.CALL_END is not None and not self.CALL_END_OPTIONAL:
            # complete once its closer comes (_read_between)
            self._closed_call = (self._index, args.text())
        else:  # no closer in the grammar: the arguments' end is the call's
            self._end_call(out, self._index, args.text())
        self._args = None
        self._index = -1
        self._section_calls += 1
        self._closers = 0  # the last of its closers seen: 1 ARGS_SUFFIX, 2 CALL_END
        self._raw = []
        self._mode = AFTER

    def _read_between(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        ws = WS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws > pos:
            self._raw.append(buf[pos:ws])
            pos = ws
        if pos == len(buf):
            return pos, True
        for marker in self._between_markers:
            if buf.startswith(marker, pos):
                if self._closes_again(marker):
                    break  # not markup: text, below
                self._after_marker(marker, out)
                return pos + len(marker), False
        else:
            if not final and self._between_partial.holds(buf, pos):
                return pos, True
        # Anything else ends the section (and a call still waiting for its closer, cut
        # off). After its calls, the whitespace before it is a gap (``_skip_gap``: text if
        # text follows, the next block's lead if one opens); before them, text.
        if self._closed_call is not None:
            self._end_closed_call(out, False)
        if self._section_calls:
            blanks = self._raw  # (only blanks since the last call's markup)
            self._raw = []
            self._block_ended()
            assert self._gap is not None
            self._gap.extend(blanks)
            self._mode = TEXT
            return pos, False
        return self._markup_to_text(out, pos)

    def _closes_again(self, marker: str) -> bool:
        """Whether ``marker`` is a closer the last call cannot take: its ARGS_SUFFIX and
        CALL_END come once each, in that order, and only after a call."""
        if marker == self.ARGS_SUFFIX:
            rank = 1
        elif marker == self.CALL_END:
            rank = 2
        else:
            return False
        if not self._section_calls or self._closers >= rank:
            return True
        self._closers = rank
        return False

    def _after_marker(self, marker: str, out: list[Event]) -> None:
        """A marker between calls: it ends the call waiting for its closer, or the
        section, or starts the next header."""
        if self._closed_call is not None and marker != self.ARGS_SUFFIX:
            # its closer (or the section's) ends it; another call start does not
            self._end_closed_call(out, marker in (self.CALL_END, self.SECTION_END))
        if marker == self.SECTION_END:
            self._mode = TEXT
            if self._section_calls:
                self._raw = []
                self._block_ended()
            else:  # an empty section is not markup
                self._raw.append(marker)
                self._release_raw(out)
        elif marker == self.CALL_START or marker in self.SECTION_START:
            self._raw.append(marker)
            self._start_header()
        else:  # the last call's suffix or closer (``_closes_again``): its markup
            self._raw = []

    def _end_closed_call(self, out: list[Event], complete: bool) -> None:
        assert self._closed_call is not None
        index, text = self._closed_call
        self._closed_call = None
        self._end_call(out, index, text, not complete)

    # -- a raw call (RAW_CODE) ---------------------------------------------------------------

    def _open_raw(self, out: list[Event]) -> None:
        """The rest of the output is the raw argument of a RAW_CODE call."""
        assert self.RAW_CODE is not None
        name, key = self.RAW_CODE
        self._index = self._start_call(out, name)
        opening = "{" + json_quote(key) + ': "'
        self._raw_args = [opening]
        self._emit_args(out, self._index, opening)
        self._raw = []
        self._mode = RAW

    def _read_raw(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        piece = json_quote(buf[pos:] if pos else buf)[1:-1]  # (each character on its own)
        if piece:
            self._raw_args.append(piece)
            self._emit_args(out, self._index, piece)
        return len(buf), False

    # -- a Python-literal body (LITERAL_ARGS), the rest of a broken one (JUNK_TO_CALL_END) ----

    def _read_literal(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """A Python-literal body, kept up to the next stop marker (a cut one held), then
        decided whole (``_end_literal``)."""
        finder = self._body_finder
        assert finder is not None
        end, resume, marker = finder.take(buf, pos, final)
        if end > pos:
            self._literal.append(buf[pos:end])
        if marker is None:
            return end, True
        self._end_literal(out, marker == self.CALL_END)
        if marker == self.CALL_END:
            self._closers = 2  # its closer, read
            return resume, False
        return end, False  # another marker: read next

    def _end_literal(self, out: list[Event], closed: bool) -> None:
        """A literal body whose closer came (``closed``) and that reads as a dict is the
        call's arguments, as JSON; else the call ends incomplete with ``{}`` and the body
        is text."""
        body = "".join(self._literal)
        self._literal = []
        index = self._index
        value: object = None
        args = ""
        if closed:
            try:
                value = ast.literal_eval(body)
                if isinstance(value, dict):
                    args = json.dumps(value, ensure_ascii=False, allow_nan=False)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                value = None
        if isinstance(value, dict):
            self._emit_args(out, index, args)
            self._end_call(out, index, args)
        else:
            self._end_call(out, index, None, True)
            if body:
                out.append(Text(body))
        self._index = -1
        self._section_calls += 1
        self._closers = 0
        self._raw = []
        self._mode = AFTER

    def _read_junk(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """The rest of a broken body: text up to the next stop marker; a CALL_END there
        closes the broken call (markup), another marker is read next."""
        finder = self._body_finder
        assert finder is not None
        end, resume, marker = finder.take(buf, pos, final)
        if end > pos:
            out.append(Text(buf[pos:end]))
        if marker is None:
            return end, True
        self._mode = AFTER
        if marker == self.CALL_END:
            self._closers = 2
            return resume, False
        return end, False

    # -- failure and the end ---------------------------------------------------------------

    def _markup_to_text(self, out: list[Event], pos: int) -> Step:
        """Malformed markup before a call started: released as text; text again from
        ``pos``."""
        self._release_raw(out)
        self._mode = TEXT
        return pos, False

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        mode = self._mode
        if mode == RAW:  # the end of the output is the end of the raw argument
            self._raw_args.append('"}')
            self._emit_args(out, self._index, '"}')
            self._end_call(out, self._index, "".join(self._raw_args))
            self._raw_args = []
            return
        if mode == ARGS:
            self._close_call(out, incomplete=True, tail=rest)
            return
        if mode == LITERAL:  # cut by the end of the stream: text
            self._literal.append(rest)
            self._end_literal(out, False)
            return
        if mode == JUNK:
            if rest:
                out.append(Text(rest))
            return
        if mode == OPEN:  # the header is complete: the call is reported
            self._open_call(out)
            assert self._args is not None
            self._emit_args(out, self._index, self._args.push("{}", 0, True)[0])
            self._close_call(out, incomplete=True)
            return
        if mode == AFTER and self._section_calls:
            if self._closed_call is not None:  # its closer never came
                self._end_closed_call(out, False)
            text = "".join(self._raw) + rest
            if text.strip():
                out.append(Text(text))
            self._raw = []
            return
        self._raw.append(rest)
        self._release_raw(out)


HeaderJsonParser._derive()  # (the base class too, though it reads no format)
