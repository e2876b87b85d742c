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
    JSON_BLOCK  a block of JSON calls (``engines.json_calls``)   TEXT        (that engine's events)
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

The call's arguments (the modes from KEY on, value typing, the argument pieces of a
chunk, and closing a call) are ``XmlArgs``'s, in ``engines.xml_args``, whose header says
how values are typed and streamed and what the value options (``STRIP_VALUES``, ``CDATA``,
``WRAPPER_KEYS``, ``QUOTED_STRINGS``, ``JSON_ARGS`` and its variants) do.

What it holds back: a partial marker at the end of text or of a value (bounded by the
longest marker), a trailing newline of a value, a header not yet closed (at most
``MAX_HEADER`` characters: a longer one is not a header, even when it arrives whole), a
literal candidate, and a short parameter cut by the end of the chunk, whole
(``streamcall.text.ShortMembers``: at most 128 characters, 8 of value).
Held values are consumed into a list of parts, never kept in the tail, so feeding stays
linear however long they are.

The fast reads, each a primitive of the text layer with its reference path beside it
(``streamcall.text.fast``): whole short parameters by one regex each and a cut one held
whole, unread while added chunks cannot close it (``ShortMembers``, with the regex of one
parameter from ``tagged_member_pattern``: its opener and header are atomic groups, so
they match what the token-by-token steps match; a held one waits in the feed loop, which
runs no step for a chunk that cannot close it). ``ShortMembers.step`` is the PARAMS
step: it hands each whole parameter to ``_take_param`` and the rest to ``_read_tokens``.

Options of the engine itself: ``JSON_BODY`` (Qwen): a block whose first non-blank
character is ``{`` holds Hermes JSON calls, handed to the JSON-call engine until the block
ends; the two bodies may be mixed block by block. ``MARKER_SUFFIX`` (Tencent HY,
``<tool_calls:6124c78e>``): text is searched for BLOCK_OPEN without its ``>``, SUFFIX reads
the suffix and the ``>`` (held while cut, bounded by the regex), and the block's markers
become that suffix's (``_use_suffix``); anything else after the stem makes it text.
``TEXT_REGION`` (Seed-OSS's ``<seed:think>``): text in which calls are drafts, not calls.
``JSON_ARGS_WRAP`` (Kimi K3's ``<|open|>json type="object"<|sep|>`` …
``<|close|>json<|sep|>``): markers around that object, read as call markers (a cut one is
held); the opener after a parameter, or the closer anywhere but after the object, is junk.
``FRAMES`` (Kimi K3's response channel, ``ToolParser.FRAMES``): markers dropped from the
text, found as text's other markers are (a cut one held); blanks after a block before one
are a gap, dropped with it.

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
from typing import Any, ClassVar

from streamcall._mypyc import mypyc_attr
from streamcall.events import Event, Text
from streamcall.formats.engines.base import Tools
from streamcall.formats.engines.json_calls import JsonCallsParser
from streamcall.formats.engines.json_embedded import read_embedded_block
from streamcall.formats.engines.json_members import TypedJsonArgs
from streamcall.formats.engines.xml_args import (
    AFTER_ARGS,
    ARGS,
    BLOCK,
    CDATA,
    HEADER,
    HELD_MODE,
    IN_CALL,
    JSON_BLOCK,
    KEY,
    LITERAL,
    PARAMS,
    REGION,
    SUFFIX,
    TEXT,
    WS,
    Mode,
    XmlArgs,
)
from streamcall.formats.schema import (
    tool_properties,
)
from streamcall.text import (
    ArgsStreamer,
    MarkerFinder,
    PartialMarkers,
    ShortMembers,
    Step,
    StepFn,
    StopMarkers,
    header_match,
    step_table,
    tagged_member_pattern,
)

# Bound once: CPython 3.11 calls a method of an imported name through a bound method
# made on every call (it gives such a call no LOAD_METHOD)
_ws_match = WS.match

__all__ = ["Mode", "XmlParamsParser"]


@mypyc_attr(allow_interpreted_subclasses=True)
class XmlParamsParser(XmlArgs):
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
    #: values are (``engines.json_members``), instead of streamed verbatim
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
        self._steps = [
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
            step_table(self._steps)[PARAMS] = self._read_params

    # -- the chunk's argument pieces ---------------------------------------------------------

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
        ws = _ws_match(buf, pos).end()  # type: ignore[union-attr]
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
        pos, hold = read_embedded_block(block, self, buf, pos, out, final)
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
        ws = _ws_match(buf, pos).end()  # type: ignore[union-attr]
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

    def _member_pattern(self) -> str | None:
        """The regex of one short parameter, for ``ShortMembers`` (None: not read so)."""
        return tagged_member_pattern(
            self.PARAM_OPEN, self.PARAM_HEADER, self.PARAM_CLOSE, self._call_markers
        )

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

    # -- a value ---------------------------------------------------------------------------------

    # -- a parameter that may wrap the arguments (WRAPPER_KEYS) ----------------------------------

    # -- a JSON object body (JSON_ARGS) ----------------------------------------------------------

    # -- the end of a call, and failures ---------------------------------------------------------

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
        elif mode in IN_CALL:
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
