"""The JSON-call family engine: calls written as JSON objects between markers.

Grammar (configured per format by class attributes)::

    output  := (text | block)*
    block   := START ws* ( calls | '[' ws* calls ws* ']' ) ws* END?
    calls   := call (ws* SEP? ws* call)* (ws* SEP)?       # SEP: one, or a repeated START
    call    := '{' member (',' member)* '}'            # any key order
    member  := NAME_KEY ':' string                     # the function name
             | ARGS_KEY ':' (object | string | null)   # object: streamed verbatim
             | other-key ':' value                     # string: decoded, then streamed
                                                       # other keys: skipped

Modes (``Mode``) and what each step reads::

    mode         reads                                  next          emits
    TEXT         text up to START (or a bare '{' '[')   BODY          Text
    BODY         blanks, '[', ']', one SEP or START     BODY          ToolCallEnd (the last call)
                 '{'                                    OPEN          ToolCallEnd (the last call)
                 END, or anything else                  TEXT          ToolCallEnd; Text if no call
    OPEN, KEY    a key (OPEN also '}': no members)      COLON, or VALUE with its ':'
    COLON        ':'                                    VALUE
    VALUE        the name, or the model's id: a string  AFTER         ToolCallStart (if args seen)
                 the arguments: '{'                     ARGS          ToolCallStart (if name known)
                 the arguments: '"'                     STRING_ARGS
                 the arguments: null; any other value   AFTER; SKIP
    SKIP         that other value (``JsonScan``)        AFTER
    ARGS         the object, verbatim (``ArgsStreamer``) AFTER        ToolCallArgs
    STRING_ARGS  the string, decoded (``EncodedArgs``)  AFTER         ToolCallStart, ToolCallArgs
    AFTER        ',' or '}'                             KEY or BODY   ToolCallEnd (no closer due)
    (any)        malformed markup                       TEXT          Text; ToolCallEnd incomplete

Text after the object inside string arguments is junk, released as written after the call;
if the call breaks, with the markup from the string's closing quote on (``_after_junk``).

A step may go straight on into the step of the mode it set when that is the next token's
(a key's colon and value, a name and the ',' after it), never round a cycle: a call's
members are read one loop turn each.

What it holds back:
- in TEXT, a suffix that may be the start of a START marker;
- in BODY, a suffix that may be the start of the END marker;
- in a call object, a key or name string not yet closed (capped at ``MAX_HEAD``
  characters; it waits unread in the feed loop for a chunk with a quote), and the
  arguments' last token if it may still grow (a number, ``tru``, a
  cut escape);
- in arguments written as an object, a small member cut by the end of the chunk, whole
  (at most 64 characters: ``ArgsStreamer.push_more``);
- in arguments written as a string: what the inner scan has not decided (a number or a
  keyword that may grow, a cut inner escape, a small member cut by the end of the chunk),
  as the raw text it came from, never as decoded text, so that where the markup breaks is
  a position in the model's text (``EncodedArgs``).

Options for the formats that need them (all off by default):

- ``BARE``: JSON written with no start marker. ``BARE_AT_START``: a ``{`` (or ``[``
  with ``ARRAY``) as the first non-blank character of the output opens a block (Granite
  3.x). ``BARE_ANYWHERE``: a ``{`` (or ``[`` with ``ARRAY``) anywhere in text opens a
  tentative block (Llama 3 JSON). A bare block must look like a call from its first key on
  (a name or arguments key) and must carry arguments; otherwise it is text, so prose such
  as ``{x}`` or a quoted ``{"query": ...}`` stays text, and the engine holds at most one
  key before deciding.
- ``NAME_AS_KEY``: ``{"fname": {args}}`` (Apertus): the first key is the function name and
  its value the arguments.
- ``REPEAT_START``: a START marker may reappear between the calls of one block
  (``<function_call> {...} <function_call> {...}``, Granite 20B FC).
- ``ENDS``: a per-start end marker, for formats with several wrappings (xLAM:
  ``<tool_call>...</tool_call>``, a ```` ```json ```` fence ...); ``END`` otherwise.
- ``REARM``: text markers after which a bare block may start again, as at the start of
  the output (xLAM's JSON after ``</think>``). The marker itself stays text.
- ``ID_KEYS``: keys whose string value is the model's own call id (Cohere's
  ``tool_call_id``), used as ``ToolCallStart.id``. Read like the name: a string, held
  until it closes (capped at ``MAX_HEAD``). An id written before the arguments is always
  used, since the call does not start before the arguments do; one written after the
  arguments have started streaming comes too late and the generated id stays (the start
  event is never delayed for a key that may not come). A non-string or empty id is
  skipped. Ids are unique within the stream: a repeat gets a ``~2``, ``~3`` ... suffix.

Between calls, the markup comes once: a second separator, a START repeated twice, or an
empty list is not markup and ends the block (text from there). Two lenient forms stay
markup: a separator before the block's END or the list's ``]``, and a list that END cuts
before its ``]``.

A call starts (``ToolCallStart``) once its name is known and its arguments have shown a
valid first character, so a call whose arguments turn out to be ``42`` never starts and
degrades to text whole. Arguments written before the name are held until the name comes.
If the markup breaks after the call started, the arguments are closed (``incomplete``), the
call ends, and the rest is text again. At end of stream a call whose name is known is
reported, with its arguments closed; one whose name is not known is released as text.

A call whose object closed is complete only once what follows proves it ended: the next
call's ``{``, a separator, a repeated START, or the block's END; the list's ``]`` too
where the block has no END (or ``END_OPTIONAL``: an END that is the stop token servers
strip). Until then its ``ToolCallEnd`` waits (``_closed``); junk or the end of the stream
first end it ``incomplete``. A block with no END and no list (bare objects, ``;``-separated)
ends each call with its object: nothing after it can belong to it.

A format whose START may open a call written otherwise (Llama 3.1's built-in tools,
``<|python_tag|>brave_search.call(query="x")``) reads it in ``_other_body``, called at
the first non-blank character of the block when it is not JSON.

Another engine may embed this one for a block of JSON calls (Qwen's ``<tool_call>`` with a
JSON body among XML ones): ``json_embedded``.
"""

