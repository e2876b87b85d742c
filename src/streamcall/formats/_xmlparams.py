"""The XML-parameter engine: calls whose arguments are tagged, untyped text.

Grammar (every marker and header is configured per format by class attributes)::

    output  := (text | block | call | region | FRAMES)*   # bare calls only if BARE_CALLS
    block   := BLOCK_OPEN (ws | IGNORE | BLOCK_SKIP | call)* BLOCK_CLOSE?
    call    := CALL_OPEN CALL_HEADER (ws | param)* (CALL_CLOSE | BLOCK_CLOSE)
             | CALL_OPEN CALL_HEADER ws* body ws* (CALL_CLOSE | BLOCK_CLOSE)  # JSON_ARGS
    body    := object | WRAP[0] ws* object ws* WRAP[1]?          # WRAP: JSON_ARGS_WRAP
    param   := PARAM_OPEN PARAM_HEADER value PARAM_CLOSE?
    value   := raw text up to the first terminator: PARAM_CLOSE, or (a missing closer, as
               vLLM tolerates) the next PARAM_OPEN, CALL_CLOSE or BLOCK_CLOSE
    region  := TEXT_REGION[0] text TEXT_REGION[1]?   # text; no call is read inside

``CALL_HEADER`` is a regex with a ``name`` group (``<function=NAME>``, ``name="f">``,
``NAME<tool_sep>``...) and, where a call may be a JSON call object, a ``json`` group that
is set when it is one (``{"name": NAME, "arguments": `` before the arguments' ``{``, or
before the object's ``}``: the object's ``}`` may follow the arguments). ``PARAM_HEADER``
has a ``key`` group and, for DSML, a ``string`` group (``string="true|false"``); a ``type``
group holds a type the model wrote beside the key (K2 Horizon's ``<ifm|arg_type>``), which
types the value with the schema (``schema.written_type_plan``).

Modes (``Mode``) and what each step reads::

    mode        reads                                    next        emits
    TEXT        text up to an opener                     BLOCK, HEADER, SUFFIX, REGION  Text
    REGION      text up to its closer                    TEXT        Text
    SUFFIX      a marker suffix and '>' (MARKER_SUFFIX)  BLOCK; TEXT Text (not an opener)
    BLOCK       blanks, IGNORE, BLOCK_SKIP               BLOCK
                CALL_OPEN                                HEADER
                '{' as the first call (JSON_BODY)        JSON_BLOCK
                BLOCK_CLOSE, junk                        TEXT        Text (junk; an empty block)
    JSON_BLOCK  a block of JSON calls (``_jsoncalls``)   TEXT        (that engine's events)
    HEADER      CALL_HEADER                              PARAMS      ToolCallStart, '{'
                a header that does not match             TEXT        Text (the markup)
    PARAMS      whole short parameters (ShortMembers)    PARAMS      ToolCallArgs
                PARAM_OPEN                               KEY
                '{' as the call's body (JSON_ARGS)       ARGS
                CALL_CLOSE, BLOCK_CLOSE                  BLOCK, TEXT ToolCallEnd
                junk                                     TEXT        ToolCallEnd incomplete; Text
    KEY         PARAM_HEADER                             VALUE       ',"key":'
    VALUE       the value's first character              STRING, HELD, LITERAL, CDATA
    STRING      value text, streamed as a JSON string    PARAMS      ToolCallArgs
    HELD        value text, held, converted at its end   PARAMS      ToolCallArgs
    LITERAL     a possible true, false or null           HELD, STRING
    CDATA       a CDATA section, literally (CDATA)       STRING, HELD
    ARGS        a JSON object, verbatim                  AFTER_ARGS  ToolCallArgs
    AFTER_ARGS  blanks, a JSON call object's '}'         AFTER_ARGS
                CALL_CLOSE or BLOCK_CLOSE                BLOCK, TEXT ToolCallEnd (incomplete on junk)

A value is typed by its key's property in the tool's schema (``schema.py``: properties,
``$ref``s, type names, value plans). Arguments are converted to compact JSON and streamed
while they are written; every piece is final, so the deltas only grow a prefix of the
final object: ``{`` when the call starts, ``,"key":`` when a parameter opens, then the
value, by its plan (``schema.value_plan``): ``STRING`` (or DSML's ``string="true"``)
streams its body as it arrives; ``HELD`` waits for its terminator and is converted
(``schema.convert_value``); ``AUTO`` (untyped) is decided by its first character, so that
nothing is ever taken back (JSON-like: held; a possible ``true``/``false``/``null``: held,
at most 5 characters; else a string); ``NULLABLE_STRING`` streams unless it may still be
``null``. The one newline these formats write after the opening tag and before the closer
is stripped, as vLLM does (not with ``STRIP_NEWLINES`` off: Step-3 writes values inline).

The argument pieces of a chunk leave as one ``ToolCallArgs`` per call: steps collect them
(``_add_args``) and the step that ends the chunk's reading (it holds, or reaches the end
of the buffer: ``_hold``, ``_moved``), or the call's end, emits them joined
(``_flush_args``). Ids, closing a call and releasing markup as text are ``ToolParser``'s.

What it holds back: a partial marker at the end of text or of a value (bounded by the
longest marker), a trailing newline of a value, a header not yet closed (at most
``MAX_HEADER`` characters: a longer one is not a header, even when it arrives whole), a
literal candidate, and a short parameter cut by the end of
the chunk, whole (``streamcall.text.ShortMembers``: at most 128 characters, 8 of value).
Held values are consumed into a list of parts, never kept in the tail, so feeding stays
linear however long they are.

The fast reads, each a primitive of the text layer with its reference path beside it
(``streamcall.text.fast``): whole short parameters by one regex each and a cut one held
whole, unread while added chunks cannot close it (``ShortMembers``, with the regex of one
parameter from ``tagged_member_pattern``: its opener and header are atomic groups, so
they match what the token-by-token steps match; a held one waits in the feed loop, which
runs no step for a chunk that cannot close it). ``ShortMembers.step`` is the PARAMS
step: it hands each whole parameter to ``_take_param`` and the rest to ``_read_tokens``.
Value text up to a terminator is ``StopMarkers.find``'s (a chunk without the terminators'
lead is all value), a read that the STRING step writes out for its common chunk.

Options: ``STRIP_VALUES`` (TeleChat4): every blank around a value is stripped (SGLang
strips them), in place of the one newline; a string value streams without its leading
blanks, and its trailing ones wait, consumed into a list (never held in the tail), until
text (they are the value's) or the terminator (they are not) follows; a literal followed by
blanks is held the same way, in the held value's parts. ``JSON_BODY`` (Qwen): a block whose first non-blank character is ``{`` holds
Hermes JSON calls, handed to the JSON-call engine until the block ends; the two bodies may
be mixed block by block. ``MARKER_SUFFIX`` (Tencent HY, ``<tool_calls:6124c78e>``): text
is searched for BLOCK_OPEN without its ``>``, SUFFIX reads the suffix and the ``>`` (held
while cut, bounded by the regex), and the block's markers become that suffix's
(``_use_suffix``); anything else after the stem makes it text. ``CDATA`` (MiniCPM5): a
value that starts with ``<![CDATA[`` is read literally up to ``]]>`` (markup included),
then goes on as written; a string or untyped value streams the section's text, any other
holds it. ``WRAPPER_KEYS`` (DSML ``arguments``, ``input``): a call's first parameter of
such a name, where the schema is known and lacks it, is held whole (nothing emitted) until
what follows decides it: the call's closer with no other parameter unwraps it when its
value is a JSON object (raw, or a JSON string holding one) of the tool's keys; anything
else makes it the parameter it was written as. ``TEXT_REGION`` (Seed-OSS's
``<seed:think>``): text in which calls are drafts, not calls. ``JSON_ARGS`` (DSML): a call
whose body is a JSON object has it for arguments, streamed verbatim (``ArgsStreamer``; the
call's ``{`` is emitted already, so the object's own is dropped); junk after it, or JSON
that breaks, ends the call ``incomplete``. A JSON call object (the ``json`` group of
``CALL_HEADER``) has its arguments read so too. ``JSON_ARGS_TYPED`` (K2 Horizon's JSON
dialect): the object's top-level values are typed by the schema as tagged values are,
streamed where the model wrote what the plan takes, else held and converted
(``_jsonmembers.TypedJsonArgs``). ``QUOTED_STRINGS`` (Muse, whose values are JSON
when they load): an untyped value that starts with ``"`` is held, and is the string it
encodes when it is one JSON string (``schema.quoted_string_json``), else its raw text.
``JSON_ARGS_WRAP`` (Kimi K3's ``<|open|>json type="object"<|sep|>`` …
``<|close|>json<|sep|>``): markers around that object, read as call markers (a cut one is held); the opener after a parameter, or the
closer anywhere but after the object, is junk. ``FRAMES`` (Kimi K3's response channel,
``ToolParser.FRAMES``): markers dropped from the text, found as text's other markers are
(a cut one held); blanks after a block before one are a gap, dropped with it.

Whitespace after a call or block is markup if another call or block or the end follows,
else text (``_skip_gap``). Inside a block that has held a call, the wrappers between calls
are markup, with the blanks before them; blanks before junk or a cut call are text again.
Malformed markup ends a started call ``incomplete`` with its JSON closed and the rest is
text; before a call has started, the markup consumed so far is text. A call still open at
the end of the stream ends ``incomplete``.
"""

