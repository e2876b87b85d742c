"""The XML-parameter family engine: calls whose arguments are tagged, untyped text.

Grammar (every marker and header is configured per format by class attributes)::

    output  := (text | block | call)*                 # bare calls only if BARE_CALLS
    block   := BLOCK_OPEN (ws | IGNORE | call)* BLOCK_CLOSE?
    call    := CALL_OPEN CALL_HEADER (ws | param)* (CALL_CLOSE | BLOCK_CLOSE)
    param   := PARAM_OPEN PARAM_HEADER value PARAM_CLOSE?
    value   := raw text up to the first value terminator: PARAM_CLOSE, or (a missing
               closer, as vLLM tolerates) the next PARAM_OPEN, CALL_CLOSE or BLOCK_CLOSE

``CALL_HEADER`` is a regex with a ``name`` group (``<function=NAME>``, ``name="f">``,
``NAME<tool_sep>``, ...); ``PARAM_HEADER`` has a ``key`` group and, for DSML, a
``string`` group (``string="true|false"``). Without BLOCK markers, calls sit in text.

Modes: TEXT -> BLOCK (between calls) -> HEADER (the call's name) -> CALL (between
parameters) -> KEY (a parameter's header) -> VALUE -> CALL ... -> BLOCK or TEXT; or
CALL -> ARGS (a JSON object body, ``JSON_ARGS``) -> AFTER_ARGS -> BLOCK or TEXT.

With ``MARKER_SUFFIX`` (Tencent HY, whose structural tokens carry a per-checkpoint suffix:
``<tool_calls:6124c78e>``), text is searched for BLOCK_OPEN without its ``>``, SUFFIX mode
reads the suffix and the ``>`` (held while cut, at most the regex's bound), and the
block's markers become those of that suffix (``_use_suffix``, then ``_setup_markers``);
anything else after the stem makes the stem text again.

A value is typed by its key's property in the tool's schema (``schema.py``: the
properties, ``$ref``s, type names and the value plans). Arguments are converted to compact
JSON and streamed while they are written. Every emitted piece is final, so the deltas only
ever grow a prefix of the final object: ``{`` when the call starts, ``,"key":`` when a
parameter opens, then the value, read by its plan (``schema.value_plan``):

- ``STRING`` (or ``string="true"`` in DSML): a JSON string whose body is streamed as it
  arrives (vLLM and SGLang wait for ``</parameter>``);
- ``HELD``: held until its terminator, then converted (``schema.convert_value``);
- ``AUTO`` (untyped): decided by the value's first character, so nothing ever needs to
  be taken back: JSON-like values are held and converted, a possible ``true``, ``false``
  or ``null`` is held (at most 5 characters), anything else streams as a string;
- ``NULLABLE_STRING``: streamed as a string, held while it may still be ``null``.

The single newline that these formats put after the opening tag and before the closing
one is stripped, as vLLM does (unless ``STRIP_NEWLINES`` is off: Step-3 writes values
inline, and vLLM keeps their whitespace): the first character is looked at before anything is
emitted, and one trailing ``\\n`` is held back while the value streams.

What it holds back: a partial marker at the end of text or of a value (bounded by the
longest marker), a trailing newline, a header not yet closed (at most ``MAX_HEADER``
characters), a literal candidate. Held non-string values are consumed into a list of
parts, never kept in the tail, so feeding stays linear however long they are. A short
parameter cut by the end of a chunk is held whole, so that it comes out in one piece with
the next chunk: its opener and header (at most ``_MAX_MEMBER`` = 128 characters in all)
and a value of at most ``_MAX_CUT_VALUE`` = 8 characters so far, besides a cut closer;
while it is held, chunks that cannot close it are added to it unread, as long as what
follows its header stays within 8 characters plus its closer's length less one. A longer
value streams (or is held in parts) as above.

Shortcuts, each kept because it measured faster (docs/performance.md) and proved equal to
the general path by ``tests/formats/test_xmlparams_shortcuts.py``, which switches them off.
The general path is ``FeedLoop.feed`` into ``_run_modes``, one mode step at a time, and
``_open_param``, ``_value``, ``_finish_value`` for each parameter. ``feed`` takes a chunk
that starts between parameters straight to ``_whole_params``, which reads a whole short
parameter (opener, header, a value holding no terminator's first character, closer) with
one regex (``_member_pattern``: opener and header are atomic groups, so they match what the
general path matches) and emits its ``"key":value`` as one piece, holding a cut one as
above; ``_run_modes`` uses it between parameters too. ``feed`` takes a chunk inside a
string value or a held value straight to the delta or to the held parts when no terminator
is in sight. The argument pieces of one chunk leave as one ``ToolCallArgs`` (an event costs
more than the join).

A block whose first non-blank character is ``{`` holds Hermes-style JSON calls when
``JSON_BODY`` is set (Qwen2.5, QwQ and Qwen3 write ``<tool_call>{"name": ..., "arguments":
...}</tool_call>`` where Qwen3-Coder writes the XML body): the block is handed to the
JSON-call engine (``_jsoncalls``), which streams the arguments verbatim exactly as the
``hermes`` format does, and control comes back here when the block ends. The two bodies
may be mixed in one output, block by block.

Whitespace after a call or a block is markup when another call or block follows it or the
stream ends there, and text (with what follows) otherwise, as in every family
(``_skip_gap``). Inside a block that has held a call, the wrappers (IGNORE, BLOCK_SKIP)
between calls are markup, with the blanks before them; blanks before junk or before a
next call cut before its name are text again, with it.

With ``CDATA`` (MiniCPM5), a value whose first character (after the stripped newline) opens
``<![CDATA[`` is read literally up to ``]]>``, markup such as ``</param>`` included, in the
``_V_CDATA`` sub-state (found with ``str.find``; a cut ``<![CDATA[`` or ``]]>`` is held
back); then the value goes on as written until its terminator. A string-typed or untyped
value streams the section's text as a string (character data is text: ``<![CDATA[7]]>`` is
``"7"``); a value typed otherwise holds it and converts it. Only a value that starts with a
section is unwrapped; a section later in a value is text. ``feed``'s shortcuts never take
such a value (its ``<`` is a terminator's first character), so they need no change.

With ``WRAPPER_KEYS`` (DSML: ``arguments``, ``input``), a call whose first parameter has
one of those names, where the tool's schema is known and lacks that property, holds that
parameter whole (key and value, nothing emitted) until what follows decides it: the call's
closer, with no other parameter, unwraps it when its value is a JSON object (raw, or a
JSON string holding one) whose keys are all the tool's, and that object's members are the
arguments; a second parameter, junk, a cut or an object that does not fit make it the
parameter it was written as, converted as any other. Its value is read as a held one, so
``_whole_params`` and ``feed``'s shortcuts take it as they take any other.

With ``TEXT_REGION`` (Seed-OSS), an opener found in text starts mode REGION: text, released
as it comes (a cut closer held back), up to the closer; calls written there are drafts,
not calls. Whitespace after a block that a region follows is text.

With ``JSON_ARGS`` (DSML), a call whose body starts, after blanks, with ``{`` where its
first parameter would open has that JSON object for arguments (``<｜DSML｜invoke
name="f">{"k": 1}</｜DSML｜invoke>``, as SGLang reads it): mode ARGS streams it verbatim
through ``ArgsStreamer`` (validated as it goes; the call's ``{`` was already emitted, so
the body's own is dropped), then AFTER_ARGS takes blanks and CALL_CLOSE or BLOCK_CLOSE.
Junk after the object, or JSON that breaks, ends the call ``incomplete`` with its object
closed by the streamer, and the rest is text. A body that is neither parameters nor an
object is junk, as below. A ``{`` after a parameter is junk too.

Malformed markup (a header that does not match, junk between parameters) ends a started
call ``incomplete`` with its JSON closed and releases the rest as text; before a call has
started, the markup consumed so far is released as text. A call still open at the end of
the stream is ended ``incomplete``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, ClassVar

from streamcall.events import Event, Text, ToolCallArgs
from streamcall.formats._base import ToolParser, Tools
from streamcall.formats._jsoncalls import JsonCallsParser
from streamcall.formats._scan import (
    ArgsStreamer,
    MarkerFinder,
    PartialMarkers,
    cut_marker,
    json_quote,
)
from streamcall.formats.schema import (
    AUTO,
    AUTO_JSON_START,
    HELD,
    LITERALS,
    NULLABLE_STRING,
    STRING,
    compact_json,
    convert_value,
    load_json,
    tool_properties,
    value_plan,
    whole_value_json,
)

__all__ = ["XmlParamsParser", "any_prefix"]

_WS = re.compile(r"\s*")

# modes
_TEXT, _BLOCK, _HEADER, _CALL, _KEY, _VALUE, _JSON, _SUFFIX = 0, 1, 2, 3, 4, 5, 6, 7
#: a call's body read as one JSON object (``JSON_ARGS``), and what may follow it
_ARGS, _AFTER_ARGS = 8, 9
#: inside a ``TEXT_REGION``: text, up to its closer
_REGION = 10
# value sub-states
_V_START, _V_STRING, _V_HELD, _V_LITERAL, _V_CDATA = 0, 1, 2, 3, 4
_CDATA_OPEN, _CDATA_CLOSE = "<![CDATA[", "]]>"

#: value sub-states whose chunks ``feed`` takes directly: streamed, or collected whole
_DIRECT_VALUE_STATES = frozenset((_V_STRING, _V_HELD))
#: the longest parameter that ``_whole_params`` holds whole when the end of a chunk cuts it
_MAX_MEMBER = 128
#: and of its value, before a cut closer (a long value streams as usual)
_MAX_CUT_VALUE = 8


def any_prefix(words: Iterable[str]) -> str:
    """A regex group for any non-empty prefix of ``words``: an alternation, longest first
    (rather than a trie of nested optional groups, which measured slower)."""
    cuts = {w[:i] for w in words for i in range(1, len(w) + 1)}
    return "(?:" + "|".join(map(re.escape, sorted(cuts, key=len, reverse=True))) + ")"


class XmlParamsParser(ToolParser):
    """Configurable parser for the XML-parameter tool-call formats."""

    BLOCK_OPEN: ClassVar[str | None] = None
    BLOCK_CLOSE: ClassVar[str | None] = None
    #: markers skipped between calls inside a block (step3's per-call wrappers)
    IGNORE: ClassVar[tuple[str, ...]] = ()
    #: also accept calls outside a block
    BARE_CALLS: ClassVar[bool] = False
    CALL_OPEN: ClassVar[tuple[str, ...]] = ()
    CALL_HEADER: ClassVar[re.Pattern[str]]
    CALL_CLOSE: ClassVar[str] = ""
    PARAM_OPEN: ClassVar[tuple[str, ...]] = ()
    PARAM_HEADER: ClassVar[re.Pattern[str]]
    PARAM_CLOSE: ClassVar[str] = ""
    MAX_HEADER: ClassVar[int] = 512
    #: what, at the start of a header, means it can never match: not a call, decided at once
    NO_HEADER: ClassVar[re.Pattern[str] | None] = None
    #: a block starting with ``{`` holds Hermes JSON calls (see the module header)
    JSON_BODY: ClassVar[bool] = False
    #: strip the one newline after a value's opening tag and before its closer
    STRIP_NEWLINES: ClassVar[bool] = True
    #: skipped between calls inside a block, like IGNORE, when it matches (Step-3's
    #: ``function<｜tool_sep｜>NAME\n``); a match reaching the end of the text is held
    BLOCK_SKIP: ClassVar[re.Pattern[str] | None] = None
    #: a per-checkpoint suffix inside every marker (Tencent HY: ``<tool_calls:6124c78e>``),
    #: read after BLOCK_OPEN's stem (BLOCK_OPEN without its ``>``): a bounded regex with a
    #: ``suffix`` group (``:`` and at least one character) and a ``close`` group for the
    #: ``>``; a match without ``close`` that reaches the end of the text is held. The
    #: block's markers are then set by ``_use_suffix``.
    MARKER_SUFFIX: ClassVar[re.Pattern[str] | None] = None
    #: a value that starts with ``<![CDATA[`` is read literally up to ``]]>`` (MiniCPM5)
    CDATA: ClassVar[bool] = False
    #: a call whose body starts with ``{`` instead of a parameter has that JSON object
    #: for arguments, streamed verbatim (DSML)
    JSON_ARGS: ClassVar[bool] = False
    #: ``(opener, closer)`` of a span of text in which no call is read (Seed-OSS's
    #: ``<seed:think>…</seed:think>``: the model drafts calls there); the span, markers
    #: included, is text, and an unclosed one lasts to the end of the stream
    TEXT_REGION: ClassVar[tuple[str, str] | None] = None
    #: parameter names that may wrap the call's arguments (DSML: ``arguments``, ``input``;
    #: see the module header)
    WRAPPER_KEYS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> None:
        super().__init__(tools, id_prefix=id_prefix)
        cls = type(self)
        self._delta: list[str] = []  # argument pieces of this chunk, not yet an event
        self._setup_markers()
        # With MARKER_SUFFIX, text is searched for BLOCK_OPEN without its ``>`` (the
        # stem); the markers of every block are those of the suffix read after the stem.
        self._stem = (
            cls.BLOCK_OPEN[:-1] if cls.MARKER_SUFFIX is not None and cls.BLOCK_OPEN else None
        )
        self._stem_gap = ""  # blanks before a stem, taken for a gap between blocks
        self._setup_text_finder()
        self._opener = ""  # the CALL_OPEN marker of the call whose header is read
        self._mode = _TEXT
        self._in_block = False
        self._calls_in_block = 0
        self._raw: list[str] = []  # markup consumed before a call started
        self._json_block: _JsonBlock | None = None
        self._reset_call()

    def _param_types(self, function: str) -> dict[str, Any]:
        """The property schemas of a tool, those of a top-level union included
        (``schema.tool_properties``)."""
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
        self._text_finder = MarkerFinder(starts)

    def _setup_markers(self) -> None:
        """Everything derived from the markers inside a block. They are read through
        ``self``, so that a format whose markers carry a suffix (``MARKER_SUFFIX``) can set
        them per block and call this again."""
        cls = type(self)
        self._block_markers = (
            *self.CALL_OPEN,
            *((self.BLOCK_CLOSE,) if self.BLOCK_CLOSE else ()),
            *self.IGNORE,
        )
        self._block_partial = PartialMarkers(self._block_markers)
        # Longest first, so that a closer is not taken for a parameter opener that is
        # its prefix (MiniMax-M3's ``NS<`` and ``NS</invoke>``).
        self._call_markers = tuple(
            sorted(
                (
                    *self.PARAM_OPEN,
                    self.CALL_CLOSE,
                    *((self.BLOCK_CLOSE,) if self.BLOCK_CLOSE else ()),
                ),
                key=len,
                reverse=True,
            )
        )
        self._call_marker_re = re.compile("|".join(map(re.escape, self._call_markers)))
        # A cut marker between parameters is held; so is a whole one that a longer marker
        # starts with (MiniMax-M3's ``NS<`` and ``NS</invoke>``), but no other: a call
        # whose closer ends a chunk ends with that chunk, not with the next one.
        self._call_partial = PartialMarkers(self._call_markers)
        self._call_extendable = frozenset(
            m
            for m in self._call_markers
            if any(o != m and o.startswith(m) for o in self._call_markers)
        )
        self._extendable_len = max(map(len, self._call_extendable), default=0)
        self._terminators = (self.PARAM_CLOSE, *self._call_markers)
        self._terminator_finder = MarkerFinder(self._terminators)
        self._has_string_flag = "string" in self.PARAM_HEADER.groupindex  # DSML's string="true"
        # The shortcuts (see the module header). The whole-parameter regex of
        # ``_whole_params`` (None: off, which also turns off ``feed``'s shortcut between
        # parameters; a test turns it off, and a later block keeps it off):
        member = self._member_pattern() if getattr(self, "_member_re", True) else None
        self._member_re = re.compile(member) if member is not None else None
        groups = self._member_re.groupindex if self._member_re is not None else {}
        self._value_group = groups.get("xml_value", 0)
        self._cut_value_group = groups.get("xml_cut", 0)
        # A held parameter whose header is read is kept unread while chunks cannot close
        # it (no closer's last character) and the tail stays within ``_hold_limit``.
        self._hold_limit = 0
        self._closer_last_char = self.PARAM_CLOSE[-1:]
        self._cut_value_room = _MAX_CUT_VALUE + len(self.PARAM_CLOSE) - 1
        self._last_cut_start = _MAX_MEMBER - self._cut_value_room
        # Inside a value, a chunk without ``_terminator_lead`` (the one character every
        # terminator starts with) is value text, less a trailing newline held back;
        # ``_string_finder`` reads one with it (None: ``_value`` does).
        firsts = {t[0] for t in self._terminators}
        general_values = cls._value is XmlParamsParser._value
        self._terminator_lead = firsts.pop() if len(firsts) == 1 and general_values else None
        self._hold_newline = cls.STRIP_NEWLINES
        self._string_finder = self._terminator_finder if general_values else None

    def _reset_call(self) -> None:
        self._index = -1
        self._props: dict[str, Any] = {}
        self._parts: list[str] = []
        self._member_count = 0
        self._key_open = False  # `"key":` emitted, value not started
        self._value_state = _V_START
        self._plan = STRING
        self._types: frozenset[str] = frozenset()
        self._held: list[str] = []
        self._newline_skipped = False
        self._param_gap: list[str] = []  # blanks after a parameter: text if junk follows
        self._state_after_cdata = _V_STRING  # the sub-state a CDATA section returns to
        self._args: ArgsStreamer | None = None  # a JSON object body (JSON_ARGS)
        # WRAPPER_KEYS: whether this call's first parameter may wrap its arguments, the
        # wrapper whose value is being read, and one read (key, raw value, flag), held
        self._wrapper_possible = False
        self._reading_wrapper: tuple[str, str | None] | None = None
        self._held_wrapper: tuple[str, str, str | None] | None = None

    # -- emission ------------------------------------------------------------------------

    def _add_args(self, out: list[Event], text: str) -> None:
        # One piece per token; they leave as one ToolCallArgs per chunk (``_flush_args``).
        self._parts.append(text)
        self._delta.append(text)

    def _flush_args(self, out: list[Event]) -> None:
        """Hand out the argument pieces of this chunk as one event (events cost more than
        the join; the concatenation is the same). When they are all of the call's pieces
        (a whole call in one chunk), the joined text stands for them, so that the call's
        arguments are that same string, not a second copy of a big value."""
        delta = self._delta
        if delta:
            text = "".join(delta)
            if len(delta) == len(self._parts):
                self._parts = [text]
            out.append(ToolCallArgs(self._index, text))
            delta.clear()

    def _close_call(self, out: list[Event], incomplete: bool, tail: str = "") -> None:
        """End the call, closing its JSON (``tail``: a JSON body's held-back token)."""
        args = self._args
        if args is not None:  # a JSON object body: the streamer closes it
            closing = args.close(tail) if not args.done else ""
        else:
            if self._reading_wrapper is not None:  # (its value was cut: read what came)
                self._hold_wrapper("".join(self._held))
            if self._held_wrapper is not None:
                self._settle_wrapper(out, unwrap=not incomplete)
            if self._value_state == _V_CDATA:
                self._value_state = self._state_after_cdata
            if self._mode == _VALUE and self._value_state == _V_STRING:
                closing = '"}'
            else:
                closing = "null}" if self._key_open else "}"
        if closing:
            self._add_args(out, closing)
        self._flush_args(out)
        self._end_call(out, self._index, "".join(self._parts), incomplete)
        self._reset_call()
        self._mode = _BLOCK if self._in_block and not incomplete else _TEXT
        if incomplete:
            self._in_block = False
        elif self._mode == _TEXT:
            self._block_ended()  # a call outside a block (or that closed it) is a block

    def _release_raw(self, out: list[Event], extra: str = "") -> None:
        text = "".join(self._raw) + extra
        self._raw = []
        if text:
            out.append(Text(text))

    # -- the loop ------------------------------------------------------------------------

    def feed(self, text: str) -> list[Event]:
        """``FeedLoop.feed``, with the chunks inside a call taken directly.

        Most chunks of a long call fall between parameters or inside a value. Between
        parameters they go straight to ``_whole_params``, and most end inside a short
        parameter, to be held: that test is written out here, and a chunk that cannot
        close a held parameter is added to it unread. Inside a string value or a held one,
        a chunk with no terminator in sight is the delta (its JSON escaping) or a held
        part, less a trailing newline held back. All skip the mode dispatch of ``_run_modes``;
        a test checks that this gives what the general loop gives.
        """
        out: list[Event] = []
        if self._finished or not text:
            return out
        buf = self._tail + text if self._tail else text
        n = len(buf)
        mode = self._mode
        if mode == _CALL and self._member_re is not None:
            if n <= self._hold_limit and self._closer_last_char not in text:
                self._tail = buf  # the held parameter still cannot have closed
                return out
            m = self._member_re.match(buf) if n <= _MAX_MEMBER else None
            if m is not None and m.end() == n and m.start(self._value_group) < 0:
                start, end = m.span(self._cut_value_group)  # (-1, -1) when the header is cut
                if end - start <= _MAX_CUT_VALUE:
                    self._tail = buf
                    # (-1 and a header too long for _MAX_MEMBER: none)
                    ok = 0 <= start <= self._last_cut_start
                    self._hold_limit = start + self._cut_value_room if ok else 0
                    return out
            self._hold_limit = 0
            pos = self._whole_params(buf, 0, out, False, m)
            if pos < 0:
                pos = -pos - 1
            elif pos < n:
                pos = self._run_modes(buf, pos, out, False)
        elif (
            mode == _VALUE
            and self._value_state in _DIRECT_VALUE_STATES
            and self._terminator_lead is not None
        ):
            if buf.find(self._terminator_lead) < 0:
                end = n
            elif self._string_finder is not None:
                end, _, marker = self._string_finder.find(buf, 0)
                if marker is not None:
                    end = -1  # the value ends in this chunk
            else:
                end = -1
            if end >= 0:  # _value's step, written out
                safe = end - 1 if end and buf[end - 1] == "\n" and self._hold_newline else end
                if safe:
                    if self._value_state == _V_STRING:
                        piece = json_quote(buf[:safe] if safe < n else buf)[1:-1]
                        self._parts.append(piece)
                        out.append(ToolCallArgs(self._index, piece))
                    else:
                        self._held.append(buf[:safe] if safe < n else buf)
                self._tail = buf[safe:] if safe < n else ""
                return out
            pos = self._value(buf, 0, out, False)
            if pos < 0:
                pos = -pos - 1
            elif pos < n:
                pos = self._run_modes(buf, pos, out, False)
        else:
            pos = self._run_modes(buf, 0, out, False)
        if self._delta:
            self._flush_args(out)
        self._tail = buf[pos:] if pos < n else ""
        return out

    def _step(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        pos = self._run_modes(buf, pos, out, final)
        if self._delta:
            self._flush_args(out)
        return pos

    def _run_modes(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        n = len(buf)
        while pos < n:
            mode = self._mode
            if mode == _VALUE:  # first: where long arguments spend their chunks
                pos = self._value(buf, pos, out, final)
                if pos < 0:
                    return -pos - 1
            elif mode == _TEXT:
                blanks = self._gap
                pos, marker = self._text_until_marker(buf, pos, out, self._text_finder, final)
                if marker is None:
                    return pos
                if self.TEXT_REGION is not None and marker == self.TEXT_REGION[0]:
                    # blanks after a block stay text: no block follows them
                    out.append(Text("".join(blanks) + marker if blanks else marker))
                    self._mode = _REGION
                    continue
                self._raw = [marker]
                if marker == self._stem:
                    # blanks after a block, dropped as a gap because a stem followed
                    self._stem_gap = "".join(blanks) if blanks else ""
                    self._mode = _SUFFIX
                elif marker == self.BLOCK_OPEN:
                    self._in_block = True
                    self._calls_in_block = 0
                    self._mode = _BLOCK
                else:
                    self._in_block = False
                    self._opener = marker
                    self._mode = _HEADER
            elif mode == _BLOCK:
                ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
                # Before its first call a block may still turn out to be text, so its
                # markup is kept to be released. After one, the wrappers between calls
                # are the block's markup and are dropped, and so are the blanks before
                # a wrapper, a call that opens or the block's end; blanks before junk or
                # a cut call are text again, with it (the gap rule of ``_skip_gap``).
                keep = self._calls_in_block == 0
                if ws == n:
                    self._raw.append(buf[pos:ws])
                    return ws
                if self.JSON_BODY and self._calls_in_block == 0 and buf[ws] == "{":
                    self._raw.append(buf[pos:ws])
                    block = _JsonBlock(self.tools, id_prefix=self.id_prefix)
                    block._open_block(self._raw, bare=False)
                    block._end = self.BLOCK_CLOSE  # the block's own closer
                    self._json_block = block
                    self._raw = []
                    self._mode = _JSON
                    pos = ws
                    continue
                skip = self.BLOCK_SKIP.match(buf, ws) if self.BLOCK_SKIP is not None else None
                if skip is not None and skip.end() > ws:
                    if skip.end() == n and not final:
                        self._raw.append(buf[pos:ws])
                        return ws
                    if keep:
                        self._raw.append(buf[pos : skip.end()])
                    else:
                        self._raw = []
                    pos = skip.end()
                    continue
                marker = self._marker_at(buf, ws, self._block_markers)
                if marker is None:
                    if not final and self._block_partial.holds(buf, ws):
                        self._raw.append(buf[pos:ws])
                        return ws
                    # Junk in a block: the block is over, the junk is text.
                    self._release_raw(out)
                    self._in_block = False
                    self._mode = _TEXT
                    continue
                if keep or marker in self.CALL_OPEN:
                    self._raw.append(buf[pos : ws + len(marker)])
                pos = ws + len(marker)
                if marker == self.BLOCK_CLOSE:
                    if self._calls_in_block == 0:
                        self._release_raw(out)
                    else:
                        self._block_ended()
                    self._raw = []
                    self._in_block = False
                    self._mode = _TEXT
                elif marker in self.CALL_OPEN:
                    self._opener = marker
                    self._mode = _HEADER
            elif mode == _SUFFIX:
                m = self.MARKER_SUFFIX.match(buf, pos)  # type: ignore[union-attr]
                if m is None or m.group("close") is None or m.group("suffix") == ":":
                    if m is not None and m.end() == n and not final:
                        return pos  # may still become a suffixed block opener
                    # Not a block opener: the stem (and the blanks before it) is text.
                    self._release_stem(out)
                    self._mode = _TEXT
                    continue
                self._raw.append(m.group())
                self._stem_gap = ""
                pos = m.end()
                self._use_suffix(m.group("suffix") or "")
                self._in_block = True
                self._calls_in_block = 0
                self._mode = _BLOCK
            elif mode == _HEADER:
                m = self.CALL_HEADER.match(buf, pos)
                name = self._call_name(m) if m is not None else ""
                if m is None or not name:
                    if (
                        m is None
                        and not final
                        and n - pos < self.MAX_HEADER
                        and (self.NO_HEADER is None or self.NO_HEADER.match(buf, pos) is None)
                    ):
                        return pos  # hold the header until it is complete
                    self._release_raw(out)
                    self._in_block = False
                    self._mode = _TEXT
                    continue
                self._raw = []
                self._calls_in_block += 1
                self._reset_call()
                self._props = self._param_types(name)
                self._wrapper_possible = bool(self.WRAPPER_KEYS and self._props) and any(
                    k not in self._props for k in self.WRAPPER_KEYS
                )
                self._index = self._start_call(out, name)
                self._add_args(out, "{")
                self._mode = _CALL
                pos = m.end()
            elif mode == _CALL:
                if self._member_re is not None:
                    pos = self._whole_params(buf, pos, out, final)
                    if pos < 0:
                        return -pos - 1
                    if pos == n:
                        return pos
                ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
                if ws > pos:
                    self._param_gap.append(buf[pos:ws])  # text again if junk follows
                if ws == n:
                    return ws
                if not final and (
                    self._call_partial.holds(buf, ws)
                    or (n - ws <= self._extendable_len and buf[ws:] in self._call_extendable)
                ):
                    return ws  # may still become a (longer) marker
                found = self._call_marker_re.match(buf, ws)
                if (
                    found is None
                    and self.JSON_ARGS
                    and not self._member_count
                    and self._held_wrapper is None
                    and buf[ws] == "{"
                ):
                    self._param_gap = []
                    self._args = ArgsStreamer()
                    self._mode = _ARGS
                    pos = ws
                    continue
                if found is None:
                    gap = "".join(self._param_gap)
                    self._close_call(out, incomplete=True)
                    if gap:
                        out.append(Text(gap))
                    pos = ws
                    continue  # the junk is text
                self._param_gap = []
                marker = found.group()
                pos = found.end()
                if marker == self.CALL_CLOSE:
                    self._close_call(out, incomplete=False)
                elif marker == self.BLOCK_CLOSE:
                    self._in_block = False
                    self._close_call(out, incomplete=False)
                else:
                    self._raw = [marker]
                    self._mode = _KEY
            elif mode == _ARGS or mode == _AFTER_ARGS:
                pos = self._json_args(buf, pos, out, final)
                if pos < 0:
                    return -pos - 1
            elif mode == _REGION:
                finder = self._region_finder
                end, resume, marker = (
                    finder.find_final(buf, pos) if final else finder.find(buf, pos)
                )
                if marker is None:
                    if end > pos:
                        out.append(Text(buf[pos:end]))
                    return end  # a cut closer is held
                out.append(Text(buf[pos:resume]))
                self._mode = _TEXT
                pos = resume
            elif mode == _KEY:
                m = self.PARAM_HEADER.match(buf, pos)
                if m is None:
                    if not final and n - pos < self.MAX_HEADER:
                        return pos
                    self._close_call(out, incomplete=True)
                    self._release_raw(out)
                    continue
                self._raw = []
                self._open_param(out, m)
                self._mode = _VALUE
                pos = m.end()
            else:
                json_block = self._json_block
                assert json_block is not None
                pos = json_block.step_for(self, buf, pos, out, final)
                if pos < 0:
                    return -pos - 1
                if not json_block._block_open:
                    self._json_block = None
                    self._in_block = False
                    self._mode = _TEXT
        return pos

    def _call_name(self, m: re.Match[str]) -> str:
        """The name of a call from its header's match (empty: not a call; the opener that
        led to the header is ``self._opener``)."""
        return m.group("name").strip()

    def _use_suffix(self, suffix: str) -> None:
        """Set the markers of a block whose opener carried ``suffix`` (``MARKER_SUFFIX``)."""
        raise NotImplementedError

    @staticmethod
    def _marker_at(buf: str, pos: int, markers: tuple[str, ...]) -> str | None:
        for marker in markers:
            if buf.startswith(marker, pos):
                return marker
        return None

    # -- the whole-parameter shortcut -----------------------------------------------------

    def _member_pattern(self) -> str | None:
        """The regex of ``_whole_params``, or None for a grammar it cannot read exactly.

        It matches, after blanks, an opener and then: a header, a value holding no
        terminator's first character and ``PARAM_CLOSE`` (a whole parameter, its value in
        group ``xml_value``); or a header and such a value cut by the end of the text,
        perhaps in its closer (the value so far in ``xml_cut``); or a header cut by the end
        of the text (no whole terminator after the opener); or just a header. Or it
        matches a cut opener at the end of the text. The opener and the header are atomic
        groups, so they match exactly what ``_run_modes``'s ``_call_marker_re`` and
        ``PARAM_HEADER.match`` would; the value's first terminator is then its
        ``PARAM_CLOSE``, as ``_terminator_finder`` finds.
        """
        cls = type(self)
        header, close, opens = self.PARAM_HEADER, self.PARAM_CLOSE, self.PARAM_OPEN
        if (
            cls._value is not XmlParamsParser._value
            or cls._open_param is not XmlParamsParser._open_param
            or not close
            or not opens
            or header.flags != re.UNICODE
            or header.groups != len(header.groupindex)
            or not header.groupindex.keys().isdisjoint(("xml_value", "xml_cut"))
            # the closer is the marker found where it starts, and an opener is the
            # marker found where it starts (no longer marker begins with either)
            or any(t != close and t.startswith(close) for t in self._terminators)
            or any(m not in opens and m.startswith(o) for m in self._call_markers for o in opens)
        ):
            return None
        firsts = "".join(sorted({re.escape(t[0]) for t in self._terminators}))
        terms = "|".join(map(re.escape, sorted(set(self._terminators), key=len, reverse=True)))
        opener = "|".join(map(re.escape, sorted(opens, key=len, reverse=True)))
        value = f"[^{firsts}]*+"
        return (
            rf"\s*+(?:(?>{opener})(?:(?>{header.pattern})"
            rf"(?:(?P<xml_value>{value}){re.escape(close)}"
            rf"|(?P<xml_cut>{value}){any_prefix((close,))}?\Z)?"
            rf"|(?:[^{firsts}]|(?!{terms})[{firsts}])*+\Z)"
            rf"|{any_prefix(opens)}?\Z)"
        )

    def _whole_params(
        self, buf: str, pos: int, out: list[Event], final: bool, m: re.Match[str] | None = None
    ) -> int:
        """Between parameters: read whole parameters, one regex and one piece each.

        The piece is the JSON that ``_open_param``, ``_value`` and ``_finish_value`` give
        for the same text (a test proves it). A parameter cut by the end of the text is
        held whole while it may still be a short one (its header, and at most
        ``_MAX_CUT_VALUE`` characters of value before a cut closer; ``_MAX_MEMBER``
        characters in all), so that it comes out in one piece with the next chunk. Returns
        the position where the shortcut stops (the general path goes on from there) or
        ``-(pos + 1)`` to hold ``buf[pos:]``. ``m``: the regex's match at ``pos``, if the
        caller has it.
        """
        member = self._member_re.match  # type: ignore[union-attr]
        n = len(buf)
        param_json = self._param_json
        while True:
            if m is None:
                limit = pos + _MAX_MEMBER
                m = member(buf, pos, limit) if n > limit else member(buf, pos)
                if m is None:
                    return pos
            value = m.group("xml_value")
            if value is None:  # cut by the end of the text, by the limit, or not short
                if m.end() < n or final:
                    return pos
                cut = m.group("xml_cut")
                return -(pos + 1) if cut is None or len(cut) <= _MAX_CUT_VALUE else pos
            if not (
                self._wrapper_possible
                and (self._held_wrapper is not None or not self._member_count)
                and self._wrapper_member(out, m, value)  # (True: held, nothing to emit)
            ):
                text = param_json(m, value)
                if self._member_count:
                    text = "," + text
                self._member_count += 1
                self._parts.append(text)
                self._delta.append(text)
            self._param_gap = []
            pos = m.end()
            if pos == n:
                return pos
            m = None

    def _param_json(self, m: re.Match[str], value: str) -> str:
        """``"key":value`` for a whole parameter read by ``_whole_params``."""
        if self.STRIP_NEWLINES:
            if value[:1] == "\n":
                value = value[1:]
            if value[-1:] == "\n":
                value = value[:-1]
        key = m.group("key").strip()
        plan, types = value_plan(self._props.get(key))
        if plan == AUTO and self._has_string_flag:
            flag = m.group("string")
            if flag is not None:
                plan = STRING if flag == "true" else HELD
        return json_quote(key) + ":" + whole_value_json(plan, types, value)

    def _open_param(self, out: list[Event], m: re.Match[str]) -> None:
        key = m.group("key").strip()
        flag = m.group("string") if self._has_string_flag else None
        if self._wrapper_possible:
            if self._held_wrapper is not None:  # a second parameter: the first wrapped nothing
                self._settle_wrapper(out, unwrap=False)
            elif not self._member_count and key in self.WRAPPER_KEYS and key not in self._props:
                # Maybe the call's arguments: read it whole, emit nothing yet.
                self._reading_wrapper = (key, flag)
                self._plan, self._types = HELD, frozenset()
                self._held = []
                self._value_state = _V_START
                self._newline_skipped = False
                return
        plan, types = value_plan(self._props.get(key))
        if plan == AUTO and flag is not None:
            # DSML's flag types a value the schema does not: a string, or JSON.
            plan = STRING if flag == "true" else HELD
        self._plan = plan
        self._types = types
        self._held = []
        self._value_state = _V_START
        self._newline_skipped = False
        self._add_args(out, ("," if self._member_count else "") + json_quote(key) + ":")
        self._member_count += 1
        self._key_open = True

    def _value(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """Read a value; returns the new position or ``-(pos + 1)`` to hold ``buf[pos:]``."""
        n = len(buf)
        state = self._value_state
        if state == _V_START:
            if buf[pos] == "\n" and not self._newline_skipped and self.STRIP_NEWLINES:
                self._newline_skipped = True
                pos += 1
                if pos == n:
                    return pos
            plan = self._plan
            c = buf[pos]
            if c == "<" and self.CDATA:
                if buf.startswith(_CDATA_OPEN, pos):
                    held = plan == HELD
                    if not held:
                        self._add_args(out, '"')
                        self._key_open = False
                    self._state_after_cdata = _V_HELD if held else _V_STRING
                    self._value_state = _V_CDATA
                    return self._cdata(buf, pos + len(_CDATA_OPEN), out, final)
                if not final and cut_marker(_CDATA_OPEN, buf, pos):
                    return -(pos + 1)  # may still open a CDATA section
            if plan == STRING:
                state = _V_STRING
            elif plan == HELD or (plan == AUTO and c in AUTO_JSON_START):
                state = _V_HELD
            elif c in ("tfn" if plan == AUTO else "n"):
                state = _V_LITERAL
            else:
                state = _V_STRING
            if state == _V_STRING:
                self._add_args(out, '"')
                self._key_open = False
            self._value_state = state
        if state == _V_LITERAL:
            return self._literal(buf, pos, out, final)
        if state == _V_CDATA:
            return self._cdata(buf, pos, out, final)
        finder = self._terminator_finder
        end, resume, marker = finder.find_final(buf, pos) if final else finder.find(buf, pos)
        if marker is None:
            safe = end
            if not final and safe > pos and buf[safe - 1] == "\n" and self.STRIP_NEWLINES:
                safe -= 1  # maybe the newline before the closer
            if state == _V_STRING:
                if safe > pos:  # self._add_args, inline: the per-chunk path of the general loop
                    text = json_quote(buf[pos:safe])[1:-1]
                    self._parts.append(text)
                    self._delta.append(text)
            elif safe > pos:
                self._held.append(buf[pos:safe])
            if final:
                self._finish_value(out, "")
                return n
            return -(safe + 1) if safe < n else safe
        stop = end - 1 if self.STRIP_NEWLINES and end > pos and buf[end - 1] == "\n" else end
        self._finish_value(out, buf[pos:stop])
        self._mode = _CALL
        return resume if marker == self.PARAM_CLOSE else end

    def _finish_value(self, out: list[Event], piece: str) -> None:
        if self._value_state == _V_STRING:
            delta = self._delta
            if piece and delta and delta[-1] == '"' and self._parts[-1] == '"':
                # The opening quote is the last piece (the whole value came in this chunk):
                # the quoted value takes its place, with no copy to cut the quote off.
                delta[-1] = self._parts[-1] = json_quote(piece)
            else:
                self._add_args(out, json_quote(piece)[1:] if piece else '"')
        else:
            self._held.append(piece)
            raw = "".join(self._held)
            self._held = []
            if self._reading_wrapper is not None:
                self._hold_wrapper(raw)
                self._value_state = _V_START
                return
            types = self._types if self._plan == HELD else frozenset()
            if self._plan == NULLABLE_STRING:
                text = "null" if raw.strip() == "null" else json_quote(raw)
            else:
                text = convert_value(raw, types)
            self._add_args(out, text)
        self._key_open = False
        self._value_state = _V_START

    # -- a parameter that may wrap the arguments (WRAPPER_KEYS) ------------------------------

    def _hold_wrapper(self, raw: str) -> None:
        assert self._reading_wrapper is not None
        key, flag = self._reading_wrapper
        self._reading_wrapper = None
        self._held = []
        self._held_wrapper = (key, raw, flag)

    def _wrapper_member(self, out: list[Event], m: re.Match[str], value: str) -> bool:
        """``_whole_params`` read a whole parameter while a wrapper may be held: settle
        the held one (a second parameter: it wrapped nothing), or hold this one if it may
        be a wrapper. True if this parameter was taken (held)."""
        if self._held_wrapper is not None:
            self._settle_wrapper(out, unwrap=False)
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

    def _settle_wrapper(self, out: list[Event], *, unwrap: bool) -> None:
        """The held wrapper is decided. Unwrapped (the call closed with it as its only
        parameter, and its value is a JSON object, raw or as a JSON string, whose keys are
        all the tool's): that object's members are the arguments. Otherwise it is the
        parameter it was written as."""
        assert self._held_wrapper is not None
        key, raw, flag = self._held_wrapper
        self._held_wrapper = None
        inner = self._wrapped(raw) if unwrap else None
        if inner is not None:
            if inner:
                self._add_args(out, compact_json(inner)[1:-1])
                self._member_count = len(inner)
            return
        plan, types = value_plan(None)  # the wrapper is not in the schema: untyped
        if flag is not None:
            plan = STRING if flag == "true" else HELD
        text = whole_value_json(plan, types, raw)
        self._add_args(out, ("," if self._member_count else "") + json_quote(key) + ":" + text)
        self._member_count += 1

    def _wrapped(self, raw: str) -> dict[str, Any] | None:
        try:
            value = load_json(raw)
            if isinstance(value, str):
                value = load_json(value)
        except (ValueError, RecursionError):
            return None
        if isinstance(value, dict) and all(k in self._props for k in value):
            return value
        return None

    def _cdata(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
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
            if self._state_after_cdata == _V_STRING:
                self._add_args(out, json_quote(buf[pos:safe])[1:-1])
            else:
                self._held.append(buf[pos:safe])
        if end < 0:
            if final:
                self._value_state = self._state_after_cdata
                self._finish_value(out, "")
                return n
            return -(safe + 1) if safe < n else safe
        self._value_state = self._state_after_cdata
        return end + len(_CDATA_CLOSE)

    def _json_args(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """A call's body that is one JSON object (``JSON_ARGS``): streamed verbatim as the
        arguments (their ``{`` was emitted with the call), then only blanks and the call's
        or the block's closer may follow. Anything else, or JSON that breaks, ends the
        call ``incomplete`` (its object closed) and is text."""
        args = self._args
        assert args is not None
        n = len(buf)
        if self._mode == _ARGS:
            fresh = not args.parts
            delta, pos = args.push(buf, pos, final)
            if fresh and delta:
                delta = delta[1:]  # the ``{`` already emitted
            if delta:
                self._add_args(out, delta)
            if not args.done:
                if args.error:
                    self._close_call(out, incomplete=True)
                    return pos
                if final:
                    self._close_call(out, incomplete=True, tail=buf[pos:])
                    return n
                return -(pos + 1) if pos < n else pos
            self._mode = _AFTER_ARGS
        ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws > pos:
            self._param_gap.append(buf[pos:ws])  # text again if junk follows
        if ws == n:
            return ws
        if not final and self._call_partial.holds(buf, ws):
            return -(ws + 1)
        for closer in (self.CALL_CLOSE, self.BLOCK_CLOSE):
            if closer and buf.startswith(closer, ws):
                if closer == self.BLOCK_CLOSE:
                    self._in_block = False
                self._close_call(out, incomplete=False)
                return ws + len(closer)
        gap = "".join(self._param_gap)
        self._close_call(out, incomplete=True)
        if gap:
            out.append(Text(gap))
        return ws  # the junk is text

    def _literal(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """A value that may be exactly ``true``, ``false`` or ``null``: bounded hold."""
        n = len(buf)
        finder = self._terminator_finder
        end, resume, marker = finder.find_final(buf, pos) if final else finder.find(buf, pos)
        candidate = buf[pos:end]
        if candidate.endswith("\n") and self.STRIP_NEWLINES:
            candidate = candidate[:-1]
        literals = LITERALS if self._plan == AUTO else ("null",)
        if marker is not None or final:
            if candidate in literals:
                self._value_state = _V_HELD
                self._finish_value(out, candidate)
                if marker is None:
                    return n
                self._mode = _CALL
                return resume if marker == self.PARAM_CLOSE else end
        elif any(lit.startswith(candidate) for lit in literals):
            return -(pos + 1)  # still may become a literal
        # Not a literal: a string after all, streamed from its first character.
        self._value_state = _V_STRING
        self._add_args(out, '"')
        self._key_open = False
        return pos

    def _release_stem(self, out: list[Event], rest: str = "") -> None:
        if self._stem_gap:
            self._raw.insert(0, self._stem_gap)
            self._stem_gap = ""
        self._release_raw(out, rest)

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        mode = self._mode
        if mode == _SUFFIX:
            self._release_stem(out, rest)
            return
        if mode == _JSON:
            assert self._json_block is not None
            self._json_block._calls = self._calls
            self._json_block._end_of_stream(rest, out)
            return
        if mode == _ARGS or mode == _AFTER_ARGS:
            gap = "".join(self._param_gap) if mode == _AFTER_ARGS else ""
            self._close_call(out, incomplete=True, tail="" if gap or mode == _AFTER_ARGS else rest)
            if mode == _AFTER_ARGS and gap + rest:
                out.append(Text(gap + rest))
            return
        if mode in (_CALL, _KEY, _VALUE):
            if self._value_state == _V_CDATA:
                self._value_state = self._state_after_cdata
            if mode == _VALUE and self._value_state in (_V_HELD, _V_LITERAL):
                self._finish_value(out, "")
            self._close_call(out, incomplete=True)
            self._release_raw(out, rest)
            return
        if mode == _HEADER or mode == _BLOCK:
            if self._calls_in_block == 0 or mode == _HEADER:
                self._release_raw(out, rest)
            elif rest.strip():
                out.append(Text(rest))
        elif rest:
            out.append(Text(rest))
        self._raw = []

    @staticmethod
    def raw_value(value: Any) -> str:
        """How a renderer writes a value: strings raw, everything else as JSON."""
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class _JsonBlock(JsonCallsParser):
    """One ``<tool_call>`` block with a Hermes JSON body, read by the JSON-call engine."""

    ARRAY = False