from __future__ import annotations

import json
import re
from _json import scanstring as _scanstring  # the C scanner: (text, end, strict)
from enum import IntEnum
from typing import ClassVar

from streamcall._mypyc import mypyc_attr
from streamcall.events import Event, Text, ToolCallArgs
from streamcall.formats.engines.base import ToolParser, Tools
from streamcall.text import (
    ArgsStep,
    ArgsStreamer,
    JsonScan,
    MarkerFinder,
    Step,
    cut_marker,
    fast,
    partial_marker_len,
    skip_ws,
    step_table,
)
from streamcall.text.args import BLANK, BROKEN, MORE, EncodedArgs, release_junk
from streamcall.text.jsonstring import nested_string_cut, nested_string_run
from streamcall.text.loop import not_text

__all__ = ["BARE_ANYWHERE", "BARE_AT_START", "JsonCallsParser", "Mode"]

BARE_AT_START, BARE_ANYWHERE = 1, 2

# A key or name string, with valid escapes only; ``_KEY_CUT``: one cut by the end of the text
# (a partial escape included), which may still close. Anything else, an invalid escape such
# as ``\{``, breaks the markup there: the string is text.
_KEY_STRING = re.compile(r'"(?:[^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"')
_KEY_CUT = re.compile(r'"(?:[^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*(?:\\(?:u[0-9a-fA-F]{0,3})?)?')
_LENIENT = json.JSONDecoder(strict=False)


class Mode(IntEnum):
    """Where the engine is (the table in the module header)."""

    TEXT = 0
    BODY = 1
    OPEN = 2  # just after a call's '{': a key or '}'
    KEY = 3  # after a ',': a key
    COLON = 4
    VALUE = 5
    SKIP = 6
    ARGS = 7
    STRING_ARGS = 8
    AFTER = 9  # after a member: ',' or '}'


# The modes as plain ints: the steps compare and index with them on every chunk, and an
# IntEnum member costs more there (docs/performance.md).
TEXT, BODY, OPEN, KEY, COLON, VALUE, SKIP, ARGS, STRING_ARGS, AFTER = map(int, Mode)

# what the key just read is (``_role``)
_OTHER, _NAME, _ARGUMENTS, _ID = 0, 1, 2, 3