from __future__ import annotations

import json
import re
from enum import IntEnum
from typing import Any, ClassVar

from streamcall.events import Event, Text, ToolCallArgs
from streamcall.formats._base import ToolParser, Tools
from streamcall.formats._jsoncalls import JsonCallsParser
from streamcall.formats._jsonmembers import TypedJsonArgs
from streamcall.formats.schema import (
    AUTO,
    AUTO_JSON_START,
    HELD,
    LITERALS,
    NULLABLE_STRING,
    STRING,
    compact_json,
    convert_value,
    flagged_json_value,
    quoted_string_json,
    tool_properties,
    value_plan,
    whole_value_json,
    wrapped_arguments,
    written_type_plan,
)
from streamcall.text import (
    ArgsStreamer,
    MarkerFinder,
    PartialMarkers,
    ShortMembers,
    Step,
    StepFn,
    StopMarkers,
    cut_marker,
    fast,
    header_match,
    json_quote,
    tagged_member_pattern,
)

__all__ = ["Mode", "XmlParamsParser"]

_WS = re.compile(r"\s*")
_CDATA_OPEN, _CDATA_CLOSE = "<![CDATA[", "]]>"


class Mode(IntEnum):
    """Where the engine is (the table in the module header)."""

    TEXT = 0
    REGION = 1
    SUFFIX = 2
    BLOCK = 3
    JSON_BLOCK = 4
    HEADER = 5
    PARAMS = 6
    KEY = 7
    VALUE = 8
    STRING = 9
    HELD = 10
    LITERAL = 11
    CDATA = 12
    ARGS = 13
    AFTER_ARGS = 14


# The modes as plain ints, for the steps' comparisons.
(TEXT, REGION, SUFFIX, BLOCK, JSON_BLOCK, HEADER, PARAMS, KEY) = map(int, tuple(Mode)[:8])
(VALUE, STRING_MODE, HELD_MODE, LITERAL, CDATA, ARGS, AFTER_ARGS) = map(int, tuple(Mode)[8:])
#: the modes inside a call's parameters
_IN_CALL = frozenset((PARAMS, KEY, VALUE, STRING_MODE, HELD_MODE, LITERAL, CDATA))


