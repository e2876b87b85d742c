"""A call's arguments in the XML-parameter engine: its parameters, their values, a JSON
object body, and the call's end.

``XmlArgs`` is the base of ``XmlParamsParser`` (``engines.xml_params``, whose header has the
grammar and the mode table): it holds the state of the call being read and the steps of
the modes inside it (VALUE, STRING, HELD, LITERAL, CDATA, ARGS, AFTER_ARGS), the whole
short parameters that ``ShortMembers`` hands over (``_take_param``), and closing the call.
The engine reads text, blocks, headers and the tokens between parameters, and sets the
markers (``_setup_markers``) that these steps stop at.

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

What it holds back: a partial terminator at the end of a value (bounded by the longest
marker), a trailing newline of a value, a literal candidate, a cut ``<![CDATA[`` or
``]]>``, a JSON body's cut token (``ArgsStreamer``). Held values are consumed into a list
of parts, never kept in the tail, so feeding stays linear however long they are.

Value text up to a terminator is ``StopMarkers.find``'s (a chunk without the terminators'
lead is all value), a read that the STRING step writes out for its common chunk.

Options (class attributes of ``XmlParamsParser``): ``STRIP_VALUES`` (TeleChat4): every
blank around a value is stripped (SGLang strips them), in place of the one newline; a
string value streams without its leading blanks, and its trailing ones wait, consumed into
a list (never held in the tail), until text (they are the value's) or the terminator (they
are not) follows; a literal followed by blanks is held the same way, in the held value's
parts. ``CDATA`` (MiniCPM5): a value that starts with ``<![CDATA[`` is read literally up
to ``]]>`` (markup included), then goes on as written; a string or untyped value streams
the section's text, any other holds it. ``WRAPPER_KEYS`` (DSML ``arguments``, ``input``):
a call's first parameter of such a name, where the schema is known and lacks it, is held
whole (nothing emitted) until what follows decides it: the call's closer with no other
parameter unwraps it when its value is a JSON object (raw, or a JSON string holding one)
of the tool's keys; anything else makes it the parameter it was written as.
``QUOTED_STRINGS`` (Muse, whose values are JSON when they load): an untyped value that
starts with ``"`` is held, and is the string it encodes when it is one JSON string
(``schema.quoted_string_json``), else its raw text. ``JSON_ARGS`` (DSML): a call whose
body is a JSON object has it for arguments, streamed verbatim (``ArgsStreamer``; the
call's ``{`` is emitted already, so the object's own is dropped); junk after it, or JSON
that breaks, ends the call ``incomplete``. A JSON call object (the ``json`` group of
``CALL_HEADER``) has its arguments read so too, and its ``}`` after them.
``JSON_ARGS_TYPED`` (K2 Horizon's JSON dialect): the object's top-level values are typed
by the schema as tagged values are, streamed where the model wrote what the plan takes,
else held and converted (``engines.json_members.TypedJsonArgs``). ``JSON_ARGS_WRAP`` (Kimi K3):
the object's closer is read after it (its opener is the engine's, between parameters).

Malformed markup inside a call ends it ``incomplete`` with its JSON closed
(``_close_call``); the blanks before junk and the junk are text (``_junk_ends_call``).
"""

from __future__ import annotations

import re
from enum import IntEnum
from typing import Any, ClassVar

from streamcall._mypyc import mypyc_attr
from streamcall.events import Event, Text, ToolCallArgs
from streamcall.formats.engines.base import ToolParser
from streamcall.formats.engines.json_members import TypedJsonArgs
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
    value_plan,
    whole_value_json,
    wrapped_arguments,
    written_type_plan,
)
from streamcall.text import (
    ArgsStreamer,
    PartialMarkers,
    Step,
    StopMarkers,
    cut_marker,
    fast,
    json_quote,
)

__all__ = ["Mode", "XmlArgs"]

WS = re.compile(r"\s*")
_CDATA_OPEN, _CDATA_CLOSE = "<![CDATA[", "]]>"


class Mode(IntEnum):
    """Where the engine is (the table in ``engines.xml_params``'s header)."""

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
IN_CALL = frozenset((PARAMS, KEY, VALUE, STRING_MODE, HELD_MODE, LITERAL, CDATA))


@mypyc_attr(allow_interpreted_subclasses=True)
class XmlArgs(ToolParser):
    """The arguments of the call being read; ``XmlParamsParser`` is the engine."""

    # The configuration read here (set, with their meaning, by ``XmlParamsParser``).
    BLOCK_CLOSE: ClassVar[str | None]
    CALL_CLOSE: ClassVar[str]
    PARAM_CLOSE: ClassVar[str]
    STRIP_NEWLINES: ClassVar[bool]
    STRIP_VALUES: ClassVar[bool]
    CDATA: ClassVar[bool]
    JSON_ARGS_WRAP: ClassVar[tuple[str, str] | None]
    WRAPPER_KEYS: ClassVar[tuple[str, ...]]
    QUOTED_STRINGS: ClassVar[bool]

    # The engine's state and markers (``XmlParamsParser.__init__``, ``_setup_markers``).
    _mode: int
    _in_block: bool
    _delta: list[str]  # argument pieces of this chunk, not yet an event
    _terminator_stops: StopMarkers
    _call_partial: PartialMarkers
    _has_string_flag: bool
    _has_type_group: bool
    _value_group: int

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
            pos = WS.match(buf, pos).end()  # type: ignore[union-attr]
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
        ws = WS.match(buf, pos).end()  # type: ignore[union-attr]
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
