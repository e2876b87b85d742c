"""The JSON-call family engine: calls written as JSON objects between markers.

Grammar (configured per format by class attributes)::

    output  := (text | block)*
    block   := START ws* ( calls | '[' ws* calls? ws* ']' ) ws* END?
    calls   := call (ws* SEP? ws* call)*
    call    := '{' member (',' member)* '}'            # any key order
    member  := NAME_KEY ':' string                     # the function name
             | ARGS_KEY ':' (object | string | null)   # object: streamed verbatim
             | other-key ':' value                     # string: decoded, then streamed
                                                       # other keys: skipped

Modes: TEXT (looking for START) -> BODY (between calls of a block) -> OBJECT (inside one
call object; its own sub-state says which member it is reading).

What it holds back:
- in TEXT, a suffix that may be the start of a START marker;
- in BODY, a suffix that may be the start of the END marker;
- in OBJECT, a key or name string not yet closed (capped at ``MAX_HEAD`` characters), and
  the arguments' last token if it may still grow (a number, ``tru``, a cut escape);
- in arguments written as an object, once the call streams, a small member cut by the end
  of the chunk, whole (at most 64 characters: ``ArgsStreamer.push_more``);
- in arguments written as a string, once the call streams: a small member of the object
  inside it (``\\"key\\": 1,``) cut by the end of the chunk, whole (at most 64
  characters), so that it is read by one regex with the next chunk.
- in arguments written as a string: what the inner scan has not decided (a number or a
  keyword that may grow, a cut inner escape), as the raw text it came from, never as
  decoded text, so that where the markup breaks is a position in the model's text.

Options for the formats that need them (all off by default):

- ``BARE``: JSON written with no start marker. ``BARE_AT_START``: a ``{`` (or ``[``
  with ``ARRAY``) as the first non-blank character of the output opens a block (Granite
  3.x). ``BARE_ANYWHERE``: a ``{`` (or ``[`` with ``ARRAY``) anywhere in text opens a tentative
  block (Llama 3 JSON).
  A bare block must look like a call from its first key on (a name or arguments key) and
  must carry arguments; otherwise it is text, so prose such as ``{x}`` or a quoted
  ``{"query": ...}`` stays text, and the engine holds at most one key before deciding.
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
  skipped. With ``ID_KEYS`` set, every id of the stream, model-made or generated, is made
  unique: a repeat gets a ``~2``, ``~3`` ... suffix, as in the header engine.

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
"""

from __future__ import annotations

import json
import re
from typing import ClassVar

from streamcall.events import Event, Text, ToolCallArgs
from streamcall.formats._base import ToolParser, Tools, UniqueIds
from streamcall.text import (
    KEY_EXPECTED,
    KEY_OR_CLOSE_EXPECTED,
    MAX_MEMBER,
    ArgsStreamer,
    JsonScan,
    MarkerFinder,
    cut_marker,
    decode_json_string,
    decode_string_run,
    fast,
    partial_marker_len,
    raw_offset,
)
from streamcall.text.jsonstring import (
    nested_member_cut,
    nested_members,
    nested_plain_run,
    nested_string_cut,
    nested_string_run,
)

__all__ = ["BARE_ANYWHERE", "BARE_AT_START", "JsonCallsParser"]

BARE_AT_START, BARE_ANYWHERE = 1, 2

_WS = re.compile(r"[ \t\n\r]*")
# A key or name string, with valid escapes only; ``_KEY_CUT``: one cut by the end of the text
# (a partial escape included), which may still close. Anything else, an invalid escape such
# as ``\{``, breaks the markup there: the string is text.
# Blanks before the object of string arguments, raw or escaped (``\n``, ``\u0020``).
_LEAD_BLANKS = re.compile(r"(?:[ \t\n\r]|\\[ntr]|\\u00(?:0[9aAdD]|20))*")
_CUT_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{0,3})?")
_KEY_STRING = re.compile(r'"(?:[^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"')
_KEY_CUT = re.compile(r'"(?:[^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*(?:\\(?:u[0-9a-fA-F]{0,3})?)?')
_LENIENT = json.JSONDecoder(strict=False)