class XmlParamsParser(ToolParser):
    """Configurable parser for the XML-parameter tool-call formats."""

    BLOCK_OPEN: ClassVar[str | None] = None
    BLOCK_CLOSE: ClassVar[str | None] = None
    #: markers skipped between calls inside a block (Step-3's per-call wrappers)
    IGNORE: ClassVar[tuple[str, ...]] = ()
    #: also accept calls outside a block
    BARE_CALLS: ClassVar[bool] = False
    CALL_OPEN: ClassVar[tuple[str, ...]] = ()
    CALL_HEADER: ClassVar[re.Pattern[str]]
    CALL_CLOSE: ClassVar[str] = ""
    PARAM_OPEN: ClassVar[tuple[str, ...]] = ()
    PARAM_HEADER: ClassVar[re.Pattern[str]]
    PARAM_CLOSE: ClassVar[str] = ""
    #: a character that every parameter closer needs ('': PARAM_CLOSE's last), and one that
    #: every header needs ('': the same): a chunk without it cannot complete a parameter cut
    #: in its value (in its header), which stays held unread
    PARAM_LAST: ClassVar[str] = ""
    #: a parameter's closer is ``PARAM_CLOSE`` + its key + one character (MiniMax-M3's
    #: ``NS</KEY>``): a cut member's closer is that much longer
    KEYED_CLOSER: ClassVar[bool] = False
    #: no parameter's opener and header are whole in fewer characters (0: not used); a
    #: member cut before its value stays unread while shorter, even if the chunk brought
    #: ``HEADER_LAST`` (MiniMax-M3's opener holds a ``>``)
    HEADER_MIN: ClassVar[int] = 0
    HEADER_LAST: ClassVar[str] = ""
    MAX_HEADER: ClassVar[int] = 512
    #: what, at the start of a header, means it can never match: not a call, decided at once
    NO_HEADER: ClassVar[re.Pattern[str] | None] = None
    #: a block starting with ``{`` holds Hermes JSON calls
    JSON_BODY: ClassVar[bool] = False
    #: strip the one newline after a value's opening tag and before its closer
    STRIP_NEWLINES: ClassVar[bool] = True
    #: strip every blank around a value (TeleChat4); it takes the place of STRIP_NEWLINES
    STRIP_VALUES: ClassVar[bool] = False
    #: skipped between calls inside a block, like IGNORE, when it matches (Step-3's
    #: ``function<｜tool_sep｜>NAME\n``); a match reaching the end of the text is held
    BLOCK_SKIP: ClassVar[re.Pattern[str] | None] = None
    #: a per-checkpoint suffix inside every marker, read after BLOCK_OPEN's stem: a
    #: bounded regex with a ``suffix`` group (``:`` and at least one character) and a
    #: ``close`` group for the ``>``; a match without ``close`` reaching the end is held
    MARKER_SUFFIX: ClassVar[re.Pattern[str] | None] = None
    #: a value that starts with ``<![CDATA[`` is read literally up to ``]]>``
    CDATA: ClassVar[bool] = False
    #: a call whose body is a JSON object has it for arguments, streamed verbatim
    JSON_ARGS: ClassVar[bool] = False
    #: with JSON_ARGS: the object's top-level values are typed by the schema, as tagged
    #: values are (``_jsonmembers``), instead of streamed verbatim
    JSON_ARGS_TYPED: ClassVar[bool] = False
    #: with JSON_ARGS, ``(opener, closer)`` that may wrap that object (Kimi K3's JSON block)
    JSON_ARGS_WRAP: ClassVar[tuple[str, str] | None] = None
    #: ``(opener, closer)`` of a span of text in which no call is read; the span, markers
    #: included, is text, and an unclosed one lasts to the end of the stream
    TEXT_REGION: ClassVar[tuple[str, str] | None] = None
    #: parameter names that may wrap the call's arguments
    WRAPPER_KEYS: ClassVar[tuple[str, ...]] = ()
    #: an untyped value that starts with ``"`` is held and, when it is one JSON string,
    #: read as that string (Muse's values are JSON when they load)
    QUOTED_STRINGS: ClassVar[bool] = False

    def __init__(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> None:
        super().__init__(tools, id_prefix=id_prefix)
        cls = type(self)
        self._delta: list[str] = []  # argument pieces of this chunk, not yet an event
        self._setup_markers()
        # With MARKER_SUFFIX, text is searched for BLOCK_OPEN without its ``>`` (the stem).
        self._stem = (
            cls.BLOCK_OPEN[:-1] if cls.MARKER_SUFFIX is not None and cls.BLOCK_OPEN else None
        )
        self._setup_text_finder()
        self._reset_reading()
        self._steps: list[StepFn] = [
            self._read_text,
            self._read_region,
            self._read_suffix,
            self._read_block,
            self._read_json_block,
            self._read_header,
            self._read_params,
            self._read_key,
            self._read_value_start,
            self._read_string_stripped if self.STRIP_VALUES else self._read_string,
            self._read_held,
            self._read_literal,
            self._read_cdata,
            self._read_json_args,
            self._read_after_args,
        ]

    def _reset_reading(self) -> None:
        """The reading state of a fresh stream: ``__init__``'s, and again for an engine
        that a host feeds one message at a time and finishes at each message's end (Muse's
        tool channels), which is then read anew at the next one without building its
        markers again. The call count and ids are kept (the host shares its own)."""
        self._tail = ""
        self._finished = False
        self._wait_len = 0  # (the feed loop's wait, rule 4)
        self._raw = []
        self._gap = None
        self._delta.clear()
        self._opener = ""  # the CALL_OPEN marker of the call whose header is read
        self._mode = TEXT
        self._in_block = False
        self._calls_in_block = 0
        self._json_block: _JsonBlock | None = None
        self._reset_call()

    def _param_types(self, function: str) -> dict[str, Any]:
        """The property schemas of a tool, a top-level union's included."""
        return tool_properties(self.tools, function)

    def _setup_text_finder(self) -> None:
        starts: list[str] = []
        if self.BLOCK_OPEN is not None:
            starts.append(self._stem or self.BLOCK_OPEN)
        if self.BLOCK_OPEN is None or self.BARE_CALLS:
            starts.extend(self.CALL_OPEN)
        region = self.TEXT_REGION
        if region is not None:
            starts.append(region[0])
            self._region_finder = MarkerFinder((region[1],))
        starts.extend(self.FRAMES)
        self._text_finder = MarkerFinder(starts)

    def _setup_markers(self) -> None:
        """Everything derived from the markers inside a block. They are read through
        ``self``, so that a format whose markers carry a suffix (``MARKER_SUFFIX``) can set
        them per block and call this again."""
        block_close = (self.BLOCK_CLOSE,) if self.BLOCK_CLOSE else ()
        self._block_markers = (*self.CALL_OPEN, *block_close, *self.IGNORE)
        self._block_partial = PartialMarkers(self._block_markers)
        # Longest first, so that a closer is not taken for a parameter opener that is its
        # prefix (MiniMax-M3's ``NS<`` and ``NS</invoke>``).
        wrap = self.JSON_ARGS_WRAP or ()
        self._call_markers = tuple(
            sorted((*self.PARAM_OPEN, self.CALL_CLOSE, *block_close, *wrap), key=len, reverse=True)
        )
        self._call_marker_re = re.compile("|".join(map(re.escape, self._call_markers)))
        # A cut marker between parameters is held; so is a whole one that a longer marker
        # starts with (``NS<`` of ``NS</invoke>``), but no other: a call whose closer ends
        # a chunk ends with that chunk.
        self._call_partial = PartialMarkers(self._call_markers)
        self._call_extendable = frozenset(
            m
            for m in self._call_markers
            if any(o != m and o.startswith(m) for o in self._call_markers)
        )
        self._extendable_len = max(map(len, self._call_extendable), default=0)
        self._terminators = (self.PARAM_CLOSE, *self._call_markers)
        self._terminator_stops = StopMarkers(self._terminators)
        self._has_string_flag = "string" in self.PARAM_HEADER.groupindex  # DSML's string="true"
        self._has_type_group = "type" in self.PARAM_HEADER.groupindex  # a type written
        self._has_json_group = "json" in self.CALL_HEADER.groupindex  # a JSON call object
        member = self._member_pattern()
        if member is None:
            self._read_params: StepFn = self._read_tokens
        else:
            stops = {t[0] for t in self._terminators}
            members = ShortMembers(
                member,
                self.PARAM_LAST or self.PARAM_CLOSE[-1:],
                len(self.PARAM_CLOSE),
                stops.pop() if len(stops) == 1 else "",
                self.HEADER_LAST,
                keyed_closer=self.KEYED_CLOSER,
                header_min=self.HEADER_MIN,
                member=self._take_param,
                tokens=self._read_tokens,
                pending=self._delta,
                flush=self._flush_args,
                loop=self,
            )
            self._value_group = members.value
            self._read_params = members.step
        if self._steps:
            # Markers set again (``_use_suffix``), maybe inside ``feed``: the PARAMS step
            # is new, in the same table (a list, which the feed loop holds as it reads).
            self._steps[PARAMS] = self._read_params

    def _reset_call(self) -> None:
        self._index = -1
        self._props: dict[str, Any] = {}
        self._parts: list[str] = []  # every argument piece of the call
        self._member_count = 0
        self._key_open = False  # `"key":` emitted, value not started
        self._plan = STRING
        self._types: frozenset[str] = frozenset()
        self._flag_json = False  # DSML's string="false" on the open parameter
        self._held: list[str] = []
        self._blanks: list[str] = []  # STRIP_VALUES: a string value's blanks, not yet emitted
        self._newline_skipped = False
        self._param_gap: list[str] = []  # blanks after a parameter: text if junk follows
        self._after_cdata = STRING_MODE  # the mode a CDATA section returns to
        self._args: ArgsStreamer | TypedJsonArgs | None = None  # a JSON object body (JSON_ARGS)
        self._json_call = False  # a JSON call object's '}' is still due after the arguments
        # WRAPPER_KEYS: whether this call's first parameter may wrap its arguments, the
        # wrapper whose value is being read, and one read (key, raw value, flag), held
        self._wrapper_possible = False
        self._reading_wrapper: tuple[str, str | None] | None = None
        self._held_wrapper: tuple[str, str, str | None] | None = None

    # -- the chunk's argument pieces ---------------------------------------------------------

    def _add_args(self, text: str) -> None:
        self._parts.append(text)
        self._delta.append(text)

    def _flush_args(self, out: list[Event]) -> None:
        """The chunk's pieces as one event. When they are all of the call's pieces (a whole
        call in one chunk), the joined text stands for them, so that the call's arguments
        are that same string, not a second copy of a big value."""
        delta = self._delta
        if delta:
            text = "".join(delta)
            if len(delta) == len(self._parts):
                self._parts = [text]
            self._emit_args(out, self._index, text)
            delta.clear()

    def _hold(self, out: list[Event], pos: int) -> Step:
        """Stop reading: ``buf[pos:]`` is held; the chunk's pieces leave."""
        if self._delta:
            self._flush_args(out)
        return pos, True

    def _moved(self, out: list[Event], pos: int, n: int) -> Step:
        """Go on from ``pos``; at the end of the buffer the chunk's pieces leave."""
        if pos == n and self._delta:
            self._flush_args(out)
        return pos, False

    # -- text, regions, blocks -----------------------------------------------------------------

    def _read_text(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        pos, marker = self._text_until_marker(buf, pos, out, self._text_finder, final)
        if marker is None:
            return pos, True
        if marker in self.FRAMES:
            self._lead = ""  # dropped, and the blanks after a block before it, as a gap
            return pos, False
        if self.TEXT_REGION is not None and marker == self.TEXT_REGION[0]:
            # blanks after a block stay text: no block follows them
            out.append(Text(self._lead + marker))
            self._lead = ""
            self._mode = REGION
            return pos, False
        self._raw = [marker]
        if marker == self._stem:
            self._mode = SUFFIX
        elif marker == self.BLOCK_OPEN:
            self._open_block()
        else:
            self._in_block = False
            self._opener = marker
            self._mode = HEADER
        return pos, False

    def _open_block(self) -> None:
        self._in_block = True
        self._calls_in_block = 0
        self._mode = BLOCK

    def _read_region(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        end, resume, marker = self._region_finder.take(buf, pos, final)
        if marker is None:
            if end > pos:
                out.append(Text(buf[pos:end]))
            return end, True  # a cut closer is held
        out.append(Text(buf[pos:resume]))
        self._mode = TEXT
        return resume, False

    def _read_suffix(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        m = self.MARKER_SUFFIX.match(buf, pos)  # type: ignore[union-attr]
        if m is None or m.group("close") is None or m.group("suffix") == ":":
            if m is not None and m.end() == len(buf) and not final:
                return pos, True  # may still become a suffixed block opener
            return self._markup_to_text(out, pos)  # the stem (and the blanks before it) are text
        self._raw.append(m.group())
        self._use_suffix(m.group("suffix") or "")
        self._open_block()
        return m.end(), False

    def _read_block(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        # Before its first call a block may still turn out to be text, so its markup is
        # kept to be released. After one, the wrappers between calls are the block's
        # markup and are dropped, and so are the blanks before a wrapper, a call that
        # opens or the block's end; blanks before junk or a cut call are text again, with
        # it (the gap rule of ``_skip_gap``).
        n = len(buf)
        ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
        first = self._calls_in_block == 0
        if ws == n:
            self._raw.append(buf[pos:ws])
            return ws, True
        if self.JSON_BODY and first and buf[ws] == "{":
            self._raw.append(buf[pos:ws])
            block = _JsonBlock(self.tools, id_prefix=self.id_prefix)
            block._open_block(self._raw, bare=False)
            block._end = self.BLOCK_CLOSE  # the block's own closer
            block._lead, self._lead = self._lead, ""  # the gap before it goes with its markup
            self._json_block = block
            self._raw = []
            self._mode = JSON_BLOCK
            return ws, False
        skip = self.BLOCK_SKIP.match(buf, ws) if self.BLOCK_SKIP is not None else None
        if skip is not None and skip.end() > ws:
            if skip.end() == n and not final:
                self._raw.append(buf[pos:ws])
                return ws, True
            if first:
                self._raw.append(buf[pos : skip.end()])
            else:
                self._raw = []
            return skip.end(), False
        marker = next((m for m in self._block_markers if buf.startswith(m, ws)), None)
        if marker is None:
            if not final and self._block_partial.holds(buf, ws):
                self._raw.append(buf[pos:ws])
                return ws, True
            self._in_block = False  # junk in a block: the block is over, the junk is text
            return self._markup_to_text(out, pos)
        if first or marker in self.CALL_OPEN:
            self._raw.append(buf[pos : ws + len(marker)])
        else:  # a wrapper or the end: markup, with the blanks before it (held ones too)
            self._raw = []
        if marker == self.BLOCK_CLOSE:
            if first:
                self._release_raw(out)
            else:
                self._block_ended()
            self._raw = []
            self._in_block = False
            self._mode = TEXT
        elif marker in self.CALL_OPEN:
            self._opener = marker
            self._mode = HEADER
        return ws + len(marker), False

    def _read_json_block(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        block = self._json_block
        assert block is not None
        pos, hold = block.read_embedded_block(self, buf, pos, out, final)
        if hold and pos < len(buf):
            return pos, True
        if not block._block_open:
            self._json_block = None
            self._in_block = False
            self._mode = TEXT
        return pos, False

    # -- a call ----------------------------------------------------------------------------------

    def _read_header(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        m = header_match(self.CALL_HEADER, buf, pos, self.MAX_HEADER)
        name = self._call_name(m) if m is not None else ""
        if m is None or not name:
            if (
                m is None
                and not final
                and len(buf) - pos <= self.MAX_HEADER
                and (self.NO_HEADER is None or self.NO_HEADER.match(buf, pos) is None)
            ):
                return pos, True  # hold the header until it is complete
            self._in_block = False
            return self._markup_to_text(out, pos)
        self._raw = []
        self._calls_in_block += 1
        self._reset_call()
        self._props = self._param_types(name)
        self._wrapper_possible = bool(self.WRAPPER_KEYS and self._props) and any(
            k not in self._props for k in self.WRAPPER_KEYS
        )
        self._index = self._start_call(out, name)
        self._add_args("{")
        self._mode = PARAMS
        if self._has_json_group and m.group("json") is not None:
            # A JSON call object: its arguments object follows (PARAMS reads it, as
            # JSON_ARGS), or its '}' at once (a call with no arguments).
            self._json_call = True
            if buf.startswith("}", m.end()):
                self._mode = AFTER_ARGS
        return self._moved(out, m.end(), len(buf))

    def _call_name(self, m: re.Match[str]) -> str:
        """The name of a call from its header's match (empty: not a call; the opener that
        led to the header is ``self._opener``)."""
        return m.group("name").strip()

    def _use_suffix(self, suffix: str) -> None:
        """Set the markers of a block whose opener carried ``suffix`` (``MARKER_SUFFIX``)."""
        raise NotImplementedError

    def _read_tokens(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """Between parameters, one token: blanks, an opener, a closer or junk (the PARAMS
        step itself where no regex reads short parameters; else ``ShortMembers.step``
        hands it what is not a whole one)."""
        n = len(buf)
        ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws > pos:
            self._param_gap.append(buf[pos:ws])  # text again if junk follows
        if ws == n:
            return self._hold(out, ws)
        if not final and (
            self._call_partial.holds(buf, ws)
            or (n - ws <= self._extendable_len and buf[ws:] in self._call_extendable)
        ):
            return self._hold(out, ws)  # may still become a (longer) marker
        found = self._call_marker_re.match(buf, ws)
        if found is None:
            if (
                self.JSON_ARGS
                and not self._member_count
                and self._held_wrapper is None
                and buf[ws] == "{"
            ):
                self._param_gap = []
                self._args = TypedJsonArgs(self._props) if self.JSON_ARGS_TYPED else ArgsStreamer()
                self._mode = ARGS
                return ws, False
            return self._junk_ends_call(out, ws)
        self._param_gap = []
        marker = found.group()
        if marker == self.CALL_CLOSE or marker == self.BLOCK_CLOSE:
            if marker == self.BLOCK_CLOSE:
                self._in_block = False
            self._close_call(out, incomplete=False)
        elif self.JSON_ARGS_WRAP is not None and marker in self.JSON_ARGS_WRAP:
            if (
                marker != self.JSON_ARGS_WRAP[0]
                or self._member_count
                or self._held_wrapper is not None
            ):
                return self._junk_ends_call(out, ws)
            # the object's opener: the object follows (read as a bare one, above)
        else:
            self._raw = [marker]
            self._mode = KEY
        return self._moved(out, found.end(), n)

    def _take_param(self, m: re.Match[str]) -> None:
        """A whole short parameter read by ``ShortMembers``: its piece is the JSON that the
        token by token read (``_open_param``, the value's steps, ``_finish_value``) gives
        for the same text."""
        value = m.group(self._value_group)
        if not (
            self._wrapper_possible
            and (self._held_wrapper is not None or not self._member_count)
            and self._wrapper_member(m, value)  # (True: held, nothing to emit)
        ):
            text = self._param_json(m, value)
            if self._member_count:
                text = "," + text
            self._member_count += 1
            self._parts.append(text)
            self._delta.append(text)
        if self._param_gap:
            self._param_gap = []

    def _member_pattern(self) -> str | None:
        """The regex of one short parameter, for ``ShortMembers`` (None: not read so)."""
        return tagged_member_pattern(
            self.PARAM_OPEN, self.PARAM_HEADER, self.PARAM_CLOSE, self._call_markers
        )

    def _param_json(self, m: re.Match[str], value: str) -> str:
        """``"key":value`` for a whole parameter read by ``ShortMembers`` (``_take_param``)."""
        if self.STRIP_VALUES:
            value = value.strip()
        elif self.STRIP_NEWLINES:
            if value[:1] == "\n":
                value = value[1:]
            if value[-1:] == "\n":
                value = value[:-1]
        key, plan, types = self._param_plan(m)
        if plan == AUTO and self.QUOTED_STRINGS and value[:1] == '"':
            return json_quote(key) + ":" + quoted_string_json(value)
        if plan == HELD and self._json_flagged(m):
            return json_quote(key) + ":" + flagged_json_value(value, types)
        return json_quote(key) + ":" + whole_value_json(plan, types, value)

    def _json_flagged(self, m: re.Match[str]) -> bool:
        """DSML's ``string="false"``: the value is JSON, whatever the schema types it."""
        return self._has_string_flag and m.group("string") == "false"

    def _param_plan(self, m: re.Match[str]) -> tuple[str, int, frozenset[str]]:
        """A parameter's key and how its value is read (its plan and types), from its
        header's match: by the key's property in the schema, else by DSML's ``string``
        flag (``true``: a string, anything else: JSON, held)."""
        key = m.group("key").strip()
        plan, types = value_plan(self._props.get(key))
        if plan == AUTO and self._has_string_flag:
            flag = m.group("string")
            if flag is not None:
                plan = STRING if flag == "true" else HELD
        elif plan in (STRING, NULLABLE_STRING) and self._json_flagged(m):
            plan = HELD  # a string property written as JSON (``"hello"``): read it whole
        if self._has_type_group and m.group("type") is not None:
            plan, types = written_type_plan(self._props.get(key), m.group("type"))
        return key, plan, types

    def _read_key(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        m = header_match(self.PARAM_HEADER, buf, pos, self.MAX_HEADER)
        if m is None:
            if not final and len(buf) - pos <= self.MAX_HEADER:
                return self._hold(out, pos)
            self._close_call(out, incomplete=True)
            return self._markup_to_text(out, pos)
        self._raw = []
        self._open_param(out, m)
        return self._moved(out, m.end(), len(buf))

    def _open_param(self, out: list[Event], m: re.Match[str]) -> None:
        key, plan, types = self._param_plan(m)
        self._flag_json = self._json_flagged(m)
        self._held = []
        self._blanks = []
        self._newline_skipped = False
        self._mode = VALUE
        if self._wrapper_possible:
            if self._held_wrapper is not None:  # a second parameter: the first wrapped nothing
                self._settle_wrapper(unwrap=False)
            elif not self._member_count and key in self.WRAPPER_KEYS and key not in self._props:
                # Maybe the call's arguments: read it whole, emit nothing yet.
                self._reading_wrapper = (key, m.group("string") if self._has_string_flag else None)
                self._plan, self._types = HELD, frozenset()
                return
        self._plan = plan
        self._types = types
        self._add_args(("," if self._member_count else "") + json_quote(key) + ":")
        self._member_count += 1
        self._key_open = True

    # -- a value ---------------------------------------------------------------------------------

    def _read_value_start(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """The value's first character decides how it is read (its plan, the module
        header); the newline after the opening tag is skipped first (every blank, with
        STRIP_VALUES)."""
        n = len(buf)
        if self.STRIP_VALUES:
            pos = _WS.match(buf, pos).end()  # type: ignore[union-attr]
            if pos == n:
                return self._hold(out, pos)
        elif buf[pos] == "\n" and not self._newline_skipped and self.STRIP_NEWLINES:
            self._newline_skipped = True
            pos += 1
            if pos == n:
                return self._hold(out, pos)
        plan = self._plan
        c = buf[pos]
        if c == "<" and self.CDATA:
            if buf.startswith(_CDATA_OPEN, pos):
                held = plan == HELD
                if not held:
                    self._open_string()
                self._after_cdata = HELD_MODE if held else STRING_MODE
                self._mode = CDATA
                return pos + len(_CDATA_OPEN), False
            if not final and cut_marker(_CDATA_OPEN, buf, pos):
                return self._hold(out, pos)  # may still open a CDATA section
        if plan == STRING:
            self._open_string()
        elif plan == HELD or (
            plan == AUTO and (c in AUTO_JSON_START or (c == '"' and self.QUOTED_STRINGS))
        ):
            self._mode = HELD_MODE
        elif c in ("tfn" if plan == AUTO else "n"):
            self._mode = LITERAL
        else:
            self._open_string()
        return pos, False

    def _open_string(self) -> None:
        self._add_args('"')
        self._key_open = False
        self._mode = STRING_MODE

    def _read_string(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """A string value: its text up to a terminator, streamed as a JSON string body (a
        trailing newline held: it may be the one before the closer).

        The common chunk, in which no terminator can begin, is ``StopMarkers.find``'s fast
        read written out here (one call fewer per chunk; docs/performance.md)."""
        stops = self._terminator_stops
        if not final and stops.lead not in buf and fast.FAST:
            end = len(buf)
            last = buf[-1]
            if last == stops.first:  # (never when the lead is one character: ``first`` is '')
                end -= 1
                if end > pos and buf[end - 1] == "\n" and self.STRIP_NEWLINES:
                    end -= 1
            elif last == "\n" and self.STRIP_NEWLINES:
                end -= 1
        else:
            end, resume, marker = stops.find(buf, pos, final)
            if marker is not None:
                return self._value_ends(buf, pos, end, resume, marker, out)
            if not final and end > pos and buf[end - 1] == "\n" and self.STRIP_NEWLINES:
                end -= 1
        if end > pos:
            piece = json_quote(buf[pos:end])[1:-1]
            self._parts.append(piece)
            if not self._delta and not final:
                # The common chunk: this piece is all of the call's arguments in it, so it
                # is the chunk's one event for the call.
                out.append(ToolCallArgs(self._index, piece))
                return end, True
            self._delta.append(piece)
        if final:
            self._finish_value("")
            return self._moved(out, len(buf), len(buf))
        return self._hold(out, end)

    def _read_string_stripped(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """The STRING step with STRIP_VALUES: as ``_read_string``, up to a terminator, then
        ``_read_stripped`` (a step of its own, so that the common string step tests
        nothing more per chunk)."""
        end, resume, marker = self._terminator_stops.find(buf, pos, final)
        if marker is not None:
            return self._value_ends(buf, pos, end, resume, marker, out)
        return self._read_stripped(buf, pos, end, out, final)

    def _read_stripped(self, buf: str, pos: int, end: int, out: list[Event], final: bool) -> Step:
        """A string value's text up to ``end``, no terminator in it (STRIP_VALUES): the
        blanks at its end wait in ``_blanks``, consumed, until text (they are the value's)
        or the terminator (they are not) follows."""
        text = buf[pos:end] if pos or end < len(buf) else buf
        body = text.rstrip()
        trailing = len(text) - len(body)
        if body:
            blanks = self._blanks
            if blanks:
                blanks.append(body)
                body = "".join(blanks)
                blanks.clear()
            piece = json_quote(body)[1:-1]
            self._parts.append(piece)
            if not self._delta and not final:
                # The common chunk, as in ``_read_string``: the chunk's one event for the call.
                out.append(ToolCallArgs(self._index, piece))
                if trailing:
                    self._blanks.append(text[-trailing:])
                return end, True
            self._delta.append(piece)
        if final:
            self._finish_value("")
            return self._moved(out, len(buf), len(buf))
        if trailing:
            self._blanks.append(text[-trailing:])
        return self._hold(out, end)

    def _read_held(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """A held value: its text up to a terminator, kept in parts and converted whole."""
        end, resume, marker = self._terminator_stops.find(buf, pos, final)
        if marker is not None:
            return self._value_ends(buf, pos, end, resume, marker, out)
        if not final and end > pos and buf[end - 1] == "\n" and self.STRIP_NEWLINES:
            end -= 1
        if end > pos:
            self._held.append(buf[pos:end])
        if final:
            self._finish_value("")
            return self._moved(out, len(buf), len(buf))
        return self._hold(out, end)

    def _value_ends(
        self, buf: str, pos: int, end: int, resume: int, marker: str, out: list[Event]
    ) -> Step:
        """A terminator at ``end``: the value is ``buf[pos:end]`` less the newline before
        it; a closer is consumed, another terminator (a missing closer) is read next."""
        if self.STRIP_VALUES:
            piece = buf[pos:end].rstrip() if self._mode == STRING_MODE else buf[pos:end]
            if piece and self._blanks:
                piece = "".join(self._blanks) + piece
            self._blanks = []
            self._finish_value(piece)
            return self._moved(out, resume if marker == self.PARAM_CLOSE else end, len(buf))
        stop = end - 1 if self.STRIP_NEWLINES and end > pos and buf[end - 1] == "\n" else end
        self._finish_value(buf[pos:stop])
        return self._moved(out, resume if marker == self.PARAM_CLOSE else end, len(buf))

    def _finish_value(self, piece: str) -> None:
        """The value's last piece: a string closes its quotes, a held value is converted;
        the parameters go on."""
        if self._mode == STRING_MODE:
            delta = self._delta
            if piece and delta and delta[-1] == '"' and self._parts[-1] == '"':
                # The opening quote is the last piece (the whole value came in this chunk):
                # the quoted value takes its place, with no copy to cut the quote off.
                delta[-1] = self._parts[-1] = json_quote(piece)
            else:
                self._add_args(json_quote(piece)[1:] if piece else '"')
        else:
            self._held.append(piece)
            raw = "".join(self._held)
            self._held = []
            if self.STRIP_VALUES:
                raw = raw.strip()
            if self._reading_wrapper is not None:
                key, flag = self._reading_wrapper
                self._reading_wrapper = None
                self._held_wrapper = (key, raw, flag)
                self._mode = PARAMS
                return
            types = self._types if self._plan == HELD else frozenset()
            if self._plan == NULLABLE_STRING:
                text = "null" if raw.strip() == "null" else json_quote(raw)
            elif self._plan == AUTO and raw[:1] == '"':  # (QUOTED_STRINGS)
                text = quoted_string_json(raw)
            elif self._flag_json and self._plan == HELD:
                text = flagged_json_value(raw, types)
            else:
                text = convert_value(raw, types)
            self._add_args(text)
        self._key_open = False
        self._mode = PARAMS

    def _read_literal(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """A value that may be exactly ``true``, ``false`` or ``null``: a bounded hold."""
        end, resume, marker = self._terminator_stops.find(buf, pos, final)
        written = candidate = buf[pos:end]
        literals = LITERALS if self._plan == AUTO else ("null",)
        if self.STRIP_VALUES:
            candidate = written.rstrip()
            if candidate != written and marker is None and not final and candidate in literals:
                # A literal, then blanks: what follows decides, however long they run; the
                # text waits in the held parts (a held value's end is read the same).
                self._held.append(written)
                self._mode = HELD_MODE
                return self._hold(out, end)
        elif candidate.endswith("\n") and self.STRIP_NEWLINES:
            written = candidate = candidate[:-1]
        if marker is not None or final:
            if candidate in literals:
                self._mode = HELD_MODE
                self._finish_value(candidate)
                if marker is None:
                    return self._moved(out, len(buf), len(buf))
                return self._moved(out, resume if marker == self.PARAM_CLOSE else end, len(buf))
        elif any(lit.startswith(written) for lit in literals):
            return self._hold(out, pos)  # still may become a literal
        self._open_string()  # not a literal: a string after all, from its first character
        return pos, False

    def _read_cdata(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """Inside a CDATA section: its text is the value's, literally, up to ``]]>``
        (markup such as a closer included); then the value goes on as before it. A cut
        ``]]>`` is held back."""
        n = len(buf)
        end = buf.find(_CDATA_CLOSE, pos)
        if end < 0:
            safe = n
            if not final:
                if buf.endswith("]]", pos):
                    safe = n - 2
                elif buf.endswith("]", pos):
                    safe = n - 1
        else:
            safe = end
        if safe > pos:
            if self._after_cdata == STRING_MODE:
                self._add_args(json_quote(buf[pos:safe])[1:-1])
            else:
                self._held.append(buf[pos:safe])
        if end >= 0:
            self._mode = self._after_cdata
            return end + len(_CDATA_CLOSE), False
        if final:
            self._mode = self._after_cdata
            self._finish_value("")
            return self._moved(out, n, n)
        return self._hold(out, safe)

    # -- a parameter that may wrap the arguments (WRAPPER_KEYS) ----------------------------------

    def _wrapper_member(self, m: re.Match[str], value: str) -> bool:
        """``_take_param`` read a whole parameter while a wrapper may be held: settle
        the held one (a second parameter: it wrapped nothing), or hold this one if it may
        be a wrapper. True if this parameter was taken (held)."""
        if self._held_wrapper is not None:
            self._settle_wrapper(unwrap=False)
            return False
        key = m.group("key").strip()
        if self._member_count or key not in self.WRAPPER_KEYS or key in self._props:
            return False
        if self.STRIP_NEWLINES:
            if value[:1] == "\n":
                value = value[1:]
            if value[-1:] == "\n":
                value = value[:-1]
        self._held_wrapper = (key, value, m.group("string") if self._has_string_flag else None)
        return True

    def _settle_wrapper(self, *, unwrap: bool) -> None:
        """The held wrapper is decided. Unwrapped (the call closed with it as its only
        parameter, and its value is a JSON object, raw or as a JSON string, whose keys are
        all the tool's): that object's members are the arguments. Otherwise it is the
        parameter it was written as."""
        assert self._held_wrapper is not None
        key, raw, flag = self._held_wrapper
        self._held_wrapper = None
        inner = wrapped_arguments(raw, self._props) if unwrap else None
        if inner is not None:
            if inner:
                self._add_args(compact_json(inner)[1:-1])
                self._member_count = len(inner)
            return
        plan, types = value_plan(None)  # the wrapper is not in the schema: untyped
        if flag is not None:
            plan = STRING if flag == "true" else HELD
        text = (
            flagged_json_value(raw, types)
            if flag == "false"
            else whole_value_json(plan, types, raw)
        )
        self._add_args(("," if self._member_count else "") + json_quote(key) + ":" + text)
        self._member_count += 1

    # -- a JSON object body (JSON_ARGS) ----------------------------------------------------------

    def _read_json_args(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """The object, streamed verbatim as the arguments (their ``{`` was emitted with the
        call); JSON that breaks ends the call ``incomplete`` and the rest is text."""
        args = self._args
        assert args is not None
        fresh = not args.parts
        delta, pos = args.push(buf, pos, final)
        if fresh and delta:
            delta = delta[1:]  # the ``{`` already emitted
        if not (final or args.done or args.error or self._delta):
            # The common chunk, as in ``_read_string``: the chunk's one event for the call.
            if delta:
                self._parts.append(delta)
                out.append(ToolCallArgs(self._index, delta))
            return pos, True
        if delta:
            self._add_args(delta)
        if args.done:
            self._mode = AFTER_ARGS
            return self._moved(out, pos, len(buf))
        if args.error:
            self._close_call(out, incomplete=True)
            return pos, False
        if final:
            self._close_call(out, incomplete=True, tail=buf[pos:])
            return len(buf), False
        return self._hold(out, pos)

    def _read_after_args(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """After the object: blanks, then the call's or the block's closer; anything else
        ends the call ``incomplete`` and is text."""
        ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws > pos:
            self._param_gap.append(buf[pos:ws])  # text again if junk follows
        if ws == len(buf):
            return self._hold(out, ws)
        if not final and self._call_partial.holds(buf, ws):
            return self._hold(out, ws)
        if self._json_call and buf[ws] == "}":
            self._json_call = False  # the JSON call object's end
            self._param_gap = []
            return self._moved(out, ws + 1, len(buf))
        wrap = self.JSON_ARGS_WRAP
        if wrap is not None and buf.startswith(wrap[1], ws):
            self._param_gap = []
            return ws + len(wrap[1]), False  # the object's closer; the call's comes next
        for closer in (self.CALL_CLOSE, self.BLOCK_CLOSE):
            if closer and buf.startswith(closer, ws):
                if closer == self.BLOCK_CLOSE:
                    self._in_block = False
                self._close_call(out, incomplete=False)
                return ws + len(closer), False
        return self._junk_ends_call(out, ws)

    # -- the end of a call, and failures ---------------------------------------------------------

    def _close_call(self, out: list[Event], incomplete: bool, tail: str = "") -> None:
        """End the call, its JSON closed (``tail``: a JSON body's held-back token)."""
        args = self._args
        if args is not None:  # a JSON object body: the streamer closes it
            closing = args.close(tail) if not args.done else ""
        else:
            if self._reading_wrapper is not None:  # (its value was cut: read what came)
                self._finish_value("")
            if self._held_wrapper is not None:
                self._settle_wrapper(unwrap=not incomplete)
            if self._mode == CDATA:
                self._mode = self._after_cdata
            closing = '"}' if self._mode == STRING_MODE else "null}" if self._key_open else "}"
        if closing:
            self._add_args(closing)
        self._flush_args(out)
        self._end_call(out, self._index, "".join(self._parts), incomplete)
        self._reset_call()
        self._mode = BLOCK if self._in_block and not incomplete else TEXT
        if incomplete:
            self._in_block = False
        elif self._mode == TEXT:
            self._block_ended()  # a call outside a block (or that closed it) is a block

    def _junk_ends_call(self, out: list[Event], pos: int) -> Step:
        """Junk inside a call: it ends ``incomplete``; the blanks before the junk and the
        junk are text."""
        gap = "".join(self._param_gap)
        self._close_call(out, incomplete=True)
        if gap:
            out.append(Text(gap))
        return pos, False

    def _markup_to_text(self, out: list[Event], pos: int, rest: str = "") -> Step:
        """Malformed markup before a call started: the markup kept and ``rest`` are text
        (after the blanks before the block, ``_release_raw``); text again from ``pos``."""
        if rest:
            self._raw.append(rest)
        self._release_raw(out)
        self._mode = TEXT
        return pos, False

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        mode = self._mode
        if mode == SUFFIX:
            self._markup_to_text(out, 0, rest=rest)
        elif mode == JSON_BLOCK:
            assert self._json_block is not None
            self._json_block._calls = self._calls
            self._json_block._end_of_stream(rest, out)
        elif mode == ARGS or mode == AFTER_ARGS:
            gap = "".join(self._param_gap) if mode == AFTER_ARGS else ""
            self._close_call(out, incomplete=True, tail="" if mode == AFTER_ARGS else rest)
            if mode == AFTER_ARGS and gap + rest:
                out.append(Text(gap + rest))
        elif mode in _IN_CALL:
            if mode == CDATA:
                self._mode = mode = self._after_cdata
            if mode == HELD_MODE or mode == LITERAL:
                self._finish_value("")
            self._close_call(out, incomplete=True)
            self._markup_to_text(out, 0, rest=rest)
        elif mode == HEADER or (mode == BLOCK and self._calls_in_block == 0):
            self._markup_to_text(out, 0, rest=rest)
        elif mode == BLOCK:
            if rest.strip():
                out.append(Text(rest))
            self._raw = []
        elif rest:
            out.append(Text(rest))

    @staticmethod
    def raw_value(value: Any) -> str:
        """How a renderer writes a value: strings raw, everything else as JSON."""
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class _JsonBlock(JsonCallsParser):
    """One ``<tool_call>`` block with a Hermes JSON body, read by the JSON-call engine."""

    ARRAY = False