@mypyc_attr(allow_interpreted_subclasses=True)
class JsonCallsParser(ToolParser):
    """Configurable parser for the JSON-object tool-call formats."""

    START: ClassVar[tuple[str, ...]] = ()
    END: ClassVar[str | None] = None
    NAME_KEYS: ClassVar[tuple[str, ...]] = ("name",)
    ARGS_KEYS: ClassVar[tuple[str, ...]] = ("arguments", "parameters")
    ARRAY: ClassVar[bool] = True
    SEPARATORS: ClassVar[str] = ",;"
    MAX_HEAD: ClassVar[int] = 4096
    BARE: ClassVar[int] = 0
    NAME_AS_KEY: ClassVar[bool] = False
    REPEAT_START: ClassVar[bool] = False
    ENDS: ClassVar[dict[str, str | None]] = {}
    REARM: ClassVar[tuple[str, ...]] = ()
    ID_KEYS: ClassVar[tuple[str, ...]] = ()
    #: the END marker is the model's stop token, which servers strip from the text: a call
    #: that closed is complete without it (GigaChat 3's ``</s>``)
    END_OPTIONAL: ClassVar[bool] = False

    def __init__(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> None:
        super().__init__(tools, id_prefix=id_prefix)
        starts = self.START + self.REARM
        if self.BARE == BARE_ANYWHERE:
            starts += ("{", "[") if self.ARRAY else ("{",)
        self._start_finder = MarkerFinder(starts)
        self._end = self.END  # the end marker of the open block
        self._at_start = self.BARE == BARE_AT_START  # only blank text seen so far
        self._bare_block = False  # the open block had no start marker
        self._mode = TEXT
        self._block_calls = 0
        self._in_array = False
        self._sep_seen = False  # a separator since the block's last call
        # A call whose object closed, waiting for what proves it ended (see the module
        # header): (index, arguments, cut, text after the object in string arguments).
        self._closed: tuple[int, str, bool, str] | None = None
        # A started call's arguments are read by the text layer's ARGS step (``ArgsStep``,
        # calling back ``_args_ended``), arguments before the name by ``_read_object_args``.
        self._arg_step = ArgsStep(None, self._args_ended)
        self._steps = [
            self._read_text,
            self._read_body,
            self._read_key,
            self._read_key,
            self._read_colon,
            self._read_value,
            self._read_other_value,
            self._read_object_args,
            self._read_string_args,
            self._read_after_member,
        ]
        self._reset_object()

    def _reset_object(self) -> None:
        self._role = _OTHER  # what the key just read is
        self._name: str | None = None
        self._call_id: str | None = None  # the model's id (ID_KEYS)
        self._index = -1  # set once the call has started
        self._args: ArgsStreamer | None = None  # the object (inside the string, if encoded)
        self._encoded: EncodedArgs | None = None  # arguments written as a string
        self._args_seen = False
        self._pending: list[str] = []  # argument text written before the name
        self._other: JsonScan | None = None  # the value of another key
        self._after_junk = -1  # where the markup after string arguments' junk starts in _raw

    # -- the feed loop, with the string arguments' fast read in it ------------------------

    def feed(self, text: str) -> list[Event]:
        """``FeedLoop.feed`` written out, with ``EncodedArgs.push``'s run of an inner string in
        it (the reference path; docs/performance.md, "The pure build's creep"): a chunk of a
        started call's string arguments that is all nested string text, or ends in a cut
        escape (held), is decoded here, in one frame: the call's one ``ToolCallArgs``."""
        out: list[Event] = []
        tail = self._tail
        try:  # (free unless it raises: the type is checked only then)
            if tail:  # (a finished parser holds no tail)
                if not text:
                    return out
                buf = tail + text
                if self._wait_len and self._waits(buf, text):  # (the feed loop's rule 4)
                    return out
            elif text and not self._finished:
                buf = text
            else:
                return out
            # (the other modes first: a comparison specialises only before a short jump)
            if self._mode != STRING_ARGS or self._index < 0 or not fast.FAST:
                pos, hold = self._steps[self._mode](buf, 0, out, False)
            else:
                inner = self._encoded.inner  # type: ignore[union-attr]
                if inner.scan.in_string:
                    n = len(buf)
                    end = nested_string_run(buf, 0).end()  # type: ignore[union-attr]
                    if end == n or (n - end < 7 and nested_string_cut(buf, end) is not None):
                        run = buf if end == n else buf[:end]
                        decoded = _scanstring(run + '"', 0, False)[0] if "\\" in run else run
                        if decoded:
                            inner.parts.append(decoded)
                            out.append(ToolCallArgs(self._index, decoded))
                        self._tail = buf[end:] if end < n else ""
                        return out
                pos, hold = self._steps[STRING_ARGS](buf, 0, out, False)
            if not hold:  # (the steps that follow: the loop's own, ``_read``)
                pos = self._read(buf, pos, out, False)
                hold = pos < len(buf)
        except TypeError:
            if not isinstance(text, str):
                raise not_text(text) from None
            raise
        self._tail = buf[pos:] if hold else ""
        return out

    # -- text, and the blocks between calls ------------------------------------------------

    def _read_text(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        if self._gap is not None:
            pos = self._skip_gap(buf, pos, out, self._start_finder.markers, final)
            if pos == len(buf):
                return pos, True
        if self._at_start:
            ws_end = skip_ws(buf, pos).end()  # type: ignore[union-attr]
            if ws_end > pos:
                out.append(Text(buf[pos:ws_end]))
                pos = ws_end
            if pos == len(buf):
                return pos, True
            self._at_start = False
            if buf[pos] == "{" or (self.ARRAY and buf[pos] == "["):
                self._open_block([], bare=True)
                return pos, False
        end, resume, marker = self._start_finder.take(buf, pos, final)
        if end > pos:
            out.append(Text(buf[pos:end]))
        if marker is None:
            return end, True
        if (marker == "{" or marker == "[") and self.BARE == BARE_ANYWHERE:
            self._open_block([], bare=True)
            return end, False
        if marker in self.REARM:
            out.append(Text(marker))
            self._at_start = True
            return resume, False
        self._open_block([marker], bare=False)
        self._end = self.ENDS.get(marker, self.END)
        return resume, False

    def _open_block(self, raw: list[str], *, bare: bool) -> None:
        """Enter a block; ``raw`` is the markup consumed so far (text if the block fails).

        Also the way in for a parser that recognised the start marker itself and hands
        the rest of the block to this engine (Mistral's pre-v11 list form, a JSON body in
        the XML and pythonic engines).
        """
        self._raw = raw
        self._block_calls = 0
        self._in_array = False
        self._bare_block = bare
        self._end = self.END
        self._mode = BODY

    @property
    def _block_open(self) -> bool:
        """Whether a block is open (for a host engine: ``json_embedded``)."""
        return self._mode != TEXT

    def _read_body(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        n = len(buf)
        ws_end = skip_ws(buf, pos).end()  # type: ignore[union-attr]
        if ws_end > pos:
            self._raw.append(buf[pos:ws_end])
            pos = ws_end
        if pos == n:
            return pos, True
        c = buf[pos]
        end_marker = self._end
        if c == "{":
            if self._closed is not None:  # the next call: the last one ended
                self._settle(out, True)
            self._raw.append("{")
            self._reset_object()
            self._mode = OPEN
            return self._read_key(buf, pos + 1, out, final)
        if self.ARRAY and c == "[" and not self._in_array and self._block_calls == 0:
            self._in_array = True
            self._raw.append("[")
            return pos + 1, False
        if self._in_array and c == "]" and self._block_calls:
            # closing markup of calls that completed: never text (an empty list is no
            # markup: it ends the block below, as text)
            self._in_array = False
            self._raw = []
            if self._closed is not None and not self._end_required():
                self._settle(out, True)  # the list was the block: its end ends the call
            if end_marker is None:
                self._mode = TEXT
                self._block_ended()
            return pos + 1, False
        # Between calls: blanks and one separator (a SEP, or START where it repeats); a
        # second one is not markup, and ends the block below.
        sep_due = self._block_calls > 0 and not self._sep_seen
        if sep_due and (c in self.SEPARATORS or (c == "," and self._in_array)):
            if self._closed is not None:
                self._settle(out, True)
            self._raw.append(c)
            self._sep_seen = True
            return pos + 1, False
        if self.REPEAT_START and sep_due and not self._in_array:
            for marker in self.START:
                if buf.startswith(marker, pos):
                    if self._closed is not None:
                        self._settle(out, True)
                    self._raw.append(marker)
                    self._sep_seen = True
                    return pos + len(marker), False
            if not final and partial_marker_len(buf, self.START, pos) == n - pos:
                return pos, True
        if end_marker is not None:
            if buf.startswith(end_marker, pos):
                if self._block_calls == 0:
                    self._raw.append(end_marker)
                    self._release_raw(out)
                else:
                    if self._closed is not None:
                        self._settle(out, True)
                    self._block_ended()
                self._raw = []
                self._mode = TEXT
                return pos + len(end_marker), False
            if not final and partial_marker_len(buf, (end_marker,), pos) == n - pos:
                return pos, True
        if self._block_calls == 0 and not self._bare_block and not self._in_array:
            other = self._other_body(buf, pos, out, final)
            if other is not None:
                return other
        # Anything else ends the block, and a call still waiting for its closer with it.
        # After calls, blanks before it are a gap: markup if another block or the end
        # follows, text if other text does (``_skip_gap``).
        if self._closed is not None:
            self._settle(out, False)
        if self._block_calls == 0 or any(map(str.strip, self._raw)):
            self._release_raw(out)
        else:
            self._block_ended()
            assert self._gap is not None
            self._gap.extend(self._raw)
            self._raw.clear()
        self._mode = TEXT
        return pos, False

    def _other_body(self, buf: str, pos: int, out: list[Event], final: bool) -> Step | None:
        """A block opened by START whose body is not JSON, at ``buf[pos]`` (not blank): a
        format whose START may also open another kind of call reads it here and returns
        its step (holding a cut head), or None: the block is not a block of calls. None by
        default."""
        return None

    # -- inside one call object --------------------------------------------------------------

    def _read_key(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        pos = self._blanks(buf, pos)
        if pos == len(buf):
            return pos, True
        c = buf[pos]
        first = self._mode == OPEN
        if c == "}" and first:
            self._raw.append(c)
            if not self._object_closed(out):
                return self._broken(buf, pos + 1, out, degrade_only=True)
            return pos + 1, False
        if c != '"':
            return self._broken(buf, pos, out)
        m = _KEY_STRING.match(buf, pos)
        if m is None:
            return self._cut_string(buf, pos, out, final)
        key = _LENIENT.decode(m.group())
        self._raw.append(m.group())
        pos = m.end()
        if self._bare_block and first and key not in self.NAME_KEYS and key not in self.ARGS_KEYS:
            return self._broken(buf, pos, out)
        if self.NAME_AS_KEY and self._name is None:
            self._name = key
            self._role = _ARGUMENTS
        elif key in self.NAME_KEYS and self._name is None:
            self._role = _NAME
        elif key in self.ARGS_KEYS and not self._args_seen:
            self._role = _ARGUMENTS
        elif key in self.ID_KEYS and self._call_id is None and self._index < 0:
            self._role = _ID
        else:
            self._role = _OTHER
        colon = skip_ws(buf, pos).end()  # type: ignore[union-attr]
        if colon < len(buf) and buf[colon] == ":":  # the colon too, when it is there
            self._raw.append(buf[pos : colon + 1])
            self._mode = VALUE
            return self._read_value(buf, colon + 1, out, final)
        self._mode = COLON
        return pos, False

    def _read_colon(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        pos = self._blanks(buf, pos)
        if pos == len(buf):
            return pos, True
        if buf[pos] != ":":
            return self._broken(buf, pos, out)
        self._raw.append(":")
        self._mode = VALUE
        return pos + 1, False

    def _read_value(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        pos = self._blanks(buf, pos)
        if pos == len(buf):
            return pos, True
        c = buf[pos]
        role = self._role
        if role == _NAME or (role == _ID and c == '"'):
            if c != '"':
                return self._broken(buf, pos, out)
            m = _KEY_STRING.match(buf, pos)
            if m is None:
                return self._cut_string(buf, pos, out, final)
            self._raw.append(m.group())
            self._mode = AFTER
            if role == _ID:
                self._call_id = _LENIENT.decode(m.group()) or None
            else:
                self._name = _LENIENT.decode(m.group())
                if self._args_seen:
                    self._begin(out)
                    self._flush_pending(out)
            return self._read_after_member(buf, m.end(), out, final)
        if role == _ARGUMENTS:
            self._args_seen = True
            if c == "{":
                if self._name is not None:
                    self._begin(out)
                    self._args = self._arg_step.open(self._index)
                    step_table(self._steps)[ARGS] = self._arg_step.step
                else:
                    self._args = ArgsStreamer()
                    step_table(self._steps)[ARGS] = self._read_object_args
                self._mode = ARGS
                return pos, False
            if c == '"':
                self._raw.append(c)
                self._encoded = EncodedArgs()
                self._args = self._encoded.inner
                self._mode = STRING_ARGS
                return pos + 1, False
            if buf.startswith("null", pos):
                self._raw.append("null")
                self._args_seen = False  # same as no arguments: {}
                self._mode = AFTER
                return self._read_after_member(buf, pos + 4, out, final)
            if not final and cut_marker("null", buf, pos):
                return pos, True
            return self._broken(buf, pos, out)
        self._other = JsonScan()
        self._mode = SKIP
        return pos, False

    def _read_other_value(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        other = self._other
        assert other is not None
        end = other.feed(buf, pos, final)
        self._raw.append(buf[pos:end])
        if other.error or other.control:
            return self._broken(buf, end, out)
        if not other.done:
            return end, True
        self._mode = AFTER
        return end, False

    def _read_object_args(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """Arguments before the call's name: held as pending deltas (and as written)."""
        args = self._args
        assert args is not None
        delta, end = args.push(buf, pos, True) if final else args.push_more(buf, pos)
        self._raw.append(buf[pos:end])  # as written: the delta escapes raw controls
        self._pending.append(delta)
        return self._args_ended(buf, out, end, len(buf), None, final)

    def _args_ended(
        self, buf: str, out: list[Event], end: int, stop: int, marker: str | None, final: bool
    ) -> Step:
        """After the object's text in ``buf``: done, the member ends; broken, the call;
        else its unfinished token is held."""
        args = self._args
        assert args is not None
        if args.done:
            self._mode = AFTER
            return end, False
        if args.error:
            return self._broken(buf, end, out)
        return end, True

    def _read_string_args(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        encoded = self._encoded
        assert encoded is not None
        index = self._index
        delta, end, outcome = encoded.push(buf, pos, final)
        if index >= 0:
            if delta:  # this call's only delta in this chunk: one read per chunk
                out.append(ToolCallArgs(index, delta))
            if outcome == MORE:
                return end, True
        elif encoded.started and self._name is not None:
            self._begin(out)  # the object has shown its '{'
            if delta:
                out.append(ToolCallArgs(self._index, delta))
        else:
            self._raw.append(buf[pos:end])
            if delta:
                self._pending.append(delta)
        if outcome == MORE:
            return end, True
        if outcome == BROKEN:
            return self._broken(buf, end, out)
        if outcome == BLANK:  # an empty or blank string: no arguments
            self._args_seen = False
            self._args = self._encoded = None
        elif encoded.junk:  # the markup from the closing quote on: text if the call breaks
            if self._index < 0:  # (kept above with the body)
                self._raw[-1] = buf[pos : end - 1]
            self._after_junk = len(self._raw)
            self._raw.append('"')
        self._mode = AFTER
        return end, False

    def _read_after_member(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        pos = self._blanks(buf, pos)
        if pos == len(buf):
            return pos, True
        c = buf[pos]
        if c == ",":
            self._raw.append(c)
            self._mode = KEY
            return pos + 1, False
        if c == "}":
            self._raw.append(c)
            if not self._object_closed(out):
                return self._broken(buf, pos + 1, out, degrade_only=True)
            return pos + 1, False
        return self._broken(buf, pos, out)

    def _blanks(self, buf: str, pos: int) -> int:
        """Blanks between the tokens of a call: markup, kept in case the call fails."""
        end = skip_ws(buf, pos).end()  # type: ignore[union-attr]
        if end > pos:
            self._raw.append(buf[pos:end])
        return end

    def _cut_string(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """A key, name or id string at ``buf[pos]`` that does not close here: held while it
        may still close (up to ``MAX_HEAD`` characters), else the markup breaks at it. Cut
        by the end of the stream, it is the end of the stream's (``_end_of_stream``: a call
        whose name is known is reported)."""
        cut = _KEY_CUT.match(buf, pos)
        if cut is None or cut.end() < len(buf) or len(buf) - pos > self.MAX_HEAD:
            return self._broken(buf, pos, out)
        if final:
            return pos, True
        # It waits unread for a chunk with a quote, or past the bound (the feed loop's rule
        # 4), not re-read per chunk. (A bad escape in a chunk that has no quote breaks the
        # string there all the same, when it is next read: the result is one.)
        self._wait_len = self.MAX_HEAD
        self._wait_for = '"'
        return pos, True

    # -- the call's life -----------------------------------------------------------------------

    def _begin(self, out: list[Event]) -> None:
        if self._index < 0:
            assert self._name is not None
            self._index = self._start_call(out, self._name, self._call_id)
            del self._raw[: None if self._after_junk < 0 else self._after_junk]

    def _flush_pending(self, out: list[Event]) -> None:
        if self._pending:
            self._emit_args(out, self._index, "".join(self._pending))
            self._pending = []

    def _object_closed(self, out: list[Event]) -> bool:
        """The call's object closed. False if it was not a call (no name)."""
        if self._name is None or (self._bare_block and self._args is None):
            return False
        self._begin(out)
        args = self._args
        encoded = self._encoded
        if args is None:
            self._emit_args(out, self._index, "{}")
            text, cut = "{}", False
        else:
            text, cut = args.text(), encoded is not None and encoded.cut
        junk = "".join(encoded.junk) if encoded is not None else ""
        self._closed = (self._index, text, cut, junk)
        if not self._in_array and not self._end_required():
            self._settle(out, True)  # no closer to wait for: the object's end is the call's
        self._block_calls += 1
        self._raw.clear()
        self._sep_seen = False
        self._reset_object()
        self._mode = BODY
        return True

    def _broken(self, buf: str, pos: int, out: list[Event], *, degrade_only: bool = False) -> Step:
        """Malformed markup at ``buf[pos]``: close what started, release the rest as text."""
        if self._index >= 0 and not degrade_only:
            self._end_open_call(out, "")
            encoded = self._encoded
            if encoded is not None:
                release_junk(out, "".join(encoded.junk))
        self._release_raw(out)
        self._reset_object()
        self._mode = TEXT
        return pos, False

    def _end_required(self) -> bool:
        """Whether the open block's END marker must be seen for its last call to be
        complete (it has one, and it is not a stop token that servers strip)."""
        return self._end is not None and not self.END_OPTIONAL

    def _settle(self, out: list[Event], complete: bool) -> None:
        """End the call whose object closed: complete if what followed proved it ended
        (its block's closer, a separator, the next call), else incomplete."""
        assert self._closed is not None
        index, text, cut, junk = self._closed
        self._closed = None
        self._end_call(out, index, text, cut or not complete)
        release_junk(out, junk)

    def _end_open_call(self, out: list[Event], tail: str) -> None:
        """End a call whose object never closed: incomplete, whatever its arguments."""
        args = self._args
        encoded = self._encoded
        cut = encoded is not None and encoded.cut  # (a cut string's object was closed then)
        self._end_call(out, self._index, args, True, tail=tail, closed=cut)

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        mode = self._mode
        if mode == TEXT:
            if rest:
                out.append(Text(rest))
            return
        if mode == BODY:
            if self._closed is not None:  # its closer never came
                self._settle(out, False)
            if self._block_calls == 0:
                self._raw.append(rest)
                self._release_raw(out)
            else:
                text = "".join(self._raw) + rest
                if text.strip():
                    out.append(Text(text))
            self._raw = []
            return
        # an object still open
        if self._name is None or (self._bare_block and self._args is None):
            self._raw.append(rest)
            self._release_raw(out)
            return
        if self._index < 0:
            self._begin(out)
            self._flush_pending(out)
        encoded = self._encoded
        if mode == STRING_ARGS and encoded is not None and not encoded.started:
            self._args = None  # the string ended before its object began: no arguments
        if mode == ARGS or (mode == STRING_ARGS and self._args is not None):
            # what the scan held back: raw text; inside string arguments, decoded first
            tail = encoded.decode_tail(rest) if encoded is not None else rest
            self._end_open_call(out, tail)
        else:  # (arguments that closed too: the call's object did not)
            self._end_open_call(out, "")
        if encoded is not None:
            release_junk(out, "".join(encoded.junk))
        self._raw.clear()