# modes
_TEXT, _BODY, _OBJECT = 0, 1, 2
# object sub-states
_O_KEY_OR_CLOSE, _O_KEY, _O_COLON, _O_VALUE, _O_AFTER = 0, 1, 2, 3, 4
_O_NAME, _O_SKIP, _O_ARGS, _O_ARGS_STRING = 5, 6, 7, 8


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
        self._mode = _TEXT
        self._raw: list[str] = []  # consumed text that degrades to Text if the block fails
        self._block_calls = 0
        self._in_array = False
        self._unique = UniqueIds()  # ids given out so far (used only with ID_KEYS)
        # A call whose object closed, waiting for what proves it ended (see the module
        # header): (index, arguments, cut, junk text after the object in a string).
        self._closed: tuple[int, str, bool, str] | None = None
        self._reset_object()

    def _reset_object(self) -> None:
        self._sub = _O_KEY_OR_CLOSE
        self._key_role = 0  # 1 name, 2 args, 0 other
        self._name: str | None = None
        self._call_id: str | None = None  # the model's id (ID_KEYS)
        self._index = -1  # set once the call has started
        self._args: ArgsStreamer | None = None
        self._args_seen = False
        self._pending: list[str] = []  # argument text written before the name
        self._skip: JsonScan | None = None
        self._inner_lead = True  # string arguments: still before the first '{'
        self._junk: list[str] = []  # text after the arguments object in a string, as written
        self._cut = False  # string arguments that closed before their object did

    # -- the loop ------------------------------------------------------------------------

    def _step(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        n = len(buf)
        while pos < n:
            mode = self._mode
            if mode == _TEXT:
                if self._gap is not None:
                    pos = self._skip_gap(buf, pos, out, self._start_finder.markers, final)
                    if pos == n:
                        return pos
                if self._at_start:
                    ws_end = _WS.match(buf, pos).end()  # type: ignore[union-attr]
                    if ws_end > pos:
                        out.append(Text(buf[pos:ws_end]))
                        pos = ws_end
                    if pos == n:
                        return pos
                    self._at_start = False
                    if buf[pos] == "{" or (self.ARRAY and buf[pos] == "["):
                        self._open_block([], bare=True)
                        continue
                end, resume, marker = (
                    self._start_finder.find_final(buf, pos)
                    if final
                    else self._start_finder.find(buf, pos)
                )
                if end > pos:
                    out.append(Text(buf[pos:end]))
                if marker is None:
                    return end
                if (marker == "{" or marker == "[") and self.BARE == BARE_ANYWHERE:
                    self._open_block([], bare=True)
                    pos = end
                    continue
                if marker in self.REARM:
                    out.append(Text(marker))
                    self._at_start = True
                    pos = resume
                    continue
                self._open_block([marker], bare=False)
                self._end = self.ENDS.get(marker, self.END)
                pos = resume
            elif mode == _BODY:
                pos = self._body(buf, pos, out, final)
                if pos < 0:
                    return -pos - 1
            else:
                pos = self._object(buf, pos, out, final)
                if pos < 0:
                    return -pos - 1
        return pos

    def _open_block(self, raw: list[str], *, bare: bool) -> None:
        """Enter a block; ``raw`` is the markup consumed so far (text if the block fails).

        Also the way in for a parser that recognised the start marker itself and hands
        the rest of the block to this engine (Mistral's pre-v11 list form).
        """
        self._raw = raw
        self._block_calls = 0
        self._in_array = False
        self._bare_block = bare
        self._end = self.END
        self._mode = _BODY

    def feed(self, text: str) -> list[Event]:
        """``FeedLoop.feed``, with the chunks of streaming arguments taken directly.

        While a started call's arguments stream (most chunks of a long call) a chunk goes
        straight to the argument scanner (or, for arguments written as a string, to
        ``_string_args``), skipping the mode dispatch; anything else takes the general
        loop. Measured 9-13% faster per chunk on objects and 19% on strings (A/B, CPU
        time); tests check that it gives what the general loop gives.
        """
        sub = self._sub
        if self._mode != _OBJECT or self._index < 0 or not text:
            return super().feed(text)
        if sub != _O_ARGS:
            if sub != _O_ARGS_STRING:
                return super().feed(text)
            buf = self._tail + text if self._tail else text
            args = self._args
            assert args is not None
            if args.scan.in_string and fast.FAST:
                # Inside an inner string, a chunk of nested string body (most chunks of a
                # long string value): its decoding is the delta, what decoding and pushing
                # it would give, without the scans. A unit cut by the end of the chunk is
                # held (at most 6 characters). Written out here rather than called: 1.58
                # against 1.81 µs per chunk (A/B in CPU time).
                end = nested_string_run(buf).end()  # type: ignore[union-attr]
                n = len(buf)
                if (
                    end == n or (n - end < 7 and nested_string_cut(buf, end) is not None)
                ) and not args.done:
                    if end == n:
                        inner = decode_string_run(buf)
                        self._tail = ""
                    else:
                        inner = decode_string_run(buf[:end])
                        self._tail = buf[end:]
                    if inner:
                        args.parts.append(inner)
                        return [ToolCallArgs(self._index, inner)]
                    return []
            out: list[Event] = []
            return self._go_on(buf, self._string_args(buf, 0, out, False), out)
        out = []
        buf = self._tail + text if self._tail else text
        args = self._args
        assert args is not None
        delta, pos = args.push_more(buf, 0)
        if delta:
            out.append(ToolCallArgs(self._index, delta))
        if not args.done:
            if not args.error:
                self._tail = buf[pos:] if pos < len(buf) else ""
                return out
            pos = self._broken(buf, pos, out)
        else:
            self._sub = _O_AFTER
        pos = self._step(buf, pos, out, False)
        self._tail = buf[pos:] if pos < len(buf) else ""
        return out

    def _step_block(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """Read inside a block opened by ``_open_block`` and stop where the block ends.

        For a parser that embeds this engine one block at a time (Qwen's ``<tool_call>``
        with a JSON body among XML ones). Returns the new position, or ``-(pos + 1)`` to
        hold ``buf[pos:]``; ``_block_open`` is False once the block is over.
        """
        n = len(buf)
        while pos < n and self._mode != _TEXT:
            if self._mode == _BODY:
                pos = self._body(buf, pos, out, final)
            else:
                pos = self._object(buf, pos, out, final)
            if pos < 0:
                break
        return pos

    @property
    def _block_open(self) -> bool:
        return self._mode != _TEXT

    def step_for(self, host: ToolParser, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """``_step_block`` for a block embedded in ``host``'s output (another engine that
        found a JSON body): call indices are shared with the host, and a block that ends
        after holding calls ends the host's block too. Check ``_block_open`` after it."""
        self._calls = host._calls
        pos = self._step_block(buf, pos, out, final)
        host._calls = self._calls
        if pos >= 0 and not self._block_open and self._gap is not None:
            host._block_ended()
        return pos

    # -- between calls -------------------------------------------------------------------

    def _body(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """Returns the new position, or ``-(pos + 1)`` to stop and hold ``buf[pos:]``."""
        n = len(buf)
        ws_end = _WS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws_end > pos:
            self._raw.append(buf[pos:ws_end])
            pos = ws_end
        if pos == n:
            return pos
        c = buf[pos]
        end_marker = self._end
        if c == "{":
            if self._closed is not None:  # the next call: the last one ended
                self._settle(out, True)
            self._raw.append("{")
            self._reset_object()
            self._mode = _OBJECT
            return pos + 1
        if self.ARRAY and c == "[" and not self._in_array and self._block_calls == 0:
            self._in_array = True
            self._raw.append("[")
            return pos + 1
        if self._in_array and c == "]":
            self._in_array = False
            if not self._block_calls:
                self._raw.append("]")
            else:  # closing markup of calls that completed: never text
                self._raw = []
                if self._closed is not None and not self._end_required():
                    self._settle(out, True)  # the list was the block: its end ends the call
                if end_marker is None:
                    self._mode = _TEXT
                    self._block_ended()
            return pos + 1
        if self._block_calls and (c in self.SEPARATORS or (c == "," and self._in_array)):
            if self._closed is not None:
                self._settle(out, True)
            self._raw.append(c)
            return pos + 1
        if self.REPEAT_START and self._block_calls and not self._in_array:
            for marker in self.START:
                if buf.startswith(marker, pos):
                    if self._closed is not None:
                        self._settle(out, True)
                    self._raw.append(marker)
                    return pos + len(marker)
            if not final and partial_marker_len(buf, self.START, pos) == n - pos:
                return -(pos + 1)
        if end_marker is not None:
            if buf.startswith(end_marker, pos):
                if self._block_calls == 0:
                    self._raw.append(end_marker)
                    self._degrade(out)
                else:
                    if self._closed is not None:
                        self._settle(out, True)
                    self._block_ended()
                self._raw = []
                self._mode = _TEXT
                return pos + len(end_marker)
            if not final and partial_marker_len(buf, (end_marker,), pos) == n - pos:
                return -(pos + 1)
        # Anything else ends the block, and a call still waiting for its closer with it.
        # After calls, blanks before it are a gap: markup if another block or the end
        # follows, text if other text does (``_skip_gap``).
        if self._closed is not None:
            self._settle(out, False)
        if self._block_calls == 0:
            self._degrade(out)
        elif any(map(str.strip, self._raw)):
            self._release_raw(out)
        else:
            self._block_ended()
            assert self._gap is not None
            self._gap.extend(self._raw)
            self._raw.clear()
        self._mode = _TEXT
        return pos

    def _degrade(self, out: list[Event]) -> None:
        if self._raw:
            out.append(Text("".join(self._raw)))
            self._raw.clear()

    def _release_raw(self, out: list[Event]) -> None:
        text = "".join(self._raw)
        self._raw.clear()
        if text:
            out.append(Text(text))

    # -- inside one call object ----------------------------------------------------------

    def _object(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        n = len(buf)
        raw = self._raw
        while pos < n:
            sub = self._sub
            if sub == _O_ARGS:
                args = self._args
                assert args is not None
                start = pos
                delta, pos = args.push(buf, pos, final)
                if self._index < 0:
                    raw.append(buf[start:pos])  # as written: the delta escapes raw controls
                    self._pending.append(delta)
                elif delta:
                    out.append(ToolCallArgs(self._index, delta))
                if not args.done:
                    if args.error:
                        return self._broken(buf, pos, out)
                    return -(pos + 1) if pos < n else pos
                self._sub = _O_AFTER
                continue
            if sub == _O_ARGS_STRING:
                pos = self._string_args(buf, pos, out, final)
                if pos < 0:
                    return pos
                if self._mode != _OBJECT:
                    return pos
                continue
            if sub == _O_SKIP:
                skip = self._skip
                assert skip is not None
                start = pos
                pos = skip.feed(buf, pos, final)
                raw.append(buf[start:pos])
                if skip.error or skip.control:
                    return self._broken(buf, pos, out)
                if not skip.done:
                    return -(pos + 1) if pos < n else pos
                self._sub = _O_AFTER
                continue
            ws_end = _WS.match(buf, pos).end()  # type: ignore[union-attr]
            if ws_end > pos:
                raw.append(buf[pos:ws_end])
                pos = ws_end
                if pos == n:
                    return pos
            c = buf[pos]
            if sub == _O_KEY_OR_CLOSE or sub == _O_KEY:
                if c == "}" and sub == _O_KEY_OR_CLOSE:
                    raw.append(c)
                    pos += 1
                    if not self._close_call(out):
                        return self._broken(buf, pos, out, degrade_only=True)
                    return pos
                if c != '"':
                    return self._broken(buf, pos, out)
                m = _KEY_STRING.match(buf, pos)
                if m is None:
                    return self._cut_key(buf, pos, out, final)
                key = _LENIENT.decode(m.group())
                raw.append(m.group())
                pos = m.end()
                if (
                    self._bare_block
                    and sub == _O_KEY_OR_CLOSE
                    and key not in self.NAME_KEYS
                    and key not in self.ARGS_KEYS
                ):
                    return self._broken(buf, pos, out)
                if self.NAME_AS_KEY and self._name is None:
                    self._name = key
                    self._key_role = 2
                elif key in self.NAME_KEYS and self._name is None:
                    self._key_role = 1
                elif key in self.ARGS_KEYS and not self._args_seen:
                    self._key_role = 2
                elif key in self.ID_KEYS and self._call_id is None and self._index < 0:
                    self._key_role = 3
                else:
                    self._key_role = 0
                self._sub = _O_COLON
            elif sub == _O_COLON:
                if c != ":":
                    return self._broken(buf, pos, out)
                raw.append(c)
                pos += 1
                self._sub = _O_VALUE
            elif sub == _O_VALUE:
                role = self._key_role
                if role == 1:
                    if c != '"':
                        return self._broken(buf, pos, out)
                    m = _KEY_STRING.match(buf, pos)
                    if m is None:
                        return self._cut_key(buf, pos, out, final)
                    self._name = _LENIENT.decode(m.group())
                    raw.append(m.group())
                    pos = m.end()
                    self._sub = _O_AFTER
                    if self._args_seen:
                        self._begin(out)
                        self._flush_pending(out)
                elif role == 3 and c == '"':
                    m = _KEY_STRING.match(buf, pos)
                    if m is None:
                        return self._cut_key(buf, pos, out, final)
                    self._call_id = _LENIENT.decode(m.group()) or None
                    raw.append(m.group())
                    pos = m.end()
                    self._sub = _O_AFTER
                elif role == 2:
                    self._args_seen = True
                    if c == "{":
                        self._args = ArgsStreamer()
                        if self._name is not None:
                            self._begin(out)
                        self._sub = _O_ARGS
                    elif c == '"':
                        raw.append(c)
                        pos += 1
                        self._args = ArgsStreamer()
                        self._inner_lead = True
                        self._sub = _O_ARGS_STRING
                    elif buf.startswith("null", pos):
                        raw.append("null")
                        pos += 4
                        self._args_seen = False  # same as no arguments: {}
                        self._sub = _O_AFTER
                    elif not final and cut_marker("null", buf, pos):
                        return -(pos + 1)
                    else:
                        return self._broken(buf, pos, out)
                else:
                    self._skip = JsonScan()
                    self._sub = _O_SKIP
            else:  # _O_AFTER
                if c == ",":
                    raw.append(c)
                    pos += 1
                    self._sub = _O_KEY
                elif c == "}":
                    raw.append(c)
                    pos += 1
                    if not self._close_call(out):
                        return self._broken(buf, pos, out, degrade_only=True)
                else:
                    return self._broken(buf, pos, out)
            if self._mode != _OBJECT:
                return pos
        return pos

    def _cut_key(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """A key, name or id string at ``buf[pos]`` that does not close here: held while it
        may still close (up to ``MAX_HEAD`` characters), else the markup breaks at it."""
        cut = _KEY_CUT.match(buf, pos)
        if final or cut is None or cut.end() < len(buf) or len(buf) - pos > self.MAX_HEAD:
            return self._broken(buf, pos, out)
        return -(pos + 1)

    def _string_args(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """Arguments given as a JSON string: decode it and stream the decoded object.

        What the inner scan has not decided (a number or keyword that may grow, a cut
        inner escape) is held back as the raw text it came from, never as decoded text,
        so that where the markup breaks is a position in the model's text: from there on
        everything is text again, as written.
        """
        args = self._args
        assert args is not None
        if self._inner_lead:
            return self._string_lead(buf, pos, out, final)
        streaming = self._index >= 0 and not args.done
        if streaming and not final and fast.FAST:
            # Read the escaped-twice text with regexes, without decoding it first, when it
            # is of the common kinds (inside an inner string: ``feed``). Anything else
            # takes the general path below.
            n = len(buf)
            scan = args.scan
            if KEY_EXPECTED <= scan.expect <= KEY_OR_CLOSE_EXPECTED and not scan.in_string:
                # Where a key must come: whole members with their ',' (the common
                # ones, see ``nested_members``) are decoded by a replace and leave the
                # inner scan where it was, with no scan. A member cut by the end of
                # the chunk is held whole (at most MAX_MEMBER characters).
                end = nested_members(buf, pos).end()  # type: ignore[union-attr]
                if end > pos:
                    members = buf[pos:end].replace('\\"', '"')
                    args.parts.append(members)
                    out.append(ToolCallArgs(self._index, members))
                    if scan.expect != KEY_EXPECTED and "," in members:
                        scan.expect = KEY_EXPECTED
                    if end == n:
                        return end
                if n - end <= MAX_MEMBER and nested_member_cut(buf, end) is not None:
                    return -(end + 1)
                pos = end
            # Anywhere else (between inner tokens, or a string that closes here): if the
            # only escapes are inner quotes (\"), the decoding is a replace, and the inner
            # scan checks it as usual.
            end = nested_plain_run(buf, pos).end()  # type: ignore[union-attr]
            if end == n or (end == n - 1 and buf[end] == "\\"):
                decoded = buf[pos:end].replace('\\"', '"')
                delta, ipos = args.push(decoded, 0, False)
                if delta:
                    out.append(ToolCallArgs(self._index, delta))
                return self._inner_pushed(buf, pos, end, out, 0, decoded, ipos)
        decoded, resume, status = decode_json_string(buf, pos, final)
        if status < 0:
            # A bad escape: what came before it is read as it would have been had the
            # chunk ended just before it, so that the outcome does not depend on the
            # chunking; then the markup is broken there (or where the inner scan stopped).
            end = resume
            if decoded:
                end = self._push_decoded(buf, pos, resume, out, decoded, 0, False)
                if self._mode != _OBJECT or self._sub != _O_ARGS_STRING:
                    return end
                end = -end - 1 if end < 0 else end
            return self._broken(buf, end, out)
        return self._push_decoded(buf, pos, resume, out, decoded, status, final)

    def _string_lead(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """String arguments before the first ``{`` of the object inside: blanks (raw or
        escaped) are skipped; a closing quote means no arguments; anything else breaks
        the markup at that character."""
        end = _LEAD_BLANKS.match(buf, pos).end()  # type: ignore[union-attr]
        self._raw.append(buf[pos:end])
        if end == len(buf):
            return end
        if buf[end] == '"':  # an empty or blank string: no arguments
            self._raw.append('"')
            self._args_seen = False
            self._args = None
            self._sub = _O_AFTER
            return end + 1
        if buf[end] == "{" or buf.startswith(("\\u007b", "\\u007B"), end):
            self._inner_lead = False
            if self._name is not None:
                self._begin(out)
            return end
        if not final and _CUT_ESCAPE.fullmatch(buf, end) is not None:
            return -(end + 1)  # a cut escape: it may still be a blank or the brace
        return self._broken(buf, end, out)

    def _push_decoded(
        self,
        buf: str,
        pos: int,
        resume: int,
        out: list[Event],
        decoded: str,
        status: int,
        final: bool,
    ) -> int:
        """String arguments: ``decoded`` is ``buf[pos:resume]`` decoded (``status`` 1: up to
        the closing quote, which ends at ``resume``); push it into the object."""
        args = self._args
        assert args is not None
        ipos = 0
        if not args.done:
            delta, ipos = args.push(decoded, 0, final or status == 1)
            if self._index < 0:
                self._pending.append(delta)
            else:
                self._emit_args(out, self._index, delta)
        return self._inner_pushed(buf, pos, resume, out, status, decoded, ipos)

    def _inner_pushed(
        self,
        buf: str,
        pos: int,
        resume: int,
        out: list[Event],
        status: int,
        decoded: str,
        ipos: int,
    ) -> int:
        """String arguments, after ``decoded`` (``buf[pos:resume]`` decoded) was pushed into
        the object up to ``decoded[ipos]``. Returns the next position, or ``-(p + 1)`` to
        hold ``buf[p:]`` (the raw text of what the inner scan left undecided)."""
        args = self._args
        assert args is not None
        body_end = resume - 1 if status == 1 else resume  # the closing quote is not body
        stop = body_end if ipos >= len(decoded) else raw_offset(buf, pos, body_end, ipos)
        if args.error:
            if self._index < 0:
                self._raw.append(buf[pos:stop])
                return self._broken(buf, stop, out)
            # The call started: close it; the text from where the inner scan stopped on is
            # text again, as written.
            self._end_open_call(out, "")
            self._raw.clear()
            self._reset_object()
            self._mode = _TEXT
            return stop
        if args.done and stop < body_end:
            self._junk.append(buf[stop:body_end])
            stop = body_end
        if status == 0:
            if args.done:
                stop = resume
            if self._index < 0:
                self._raw.append(buf[pos:stop])
            return -(stop + 1) if stop < len(buf) else stop
        # the closing quote
        if self._index < 0:
            self._raw.append(buf[pos:resume])
        if not args.done:
            # the string closed before the object inside it did
            closing = args.close(decoded[ipos:])
            if self._index < 0:
                self._pending.append(closing)
            else:
                self._emit_args(out, self._index, closing)
            self._cut = True
        self._sub = _O_AFTER
        return resume

    # -- call life cycle -----------------------------------------------------------------

    def _begin(self, out: list[Event]) -> None:
        if self._index < 0:
            assert self._name is not None
            call_id = None
            if self.ID_KEYS:
                call_id = self._unique(self._call_id or f"{self.id_prefix}{self._calls}")
            self._index = self._start_call(out, self._name, call_id)
            self._raw.clear()

    def _flush_pending(self, out: list[Event]) -> None:
        if self._pending:
            self._emit_args(out, self._index, "".join(self._pending))
            self._pending = []

    def _close_call(self, out: list[Event]) -> bool:
        """The object closed. False if it was not a call (no name)."""
        if self._name is None or (self._bare_block and self._args is None):
            return False
        self._begin(out)
        args = self._args
        if args is None:
            self._emit_args(out, self._index, "{}")
            text, cut = "{}", False
        else:
            text, cut = args.text(), self._cut
        junk = "".join(self._junk)
        self._junk = []
        self._closed = (self._index, text, cut, junk)
        if not self._in_array and not self._end_required():
            self._settle(out, True)  # no closer to wait for: the object's end is the call's
        self._block_calls += 1
        self._raw.clear()
        self._reset_object()
        self._mode = _BODY
        return True

    def _broken(
        self,
        buf: str,
        pos: int,
        out: list[Event],
        *,
        degrade_only: bool = False,
    ) -> int:
        """Malformed markup at ``buf[pos]``: close what started, release the rest as text."""
        if self._index < 0 or degrade_only:
            self._degrade(out)
        else:
            self._end_open_call(out, "")
            self._release_junk(out)
            self._release_raw(out)
        self._reset_object()
        self._mode = _TEXT
        return pos

    def _release_junk(self, out: list[Event]) -> None:
        """Text that followed the arguments object inside a string, as written; blank text
        (blank once decoded: ``\\n`` too) is dropped."""
        junk = "".join(self._junk)
        self._junk = []
        if junk and decode_string_run(junk).strip():
            out.append(Text(junk))

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
        self._junk = [junk]  # (no object is open here: its own junk list is empty)
        self._release_junk(out)

    def _end_open_call(self, out: list[Event], tail: str) -> None:
        """End a call whose object never closed: incomplete, whatever its arguments."""
        args = self._args
        if args is None:
            self._emit_args(out, self._index, "{}")
            self._end_call(out, self._index, "{}", True)
            return
        if not args.done and not self._cut:  # (a cut string's object was closed then)
            self._emit_args(out, self._index, args.close(tail))
        self._end_call(out, self._index, args.text(), True)

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        mode = self._mode
        if mode == _TEXT:
            if rest:
                out.append(Text(rest))
            return
        if mode == _BODY:
            if self._closed is not None:  # its closer never came
                self._settle(out, False)
            if self._block_calls == 0:
                self._raw.append(rest)
                self._degrade(out)
            else:
                text = "".join(self._raw) + rest
                if text.strip():
                    out.append(Text(text))
            self._raw = []
            return
        # an object still open
        if self._name is None or (self._bare_block and self._args is None):
            self._raw.append(rest)
            self._degrade(out)
            return
        if self._index < 0:
            self._begin(out)
            self._flush_pending(out)
        # what the scan held back: raw text; inside string arguments, decoded first
        tail = decode_json_string(rest, 0, True)[0] if self._sub == _O_ARGS_STRING else rest
        if self._sub == _O_ARGS_STRING and self._inner_lead:
            self._args = None  # the string ended before its object began: no arguments
        if self._sub in (_O_ARGS, _O_ARGS_STRING) and self._args is not None:
            self._end_open_call(out, tail)
        else:  # (arguments that closed too: the call's object did not)
            self._end_open_call(out, "")
        self._release_junk(out)
        self._raw.clear()
